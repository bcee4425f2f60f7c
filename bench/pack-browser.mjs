// Scripted browser measurement of the context stage: select and pack 16 files of 2,000-4,000
// lines at the 16,000-token budget (the engine's benchmark corpus, the same as the criterion
// bench `engine/benches/pack.rs`) in headless Chromium, through the Context view's benchmark panel.
// Usage: node bench/pack-browser.mjs [dist-folder]   (default: dist)
// Build the release app first: trunk build index.html --release --dist dist-release
// Prints `pack_warm_ms=` (re-pack after a budget change: token counts from the memo) and
// `pack_cold_ms=` (the first pack: every block encoded with cl100k_base), medians.
import { resolve } from 'node:path';
import { launchBrowser, root, startCli } from '../tests/e2e/lib/harness.mjs';

const dist = resolve(process.argv[2] ?? 'dist');
const server = await startCli(['serve', '--port', '0', '--dist', dist]);
const { url } = server;
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(`${url}/?view=context`);
  await page.locator('details.bench summary').click();
  await page.locator('[data-testid="context-bench-run"]').click();
  const warm = page.locator('[data-testid="context-bench-ms"]');
  await warm.waitFor({ timeout: 300000 });
  console.log(`pack_warm_ms=${(await warm.textContent()).trim()}`);
  console.log(`pack_cold_ms=${(await page.locator('[data-testid="context-bench-cold-ms"]').textContent()).trim()}`);
} finally {
  await browser.close();
  server.stop();
}
