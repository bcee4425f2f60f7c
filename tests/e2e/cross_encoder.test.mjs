// Scenario: a reader of a CodeAtlas-style supplement adds its two reranker rows to the grid in
// the page, with a cross-encoder the site serves (here the tiny test model of tests/cross_encoder/,
// made for the purpose), and gets `routelens evaluate`'s numbers cell for cell, the model's
// weights named by their SHA-256; without a model the rows are listed as needing one; a folder
// picked in the page serves as the model too. In the Rerank view the cross-encoder reorders a
// pool as `routelens rerank` does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, missing, root, startServer, tempDir } from './lib/harness.mjs';

const skip = missing() ?? false;
const cli = join(root, 'target/debug/routelens');
const fixture = join(root, 'bundler/tests/fixtures/repo.bundle');
const questionsFile = join(root, 'bundler/tests/fixtures/eval-questions.jsonl');
const tiny = join(root, 'tests/cross_encoder/tiny');
const ROWS = 'chunkers=structural,window&caps=1&capped=hybrid&rerankers=cross-encoder:text,cross-encoder:prefixed';
let withModel, withoutModel, browser, bundle;

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  bundle = join(bundles, 'repo');
  cpSync(fixture, bundle, { recursive: true });
  cpSync(questionsFile, join(bundle, 'questions.jsonl'));
  withModel = await startServer({ bundles, args: ['--reranker-model', tiny] });
  withoutModel = await startServer({ bundles });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  withModel?.stop();
  withoutModel?.stop();
});

