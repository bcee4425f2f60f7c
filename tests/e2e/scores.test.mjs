// Scenario: a reader opens CodeNib's per-issue results from the home page (served beside the app
// like the fastindex archive), lands on its paper page, and turns to its scores: base-aligned
// Recall@5 per arm with intervals in the article's percentages, drawn with the article's own
// bootstrap (5,000 resamples, seed 20260923, its generator), the article's seven comparisons as a
// table in percentage points, as sentences and as a forest plot; switches to the published frame,
// resamples single cases, follows the permalink, adds a pair, and downloads the plot. Every
// number equals `routelens score`'s.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { codenib, launchBrowser, missing, root, startServer } from './lib/harness.mjs';

const skip = missing() ?? false;
const cli = join(root, 'target/debug/routelens');
const csv = join(codenib, 'jev_candidates_cases.csv');
let server, browser, page;

before(async () => {
  if (skip) return;
  server = await startServer();
  browser = await launchBrowser();
  page = await browser.newPage({ acceptDownloads: true });
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const byTestId = (id) => page.locator(`[data-testid="${id}"]`);
const cell = (table, row, col) =>
  page.locator(`[data-testid="${table}"] tr[data-row="${row}"] td[data-col="${col}"]`);
// Both the page and the command line default to the article's own bootstrap.
const natively = (...args) =>
  JSON.parse(execFileSync(cli, ['score', csv, ...args, '--format', 'json'], { encoding: 'utf8' }));
/** A fraction as the page prints it in percentage points: two decimals, sign dropped. */
const points = (value) => (value * 100).toFixed(2);
const JEV_GREP = 'grep/typesafe/jev-1.13';

/** The pair table's rows as the page shows them. */
const shownPairs = () => page.$$eval('[data-testid="table-score-pairs"] tbody tr', (rows) =>
  rows.map((tr) => Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.col, td.textContent]))));

test('the CodeNib table opens with its headline, comparisons, sentences and forest plot', { skip }, async () => {
  await page.goto(`${server.url}/`);
  await byTestId('study-open-codenib').click();
  await byTestId('paper-summary').waitFor({ timeout: 60000 });
  await byTestId('tab-scores').click();
  await cell('table-scores', JEV_GREP, 'span_recall@5 (%)').waitFor({ timeout: 60000 });
  assert.equal(await cell('table-scores', JEV_GREP, 'span_recall@5 (%)').textContent(), '71.40');
  assert.equal(await cell('table-scores', 'bm25/typesafe/jev-1.13', 'span_recall@5 (%)').textContent(), '59.35');
  assert.match(await byTestId('scores-bootstrap-source').textContent(), /the source's own bootstrap \(5000 resamples, seed 20260923/);
  assert.equal(await byTestId('scores-sentence').count(), 7);
  assert.equal(await byTestId('forest-row').count(), 7);
  assert.equal(await byTestId('forest-zero').count(), 1);
  assert.match(await byTestId('scores-sentence').first().textContent(),
    /^grep\/typesafe\/jev-1\.13 scores span_recall@5 71\.40% against 59\.35% for bm25\/typesafe\/jev-1\.13 \(difference \+12\.05 pp/);

  // The same numbers as the command line, with the same settings (the article's bootstrap).
  const native = natively();
  const pairs = await shownPairs();
  assert.equal(pairs.length, native.paired.length);
  native.paired.forEach((pair, at) => {
    assert.equal(pairs[at].left, pair.left);
    assert.equal(pairs[at]['95% low'].replace('+', ''), points(pair.ci_low));
    assert.equal(pairs[at]['95% high'].replace('+', ''), points(pair.ci_high));
    assert.equal(Number(pairs[at].wins), pair.wins);
  });
});

test('frame, clustering and resamples are settings, kept in the permalink', { skip }, async () => {
  await byTestId('scores-frame').selectOption('published');
  await page.waitForFunction(() => document.querySelector(
    '[data-testid="table-scores"] tr[data-row="grep/typesafe/jev-1.13"] td[data-col="span_recall@5 (%)"]')
    ?.textContent === '73.57', null, { timeout: 30000 });
  await byTestId('scores-cluster').selectOption('case');
  await byTestId('scores-resamples').fill('2000');
  await byTestId('scores-resamples').press('Enter');
  assert.match(await byTestId('scores-bootstrap-source').textContent(), /^not the source's bootstrap/);
  const native = natively('--frame', 'published', '--cluster', 'case', '--resamples', '2000');
  const expected = points(native.paired[0].ci_low);
  await page.waitForFunction((low) =>
    document.querySelector('[data-testid="table-score-pairs"] tbody tr td[data-col="95% low"]')
      ?.textContent.replace('+', '') === low, expected, { timeout: 30000 });

  const link = new URL(page.url());
  assert.equal(link.searchParams.get('frame'), 'published');
  assert.equal(link.searchParams.get('cluster'), 'case');
  assert.equal(link.searchParams.get('sresamples'), '2000');
  await page.goto(link.href);
  await cell('table-scores', JEV_GREP, 'span_recall@5 (%)').waitFor({ timeout: 60000 });
  assert.equal(await cell('table-scores', JEV_GREP, 'span_recall@5 (%)').textContent(), '73.57');
  assert.equal(await byTestId('scores-cluster').inputValue(), 'case');
  const pairs = await shownPairs();
  assert.equal(pairs[0]['95% low'].replace('+', ''), expected);
});

test('a pair the reader adds is compared, and the plot downloads as SVG', { skip }, async () => {
  await byTestId('scores-left').selectOption('grep/grep');
  await byTestId('scores-right').selectOption('bm25/bm25');
  await byTestId('scores-add-pair').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="scores-sentence"]').length === 8);
  assert.match(await byTestId('scores-sentence').last().textContent(), /^grep\/grep scores span_recall@5 /);
  assert.match(new URL(page.url()).searchParams.get('spairs'), /grep\/grep:bm25\/bm25$/);
  const [download] = await Promise.all([page.waitForEvent('download'), byTestId('forest-download').click()]);
  const svg = readFileSync(await download.path(), 'utf8');
  assert.ok(svg.startsWith('<svg') && svg.includes('forest-row'), svg.slice(0, 80));
  assert.equal((svg.match(/<circle/g) ?? []).length, 8);
});
