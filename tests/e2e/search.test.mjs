// Scenario: a developer builds the demo bundle, opens it in the Search view, runs a question of
// its set through every lexical arm in wasm, shares the link (which shows the same results on
// open), opens a hit, adds the arms to the live study and
// exports the results as a TREC run and as a live study with every search, which
// `routelens replay-study` replays offline to the identical arms.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { missing, root, startServer, launchBrowser, buildDemoBundle, screenshot, tempDir } from './lib/harness.mjs';

const skip = missing() || false;
const ARMS = ['fts5', 'fts5-full', 'path-fts5', 'basename', 'rg', 'rg-first500', 'rg-feedback'];
const QUESTION = 'serde_json-float';
let server, browser, page, demo, shared;

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  demo = buildDemoBundle(bundles);
  // A copy whose split index's base file (the manifest's `split_index`) no longer matches its
  // manifest's SHA-256, and one whose every pack no longer matches the base file's.
  const manifest = JSON.parse(readFileSync(join(demo, 'manifest.json'), 'utf8'));
  const damage = (file) => {
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1] ^= 0xff;
    writeFileSync(file, bytes);
  };
  cpSync(demo, join(bundles, 'broken'), { recursive: true });
  damage(join(bundles, 'broken', manifest.split_index.file));
  cpSync(demo, join(bundles, 'broken-packs'), { recursive: true });
  for (const name of readdirSync(join(bundles, 'broken-packs/index'))) {
    if (/\.(postings|positions)\.deflate$/.test(name)) damage(join(bundles, 'broken-packs/index', name));
  }
  server = await startServer({ bundles });
  browser = await launchBrowser();
  page = await browser.newPage();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const byTestId = (id) => page.locator(`[data-testid="${id}"]`);

/** A new page of `context` that opens the demo question in the Search view at `url` and runs every
 * arm, once each column shows a hit; with the question as the page sent it. */
async function searchedIn(context, url) {
  const fresh = await context.newPage();
  await fresh.goto(`${url}/?view=search&bundle=demo&q=${QUESTION}`);
  await fresh.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'));
  const question = await fresh.locator('[data-testid="search-query"]').inputValue();
  await fresh.locator('[data-testid="search-run"]').click();
  await fresh.waitForFunction((count) => {
    const cols = [...document.querySelectorAll('[data-testid="search-column"]')];
    return cols.length === count && cols.every((col) => col.querySelector('[data-testid="search-hit"]'));
  }, ARMS.length, { timeout: 60000 });
  return { page: fresh, question };
}

test('every lexical arm answers a demo question in the browser', { skip }, async () => {
  await page.goto(`${server.url}/`);
  await byTestId('tab-search').click();
  await byTestId('bundle-select').selectOption('demo');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'));
  await byTestId('question-select').selectOption(QUESTION);
  assert.match(await byTestId('search-query').inputValue(), /decimal/);
  await byTestId('search-run').click();
  // The index arms answer first; the rg columns fill in once every chunk is in.
  await page.waitForFunction((count) => {
    const cols = [...document.querySelectorAll('[data-testid="search-column"]')];
    return cols.length === count && cols.every((col) => col.querySelector('[data-testid="search-hit"]'));
  }, ARMS.length, { timeout: 60000 });
  const columns = await page.$$eval('[data-testid="search-column"]', (cols) => cols.map((col) => ({
    arm: col.dataset.arm,
    hits: col.querySelectorAll('[data-testid="search-hit"]').length,
    gold: col.querySelectorAll('[data-testid="search-hit"][data-gold="true"]').length,
    ms: Number(col.querySelector('[data-testid="search-ms"]')?.textContent.replace(' ms', '')),
    recall: col.querySelector('[data-testid="search-recall"]')?.textContent ?? '',
  })));
  console.log(JSON.stringify(columns.map(({ arm, hits, gold, ms, recall }) => ({ arm, hits, gold, ms, recall }))));
  assert.deepEqual(columns.map((c) => c.arm), ARMS);
  for (const column of columns) {
    assert.ok(column.hits > 0, `${column.arm} answered nothing`);
    assert.ok(Number.isFinite(column.ms), `${column.arm} has a query time`);
    assert.match(column.recall, /^recall@8 \d+\/1 = /, column.arm);
  }
  assert.ok(columns.some((c) => c.gold > 0), 'some arm finds the gold file');
  const fused = await byTestId('search-fused').locator('[data-testid="search-hit"]').count();
  assert.ok(fused > 0, 'the fused list is not empty');
  const link = new URL(await byTestId('permalink').getAttribute('href'), server.url);
  assert.equal(link.searchParams.get('view'), 'search');
  assert.equal(link.searchParams.get('bundle'), 'demo');
  assert.equal(link.searchParams.get('q'), QUESTION);
  shared = link.href;
  await screenshot(page, 'search');
});

