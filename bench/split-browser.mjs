// Scripted browser measurement of the split index (issue 36) in headless Chromium, release
// build: for each query, a fresh browser context (nothing cached) opens the Search view on the
// bundle, types the query and runs it; the bytes fetched before the fts5 column shows its first
// hit are the page's and the worker's Resource Timing entries under the bundle's URL (encoded
// body sizes; the app's own wasm and the worker's are not under it), and the fts5 and fts5-full
// columns' query times are the worker's own. With a second bundle (the same corpus built with
// `--no-split`) it prints both, so the query times compare once the packs are in.
// Usage: node bench/split-browser.mjs BUNDLES NAME [WHOLE_NAME] [QUERY_FILE ...]
//   BUNDLES a folder of bundle folders; NAME the split bundle; WHOLE_NAME its --no-split twin;
//   the queries default to the four fastindex issue texts beside the checkout.
// Build first: trunk build index.html --release; cargo build -p routelens.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launchBrowser, root, startCli } from '../tests/e2e/lib/harness.mjs';

const [bundles, name, whole, ...files] = process.argv.slice(2);
const textsDir = resolve(root, '../shared/data/fastindex-texts');
const queryFiles = files.length ? files : readdirSync(textsDir).filter((f) => f.endsWith('.txt'))
  .map((f) => join(textsDir, f));
const queries = queryFiles.map((f) => readFileSync(f, 'utf8'));

const server = await startCli(['serve', '--port', '0', '--dist', resolve(root, 'dist'), '--bundles', resolve(bundles)]);
const browser = await launchBrowser();

/** One cold search: bytes before the first fts5 hit, and the two BM25 columns' ms. */
async function coldSearch(bundle, query) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.url}/?view=search&bundle=${bundle}`);
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'),
  null, { timeout: 120000 });
  await page.locator('[data-testid="search-query"]').fill(query);
  await page.locator('[data-testid="search-run"]').click();
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="search-column"][data-arm="fts5"] [data-testid="search-hit"]'),
  null, { timeout: 300000 });
  const prefix = `/bundles/${bundle}/`;
  const entries = (list) => list.filter((e) => e.name.includes(prefix)).map((e) => e.encodedBodySize);
  const pageBytes = entries(await page.evaluate(() => performance.getEntriesByType('resource')
    .map((e) => ({ name: e.name, encodedBodySize: e.transferSize }))));
  const [worker] = page.workers();
  const workerBytes = entries(await worker.evaluate(() => performance.getEntriesByType('resource')
    .map((e) => ({ name: e.name, encodedBodySize: e.transferSize }))));
  const ms = async (arm) => Number((await page.locator(
    `[data-testid="search-column"][data-arm="${arm}"] [data-testid="search-ms"]`).textContent()).replace(' ms', ''));
  const result = {
    bytes: [...pageBytes, ...workerBytes].reduce((a, b) => a + b, 0),
    fts5Ms: await ms('fts5'),
  };
  await context.close();
  return result;
}

const percentile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};

for (const bundle of [name, whole].filter(Boolean)) {
  const rows = [];
  for (const query of queries) rows.push(await coldSearch(bundle, query));
  const bytes = rows.map((r) => r.bytes);
  console.log(`${bundle}: bytes before the first fts5 result, per query: ${bytes.join(', ')}`);
  console.log(`${bundle}: p95 ${percentile(bytes, 0.95)} B; fts5 query ms: ${rows.map((r) => r.fts5Ms).join(', ')}`);
}
await browser.close();
server.stop();
