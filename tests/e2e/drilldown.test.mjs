// Scenario: a reader opens one issue: repository, base commit, where its text comes from, gold
// spans, each arm's ranks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshot } from './lib/harness.mjs';
import { studySession } from './lib/session.mjs';

const session = studySession();
const { skip } = session;

test('an issue’s drill-down shows its gold files against every arm', { skip }, async () => {
  await session.study.open('?study=fastindex&view=cases');
  const id = 'SWE-PolyBench__python__maintenance__bugfix__b01e9113';
  await session.study.page.locator(`[data-testid="case-row"][data-case="${id}"]`).click();
  const detail = session.study.byTestId('case-detail');
  await detail.waitFor();
  assert.equal(await detail.getAttribute('data-case'), id);
  assert.match(await session.study.byTestId('case-repo').textContent(), /huggingface\/transformers/);
  assert.match(await session.study.byTestId('case-query-sha256').textContent(), /69f1c1c3f2470e85/);
  // Where the issue text comes from, as the ledger records it.
  assert.match(await session.study.byTestId('issue-source').textContent(),
    /ContextBench at revision c2855792b006af41c67202d33883fb9d46362853, Parquet SHA-256 2f56535b/);
  const gold = await session.study.readTable('table-case-gold');
  // The one gold file is ranked 2nd by tree (archived ranking) and found by every strong arm.
  const goldRow = gold.rows['src/transformers/models/idefics/processing_idefics.py'];
  assert.ok(goldRow, Object.keys(gold.rows).join(', '));
  assert.equal(goldRow.tree, '2');
  assert.equal(gold.rows['recall@8'].tree, '1.000');
  assert.ok(await session.study.page.locator('[data-testid="case-rankings"] [data-gold]').count() > 0);
  assert.match(await session.study.permalink(), /case=/);
  await screenshot(session.study.page, 'drilldown');
});
