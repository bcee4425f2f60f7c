// Scripted browser measurement of the cross-encoder in headless Chromium, through the Rerank
// view: one question of the fixture bundle (its BM25 pool over the unmerged structural chunks),
// reranked by the cross-encoder shown `path :: name` then each chunk's lines, RUNS times after one
// run that loads the model; each run's time is the worker's around both stages, less the median
// of the same pool with no reranker. Per pair, then per question of CodeAtlas's 30 pairs.
// Usage: node bench/cross-encoder-browser.mjs [model-folder] [runs]
//   defaults: tests/cross_encoder/tiny, 5 runs. A model of the real reranker's shape:
//   target/st-venv/bin/python bench/cross_encoder_shape.py, then target/bench/ce-minilm-shape.
// Build first: trunk build index.html --release; cargo build -p routelens.
import { resolve, join } from 'node:path';
import { cpSync } from 'node:fs';
import { launchBrowser, root, startServer, tempDir } from '../tests/e2e/lib/harness.mjs';

const model = resolve(process.argv[2] ?? join(root, 'tests/cross_encoder/tiny'));
const runs = Number(process.argv[3] ?? '5');
const bundles = tempDir();
cpSync(join(root, 'bundler/tests/fixtures/repo.bundle'), join(bundles, 'repo'), { recursive: true });
cpSync(join(root, 'bundler/tests/fixtures/eval-questions.jsonl'), join(bundles, 'repo/questions.jsonl'));
const server = await startServer({ bundles, args: ['--reranker-model', model] });
const browser = await launchBrowser();

/** The Rerank view's run of question `evict` with `reranker`, `times` runs: each's ms and pool. */
async function timed(reranker, times) {
  const page = await browser.newPage();
  await page.goto(`${server.url}/?view=rerank&bundle=repo&q=evict&chunker=structural-unmerged&reranker=${reranker}`);
  await page.waitForFunction(() => document.querySelector('[data-testid="rerank-query"]')?.value.length > 0,
    null, { timeout: 60000 });
  const out = [];
  for (let i = 0; i < times; i += 1) {
    await page.locator('[data-testid="rerank-run"]').click();
    await page.waitForFunction(() => !document.querySelector('[data-testid="rerank-progress"]')
      && document.querySelector('[data-testid="rerank-summary"], [data-testid="rerank-error"]'), null, { timeout: 600000 });
    const error = page.locator('[data-testid="rerank-error"]');
    if (await error.count()) throw new Error(await error.textContent());
    const summary = await page.locator('[data-testid="rerank-summary"]').first().textContent();
    const [, pool, ms] = summary.match(/pool of (\d+), reranked by \S+ in ([\d.]+) ms/);
    out.push({ pool: Number(pool), ms: Number(ms) });
  }
  await page.close();
  return out;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const none = median((await timed('none', runs)).map((r) => r.ms));
const scored = (await timed('cross-encoder:prefixed', runs + 1)).slice(1);
const perPair = (median(scored.map((r) => r.ms)) - none) / scored[0].pool;
console.log(`model ${model}`);
console.log(`pool of ${scored[0].pool}: no reranker ${none.toFixed(1)} ms, cross-encoder `
  + `${median(scored.map((r) => r.ms)).toFixed(1)} ms (median of ${runs})`);
console.log(`per pair ${perPair.toFixed(2)} ms; 30 pairs (one question of CodeAtlas's) ${(30 * perPair).toFixed(0)} ms`);
await browser.close();
server.stop();
