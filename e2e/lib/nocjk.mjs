// A Chromium whose fontconfig knows only DejaVu (no CJK font at all), to check that the
// client shows its kanji from the bundled piece outlines and web font alone.
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch } from './browser.mjs';

export const DEJAVU = '/usr/share/fonts/truetype/dejavu';

/** Writes a fonts.conf listing only DejaVu; returns its path. */
export function noCjkFontsConf() {
  const dir = mkdtempSync(join(tmpdir(), 'sannin-fonts-'));
  const file = join(dir, 'fonts.conf');
  writeFileSync(file, `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>${DEJAVU}</dir>
  <cachedir>${join(dir, 'cache')}</cachedir>
  <alias><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <alias><family>serif</family><prefer><family>DejaVu Serif</family></prefer></alias>
  <alias><family>monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
</fontconfig>
`);
  return file;
}

export async function launchNoCjk() {
  if (!existsSync(DEJAVU)) throw new Error(`${DEJAVU} not found: install fonts-dejavu-core (e2e/run.sh does)`);
  return launch({ env: { ...process.env, FONTCONFIG_FILE: noCjkFontsConf() } });
}