function evaluateNatively() {
  return JSON.parse(execFileSync(cli, ['evaluate', bundle, '--questions', join(bundle, 'questions.jsonl'),
    '--chunker', 'structural', '--chunker', 'window', '--cap', '1', '--capped', 'hybrid',
    '--reranker', 'cross-encoder:text', '--reranker', 'cross-encoder:prefixed', '--reranker-model', tiny,
    '--format', 'json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
}

/** Runs the grid of `url` and returns the page once its report (or error) shows. */
async function runGrid(page, url, pick) {
  await page.goto(url);
  await page.locator('[data-testid="evaluate-chunker-window"]').waitFor({ timeout: 60000 });
  if (pick) await page.locator('[data-testid="evaluate-cross-encoder-folder"]').setInputFiles(pick);
  await page.locator('[data-testid="evaluate-run"]').click();
  await page.locator('[data-testid="evaluate-result"], [data-testid="evaluate-error"]').first()
    .waitFor({ timeout: 300000 });
  const error = page.locator('[data-testid="evaluate-error"]');
  assert.equal(await error.count(), 0, await error.first().textContent().catch(() => ''));
}

/** Every cell of the native report found in the page's grid, compared. */
async function sameCells(page, report) {
  const fmt = (x) => x.toFixed(3);
  let cells = 0;
  for (const m of report.metrics) {
    const cell = page.locator(
      `[data-testid="evaluate-grid"] tr[data-row="${m.arm}"] td[data-col="${m.metric}"]`);
    assert.equal(await cell.count(), 1, `${m.arm} ${m.metric} is shown`);
    assert.equal((await cell.textContent()).trim(), `${fmt(m.mean)} [${fmt(m.ci_low)}, ${fmt(m.ci_high)}]`,
      `${m.arm} ${m.metric}`);
    cells += 1;
  }
  return cells;
}

test('the reranker rows in the page equal routelens evaluate with the same cross-encoder', { skip }, async () => {
  const report = evaluateNatively();
  assert.equal(report.configurations.length, 12, report.configurations.join(' '));
  assert.ok(report.configurations.includes('window/hybrid/cross-encoder:prefixed'));
  const page = await browser.newPage();
  const started = Date.now();
  await runGrid(page, `${withModel.url}/?view=evaluate&bundle=repo&${ROWS}`);
  const summary = await page.locator('[data-testid="evaluate-summary"]').textContent();
  assert.match(summary, /^6 questions, 12 configurations/);
  console.log(`# grid with the tiny cross-encoder's rows in Chromium: ${summary.match(/ran in (\d+) ms/)[1]} ms `
    + `(${Date.now() - started} ms with loading)`);
  assert.ok(await sameCells(page, report) >= 12 * 4);
  const line = await page.locator('[data-testid="evaluate-reranker-model"]').textContent();
  assert.ok(line.includes(report.reranker_model.sha256['model.safetensors']), line);
  assert.match(line, /models\/cross-encoder/);
  // The pairs CodeAtlas reads: each reranker row against hybrid, prefixed against text-only.
  const pairs = await page.$$eval('[data-testid="evaluate-pairs"] li', (items) =>
    items.map((li) => `${li.dataset.left} - ${li.dataset.right}`));
  assert.ok(pairs.includes('structural/hybrid/cross-encoder:text - structural/hybrid'), pairs.join('\n'));
  assert.ok(pairs.includes('structural/hybrid/cross-encoder:prefixed - structural/hybrid/cross-encoder:text'));
  await page.close();
});

test('without a model the rows are listed as needing one; a picked folder is a model', { skip }, async () => {
  const page = await browser.newPage();
  await runGrid(page, `${withoutModel.url}/?view=evaluate&bundle=repo&${ROWS}`);
  const needs = await page.locator('[data-testid="evaluate-needs-model"]').textContent();
  for (const row of ['structural/hybrid/cross-encoder:text', 'window/hybrid/cross-encoder:prefixed']) {
    assert.ok(needs.includes(row), needs);
    assert.equal(await page.locator(`[data-testid="evaluate-grid"] tr[data-row="${row}"]`).count(), 0);
  }
  assert.match(await page.locator('[data-testid="evaluate-summary"]').textContent(), /^6 questions, 8 configurations/);
  // The same folder picked in the page (its files at blob URLs): the CLI's numbers again.
  await runGrid(page, `${withoutModel.url}/?view=evaluate&bundle=repo&${ROWS}&xname=tiny-test-model`, tiny);
  assert.equal(await page.locator('[data-testid="evaluate-cross-encoder-said"]').textContent(), 'picked folder tiny');
  await sameCells(page, evaluateNatively());
  assert.match(await page.locator('[data-testid="evaluate-reranker-model"]').textContent(), /by tiny-test-model /);
  await page.close();
});

test('the Rerank view reorders a pool by the cross-encoder as routelens rerank does', { skip }, async () => {
  const expected = JSON.parse(execFileSync(cli, ['rerank', bundle, '--query', 'When is an entry evicted from the cache?',
    '--chunker', 'structural-unmerged', '--reranker', 'cross-encoder:prefixed', '--reranker-model', tiny,
    '--format', 'json'], { encoding: 'utf8' }));
  const page = await browser.newPage();
  await page.goto(`${withModel.url}/?view=rerank&bundle=repo&q=evict&chunker=structural-unmerged&reranker=cross-encoder:prefixed`);
  await page.waitForFunction(() => document.querySelector('[data-testid="rerank-query"]')?.value.length > 0,
    null, { timeout: 60000 });
  await page.locator('[data-testid="rerank-run"]').click();
  await page.locator('[data-testid="rerank-result"], [data-testid="rerank-error"]').first().waitFor({ timeout: 120000 });
  assert.equal(await page.locator('[data-testid="rerank-error"]').count(), 0);
  const hits = await page.$$eval('[data-testid="rerank-hit"]', (rows) => rows.map((r) =>
    [r.dataset.path, Number(r.dataset.start), Number(r.dataset.end), r.querySelectorAll('td')[1].textContent]));
  const arm = expected.arms[0];
  assert.equal(arm.reranker, 'cross-encoder:prefixed');
  assert.ok(arm.model.sha256['model.safetensors'], 'the CLI names the model');
  assert.deepEqual(hits, arm.results.slice(0, hits.length).map((r) =>
    [r.path, r.start_line, r.end_line, r.score.toFixed(3)]));
  assert.ok(hits.length >= 3, `${hits.length} rows`);
  await page.close();
});
