// Scripted browser measurement of the whole re-score (every arm x 82 issues x k = 1..16 plus the
// four paired 10,000-resample bootstraps) in headless Chromium, through the app's benchmark panel.
// Usage: node bench/browser.mjs [dist-folder] [runs]   (default: dist, 20 runs)
// Build the release app first: trunk build index.html --release --dist dist-release
// Prints `browser_ms=<median ms per re-score>` and the time to open the study.
import { resolve } from 'node:path';
import { launchBrowser, root, startCli } from '../tests/e2e/lib/harness.mjs';

const dist = resolve(process.argv[2] ?? 'dist');
const runs = process.argv[3] ?? '20';
const server = await startCli(['serve', '--port', '0', '--dist', dist,
  '--data', resolve(root, '../shared/data/fastindex')]);
const { url } = server;
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  const started = Date.now();
  await page.goto(`${url}/?study=fastindex&view=bench`);
  await page.locator('[data-testid="study-title"]').waitFor({ timeout: 60000 });
  const openMs = Date.now() - started;
  await page.locator('[data-testid="rescore-runs"]').fill(runs);
  await page.locator('[data-testid="rescore-runs"]').dispatchEvent('change');
  await page.locator('[data-testid="rescore-run"]').click();
  const result = page.locator('[data-testid="rescore-ms"]');
  await result.waitFor({ timeout: 120000 });
  console.log(`browser_ms=${(await result.textContent()).trim()}`);
  console.log(`open_study_ms=${openMs} (page load, fetch and load of the archive)`);
} finally {
  await browser.close();
  server.stop();
}
