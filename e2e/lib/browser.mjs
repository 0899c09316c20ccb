// Launching Debian's Chromium through playwright-core (no downloaded browsers): its
// headless shell for most tests, the full browser where a test needs what only the full
// browser has (a notification service for Web Push).
import { chromium } from 'playwright-core';
import { existsSync } from 'node:fs';

/** The full browser (Debian package `chromium`). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The headless shell (Debian package `chromium-headless-shell`): the same engine without
 * the browser's windows, tabs and address bar, which a headless full browser still
 * builds, hidden, for every browser context — about half of the CPU a test's page costs. */
export const HEADLESS_SHELL = process.env.CHROMIUM_HEADLESS_SHELL_PATH ?? '/usr/bin/chromium-headless-shell';

const ARGS = [
  '--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Launches the headless shell; `options` go to playwright's `launch` (`env`…). */
export function launch(options = {}) {
  return launchFrom(HEADLESS_SHELL, 'chromium-headless-shell', ARGS, options);
}

/** Launches the full browser, headless, for the tests of notifications. */
export function launchFull(options = {}) {
  // The full browser also builds its hidden address bar's popup for every window, in a
  // renderer of its own: about 1 s of CPU for each browser context, unseen by any test.
  return launchFrom(CHROMIUM, 'chromium', [...ARGS, '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup'], options);
}

async function launchFrom(executablePath, pkg, args, options) {
  if (!existsSync(executablePath)) {
    throw new Error(`${executablePath} not found: run e2e/run.sh (it installs ${pkg}) or set its path (lib/browser.mjs)`);
  }
  return chromium.launch({ executablePath, args, ...options });
}
