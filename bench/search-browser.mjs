// Scripted browser measurement of the lexical arms in the app's Search view, in headless Chromium,
// two ways:
//   - per click: every question of the demo bundle's set, searched RUNS times, each click running
//     every arm in turn; per arm, the median of each question's runs, then p50/p95 over the
//     questions. Each arm is timed once per click, after the page sat idle (the first arm) or after
//     the other arms ran;
//   - the view's timing panel: each arm alone over every question, RUNS rounds, in one loop in the
//     page, summarised the same way: the method of the native benchmark (`routelens search
//     --queries`), so this is the figure to set beside it.
// routelens serve makes the page cross-origin isolated, so performance.now() has 5 µs resolution.
// Also reports the bytes fetched before the first result (from the Resource Timing API: every
// response body the page received before the first column appeared) against the bundle's size.
//
// Usage: node bench/search-browser.mjs [dist-folder] [bundles-folder] [runs]
//   defaults: dist-release, target/bundles (holding `demo`), 5 runs
// Build first: trunk build index.html --release --dist dist-release; cargo build -p routelens;
// routelens demo --out target/bundles/demo.
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { launchBrowser, root, startCli } from '../tests/e2e/lib/harness.mjs';

const dist = resolve(process.argv[2] ?? 'dist-release');
const bundles = resolve(process.argv[3] ?? resolve(root, 'target/bundles'));
const runs = Number(process.argv[4] ?? '5');
const questions = readFileSync(resolve(bundles, 'demo/questions.jsonl'), 'utf8')
  .split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line).id).filter(Boolean);
const manifest = JSON.parse(readFileSync(resolve(bundles, 'demo/manifest.json'), 'utf8'));
const bundleBytes = readFileSync(resolve(bundles, 'demo/manifest.json')).length
  + manifest.chunks.reduce((sum, chunk) => sum + chunk.bytes, 0) + (manifest.index?.bytes ?? 0);

const server = await startCli(['serve', '--port', '0', '--dist', dist,
  '--bundles', bundles]);
const { url } = server;

const percentile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const median = (values) => percentile(values, 0.5);

const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(`${url}/?view=search&bundle=demo`);
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'),
  null, { timeout: 60000 });
  const before = await page.evaluate(() => performance.getEntriesByType('resource').length);
  await page.locator('[data-testid="question-select"]').selectOption(questions[0]);
  await page.locator('[data-testid="search-run"]').click();
  await page.locator('[data-testid="search-column"] [data-testid="search-hit"]').first().waitFor({ timeout: 60000 });
  // Everything the page fetched until the first column showed: the manifest (before `before`)
  // and what the first search needed.
  const firstBytes = await page.evaluate((skip) => {
    const entries = performance.getEntriesByType('resource');
    const bundleFiles = entries.filter((e) => e.name.includes('/bundles/demo/'));
    const search = entries.slice(skip).filter((e) => e.name.includes('/bundles/demo/'));
    const manifest = bundleFiles.filter((e) => e.name.endsWith('manifest.json'));
    const index = search.filter((e) => e.name.includes('/index/'));
    const sum = (list) => list.reduce((total, e) => total + e.encodedBodySize, 0);
    return { manifest: sum(manifest), index: sum(index) };
  }, before);
  // Wait until the rg columns are filled too (all chunks in), so later runs time warm arms only.
  await page.waitForFunction(() => {
    const busy = document.querySelector('[data-testid="search-run"]')?.disabled;
    const cols = [...document.querySelectorAll('[data-testid="search-column"]')];
    return !busy && cols.length > 0 && cols.every((col) => col.querySelector('[data-testid="search-ms"]'));
  }, null, { timeout: 120000 });

  const times = {};
  for (const question of questions) {
    await page.locator('[data-testid="question-select"]').selectOption(question);
    const perRun = {};
    for (let run = 0; run < runs; run += 1) {
      // With the index and texts loaded, a run completes in the click's own task (the handler's
      // future never waits on the network), so the button is enabled again once it is done.
      await page.locator('[data-testid="search-run"]').click();
      await page.waitForFunction(() => !document.querySelector('[data-testid="search-run"]').disabled,
        null, { timeout: 60000 });
      const columns = await page.$$eval('[data-testid="search-column"]', (cols) => cols.map((col) => [
        col.dataset.arm, Number(col.querySelector('[data-testid="search-ms"]').textContent.replace(' ms', ''))]));
      for (const [arm, ms] of columns) (perRun[arm] ??= []).push(ms);
    }
    for (const [arm, values] of Object.entries(perRun)) (times[arm] ??= []).push(median(values));
  }
  for (const [arm, values] of Object.entries(times)) {
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    console.log(`${arm.padEnd(12)} p50 ${percentile(values, 0.5).toFixed(3)} ms  p95 ${percentile(values, 0.95).toFixed(3)} ms  mean ${mean.toFixed(3)} ms  (${values.length} questions x ${runs} runs)`);
  }
  const isolated = await page.evaluate(() => crossOriginIsolated);
  console.log(`(per click; the page is ${isolated ? '' : 'NOT '}cross-origin isolated)`);

  await page.locator('[data-testid="search-timing"] summary').click();
  await page.locator('[data-testid="search-timing-rounds"]').fill(String(runs));
  await page.locator('[data-testid="search-timing-rounds"]').dispatchEvent('change');
  await page.locator('[data-testid="search-timing-run"]').click();
  await page.waitForSelector('[data-testid="search-timing-table"]', { timeout: 600000 });
  const panel = await page.$$eval('[data-testid="search-timing-row"]', (trs) => trs.map((tr) =>
    [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  for (const [arm, p50, p95, mean, count, calls] of panel) {
    console.log(`${arm.padEnd(12)} p50 ${p50} ms  p95 ${p95} ms  mean ${mean} ms  (timing panel: alone, ${count} questions, ${calls} calls)`);
  }

  const first = firstBytes.manifest + firstBytes.index;
  console.log(`first_result_bytes=${first} (manifest ${firstBytes.manifest}, index ${firstBytes.index}) = ${(first / bundleBytes).toFixed(3)} of the bundle's ${bundleBytes} bytes`);
} finally {
  await browser.close();
  server.stop();
}
