// Scenario: a reader brings their own study and bundle. On the home page they open the paper's
// archive by URL (Table 2 reads as published, and the permalink, which names the URL, opens it
// again), a bundle folder by URL (searched in the Search view; its permalink reopens it too) and
// a bundle folder picked from disk (read file by file, verified, searched; its permalink says to
// pick the folder again). A study on another origin that does not allow this page (no CORS
// headers) is refused with a message that says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildDemoBundle, launchBrowser, missing, startServer, startStaticServer, tempDir } from './lib/harness.mjs';

const skip = missing() ?? false;
const QUESTION = 'serde_json-float';
let server, other, browser, demo;

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  demo = buildDemoBundle(bundles);
  other = await startStaticServer(bundles);
  // The policy lets the page try the other origin, so what refuses it is CORS.
  server = await startServer({ bundles, args: ['--connect-src', other.url] });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
  other?.stop();
});

async function freshPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  return { page, byTestId: (id) => page.locator(`[data-testid="${id}"]`), close: () => context.close() };
}

const treeAt8 = '[data-testid="table-file-recall"] tr[data-row="tree"] td[data-col="File@8"]';

test('a study opened by URL reads as published and its permalink opens it again', { skip }, async () => {
  const { page, byTestId, close } = await freshPage();
  await page.goto(`${server.url}/`);
  await byTestId('study-url').fill(`${server.url}/data/fastindex/`);
  await byTestId('study-url-open').click();
  await page.locator(treeAt8).waitFor({ timeout: 60000 });
  assert.equal(await page.locator(treeAt8).textContent(), '0.465');
  const link = new URL(page.url());
  assert.equal(link.searchParams.get('study'), `url:${server.url}/data/fastindex/`);
  const again = await freshPage();
  await again.page.goto(link.href);
  await again.page.locator(treeAt8).waitFor({ timeout: 60000 });
  assert.equal(await again.page.locator(treeAt8).textContent(), '0.465');
  await again.close();
  await close();
});

test('a study on an origin without CORS is refused, saying why', { skip }, async () => {
  const { page, byTestId, close } = await freshPage();
  await page.goto(`${server.url}/`);
  await byTestId('study-url').fill(`${other.url}/demo/questions.jsonl`);
  await byTestId('study-url-open').click();
  await byTestId('load-error').waitFor({ timeout: 30000 });
  const said = await byTestId('load-error').textContent();
  assert.match(said, /questions\.jsonl: the browser refused the cross-origin request .*\(CORS\) and this site's Content-Security-Policy lists it/);
  await close();
});

async function searchOnce(page, byTestId) {
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'),
  null, { timeout: 60000 });
  await byTestId('question-select').selectOption(QUESTION);
  await byTestId('search-run').click();
  await page.waitForSelector('[data-testid="search-column"][data-arm="rg"] [data-testid="search-hit"]',
    { timeout: 120000 });
}

test('a bundle opened by URL is searched, and its permalink opens it again', { skip }, async () => {
  const { page, byTestId, close } = await freshPage();
  await page.goto(`${server.url}/`);
  await byTestId('bundle-url').fill(`${server.url}/bundles/demo/`);
  await byTestId('bundle-url-open').click();
  await byTestId('bundle-added').waitFor();
  assert.match(await byTestId('bundle-added').textContent(), /url:http/);
  await byTestId('tab-search').click();
  await searchOnce(page, byTestId);
  const link = new URL(page.url());
  assert.equal(link.searchParams.get('bundle'), `url:${server.url}/bundles/demo`);
  const again = await freshPage();
  await again.page.goto(link.href);
  await searchOnce(again.page, again.byTestId);
  await again.close();

  // Python's server sends no CORS headers: the manifest fetch is refused, and said to be.
  await page.goto(`${server.url}/`);
  await byTestId('bundle-url').fill(`${other.url}/demo`);
  await byTestId('bundle-url-open').click();
  await byTestId('tab-search').click();
  await byTestId('bundle-error').waitFor({ timeout: 30000 });
  assert.match(await byTestId('bundle-error').textContent(),
    /manifest\.json: the browser refused the cross-origin request/);
  await close();
});

test('a picked bundle folder is verified and searched; its permalink says to pick it again', { skip }, async () => {
  const { page, byTestId, close } = await freshPage();
  await page.goto(`${server.url}/`);
  await byTestId('pick-bundle').setInputFiles(demo);
  await byTestId('bundle-added').waitFor();
  assert.match(await byTestId('bundle-added').textContent(), /picked:demo/);
  await byTestId('tab-search').click();
  await searchOnce(page, byTestId);
  const link = new URL(page.url());
  assert.equal(link.searchParams.get('bundle'), 'picked:demo');
  const again = await freshPage();
  await again.page.goto(link.href);
  await again.byTestId('bundle-error').waitFor({ timeout: 30000 });
  assert.match(await again.byTestId('bundle-error').textContent(), /pick the folder again/);
  await again.close();
  await close();
});
