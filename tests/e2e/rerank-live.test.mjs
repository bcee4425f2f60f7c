// Scenario: a reader runs CodeNib's live stages in the Rerank view against the loopback protocol
// stub: the planner over chat completions (the stub's planner endpoint, called cross-origin with
// a key typed into the page) and the Jev judge over System One (directly, then through
// `routelens serve`'s same-origin proxy), sees the planner's and the judge's calls, tokens and
// cost, gets the same top 5 as `routelens rerank` with the same remote settings, downloads the
// run file (no key in it) and replays it with no network to the same top 5; a forbidden judge
// fails every batch and the pool's order stands, marked; "Add as arm" adds the Jev arm to the
// live study of the demo's question set.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDemoBundle, launchBrowser, missing, root, startCli, startServer, tempDir } from './lib/harness.mjs';

const skip = missing() ?? false;
const ID = 'serde_json-escape';
let server, stub, browser, demo, question;

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  demo = buildDemoBundle(bundles);
  question = readFileSync(join(demo, 'questions.jsonl'), 'utf8').split('\n')
    .filter((l) => l.trim()).map((l) => JSON.parse(l)).find((q) => q.id === ID);
  stub = await startCli(['typesafe-stub', '--addr', '127.0.0.1:0']);
  server = await startServer({ bundles, args: ['--typesafe-base', stub.url], env: { TYPESAFE_API_KEY: 'proxy-key' } });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
  stub?.stop();
});

function cli(args) {
  return JSON.parse(execFileSync(join(root, 'target/debug/routelens'),
    ['rerank', demo, '--query', question.question, '--format', 'json', ...args],
    { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, TYPESAFE_API_KEY: 'k', OPENROUTER_API_KEY: 'k' } }));
}

async function top(page) {
  return page.$$eval('[data-testid="rerank-hit"]', (rows) => rows.map((r) =>
    [r.dataset.path, Number(r.dataset.start), Number(r.dataset.end)]));
}

async function open(page, params) {
  await page.goto(`${server.url}/?view=rerank&bundle=demo&q=${ID}&${params}`);
  await page.waitForFunction(() => document.querySelector('[data-testid="rerank-query"]')?.value.length > 0,
    null, { timeout: 60000 });
}

async function runAndWait(page) {
  await page.locator('[data-testid="rerank-run"]').click();
  await page.locator('[data-testid="rerank-result"], [data-testid="rerank-error"]').first()
    .waitFor({ timeout: 120000 });
  const error = page.locator('[data-testid="rerank-error"]');
  if (await error.count()) throw new Error(await error.textContent());
}

const expectedTop = (arm) => arm.results.map((r) => [r.path, r.start_line, r.end_line]);

