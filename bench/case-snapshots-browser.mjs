// Hand check of a published study with its cases' snapshots attached (issue 36), in headless
// Chromium: a site published from the fastindex archive and the merged snapshots of its cases
// (`routelens snapshots`, `routelens merge`, `routelens publish`), served as static files; for
// each issue text in TEXTS_DIR (`<case id>.txt`), the case's drill-down loads the text, finds its
// snapshot among the site's bundles and runs every lexical arm live on it; the script prints each
// arm's agreement with the archived top k as the page shows it.
// Usage: node bench/case-snapshots-browser.mjs SITE_DIR [TEXTS_DIR]
//   SITE_DIR a folder `routelens publish` wrote; TEXTS_DIR defaults to ../shared/data/fastindex-texts.
import { readdirSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchBrowser, root, startStaticServer } from '../tests/e2e/lib/harness.mjs';

const [site, textsArg] = process.argv.slice(2);
const textsDir = resolve(textsArg ?? resolve(root, '../shared/data/fastindex-texts'));
const texts = Object.fromEntries(readdirSync(textsDir).filter((f) => f.endsWith('.txt'))
  .map((f) => [f.slice(0, -4), readFileSync(join(textsDir, f), 'utf8')]));
const textsFile = join(mkdtempSync(join(tmpdir(), 'texts-')), 'texts.json');
writeFileSync(textsFile, JSON.stringify(texts));

const server = await startStaticServer(resolve(site));
const browser = await launchBrowser();
const page = await browser.newPage();
const byTestId = (id) => page.locator(`[data-testid="${id}"]`);
try {
  await page.goto(`${server.url}/?study=fastindex&view=cases`);
  await byTestId('study-title').waitFor({ timeout: 120000 });
  await byTestId('issue-text-file').setInputFiles(textsFile);
  console.log((await byTestId('issue-text-report').textContent()).trim());
  for (const id of Object.keys(texts)) {
    await page.locator(`[data-testid="case-row"][data-case="${id}"]`).click();
    const snapshot = byTestId('case-snapshot');
    await page.waitForFunction((id) =>
      document.querySelector('[data-testid="case-detail"]')?.getAttribute('data-case') === id
      && !document.querySelector('[data-testid="case-snapshot"]')?.textContent.startsWith('Looking'),
    id, { timeout: 120000 });
    console.log(`${id}: ${(await snapshot.textContent()).trim()}`);
    if (await byTestId('case-live-run').count() === 0) continue;
    const clicked = performance.now();
    await byTestId('case-live-run').click();
    await byTestId('table-case-live').waitFor({ timeout: 300000 });
    // From the click to the table: the snapshot's files fetched (and, when it stores no index,
    // the index built in the worker) and every arm run.
    console.log(`  live run: ${Math.round(performance.now() - clicked)} ms from the click`);
    const rows = await page.$$eval('[data-testid="table-case-live"] tr[data-row]', (trs) => trs.map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent.trim()).join(' | ')));
    for (const row of rows) console.log(`  ${row}`);
  }
} finally {
  await browser.close();
  server.stop();
}
