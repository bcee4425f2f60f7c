// Scenario: a reader of a CodeAtlas-style supplement runs dense and hybrid chunk search in the
// page. Questions of the bundle's set use the vectors stored in the bundle and never fetch the
// embedding model; a typed question has the live worker fetch the model once (each file checked
// against its pin; the weights as the page's narrowed copy, never the full f32 file), keep it in
// the browser's Cache API for the next visit, and answer what `routelens search --weights page`
// answers, and the same chunks as the full weights within the measured loss. A damaged cached
// copy is fetched again; a served file with one byte changed is refused, naming it. The Evaluate grid with dense and hybrid equals
// `routelens evaluate --format json` cell for cell, without the model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, missing, root, startServer, tempDir } from './lib/harness.mjs';

const skip = missing() ?? false;
const cli = join(root, 'target/debug/routelens');
const fixture = join(root, 'bundler/tests/fixtures/repo.bundle');
const questionsFile = join(root, 'bundler/tests/fixtures/eval-questions.jsonl');
const models = process.env.ROUTELENS_MODELS ?? join(homedir(), '.cache/routelens/models');
const model = join(models, 'all-MiniLM-L6-v2');
const TYPED = 'which function throws away the oldest entry when the cache is full';
const PAGE_WEIGHTS = 'model.safetensors.rlpw';
// The measured loss of the page's weights (docs/dense.md): a typed question's scores against the
// full weights'.
const PAGE_LOSS = 1e-4;
let server, tamperedServer, browser, bundle, brokenVectors;

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  bundle = join(bundles, 'repo');
  cpSync(fixture, bundle, { recursive: true });
  cpSync(questionsFile, join(bundle, 'questions.jsonl'));
  // A copy whose structural vectors have one byte changed: the browser hashes them, the engine
  // checks that digest against the manifest.
  const broken = join(bundles, 'broken');
  cpSync(bundle, broken, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(broken, 'manifest.json'), 'utf8'));
  brokenVectors = manifest.chunkings.find((c) => c.chunker === 'structural').vectors.file;
  const vectors = readFileSync(join(broken, brokenVectors));
  vectors[7] ^= 1;
  writeFileSync(join(broken, brokenVectors), vectors);
  // The server makes the page's narrowed weights beside the model (once) before it says its URL.
  server = await startServer({ bundles, args: ['--model', model] });
  // The same model with one byte of config.json changed; the other files linked, not copied.
  const tampered = join(tempDir(), 'all-MiniLM-L6-v2');
  mkdirSync(tampered);
  for (const file of ['model.safetensors', PAGE_WEIGHTS, 'tokenizer.json']) linkSync(join(model, file), join(tampered, file));
  const config = readFileSync(join(model, 'config.json'));
  config[config.length - 3] ^= 1;
  writeFileSync(join(tampered, 'config.json'), config);
  tamperedServer = await startServer({ bundles, args: ['--model', tampered] });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
  tamperedServer?.stop();
});

/** `routelens search`'s chunks for `query`, embedding it (when the bundle stores no vector for
 * it) with the `weights` named: full, or page (as the page's narrowed weights). */
function searchNatively(retriever, query, weights = 'full') {
  const out = execFileSync(cli, ['search', bundle, '--unit', 'chunk', '--chunker', 'structural',
    '--retriever', retriever, '--query', query, '--k', '10', '--model', model, '--weights', weights,
    '--format', 'json'],
  { encoding: 'utf8' });
  return JSON.parse(out).results;
}

/** A page in `context` whose every request URL goes into `seen` (the worker's fetches too). */
async function watchedPage(context, seen) {
  context.on('request', (request) => seen.push(request.url()));
  return context.newPage();
}

/** Runs a chunk search in the Chunks view and returns its rows, or the error shown. */
async function search(page, url, retriever, query, name = 'repo') {
  await page.goto(`${url}/?view=chunks&bundle=${name}&chunker=structural&retriever=${retriever}`);
  // The chunkings are listed once the bundle's manifest is read.
  await page.locator('[data-testid="chunks-chunker"] option[value="structural"]').waitFor({ state: 'attached', timeout: 60000 });
  await page.locator('[data-testid="chunks-query"]').fill(query);
  await page.locator('[data-testid="chunks-query"]').dispatchEvent('change');
  await page.locator('[data-testid="chunks-search"]').click();
  const done = page.locator('[data-testid="chunks-search-caption"], [data-testid="chunks-search-error"]');
  await done.first().waitFor({ timeout: 180000 });
  const error = page.locator('[data-testid="chunks-search-error"]');
  if (await error.count()) return { error: await error.textContent() };
  const caption = await page.locator('[data-testid="chunks-search-caption"]').textContent();
  assert.match(caption, new RegExp(`^chunk ${retriever} over structural chunks`));
  const rows = await page.$$eval('[data-testid="chunk-hit"]', (trs) => trs.map((tr) => ({
    path: tr.dataset.path, start: Number(tr.dataset.start), end: Number(tr.dataset.end),
    score: Number(tr.dataset.score),
  })));
  return { rows };
}

