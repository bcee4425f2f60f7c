// Scenario: a reader opens a question of the demo bundle in the Rerank view, builds a planned
// grep pool with the offline planner and the offline judge, and reads the plan and the top 5 —
// the same plan and the same five chunks as `routelens rerank` prints; then edits the plan (one
// action whose pattern does not compile, one that does) and sees the bad action fail alone while
// the pool forms from the other, again as the CLI does with that plan; gold results are marked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDemoBundle, launchBrowser, missing, root, startServer, tempDir } from './lib/harness.mjs';

const skip = missing() ?? false;
const ID = 'serde_json-escape';
let server, browser, demo, question;

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  demo = buildDemoBundle(bundles);
  question = readFileSync(join(demo, 'questions.jsonl'), 'utf8').split('\n')
    .filter((l) => l.trim()).map((l) => JSON.parse(l)).find((q) => q.id === ID);
  server = await startServer({ bundles });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

function cli(args) {
  return JSON.parse(execFileSync(join(root, 'target/debug/routelens'),
    ['rerank', demo, '--query', question.question, '--route', 'grep', '--reranker', 'offline',
      '--format', 'json', ...args], { encoding: 'utf8', maxBuffer: 64 << 20 }));
}

async function top(page) {
  return page.$$eval('[data-testid="rerank-hit"]', (rows) => rows.map((r) =>
    [r.dataset.path, Number(r.dataset.start), Number(r.dataset.end), r.dataset.gold]));
}

async function runAndWait(page) {
  await page.locator('[data-testid="rerank-run"]').click();
  await page.locator('[data-testid="rerank-result"], [data-testid="rerank-error"]').first()
    .waitFor({ timeout: 120000 });
}

test('the offline plan, its pool and the judged top 5 are the CLI\'s', { skip }, async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}/?view=rerank&bundle=demo&q=${ID}&pool=grep`);
  await page.waitForFunction(() => document.querySelector('[data-testid="rerank-query"]')?.value.length > 0,
    null, { timeout: 60000 });
  assert.equal(await page.locator('[data-testid="rerank-query"]').inputValue(), question.question);
  await runAndWait(page);
  const expected = cli([]);
  const shownPlan = JSON.parse(await page.locator('[data-testid="rerank-plan"]').inputValue());
  assert.deepEqual(shownPlan, expected.plan);
  const hits = await top(page);
  const arm = expected.arms[0];
  assert.deepEqual(hits.map((h) => h.slice(0, 3)), arm.results.map((r) => [r.path, r.start_line, r.end_line]));
  // Gold is marked where the result's file is a gold file.
  for (const [path, , , gold] of hits) {
    assert.equal(gold, question.gold.includes(path) ? 'yes' : 'no', path);
  }
  const summary = await page.locator('[data-testid="rerank-summary"]').textContent();
  assert.match(summary, new RegExp(`^grep pool of ${arm.pool}, reranked by offline`));
  assert.equal(await page.locator('[data-testid="rerank-judged-row"]').count(), arm.pool);
  const link = await page.locator('[data-testid="permalink"]').getAttribute('href');
  assert.match(link, /view=rerank/);
  assert.match(link, /pool=grep/);
  await page.close();
});

test('an edited plan runs, its bad action failing alone, as the CLI runs it', { skip }, async () => {
  const plan = { actions: [
    { pattern: '(unclosed', glob: '**/*', case_sensitive: false },
    { pattern: 'ESCAPE', glob: 'crates/serde_json/**/*.rs', case_sensitive: true },
  ] };
  const file = join(tempDir(), 'plan.json');
  writeFileSync(file, JSON.stringify(plan));
  const page = await browser.newPage();
  await page.goto(`${server.url}/?view=rerank&bundle=demo&q=${ID}&pool=grep`);
  await page.waitForFunction(() => document.querySelector('[data-testid="rerank-query"]')?.value.length > 0,
    null, { timeout: 60000 });
  await page.locator('[data-testid="rerank-plan"]').fill(JSON.stringify(plan));
  await page.locator('[data-testid="rerank-plan"]').dispatchEvent('change');
  await runAndWait(page);
  const actions = await page.locator('[data-testid="rerank-action"]').allTextContents();
  assert.equal(actions.length, 2);
  assert.match(actions[0], /failed: pattern "\(unclosed" does not compile/);
  assert.match(actions[1], /\d+ lines, \d+ chunks/);
  const expected = cli(['--plan', file]);
  assert.deepEqual((await top(page)).map((h) => h.slice(0, 3)),
    expected.arms[0].results.map((r) => [r.path, r.start_line, r.end_line]));
  assert.ok(expected.arms[0].results.length > 0);
  // A plan that is not a plan is refused, naming the field.
  await page.locator('[data-testid="rerank-plan"]').fill('{"actions": []}');
  await page.locator('[data-testid="rerank-plan"]').dispatchEvent('change');
  await page.locator('[data-testid="rerank-run"]').click();
  const error = page.locator('[data-testid="rerank-error"]');
  await error.waitFor({ timeout: 30000 });
  assert.match(await error.textContent(), /actions: 0 actions/);
  await page.close();
});
