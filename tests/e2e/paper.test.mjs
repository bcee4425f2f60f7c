// Scenario: a reader opens each study from the home page and lands on its paper page: every
// number the paper prints beside its recomputation, done in the page, with ✓, ✗ or –. The home
// page's summary, the page's summary line and every row equal `routelens check`'s on the same
// data; the filter lists only the numbers not reproduced. A screenshot of the fastindex paper page
// at 1,280 × 800 is saved under tests/e2e/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { archive, artifacts, codenib, launchBrowser, missing, root, startServer } from './lib/harness.mjs';

const skip = missing() ?? false;
const cli = join(root, 'target/debug/routelens');
let server, browser, page;

before(async () => {
  if (skip) return;
  server = await startServer();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const byTestId = (id) => page.locator(`[data-testid="${id}"]`);

/** `routelens check` on the same data: its summary line and its verdicts. */
function checked(study, name) {
  const table = execFileSync(cli, ['check', study], { encoding: 'utf8' });
  const json = JSON.parse(execFileSync(cli, ['check', study, '--format', 'json'], { encoding: 'utf8' }));
  return { summary: table.split('\n')[0].replace(/^[a-z]+:/, `${name}:`), verdicts: json.verdicts };
}

for (const [id, study] of [['fastindex', archive], ['codenib', join(codenib, 'jev_candidates_cases.csv')]]) {
  test(`${id} opens on its paper page, every number as routelens check has it`, { skip }, async () => {
    const native = checked(study, id);
    const counts = Object.fromEntries(['reproduced', 'differs', 'not_computable', 'failed']
      .map((outcome) => [outcome, native.verdicts.filter((v) => v.outcome === outcome).length]));
    await page.goto(`${server.url}/`);
    const home = await byTestId(`study-checked-${id}`).textContent({ timeout: 30000 });
    assert.ok(home.startsWith(`${counts.reproduced} of ${native.verdicts.length} printed numbers reproduced`), home);

    await byTestId(`study-open-${id}`).click();
    await byTestId('paper-summary').waitFor({ timeout: 60000 });
    assert.equal(await byTestId('paper-summary').textContent(), native.summary);
    assert.equal(new URL(page.url()).searchParams.get('view'), 'paper');
    assert.equal(await byTestId('tab-paper').getAttribute('class'), 'tab active');
    const rows = await page.$$eval('[data-testid="paper-number"]', (trs) => trs.map((tr) => ({
      outcome: tr.dataset.outcome,
      printed: tr.querySelector('[data-col="printed"]').textContent,
      recomputed: tr.querySelector('[data-col="recomputed"]').textContent,
    })));
    assert.equal(rows.length, native.verdicts.length);
    native.verdicts.forEach((verdict, at) => {
      assert.equal(rows[at].outcome, verdict.outcome, verdict.place);
      assert.equal(rows[at].printed, verdict.printed, verdict.place);
      assert.equal(rows[at].recomputed, verdict.recomputed ?? '–', verdict.place);
    });
    assert.ok(counts.reproduced > 0);

    await byTestId('paper-filter').selectOption('not-reproduced');
    assert.equal(await byTestId('paper-number').count(), native.verdicts.length - counts.reproduced);
    assert.equal(await page.locator('[data-testid="paper-number"][data-outcome="reproduced"]').count(), 0);
    await byTestId('paper-filter').selectOption('all');
    if (id === 'fastindex') {
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, 'paper-1280.png') });
    }
  });
}
