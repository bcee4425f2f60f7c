// Scenario: a reader opens a study whose case was ranked over the demo bundle's snapshot, loads
// the case's issue text (checked against its SHA-256), and in the case's drill-down runs every
// lexical arm live on the snapshot the page finds among the site's bundles: each arm the study
// archives is shown against its archived ranking (the same list agrees at every rank; a changed
// list is named at its first difference). A case of another commit finds no snapshot. Then the
// same study published with its issue text (`routelens publish --issue-texts`) on a plain static
// host: the page knows the text without the reader loading it, and the case runs live at once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { missing, root, startServer, startStaticServer, launchBrowser, buildDemoBundle, screenshot, tempDir } from './lib/harness.mjs';

const skip = missing() || false;
const cli = join(root, 'target/debug/routelens');
const QUESTION = 'serde_json-float';
let server, browser, page, demo, question, published;

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  demo = buildDemoBundle(bundles);
  question = readFileSync(join(root, 'bundler/demo/questions.jsonl'), 'utf8')
    .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)).find((q) => q.id === QUESTION);
  server = await startServer({ bundles });
  browser = await launchBrowser();
  page = await browser.newPage();
});
after(async () => {
  await browser?.close();
  server?.stop();
  published?.stop();
});

const byTestId = (id) => page.locator(`[data-testid="${id}"]`);

/** The "archived" study of the scenario (fts5 as the live arm ranks, rg with its first two paths
 * swapped; a second case at another commit), its issue text file, and the live arms' rankings. */
function writeStudy() {
  const dir = tempDir();
  const issue = join(dir, 'issue.txt');
  writeFileSync(issue, question.question);
  const native = (arm) => JSON.parse(execFileSync(cli, ['search', demo, '--arm', arm, '--query-file', issue,
    '--k', '16', '--format', 'json'], { encoding: 'utf8' })).results.map((r) => r.path);
  const fts5 = native('fts5');
  const rg = native('rg');
  assert.ok(rg.length >= 2, 'rg ranks two files or more');
  const sha = createHash('sha256').update(question.question).digest('hex');
  const study = join(dir, 'study.jsonl');
  writeFileSync(study, [
    { id: QUESTION, repo: 'routelens-demo', gold: question.gold, query_sha256: sha },
    { id: QUESTION, arm: 'fts5', paths: fts5 },
    { id: QUESTION, arm: 'rg', paths: [rg[1], rg[0], ...rg.slice(2)] },
    { id: 'elsewhere', repo: 'routelens-demo', gold: question.gold, base_commit: '0123456789abcdef0123456789abcdef01234567' },
    { id: 'elsewhere', arm: 'fts5', paths: fts5 },
    { id: 'elsewhere', arm: 'rg', paths: rg },
  ].map((line) => JSON.stringify(line)).join('\n') + '\n');
  const texts = join(dir, 'texts.json');
  writeFileSync(texts, JSON.stringify({ [QUESTION]: question.question }));
  return { study, texts, fts5, rg };
}

/** Opens the case's drill-down (its text known), runs it live and checks each arm against its
 * archived ranking. */
async function runCaseLive(on, { fts5, rg }) {
  const at = (id) => on.locator(`[data-testid="${id}"]`);
  await on.locator(`[data-testid="case-row"][data-case="${QUESTION}"]`).click();
  const snapshot = on.locator('[data-testid="case-snapshot"][data-bundle]');
  await snapshot.waitFor({ timeout: 60000 });
  assert.equal(await snapshot.getAttribute('data-bundle'), 'demo');
  assert.match(await snapshot.textContent(), /bundle demo \(routelens-demo at a working tree, \d+ files\)/);
  const k = Number(await at('k-select').inputValue());
  await at('case-live-run').click();
  await at('table-case-live').waitFor({ timeout: 120000 });
  const cell = (arm, col) => on.locator(`[data-testid="table-case-live"] tr[data-row="${arm}"] td[data-col="${col}"]`);
  const top = Math.min(k, fts5.length);
  assert.equal(await cell('fts5', 'same rank').textContent(), `${top} of ${top}`);
  assert.equal(await cell('fts5', 'first difference').textContent(), 'none');
  assert.equal(await cell('rg', 'first difference').textContent(), 'rank 1');
  assert.equal(await cell('rg', 'archived there').textContent(), rg[1]);
  assert.equal(await cell('rg', 'live there').textContent(), rg[0]);
}

test('a case runs its lexical arms live on its own snapshot, beside its archived rankings', { skip }, async () => {
  const written = writeStudy();
  const { study, texts } = written;

  await page.goto(`${server.url}/`);
  await byTestId('pick-jsonl').setInputFiles(study);
  await byTestId('study-title').waitFor({ timeout: 60000 });
  await byTestId('tab-cases').click();
  await byTestId('issue-text-file').setInputFiles(texts);
  assert.match(await byTestId('issue-text-report').textContent(), /accepted 1, refused 0/);
  await runCaseLive(page, written);
  await screenshot(page, 'case-live-snapshot');

  // The case cut at another commit has no snapshot among the bundles.
  await page.locator('[data-testid="case-row"][data-case="elsewhere"]').click();
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="case-snapshot"]')?.textContent.includes('None of the site'));
  assert.equal(await byTestId('case-live-run').count(), 0);
});

test('a published site ships the issue text: the case runs live with nothing loaded by hand', { skip }, async () => {
  const written = writeStudy();
  const www = tempDir();
  const site = join(www, 'site');
  const out = spawnSync(cli, ['publish', '--out', site, '--dist', join(root, 'dist'), '--study', written.study,
    '--issue-texts', written.texts, '--bundle', demo], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stdout, /study: 1 issue texts, each matching its case's query_sha256/);
  published = await startStaticServer(www);
  const context = await browser.newContext();
  const fresh = await context.newPage();
  await fresh.goto(`${published.url}/site/?study=study&view=cases`);
  const report = fresh.locator('[data-testid="issue-text-report"]');
  await report.waitFor({ state: 'attached', timeout: 60000 });
  assert.match(await report.textContent(), /issue-texts\/study\.json: accepted 1, refused 0/);
  await runCaseLive(fresh, written);
  await context.close();
});
