// Scenario: a researcher publishes the paper's study and the demo bundle with `routelens publish
// --base-path /paper/` and puts the folder on a plain static host that is not routelens (Python's
// http.server) under a sub-path, as a GitHub Pages project site. A reader opens the study and
// reads Table 2, runs a search, packs a context and routes with the offline decider, then follows
// the permalink; no request leaves /paper/. Then one byte of a chunk and one of the question set
// change: the page refuses each, naming the file, and `routelens publish --verify` names both.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { archive, buildDemoBundle, launchBrowser, missing, root, startStaticServer, tempDir } from './lib/harness.mjs';

const skip = missing() ?? false;
const cli = join(root, 'target/debug/routelens');
const QUESTION = 'serde_json-float';
let httpd, base, browser, site;

const routelens = (...args) => spawnSync(cli, args, { encoding: 'utf8' });

before(async () => {
  if (skip) return;
  const root_ = tempDir();
  const demo = buildDemoBundle(join(root_, 'bundles'));
  site = join(root_, 'www', 'paper');
  const published = routelens('publish', '--out', site, '--dist', join(root, 'dist'), '--study', archive,
    '--bundle', demo, '--title', 'A paper on routing', '--base-path', '/paper/');
  assert.equal(published.status, 0, published.stderr);
  assert.match(published.stdout, /^published .*: \d+ files, \d+ bytes \(app \d+, 1 studies \d+, 1 bundles \d+\)/);
  console.log(published.stdout.trim());
  httpd = await startStaticServer(join(root_, 'www'));
  base = `${httpd.url}/paper/`;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  httpd?.stop();
});

/** A fresh page (no cache) logging the path of every request to the site's origin
 * (bench/site-bytes.mjs counts bytes). */
async function freshPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  const log = { paths: [] };
  page.on('request', (request) => {
    const url = new URL(request.url());
    // The one call to another origin is the decision API's, made on purpose below.
    if (url.origin === new URL(base).origin) log.paths.push(url.pathname);
  });
  const byTestId = (id) => page.locator(`[data-testid="${id}"]`);
  return { page, log, byTestId, close: () => context.close() };
}

test('a published site under a sub-path: study, search, pack, offline route and permalink', { skip }, async () => {
  const { page, log, byTestId, close } = await freshPage();
  await page.goto(`${base}?study=fastindex&view=table2`);
  const tree = page.locator('[data-testid="table-file-recall"] tr[data-row="tree"] td[data-col="File@8"]');
  await tree.waitFor({ timeout: 60000 });
  assert.equal(await tree.textContent(), '0.465');
  assert.equal(await page.title(), 'A paper on routing · routelens');

  await byTestId('tab-search').click();
  await byTestId('bundle-select').selectOption('demo');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'),
  null, { timeout: 60000 });
  await byTestId('question-select').selectOption(QUESTION);
  await byTestId('search-run').click();
  await page.waitForSelector('[data-testid="search-column"][data-arm="rg"] [data-testid="search-hit"]',
    { timeout: 120000 });
  // A static host cannot isolate the page; the timing panel says what its clock is then.
  assert.match(await byTestId('search-timing-clock').textContent(),
    /without cross-origin isolation: 100 µs steps/);

  await byTestId('tab-context').click();
  await page.waitForSelector('[data-testid="context-pack"][data-arm="fts5"] [data-testid="context-budget"]',
    { timeout: 120000 });
  const used = await page.$eval('[data-testid="context-pack"][data-arm="fts5"] [data-testid="context-budget"]',
    (bar) => Number(bar.dataset.used));
  assert.ok(used > 0 && used <= 16000, `${used} tokens packed`);

  await byTestId('tab-route').click();
  await byTestId('route-bundle-summary').waitFor({ timeout: 30000 });
  await byTestId('route-run-button').click();
  await page.waitForFunction(() =>
    /done/.test(document.querySelector('[data-testid="route-progress"]')?.textContent ?? ''), null, { timeout: 60000 });
  assert.match(await byTestId('route-decider').textContent(), /decider offline/);
  const paths = await page.$$eval('[data-testid="route-path"]', (items) => items.map((li) => li.dataset.path));
  assert.ok(paths.length > 0, 'the offline router nominates files');

  // The permalink opens the same view of the same bundle and question on a fresh page.
  const link = page.url();
  assert.ok(link.startsWith(base), link);
  const again = await freshPage();
  await again.page.goto(link);
  await again.byTestId('route-bundle-summary').waitFor({ timeout: 30000 });
  assert.match(await again.byTestId('route-query').inputValue(), /decimal/);

  // Without the server: a static host has no decision proxy, and a decision API on another
  // origin that does not answer (or allow this page) is refused by the browser; both say so.
  const routeState = () => page.waitForFunction(() =>
    document.querySelector('[data-testid="route-state"]')?.textContent ?? '', null, { timeout: 60000 })
    .then((handle) => handle.jsonValue());
  await byTestId('route-decider-select').selectOption('proxy');
  await byTestId('route-run-button').click();
  assert.match(await routeState(), /HTTP 501: this host has no decision proxy; only `routelens serve` has one/);
  await byTestId('route-decider-select').selectOption('http');
  await byTestId('route-base').fill('http://127.0.0.1:9');
  await byTestId('route-base').press('Tab');
  await byTestId('route-key').fill('not-a-key');
  await byTestId('route-run-button').click();
  await page.waitForFunction(() => /CORS/.test(document.querySelector('[data-testid="route-state"]')?.textContent ?? ''),
    null, { timeout: 60000 });
  const said = await byTestId('route-state').textContent();
  assert.match(said, /could not reach http:\/\/127\.0\.0\.1:9 .*\(CORS\).*routelens serve/);
  assert.ok(!said.includes('not-a-key') && !page.url().includes('not-a-key'), 'the key stays off the page');

  const outside = [...log.paths, ...again.log.paths].filter((path) => !path.startsWith('/paper/'));
  assert.deepEqual(outside, [], 'every request stays under the sub-path');
  assert.ok(log.paths.some((path) => path.endsWith('routelens-worker_bg.wasm')), 'the worker ran');
  assert.ok(log.paths.includes('/paper/CHECKSUMS'), 'the page read the checksums');
  await again.close();
  await close();
});

