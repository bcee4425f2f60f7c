// Scenario: a reader opens the paper's study and reads Table 2 and Table 4 off the page; the
// numbers match the paper and the native CLI; changing k recomputes the table in the browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scoreNatively, screenshot } from './lib/harness.mjs';
import { studySession } from './lib/session.mjs';

const session = studySession();
const { skip } = session;

test('Table 2 reproduces the paper at k = 8 and 16, its L55 columns included', { skip }, async () => {
  await session.study.open('?study=fastindex&view=table2');
  const table = await session.study.readTable('table-file-recall');
  // The paper's Table 2, every column: File@8, Full@8, L55@8, File@16, Full@16, L55@16.
  const expected = {
    rg: ['0.245', '12/82', '0.116', '0.328', '16/82', '0.116'],
    fts5: ['0.352', '17/82', '0.246', '0.421', '19/82', '0.252'],
    tree: ['0.465', '25/82', '0.443', '0.591', '32/82', '0.457'],
    'tree+fts5': ['0.491', '23/82', '0.499', '0.571', '30/82', '0.504'],
  };
  const columns = ['File@8', 'Full@8', 'L55@8', 'File@16', 'Full@16', 'L55@16'];
  for (const [arm, printed] of Object.entries(expected)) {
    const row = table.rows[arm];
    assert.ok(row, `row ${arm} in ${Object.keys(table.rows)}`);
    assert.deepEqual(columns.map((column) => row[column]), printed, arm);
  }
  assert.equal(table.rows.tree['Ceiling@8'], '66/82');
  await screenshot(session.study.page, 'table2');
});

test('Table 2\'s dot chart draws each arm\'s file recall at both k, as the table prints it, with an interval', { skip }, async () => {
  await session.study.open('?study=fastindex&view=table2');
  const table = await session.study.readTable('table-file-recall');
  const chart = session.study.page.locator('[data-testid="plot-table2"]');
  await chart.waitFor({ timeout: 60000 });
  const rows = await chart.locator('[data-testid="dot-row"]').evaluateAll((groups) => groups.map((g) => ({
    label: g.dataset.row,
    means: [...g.querySelectorAll('[data-series]')].map((d) => [Number(d.dataset.series), Number(d.dataset.mean)]),
    bars: [...g.querySelectorAll('line.ci')].map((l) => Number(l.getAttribute('x2')) - Number(l.getAttribute('x1'))),
  })));
  assert.equal(rows.length, Object.keys(table.rows).length);
  // The chart's rows carry the arms' labels; the table's rows are keyed by arm name, in the same order.
  Object.keys(table.rows).forEach((arm, at) => {
    const drawn = Object.fromEntries(rows[at].means);
    assert.equal(drawn[0].toFixed(3), table.rows[arm]['File@8'], `${arm} at 8`);
    assert.equal(drawn[1].toFixed(3), table.rows[arm]['File@16'], `${arm} at 16`);
    assert.ok(rows[at].bars.every((width) => width > 0), `${arm}: every dot has an interval bar`);
  });
});

test('the study views never load the live worker, its index or its token table', { skip }, async () => {
  // A page of its own, so nothing comes from the other tests' cache.
  const page = await session.browser.newContext().then((context) => context.newPage());
  const fetched = [];
  const listen = (request) => fetched.push(request.url());
  page.on('request', listen);
  try {
    await page.goto(`${session.server.url}/?study=fastindex&view=table2`);
    await page.locator('[data-testid="table-file-recall"] tbody tr').first().waitFor({ timeout: 60000 });
    for (const tab of ['tab-fusion', 'tab-paired', 'tab-repos', 'tab-lines', 'tab-cases']) {
      await page.locator(`[data-testid="${tab}"]`).click();
    }
    await page.locator('[data-testid="case-row"]').first().click();
    await page.locator('[data-testid="table-case-gold"]').waitFor({ timeout: 60000 });
  } finally {
    page.off('request', listen);
    await page.context().close();
  }
  assert.ok(fetched.some((url) => url.endsWith('_bg.wasm')), fetched.join(' '));
  const live = fetched.filter((url) => /routelens-worker|cl100k_base|tantivy/.test(url));
  assert.deepEqual(live, []);
});

test('changing k recomputes Table 2 like the native CLI', { skip }, async () => {
  await session.study.open('?study=fastindex&view=table2');
  await session.study.select('k-left', 5);
  await session.study.page.waitForFunction(() =>
    [...document.querySelectorAll('[data-testid="table-file-recall"] thead th')].some((th) => th.textContent.trim() === 'File@5'));
  const table = await session.study.readTable('table-file-recall');
  const native = scoreNatively('--k', '5');
  for (const row of native.arms) {
    assert.equal(table.rows[row.arm]['File@5'], row.file_recall.toFixed(3), row.arm);
    assert.equal(table.rows[row.arm]['Full@5'], `${row.full}/82`, row.arm);
  }
});

test('Table 4 shows the paper’s paired interval and sign-flip p', { skip }, async () => {
  await session.study.open('?study=fastindex&view=paired');
  const table = await session.study.readTable('table-prespecified');
  const row = table.list.find((r) => r.left === 'tree' && r.right === 'fts5' && r.k === '8');
  assert.ok(row, JSON.stringify(table.list));
  assert.deepEqual([row.mean, row.ci_low, row.ci_high, row.wins, row.losses, row.ties, row.sign_flip_p],
    ['+0.113', '+0.053', '+0.168', '33', '15', '34', '0.0078']);
  // The chosen pair (tree − fts5 at 8, the defaults) as a sentence resting on the same interval.
  const sentence = await session.study.page.locator('[data-testid="paired-sentence"]').textContent();
  assert.match(sentence, /^tree scores file_recall@8 0\.465 against 0\.352 for fts5 \(difference \+0\.113, 95% interval \+0\.053 to \+0\.168; better on 33 cases, worse on 15, same on 34\)\. The interval lies above zero/);
  await screenshot(session.study.page, 'paired');
});

test('Table 4\'s prespecified pairs follow the metric and subset: archived lines over the aligned issues give its Line@8 column', { skip }, async () => {
  await session.study.open('?study=fastindex&view=paired');
  await session.study.select('paired-metric', 'lines');
  await session.study.select('paired-subset', 'aligned');
  await session.study.page.waitForFunction(() =>
    /line_recall_16k \(archived\), aligned: 55 issues/.test(document.querySelector('[data-testid="table-prespecified"]')?.textContent ?? ''));
  const table = await session.study.readTable('table-prespecified');
  // The paper's Table 4, Line@8: Tree – FTS5 +0.196 [0.125, 0.275]; Tree – fixed rg +0.326 [0.242, 0.415].
  const row = (left, right) => table.list.find((r) => r.left === left && r.right === right);
  assert.deepEqual([row('tree', 'fts5').mean, row('tree', 'fts5').ci_low, row('tree', 'fts5').ci_high], ['+0.196', '+0.125', '+0.275']);
  assert.deepEqual([row('tree', 'rg').mean, row('tree', 'rg').ci_low, row('tree', 'rg').ci_high], ['+0.326', '+0.242', '+0.415']);
});