function sameAsCli(rows, expected, what, within = 1e-5) {
  assert.deepEqual(rows.map((r) => [r.path, r.start, r.end]),
    expected.map((r) => [r.path, r.start_line, r.end_line]), what);
  rows.forEach((r, at) => assert.ok(Math.abs(r.score - expected[at].score) <= within,
    `${what} rank ${at + 1}: ${r.score} against ${expected[at].score}`));
}

/** A typed question's rows against the CLI with the page's weights (to 1e-5), and against the
 * full weights (the same chunks, scores within the measured loss). */
function typedAsCli(rows, retriever, what) {
  sameAsCli(rows, searchNatively(retriever, TYPED, 'page'), `${what} (page weights)`);
  sameAsCli(rows, searchNatively(retriever, TYPED), `${what} (full weights)`, PAGE_LOSS);
}

/** The model files fetched, by the file name's end (the URL's path, without its query). */
const modelFetched = (seen, file = '') => seen.filter((u) => u.includes('/models/')
  && new URL(u).pathname.endsWith(file));

test("the set's questions search their stored vectors; a typed one fetches the model once, as the CLI answers", { skip }, async () => {
  const questions = readFileSync(questionsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const context = await browser.newContext();
  const seen = [];
  const page = await watchedPage(context, seen);
  for (const { question } of questions.slice(0, 5)) {
    for (const retriever of ['dense', 'hybrid']) {
      const { rows, error } = await search(page, server.url, retriever, question);
      assert.equal(error, undefined, `${retriever} ${question}`);
      sameAsCli(rows, searchNatively(retriever, question), `${retriever}: ${question}`);
    }
  }
  assert.deepEqual(modelFetched(seen), [], 'no model file fetched for stored questions');
  for (const retriever of ['dense', 'hybrid']) {
    const { rows, error } = await search(page, server.url, retriever, TYPED);
    assert.equal(error, undefined, error);
    typedAsCli(rows, retriever, `${retriever}: ${TYPED}`);
  }
  // Each file once: the second typed search reuses the page's loaded model. The weights come as
  // the page's narrowed copy; the full f32 file is never fetched.
  for (const file of ['config.json', PAGE_WEIGHTS, 'tokenizer.json']) {
    assert.equal(modelFetched(seen, file).length, 1, file);
  }
  assert.equal(modelFetched(seen, '/model.safetensors').length, 0, 'the full weights');

  // A later visit (a new page, so a new worker) loads the model from the Cache API.
  seen.length = 0;
  const later = await context.newPage();
  const again = await search(later, server.url, 'dense', TYPED);
  typedAsCli(again.rows, 'dense', 'dense from the cache');
  assert.deepEqual(modelFetched(seen), [], 'the cached model is not fetched again');

  // A damaged cached copy of the weights is refused and fetched again; the others still come
  // from the cache.
  const damaged = await later.evaluate(async (name) => {
    const cache = await caches.open('routelens-models');
    const key = (await cache.keys()).find((r) => r.url.includes(`/${name}?`));
    const bytes = new Uint8Array(await (await cache.match(key)).arrayBuffer());
    bytes[1000] ^= 1;
    await cache.put(key, new Response(bytes));
    return key.url;
  }, PAGE_WEIGHTS);
  assert.match(damaged, /model\.safetensors\.rlpw\?sha256=[0-9a-f]{64}$/);
  seen.length = 0;
  const third = await context.newPage();
  const repaired = await search(third, server.url, 'hybrid', TYPED);
  typedAsCli(repaired.rows, 'hybrid', 'hybrid after the repair');
  assert.equal(modelFetched(seen, PAGE_WEIGHTS).length, 1);
  assert.equal(modelFetched(seen, 'config.json').length, 0);
  await context.close();
});

test('a model file with one byte changed is refused, naming it', { skip }, async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const { error } = await search(page, tamperedServer.url, 'dense', TYPED);
  assert.match(error ?? '', /config\.json: refused: config\.json: embedding model: 612 bytes with SHA-256 [0-9a-f]{64}; sentence-transformers\/all-MiniLM-L6-v2 is pinned at 612 bytes/);
  // BM25 needs no model and still runs.
  const { rows } = await search(page, tamperedServer.url, 'bm25', TYPED);
  assert.ok(rows.length > 0);
  await context.close();
});