test('a changed byte is refused by the page and by --verify, naming the file', { skip }, async () => {
  const manifest = JSON.parse(readFileSync(join(site, 'bundles/demo/manifest.json'), 'utf8'));
  const chunk = manifest.chunks[0].file;
  const flip = (file, at) => {
    const bytes = readFileSync(join(site, file));
    bytes[at] ^= 1;
    writeFileSync(join(site, file), bytes);
  };
  // The question set is not in the manifest: only CHECKSUMS vouches for it.
  const questions = readFileSync(join(site, 'bundles/demo/questions.jsonl'), 'utf8');
  flip('bundles/demo/questions.jsonl', questions.indexOf('"question"') + 12);
  {
    const { page, byTestId, close } = await freshPage();
    await page.goto(`${base}?view=search&bundle=demo`);
    await byTestId('bundle-error').waitFor({ timeout: 60000 });
    const said = await byTestId('bundle-error').textContent();
    assert.match(said, /bundles\/demo\/questions\.jsonl: SHA-256 mismatch: the site's CHECKSUMS lists/);
    await close();
  }
  flip('bundles/demo/questions.jsonl', questions.indexOf('"question"') + 12);
  flip(`bundles/demo/${chunk}`, 10);
  {
    const { page, byTestId, close } = await freshPage();
    await page.goto(`${base}?view=search&bundle=demo&q=${QUESTION}`);
    await page.waitForFunction(() =>
      document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'),
    null, { timeout: 60000 });
    await byTestId('search-run').click();
    await byTestId('bundle-error').waitFor({ timeout: 120000 });
    const said = await byTestId('bundle-error').textContent();
    assert.ok(said.includes(chunk) && /SHA-256 mismatch/.test(said), said);
    await close();
  }
  flip('bundles/demo/questions.jsonl', questions.indexOf('"question"') + 12);
  const verified = routelens('publish', '--verify', site);
  assert.equal(verified.status, 65, verified.stdout);
  assert.match(verified.stderr, /2 problem\(s\)/);
  assert.ok(verified.stderr.includes(`bundles/demo/${chunk}: SHA-256 mismatch`), verified.stderr);
  assert.ok(verified.stderr.includes('bundles/demo/questions.jsonl: SHA-256 mismatch'), verified.stderr);
});