test('a shared link runs its search on open (at 1,280 px, saved as search-1280.png)', { skip }, async () => {
  const reader = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await reader.goto(shared);
  const fused = reader.locator('[data-testid="search-fused"] [data-testid="search-hit"]');
  await fused.first().waitFor({ timeout: 120000 });
  assert.equal(await reader.locator('[data-testid="search-column"]').count(), ARMS.length);
  assert.ok(await reader.locator('[data-testid="gold-legend"]').count() > 0, 'the ★ is explained');
  await screenshot(reader, 'search-1280');
  await reader.close();
});

test('a hit opens the file with the terms highlighted', { skip }, async () => {
  const hit = page.locator('[data-testid="search-column"][data-arm="fts5"] [data-testid="search-hit-open"]').first();
  const path = await hit.textContent();
  await hit.click();
  const view = byTestId('file-view');
  await view.waitFor();
  assert.equal(await view.getAttribute('data-path'), path);
  assert.ok(await view.locator('mark').count() > 0, 'matched terms are highlighted');
});

test('the run becomes arms of the live study, and exports as TREC', { skip }, async () => {
  await byTestId('search-add-arm').click();
  await page.waitForSelector('[data-testid="table-live-recall"]', { timeout: 120000 });
  const rows = await page.$$eval('[data-testid="table-live-recall"] tbody tr', (trs) => trs.map((tr) => tr.dataset.row));
  for (const arm of [...ARMS, 'fts5+rg']) assert.ok(rows.includes(arm), `${arm} in ${rows}`);

  const [download] = await Promise.all([page.waitForEvent('download'), byTestId('search-export-trec').click()]);
  const path = join(tempDir(), download.suggestedFilename());
  await download.saveAs(path);
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  const fields = lines.map((line) => line.split(' '));
  for (const f of fields) {
    assert.equal(f.length, 6, f.join(' '));
    assert.equal(f[1], 'Q0');
    assert.ok(Number(f[3]) >= 1 && Number.isFinite(Number(f[4])), f.join(' '));
  }
  const qids = new Set(fields.map((f) => f[0]));
  const tags = new Set(fields.map((f) => f[5]));
  assert.ok(qids.has(QUESTION) && qids.size >= 20, `questions: ${qids.size}`);
  for (const arm of [...ARMS, 'fts5+rg']) assert.ok(tags.has(arm), `${arm} in the run`);
});

test('the live study downloads with every search and replays offline to the identical arms', { skip }, async () => {
  const [download] = await Promise.all([page.waitForEvent('download'), byTestId('search-export-study').click()]);
  const path = join(tempDir(), download.suggestedFilename());
  await download.saveAs(path);
  const exported = JSON.parse(readFileSync(path, 'utf8'));
  assert.equal(exported.format, 'routelens-live-study/1');
  assert.equal(exported.bundle.name, 'demo');
  const names = exported.arms.map((arm) => arm.name);
  for (const arm of [...ARMS, 'fts5+rg']) assert.ok(names.includes(arm), `${arm} in ${names}`);
  for (const arm of exported.arms) {
    assert.equal(arm.evidence.length, exported.questions.length, arm.name);
    for (const evidence of arm.evidence) {
      // Each lexical arm keeps its own query time; the fusion is not timed.
      const timed = evidence.search.query_ms;
      assert.ok(arm.name.includes('+') ? timed === null : timed >= 0, `${arm.name}: ${timed}`);
    }
  }
  const out = execFileSync(join(root, 'target/debug/routelens'), ['replay-study', path, demo, '--format', 'json'], { encoding: 'utf8' });
  for (const check of JSON.parse(out)) {
    assert.equal(check.identical, exported.questions.length, JSON.stringify(check));
  }
});

