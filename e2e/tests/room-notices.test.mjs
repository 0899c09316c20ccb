// The game page's notices and offers against the real server, with bots at the table:
// news goes in the line above the board (one notice at a time, never over a cell, gone
// with the next move or a click), and a player who is out while the two others play on
// is offered a new game or to keep watching. Screenshots (desktop and phone, a player
// and a spectator, English and Japanese) go to SHOTS_DIR or e2e/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS as DEFAULT_SHOTS, joinRoom, person as newPerson, playMove, resign, until } from '../lib/people.mjs';
import { chooseLang } from '../lib/site.mjs';

const SHOTS = process.env.SHOTS_DIR ? `${process.env.SHOTS_DIR.replace(/\/$/, '')}/` : DEFAULT_SHOTS;
// Bots answer quickly, but not so quickly that two of them end a game in a blink.
process.env.SANNIN_BOT_MIN_MOVE_MS = '300';
const live = serverAndBrowser({ shots: SHOTS });

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 768 };

async function person(label, viewport) {
  const p = await newPerson(live.browser, label);
  await p.page.setViewportSize(viewport);
  return p;
}

async function createRoom(body) {
  const res = await fetch(`${live.server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 201);
  return (await res.json()).id;
}

/** Akira takes First in a new room with two bots, gets ready and the game starts. */
async function gameWithBots(p) {
  const id = await createRoom({ bots: { middle: 0, last: 0 } });
  await joinRoom(p, live.server, id, 'Akira', 'first');
  await p.page.getByTestId('ready').click();
  await until('playing', () => p.lastState()?.status === 'playing');
  return id;
}

/** The visible elements outside the board (its own text and cells aside) that overlap
 * the board's drawing: none may. */
function overBoard(page) {
  return page.evaluate(() => {
    const b = document.querySelector('svg.board').getBoundingClientRect();
    const skip = (el) => el.closest('svg.board, .board-box, .looking-back, .live-button, .room-grid > .side, .offline');
    return [...document.querySelectorAll('.room *')].filter((el) => {
      if (skip(el) || el.contains(document.querySelector('svg.board'))) return false;
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && r.bottom > b.top + 1 && r.top < b.bottom - 1 && r.right > b.left + 1 && r.left < b.right - 1;
    }).map((el) => `${el.tagName}.${el.className?.baseVal ?? el.className} ${el.textContent.slice(0, 40)}`);
  });
}

/** Whether no text of `selector` is cut off: each element as wide and tall as its text. */
function notCut(page, selector) {
  return page.$$eval(selector, (ns) => ns.filter((n) => n.offsetParent)
    .filter((n) => n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1)
    .map((n) => n.textContent));
}

const shownNotice = (page) => page.evaluate(() => {
  const line = document.querySelector('[data-testid="notice-line"]');
  return line.classList.contains('shown') ? line.querySelector('.notice-text').textContent : '';
});

test('phone: one notice at a time, in the line above the board; it goes with the next move or a click', async () => {
  const p = await person('akira', PHONE);
  await gameWithBots(p);
  await p.page.locator('[data-testid="notice-line"][data-kind="start"]').waitFor();
  assert.equal(await shownNotice(p.page), 'The game has started.');
  assert.deepEqual(await overBoard(p.page), []);
  assert.equal(await p.page.locator('.notice-line .notice:visible').count(), 1);
  // The room is named by its players, cut short on a phone rather than wrapped.
  const title = p.page.locator('.room-head h1');
  assert.equal(await title.textContent(), 'Akira · Bot (random moves) · Bot (random moves)');
  assert.ok(await title.evaluate((h) => h.scrollWidth > h.clientWidth && getComputedStyle(h).textOverflow === 'ellipsis'));
  const boardTop = await p.page.locator('svg.board').evaluate((b) => b.getBoundingClientRect().top);
  await p.page.screenshot({ path: `${SHOTS}notices-start-phone.png` });
  // A click puts it away; the board does not move.
  await p.page.getByTestId('notice-line').click();
  assert.equal(await shownNotice(p.page), '');
  assert.equal(await p.page.locator('svg.board').evaluate((b) => b.getBoundingClientRect().top), boardTop);
  // News of one's own goes with the next move.
  await p.page.getByTestId('offer-draw').click();
  await until('the draw offer told', async () => /draw/i.test(await shownNotice(p.page)));
  await playMove(p);
  await until('the notice gone with the move', async () => !/offer.*draw/i.test(await shownNotice(p.page)));
  assert.deepEqual(p.io.errors, []);
  await p.context.close();
});

test('the start notice stays a moment, then goes with the moves that follow', async () => {
  const p = await person('akira', DESKTOP);
  await gameWithBots(p);
  await p.page.locator('[data-testid="notice-line"][data-kind="start"]').waitFor();
  assert.deepEqual(await overBoard(p.page), []);
  await p.page.screenshot({ path: `${SHOTS}notices-start-desktop.png` });
  await playMove(p);
  assert.equal(await shownNotice(p.page), 'The game has started.', 'still there just after the move');
  await until('the start notice gone', async () => (await shownNotice(p.page)) !== 'The game has started.', 8000);
  assert.deepEqual(p.io.errors, []);
  await p.context.close();
});

test('a player out while the others play on: New game, or Keep watching; desktop and phone, English and Japanese', async () => {
  const p = await person('akira', DESKTOP);
  const id = await gameWithBots(p);
  await playMove(p);
  await resign(p);
  const offer = p.page.getByTestId('out-offer');
  await offer.waitFor();
  assert.equal(p.lastState().status, 'playing', 'the two bots play on');
  assert.match(await offer.textContent(), /You are out of this game\..*New game.*Keep watching/);
  assert.equal(await p.page.getByTestId('new-game').getAttribute('href'), '/');
  for (const [tag, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
    await p.page.setViewportSize(viewport);
    assert.deepEqual(await overBoard(p.page), [], tag);
    assert.deepEqual(await notCut(p.page, '.out-offer *'), [], tag);
    await offer.scrollIntoViewIfNeeded();
    await p.page.screenshot({ path: `${SHOTS}notices-out-${tag}.png` });
    await chooseLang(p.page, 'ja');
    await until('in Japanese', async () => (await offer.textContent()).includes('この対局から脱落しました。'));
    assert.match(await offer.textContent(), /新しい対局.*観戦を続ける/);
    assert.deepEqual(await notCut(p.page, '.out-offer *'), [], `${tag} ja`);
    await p.page.screenshot({ path: `${SHOTS}notices-out-${tag}-ja.png` });
    await chooseLang(p.page, 'en');
  }
  // A spectator of the same game is offered nothing.
  const fan = await person('fan', DESKTOP);
  await fan.page.goto(`${live.server.url}/rooms/${id}`);
  await fan.page.getByTestId('watching').waitFor();
  assert.equal(await fan.page.getByTestId('out-offer').count(), 0);
  assert.deepEqual(await overBoard(fan.page), []);
  await fan.page.screenshot({ path: `${SHOTS}notices-spectator-desktop.png` });
  await fan.page.setViewportSize(PHONE);
  await fan.page.screenshot({ path: `${SHOTS}notices-spectator-phone.png`, fullPage: true });
  // New game goes to the lobby; back in the room, Keep watching puts the offer away,
  // and it stays away after a reload.
  await p.page.setViewportSize(DESKTOP);
  await p.page.getByTestId('new-game').click();
  await p.page.waitForURL(`${live.server.url}/`);
  await p.page.getByTestId('play-computer').waitFor();
  const seen = p.io.states.length;
  await p.page.goBack();
  // Back in the room once its new socket has brought the state.
  await until('the room\'s state again', () => p.io.states.length > seen);
  await p.page.getByTestId('keep-watching').click();
  await until('the offer put away', async () => (await offer.count()) === 0);
  const states = p.io.states.length;
  await p.page.reload();
  await until('a state after the reload', () => p.io.states.length > states);
  await p.page.waitForSelector('[data-testid="seat-first"][data-eliminated="true"]');
  assert.equal(await offer.count(), 0);
  for (const q of [p, fan]) assert.deepEqual(q.io.errors, []);
  for (const q of [p, fan]) await q.context.close();
});
