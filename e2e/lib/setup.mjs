// What every real-server browser test file sets up: a screenshot folder, the real server
// (`sannin serve`, lib/sannin.mjs) and a Chromium, started before the file's tests and
// stopped after them.
import { after, before } from 'node:test';
import { mkdir } from 'node:fs/promises';
import { launch, launchFull } from './browser.mjs';
import { startServer } from './sannin.mjs';

/**
 * Registers the `before` and `after` hooks of the calling test file. Returns the object
 * whose `browser` (from `launchBrowser`) and `server` (from `startServer`) the `before`
 * hook fills in, for the tests to use once they run, and whose `fullBrowser()` starts
 * the full Chromium the first time a test asks for it (lib/browser.mjs). `serverArgs`:
 * more options of `sannin serve`.
 */
export function serverAndBrowser({ shots, launchBrowser = launch, serverArgs = [] } = {}) {
  let full;
  const live = {
    browser: undefined,
    server: undefined,
    fullBrowser: () => { full ??= launchFull(); return full; },
  };
  before(async () => {
    if (shots) await mkdir(shots, { recursive: true });
    live.server = await startServer({ args: serverArgs });
    live.browser = await launchBrowser();
  });
  after(async () => {
    await live.browser?.close();
    await (await full)?.close();
    await live.server?.stop();
  });
  return live;
}
