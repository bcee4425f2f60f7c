// Shared by every end-to-end scenario: starts `routelens serve` on a free loopback port with the
// built app (dist/) and the paper's archive mounted, launches Debian's headless Chromium through
// playwright-core (never a downloaded browser), and runs the native CLI for cross-checks.
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const archive = process.env.ROUTELENS_FASTINDEX ?? resolve(root, '../shared/data/fastindex');
export const codenib = process.env.ROUTELENS_CODENIB ?? resolve(root, '../shared/data/codenib');
export const artifacts = join(root, 'tests/e2e/artifacts');
const cli = join(root, 'target/debug/routelens');

/** Why the scenarios cannot run here, or null when they can. With ROUTELENS_REQUIRE_FIXTURES=1
 * (the test command and CI set it) a missing input throws instead, so no scenario can pass by
 * being skipped there. */
export function missing() {
  const reason = missingInput();
  if (reason && process.env.ROUTELENS_REQUIRE_FIXTURES === '1') {
    throw new Error(`missing fixture: ${reason} (ROUTELENS_REQUIRE_FIXTURES=1 makes this a failure)`);
  }
  return reason;
}

function missingInput() {
  if (!existsSync(join(archive, 'paper/data/README.md'))) return `no paper archive at ${archive}`;
  if (!existsSync(join(codenib, 'jev_candidates_cases.csv'))) return `no CodeNib results at ${codenib}`;
  if (!existsSync(join(root, 'dist/index.html'))) return 'dist/ is not built (trunk build index.html --release)';
  if (!existsSync(cli)) return 'target/debug/routelens is not built (cargo build -p routelens)';
  return null;
}

/** Starts the server; resolves to { url, stop } once it prints the address it listens on.
 * `bundles`: a folder of bundle folders to serve at /bundles/ (default: the CLI's own default);
 * `args`: more `serve` options; `env`: more environment (e.g. TYPESAFE_API_KEY for the proxy). */
export function startServer({ bundles, args = [], env = {} } = {}) {
  const extra = bundles ? ['--bundles', bundles] : [];
  return startCli(['serve', '--port', '0', '--dist', join(root, 'dist'), '--data', archive, '--codenib', codenib,
    ...extra, ...args], env);
}

/** Starts `routelens <args>` (a server that prints its loopback URL) with more environment `env`;
 * resolves to { url, stop } once the URL is printed. Used by the tests and the bench scripts. */
export function startCli(args, env = {}) {
  const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  return new Promise((resolvePromise, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`routelens ${args[0]} did not start: ${seen}`)), 20000);
    const onData = (chunk) => {
      seen += chunk;
      const match = seen.match(/http:\/\/127\.0\.0\.1:(\d+)/);
      if (match) {
        clearTimeout(timer);
        resolvePromise({ url: `http://127.0.0.1:${match[1]}`, stop: () => child.kill() });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`routelens ${args[0]} exited with ${code}: ${seen}`)));
  });
}

/** Python's static file server (not routelens: no site index of its own, no CORS or isolation
 * headers) serving `dir` on a free loopback port; resolves to { url, stop } once it says the port.
 * Used for published sites and for an origin that does not allow the page. */
export function startStaticServer(dir) {
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

/** Launches headless Chromium with the flags this closed network needs. */
export async function launchBrowser(extra = []) {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-dev-shm-usage', ...extra,
    ],
  });
}

/** Builds the demo bundle (this checkout and its pinned crates, with the committed question set)
 * with `routelens demo` into target/e2e-demo/ once (the command leaves an up-to-date bundle as it
 * is), and copies it to `<dir>/demo`, which a test may change freely; returns that folder. Without
 * vectors: the page does not search them yet, and the debug build would take many minutes. */
export function buildDemoBundle(dir) {
  const built = join(root, 'target/e2e-demo/demo');
  execFileSync(cli, ['demo', '--out', built, '--repo', root, '--embed', 'none',
    '--questions', join(root, 'bundler/demo/questions.jsonl')],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const out = join(dir, 'demo');
  cpSync(built, out, { recursive: true });
  return out;
}

/** Runs `routelens score <archive> ...args --format json` and parses its one object. */
export function scoreNatively(...args) {
  const out = execFileSync(cli, ['score', archive, ...args, '--format', 'json'], { encoding: 'utf8' });
  return JSON.parse(out);
}

/** A screenshot kept as a test artifact. */
export async function screenshot(page, name) {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

/** A fresh temporary folder for downloads. */
export function tempDir() {
  return mkdtempSync(join(tmpdir(), 'routelens-e2e-'));
}
