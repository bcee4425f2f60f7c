// Scenario: a reader on a 1,280 px wide screen visits every view and tab, each with its main
// action run so that results are on the page, and never has to scroll sideways: the page, every
// table, plot and box of results fits its container, and no box scrolls sideways. Source code
// (a file's text, an issue's text) is the one exception. At 1,024 px every page still fits.
// axe-core (npm) checks every view as it stands: no serious or critical violation. No plot's
// labels overlap: the drawn boxes of every plot's text are tested for intersection.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { missing, startServer, launchBrowser, buildDemoBundle, tempDir, root } from './lib/harness.mjs';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const skip = missing() || false;
let server, browser, page, labels;

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  buildDemoBundle(bundles);
  // The labelling round's pages: a task pooled from the demo, and two labellers' files of it
  // (one file graded differently by each, so that the adjudication page lists a dispute).
  const demo = join(bundles, 'demo');
  execFileSync(join(root, 'target/debug/routelens'), ['label-task', demo, '--questions', join(demo, 'questions.jsonl'),
    '--pool', 'fts5@2', '--out', join(demo, 'task.json')], { stdio: 'ignore' });
  const task = JSON.parse(readFileSync(join(demo, 'task.json'), 'utf8'));
  const sha = createHash('sha256').update(readFileSync(join(demo, 'task.json'))).digest('hex');
  const [q] = task.questions;
  labels = ['ada', 'bo'].map((labeller, at) => {
    const path = join(bundles, `${labeller}.jsonl`);
    writeFileSync(path, [{ format: 'routelens-labels/1', task: sha, labeller, app: 'test' },
      { question: q.id, path: q.candidates[0], grade: at * 2, note: `${labeller}'s note` }]
      .map((line) => JSON.stringify(line)).join('\n'));
    return path;
  });
  server = await startServer({ bundles });
  browser = await launchBrowser();
  // axe is evaluated into the page by the test, which the app's Content-Security-Policy would
  // otherwise refuse (it allows the app's own scripts only).
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  page = await context.newPage();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const byTestId = (id) => page.locator(`[data-testid="${id}"]`);
const CASE = 'SWE-PolyBench__python__maintenance__bugfix__b01e9113';

/** Every view: its link, and what to do and wait for so that its results are on the page. */
const VIEWS = [
  ['home', '/', async () => byTestId('studies-list').waitFor()],
  ['paper', '/?study=fastindex&view=paper', async () => byTestId('paper-summary').waitFor({ timeout: 60000 })],
  ['table2', '/?study=fastindex&view=table2', async () => {
    await byTestId('table-file-recall').waitFor({ timeout: 60000 });
    await byTestId('plot-table2').waitFor({ timeout: 60000 });
  }],
  ['paired', '/?study=fastindex&view=paired', async () => {
    await byTestId('table-paired').waitFor({ timeout: 60000 });
    await byTestId('forest-plot').waitFor({ timeout: 60000 });
  }],
  ['repos', '/?study=fastindex&view=repos', async () => {
    await byTestId('table-repo').waitFor({ timeout: 60000 });
    await byTestId('plot-repo-diff').waitFor({ timeout: 60000 });
  }],
  ['lines', '/?study=fastindex&view=lines', async () => byTestId('table-archived-lines').waitFor({ timeout: 60000 })],
  ['operations', '/?study=fastindex&view=operations', async () => {
    await byTestId('table-operations').waitFor({ timeout: 60000 });
    await byTestId('plot-operations').waitFor({ timeout: 60000 });
  }],
  ['subgroups', '/?study=fastindex&view=subgroups', async () => byTestId('table-subgroups').waitFor({ timeout: 60000 })],
  ['fusion', '/?study=fastindex&view=fusion', async () => byTestId('table-fusion-recall').waitFor({ timeout: 60000 })],
  ['cases', `/?study=fastindex&view=cases&case=${CASE}`, async () => byTestId('case-detail').waitFor({ timeout: 60000 })],
  ['bench', '/?study=fastindex&view=bench', async () => byTestId('rescore-run').waitFor({ timeout: 60000 })],
  ['codenib paper', '/?study=codenib&view=paper', async () => byTestId('paper-summary').waitFor({ timeout: 60000 })],
  ['codenib scores', '/?study=codenib&view=scores', async () => byTestId('table-score-pairs').waitFor({ timeout: 60000 })],
  ['search', '/?view=search&bundle=demo&q=serde_json-float', async () =>
    page.locator('[data-testid="search-fused"] [data-testid="search-hit"]').first().waitFor({ timeout: 120000 })],
  ['context', '/?view=context&bundle=demo&q=routelens-pack-skip', async () =>
    page.locator('[data-testid="context-pack"] [data-testid="context-budget"]').first().waitFor({ timeout: 120000 })],
  ['route', '/?view=route&bundle=demo&q=serde_json-float', async () => {
    await byTestId('route-bundle-summary').waitFor({ timeout: 30000 });
    await byTestId('route-run-button').click();
    await page.waitForFunction(() =>
      /done/.test(document.querySelector('[data-testid="route-progress"]')?.textContent ?? ''), null, { timeout: 60000 });
  }],
  ['chunks', '/?view=chunks&bundle=demo&path=routelens/engine/tests/chunk_samples/limiter.py', async () => {
    await byTestId('chunks-show').click();
    await byTestId('chunks-table').waitFor({ timeout: 60000 });
  }],
  ['evaluate', '/?view=evaluate&bundle=demo&caps=2', async () => {
    await byTestId('evaluate-run').click();
    await byTestId('evaluate-result').waitFor({ timeout: 300000 });
  }],
  ['label', '/?view=label&task=/bundles/demo/task.json&labeller=ada', async () => {
    await byTestId('task-summary').waitFor({ timeout: 60000 });
    await byTestId('label-start').click();
    await byTestId('file-view').waitFor({ timeout: 60000 });
  }],
  ['adjudicate', '/?view=adjudicate&task=/bundles/demo/task.json', async () => {
    await byTestId('task-summary').waitFor({ timeout: 60000 });
    await byTestId('labels-a').setInputFiles(labels[0]);
    await byTestId('labels-b').setInputFiles(labels[1]);
    await byTestId('dispute-show').click();
    await byTestId('file-view').waitFor({ timeout: 60000 });
  }],
  ['rerank', '/?view=rerank&bundle=demo&q=serde_json-escape&pool=grep', async () => {
    await byTestId('rerank-run').click();
    await page.locator('[data-testid="rerank-result"], [data-testid="rerank-error"]').first().waitFor({ timeout: 120000 });
  }],
];

