// The game page against the real server: the board stays put on a phone, the move table
// by rounds scrolls inside itself at any length, a clicked move shows the position the
// server's history gives for it, a finished game steps from the start to its end, the
// record downloads with its headers, spectators see that they watch. Screenshots go to
// e2e/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS, boardPieces, joinRoom, person as newPerson, playMove, positionPieces, resign, until } from '../lib/people.mjs';

// Bots answer at once: long games are played in seconds. A room of bots alone moves
// every 30 ms: 90 plies in a few seconds, while a watching page (which redraws its
// move table at each move) keeps time for the test's own calls on a busy machine.
process.env.SANNIN_BOT_MIN_MOVE_MS = '0';
process.env.SANNIN_BOT_ONLY_MIN_MOVE_MS = '30';
const live = serverAndBrowser({ shots: SHOTS });

async function person(label, viewport) {
  const p = await newPerson(live.browser, label);
  if (viewport) await p.page.setViewportSize(viewport);
  return p;
}

async function createRoom(body = {}) {
  const res = await fetch(`${live.server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 201);
  return (await res.json()).id;
}

async function history(id) {
  const res = await fetch(`${live.server.url}/api/rooms/${id}/history`);
  assert.equal(res.status, 200);
  return res.json();
}

/** Waits until `p`'s page has drawn every move of the last state it received, and a frame
 * after that: the layout the moves brought, and any scrolling it would cause, are done. */
async function drawn(p) {
  const n = p.lastState().moves.length;
  await p.page.waitForFunction((count) => document.querySelectorAll('[data-testid="moves"] [data-ply]').length >= count, n);
  await p.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

test('phone: the board stays where it is while moves come in, and the page does not scroll', async () => {
  const id = await createRoom({ bots: { middle: 0, last: 0 } });
  const p = await person('phone', { width: 390, height: 844 });
  await joinRoom(p, live.server, id, 'Akira', 'first');
  await p.page.getByTestId('ready').click();
  await until('playing', () => p.lastState()?.status === 'playing');
  await p.page.waitForSelector('[data-testid="turn"].mine');
  const box0 = await p.page.getByTestId('board').boundingBox();
  assert.ok(box0.width >= 360 && box0.width <= 390, `the board fills the phone's width (${box0.width})`);
  assert.ok(box0.y < 844 / 2, `the board is near the top (y = ${box0.y})`);
  const scroll0 = await p.page.evaluate(() => window.scrollY);
  for (let round = 0; round < 3; round++) {
    const { ply } = await playMove(p);
    // The two bots answer; the move table and notices grow meanwhile.
    await until('the bots answered', () => {
      const st = p.lastState();
      return st.moves.length >= ply + 3 && st.to_move === 'first' ? st : null;
    });
    await p.page.waitForSelector('[data-testid="turn"].mine');
    await drawn(p);
    assert.equal(await p.page.evaluate(() => window.scrollY), scroll0, 'the page did not scroll by itself');
    assert.deepEqual(await p.page.getByTestId('board').boundingBox(), box0, 'the board did not move');
  }
  await p.page.screenshot({ path: `${SHOTS}room-phone-first.png` });
  // Scrolled by the reader, the page stays where the reader put it.
  await p.page.evaluate(() => window.scrollTo(0, 200));
  const scrolled = await p.page.evaluate(() => window.scrollY);
  assert.ok(scrolled > 0, 'the page is taller than the phone');
  const boxScrolled = await p.page.getByTestId('board').boundingBox();
  const { ply } = await playMove(p);
  await until('the bots answered', () => p.lastState().moves.length >= ply + 3);
  await drawn(p);
  assert.equal(await p.page.evaluate(() => window.scrollY), scrolled);
  assert.deepEqual(await p.page.getByTestId('board').boundingBox(), boxScrolled);
  assert.deepEqual(p.io.errors, []);
  await p.context.close();
});