test('the live study opens as the study every view shows, and takes later arms', { skip }, async () => {
  await byTestId('search-open-live').click();
  await page.waitForSelector('[data-testid="table-file-recall"] tbody tr');
  const rows = await page.$$eval('[data-testid="table-file-recall"] tbody tr', (trs) => trs.map((tr) => tr.dataset.row));
  for (const arm of [...ARMS, 'fts5+rg']) assert.ok(rows.includes(arm), `${arm} in Table 2: ${rows}`);
  const link = new URL(page.url());
  assert.equal(link.searchParams.get('study'), 'live:demo');
  assert.equal(link.searchParams.get('view'), 'table2');

  // Back in Search, a new fusion run goes into the open study itself.
  await byTestId('tab-search').click();
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'));
  await byTestId('search-fuse-basename').check();
  // The fused arms are in the permalink.
  await page.waitForFunction(() => /sfuse=fts5\+basename\+rg/.test(location.search));
  await byTestId('search-add-arm').click();
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('added to the open study'),
  null, { timeout: 120000 });
  await byTestId('tab-table2').click();
  await page.waitForSelector('[data-testid="table-file-recall"] tbody tr');
  const after = await page.$$eval('[data-testid="table-file-recall"] tbody tr', (trs) => trs.map((tr) => tr.dataset.row));
  assert.ok(after.includes('fts5+basename+rg'), `the new fusion in Table 2: ${after}`);
  assert.ok(after.includes('fts5+rg'), 'the earlier arms stay');
});

test('the timing panel times every arm over the question set, and cancels', { skip }, async () => {
  await page.goto(`${server.url}/?view=search&bundle=demo`);
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'));
  // routelens serve isolates the page, so the clock is the fine one.
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  await page.locator('[data-testid="search-timing"] summary').click();
  assert.match(await byTestId('search-timing').textContent(), /cross-origin-isolated page \(5 µs\)/);
  const rounds = byTestId('search-timing-rounds');
  await rounds.fill('2');
  await rounds.dispatchEvent('change');
  await byTestId('search-timing-run').click();
  await page.waitForSelector('[data-testid="search-timing-table"]', { timeout: 180000 });
  const rows = await page.$$eval('[data-testid="search-timing-row"]', (trs) => trs.map((tr) => ({
    arm: tr.dataset.arm,
    cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
  })));
  assert.deepEqual(rows.map((row) => row.arm), ARMS);
  const questions = Number(rows[0].cells[4]);
  assert.ok(questions >= 20, `questions: ${questions}`);
  for (const { arm, cells } of rows) {
    const [p50, p95, mean] = cells.slice(1, 4).map(Number);
    assert.ok(p50 > 0 && p50 <= p95, `${arm}: p50 ${p50}, p95 ${p95}`);
    assert.ok(mean > 0, `${arm}: mean ${mean}`);
    assert.equal(Number(cells[4]), questions, `${arm}: every question timed`);
    assert.equal(Number(cells[5]), 2 * questions, `${arm}: two rounds of calls`);
  }

  // A long run stops on Cancel and keeps what it timed.
  await rounds.fill('100');
  await rounds.dispatchEvent('change');
  await byTestId('search-timing-run').click();
  await byTestId('search-timing-progress').waitFor();
  await byTestId('search-timing-cancel').click();
  await byTestId('search-timing-cancelled').waitFor({ timeout: 60000 });
  const partial = await page.$$eval('[data-testid="search-timing-row"]', (trs) => trs.map((tr) => tr.dataset.arm));
  assert.ok(partial.length >= 1 && partial.length < ARMS.length, `arms timed before Cancel: ${partial}`);
  assert.equal(await byTestId('search-run').isDisabled(), false, 'the view is usable again');
});

test('a bundle whose index does not match its manifest is refused, naming the file', { skip }, async () => {
  await page.goto(`${server.url}/?view=search&bundle=broken&q=${QUESTION}`);
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'));
  assert.match(await byTestId('search-query').inputValue(), /decimal/);
  await byTestId('search-run').click();
  const error = byTestId('bundle-error');
  await error.waitFor();
  assert.match(await error.textContent(), /index\/[0-9a-f]{64}\.base\.deflate/);
  assert.equal(await page.locator('[data-testid="search-column"]').count(), 0);
});

