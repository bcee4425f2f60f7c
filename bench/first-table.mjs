// Scripted browser measurement of the first load: a fresh browser context (nothing cached) opens
// the paper's study on Table 2 and waits for the table's first row. Prints, per run and as the
// median, the time to the first table and the bytes of wasm the page fetched, and says whether the
// live worker was fetched (it must not be: the study views never need it).
// Usage: node bench/first-table.mjs [dist-folder] [runs]   (default: dist, 9 runs)
// Build the release app first: trunk build index.html --release
import { resolve } from 'node:path';
import { launchBrowser, root, startCli } from '../tests/e2e/lib/harness.mjs';

const dist = resolve(process.argv[2] ?? 'dist');
const runs = Number(process.argv[3] ?? '9');
const server = await startCli(['serve', '--port', '0', '--dist', dist,
  '--data', resolve(root, '../shared/data/fastindex')]);
const browser = await launchBrowser();
const times = [];
try {
  for (let run = 0; run < runs; run += 1) {
    const context = await browser.newContext();
    const page = await context.newPage();
    let wasmBytes = 0;
    let worker = false;
    page.on('response', async (response) => {
      const url = response.url();
      if (url.includes('routelens-worker')) worker = true;
      if (url.endsWith('.wasm')) wasmBytes += (await response.body()).length;
    });
    const started = Date.now();
    await page.goto(`${server.url}/?study=fastindex&view=table2`);
    await page.locator('[data-testid="table-file-recall"] tbody tr').first().waitFor({ timeout: 120000 });
    const ms = Date.now() - started;
    times.push(ms);
    console.log(`run ${run + 1}: first_table_ms=${ms} wasm_bytes=${wasmBytes} worker_fetched=${worker}`);
    await context.close();
  }
  times.sort((a, b) => a - b);
  console.log(`first_table_ms_median=${times[Math.floor(times.length / 2)]} (${runs} runs, ${dist})`);
} finally {
  await browser.close();
  server.stop();
}
