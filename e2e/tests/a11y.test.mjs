// axe-core (WCAG 2.1 A/AA and best practices) on the lobby, the rules, the analysis
// board and a room, in every theme; and the moves of every player announced politely.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchNoCjk } from '../lib/nocjk.mjs';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS, axe, shot, until, visitor } from '../lib/site.mjs';

const live = serverAndBrowser({ shots: SHOTS, launchBrowser: launchNoCjk });

const THEMES = ['light', 'dark', 'wood'];

function report(violations) {
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.join('\n    ')}`).join('\n');
}

for (const theme of THEMES) {
  test(`axe finds nothing on the lobby, rules and analysis board (${theme} theme)`, async () => {
    for (const [lang, pieceStyle] of [['en', 'kanji'], ['ja', 'international']]) {
      const v = await visitor(live.browser, `axe-${theme}`, { lang, prefs: { theme, pieceStyle } });
      const { page } = v;
      await page.goto(`${live.server.url}/`);
      await page.getByTestId('play-computer').waitFor();
      await page.locator('.empty, .rooms-grid').first().waitFor();
      let found = await axe(page);
      assert.equal(found.length, 0, `lobby (${lang}):\n${report(found)}`);

      await page.goto(`${live.server.url}/rules`);
      await page.getByTestId('piece-diagrams').waitFor();
      found = await axe(page);
      assert.equal(found.length, 0, `rules (${lang}):\n${report(found)}`);

      await page.goto(`${live.server.url}/analysis?record=${encodeURIComponent('P3c-4d P10k-10j P11g-10g')}`);
      await page.getByTestId('where').waitFor();
      found = await axe(page);
      assert.equal(found.length, 0, `analysis (${lang}):\n${report(found)}`);

      await page.getByTestId('edit-position').click();
      await page.getByTestId('editor').waitFor();
      found = await axe(page);
      assert.equal(found.length, 0, `position editor (${lang}):\n${report(found)}`);

      await page.getByTestId('open-prefs').click();
      found = await axe(page);
      assert.equal(found.length, 0, `preferences (${lang}):\n${report(found)}`);
      await v.context.close();
    }
  });
}

for (const [theme, pieceStyle] of [['light', 'kanji'], ['dark', 'international'], ['wood', 'kanji'], ['light', 'international']]) {
  test(`axe finds nothing on a room being played (${theme} theme, ${pieceStyle} pieces)`, async () => {
    const v = await visitor(live.browser, `room-${theme}`, { prefs: { theme, pieceStyle } });
    const { page } = v;
    await page.goto(`${live.server.url}/`);
    await page.getByTestId('play-computer').click();
    await page.waitForURL(/\/rooms\/[^/]+$/);
    await until('playing', () => v.lastState()?.status === 'playing');
    await page.locator('[data-cell] .piece').first().waitFor();
    const found = await axe(page);
    await shot(page, { path: `${SHOTS}room-${theme}-${pieceStyle}.png` });
    assert.equal(found.length, 0, `room:\n${report(found)}`);
    await v.context.close();
  });
}