/** What is wider than the page or scrolls sideways, in words (source code views excepted). */
const overflowing = () => page.evaluate(() => {
  const width = document.documentElement.clientWidth;
  const said = [];
  if (document.documentElement.scrollWidth > width + 1) {
    said.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  }
  const name = (el) => el.dataset.testid ?? el.closest('[data-testid]')?.dataset.testid ?? el.className ?? el.tagName;
  const source = 'pre, .file-view, .issue-text, .source-scroll';
  for (const el of document.querySelectorAll('main table, main svg, main .table-view, main .table-scroll, main .controls, main [data-testid]')) {
    if (el.closest(source)) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0) continue;
    if (box.right > width + 1) said.push(`${el.tagName.toLowerCase()} ${name(el)} ends at ${Math.round(box.right)} px`);
    const style = getComputedStyle(el);
    if (['auto', 'scroll'].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1) {
      said.push(`${el.tagName.toLowerCase()} ${name(el)} scrolls sideways (${el.scrollWidth} in ${el.clientWidth} px)`);
    }
  }
  return [...new Set(said)].slice(0, 8);
});

/** Pairs of text in one plot whose drawn boxes intersect (by more than half a pixel each way). */
const overlappingText = () => page.evaluate(() => {
  const said = [];
  for (const svg of document.querySelectorAll('main svg')) {
    const plot = svg.dataset.testid ?? svg.closest('[data-testid]')?.dataset.testid ?? 'svg';
    const boxes = [...svg.querySelectorAll('text')]
      .map((text) => ({ text: text.textContent.trim(), box: text.getBoundingClientRect() }))
      .filter(({ box }) => box.width > 0);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i].box, boxes[j].box];
        const wide = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const tall = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (wide > 0.5 && tall > 0.5) said.push(`${plot}: "${boxes[i].text}" overlaps "${boxes[j].text}"`);
      }
    }
  }
  return said.slice(0, 8);
});

/** axe-core's serious and critical violations of the page as it stands, in words. */
async function inaccessible() {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const { violations } = await window.axe.run(document, { resultTypes: ['violations'] });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}: ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join('; ')})`);
  });
}

test('no view scrolls sideways at 1,280 px, nor its page at 1,024 px; no plot\'s labels overlap; axe finds nothing serious', { skip }, async () => {
  const problems = [];
  for (const [view, link, act] of VIEWS) {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}${link}`);
    await act();
    for (const said of await overflowing()) problems.push(`${view} at 1280: ${said}`);
    for (const said of await overlappingText()) problems.push(`${view}: ${said}`);
    for (const said of await inaccessible()) problems.push(`${view}: ${said}`);
    await page.setViewportSize({ width: 1024, height: 800 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    if (wide > 1025) problems.push(`${view} at 1024: the page is ${wide} px wide`);
  }
  assert.deepEqual(problems, []);
});
