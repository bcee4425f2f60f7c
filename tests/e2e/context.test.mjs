// Scenario: a developer opens the demo bundle, runs a question in the Search view, then opens the
// Context view: the budget bar, the blocks in pack order with their token costs, gold lines
// highlighted, a skipped block once the budget is small, the line recall equal to what
// `routelens pack` prints natively for the same ranking, and two arms side by side; a study whose
// cases were cut at another commit is named as such and neither packed nor recomputed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { missing, root, startServer, launchBrowser, buildDemoBundle, screenshot, tempDir } from './lib/harness.mjs';

const skip = missing() || false;
const cli = join(root, 'target/debug/routelens');
// A question whose gold lines are in this repository's own files.
const QUESTION = 'routelens-pack-skip';
let server, browser, page, demo, question;

/** The demo question set's questions with these ids, in the set's order. */
const demoQuestions = (ids) => readFileSync(join(root, 'bundler/demo/questions.jsonl'), 'utf8')
  .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)).filter((q) => ids.includes(q.id));

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  demo = buildDemoBundle(bundles);
  [question] = demoQuestions([QUESTION]);
  server = await startServer({ bundles });
  browser = await launchBrowser();
  page = await browser.newPage();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const byTestId = (id) => page.locator(`[data-testid="${id}"]`);

/** The arm's pack as the page shows it. */
async function shownPack(arm) {
  return page.$eval(`[data-testid="context-pack"][data-arm="${arm}"]`, (pack) => ({
    used: Number(pack.querySelector('[data-testid="context-budget"]').dataset.used),
    budget: Number(pack.querySelector('[data-testid="context-budget"]').dataset.budget),
    barText: pack.querySelector('[data-testid="context-budget"]').textContent,
    recall: pack.querySelector('[data-testid="context-recall"]')?.dataset.recall,
    blocks: [...pack.querySelectorAll('[data-testid="context-block"]')].map((b) => ({
      path: b.dataset.path, start: Number(b.dataset.start), end: Number(b.dataset.end),
      tokens: Number(b.dataset.tokens), included: b.dataset.included === 'true', gold: Number(b.dataset.gold),
      status: b.querySelector('[data-testid="context-block-status"]').textContent,
    })),
    goldLines: pack.querySelectorAll('[data-testid="context-gold-line"]').length,
  }));
}

/** `routelens pack` on the same bundle, issue, ranking (the arm run natively) and gold. */
function packNatively(arm, k, budget) {
  const dir = tempDir();
  const issue = join(dir, 'issue.txt');
  writeFileSync(issue, question.question);
  const search = JSON.parse(execFileSync(cli, ['search', demo, '--arm', arm, '--query-file', issue, '--k', '16',
    '--format', 'json'], { encoding: 'utf8' }));
  writeFileSync(join(dir, 'ranking.txt'), search.results.map((r) => r.path).join('\n') + '\n');
  writeFileSync(join(dir, 'gold.json'), JSON.stringify(question.gold_lines));
  return JSON.parse(execFileSync(cli, ['pack', demo, '--issue-file', issue, '--ranking-file', join(dir, 'ranking.txt'),
    '--gold-file', join(dir, 'gold.json'), '--k', String(k), '--budget', String(budget), '--format', 'json'],
  { encoding: 'utf8' }));
}

const waitForPack = (arm) => page.waitForSelector(
  `[data-testid="context-pack"][data-arm="${arm}"] [data-testid="context-budget"]`, { timeout: 120000 });

