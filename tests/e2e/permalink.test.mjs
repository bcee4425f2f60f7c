// Scenario: a reader changes the view, copies the permalink, and a fresh page restores it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { missing, startServer, launchBrowser } from './lib/harness.mjs';
import { StudyPage } from './lib/study-page.mjs';

const skip = missing() || false;
let server, browser;

before(async () => {
  if (skip) return;
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

test('a permalink restores k, fusions, seed and view', { skip }, async () => {
  const first = new StudyPage(await browser.newPage(), server.url);
  await first.open('?study=fastindex&view=fusion');
  await first.byTestId('fusion-arm-tree').check();
  await first.byTestId('fusion-arm-rg').check();
  await first.byTestId('fusion-add').click();
  await first.tab('paired');
  await first.fill('paired-seed', 7);
  await first.tab('table2');
  await first.select('k-left', 3);
  await first.page.waitForFunction(() => document.querySelector('[data-testid="permalink"]')?.getAttribute('href')?.includes('seed=7'));
  const link = await first.permalink();
  const before = await first.readTable('table-file-recall');

  const second = new StudyPage(await browser.newPage(), server.url);
  await second.page.goto(new URL(link, server.url).href);
  await second.byTestId('study-title').waitFor({ timeout: 60000 });
  const after = await second.readTable('table-file-recall');
  assert.deepEqual(after, before);
  assert.ok(after.headers.includes('File@3'));
  assert.ok(after.rows['tree+rg'], 'the fusion is restored');
  await second.tab('paired');
  assert.equal(await second.byTestId('paired-seed').inputValue(), '7');
});
