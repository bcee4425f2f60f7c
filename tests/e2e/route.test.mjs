// Scenario: a developer opens the demo bundle in the Route view, routes a question of its set
// offline, then live over HTTP against the loopback protocol stub through the browser transport
// (the base URL is the stub's, so the page calls it cross-origin), watches the menus appear,
// checks the nominated paths against `routelens route --decider http` run natively, reloads
// from the permalink (the key is not in it), downloads the run file and replays it to the same
// paths, routes through the same-origin proxy of `routelens serve`, adds the offline router as an
// arm of the live study, times rendering a synthetic 1,000-option walk, and downloads the live
// study with every run file: `routelens replay-study` replays it offline to the identical arm, its
// calls reach the operating points, and the file opens again as a study.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { missing, root, startServer, startCli, launchBrowser, buildDemoBundle, screenshot, tempDir } from './lib/harness.mjs';

const skip = missing() || false;
const cli = join(root, 'target/debug/routelens');
const QUESTION = 'serde_json-float';
// The stub answers any key; this one also makes every answer take 150 ms, so the walk can be
// watched filling in. It is a secret as far as the page is concerned.
const KEY = 'fault-slow:150';
let server, stub, browser, page, demo, questionText, downloaded;

/** Starts `routelens typesafe-stub` on a free loopback port; resolves to { url, stop }. */
const startStub = () => startCli(['typesafe-stub', '--addr', '127.0.0.1:0']);

/** `routelens route <demo> --query TEXT ... --format json`, parsed. */
function routeNatively(...args) {
  const out = execFileSync(cli, ['route', demo, '--query', questionText, ...args, '--format', 'json'], {
    encoding: 'utf8',
    env: { ...process.env, TYPESAFE_API_KEY: KEY },
  });
  return JSON.parse(out);
}

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  demo = buildDemoBundle(bundles);
  questionText = readFileSync(join(root, 'bundler/demo/questions.jsonl'), 'utf8')
    .split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((q) => q.id === QUESTION).question;
  stub = await startStub();
  // The same-origin proxy forwards to the stub with the key from the server's environment.
  server = await startServer({ bundles, args: ['--typesafe-base', stub.url], env: { TYPESAFE_API_KEY: KEY } });
  browser = await launchBrowser();
  page = await browser.newPage({ acceptDownloads: true });
});
after(async () => {
  await browser?.close();
  server?.stop();
  stub?.stop();
});

const byTestId = (id) => page.locator(`[data-testid="${id}"]`);
const shownPaths = () => page.$$eval('[data-testid="route-path"]', (items) => items.map((li) => li.dataset.path));
const waitDone = () => page.waitForFunction(() =>
  /done/.test(document.querySelector('[data-testid="route-progress"]')?.textContent ?? ''), null, { timeout: 60000 });

async function openRouteView(query) {
  await page.goto(`${server.url}/?${query}`);
  await byTestId('route-bundle-summary').waitFor({ timeout: 30000 });
}

test('a demo question routes offline in the browser, as natively', { skip }, async () => {
  await openRouteView(`view=route&bundle=demo&q=${QUESTION}`);
  assert.match(await byTestId('route-query').inputValue(), /decimal/);
  await byTestId('route-run-button').click();
  await waitDone();
  assert.match(await byTestId('route-decider').textContent(), /decider offline/);
  const paths = await shownPaths();
  const native = routeNatively('--decider', 'offline');
  assert.deepEqual(paths, native.paths);
  assert.ok(paths.length > 0);
  assert.equal(await byTestId('route-menu').count(), native.menus.length);
  assert.match(await byTestId('route-recall').textContent(), /^recall@8 \d\/1 = /);
});