test('the Context view packs a question run in the Search view, as the CLI does', { skip }, async () => {
  await page.goto(`${server.url}/`);
  await byTestId('tab-search').click();
  await byTestId('bundle-select').selectOption('demo');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'));
  await byTestId('question-select').selectOption(QUESTION);
  await byTestId('search-run').click();
  await page.waitForSelector('[data-testid="search-column"][data-arm="rg"] [data-testid="search-hit"]', { timeout: 60000 });

  // The Search view opened the bundle (its manifest and questions in the bundle store) and loaded
  // the index and every chunk into the live worker, all of which every view shares: the Context
  // view fetches none of them again.
  const refetched = [];
  const listen = (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith('/bundles')) refetched.push(path);
  };
  page.on('request', listen);
  await byTestId('tab-context').click();
  // The bundle loads, then the rank table on the first pack, with progress shown.
  await byTestId('context-progress').waitFor({ timeout: 30000 });
  await waitForPack('fts5');
  page.off('request', listen);
  assert.deepEqual(refetched, []);
  assert.match(await byTestId('context-progress').textContent(), /cl100k_base ready/);

  // The arm whose pack delivers the most gold lines, so gold highlighting is exercised.
  const arms = await byTestId('context-arm').locator('option').evaluateAll((os) => os.map((o) => o.value));
  assert.ok(arms.includes('fts5') && arms.includes('rg') && arms.includes('fts5+rg'), arms.join(' '));
  let best = null;
  for (const arm of ['fts5', 'rg', 'fts5-full', 'rg-feedback']) {
    await byTestId('context-arm').selectOption(arm);
    await waitForPack(arm);
    const shown = await shownPack(arm);
    if (!best || Number(shown.recall) > Number(best.shown.recall)) best = { arm, shown };
  }
  const { arm } = best;
  await byTestId('context-arm').selectOption(arm);
  await waitForPack(arm);
  const shown = await shownPack(arm);
  console.log(JSON.stringify({ arm, used: shown.used, recall: shown.recall, blocks: shown.blocks.length }));

  assert.equal(shown.budget, 16000);
  assert.ok(shown.used > 0 && shown.used <= shown.budget, `${shown.used} of ${shown.budget}`);
  assert.match(shown.barText, /\/ 16,000 tokens/);
  assert.ok(shown.blocks.length > 0);
  assert.equal(shown.blocks.filter((b) => b.included).reduce((sum, b) => sum + b.tokens, 0), shown.used);
  assert.ok(Number(shown.recall) > 0, `${arm} delivers some gold lines`);
  assert.ok(shown.goldLines > 0, 'gold lines are highlighted');
  assert.equal(shown.goldLines, shown.blocks.reduce((sum, b) => sum + Math.min(b.gold, 120), 0));

  // The same figures natively.
  const native = packNatively(arm, 8, 16000);
  assert.equal(Number(shown.recall), native.line_recall);
  assert.equal(shown.used, native.tokens_used);
  assert.deepEqual(shown.blocks.map((b) => [b.path, b.start, b.end, b.tokens, b.included]),
    native.blocks.map((b) => [b.path, b.start_line, b.end_line, b.tokens, b.included]));
  await screenshot(page, 'context');
});

test('a small budget skips blocks, with the reason, and re-packs at once', { skip }, async () => {
  const arm = await byTestId('context-arm').inputValue();
  const before = await shownPack(arm);
  const budget = Math.max(200, Math.floor(Math.min(...before.blocks.map((b) => b.tokens)) * 1.5));
  await byTestId('context-budget-input').fill(String(budget));
  await byTestId('context-budget-input').dispatchEvent('change');
  await page.waitForFunction((b) =>
    document.querySelector('[data-testid="context-budget"]')?.dataset.budget === String(b), budget);
  const small = await shownPack(arm);
  assert.ok(small.used <= budget);
  const skipped = small.blocks.filter((b) => !b.included);
  assert.ok(skipped.length > 0, 'some block is skipped');
  for (const block of skipped) assert.match(block.status, /^skipped: over budget: \d+ tokens left$/);
  // Same blocks, same token costs: only the budget changed.
  assert.deepEqual(small.blocks.map((b) => b.tokens), before.blocks.map((b) => b.tokens));
  const native = packNatively(arm, 8, budget);
  assert.equal(Number(small.recall), native.line_recall);
  assert.equal(small.used, native.tokens_used);
  const link = new URL(await byTestId('permalink').getAttribute('href'), server.url);
  assert.equal(link.searchParams.get('view'), 'context');
  assert.equal(link.searchParams.get('budget'), String(budget));
  await byTestId('context-budget-input').fill('16000');
  await byTestId('context-budget-input').dispatchEvent('change');
});

test('comparison mode shows two arms\' delivered gold lines side by side', { skip }, async () => {
  const arm = await byTestId('context-arm').inputValue();
  const other = arm === 'basename' ? 'rg' : 'basename';
  await byTestId('context-vs').selectOption(other);
  await byTestId('context-compare').waitFor();
  const cols = await page.$$eval('[data-testid="context-compare-col"]', (cs) => cs.map((c) => ({
    arm: c.dataset.arm,
    files: [...c.querySelectorAll('[data-testid="context-compare-file"]')].map((f) => f.dataset.path),
    delivered: c.querySelectorAll('[data-testid="context-delivered-range"]').length,
  })));
  assert.deepEqual(cols.map((c) => c.arm), [arm, other]);
  const gold = [...new Set(question.gold_lines.map((s) => s.path))].sort();
  for (const col of cols) assert.deepEqual(col.files, gold);
  assert.ok(cols[0].delivered > 0, `${arm} delivers gold lines`);
  assert.equal(await page.locator('[data-testid="context-pack"]').count(), 2);
  // The permalink brings the comparison back.
  const link = await byTestId('permalink').getAttribute('href');
  await page.goto(new URL(link, server.url).href);
  await byTestId('context-compare').waitFor({ timeout: 120000 });
  assert.equal(await page.locator('[data-testid="context-compare-col"]').count(), 2);
  await screenshot(page, 'context-compare');
});

