// Scenario: a reader opens the app from `routelens serve`, which sends a strict
// Content-Security-Policy. The header allows the page's one inline start-up script by its hash
// (computed here from dist/index.html), wasm and the page's own origin; the study table and the
// live worker's search run under it without one violation, while an inline script the page did
// not ship and a connection to an origin not listed are refused. (`eval` is not tried: code that
// Playwright evaluates is exempt from the page's policy; the header's script-src is checked to
// allow neither `'unsafe-eval'` nor `'unsafe-inline'`.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { missing, root, startServer, launchBrowser, buildDemoBundle, tempDir } from './lib/harness.mjs';

const skip = missing() || false;
let server, browser, page;

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  buildDemoBundle(bundles);
  server = await startServer({ bundles });
  browser = await launchBrowser();
  page = await browser.newPage();
  // Every violation the page reports, from its first script on.
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const byTestId = (id) => page.locator(`[data-testid="${id}"]`);

test('the server sends the policy with the start-up script’s hash', { skip }, async () => {
  const html = readFileSync(join(root, 'dist/index.html'), 'utf8');
  const inline = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  assert.equal(inline.length, 1, 'Trunk writes one inline start-up script');
  const hash = createHash('sha256').update(inline[0]).digest('base64');
  for (const path of ['/', '/site.json', '/missing.js']) {
    const response = await fetch(`${server.url}${path}`);
    const policy = response.headers.get('content-security-policy') ?? '';
    assert.match(policy, new RegExp(`script-src 'self' 'wasm-unsafe-eval' 'sha256-${hash.replace(/[+/]/g, '\\$&')}';`), path);
    assert.match(policy, /connect-src 'self' blob: /, path);
    assert.match(policy, /object-src 'none'/, path);
    assert.match(policy, /frame-ancestors 'none'$/, path);
    assert.doesNotMatch(policy.split('; ').find((d) => d.startsWith('script-src')), /'unsafe-inline'|'unsafe-eval'/);
  }
});

test('the study table and a live search in the worker run under it without a violation', { skip }, async () => {
  await page.goto(`${server.url}/?study=fastindex&view=table2`);
  await page.locator('[data-testid="table-file-recall"] tbody tr').first().waitFor({ timeout: 60000 });
  await byTestId('tab-search').click();
  await byTestId('bundle-select').selectOption('demo');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="bundle-progress"]')?.textContent.includes('manifest loaded'));
  await byTestId('question-select').selectOption('serde_json-float');
  await byTestId('search-run').click();
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="search-column"] [data-testid="search-hit"]'), null, { timeout: 60000 });
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
});

test('what the page did not ship is refused: an injected script, another origin', { skip }, async () => {
  const refused = await page.evaluate(async () => {
    const before = window.__violations.length;
    const script = document.createElement('script');
    script.textContent = 'window.__injected = true;';
    document.head.append(script);
    let fetchRefused = false;
    try { await fetch('https://example.org/'); } catch { fetchRefused = true; }
    await new Promise((resolve) => setTimeout(resolve, 200));
    return {
      injected: window.__injected === true,
      fetchRefused,
      reported: window.__violations.slice(before),
    };
  });
  assert.equal(refused.injected, false, 'an inline script not in the policy does not run');
  assert.equal(refused.fetchRefused, true);
  assert.ok(refused.reported.some((v) => v.startsWith('script-src')), JSON.stringify(refused.reported));
  assert.ok(refused.reported.some((v) => v.startsWith('connect-src') && v.includes('example.org')), JSON.stringify(refused.reported));
});
