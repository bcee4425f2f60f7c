// Scenario: a reader opens one issue: repository, base commit, gold spans, each arm's ranks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { missing, startServer, launchBrowser, screenshot } from './lib/harness.mjs';
import { StudyPage } from './lib/study-page.mjs';

const skip = missing() || false;
let server, browser, study;

before(async () => {
  if (skip) return;
  server = await startServer();
  browser = await launchBrowser();
  study = new StudyPage(await browser.newPage(), server.url);
});
after(async () => {
  await browser?.close();
  server?.stop();
});

test('an issue’s drill-down shows its gold files against every arm', { skip }, async () => {
  await study.open('?study=fastindex&view=cases');
  const id = 'SWE-PolyBench__python__maintenance__bugfix__b01e9113';
  await study.page.locator(`[data-testid="case-row"][data-case="${id}"]`).click();
  const detail = study.byTestId('case-detail');
  await detail.waitFor();
  assert.equal(await detail.getAttribute('data-case'), id);
  assert.match(await study.byTestId('case-repo').textContent(), /huggingface\/transformers/);
  assert.match(await study.byTestId('case-query-sha256').textContent(), /69f1c1c3f2470e85/);
  const gold = await study.readTable('table-case-gold');
  // The one gold file is ranked 2nd by tree (archived ranking) and found by every strong arm.
  const goldRow = gold.rows['src/transformers/models/idefics/processing_idefics.py'];
  assert.ok(goldRow, Object.keys(gold.rows).join(', '));
  assert.equal(goldRow.tree, '2');
  assert.equal(gold.rows['recall@8'].tree, '1.000');
  assert.ok(await study.page.locator('[data-testid="case-rankings"] [data-gold]').count() > 0);
  assert.match(await study.permalink(), /case=/);
  await screenshot(study.page, 'drilldown');
});
