// Launching the system Chromium through playwright-core (no downloaded browsers).
import { chromium } from 'playwright-core';
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launches the system Chromium headless; `options` go to playwright's `launch` (`env`…). */
export async function launch(options = {}) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: run e2e/run.sh (it installs chromium) or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
    ...options,
  });
}
