// Scripted browser measurement of chunk retrieval in headless Chromium, through the app's views:
//   - chunk search (the Chunks view): every question of the demo bundle's set searched RUNS
//     times per chunking; a query's time is the worker's performance.now() around the engine
//     call (cross-origin isolated under routelens serve: 5 µs); per chunking, the median of each
//     question's runs, then p50/p95 over the questions — the method of `routelens search
//     --unit chunk --queries`;
//   - pool building in the Rerank view: every question, the offline planner's grep pool and the
//     BM25 pool with no reranker, each question's time the worker's around both stages (the
//     article's local grep-plus-extraction p50: 33 ms), and the first question's apart (the
//     texts' term counts and trigram index made first); each round twice: clicked question by
//     question (the worker idle between them while the script reads the result and clicks
//     again), and the whole set back to back as the view's "Add as arm" runs it;
//   - the Evaluate view's whole grid (every chunking, no cap and --cap 2, 10,000 resamples), its
//     time as the page reports it (fetching the questions and every step), and the time until
//     the report shows, chunkings' loading included;
//   - with DENSE=1 (a bundle with structural vectors): typed dense and hybrid questions over the
//     structural chunking (each question with " in this code" added, so the bundle stores no
//     vector for it and the worker embeds it), the caption's time (embedding and ranking);
//     the model's load from the browser's cache (a new page, so a new worker: click to caption
//     of the first typed question, less that question's own p50); and the grid over the three
//     CodeAtlas chunkings (GRID_CHUNKERS to choose) with every retriever and cap 1.
//   - next to each pool, the same pools natively in the same run (NATIVE, default
//     target/release/routelens), round by round with the page's, and the page's p50 as a
//     multiple of the native one, like for like: idling slows the next question on both sides
//     (docs/benchmarks.md, step 17), so the page back to back is set against `routelens rerank`
//     back to back, and the page clicked against `routelens rerank --pause-ms GAP`, GAP the
//     round's wall time less the worker's, per clicked question (an upper bound on the
//     worker's idle time between clicks).
// Usage: [DENSE=1] [ONLY_POOLS=1] node bench/chunks-browser.mjs [dist-folder] [bundles-folder] [runs] [bundle]
//   defaults: dist, target/bundles, 3 runs, bundle `demo`
// CHROMIUM_ARGS: more switches for Chromium, split at white space (e.g. `--js-flags=--no-liftoff`,
// to see whether V8's baseline compiler is still running any of the worker's code); split so, a
// `--js-flags=` switch carries one V8 flag.
// Build first: trunk build index.html --release; cargo build -p routelens;
// routelens demo --out target/bundles/demo.
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { launchBrowser, root, startCli } from '../tests/e2e/lib/harness.mjs';

const dist = resolve(process.argv[2] ?? 'dist');
const bundles = resolve(process.argv[3] ?? resolve(root, 'target/bundles'));
const runs = Number(process.argv[4] ?? '3');
const name = process.argv[5] ?? 'demo';
// The native peer of the pools' timing (a release build: `cargo build --release -p routelens`).
const cli = resolve(process.env.NATIVE ?? resolve(root, 'target/release/routelens'));
const set = readFileSync(resolve(bundles, name, 'questions.jsonl'), 'utf8')
  .split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line))
  .filter((q) => q.question);
const questions = set.map((q) => q.question);

const percentile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

const server = await startCli(['serve', '--port', '0', '--dist', dist, '--bundles', bundles]);
const browser = await launchBrowser((process.env.CHROMIUM_ARGS ?? '').split(/\s+/).filter(Boolean));

/**
 * Run in the page before the app (`addInitScript`): every rerank answer's time from the live
 * worker (the `ms` the view shows, to 0.1 ms, under a clicked run: the worker's clock around
 * both stages), in full, pushed onto `window.workerTimes`; a run of the whole set ("Add as arm")
 * shows no time per question. Each answer is a JSON string `{"id":…,"body":{"reranked":{…,
 * "ms":…}}}`: only its start and end are read, so that parsing a hundred candidates' texts does
 * not lengthen the gaps between questions.
 */
function recordWorkerTimes() {
  window.workerTimes = [];
  const Native = window.Worker;
  window.Worker = function Worker(...args) {
    const worker = new Native(...args);
    worker.addEventListener('message', (event) => {
      if (typeof event.data !== 'string' || !/^\{"id":\d+,"body":\{"reranked":/.test(event.data)) return;
      const ms = event.data.slice(event.data.lastIndexOf('"ms":')).match(/^"ms":([-\d.eE+]+)\}\}\}$/);
      if (ms) window.workerTimes.push(Number(ms[1]));
    });
    return worker;
  };
  window.Worker.prototype = Native.prototype;
}

