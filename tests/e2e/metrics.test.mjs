// Scenario: a reader re-scores studies with any metric. On the paper's study, Table 2's metric
// table gives tree's file_recall@8 as the paper's 0.465 with the interval the CLI computes, and
// the Paired view draws the prespecified pairs as a forest plot. On a study of span units (a
// JSON Lines study published with `routelens publish` and opened from a static host), the
// metric table defaults to span relevance with CodeNib's span metrics, the per-repository and
// paired views score the chosen metric with intervals and sentences exactly as `routelens score`
// does, and a case's drill-down lists each arm's units as line ranges with the gold spans they
// hit and the units deduplication drops.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { archive, launchBrowser, missing, root, startServer, startStaticServer, tempDir } from './lib/harness.mjs';
import { StudyPage } from './lib/study-page.mjs';

const skip = missing() ?? false;
const cli = join(root, 'target/debug/routelens');
const spans = join(root, 'tests/e2e/fixtures/spans.jsonl');
let server, httpd, browser;

before(async () => {
  if (skip) return;
  const site = join(tempDir(), 'site');
  const published = spawnSync(cli, ['publish', '--out', site, '--dist', join(root, 'dist'), '--study', spans],
    { encoding: 'utf8' });
  assert.equal(published.status, 0, published.stderr);
  server = await startServer();
  httpd = await startStaticServer(site);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
  httpd?.stop();
});

/** `routelens score <study> ...args --format json`, parsed. */
function scored(study, ...args) {
  return JSON.parse(execFileSync(cli, ['score', study, ...args, '--format', 'json'], { encoding: 'utf8' }));
}

/** The engine's interval cell text for a summary: `mean [low, high]` at three decimals. */
const cellText = (m) => `${m.mean.toFixed(3)} [${m.ci_low.toFixed(3)}, ${m.ci_high.toFixed(3)}]`;

async function openPage(baseUrl, query) {
  const page = await browser.newPage();
  const study = new StudyPage(page, baseUrl);
  await study.open(query);
  return study;
}

test("the paper's study: Table 2's metric table and the paired forest plot", { skip }, async () => {
  const study = await openPage(server.url, '?study=fastindex&view=table2');
  const table = await study.readTable('table-metrics');
  assert.deepEqual(table.headers.slice(0, 4), ['arm', 'label', 'file_recall@8', 'file_recall@16']);
  const native = scored(archive, '--metric', 'file_recall@8', '--metric', 'mrr');
  const tree = native.metrics.find((m) => m.arm === 'tree' && m.metric === 'file_recall@8');
  assert.ok(table.rows.tree['file_recall@8'].startsWith('0.465 ['), table.rows.tree['file_recall@8']);
  assert.equal(table.rows.tree['file_recall@8'], cellText(tree));
  assert.equal(table.rows.tree.mrr, cellText(native.metrics.find((m) => m.arm === 'tree' && m.metric === 'mrr')));
  await study.tab('paired');
  await study.byTestId('forest-plot').waitFor({ timeout: 60000 });
  const rows = await study.page.locator('[data-testid="forest-row"]').count();
  assert.ok(rows >= 4, `${rows} forest rows`);
  await study.page.close();
});

test('a span study: defaults, per-repository intervals, paired sentences and the unit drill-down', { skip }, async () => {
  const study = await openPage(httpd.url, '?study=spans&view=table2');
  const native = scored(spans, '--k', '5', '--metric', 'span_recall@5', '--metric', 'span_mrr',
    '--relevance', 'span', '--pair', 'grep:bm25');
  const summary = (arm, metric) => native.metrics.find((m) => m.arm === arm && m.metric === metric);
  const table = await study.readTable('table-metrics');
  assert.ok(table.headers.includes('span_recall@5') && table.headers.includes('span_mrr'), table.headers.join());
  // By hand: bm25 hits r1::1, half of r1::2, r2::1 and r3::1 in its first five units: 3.5 / 6.
  assert.ok(table.rows.bm25['span_recall@5'].startsWith('0.583 ['));
  assert.equal(table.rows.bm25['span_recall@5'], cellText(summary('bm25', 'span_recall@5')));
  assert.equal(table.rows.grep.span_mrr, cellText(summary('grep', 'span_mrr')));

  // Per repository, span MRR: r1's grep cell is the mean of its two cases (0.5 and 1).
  await study.tab('repos');
  await study.select('repo-metric', 'span_mrr');
  const repos = await study.readTable('table-repo-metric');
  assert.ok(repos.rows.r1['grep span_mrr'].startsWith('0.750 ['), JSON.stringify(repos.rows.r1));

  // The paired view on the chosen metric writes the CLI's sentence and draws it.
  await study.tab('paired');
  await study.select('left-arm', 'grep');
  await study.select('right-arm', 'bm25');
  await study.select('paired-metric', 'span_mrr');
  const sentence = native.paired.find((p) => p.metric === 'span_mrr').sentence;
  await study.page.waitForFunction((want) =>
    document.querySelector('[data-testid="paired-sentence"]')?.textContent === want, sentence, { timeout: 30000 });
  await study.byTestId('forest-plot').waitFor();
  assert.match(await study.permalink(), /vmetric=span_mrr/);

  // The drill-down: r1::1's bm25 units, their hits, and the overlapping second unit dropped.
  await study.tab('cases');
  await study.page.locator('[data-testid="case-row"][data-case="r1::1"]').click();
  const units = study.page.locator('.case-units[data-arm="bm25"] [data-testid="table-case-units"]');
  await units.waitFor({ timeout: 30000 });
  const rows = await units.evaluate((element) =>
    [...element.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())));
  assert.deepEqual(rows, [
    ['1', 'a.py', 'L15–L30', 'yes', 'L10–L20', 'yes'],
    ['2', 'a.py', 'L18–L40', 'yes', 'L10–L20', 'no: overlaps rank 1'],
    ['3', 'x.py', 'L1–L2', '', '', 'yes'],
  ]);
  const values = await study.readTable('table-case-metrics');
  assert.equal(values.rows.grep.span_mrr, '0.500');
  await study.page.close();
});
