// Scenario: a reader has the paper's study open, sets it aside ("Open another study") and opens
// a study or a bundle whose server misbehaves. A proxy in front of `routelens serve` injects each
// fault into one named file under `/fault/<fault>/<file>/…`: a 404, a body cut off mid-way (the
// connection dropped after half the promised bytes), a truncated body (a short but complete
// response) and one altered byte. Each time the page shows an error naming the file, and "Back to
// the study that was open" brings the paper's study back whole, on the view it was left on, with
// its published numbers, without fetching it again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDemoBundle, launchBrowser, missing, startServer, tempDir } from './lib/harness.mjs';

const skip = missing() ?? false;
let server, proxy, proxyUrl, browser, demo;

/** Forwards every request to the server, injecting `fault` into the file named `name`. */
function startFaultProxy(upstream) {
  const handler = async (req, res) => {
    let path = req.url;
    let fault = null;
    const match = path.match(/^\/fault\/([a-z-]+)\/([^/]+)(\/.*)$/);
    if (match) {
      const [, kind, name, rest] = match;
      path = rest;
      if (rest.split('?')[0].endsWith(`/${name}`)) fault = kind;
    }
    const response = await fetch(`${upstream}${path}`, { method: req.method, redirect: 'manual' });
    const headers = Object.fromEntries([...response.headers].filter(([k]) =>
      !['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)));
    // No caching, so each test sees its own fault.
    headers['cache-control'] = 'no-store';
    const body = Buffer.from(await response.arrayBuffer());
    if (fault === '404') {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain' });
      res.end('404 not found (injected)\n');
    } else if (fault === 'cut') {
      res.writeHead(response.status, { ...headers, 'content-length': String(body.length) });
      res.write(body.subarray(0, body.length >> 1));
      setTimeout(() => res.socket.destroy(), 50);
    } else if (fault === 'truncate') {
      const half = body.subarray(0, body.length >> 1);
      res.writeHead(response.status, { ...headers, 'content-length': String(half.length) });
      res.end(half);
    } else if (fault === 'alter') {
      const altered = Buffer.from(body);
      altered[altered.length >> 1] ^= 0x01;
      res.writeHead(response.status, { ...headers, 'content-length': String(altered.length) });
      res.end(altered);
    } else {
      res.writeHead(response.status, { ...headers, 'content-length': String(body.length) });
      res.end(body);
    }
  };
  const listener = http.createServer((req, res) => {
    handler(req, res).catch((err) => { res.writeHead(502); res.end(String(err)); });
  });
  return new Promise((resolve) => listener.listen(0, '127.0.0.1', () => resolve(listener)));
}

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  demo = buildDemoBundle(bundles);
  server = await startServer({ bundles });
  proxy = await startFaultProxy(server.url);
  proxyUrl = `http://127.0.0.1:${proxy.address().port}`;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  proxy?.close();
  server?.stop();
});

const treeAt8 = '[data-testid="table-file-recall"] tr[data-row="tree"] td[data-col="File@8"]';
const LEDGER = 'contextbench-case-ledger.json';
const TREE = 'contextbench-paper-tree.json';

/** A page with the paper's study open at Table 2 (tree File@8 = 0.465, as published), then set
 * aside for the home page; `fetched` counts the archive files the page fetches from then on. */
async function withStudySetAside() {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${proxyUrl}/?study=fastindex&view=table2`);
  await page.locator(treeAt8).waitFor({ timeout: 60000 });
  assert.equal(await page.locator(treeAt8).textContent(), '0.465');
  const byTestId = (id) => page.locator(`[data-testid="${id}"]`);
  await byTestId('study-close').click();
  const fetched = [];
  page.on('request', (request) => {
    if (/^[^?]*\/data\/fastindex\//.test(new URL(request.url()).pathname) && !request.url().includes('/fault/')) {
      fetched.push(request.url());
    }
  });
  return { page, byTestId, fetched, close: () => context.close() };
}

/** "Back to the study that was open": the paper's study again, on Table 2, with its numbers,
 * and not one of its files fetched again. */
async function backToTheStudy(page, byTestId, fetched, what) {
  await byTestId('study-back').click();
  await page.locator(treeAt8).waitFor({ timeout: 30000 });
  assert.equal(await page.locator(treeAt8).textContent(), '0.465', what);
  assert.equal(new URL(page.url()).searchParams.get('study'), 'fastindex', what);
  assert.deepEqual(fetched, [], `${what}: nothing fetched again`);
}

for (const [fault, file, said] of [
  ['404', LEDGER, /contextbench-case-ledger\.json.*404/],
  ['cut', TREE, /contextbench-paper-tree\.json/],
  ['truncate', TREE, /contextbench-paper-tree\.json/],
  ['alter', LEDGER, /contextbench-case-ledger\.json: SHA-256 mismatch/],
]) {
  test(`a study whose ${file} is served ${fault} is refused naming it; the open study comes back whole`, { skip }, async () => {
    const { page, byTestId, fetched, close } = await withStudySetAside();
    await byTestId('study-url').fill(`${proxyUrl}/fault/${fault}/${file}/data/fastindex/`);
    await byTestId('study-url-open').click();
    await byTestId('load-error').waitFor({ timeout: 60000 });
    assert.match(await byTestId('load-error').textContent(), said);
    await backToTheStudy(page, byTestId, fetched, `after the ${fault} study`);
    await close();
  });
}

for (const fault of ['404', 'cut', 'truncate']) {
  test(`a bundle whose manifest.json is served ${fault} is refused naming it; the open study comes back whole`, { skip }, async () => {
    const { page, byTestId, fetched, close } = await withStudySetAside();
    await byTestId('bundle-url').fill(`${proxyUrl}/fault/${fault}/manifest.json/bundles/demo/`);
    await byTestId('bundle-url-open').click();
    await byTestId('bundle-added').waitFor({ timeout: 30000 });
    await byTestId('tab-search').click();
    await byTestId('bundle-error').waitFor({ timeout: 60000 });
    assert.match(await byTestId('bundle-error').textContent(), /manifest\.json/);
    await byTestId('tab-home').click();
    await backToTheStudy(page, byTestId, fetched, `after the ${fault} bundle`);
    await close();
  });
}

test('a bundle whose index base file has one altered byte is refused naming it; the open study comes back whole', { skip }, async () => {
  const manifest = JSON.parse(readFileSync(join(demo, 'manifest.json'), 'utf8'));
  const blob = manifest.split_index.file.split('/').pop();
  const { page, byTestId, fetched, close } = await withStudySetAside();
  await byTestId('bundle-url').fill(`${proxyUrl}/fault/alter/${blob}/bundles/demo/`);
  await byTestId('bundle-url-open').click();
  await byTestId('bundle-added').waitFor({ timeout: 30000 });
  await byTestId('tab-search').click();
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'),
  null, { timeout: 60000 });
  await byTestId('question-select').selectOption('serde_json-float');
  await byTestId('search-run').click();
  await page.waitForFunction((name) => document.body.textContent.includes(name) &&
    /SHA-256 mismatch/.test(document.body.textContent), blob, { timeout: 60000 });
  await byTestId('tab-home').click();
  await backToTheStudy(page, byTestId, fetched, 'after the altered bundle');
  await close();
});
