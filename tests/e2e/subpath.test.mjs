// Scenario: the built app on a plain static host that is not routelens (Python's http.server),
// under a sub-path (`/paper/`, as a GitHub Pages project site): a hand-written studies.json and
// bundles.json with relative bases stand in for what `routelens serve` answers. The reader opens
// the paper's study and reads Table 2, then runs a search over the demo bundle in the live worker;
// no request may leave the sub-path.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { archive, buildDemoBundle, launchBrowser, missing, root, tempDir } from './lib/harness.mjs';

const skip = missing() ?? false;
let httpd, base, browser, page;
const requested = [];

/** Python's static server on a free loopback port; resolves to its URL once it says the port. */
function startStaticServer(dir) {
  const child = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolvePromise, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`http.server did not start: ${seen}`)), 20000);
    const onData = (chunk) => {
      seen += chunk;
      const match = seen.match(/port (\d+)/);
      if (match) {
        clearTimeout(timer);
        resolvePromise({ url: `http://127.0.0.1:${match[1]}`, stop: () => child.kill() });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`http.server exited with ${code}: ${seen}`)));
  });
}

before(async () => {
  if (skip) return;
  const site = tempDir();
  const paper = join(site, 'paper');
  cpSync(join(root, 'dist'), paper, { recursive: true });
  mkdirSync(join(paper, 'data'), { recursive: true });
  symlinkSync(archive, join(paper, 'data/fastindex'));
  mkdirSync(join(paper, 'bundles'));
  const demo = buildDemoBundle(join(paper, 'bundles'));
  const questions = existsSync(join(demo, 'questions.jsonl')) ? 'bundles/demo/questions.jsonl' : null;
  assert.ok(questions, 'the demo bundle carries its question set');
  writeFileSync(join(paper, 'studies.json'), JSON.stringify([
    { id: 'fastindex', title: 'fastindex', base: 'data/fastindex' },
  ]));
  writeFileSync(join(paper, 'bundles.json'), JSON.stringify([
    { name: 'demo', base: 'bundles/demo', questions },
  ]));
  httpd = await startStaticServer(site);
  base = `${httpd.url}/paper/`;
  browser = await launchBrowser();
  page = await browser.newPage();
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
});
after(async () => {
  await browser?.close();
  httpd?.stop();
});

const byTestId = (id) => page.locator(`[data-testid="${id}"]`);

test('under a sub-path on a plain static host, Table 2 and a live search work', { skip }, async () => {
  await page.goto(`${base}?study=fastindex&view=table2`);
  const tree = page.locator('[data-testid="table-file-recall"] tr[data-row="tree"] td[data-col="File@8"]');
  await tree.waitFor({ timeout: 60000 });
  assert.equal(await tree.textContent(), '0.465');

  await byTestId('tab-search').click();
  await byTestId('bundle-select').selectOption('demo');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'),
  null, { timeout: 60000 });
  await byTestId('question-select').selectOption('serde_json-float');
  await byTestId('search-run').click();
  await page.waitForSelector('[data-testid="search-column"][data-arm="rg"] [data-testid="search-hit"]',
    { timeout: 120000 });

  assert.ok(requested.some((path) => path.endsWith('routelens-worker_bg.wasm')), 'the worker ran');
  const outside = requested.filter((path) => !path.startsWith('/paper/'));
  assert.deepEqual(outside, [], 'every request stays under the sub-path');
});
