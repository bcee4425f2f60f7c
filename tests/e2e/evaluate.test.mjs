// Scenario: a reader opens the demo bundle in the Evaluate view with a per-file cap of 2 (from a
// permalink), runs the CodeAtlas grid in the browser with 10,000 resamples, and reads off the
// page a metric with its interval, a paired sentence, the cap the dev half chose and a failure
// sentence — each exactly what `routelens evaluate --format json` reports for the same bundle
// and settings. Cancel stops a run and reports nothing partial.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { buildDemoBundle, launchBrowser, missing, root, startServer, tempDir } from './lib/harness.mjs';

const skip = missing() ?? false;
let server, browser, demo;

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  demo = buildDemoBundle(bundles);
  server = await startServer({ bundles });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const fmt = (x) => x.toFixed(3);

test('the grid in the browser says what routelens evaluate says', { skip }, async () => {
  const cli = JSON.parse(execFileSync(join(root, 'target/debug/routelens'),
    ['evaluate', demo, '--questions', join(demo, 'questions.jsonl'), '--cap', '2', '--format', 'json'],
    { encoding: 'utf8', maxBuffer: 64 << 20 }));
  const page = await browser.newPage();
  await page.goto(`${server.url}/?view=evaluate&bundle=demo&caps=2`);
  await page.locator('[data-testid="evaluate-chunker-window"]').waitFor({ timeout: 60000 });
  assert.equal(await page.locator('[data-testid="evaluate-caps"]').inputValue(), '2');
  await page.locator('[data-testid="evaluate-run"]').click();
  await page.locator('[data-testid="evaluate-result"]').waitFor({ timeout: 300000 });

  const summary = await page.locator('[data-testid="evaluate-summary"]').textContent();
  assert.match(summary, new RegExp(`^${cli.questions} questions, ${cli.configurations.length} configurations`));
  assert.match(summary, /10000 resamples, seed 0/);
  console.log(`# grid in Chromium: ${summary.match(/ran in (\d+) ms/)[1]} ms`);

  // Every configuration's ndcg@10 with its interval.
  for (const config of cli.configurations) {
    const s = cli.metrics.find((m) => m.arm === config && m.metric === 'ndcg@10');
    const cell = await page.locator(
      `[data-testid="evaluate-grid"] tr[data-row="${config}"] td[data-col="ndcg@10"]`).textContent();
    assert.equal(cell.trim(), `${fmt(s.mean)} [${fmt(s.ci_low)}, ${fmt(s.ci_high)}]`, config);
  }
  // A paired sentence, read off the page.
  const pair = cli.paired.find((p) => p.metric === 'ndcg@10'
    && p.left === 'structural/bm25' && p.right === 'window/bm25');
  const sentence = await page.locator(
    '[data-testid="evaluate-pairs"] li[data-left="structural/bm25"][data-right="window/bm25"]').textContent();
  assert.equal(sentence, pair.sentence);
  // The cap the dev half chose, and a failure sentence.
  const chosen = cli.split.chosen.find((c) => c.base === 'window/bm25');
  const row = page.locator('[data-testid="evaluate-split"] tr[data-row="window/bm25"]');
  assert.equal((await row.locator('td[data-col="chosen"]').textContent()).trim(), chosen.chosen);
  assert.equal((await row.locator('td[data-col="dev"]').textContent()).trim(), fmt(chosen.dev_mean));
  const failure = cli.failures.find((f) => f.arm === 'window/bm25/cap2');
  const share = failure.shares.find((s) => s.share === 'wrong-project share');
  const said = await page.locator(
    '[data-testid="evaluate-failures"] li[data-config="window/bm25/cap2"][data-share="wrong-project share"]').textContent();
  assert.equal(said, `window/bm25/cap2 at ${failure.k}: ${share.sentence}`);

  // The CSV of the grid is the engine's.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('[data-testid="evaluate-grid"] [data-testid="csv-download"]').click(),
  ]);
  const csv = await (await download.createReadStream()).toArray();
  const text = Buffer.concat(csv).toString('utf8');
  assert.match(text.split('\n')[0], /^configuration,/);
  assert.equal(text.trim().split('\n').length, 1 + cli.configurations.length);
  await page.close();
});

test('Cancel stops the grid and reports nothing partial', { skip }, async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}/?view=evaluate&bundle=demo&resamples=200000`);
  await page.locator('[data-testid="evaluate-chunker-window"]').waitFor({ timeout: 60000 });
  await page.locator('[data-testid="evaluate-run"]').click();
  await page.locator('[data-testid="evaluate-cancel"]').click();
  const cancelled = page.locator('[data-testid="evaluate-cancelled"]');
  await cancelled.waitFor({ timeout: 120000 });
  assert.match(await cancelled.textContent(), /Cancelled after \d+ of \d+ steps/);
  assert.equal(await page.locator('[data-testid="evaluate-result"]').count(), 0);
  await page.close();
});

test('a bad setting is refused naming it, from the link and from the page', { skip }, async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}/?view=evaluate&bundle=demo&select=nope@x`);
  // The link's bad setting is refused with a notice and the default kept.
  await page.locator('[data-testid="evaluate-select"]').waitFor({ timeout: 60000 });
  assert.equal(await page.locator('[data-testid="evaluate-select"]').inputValue(), 'ndcg@10');
  await page.locator('[data-testid="evaluate-select"]').fill('bogus@3');
  await page.locator('[data-testid="evaluate-select"]').dispatchEvent('change');
  await page.locator('[data-testid="evaluate-run"]').click();
  const error = page.locator('[data-testid="evaluate-error"]');
  await error.waitFor({ timeout: 120000 });
  assert.match(await error.textContent(), /bogus@3/);
  await page.close();
});