test('the live planner and the Jev judge over HTTP give the CLI\'s top 5, and the run file replays', { skip }, async () => {
  const page = await browser.newPage({ acceptDownloads: true });
  const plannerBase = `${stub.url}/v1`;
  await open(page, `pool=grep&reranker=jev&judge=http&planner=http&pbase=${encodeURIComponent(plannerBase)}`);
  await page.locator('[data-testid="rerank-api-base"]').fill(stub.url);
  await page.locator('[data-testid="rerank-api-base"]').dispatchEvent('change');
  await page.locator('[data-testid="rerank-judge-key"]').fill('secret-judge-key');
  await page.locator('[data-testid="rerank-planner-key"]').fill('secret-planner-key');
  await runAndWait(page);
  const expected = cli(['--route', 'grep', '--planner', 'http', '--planner-base', plannerBase,
    '--reranker', 'http', '--base', stub.url]);
  assert.deepEqual(JSON.parse(await page.locator('[data-testid="rerank-plan"]').inputValue()), expected.plan);
  assert.deepEqual(await top(page), expectedTop(expected.arms[0]));
  assert.match(await page.locator('[data-testid="rerank-planner"]').textContent(),
    /planner anthropic\/claude-sonnet-4\.6: 1 request\(s\)/);
  const calls = Math.ceil(expected.arms[0].pool / 10);
  assert.match(await page.locator('[data-testid="rerank-judge"]').textContent(),
    new RegExp(`judge jev-1\\.13: ${calls} call\\(s\\), 0 retried, \\d+ input`));
  // Keys stay in memory: not in the link, not in storage, not in the run file.
  const link = await page.locator('[data-testid="permalink"]').getAttribute('href');
  assert.match(link, /reranker=jev/);
  assert.match(link, /planner=http/);
  assert.ok(!link.includes('secret') && !page.url().includes('secret'), link);
  assert.ok(!(await page.evaluate(() => JSON.stringify(localStorage))).includes('secret'));
  const [download] = await Promise.all([page.waitForEvent('download'),
    page.locator('[data-testid="rerank-download-run"]').click()]);
  const file = join(tempDir(), 'rerank-run.json');
  await download.saveAs(file);
  const text = readFileSync(file, 'utf8');
  assert.ok(!text.includes('secret'), 'a key reached the run file');
  const run = JSON.parse(text);
  assert.equal(run.format, 'routelens-rerank-run/1');
  assert.equal(run.questions[0].arms[0].exchanges.length, calls);
  // The CLI replays the page's recording to the same top 5, with no network.
  const replayed = cli(['--route', 'grep', '--planner', `replay:${file}`, '--reranker', `replay:${file}`]);
  assert.deepEqual(expectedTop(replayed.arms[0]), expectedTop(expected.arms[0]));

  // And so does the page, with the stub out of the loop.
  await open(page, 'pool=grep&reranker=jev&judge=replay&planner=replay');
  await page.locator('[data-testid="rerank-replay-file"]').setInputFiles(file);
  await page.locator('[data-testid="rerank-replay-summary"]').waitFor();
  await runAndWait(page);
  assert.deepEqual(await top(page), expectedTop(expected.arms[0]));
  await page.close();
});

test('through the proxy the page holds no key; a forbidden judge keeps the pool\'s order, marked', { skip }, async () => {
  const page = await browser.newPage();
  await open(page, 'pool=bm25&reranker=jev');
  assert.equal(await page.locator('[data-testid="rerank-judge-kind"]').inputValue(), 'proxy');
  await runAndWait(page);
  const expected = cli(['--route', 'bm25', '--reranker', 'http', '--base', stub.url]);
  assert.deepEqual(await top(page), expectedTop(expected.arms[0]));

  await open(page, 'pool=bm25&reranker=jev&judge=http');
  await page.locator('[data-testid="rerank-api-base"]').fill(stub.url);
  await page.locator('[data-testid="rerank-api-base"]').dispatchEvent('change');
  await page.locator('[data-testid="rerank-judge-key"]').fill('fault-403');
  await runAndWait(page);
  const pool = cli(['--route', 'bm25', '--reranker', 'none']);
  assert.deepEqual(await top(page), expectedTop(pool.arms[0]));
  assert.match(await page.locator('[data-testid="rerank-summary"]').textContent(),
    /every batch failed: the pool's order stands/);
  assert.ok(await page.locator('[data-testid="rerank-failed-batch"]').count() > 0);
  assert.match(await page.locator('[data-testid="rerank-failed-batch"]').first().textContent(), /403/);
  await page.close();
});

test('"Add as arm" adds the Jev arm over every question of the set', { skip }, async () => {
  const page = await browser.newPage();
  await open(page, 'pool=bm25&reranker=jev');
  await page.locator('[data-testid="rerank-add-arm"]').click();
  const note = page.locator('[data-testid="rerank-arm-note"], [data-testid="rerank-error"]').first();
  await note.waitFor({ timeout: 300000 });
  // The set's questions (its set-level lines, the projects and the pinned corpus, are none).
  const set = readFileSync(join(demo, 'questions.jsonl'), 'utf8').split('\n').filter((l) => l.trim())
    .filter((l) => 'question' in JSON.parse(l)).length;
  assert.match(await note.textContent(), new RegExp(`arm rerank-bm25-jev-1\\.13 added to the live study .*: ${set} questions`));
  await page.close();
});
