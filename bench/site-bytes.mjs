// The bytes a reader's browser receives on a published site against the same app behind
// `routelens serve`: before the first table (the paper's study, Table 2) and before the first
// search result (the demo bundle, one question, every arm). Publishes the paper's study and the
// demo bundle with `routelens publish`, serves the site with Python's http.server under /paper/,
// and serves the same dist, archive and bundle with `routelens serve`; a fresh browser context
// (nothing cached) each time. Bytes are response bodies as received (neither server compresses).
// Usage: node bench/site-bytes.mjs [dist-folder]   (default: dist; build it with trunk --release)
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { archive, buildDemoBundle, launchBrowser, root, startCli, startStaticServer, tempDir } from '../tests/e2e/lib/harness.mjs';

const dist = resolve(process.argv[2] ?? 'dist');
const cli = join(root, 'target/debug/routelens');
const work = tempDir();
const bundles = join(work, 'bundles');
const demo = buildDemoBundle(bundles);
const site = join(work, 'www', 'paper');
const published = spawnSync(cli, ['publish', '--out', site, '--dist', dist, '--study', archive, '--bundle', demo,
  '--base-path', '/paper/'], { encoding: 'utf8' });
if (published.status !== 0) throw new Error(published.stderr);
console.log(published.stdout.trim());

async function measure(browser, base) {
  const context = await browser.newContext();
  const page = await context.newPage();
  // Every body's length, awaited before a total is read (bodies arrive after their responses).
  const bodies = [];
  page.on('response', (response) => {
    bodies.push(response.body().then((body) => body.length, () => 0));
  });
  const total = async () => ({
    bytes: (await Promise.all(bodies)).reduce((sum, n) => sum + n, 0),
    requests: bodies.length,
  });
  await page.goto(`${base}?study=fastindex&view=table2`);
  await page.locator('[data-testid="table-file-recall"] tbody tr').first().waitFor({ timeout: 120000 });
  await page.waitForLoadState('networkidle');
  const table = await total();
  await page.locator('[data-testid="tab-search"]').click();
  await page.locator('[data-testid="bundle-select"]').selectOption('demo');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'),
  null, { timeout: 60000 });
  await page.locator('[data-testid="question-select"]').selectOption('serde_json-float');
  await page.locator('[data-testid="search-run"]').click();
  await page.waitForSelector('[data-testid="search-column"][data-arm="rg"] [data-testid="search-hit"]',
    { timeout: 120000 });
  await page.waitForLoadState('networkidle');
  const search = await total();
  await context.close();
  return { table, search };
}

const httpd = await startStaticServer(join(work, 'www'));
const server = await startCli(['serve', '--port', '0', '--dist', dist, '--data', archive, '--bundles', bundles]);
const browser = await launchBrowser();
try {
  for (const [name, base] of [['published', `${httpd.url}/paper/`], ['served', `${server.url}/`]]) {
    const { table, search } = await measure(browser, base);
    console.log(`${name}: before_first_table_bytes=${table.bytes} (${table.requests} responses) `
      + `before_first_search_result_bytes=${search.bytes} (${search.requests} responses)`);
  }
} finally {
  await browser.close();
  httpd.stop();
  server.stop();
}