test('a live run over HTTP against the stub fills in and matches the native client', { skip }, async () => {
  await byTestId('route-decider-select').selectOption('http');
  await byTestId('route-base').fill(stub.url);
  await byTestId('route-base').dispatchEvent('change');
  await byTestId('route-key').fill(KEY);
  await byTestId('route-run-button').click();
  // Watch the walk fill in: sample the menu count while the run is in flight.
  const seen = new Set();
  while (!/done/.test((await byTestId('route-progress').textContent()) ?? '')) {
    seen.add(await byTestId('route-menu').count());
    await page.waitForTimeout(50);
  }
  const native = routeNatively('--decider', 'http', '--base', stub.url);
  const paths = await shownPaths();
  console.log(JSON.stringify({ live_menu_counts_seen: [...seen].sort((a, b) => a - b), calls: native.calls, paths: paths.length }));
  assert.ok([...seen].some((n) => n > 0 && n < native.menus.length), `menus appeared one by one (${[...seen]})`);
  assert.deepEqual(paths, native.paths);
  assert.match(await byTestId('route-decider').textContent(), /decider http/);
  assert.equal(await byTestId('route-count-calls').textContent(), `calls: ${native.calls}`);
  assert.equal(await byTestId('route-count-input-tokens').textContent(), `input tokens: ${native.input_tokens}`);
  // Options show probabilities and why each was kept or dropped.
  const kept = await page.$$eval('[data-testid="route-option"][data-kept="true"]', (rows) => rows.map((r) => r.textContent));
  assert.ok(kept.length > 0 && kept.every((t) => /kept/.test(t)), kept[0]);
  // The key is in memory only: not in the link, not in local storage (the box is unticked).
  const href = await byTestId('permalink').getAttribute('href');
  assert.ok(!href.includes('fault') && !page.url().includes('fault'), href);
  assert.equal(await page.evaluate(() => JSON.stringify(localStorage)).then((s) => s.includes('fault')), false);
  // Download the run file: every request and response, no key.
  const [download] = await Promise.all([page.waitForEvent('download'), byTestId('route-download').click()]);
  downloaded = join(tempDir(), download.suggestedFilename());
  await download.saveAs(downloaded);
  const text = readFileSync(downloaded, 'utf8');
  assert.ok(!text.includes(KEY), 'the run file holds no key');
  const file = JSON.parse(text);
  assert.equal(file.decider, 'http');
  assert.deepEqual(file.run.paths, native.paths);
  assert.equal(file.exchanges.length, native.calls);
  await screenshot(page, 'route-http');
});

test('the permalink brings the settings back without the key, and the run replays exactly', { skip }, async () => {
  const link = new URL(await byTestId('permalink').getAttribute('href'), server.url);
  assert.equal(link.searchParams.get('view'), 'route');
  assert.equal(link.searchParams.get('decider'), 'http');
  assert.equal(link.searchParams.get('base'), stub.url);
  assert.equal(link.searchParams.get('q'), QUESTION);
  await page.goto(link.href);
  await byTestId('route-bundle-summary').waitFor({ timeout: 30000 });
  assert.equal(await byTestId('route-decider-select').inputValue(), 'http');
  assert.equal(await byTestId('route-base').inputValue(), stub.url);
  assert.equal(await byTestId('route-key').inputValue(), '');
  assert.match(await byTestId('route-query').inputValue(), /decimal/);
  // Without a key the http decider says so instead of calling.
  await byTestId('route-run-button').click();
  assert.match(await byTestId('route-error').textContent(), /needs an API key/);

  await byTestId('route-decider-select').selectOption('replay');
  await byTestId('route-replay-file').setInputFiles(downloaded);
  await byTestId('route-replay-summary').waitFor();
  await byTestId('route-run-button').click();
  await waitDone();
  const recorded = JSON.parse(readFileSync(downloaded, 'utf8'));
  assert.deepEqual(await shownPaths(), recorded.run.paths);
  assert.match(await byTestId('route-decider').textContent(), /decider replay of http/);
  assert.equal(await byTestId('route-count-calls').textContent(), `calls: ${recorded.run.calls}`);
});

test('the proxy decider routes through routelens serve with no key in the page', { skip }, async () => {
  await byTestId('route-decider-select').selectOption('proxy');
  await byTestId('route-run-button').click();
  await waitDone();
  const native = routeNatively('--decider', 'http', '--base', stub.url);
  assert.deepEqual(await shownPaths(), native.paths);
  assert.match(await byTestId('route-decider').textContent(), /decider proxy/);
  assert.equal(await byTestId('route-count-calls').textContent(), `calls: ${native.calls}`);
});

