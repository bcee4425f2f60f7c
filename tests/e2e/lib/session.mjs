// One server, one browser and one study page per scenario file, set up before its tests and torn
// down after them. `session.skip` says why the scenario cannot run here (false when it can).
import { before, after } from 'node:test';
import { missing, startServer, launchBrowser } from './harness.mjs';
import { StudyPage } from './study-page.mjs';

export function studySession({ acceptDownloads = false } = {}) {
  const session = { skip: missing() || false, server: null, browser: null, study: null };
  before(async () => {
    if (session.skip) return;
    session.server = await startServer();
    session.browser = await launchBrowser();
    const page = await session.browser.newPage({ acceptDownloads });
    session.study = new StudyPage(page, session.server.url);
  });
  after(async () => {
    await session.browser?.close();
    session.server?.stop();
  });
  return session;
}