test('three bots: 90 plies in the table, each reachable by scrolling it; a clicked move shows the history\'s position', async () => {
  let id;
  let watcher;
  // A random game may end early: try a few rooms until one reaches 90 plies.
  for (let tries = 0; tries < 4 && !watcher; tries++) {
    id = await createRoom({ bots: { first: 0, middle: 0, last: 0 } });
    const w = await person(`watcher${tries}`, { width: 1366, height: 768 });
    await w.page.goto(`${live.server.url}/rooms/${id}`);
    const reached = await until('90 plies or the end', () => {
      const st = w.lastState();
      if (!st) return null;
      if (st.moves.length >= 90) return 'ok';
      return st.status === 'finished' ? 'finished' : null;
    }, 120000);
    if (reached === 'ok') watcher = w;
    else await w.context.close();
  }
  assert.ok(watcher, 'a game of 90 plies');
  const { page } = watcher;
  // Stop the game so that the table stops growing: watch a settled prefix of it.
  await until('the table has 90 plies', async () => (await page.locator('[data-testid="moves"] [data-ply]').count()) >= 90);
  const scroller = page.getByTestId('moves-scroll');
  const box = await scroller.boundingBox();
  const endedBefore = watcher.lastState()?.status === 'finished';
  const overflow = await scroller.evaluate((n) => ({ scroll: n.scrollHeight, client: n.clientHeight, style: getComputedStyle(n).overflowY }));
  assert.ok(overflow.scroll > overflow.client, 'the table is longer than its box');
  assert.equal(overflow.style, 'auto');
  const scrollY = await page.evaluate(() => window.scrollY);
  for (let n = 1; n <= 90; n++) {
    const visible = await page.evaluate((ply) => {
      const box = document.querySelector('[data-testid="moves-scroll"]');
      const cell = box.querySelector(`[data-ply="${ply}"]`);
      box.scrollTop = cell.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop - box.clientHeight / 2;
      const r = cell.getBoundingClientRect();
      const b = box.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return {
        inside: r.top >= b.top && r.bottom <= b.bottom && r.left >= b.left && r.right <= b.right,
        hit: hit === cell || cell.contains(hit),
        whole: cell.scrollWidth <= cell.clientWidth + 1,
        text: cell.textContent,
      };
    }, n);
    assert.ok(visible.inside && visible.hit, `move ${n} can be seen by scrolling the table (${JSON.stringify(visible)})`);
    assert.ok(visible.whole, `move ${n} is not cut off: ${visible.text}`);
  }
  assert.equal(await page.evaluate(() => window.scrollY), scrollY, 'scrolling the table never scrolled the page');
  // Scrolling never moved the table's box (a game ending meanwhile adds the review
  // link above the table, and moves it).
  if ((watcher.lastState()?.status === 'finished') === endedBefore) assert.deepEqual(await scroller.boundingBox(), box);
  // Rounds: three moves a row while nobody is out.
  const firstRow = await page.$$eval('[data-testid="moves"] tbody tr:first-child [data-ply]', (ns) => ns.map((n) => n.dataset.ply));
  assert.deepEqual(firstRow, ['1', '2', '3']);

  // Click move 5: the board shows the position after ply 5 of the server's history.
  const h = await history(id);
  assert.ok(h.plies.length >= 90);
  // The bots play on and the table is redrawn at each move: a click
  // that straddles a redraw is lost, so click again until the board follows.
  // On a loaded machine the redraws can keep the cell from ever looking still to
  // Playwright: each try waits briefly and the next one tries again.
  await until('the board shows ply 5', async () => {
    await page.locator('[data-testid="moves"] [data-ply="5"]').click({ timeout: 2000 }).catch(() => {});
    return (await page.locator('.board-box[data-ply="5"]').count()) > 0;
  });
  assert.deepEqual(await boardPieces(page), await positionPieces(page, h.plies[4].position));
  assert.equal(await page.getByTestId('looking-back').isVisible(), true);
  // The last move of that position is marked.
  const [, from, to] = /(\d+[a-m])[-x](\d+[a-m])/.exec(h.plies[4].action) ?? [];
  if (from) {
    for (const c of [from, to]) assert.ok(await page.locator(`[data-cell="${c}"]`).evaluate((n) => n.classList.contains('last')), `${c} marked as the last move`);
  }
  // The game goes on meanwhile: "back to the live position" says a move came.
  await page.waitForSelector('[data-testid="back-to-live"].missed', { timeout: 20000 }).catch(() => {});
  await page.screenshot({ path: `${SHOTS}room-history-desktop.png` });
  // ←/→ step through it.
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('.board-box[data-ply="4"]');
  assert.deepEqual(await boardPieces(page), await positionPieces(page, h.plies[3].position));
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('.board-box[data-ply="6"]');
  assert.deepEqual(await boardPieces(page), await positionPieces(page, h.plies[5].position));
  await page.getByTestId('back-to-live').click();
  await page.waitForSelector('.board-box:not(.history)');
  assert.equal(await page.getByTestId('back-to-live').isVisible(), false);
  assert.deepEqual(watcher.io.errors, []);
  await watcher.context.close();
});