test('a pack that does not match the base file is refused, naming the pack', { skip }, async () => {
  await page.goto(`${server.url}/?view=search&bundle=broken-packs&q=${QUESTION}`);
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'));
  await byTestId('search-run').click();
  const error = byTestId('bundle-error');
  await error.waitFor();
  assert.match(await error.textContent(), /index\/[0-9a-f]{64}\.(postings|positions)\.deflate: search index: SHA-256 mismatch/);
});

test('one search fetches of the index exactly what `routelens search` says it reads', { skip }, async () => {
  // A fresh context: nothing cached. The worker's own Resource Timing entries are the bytes it
  // fetched (encoded body sizes: the server sends the stored files as they are).
  const context = await browser.newContext();
  const { page: fresh, question } = await searchedIn(context, server.url);
  const [worker] = fresh.workers();
  assert.ok(worker, 'the live worker started');
  const entries = await worker.evaluate(() => performance.getEntriesByType('resource')
    .filter((e) => e.name.includes('/bundles/demo/'))
    .map((e) => ({ file: e.name.split('/bundles/demo/')[1], bytes: e.encodedBodySize })));
  await context.close();
  const byFile = new Map(entries.map((e) => [e.file, e.bytes]));
  assert.equal(byFile.size, entries.length, `each file fetched once: ${entries.map((e) => e.file)}`);
  const native = JSON.parse(execFileSync(join(root, 'target/debug/routelens'),
    ['search', demo, '--arm', 'all', '--query', question, '--format', 'json'], { encoding: 'utf8' }));
  // What the CLI says the BM25 arms read: the base file and the union of their packs.
  const bm25 = native.filter((r) => ['fts5', 'fts5-full', 'path-fts5'].includes(r.arm));
  const packs = new Set(bm25.flatMap((r) => r.fetched.pack_files ?? []));
  assert.ok(packs.size > 0, 'the question needs packs');
  const fetchedIndex = [...byFile.keys()].filter((f) => f.startsWith('index/'));
  const manifest = JSON.parse(readFileSync(join(demo, 'manifest.json'), 'utf8'));
  assert.deepEqual(fetchedIndex.sort(), [manifest.split_index.file, ...packs].sort(),
    'the worker fetched the base file and exactly the packs the CLI names');
  const size = (f) => statSync(join(demo, f)).size;
  const indexBytes = fetchedIndex.reduce((sum, f) => sum + byFile.get(f), 0);
  assert.equal(indexBytes, bm25[0].fetched.index + [...packs].reduce((sum, f) => sum + size(f), 0),
    'Resource Timing bytes of the index = the CLI\'s base file and packs');
  for (const r of bm25) {
    assert.equal(r.fetched.pack_bytes, r.fetched.pack_files.reduce((sum, f) => sum + size(f), 0), r.arm);
    assert.equal(r.fetched_bytes,
      r.fetched.manifest + r.fetched.file_list + r.fetched.index + r.fetched.pack_bytes, r.arm);
  }
  // Format 6: the file list comes with the manifest, which no longer lists the files.
  assert.ok(!('files' in manifest), 'manifest.json lists no files');
  assert.equal(byFile.get(manifest.file_list.file), native[0].fetched.file_list,
    'the worker fetched the file list the CLI counts');
  const rg = native.find((r) => r.arm === 'rg');
  const chunkBytes = [...byFile.keys()].filter((f) => f.startsWith('chunks/'))
    .reduce((sum, f) => sum + byFile.get(f), 0);
  assert.equal(chunkBytes, rg.fetched.chunks, 'every chunk, as the rg arms read them');
});