test('a run recorded natively replays in the browser to the same paths', { skip }, async () => {
  const recordedFile = join(tempDir(), 'native-run.json');
  const native = routeNatively('--decider', 'http', '--base', stub.url, '--record', recordedFile);
  await byTestId('route-decider-select').selectOption('replay');
  await byTestId('route-replay-file').setInputFiles(recordedFile);
  await byTestId('route-replay-summary').waitFor();
  await byTestId('route-run-button').click();
  await waitDone();
  assert.deepEqual(await shownPaths(), native.paths);
  assert.match(await byTestId('route-decider').textContent(), /decider replay of http/);
});

test('Cancel stops a live run and keeps the partial walk', { skip }, async () => {
  await byTestId('route-decider-select').selectOption('http');
  await byTestId('route-key').fill('fault-slow:400');
  await byTestId('route-run-button').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="route-menu"]').length >= 1, null, { timeout: 30000 });
  await byTestId('route-cancel').click();
  await waitDone();
  assert.match(await byTestId('route-state').textContent(), /cancelled by the user/);
  const menus = await byTestId('route-menu').count();
  assert.ok(menus >= 1 && menus < 7, `partial run kept (${menus} menus)`);
  assert.equal(await byTestId('route-download').isDisabled(), false);
  // The kept file is marked partial, and its replay (here and natively) stops where the run
  // did, with its reason, instead of asking for a call that was never made.
  const [download] = await Promise.all([page.waitForEvent('download'), byTestId('route-download').click()]);
  const cut = join(tempDir(), 'cancelled-run.json');
  await download.saveAs(cut);
  const file = JSON.parse(readFileSync(cut, 'utf8'));
  assert.equal(file.partial, true);
  assert.equal(file.run.error.message, 'cancelled by the user');
  await byTestId('route-decider-select').selectOption('replay');
  await byTestId('route-replay-file').setInputFiles(cut);
  await byTestId('route-replay-summary').waitFor();
  await byTestId('route-run-button').click();
  await waitDone();
  assert.match(await byTestId('route-state').textContent(), /cancelled by the user/);
  assert.doesNotMatch(await byTestId('route-state').textContent(), /not recorded/);
  assert.equal(await byTestId('route-menu').count(), menus);
  assert.equal(await byTestId('route-count-calls').textContent(), `calls: ${file.run.calls}`);
  const replayed = JSON.parse(execFileSync(cli, ['route', demo, '--query', file.issue, '--decider', `replay:${cut}`, '--format', 'json'], { encoding: 'utf8' }));
  assert.deepEqual(replayed.paths, file.run.paths);
  assert.equal(replayed.error.message, 'cancelled by the user');
});

test('"remember on this device" keeps the key in local storage only while ticked', { skip }, async () => {
  await byTestId('route-decider-select').selectOption('http');
  await byTestId('route-key').fill(KEY);
  await byTestId('route-remember').check();
  assert.equal(await page.evaluate(() => localStorage.getItem('routelens.typesafe_key')), KEY);
  await page.reload();
  await byTestId('route-bundle-summary').waitFor({ timeout: 30000 });
  assert.equal(await byTestId('route-key').inputValue(), KEY);
  assert.ok(!page.url().includes('fault'), page.url());
  await byTestId('route-remember').uncheck();
  assert.equal(await page.evaluate(() => localStorage.getItem('routelens.typesafe_key')), null);
});

test('the offline router over every question becomes an arm of the live study', { skip }, async () => {
  await byTestId('route-decider-select').selectOption('offline');
  await byTestId('route-add-arm').click();
  await byTestId('route-live-study').waitFor({ timeout: 60000 });
  const arms = await page.$$eval('[data-testid="table-route-live-recall"] tr[data-row]', (rows) => rows.map((r) => r.dataset.row));
  assert.ok(arms.includes('route-tree-offline'), JSON.stringify(arms));
});

