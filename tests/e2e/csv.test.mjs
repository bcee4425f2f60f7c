// Scenario: a researcher downloads Table 2 as CSV; numbers keep full precision.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { missing, startServer, launchBrowser, tempDir } from './lib/harness.mjs';
import { StudyPage } from './lib/study-page.mjs';

const skip = missing() || false;
let server, browser, study;

before(async () => {
  if (skip) return;
  server = await startServer();
  browser = await launchBrowser();
  study = new StudyPage(await browser.newPage({ acceptDownloads: true }), server.url);
});
after(async () => {
  await browser?.close();
  server?.stop();
});

test('Table 2 downloads as CSV with full-precision numbers', { skip }, async () => {
  await study.open('?study=fastindex&view=table2');
  const [download] = await Promise.all([
    study.page.waitForEvent('download'),
    study.byTestId('table-file-recall').locator('[data-testid="csv-download"]').click(),
  ]);
  assert.match(download.suggestedFilename(), /\.csv$/);
  const path = join(tempDir(), download.suggestedFilename());
  await download.saveAs(path);
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  assert.ok(lines[0].startsWith('arm,label,File@8,Full@8'), lines[0]);
  const tree = lines.find((line) => line.startsWith('tree,'));
  assert.ok(tree.includes('0.46472338362582'), tree);
});
