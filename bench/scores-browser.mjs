// Scripted browser measurement of scoring CodeNib's whole per-issue table in the page (57
// columns' intervals and 156 pairs, 5,000 resamples), through the score view's timing panel.
// Usage: node bench/scores-browser.mjs [dist-folder] [runs]   (default: dist, 5 runs)
// Build the release app first: trunk build index.html --release
// Prints `browser_ms=<median ms per whole scoring>`; compare with `cargo bench --bench
// score_table` (native) and `python3 bench/score_table.py` (plain Python).
import { resolve } from 'node:path';
import { codenib, launchBrowser, startCli } from '../tests/e2e/lib/harness.mjs';

const dist = resolve(process.argv[2] ?? 'dist');
const runs = process.argv[3] ?? '5';
const server = await startCli(['serve', '--port', '0', '--dist', dist, '--codenib', codenib]);
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/?study=codenib&resamples=5000`);
  await page.locator('[data-testid="table-scores"]').waitFor({ timeout: 60000 });
  await page.locator('[data-testid="scores-bench"] summary').click();
  await page.locator('[data-testid="scores-bench-runs"]').fill(runs);
  await page.locator('[data-testid="scores-bench-runs"]').press('Enter');
  await page.locator('[data-testid="scores-bench-run"]').click();
  await page.waitForFunction(() =>
    /ms median/.test(document.querySelector('[data-testid="scores-bench-ms"]')?.textContent ?? ''),
  null, { timeout: 300000 });
  const text = await page.locator('[data-testid="scores-bench-ms"]').textContent();
  console.log(text);
  console.log(`browser_ms=${text.match(/^([\d.]+) ms/)[1]}`);
} finally {
  await browser.close();
  server.stop();
}