test('a finished game steps from its start to its end; the record downloads with headers; spectators are told they watch', async () => {
  const id = await createRoom({ clock: { kind: 'fischer', main_seconds: 300, increment_seconds: 5 } });
  const seats = ['first', 'middle', 'last'];
  const names = ['Akira', 'Beni', 'Chiyo'];
  const people = [];
  for (const [i, seat] of seats.entries()) {
    const p = await person(seat, { width: 1366, height: 768 });
    await joinRoom(p, live.server, id, names[i], seat);
    people.push(p);
  }
  const fan = await person('fan', { width: 1366, height: 768 });
  await fan.page.goto(`${live.server.url}/rooms/${id}`);
  await until('fan watching', () => fan.lastState());
  for (const p of people) await p.page.getByTestId('ready').click();
  for (let i = 0; i < 4; i++) await playMove(people[i % 3]);
  await until('four moves', () => fan.lastState()?.moves.length === 4);
  // Spectators: a "Watching" label, the count, and their own chat (where they can write) first.
  await fan.page.getByTestId('watching').waitFor();
  assert.match(await fan.page.getByTestId('watching').textContent(), /Watching/);
  await until('spectator count', async () => (await fan.page.getByTestId('spectators').textContent()).includes('1 watching'));
  assert.equal(await fan.page.getByTestId('chat-tab-spectators').getAttribute('aria-selected'), 'true');
  assert.ok(await fan.page.getByTestId('chat-input').isVisible(), 'the spectator can write at once');
  assert.equal(await people[0].page.getByTestId('watching').isVisible(), false);
  // Last then Middle resign: First wins.
  for (const p of [people[2], people[1]]) await resign(p);
  for (const q of [...people, fan]) await q.page.getByTestId('result').waitFor();
  assert.match(await fan.page.getByTestId('result').textContent(), /Akira \(First\) wins/);
  // A player leaves the finished game: nobody sees an abandonment countdown.
  await people[2].context.close();
  await fan.page.waitForSelector('[data-testid="countdown-last"]');
  assert.doesNotMatch(await fan.page.getByTestId('countdown-last').textContent(), /abandoned in/);

  // Opened again, the finished game is in the same viewer: step from the start to the end.
  const h = await history(id);
  assert.deepEqual(h.plies.map((p) => p.action).slice(4), ['resign', 'resign']);
  const late = await person('late', { width: 1366, height: 768 });
  await late.page.goto(`${live.server.url}/rooms/${id}`);
  await late.page.getByTestId('result').waitFor();
  await late.page.waitForSelector(`[data-testid="moves"] [data-ply="${h.plies.length}"]`);
  await late.page.locator('body').click({ position: { x: 5, y: 300 } });
  await late.page.keyboard.press('Home');
  await late.page.waitForSelector('.board-box[data-ply="0"]');
  assert.deepEqual(await boardPieces(late.page), await positionPieces(late.page, h.start));
  assert.equal(await late.page.getByTestId('nav-where').textContent(), 'Start');
  for (let n = 1; n <= h.plies.length; n++) {
    await late.page.keyboard.press('ArrowRight');
    await late.page.waitForSelector(`.board-box[data-ply="${n}"]`);
    assert.deepEqual(await boardPieces(late.page), await positionPieces(late.page, h.plies[n - 1].position), `ply ${n}`);
    assert.equal(await late.page.locator(`[data-testid="moves"] [data-ply="${n}"]`).getAttribute('aria-current'), 'true');
  }
  assert.ok(await late.page.getByTestId('nav-next').isDisabled(), 'the end of the game');
  await late.page.getByTestId('nav-first').click();
  await late.page.waitForSelector('.board-box[data-ply="0"]');
  await late.page.screenshot({ path: `${SHOTS}room-finished-start.png` });

  // The record: the server's moves and result, with site, date, names and time control.
  const [download] = await Promise.all([
    late.page.waitForEvent('download'),
    late.page.getByTestId('download-record').click(),
  ]);
  const text = await readFile(await download.path(), 'utf8');
  const server0 = await (await fetch(`${live.server.url}/api/rooms/${id}/record`)).text();
  for (const header of ['[Site "', '[Date "', '[First "Akira"]', '[Middle "Beni"]', '[Last "Chiyo"]', '[TimeControl "300+5"]', '[Result "']) {
    assert.ok(text.includes(header), `record has ${header}: ${text}`);
  }
  for (const a of h.plies.filter((p) => !['resign'].includes(p.action))) assert.ok(text.includes(a.action), `record has ${a.action}`);
  assert.ok(text.trimEnd().endsWith(server0.trim().split('\n').at(-1)), 'the moves as the server wrote them');
  for (const q of [people[0], people[1], fan, late]) assert.deepEqual(q.io.errors, []);
  for (const q of [people[0], people[1], fan, late]) await q.context.close();
});