test('a merged site\'s bundle reads its files from the shared store and ranks as the bundle did', { skip }, async () => {
  const merged = join(tempDir(), 'merged');
  execFileSync(join(root, 'target/debug/routelens'), ['merge', demo, '--out', merged], { encoding: 'utf8' });
  const second = await startServer({ bundles: merged });
  const context = await browser.newContext();
  try {
    const { page: fresh, question } = await searchedIn(context, second.url);
    const shown = await fresh.locator('[data-testid="search-column"]').evaluateAll((cols) =>
      cols.map((col) => [...col.querySelectorAll('[data-testid="search-hit"]')]
        .map((hit) => hit.getAttribute('data-path'))));
    const [worker] = fresh.workers();
    const fetched = await worker.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.ok(fetched.some((url) => url.includes('/bundles/store/chunks/')), 'chunks from the store');
    assert.ok(fetched.some((url) => url.includes('/bundles/store/index/')), 'packs from the store');
    const native = JSON.parse(execFileSync(join(root, 'target/debug/routelens'),
      ['search', demo, '--arm', 'all', '--query', question, '--format', 'json'], { encoding: 'utf8' }));
    const fts5 = native.find((r) => r.arm === 'fts5').results.map((r) => r.path);
    assert.ok(shown.some((col) => col.length && fts5.slice(0, col.length).join() === col.join()),
      `an fts5 column as the original bundle's: ${JSON.stringify(shown)} vs ${fts5}`);
  } finally {
    await context.close();
    second.stop();
  }
});

test('a merged site in version packs, its index built by the worker, ranks as the bundle did and shows its files', { skip }, async () => {
  const merged = join(tempDir(), 'packed');
  const cli = join(root, 'target/debug/routelens');
  execFileSync(cli, ['merge', demo, '--out', merged, '--versions', '--derive-index', '--level', '3'], { encoding: 'utf8' });
  const manifest = JSON.parse(readFileSync(join(merged, 'demo/manifest.json'), 'utf8'));
  assert.equal(manifest.format_version, 7);
  assert.ok(manifest.derived_index && !manifest.split_index && !manifest.index, 'no index stored');
  const second = await startServer({ bundles: merged });
  const context = await browser.newContext();
  try {
    const { page: fresh, question } = await searchedIn(context, second.url);
    const shown = await fresh.locator('[data-testid="search-column"]').evaluateAll((cols) =>
      cols.map((col) => [col.getAttribute('data-arm'),
        [...col.querySelectorAll('[data-testid="search-hit"]')].map((hit) => hit.getAttribute('data-path'))]));
    const native = JSON.parse(execFileSync(cli,
      ['search', demo, '--arm', 'all', '--query', question, '--k', '1000', '--format', 'json'], { encoding: 'utf8' }));
    assert.equal(shown.length, ARMS.length);
    for (const [arm, paths] of shown) {
      const own = native.find((r) => r.arm === arm).results.map((r) => r.path);
      assert.ok(paths.length > 0, `${arm} shows hits`);
      assert.deepEqual(paths, own.slice(0, paths.length), `${arm} as the original bundle's`);
    }
    const [worker] = fresh.workers();
    const fetched = await worker.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.ok(fetched.some((url) => /\/bundles\/store\/chunks\/[0-9a-f]{64}\.zst$/.test(url)), 'version packs from the store');
    assert.ok(!fetched.some((url) => url.includes('/bundles/store/index/')), 'no index fetched: the worker built it');
    // A hit's file, from its version pack through the worker (the page has no Zstandard).
    const hit = fresh.locator('[data-testid="search-column"][data-arm="fts5"] [data-testid="search-hit-open"]').first();
    const path = await hit.textContent();
    await hit.click();
    const view = fresh.locator('[data-testid="file-view"]');
    await view.waitFor({ timeout: 60000 });
    assert.equal(await view.getAttribute('data-path'), path);
    assert.ok(await view.locator('mark').count() > 0, 'matched terms are highlighted');
    // The same file opened from the original bundle (its DEFLATE chunk, read by the page).
    const { page: original } = await searchedIn(context, server.url);
    await original.locator('[data-testid="search-column"][data-arm="fts5"] [data-testid="search-hit-open"]',
      { hasText: path }).first().click();
    const own = original.locator('[data-testid="file-view"]');
    await own.waitFor({ timeout: 60000 });
    assert.equal(await view.textContent(), await own.textContent(), 'the same text as the bundle\'s own');
  } finally {
    await context.close();
    second.stop();
  }
});
