// Scripted browser measurement of chunk retrieval in headless Chromium, through the app's views:
//   - chunk search (the Chunks view): every question of the demo bundle's set searched RUNS
//     times per chunking; a query's time is the worker's performance.now() around the engine
//     call (cross-origin isolated under routelens serve: 5 µs); per chunking, the median of each
//     question's runs, then p50/p95 over the questions — the method of `routelens search
//     --unit chunk --queries`;
//   - pool building in the Rerank view: every question, the offline planner's grep pool and the
//     BM25 pool with no reranker, each question's time the worker's around both stages (the
//     article's local grep-plus-extraction p50: 33 ms);
//   - the Evaluate view's whole grid (every chunking, no cap and --cap 2, 10,000 resamples), its
//     time as the page reports it (fetching the questions and every step), and the time until
//     the report shows, chunkings' loading included.
// Usage: node bench/chunks-browser.mjs [dist-folder] [bundles-folder] [runs]
//   defaults: dist, target/bundles (holding `demo`), 3 runs
// Build first: trunk build index.html --release; cargo build -p routelens;
// routelens demo --out target/bundles/demo.
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { launchBrowser, root, startCli } from '../tests/e2e/lib/harness.mjs';

const dist = resolve(process.argv[2] ?? 'dist');
const bundles = resolve(process.argv[3] ?? resolve(root, 'target/bundles'));
const runs = Number(process.argv[4] ?? '3');
const set = readFileSync(resolve(bundles, 'demo/questions.jsonl'), 'utf8')
  .split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line))
  .filter((q) => q.question);
const questions = set.map((q) => q.question);

const percentile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

const server = await startCli(['serve', '--port', '0', '--dist', dist, '--bundles', bundles]);
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  for (const chunker of ['structural', 'structural-unmerged', 'window']) {
    await page.goto(`${server.url}/?view=chunks&bundle=demo&chunker=${chunker}`);
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
    const times = [];
    const rerank = await browser.newPage();
    await rerank.goto(`${server.url}/?view=rerank&bundle=demo&pool=${pool}&reranker=none&q=${encodeURIComponent(set[0].id)}`);
    await rerank.locator(`[data-testid="rerank-question-select"] option[value="${set[0].id}"]`)
      .waitFor({ state: 'attached', timeout: 60000 });
    for (const q of set) {
      await rerank.locator('[data-testid="rerank-question-select"]').selectOption(q.id);
      for (let run = 0; run <= runs; run++) {
        // The result shown is marked stale; the next one is a new element.
        await rerank.evaluate(() => document.querySelector('[data-testid="rerank-result"]')?.setAttribute('data-stale', '1'));
        await rerank.locator('[data-testid="rerank-run"]').click();
        const fresh = rerank.locator('[data-testid="rerank-result"]:not([data-stale]) [data-testid="rerank-summary"]');
        await fresh.waitFor({ timeout: 120000 });
        const text = await fresh.textContent();
        // The first run of the first question also loads the texts and counts terms: left out.
        if (run > 0) times.push(Number(text.match(/in ([\d.]+) ms/)[1]));
      }
    }
    console.log(`${pool} pool (no reranker): p50 ${percentile(times, 0.5).toFixed(1)} ms, `
      + `p95 ${percentile(times, 0.95).toFixed(1)} ms over ${set.length} questions × ${runs} runs`);
    await rerank.close();
  }
  for (const caps of ['', '&caps=2']) {
    const fresh = await browser.newPage();
    await fresh.goto(`${server.url}/?view=evaluate&bundle=demo${caps}`);
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
} finally {
  await browser.close();
  server.stop();
}