test('a newcomer from "Play the computer": plays with the mouse, then ←/Home/End step through the game; the start notice above the board; no English default names', async () => {
  const p = await person('newcomer', { width: 1366, height: 768 });
  await p.page.goto(`${live.server.url}/`);
  await p.page.getByTestId('computer-level').selectOption('0');
  await p.page.getByTestId('play-computer').click();
  await until('playing', () => p.lastState()?.status === 'playing');
  await p.page.waitForSelector('[data-testid="turn"].mine');
  // The page took the seat over from the lobby: that is no "First is back" news, and
  // nobody is called by the server's English default names ("First", "Bot (level 0)").
  assert.doesNotMatch(await p.page.getByTestId('log').textContent(), /back/i);
  assert.equal(await p.page.locator('[data-testid="seat-first"] .name').textContent(), '');
  assert.equal(await p.page.locator('[data-testid="seat-middle"] .name').textContent(), '');
  // Two moves by clicking, the bots answering each.
  for (let i = 0; i < 2; i++) {
    const { ply } = await playMove(p);
    await until('the bots answered', () => {
      const st = p.lastState();
      return st.moves.length >= ply + 3 && st.to_move === 'first' ? st : null;
    });
  }
  await p.page.waitForSelector('[data-testid="turn"].mine');
  const plies = p.lastState().moves.length;
  // The focus is on the board cell last clicked: the arrows still step through the game.
  assert.ok(await p.page.evaluate(() => Boolean(document.activeElement?.closest('svg.board'))), 'a board cell has the focus');
  await p.page.keyboard.press('ArrowLeft');
  await p.page.waitForSelector(`.board-box[data-ply="${plies - 1}"]`);
  assert.ok(await p.page.getByTestId('looking-back').isVisible());
  await p.page.keyboard.press('Home');
  await p.page.waitForSelector('.board-box[data-ply="0"]');
  await p.page.keyboard.press('ArrowRight');
  await p.page.waitForSelector('.board-box[data-ply="1"]');
  await p.page.keyboard.press('End');
  await p.page.waitForSelector('.board-box:not(.history)');
  assert.equal(await p.page.getByTestId('looking-back').isVisible(), false);
  assert.deepEqual(p.io.errors, []);

  const id = await createRoom({ bots: { middle: 0, last: 0 } });
  await joinRoom(p, live.server, id, 'Akira', 'first');
  await p.page.getByTestId('ready').click();
  // In a game that starts while the page is open, the start notice goes in the line
  // above the board: the board's top rows stay clear, a click there reaches the board.
  await p.page.locator('[data-testid="notice-line"][data-kind="start"]').waitFor();
  const clear = await p.page.evaluate(() => {
    const line = document.querySelector('[data-testid="notice-line"]').getBoundingClientRect();
    const board = document.querySelector('svg.board').getBoundingClientRect();
    const top = [...document.querySelectorAll('[data-cell]')].map((c) => c.getBoundingClientRect()).reduce((a, b) => (b.top < a.top ? b : a));
    const under = document.elementFromPoint(top.left + top.width / 2, top.top + top.height / 2);
    return { above: line.bottom <= board.top, board: Boolean(under?.closest('svg.board')) };
  });
  assert.deepEqual(clear, { above: true, board: true });

  assert.deepEqual(p.io.errors, []);
  await p.context.close();
});