test('rendering a 1,000-option walk', { skip }, async () => {
  const recorded = JSON.parse(readFileSync(downloaded, 'utf8'));
  // 100 menus of 10 options each; each repetition names its directories differently so the
  // check below sees that repetition's walk, not the one before.
  const synthetic = (rep) => {
    const menus = Array.from({ length: 100 }, (_, m) => {
      const paths = Array.from({ length: 10 }, (_, o) => `r${rep}dir${m}/file${o}.rs`);
      return {
        directory: `r${rep}dir${m}`,
        options: paths.map((p) => `${p}: - [${p}](${p})`),
        probabilities: paths.map((_, o) => (o + 1) / 100),
        kept: paths.slice(5).reverse(),
        paths,
        none_of_these: [0.45],
        calls: 1,
      };
    });
    return { ...recorded, run: { ...recorded.run, menus, paths: menus.flatMap((m) => m.kept).slice(0, 16) } };
  };
  await page.evaluate(() => {
    window.__pick = null;
    window.addEventListener('change', () => { window.__pick = performance.now(); }, { capture: true });
  });
  await byTestId('route-decider-select').selectOption('replay');
  const times = [];
  for (let rep = 0; rep < 5; rep += 1) {
    await byTestId('route-replay-file').setInputFiles({
      name: `synthetic-${rep}.json`, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(synthetic(rep))),
    });
    // From the file input's change event (the file is then read and parsed by the engine) to all
    // 1,000 option rows in the DOM, sampled once per animation frame.
    const done = await page.waitForFunction((last) => {
      if (!document.querySelector(`[data-testid="route-menu"][data-directory="${last}"]`)) return false;
      if (document.querySelectorAll('[data-testid="route-option"]').length !== 1000) return false;
      return performance.now() - window.__pick;
    }, `r${rep}dir99`, { timeout: 60000, polling: 'raf' });
    times.push(Math.round(await done.jsonValue()));
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(JSON.stringify({ render_1000_options_ms: times, median_ms: sorted[2] }));
  assert.equal(await byTestId('route-menu').count(), 100);
  await screenshot(page, 'route-1000');
});

test('the live routing arm keeps its runs: operating points, offline replay, reopening', { skip }, async () => {
  await openRouteView('view=route&bundle=demo');
  await byTestId('route-decider-select').selectOption('offline');
  await byTestId('route-add-arm').click();
  await byTestId('route-live-study').waitFor({ timeout: 60000 });
  const [download] = await Promise.all([page.waitForEvent('download'), byTestId('route-export-study').click()]);
  const path = join(tempDir(), download.suggestedFilename());
  await download.saveAs(path);
  const exported = JSON.parse(readFileSync(path, 'utf8'));
  assert.equal(exported.format, 'routelens-live-study/1');
  const arm = exported.arms.find((a) => a.name === 'route-tree-offline');
  assert.equal(arm.evidence.length, exported.questions.length);
  const runs = arm.evidence.map((evidence) => evidence.route);
  assert.ok(runs.every((file) => file.format === 'routelens-route-run/1' && file.run.calls > 0));
  assert.ok(!readFileSync(path, 'utf8').includes(KEY), 'no key in the export');
  const checks = JSON.parse(execFileSync(cli, ['replay-study', path, demo, '--format', 'json'], { encoding: 'utf8' }));
  assert.deepEqual(checks.map((c) => [c.arm, c.identical, c.differences.length]),
    [['route-tree-offline', runs.length, 0]]);

  const meanCalls = runs.reduce((sum, file) => sum + file.run.calls, 0) / runs.length;
  const shownCalls = async () => Number(await page
    .locator('[data-testid="table-operations"] tr[data-row="route-tree-offline"] td[data-col="calls/issue"]')
    .textContent());
  await byTestId('route-open-live').click();
  await byTestId('tab-operations').click();
  assert.ok(Math.abs(await shownCalls() - meanCalls) < 0.051, `${await shownCalls()} vs ${meanCalls}`);

  await byTestId('study-close').click();
  await byTestId('pick-export').setInputFiles(path);
  await byTestId('study-title').waitFor({ timeout: 30000 });
  await byTestId('tab-operations').click();
  assert.ok(Math.abs(await shownCalls() - meanCalls) < 0.051, 'the reopened arm has the same calls');
});