test('the grid with dense and hybrid equals routelens evaluate, and never fetches the model', { skip }, async () => {
  const report = JSON.parse(execFileSync(cli,
    ['evaluate', bundle, '--questions', join(bundle, 'questions.jsonl'), '--cap', '1', '--format', 'json'],
    { encoding: 'utf8', maxBuffer: 64 << 20 }));
  assert.ok(report.configurations.includes('structural/hybrid/cap1'), report.configurations.join(' '));
  const context = await browser.newContext();
  const seen = [];
  const page = await watchedPage(context, seen);
  // A study page first: it never starts the worker, let alone the model.
  await page.goto(`${server.url}/?study=fastindex`);
  await page.locator('[data-testid="permalink"]').waitFor({ timeout: 60000 });
  await page.goto(`${server.url}/?view=evaluate&bundle=repo&caps=1`);
  await page.locator('[data-testid="evaluate-chunker-window"]').waitFor({ timeout: 60000 });
  await page.locator('[data-testid="evaluate-run"]').click();
  await page.locator('[data-testid="evaluate-result"]').waitFor({ timeout: 300000 });
  const summary = await page.locator('[data-testid="evaluate-summary"]').textContent();
  assert.match(summary, new RegExp(`^${report.questions} questions, ${report.configurations.length} configurations`));
  console.log(`# grid with dense and hybrid in Chromium: ${summary.match(/ran in (\d+) ms/)[1]} ms`);
  const fmt = (x) => x.toFixed(3);
  let cells = 0;
  for (const m of report.metrics) {
    const cell = page.locator(
      `[data-testid="evaluate-grid"] tr[data-row="${m.arm}"] td[data-col="${m.metric}"]`);
    if (!(await cell.count())) continue;
    assert.equal((await cell.textContent()).trim(), `${fmt(m.mean)} [${fmt(m.ci_low)}, ${fmt(m.ci_high)}]`, `${m.arm} ${m.metric}`);
    cells += 1;
  }
  assert.ok(cells >= report.configurations.length * 4, `${cells} cells compared`);
  const shipped = report.paired.find((p) => p.left === 'structural/hybrid/cap1');
  assert.ok(shipped, 'the shipped configuration is paired against the next best');
  // CodeAtlas's columns, the shipped configuration named in its row.
  const mrr = report.metrics.find((m) => m.arm === 'structural/hybrid/cap1' && m.metric === 'mrr');
  const headline = page.locator(
    '[data-testid="evaluate-headline"] tr[data-row="structural/hybrid/cap1 (shipped)"] td[data-col="mrr"]');
  assert.equal((await headline.textContent()).trim(), `${fmt(mrr.mean)} [${fmt(mrr.ci_low)}, ${fmt(mrr.ci_high)}]`);
  // The chart: every configuration on one axis, the shipped one named; MRR picked, then saved.
  await page.locator('[data-testid="evaluate-chart-metric"]').selectOption('mrr');
  const dot = page.locator('[data-testid="evaluate-chart"] g[data-row="structural/hybrid/cap1 (shipped)"] g[data-series="0"]');
  assert.equal(Number(await dot.getAttribute('data-mean')).toFixed(6), mrr.mean.toFixed(6));
  assert.equal(await page.locator('[data-testid="evaluate-chart"] g[data-testid="dot-row"]').count(),
    report.configurations.length);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('[data-testid="evaluate-chart-download"]').click(),
  ]);
  assert.equal(download.suggestedFilename(), 'grid.svg');
  const svg = Buffer.concat(await (await download.createReadStream()).toArray()).toString('utf8');
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg, /structural\/hybrid\/cap1 \(shipped\)/);
  assert.deepEqual(modelFetched(seen), [], 'no model file fetched');
  assert.deepEqual(seen.filter((u) => u.includes('/vectors/')).length > 0, true, 'the vectors were fetched');
  await context.close();
});

test("a chunking's vectors with one byte changed are refused, naming the file", { skip }, async () => {
  const [{ question }] = readFileSync(questionsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const context = await browser.newContext();
  const page = await context.newPage();
  const { error } = await search(page, server.url, 'dense', question, 'broken');
  assert.ok(error?.includes(brokenVectors) && /SHA-256/.test(error), error);
  await context.close();
});
