// Scenario: a researcher downloads Table 2 as CSV; numbers keep full precision.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './lib/harness.mjs';
import { studySession } from './lib/session.mjs';

const session = studySession({ acceptDownloads: true });
const { skip } = session;

test('Table 2 downloads as CSV with full-precision numbers', { skip }, async () => {
  await session.study.open('?study=fastindex&view=table2');
  const [download] = await Promise.all([
    session.study.page.waitForEvent('download'),
    session.study.byTestId('table-file-recall').locator('[data-testid="csv-download"]').click(),
  ]);
  assert.match(download.suggestedFilename(), /\.csv$/);
  const path = join(tempDir(), download.suggestedFilename());
  await download.saveAs(path);
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  assert.ok(lines[0].startsWith('arm,label,File@8,Full@8'), lines[0]);
  const tree = lines.find((line) => line.startsWith('tree,'));
  assert.ok(tree.includes('0.46472338362582'), tree);
});