/** Searches `question` in the Chunks view of `page`; the caption's ms and the wall ms. */
async function timedSearch(page, question) {
  await page.locator('[data-testid="chunks-query"]').fill(question);
  await page.locator('[data-testid="chunks-query"]').dispatchEvent('change');
  const previous = await page.locator('[data-testid="chunks-search-caption"]').textContent({ timeout: 50 }).catch(() => null);
  const started = Date.now();
  await page.locator('[data-testid="chunks-search"]').click();
  await page.waitForFunction((prev) => {
    const c = document.querySelector('[data-testid="chunks-search-caption"]');
    const failed = document.querySelector('[data-testid="chunks-search-error"]');
    return failed || (c && !document.querySelector('[data-testid="chunks-search-progress"]') && c.textContent !== prev);
  }, previous, { timeout: 300000 });
  const failed = await page.locator('[data-testid="chunks-search-error"]').count();
  if (failed) throw new Error(await page.locator('[data-testid="chunks-search-error"]').textContent());
  const caption = await page.locator('[data-testid="chunks-search-caption"]').textContent();
  return { ms: Number(caption.match(/in ([\d.]+) ms/)[1]), wall: Date.now() - started };
}

async function dense() {
  const typed = questions.slice(0, 12).map((q) => `${q} in this code`);
  // One browser context for every page, so that they share the Cache API (each of
  // `browser.newPage()`'s pages has a context, and a cache, of its own).
  const context = await browser.newContext();
  const open = async (retriever) => {
    const page = await context.newPage();
    // Every progress line the Chunks view shows, with the page's clock, to time the model's
    // load by the worker's own steps (read from the cache and hashed, then started).
    await page.addInitScript(() => {
      window.progressLines = [];
      new MutationObserver(() => {
        const p = document.querySelector('[data-testid="chunks-search-progress"]');
        const text = p?.textContent;
        const last = window.progressLines.at(-1);
        if (text && (!last || last.text !== text)) window.progressLines.push({ at: performance.now(), text });
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.goto(`${server.url}/?view=chunks&bundle=${name}&chunker=structural&retriever=${retriever}`);
    await page.locator('[data-testid="chunks-chunker"] option[value="structural"]')
      .waitFor({ state: 'attached', timeout: 60000 });
    return page;
  };
  // Fetches the model into the browser's cache.
  const first = await open('dense');
  const fetched = await timedSearch(first, typed[0]);
  console.log(`typed dense, first ever (model fetched, vectors fetched): ${fetched.wall} ms click to caption`);
  await first.close();
  for (const retriever of ['dense', 'hybrid']) {
    const page = await open(retriever);
    // The chunking and its vectors first, by a question the bundle stores (no model); then a
    // typed question loads the model from the browser's cache.
    await timedSearch(page, questions[0]);
    await page.evaluate(() => { window.progressLines = []; });
    const cold = await timedSearch(page, typed[0]);
    const lines = await page.evaluate(() => window.progressLines);
    const loaded = lines.map((l) => l.text.match(/model is loaded \((\d+) ms\)/)).find(Boolean);
    if (lines.length) {
      const t0 = lines[0].at;
      console.log(`  ${retriever}: the worker's steps (ms after the first): `
        + lines.map((l) => `${(l.at - t0).toFixed(0)} ${l.text.replace(/fetching |the embedding model's /g, '').slice(0, 40)}`).join('; '));
    }
    if (loaded) console.log(`  ${retriever}: the worker says the model loaded in ${loaded[1]} ms`);
    const times = [];
    for (const question of typed) {
      const each = [];
      for (let run = 0; run < runs; run++) each.push((await timedSearch(page, question)).ms);
      times.push(percentile(each, 0.5));
    }
    const p50 = percentile(times, 0.5);
    console.log(`typed ${retriever} over structural: p50 ${p50.toFixed(1)} ms, p95 `
      + `${percentile(times, 0.95).toFixed(1)} ms over ${typed.length} questions × ${runs} runs; `
      + `a new worker's first typed question: ${cold.wall} ms click to caption, so the model's `
      + `load from the browser's cache took about ${(cold.wall - p50).toFixed(0)} ms`);
    await page.close();
  }
  const grid = await browser.newPage();
  for (let run = 0; run < 2; run++) {
    // The second run in the same page: the chunkings and vectors are loaded.
    if (run === 0) {
      await grid.goto(`${server.url}/?view=evaluate&bundle=${name}&chunkers=${process.env.GRID_CHUNKERS ?? 'structural,structural-unmerged,window'}&caps=1`);
      await grid.locator('[data-testid="evaluate-chunker-window"]').waitFor({ timeout: 60000 });
    } else {
      await grid.locator('[data-testid="evaluate-seed"]').fill('1');
      await grid.locator('[data-testid="evaluate-seed"]').dispatchEvent('change');
    }
    const before = await grid.locator('[data-testid="evaluate-summary"]').textContent({ timeout: 50 }).catch(() => null);
    // The worker's progress lines (painted every 50 ms) with the page's clock: where the time goes.
    await grid.evaluate(() => {
      window.gridLines = [];
      window.gridObserver?.disconnect();
      window.gridObserver = new MutationObserver(() => {
        const text = document.querySelector('[data-testid="evaluate-progress"]')?.textContent;
        if (text && window.gridLines.at(-1)?.text !== text) window.gridLines.push({ at: performance.now(), text });
      });
      window.gridObserver.observe(document, { subtree: true, childList: true, characterData: true });
    });
    const started = Date.now();
    await grid.locator('[data-testid="evaluate-run"]').click();
    await grid.waitForFunction((prev) => {
      const s = document.querySelector('[data-testid="evaluate-summary"]');
      return s && s.textContent !== prev;
    }, before, { timeout: 600000 });
    const text = await grid.locator('[data-testid="evaluate-summary"]').textContent();
    console.log(`grid, every retriever, cap 1 (run ${run + 1}): ${text.match(/ran in (\d+) ms/)[1]} ms in the worker, `
      + `${Date.now() - started} ms click to report; ${text.split(';')[0]}`);
    const lines = await grid.evaluate(() => window.gridLines);
    if (lines.length) {
      console.log(`  progress (ms after the first line): ${lines.map((l) => `${(l.at - lines[0].at).toFixed(0)} ${l.text.slice(0, 60)}`).join(' | ')}`);
    }
  }
  await grid.close();
}

try {
  if (process.env.DENSE === '1') {
    await dense();
  }
  // ONLY_DENSE=1 leaves out the BM25 query, the pools and the BM25 grid; ONLY_POOLS=1 keeps
  // the pools alone.
  const onlyPools = process.env.ONLY_POOLS === '1';
  if (process.env.ONLY_DENSE !== '1') {
    const page = await browser.newPage();
    for (const chunker of onlyPools ? [] : ['structural', 'structural-unmerged', 'window']) {
      await page.goto(`${server.url}/?view=chunks&bundle=${name}&chunker=${chunker}`);
      await page.locator(`[data-testid="chunks-chunker"] option[value="${chunker}"]`)
        .waitFor({ state: 'attached', timeout: 60000 });
      const perQuestion = [];
      for (const question of questions) {
        const times = [];
        for (let run = 0; run < runs; run++) {
          await page.locator('[data-testid="chunks-query"]').fill(question);
          await page.locator('[data-testid="chunks-query"]').dispatchEvent('change');
          const previous = await page.locator('[data-testid="chunks-search-caption"]').textContent({ timeout: 50 }).catch(() => null);
          await page.locator('[data-testid="chunks-search"]').click();
          await page.waitForFunction((prev) => {
            const c = document.querySelector('[data-testid="chunks-search-caption"]');
            return c && !document.querySelector('[data-testid="chunks-search-progress"]') && c.textContent !== prev;
          }, previous, { timeout: 120000 }).catch(() => {});
          const caption = await page.locator('[data-testid="chunks-search-caption"]').textContent();
          times.push(Number(caption.match(/in ([\d.]+) ms/)[1]));
        }
        perQuestion.push(percentile(times, 0.5));
      }
      console.log(`chunk_query ${chunker}: p50 ${percentile(perQuestion, 0.5).toFixed(3)} ms, `
        + `p95 ${percentile(perQuestion, 0.95).toFixed(3)} ms over ${perQuestion.length} questions`);
    }
    for (const pool of ['grep', 'bm25']) {
      const clicked = [];
      const batched = [];
      const native = [];
      const paused = [];
      const gaps = [];
      const rerank = await browser.newPage();
      await rerank.addInitScript(recordWorkerTimes);
      await rerank.goto(`${server.url}/?view=rerank&bundle=${name}&pool=${pool}&reranker=none&q=${encodeURIComponent(set[0].id)}`);
      await rerank.locator(`[data-testid="rerank-question-select"] option[value="${set[0].id}"]`)
        .waitFor({ state: 'attached', timeout: 60000 });
      // The worker's times since `from`, which must be one per question of the set.
      const timesSince = async (from, what) => {
        const got = await rerank.evaluate((at) => window.workerTimes.slice(at), from);
        if (got.length !== set.length) throw new Error(`${what}: ${got.length} rerank answers for ${set.length} questions`);
        return got;
      };
      // Rounds, each every question once in the page clicked one by one, then the whole set in
      // the page as "Add as arm" runs it (back to back, as the CLI does), then natively back to
      // back and natively idle before each question as long as the page was between clicks, so
      // that all four see the same order of questions and whatever else the machine is doing
      // at the time; the first round (the page's texts loaded, its terms counted) is left out.
      for (let round = 0; round <= runs; round++) {
        const first = await rerank.evaluate(() => window.workerTimes.length);
        const started = performance.now();
        for (const q of set) {
          await rerank.locator('[data-testid="rerank-question-select"]').selectOption(q.id);
          // The result shown is marked stale; the next one is a new element.
          await rerank.evaluate(() => document.querySelector('[data-testid="rerank-result"]')?.setAttribute('data-stale', '1'));
          await rerank.locator('[data-testid="rerank-run"]').click();
          const fresh = rerank.locator('[data-testid="rerank-result"]:not([data-stale]) [data-testid="rerank-summary"]');
          await fresh.waitFor({ timeout: 120000 });
        }
        const wall = performance.now() - started;
        const each = await timesSince(first, 'clicked');
        if (round === 0) console.log(`${pool} pool, the page's first question: ${each[0].toFixed(1)} ms (the texts' term counts and trigram index made first)`);
        // How long the worker was not running a pool between clicked questions, on average: an
        // upper bound on its idle time (the untimed round trip that loads the chunking and the
        // answer's writing are in it, as are the script's reading and clicking).
        const gap = Math.max(0, Math.round((wall - each.reduce((a, b) => a + b, 0)) / set.length));
        const before = await rerank.evaluate(() => window.workerTimes.length);
        await rerank.locator('[data-testid="rerank-add-arm"]').click();
        await rerank.waitForFunction((until) => window.workerTimes.length >= until
          || document.querySelector('[data-testid="rerank-error"]'), before + set.length, { timeout: 600000, polling: 200 });
        await rerank.locator('[data-testid="rerank-add-arm"]:not([disabled])').waitFor({ timeout: 60000 });
        const failed = await rerank.locator('[data-testid="rerank-error"]').count();
        if (failed) throw new Error(`Add as arm: ${await rerank.locator('[data-testid="rerank-error"]').textContent()}`);
        const together = await timesSince(before, 'Add as arm');
        // The same pools natively, as `routelens rerank` times each question (the bundle
        // opened and the texts' term counts made first, as in the page).
        const nativeRun = (pause) => JSON.parse(execFileSync(cli, ['rerank', resolve(bundles, name),
          '--questions', resolve(bundles, name, 'questions.jsonl'), '--route', pool,
          '--reranker', 'none', '--pause-ms', String(pause), '--format', 'json'],
        { maxBuffer: 1 << 28 })).questions.map((q) => q.ms);
        const alone = nativeRun(0);
        const idle = nativeRun(gap);
        if (round > 0) {
          clicked.push(...each);
          batched.push(...together);
          native.push(...alone);
          paused.push(...idle);
          gaps.push(gap);
        }
      }
      await rerank.close();
      const p50 = (values) => percentile(values, 0.5);
      const shown = (values) => `p50 ${p50(values).toFixed(2)} ms, p95 ${percentile(values, 0.95).toFixed(2)} ms`;
      console.log(`${pool} pool (no reranker), ${set.length} questions × ${runs} rounds:`);
      console.log(`  the page, the whole set back to back (Add as arm): ${shown(batched)}`);
      console.log(`  natively, back to back (${cli}): ${shown(native)}; `
        + `the page back to back ${(p50(batched) / p50(native)).toFixed(2)}× native`);
      console.log(`  the page, clicked question by question: ${shown(clicked)}`);
      console.log(`  natively, ${gaps.join('/')} ms idle before each question (the page's mean gap between `
        + `clicked questions, per round): ${shown(paused)}; the page clicked ${(p50(clicked) / p50(paused)).toFixed(2)}× native `
        + `(${(p50(clicked) / p50(native)).toFixed(2)}× native back to back)`);
    }
    for (const caps of onlyPools ? [] : ['', '&caps=2']) {
      const fresh = await browser.newPage();
      await fresh.goto(`${server.url}/?view=evaluate&bundle=${name}${caps}`);
      await fresh.locator('[data-testid="evaluate-chunker-window"]').waitFor({ timeout: 60000 });
      const started = Date.now();
      await fresh.locator('[data-testid="evaluate-run"]').click();
      const summary = fresh.locator('[data-testid="evaluate-summary"]');
      await summary.waitFor({ timeout: 600000 });
      const text = await summary.textContent();
      console.log(`grid${caps || ' (no cap)'}: ${text.match(/ran in (\d+) ms/)[1]} ms in the worker, `
        + `${Date.now() - started} ms click to report (chunkings loaded on the first run); ${text.split(';')[0]}`);
      await fresh.close();
    }
  }
} finally {
  await browser.close();
  server.stop();
}
