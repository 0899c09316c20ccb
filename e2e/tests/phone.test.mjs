// The game page on a phone against the real server (a 390 × 844 touch screen): for each
// seat, the whole board and the reader's own hand in the first screenful, the opponents
// in thin strips above the board, no typed-move box, the site's links behind the menu
// button; on a desktop, the board's size chosen in the preferences, remembered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS, personIn, until } from '../lib/people.mjs';

const live = serverAndBrowser({ shots: SHOTS });
const SEATS = ['first', 'middle', 'last'];
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };

async function seatedWithBots(p, seat) {
  const bots = Object.fromEntries(SEATS.filter((s) => s !== seat).map((s) => [s, 5]));
  const res = await fetch(`${live.server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bots }) });
  const { id } = await res.json();
  await p.page.goto(`${live.server.url}/rooms/${id}`);
  await p.page.getByTestId('room-name').fill('Ann');
  await p.page.getByTestId(`sit-${seat}`).click();
  await until('seated', () => p.lastState()?.you === seat);
  await p.page.getByTestId('ready').click();
  await until('playing', () => p.lastState()?.status === 'playing');
  await p.page.waitForSelector('[data-cell] .piece');
}

for (const seat of SEATS) {
  test(`phone, seated as ${seat}: the whole board and the own hand in the first screenful`, async () => {
    const context = await live.browser.newContext(PHONE);
    const p = await personIn(context, seat);
    await seatedWithBots(p, seat);
    const { page } = p;
    assert.equal(await page.evaluate(() => window.scrollY), 0);
    const board = await page.getByTestId('board').boundingBox();
    const hand = await page.getByTestId(`hand-${seat}`).boundingBox();
    assert.ok(board.x >= 0 && board.x + board.width <= 390 && board.width >= 360, `the board as wide as the phone (${JSON.stringify(board)})`);
    assert.ok(board.y >= 0 && board.y + board.height <= 844, `the whole board in view (${JSON.stringify(board)})`);
    assert.ok(hand.y >= board.y + board.height && hand.y + hand.height <= 844, `the own hand under the board, in view (${JSON.stringify(hand)})`);
    for (const other of SEATS.filter((s) => s !== seat)) {
      const strip = await page.getByTestId(`seat-${other}`).boundingBox();
      assert.ok(strip.y + strip.height <= board.y + 1 && strip.height <= 44, `${other} in a thin strip above the board (${JSON.stringify(strip)})`);
    }
    assert.equal(await page.locator('.typed-move').isVisible(), false, 'no typed-move box on a touch screen');
    assert.equal(await page.getByTestId('nav-games').isVisible(), false, 'the links behind the menu');
    await page.getByTestId('site-menu').click();
    assert.equal(await page.getByTestId('nav-games').isVisible(), true);
    await page.getByTestId('site-menu').click();
    await page.screenshot({ path: `${SHOTS}phone-room-${seat}.png` });
    assert.deepEqual(p.io.errors, []);
    await context.close();
  });
}

test('desktop: the board size chosen in the preferences changes the board, and is remembered', async () => {
  const context = await live.browser.newContext({ viewport: { width: 1366, height: 768 } });
  const p = await personIn(context, 'desk');
  await seatedWithBots(p, 'first');
  const { page } = p;
  const medium = (await page.getByTestId('board').boundingBox()).width;
  await page.getByTestId('open-prefs').click();
  await page.getByTestId('pref-boardSize-s').check();
  await page.getByTestId('prefs-close').click();
  const small = (await page.getByTestId('board').boundingBox()).width;
  assert.ok(small < medium - 40, `smaller (${small} < ${medium})`);
  await page.reload();
  await page.waitForSelector('[data-cell] .piece');
  assert.ok(Math.abs((await page.getByTestId('board').boundingBox()).width - small) < 2, 'remembered');
  await context.close();
});