test('the paper\'s study says its line values are archived only', { skip }, async () => {
  await page.goto(`${server.url}/?study=fastindex&view=lines`);
  const source = byTestId('lines-source');
  await source.waitFor({ timeout: 120000 });
  assert.equal(await source.getAttribute('data-source'), 'archived');
  assert.match(await source.textContent(), /Archived values only/);
  assert.equal(await byTestId('tab-lines').textContent(), 'Line level');
  assert.ok(await page.locator('[data-testid="table-archived-lines"] tbody tr').count() > 0);
});

test('a study over the bundle\'s questions gets recomputed line values', { skip }, async () => {
  // A JSON Lines study: two demo questions with their gold spans, and one arm ranked natively.
  const questions = demoQuestions(['routelens-pack-skip', 'routelens-terms']);
  const dir = tempDir();
  const lines = [];
  const natives = [];
  for (const q of questions) {
    lines.push(JSON.stringify({ id: q.id, repo: 'demo', gold: q.gold_lines }));
    const issue = join(dir, `${q.id}.txt`);
    writeFileSync(issue, q.question);
    const search = JSON.parse(execFileSync(cli, ['search', demo, '--arm', 'rg', '--query-file', issue, '--k', '16',
      '--format', 'json'], { encoding: 'utf8' }));
    const paths = search.results.map((r) => r.path);
    lines.push(JSON.stringify({ id: q.id, arm: 'rg', paths }));
    writeFileSync(join(dir, 'ranking.txt'), paths.join('\n') + '\n');
    writeFileSync(join(dir, 'gold.json'), JSON.stringify(q.gold_lines));
    natives.push(JSON.parse(execFileSync(cli, ['pack', demo, '--issue-file', issue, '--ranking-file',
      join(dir, 'ranking.txt'), '--gold-file', join(dir, 'gold.json'), '--format', 'json'], { encoding: 'utf8' })));
  }
  const study = join(dir, 'live.jsonl');
  writeFileSync(study, lines.join('\n') + '\n');

  await page.goto(`${server.url}/?bundle=demo`);
  await byTestId('pick-jsonl').setInputFiles(study);
  await byTestId('study-title').waitFor({ timeout: 60000 });
  // Load the bundle in the Context view, then the Lines view can recompute.
  await byTestId('tab-context').click();
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="context-progress"]')?.textContent.startsWith('loaded demo'), null, { timeout: 120000 });
  await byTestId('tab-lines').click();
  const source = byTestId('lines-source');
  await source.waitFor();
  assert.equal(await source.getAttribute('data-source'), 'recomputed');
  await byTestId('lines-recompute').click();
  const cell = page.locator('[data-testid="table-recomputed-lines"] tr[data-row="rg"] td[data-col="L (recomputed)"]');
  await cell.waitFor({ timeout: 120000 });
  const mean = natives.reduce((sum, n) => sum + n.line_recall, 0) / natives.length;
  assert.equal(await cell.textContent(), mean.toFixed(3));
  const archived = page.locator('[data-testid="table-recomputed-lines"] tr[data-row="rg"] td[data-col="L (archived)"]');
  assert.equal(await archived.textContent(), '–');
  await screenshot(page, 'lines-recomputed');
});

test('a study case of another commit is shown as such, never packed or recomputed over the bundle', { skip }, async () => {
  // The same demo questions, but the study says its cases were cut at another commit; the demo
  // bundle is a working tree and records none.
  const questions = demoQuestions(['routelens-pack-skip', 'routelens-terms']);
  const commit = '0123456789abcdef0123456789abcdef01234567';
  const lines = questions.flatMap((q) => [
    JSON.stringify({ id: q.id, repo: 'demo', gold: q.gold_lines, base_commit: commit }),
    JSON.stringify({ id: q.id, arm: 'rg', paths: q.gold }),
  ]);
  const study = join(tempDir(), 'elsewhere.jsonl');
  writeFileSync(study, lines.join('\n') + '\n');

  await page.goto(`${server.url}/?bundle=demo`);
  await byTestId('pick-jsonl').setInputFiles(study);
  await byTestId('study-title').waitFor({ timeout: 60000 });
  await byTestId('tab-context').click();
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="context-progress"]')?.textContent.startsWith('loaded demo'), null, { timeout: 120000 });
  await byTestId('context-question').selectOption(QUESTION);
  const notice = byTestId('context-study-mismatch');
  await notice.waitFor({ timeout: 60000 });
  assert.match(await notice.textContent(), new RegExp(`case ${QUESTION} is at commit ${commit}, but the bundle records no commit`));
  const offered = await page.$$eval('[data-testid="context-arm"] option', (options) => options.map((o) => o.value));
  assert.ok(!offered.some((arm) => arm.startsWith('study:')), `no study arm offered: ${offered}`);

  await byTestId('tab-lines').click();
  const source = byTestId('lines-source');
  await source.waitFor();
  assert.equal(await source.getAttribute('data-source'), 'archived');
  assert.match(await byTestId('lines-mismatched').textContent(), /^2 of this study's issues .* not by snapshot/);
});
