// Scenario: a researcher fuses two arms in the browser; the new arm appears in Table 2 with the
// same numbers the native CLI computes for that fusion.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scoreNatively, screenshot } from './lib/harness.mjs';
import { studySession } from './lib/session.mjs';

const session = studySession();
const { skip } = session;

test('adding rg+fts5 adds an arm equal to the CLI’s fusion', { skip }, async () => {
  await session.study.open('?study=fastindex&view=fusion');
  await session.study.byTestId('fusion-arm-rg').check();
  await session.study.byTestId('fusion-arm-fts5').check();
  await session.study.byTestId('fusion-add').click();
  await session.study.page.locator('[data-testid="table-fusion-recall"] tr[data-row="rg+fts5"]').waitFor();
  const table = await session.study.readTable('table-fusion-recall');
  const native = scoreNatively('--fuse', 'rg+fts5');
  for (const row of native.arms.filter((r) => r.arm === 'rg+fts5')) {
    assert.equal(table.rows['rg+fts5'][`File@${row.k}`], row.file_recall.toFixed(3), `k=${row.k}`);
    assert.equal(table.rows['rg+fts5'][`Full@${row.k}`], `${row.full}/82`, `k=${row.k}`);
  }
  assert.match(await session.study.permalink(), /fuse=[^&]*rg%2Bfts5|fuse=[^&]*rg\+fts5/);
  await screenshot(session.study.page, 'fusion');
});
