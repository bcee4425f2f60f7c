// Where the live worker's time goes, by function: the Evaluate view's grid run in headless
// Chromium with V8's sampling profiler on (`--js-flags=--prof`, one log per process), the logs
// then read by `node --prof-process`. The worker keeps its function names, so the profile names
// the engine's functions (the page's module has none: its name section is cut out). Profiling
// slows the run; compare profiles with each other, and times with bench/chunks-browser.mjs.
// Usage: [PROFILE=grep-pool] node bench/profile-worker.mjs [dist] [bundles] [bundle] [runs] [top]
//   defaults: dist, target/bundles, demo-dense, 3 runs, the top 25 functions
// The grid: every chunking the bundle has vectors for (GRID_CHUNKERS to choose), every
// retriever, cap 1, 10,000 resamples; each run after the first changes the seed.
// KEEP_REPORT=PREFIX also writes each log's whole report, with its bottom-up profile (who
// called each function), to PREFIX-<log>.txt.
// With PROFILE=grep-pool, the Rerank view instead: the offline planner's grep pool with no
// reranker for every question of the bundle's set, `runs` times (bundle `demo` by default).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchBrowser, root, startCli } from '../tests/e2e/lib/harness.mjs';

const dist = resolve(process.argv[2] ?? 'dist');
const bundles = resolve(process.argv[3] ?? resolve(root, 'target/bundles'));
const grepPool = process.env.PROFILE === 'grep-pool';
const name = process.argv[4] ?? (grepPool ? 'demo' : 'demo-dense');
const runs = Number(process.argv[5] ?? '3');
const top = Number(process.argv[6] ?? '25');
const chunkers = process.env.GRID_CHUNKERS ?? 'structural,structural-unmerged,window';
const logs = mkdtempSync(join(tmpdir(), 'routelens-prof-'));

const server = await startCli(['serve', '--port', '0', '--dist', dist, '--bundles', bundles]);
const browser = await launchBrowser([`--js-flags=--prof --logfile=${logs}/v8-%p.log --no-logfile-per-isolate`]);
try {
  if (grepPool) {
    await rerankPools();
  } else {
    await grids();
  }
} finally {
  await browser.close();
  server.stop();
}

/** Every question's grep pool in the Rerank view, `runs` times. */
async function rerankPools() {
  const set = readFileSync(resolve(bundles, name, 'questions.jsonl'), 'utf8')
    .split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line)).filter((q) => q.question);
  const page = await browser.newPage();
  await page.goto(`${server.url}/?view=rerank&bundle=${name}&pool=grep&reranker=none&q=${encodeURIComponent(set[0].id)}`);
  const select = page.locator('[data-testid="rerank-question-select"]');
  await select.locator(`option[value="${set[0].id}"]`).waitFor({ state: 'attached', timeout: 60000 });
  for (let run = 0; run < runs; run++) {
    for (const q of set) {
      await select.selectOption(q.id);
      await page.evaluate(() => document.querySelector('[data-testid="rerank-result"]')?.setAttribute('data-stale', '1'));
      await page.locator('[data-testid="rerank-run"]').click();
      await page.locator('[data-testid="rerank-result"]:not([data-stale]) [data-testid="rerank-summary"]')
        .waitFor({ timeout: 120000 });
    }
    console.log(`run ${run + 1}: ${set.length} grep pools (profiled)`);
  }
}

/** The Evaluate grid, `runs` times. */
async function grids() {
  const page = await browser.newPage();
  await page.goto(`${server.url}/?view=evaluate&bundle=${name}&chunkers=${chunkers}&caps=1`);
  await page.locator('[data-testid="evaluate-run"]').waitFor({ timeout: 60000 });
  for (let run = 0; run < runs; run++) {
    if (run > 0) {
      await page.locator('[data-testid="evaluate-seed"]').fill(String(run));
      await page.locator('[data-testid="evaluate-seed"]').dispatchEvent('change');
    }
    const before = await page.locator('[data-testid="evaluate-summary"]').textContent({ timeout: 50 }).catch(() => null);
    await page.locator('[data-testid="evaluate-run"]').click();
    await page.waitForFunction((prev) => {
      const s = document.querySelector('[data-testid="evaluate-summary"]');
      return s && s.textContent !== prev;
    }, before, { timeout: 600000 });
    const summary = await page.locator('[data-testid="evaluate-summary"]').textContent();
    console.log(`run ${run + 1}: ${summary.match(/ran in \d+ ms/)?.[0] ?? summary} (profiled)`);
  }
}
// The renderer that ran the worker wrote the log with wasm functions in it: the largest.
for (const log of readdirSync(logs).filter((f) => f.endsWith('.log'))) {
  const report = execFileSync(process.execPath, ['--prof-process', join(logs, log)],
    { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
  if (process.env.KEEP_REPORT) writeFileSync(`${process.env.KEEP_REPORT}-${log}.txt`, report);
  // The flat profile's [JavaScript] section (wasm functions are listed there), up to its end.
  const all = report.split('\n');
  const from = all.findIndex((l) => l.startsWith(' [JavaScript]:'));
  const section = from < 0 ? [] : all.slice(from + 2, all.indexOf('', from + 2));
  const lines = section.filter((l) => /JS: \*?[a-z_<]+.*::/.test(l));
  if (lines.length === 0) continue;
  console.log(`${log}: the top ${top} functions by ticks (1 ms each), over every run:`);
  for (const line of lines.slice(0, top)) console.log(line.replace(/::h[0-9a-f]{16}$/, '').slice(0, 160));
}
rmSync(logs, { recursive: true, force: true });
