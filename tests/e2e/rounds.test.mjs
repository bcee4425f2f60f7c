// Scenario: a coordinator pools a labelling task from the fixture bundle with `routelens
// label-task` and sends two people a link; each labels it in their own browser (here two browser
// contexts), blind to the gold, the arms and each other, and exports their file. The adjudicator
// opens both in the adjudication page: the agreement report is `routelens agreement`'s to the
// character, every dispute is listed with both grades, and the decisions give the qrels, the new
// question set and the summary `routelens adjudicate --log` gives; `routelens evaluate` scores the
// new set. The study pages never load the round's module, and the round's pages never the worker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, missing, root, startServer, tempDir } from './lib/harness.mjs';

const skip = missing() ?? false;
const cli = join(root, 'target/debug/routelens');
const fixture = join(root, 'bundler/tests/fixtures/repo.bundle');
const questionsFile = join(root, 'bundler/tests/fixtures/eval-questions.jsonl');
let server, browser, bundle, work, taskUrl;

const run = (...args) => execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 64 << 20 });

before(async () => {
  if (skip) return;
  const bundles = tempDir();
  work = tempDir();
  bundle = join(bundles, 'repo');
  cpSync(fixture, bundle, { recursive: true });
  cpSync(questionsFile, join(bundle, 'questions.jsonl'));
  run('label-task', bundle, '--questions', join(bundle, 'questions.jsonl'), '--pool', 'fts5@2',
    '--pool', 'structural/bm25@2', '--labellers', '2', '--out', join(bundle, 'task.json'));
  server = await startServer({ bundles });
  taskUrl = `/bundles/repo/task.json`;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

/** A fresh browser context (its own storage), its page, and every URL the page fetched. */
async function fresh() {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const fetched = [];
  page.on('request', (r) => fetched.push(r.url()));
  return { context, page, fetched };
}

/** Saves the download `click` starts, returning its text. */
async function download(page, click, name) {
  const [file] = await Promise.all([page.waitForEvent('download'), click()]);
  const path = join(work, name);
  await file.saveAs(path);
  return { path, text: readFileSync(path, 'utf8') };
}

async function start(page, labeller, slot) {
  await page.goto(`${server.url}/?view=label&task=${taskUrl}&labeller=${labeller}&slot=${slot}`);
  await page.locator('[data-testid="task-summary"]').waitFor({ timeout: 60000 });
  await page.locator('[data-testid="label-start"]').click();
  await page.locator('[data-testid="label-question"]').waitFor();
}

/** Grades every file of every question: `grade(question, at)` gives each; `keys` uses the keyboard. */
async function labelAll(page, grade, keys) {
  const questions = Number((await page.locator('[data-testid="label-where"]').textContent()).match(/of (\d+)/)[1]);
  for (let q = 0; q < questions; q += 1) {
    const rows = page.locator('[data-testid="label-candidate"]');
    const count = await rows.count();
    for (let at = 0; at < count; at += 1) {
      const g = grade(q, at);
      if (keys) await page.keyboard.press(String(g));
      else await rows.nth(at).locator(`[data-testid="grade-${g}"]`).click();
      await assert.doesNotReject(rows.nth(at).locator(`xpath=self::*[@data-grade="${g}"]`).waitFor());
    }
    if (keys) await page.keyboard.press('n');
    else await page.locator('[data-testid="label-next"]').click();
  }
  return questions;
}

/** Nothing a labeller must not see: no gold, arm, rank or score, in the page or its storage. */
async function assertBlind(page, fetched, other) {
  // The page's own words: the file's text, the question and the paths are the task's, not ours.
  const text = await page.evaluate(() => {
    const body = document.body.cloneNode(true);
    body.querySelectorAll('.file-view, [data-testid="label-show"], [data-testid="label-question-text"], '
      + '[data-testid="label-add-option"], [data-testid="task-summary"]').forEach((e) => e.remove());
    return body.innerText;
  });
  for (const word of ['gold', 'fts5', 'bm25', 'hybrid', 'rank', 'recall', 'score']) {
    assert.ok(!text.toLowerCase().includes(word), `the labelling page shows ${word}`);
  }
  assert.equal(await page.locator('[data-gold]').count(), 0);
  assert.ok(!fetched.some((u) => u.endsWith('questions.jsonl')), 'the question set (the gold) was fetched');
  assert.ok(!fetched.some((u) => u.includes('routelens-worker')), 'the live worker was started');
  const storage = await page.evaluate(() => JSON.stringify(Object.entries(localStorage)));
  assert.ok(!storage.includes(other), `storage holds ${other}'s work`);
}

test('two labellers, blind and apart; agreement and adjudication equal the CLI', { skip }, async () => {
  const ada = await fresh();
  await start(ada.page, 'ada', 1);
  const shown = await ada.page.locator('[data-testid="file-view"]').getAttribute('data-path');
  assert.equal(shown, await ada.page.locator('[data-testid="label-candidate"]').first().getAttribute('data-path'),
    'the file in focus is shown');
  const questions = await labelAll(ada.page, (q, at) => (q + at) % 4, true);
  const total = (await ada.page.locator('[data-testid="label-progress"]').textContent()).match(/judged (\d+) \/ (\d+)/);
  assert.equal(total[1], total[2], 'every file judged');
  // An edit is a new event: "unsure" and a note on the last question's first file.
  const first = ada.page.locator('[data-testid="label-candidate"]').first();
  await first.locator('[data-testid="label-unsure"]').check();
  await first.locator('[data-testid="label-note"]').fill('only the setup, not the fix');
  await first.locator('[data-testid="label-note"]').press('Tab');
  await assertBlind(ada.page, ada.fetched, 'bo');
  const adaFile = await download(ada.page, () => ada.page.locator('[data-testid="label-export"]').click(), 'ada.jsonl');
  const adaLines = adaFile.text.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(adaLines[0].format, 'routelens-labels/1');
  assert.equal(adaLines[0].labeller, 'ada');
  assert.equal(adaLines.length, 1 + Number(total[2]) + 2, 'one event per grade, one per edit');
  assert.equal(adaLines.at(-1).note, 'only the setup, not the fix');
  assert.ok(adaLines.at(-1).unsure);
  // Her work survives a reload; another labeller in the same browser starts empty.
  await start(ada.page, 'ada', 1);
  assert.match(await ada.page.locator('[data-testid="label-progress"]').textContent(), new RegExp(`judged ${total[2]} /`));
  await start(ada.page, 'dee', 2);
  assert.match(await ada.page.locator('[data-testid="label-progress"]').textContent(), /^judged 0 \//);
  // A labels file of another task is refused, naming both hashes.
  await ada.page.locator('[data-testid="label-import"]').setInputFiles(
    join(root, 'bundler/tests/fixtures/agreement/other-task.jsonl'));
  const importError = await ada.page.locator('[data-testid="label-error"]').textContent();
  assert.ok(importError.includes(adaLines[0].task) && /of task [0-9a-f]{64}/.test(importError), importError);

  const bo = await fresh();
  await start(bo.page, 'bo', 2);
  assert.match(await bo.page.locator('[data-testid="label-progress"]').textContent(), /^judged 0 \//, 'bo starts empty');
  // Bo adds a file the pool missed to the first question, through the path filter.
  const candidates = await bo.page.locator('[data-testid="label-candidate"]').evaluateAll((rows) => rows.map((r) => r.dataset.path));
  await bo.page.locator('[data-testid="label-add-filter"]').fill('.rs');
  const option = bo.page.locator('[data-testid="label-add-option"]').first();
  const added = await option.getAttribute('data-path');
  assert.ok(!candidates.includes(added));
  await option.click();
  assert.equal(await labelAll(bo.page, (q, at) => (q * 3 + at * 2) % 4, false), questions);
  await assertBlind(bo.page, bo.fetched, 'ada');
  const boFile = await download(bo.page, () => bo.page.locator('[data-testid="label-export"]').click(), 'bo.jsonl');
  assert.ok(boFile.text.includes(`"path":"${added}"`), 'the added file is judged');
  assert.ok(boFile.text.includes('"position":0'), 'an added file has position 0');

  // The adjudicator: agreement as the CLI prints it.
  const cy = await fresh();
  await cy.page.goto(`${server.url}/?view=adjudicate&task=${taskUrl}`);
  await cy.page.locator('[data-testid="task-summary"]').waitFor({ timeout: 60000 });
  await cy.page.locator('[data-testid="labels-a"]').setInputFiles(join(root, 'bundler/tests/fixtures/agreement/other-task.jsonl'));
  await cy.page.locator('[data-testid="adjudicate-error"]').waitFor();
  const refused = await cy.page.locator('[data-testid="adjudicate-error"]').textContent();
  const sha = JSON.parse(readFileSync(join(work, 'ada.jsonl'), 'utf8').split('\n')[0]).task;
  assert.ok(refused.includes('other-task.jsonl') && refused.includes(sha), refused);
  await cy.page.locator('[data-testid="labels-a"]').setInputFiles(adaFile.path);
  assert.equal(await cy.page.locator('[data-testid="agreement-report"]').count(), 0, 'no report from one file');
  await cy.page.locator('[data-testid="labels-b"]').setInputFiles(boFile.path);
  await cy.page.locator('[data-testid="agreement-report"]').waitFor({ timeout: 60000 });
  const task = join(bundle, 'task.json');
  assert.equal(await cy.page.locator('[data-testid="agreement-report"]').textContent(),
    run('agreement', task, adaFile.path, boFile.path));

  const native = run('adjudicate', task, adaFile.path, boFile.path, '--questions',
    join(bundle, 'questions.jsonl'), '--format', 'json').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert.ok(native.length > 0, 'the labellers disagree somewhere');
  const rows = cy.page.locator('[data-testid="dispute"]');
  assert.equal(await rows.count(), native.length, 'every dispute listed');
  await cy.page.locator('[data-testid="adjudicator-id"]').fill('ada');
  await cy.page.locator('[data-testid="adjudicator-id"]').press('Tab');
  await cy.page.locator('[data-testid="adjudicator-flag"]').waitFor();
  await cy.page.locator('[data-testid="adjudicator-id"]').fill('cy');
  await cy.page.locator('[data-testid="adjudicator-id"]').press('Tab');
  assert.equal(await cy.page.locator('[data-testid="adjudicator-flag"]').count(), 0);
  for (let at = 0; at < native.length; at += 1) {
    const row = rows.nth(at);
    assert.equal(await row.getAttribute('data-question'), native[at].question);
    assert.equal(await row.getAttribute('data-path'), native[at].path);
    await row.locator('[data-testid="decision-grade"]').selectOption(String(at % 2 ? 3 : 0));
    await row.locator('[data-testid="decision-reason"]').selectOption('misread');
    await row.locator('[data-testid="decision-note"]').fill(`decision ${at}`);
    await row.locator('[data-testid="decision-record"]').click();
    await row.locator(`xpath=self::*[@data-decided="${at % 2 ? 3 : 0}"]`).waitFor();
  }
  await cy.page.locator('[data-testid="adjudication-outcome"]').waitFor({ timeout: 60000 });
  const log = await download(cy.page, () => cy.page.locator('[data-testid="adjudication-export"]').click(), 'log.jsonl');
  const qrels = await download(cy.page, () => cy.page.locator('[data-testid="download-qrels"]').click(), 'page.qrels');
  const set = await download(cy.page, () => cy.page.locator('[data-testid="download-questions"]').click(), 'page-questions.jsonl');
  const said = run('adjudicate', task, adaFile.path, boFile.path, '--log', log.path, '--questions',
    join(bundle, 'questions.jsonl'), '--qrels', join(work, 'cli.qrels'), '--new-questions', join(work, 'cli-questions.jsonl'));
  assert.equal(await cy.page.locator('[data-testid="adjudication-outcome"]').textContent(), said);
  assert.equal(qrels.text, readFileSync(join(work, 'cli.qrels'), 'utf8'));
  assert.equal(set.text, readFileSync(join(work, 'cli-questions.jsonl'), 'utf8'));
  // The Evaluate view scores the grid against the old and the new gold side by side, as
  // `routelens evaluate --also-questions` does, with how far the two golds agree.
  cpSync(set.path, join(bundle, 'adjudicated.jsonl'));
  const scored = JSON.parse(run('evaluate', bundle, '--questions', join(bundle, 'questions.jsonl'),
    '--also-questions', join(bundle, 'adjudicated.jsonl'), '--chunker', 'structural', '--retriever', 'bm25',
    '--resamples', '200', '--format', 'json'));
  const page = cy.page;
  await page.goto(`${server.url}/?view=evaluate&bundle=repo&chunkers=structural&retrievers=bm25&resamples=200`
    + `&gold2=${encodeURIComponent('/bundles/repo/adjudicated.jsonl')}`);
  await page.locator('[data-testid="evaluate-run"]').click();
  await page.locator('[data-testid="evaluate-also"], [data-testid="evaluate-error"]').first().waitFor({ timeout: 120000 });
  assert.equal(await page.locator('[data-testid="evaluate-error"]').count(), 0);
  const fmt = (x) => x.toFixed(3);
  const grids = [[page.locator('[data-testid="evaluate-grid"]').first(), scored],
    [page.locator('[data-testid="evaluate-also"] [data-testid="evaluate-grid"]'), scored.also.report]];
  assert.equal(await page.locator('[data-testid="evaluate-grid"]').count(), 2, 'two grids, side by side');
  for (const [grid, report] of grids) {
    for (const m of report.metrics) {
      const cell = grid.locator(`tr[data-row="${m.arm}"] td[data-col="${m.metric}"]`);
      assert.equal((await cell.textContent()).trim(), `${fmt(m.mean)} [${fmt(m.ci_low)}, ${fmt(m.ci_high)}]`,
        `${report === scored ? 'old' : 'new'} gold: ${m.arm} ${m.metric}`);
    }
  }
  assert.deepEqual(await page.locator('[data-testid="evaluate-gold-agreement"] li').allTextContents(),
    scored.also.gold_agreement.statistics.map((s) => s.sentence));
  for (const { fetched } of [ada, bo, cy]) {
    assert.ok(fetched.some((u) => u.endsWith('routelens-rounds_bg.wasm')));
  }
  await Promise.all([ada, bo, cy].map(({ context }) => context.close()));
});

test('a study page never loads the labelling module', { skip }, async () => {
  const { context, page, fetched } = await fresh();
  await page.goto(`${server.url}/?view=search&bundle=repo`);
  await page.locator('[data-testid="bundle-summary"]').waitFor({ timeout: 60000 });
  assert.ok(!fetched.some((u) => u.includes('routelens-rounds')), fetched.join(' '));
  await context.close();
});
