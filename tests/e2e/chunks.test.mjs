// Scenario: a reader opens the demo bundle in the Chunks view and reads one file's chunk
// boundaries under each chunking — the Python sample's class header, its methods and its module
// code under structural-unmerged, and CodeNib's definitions alone — exactly as `routelens chunks`
// lists them; the permalink opens the same file again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { buildDemoBundle, launchBrowser, missing, root, startServer, tempDir } from './lib/harness.mjs';

const skip = missing() ?? false;
const FILE = 'routelens/engine/tests/chunk_samples/limiter.py';
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

/** `[start, end]` of every chunk starting in the shown file under `chunker`. */
async function starts(page, chunker) {
  return page.$$eval(`[data-testid="chunks-table"] td[data-chunker="${chunker}"][data-start]`,
    (tds) => tds.map((td) => [Number(td.dataset.start), Number(td.dataset.end), td.textContent.trim()]));
}

test("a file's chunks under each chunking, as the CLI lists them", { skip }, async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}/?view=chunks&bundle=demo`);
  await page.locator('[data-testid="chunks-bundle-select"]').waitFor({ timeout: 60000 });
  await page.locator('[data-testid="chunks-path"]').fill(FILE);
  await page.locator('[data-testid="chunks-path"]').dispatchEvent('change');
  await page.locator('[data-testid="chunks-show"]').click();
  await page.locator('[data-testid="chunks-table"]').waitFor({ timeout: 60000 });
  for (const chunker of ['structural', 'structural-unmerged', 'window', 'codenib']) {
    const cli = JSON.parse(execFileSync(join(root, 'target/debug/routelens'),
      ['chunks', demo, '--chunker', chunker, '--path', FILE, '--format', 'json'], { encoding: 'utf8' }));
    const expected = cli.map((c) => [c.start_line, c.end_line, c.name ? `${c.kind} ${c.name}` : c.kind]);
    assert.deepEqual(await starts(page, chunker), expected, chunker);
  }
  // By hand (engine/tests/code_chunks.rs): the class header is lines 6-10, allow 20-29.
  const unmerged = await starts(page, 'structural-unmerged');
  assert.deepEqual(unmerged[2], [6, 10, 'class RateLimitFilter']);
  assert.deepEqual(unmerged[5], [20, 29, 'method RateLimitFilter.allow']);
  const link = await page.locator('[data-testid="permalink"]').getAttribute('href');
  assert.match(link, /view=chunks/);
  assert.match(link, /path=routelens%2Fengine%2Ftests%2Fchunk_samples%2Flimiter\.py|path=routelens\/engine/);
  const again = await browser.newPage();
  await again.goto(`${server.url}/${link}`);
  await again.locator('[data-testid="chunks-table"]').waitFor({ timeout: 60000 });
  assert.deepEqual(await starts(again, 'structural-unmerged'), unmerged);
  await again.close();
  await page.close();
});

test('chunk search finds what routelens search --unit chunk finds, and opens a file', { skip }, async () => {
  const QUERY = 'rate limit filter allow';
  const page = await browser.newPage();
  await page.goto(`${server.url}/?view=chunks&bundle=demo&chunker=structural&cap=1`);
  await page.locator('[data-testid="chunks-chunker"] option[value="window"]').waitFor({ state: 'attached', timeout: 60000 });
  assert.equal(await page.locator('[data-testid="chunks-chunker"]').inputValue(), 'structural');
  assert.equal(await page.locator('[data-testid="chunks-cap"]').inputValue(), '1');
  await page.locator('[data-testid="chunks-query"]').fill(QUERY);
  await page.locator('[data-testid="chunks-query"]').dispatchEvent('change');
  await page.locator('[data-testid="chunks-search"]').click();
  await page.locator('[data-testid="chunks-hits"]').waitFor({ timeout: 60000 });
  const hits = await page.$$eval('[data-testid="chunk-hit"]', (rows) => rows.map((r) =>
    [r.dataset.path, Number(r.dataset.start), Number(r.dataset.end), r.dataset.name]));
  const cli = JSON.parse(execFileSync(join(root, 'target/debug/routelens'),
    ['search', demo, '--unit', 'chunk', '--chunker', 'structural', '--cap', '1', '--k', '10',
      '--query', QUERY, '--format', 'json'], { encoding: 'utf8' }));
  assert.deepEqual(hits, cli.results.map((r) => [r.path, r.start_line, r.end_line, r.name]));
  // With a cap of 1, no file twice among the first results of distinct files.
  const paths = hits.map((h) => h[0]);
  assert.equal(new Set(paths).size, paths.length);
  // A result opens its file with its chunk bands.
  await page.locator('[data-testid="chunk-hit"] button').first().click();
  const shown = page.locator('[data-testid="chunks-file"]');
  await shown.waitFor({ timeout: 60000 });
  assert.equal(await shown.getAttribute('data-path'), hits[0][0]);
  const bands = await starts(page, 'structural');
  assert.ok(bands.some(([start, end]) => start === hits[0][1] && end === hits[0][2]), JSON.stringify(bands));
  await page.close();
});
