// Scenario: a reader opens CodeNib's per-issue results from the home page (served beside the app
// like the fastindex archive) and checks the article: base-aligned Recall@5 per arm with
// intervals, the article's seven comparisons as a table, as sentences and as a forest plot;
// switches to the published frame, resamples single cases at 5,000 resamples, follows the
// permalink, adds a pair, and downloads the plot. Every number equals `routelens score`'s.
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
// The page draws with its own seed setting (default 0); the command line defaults to the
// article's seed, so the comparison names the page's.
const natively = (...args) =>
  JSON.parse(execFileSync(cli, ['score', csv, '--seed', '0', ...args, '--format', 'json'], { encoding: 'utf8' }));
const JEV_GREP = 'grep/typesafe/jev-1.13';

/** The pair table's rows as the page shows them. */
const shownPairs = () => page.$$eval('[data-testid="table-score-pairs"] tbody tr', (rows) =>
  rows.map((tr) => Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.col, td.textContent]))));

test('the CodeNib table opens with its headline, comparisons, sentences and forest plot', { skip }, async () => {
  await page.goto(`${server.url}/`);
  await byTestId('study-open-codenib').click();
  await cell('table-scores', JEV_GREP, 'span_recall@5').waitFor({ timeout: 60000 });
  assert.equal(await cell('table-scores', JEV_GREP, 'span_recall@5').textContent(), '0.7140');
  assert.equal(await cell('table-scores', 'bm25/typesafe/jev-1.13', 'span_recall@5').textContent(), '0.5935');
  assert.equal(await byTestId('scores-sentence').count(), 7);
  assert.equal(await byTestId('forest-row').count(), 7);
  assert.equal(await byTestId('forest-zero').count(), 1);
  assert.match(await byTestId('scores-sentence').first().textContent(),
    /^grep\/typesafe\/jev-1\.13 scores span_recall@5 0\.714 against 0\.594 for bm25\/typesafe\/jev-1\.13/);

  // The same numbers as the command line, with the same settings (10,000 resamples, seed 0, the
  // article's generator).
  const native = natively('--resamples', '10000');
  const pairs = await shownPairs();
  assert.equal(pairs.length, native.paired.length);
  native.paired.forEach((pair, at) => {
    assert.equal(pairs[at].left, pair.left);
    assert.equal(Number(pairs[at]['95% low']).toFixed(4), pair.ci_low.toFixed(4));
    assert.equal(Number(pairs[at]['95% high']).toFixed(4), pair.ci_high.toFixed(4));
    assert.equal(Number(pairs[at].wins), pair.wins);
  });
});

test('frame, clustering and resamples are settings, kept in the permalink', { skip }, async () => {
  await byTestId('scores-frame').selectOption('published');
  await page.waitForFunction(() => document.querySelector(
    '[data-testid="table-scores"] tr[data-row="grep/typesafe/jev-1.13"] td[data-col="span_recall@5"]')
    ?.textContent === '0.7357', null, { timeout: 30000 });
  await byTestId('scores-cluster').selectOption('case');
  await byTestId('scores-resamples').fill('5000');
  await byTestId('scores-resamples').press('Enter');
  const native = natively('--frame', 'published', '--cluster', 'case', '--resamples', '5000');
  const expected = native.paired[0].ci_low.toFixed(4);
  await page.waitForFunction((low) =>
    document.querySelector('[data-testid="table-score-pairs"] tbody tr td[data-col="95% low"]')
      ?.textContent.replace('+', '') === low.replace('+', ''), expected, { timeout: 30000 });

  const link = new URL(page.url());
  assert.equal(link.searchParams.get('frame'), 'published');
  assert.equal(link.searchParams.get('cluster'), 'case');
  assert.equal(link.searchParams.get('resamples'), '5000');
  await page.goto(link.href);
  await cell('table-scores', JEV_GREP, 'span_recall@5').waitFor({ timeout: 60000 });
  assert.equal(await cell('table-scores', JEV_GREP, 'span_recall@5').textContent(), '0.7357');
  assert.equal(await byTestId('scores-cluster').inputValue(), 'case');
  const pairs = await shownPairs();
  assert.equal(Number(pairs[0]['95% low']).toFixed(4), expected);
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
