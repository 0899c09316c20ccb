// Aborting, takebacks, giving time and Sannin TV (docs/protocol.md §17) against the real
// server, by clicking: a game aborted in its first moves by one of three players, every
// page saying so and the three seated at the table again, its chat kept; a move taken back when both others accept (board and move table back
// to before it on every page), a second request declined; "+15 s" given to another
// player's clock; /tv saying so when no game is being played, showing the game
// started since, then by itself the next one once that game ends. Screenshots go to
// SHOTS_DIR or e2e/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS as DEFAULT_SHOTS, boardPieces, joinRoom, person as newPerson, playMove, positionPieces, resign, until } from '../lib/people.mjs';

const SHOTS = process.env.SHOTS_DIR ? `${process.env.SHOTS_DIR.replace(/\/$/, '')}/` : DEFAULT_SHOTS;
const live = serverAndBrowser({ shots: SHOTS, serverArgs: ['--bot-min-move-ms', '10'] });

const NAMES = { first: 'Akira', middle: 'Beni', last: 'Chiyo' };

test('the room model: a move taken back leaves the moves and the history, whatever the next state carries', async () => {
  const model = await import('../../static/js/room/model.js');
  const { START } = await import('../lib/mock.mjs');
  const P1 = START.replace(' F -/-/- FML - FML', ' M -/-/- FML - FML');
  const P2 = START.replace(' F -/-/- FML - FML', ' L -/-/- FML - FML');
  const base = { type: 'state', seq: 1, status: 'playing', position: START, start_position: START, moves: [], move_players: [],
    seats: {}, to_move: 'first', legal: [], you: 'first', in_check: [], takeback: null };
  for (const whole of [true, false]) {
    const m = model.createModel();
    model.applyState(m, base);
    model.setHistory(m, { start: START, plies: [] });
    model.applyEvent(m, { type: 'action', player: 'first', action: 'P3c-4c' });
    model.applyState(m, { ...base, position: P1, to_move: 'middle', moves: undefined, move_players: undefined });
    model.applyEvent(m, { type: 'action', player: 'middle', action: 'P10k-10j' });
    model.applyState(m, { ...base, position: P2, to_move: 'last', moves: undefined, move_players: undefined });
    model.applyEvent(m, { type: 'takeback_offered', seat: 'middle' });
    assert.deepEqual(m.state.takeback, { seat: 'middle', accepted: [] });
    model.goTo(m, 2 - 1); // looking at ply 1
    const { notices } = model.applyEvent(m, { type: 'took_back', seat: 'middle', ply: 2 });
    assert.equal(notices[0].type, 'took_back');
    const next = whole ? { moves: ['P3c-4c'], move_players: ['first'] } : { moves: undefined, move_players: undefined };
    model.applyState(m, { ...base, position: P1, to_move: 'middle', ...next });
    assert.deepEqual(m.state.moves, ['P3c-4c'], `moves (a state ${whole ? 'with' : 'without'} them)`);
    assert.deepEqual(m.state.move_players, ['first']);
    assert.deepEqual(m.history.plies.map((p) => p.action), ['P3c-4c']);
    assert.equal(m.historyStale, false);
    assert.equal(m.state.takeback, null);
    assert.equal(m.view, null, 'the live position again');
    assert.deepEqual([...model.shown(m).last].sort(), ['3c', '4c']);
  }
});

async function createRoom(body = {}) {
  const res = await fetch(`${live.server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()).id;
}

/** Three people take the seats of a new room (`body`: its settings), get ready, and the
 * game starts. Returns `{ id, first, middle, last, all }`. */
async function table(body = {}) {
  const id = await createRoom(body);
  const t = { id, all: [] };
  for (const seat of ['first', 'middle', 'last']) {
    const p = await newPerson(live.browser, seat);
    await joinRoom(p, live.server, id, NAMES[seat], seat);
    t[seat] = p;
    t.all.push(p);
  }
  for (const p of t.all) await p.page.getByTestId('ready').click();
  for (const p of t.all) await until(`${p.label}: playing`, () => p.lastState()?.status === 'playing');
  return t;
}

async function closeAll(people) {
  for (const p of people) await p.context.close();
}

const movesShown = (page) => page.$$eval('[data-testid="moves"] [data-ply]', (ns) => ns.map((n) => n.textContent.trim()));
const lastMoveCells = (page) => page.$$eval('[data-cell].last', (ns) => ns.map((n) => n.dataset.cell).sort());
const noErrors = (people) => assert.deepEqual(people.flatMap((p) => p.io.errors), []);

test('a player aborts the game in its first moves: the same three sit at the table again, its chat kept, nobody rated', async () => {
  const t = await table();
  await t.first.page.getByTestId('chat-input').fill('good luck');
  await t.first.page.getByTestId('chat-send').click();
  for (const p of t.all) await until(`${p.label} reads the chat`, async () => (await p.page.getByTestId('chat-players').textContent()).includes('good luck'));
  await playMove(t.first);
  await until('middle to move', () => t.middle.lastState()?.to_move === 'middle');
  // Everyone still in the game may abort: the button is there on all three pages.
  for (const p of t.all) await p.page.getByTestId('abort').waitFor();
  await t.middle.page.getByTestId('abort').click();
  await t.middle.page.getByTestId('abort-confirm').waitFor();
  assert.match(await t.middle.page.getByTestId('abort-ask').textContent(), /nobody is rated/);
  await t.middle.page.getByTestId('controls').screenshot({ path: `${SHOTS}play-abort-confirm.png` });
  // "No" keeps the game; the second time it goes.
  await t.middle.page.getByTestId('abort-cancel').click();
  assert.equal(t.middle.io.sent.some((m) => m.type === 'abort'), false);
  await t.middle.page.getByTestId('abort').click();
  await t.middle.page.getByTestId('abort-confirm').click();
  await until('abort sent', () => t.middle.io.sent.some((m) => m.type === 'abort'));
  // A table of friends is not given up: the same three, seated, wait for ready again.
  for (const p of t.all) {
    await until(`${p.label}: waiting again`, () => p.lastState()?.status === 'waiting');
    await p.page.getByTestId('ready').waitFor();
    const turn = await p.page.getByTestId('turn').textContent();
    if (p === t.middle) assert.equal(turn, 'You aborted the game; the table waits for everyone to be ready again.');
    else assert.equal(turn, 'Game aborted by Beni (Middle); the table waits for everyone to be ready again.');
    for (const [seat, name] of Object.entries(NAMES)) assert.match(await p.page.getByTestId(`seat-${seat}`).textContent(), new RegExp(name));
    assert.ok((await p.page.getByTestId('chat-players').textContent()).includes('good luck'), `${p.label}: the chat is kept`);
    assert.equal(await p.page.getByTestId('table-aborted').count(), 0);
    assert.deepEqual(await movesShown(p.page), []);
    assert.deepEqual(await boardPieces(p.page), await positionPieces(p.page, p.lastState().start_position), `${p.label}: the start position`);
    const ev = p.io.events.find((e) => e.type === 'game_aborted');
    assert.equal(ev.seat, 'middle');
    assert.equal(p.io.events.some((e) => e.type === 'table_aborted'), false);
  }
  const res = await fetch(`${live.server.url}/api/rooms/${t.id}`);
  const room = await res.json();
  assert.deepEqual([res.status, room.status, room.moves, room.result], [200, 'waiting', [], null], 'nobody is rated: no game');
  // Everyone ready again: a new game at the same table.
  for (const p of t.all) await p.page.getByTestId('ready').click();
  for (const p of t.all) await until(`${p.label}: playing again`, () => p.lastState()?.status === 'playing' && p.lastState().moves.length === 0);
  // Aborted again before any move, so that no running game is left for /tv.
  await t.first.page.getByTestId('abort').click();
  await t.first.page.getByTestId('abort-confirm').click();
  for (const p of t.all) await until(`${p.label}: waiting once more`, () => p.lastState()?.status === 'waiting');
  assert.equal(await t.last.page.getByTestId('turn').textContent(), 'Game aborted by Akira (First); the table waits for everyone to be ready again.');
  noErrors(t.all);
  await closeAll(t.all);
});

test('a move taken back when both others accept; a second request declined', async () => {
  const t = await table();
  await playMove(t.first);
  for (const p of t.all) await until(`${p.label}: 1 move`, async () => (await movesShown(p.page)).length === 1);
  const board1 = await boardPieces(t.last.page);
  const last1 = await lastMoveCells(t.last.page);
  await playMove(t.middle);
  for (const p of t.all) await until(`${p.label}: 2 moves`, async () => (await movesShown(p.page)).length === 2);
  // Only the one who made the last move may ask, and only while another is to move.
  await t.middle.page.getByTestId('ask-takeback').waitFor();
  for (const p of [t.first, t.last]) assert.equal(await p.page.getByTestId('ask-takeback').count(), 0);
  // First queues a premove meanwhile: it must not outlive the takeback.
  const cells = await boardPieces(t.first.page);
  const pawn = Object.keys(cells).find((c) => cells[c] === 'fP');
  const empty = Object.keys(cells).find((c) => cells[c] === '');
  await t.first.page.locator(`[data-cell="${pawn}"]`).click();
  await t.first.page.locator(`[data-cell="${empty}"]`).click();
  await t.first.page.getByTestId('premove-hint').waitFor();
  await t.middle.page.getByTestId('ask-takeback').click();
  await until('offer sent', () => t.middle.io.sent.some((m) => m.type === 'offer_takeback'));
  for (const p of [t.first, t.last]) {
    await p.page.getByTestId('accept-takeback').waitFor();
    assert.equal(await p.page.getByTestId('takeback-request').textContent(),
      `Beni (Middle) asks to take back their last move. Waiting for ${p === t.first ? 'you and Chiyo (Last)' : 'Akira (First) and you'}.`);
  }
  await t.middle.page.getByTestId('takeback-request').waitFor();
  assert.match(await t.middle.page.getByTestId('takeback-request').textContent(), /^You asked to take back your last move\. Waiting for Akira \(First\) and Chiyo \(Last\)\./);
  assert.equal(await t.middle.page.getByTestId('accept-takeback').count(), 0);
  await t.last.page.getByTestId('controls').screenshot({ path: `${SHOTS}play-takeback-asked.png` });
  await t.last.page.screenshot({ path: `${SHOTS}play-takeback-asked-page.png` });

  await t.first.page.getByTestId('accept-takeback').click();
  // The one who asked sees who accepted (once the server says so).
  await until('middle sees Akira accepted', async () =>
    /Accepted by Akira \(First\)\./.test(await t.middle.page.getByTestId('takeback-request').textContent()));
  await t.first.page.waitForSelector('[data-testid="accept-takeback"]', { state: 'detached' });
  await t.last.page.getByTestId('accept-takeback').click();
  for (const p of t.all) {
    await until(`${p.label}: back to 1 move`, async () => (await movesShown(p.page)).length === 1);
    await p.page.waitForSelector('[data-testid="takeback-request"]', { state: 'detached' });
    assert.deepEqual(await boardPieces(p.page), board1, `${p.label}: the board as before the move`);
    assert.deepEqual(await lastMoveCells(p.page), last1, `${p.label}: the last move marked is First's`);
    assert.equal(p.lastState().to_move, 'middle');
  }
  assert.equal(await t.first.page.getByTestId('premove-hint').count(), 0, 'First\'s premove is gone');
  assert.equal(await t.first.page.locator('[data-cell].premove').count(), 0);
  assert.ok(t.all.every((p) => p.io.events.some((e) => e.type === 'took_back' && e.seat === 'middle')));

  // Middle plays again and asks again; Last declines: the request goes everywhere.
  await playMove(t.middle);
  for (const p of t.all) await until(`${p.label}: 2 moves again`, async () => (await movesShown(p.page)).length === 2);
  await t.middle.page.getByTestId('ask-takeback').click();
  await t.last.page.getByTestId('decline-takeback').click();
  for (const p of t.all) {
    await until(`${p.label}: takeback_declined`, () => p.io.events.some((e) => e.type === 'takeback_declined'));
    await p.page.waitForSelector('[data-testid="takeback-request"]', { state: 'detached' });
    assert.equal((await movesShown(p.page)).length, 2);
  }
  const log = await t.middle.page.getByTestId('log').textContent();
  assert.match(log, /Chiyo \(Last\) declined the takeback\./);
  noErrors(t.all);
  // The game goes: aborted (3 plies), so that no running game is left for /tv.
  await t.first.page.getByTestId('abort').click();
  await t.first.page.getByTestId('abort-confirm').click();
  for (const p of t.all) await until(`${p.label}: waiting again`, () => p.lastState()?.status === 'waiting');
  await closeAll(t.all);
});

test('"+15 s" beside another player\'s clock gives that player 15 seconds', async () => {
  const t = await table({ clock: { kind: 'fischer', main_seconds: 300, increment_seconds: 0 } });
  const { middle, last } = t;
  // Beside the other two players' clocks, not one's own.
  await middle.page.getByTestId('give-time-last').waitFor();
  await middle.page.getByTestId('give-time-first').waitFor();
  assert.equal(await middle.page.getByTestId('give-time-middle').count(), 0);
  const before = last.lastState().clocks.last.remaining_ms;
  const shownBefore = Number(await middle.page.getByTestId('clock-last').getAttribute('data-ms'));
  await middle.page.getByTestId('seat-last').screenshot({ path: `${SHOTS}play-give-time.png` });
  await middle.page.getByTestId('give-time-last').click();
  await until('give_time sent', () => middle.io.sent.some((m) => m.type === 'give_time' && m.seat === 'last'));
  await until('time_given', () => middle.io.events.some((e) => e.type === 'time_given'));
  const ev = middle.io.events.find((e) => e.type === 'time_given');
  assert.deepEqual(ev, { type: 'time_given', from: 'middle', to: 'last', ms: 15000 });
  await until('the clocks with 15 s more', () => last.lastState()?.clocks?.last?.remaining_ms === before + 15000);
  await until('middle\'s page shows 15 s more', async () =>
    Number(await middle.page.getByTestId('clock-last').getAttribute('data-ms')) === shownBefore + 15000);
  assert.match(await middle.page.getByTestId('clock-last').textContent(), /5:15/);
  assert.match(await middle.page.getByTestId('log').textContent(), /You gave Chiyo \(Last\) 15 s\./);
  assert.match(await last.page.getByTestId('log').textContent(), /Beni \(Middle\) gave you 15 s\./);
  noErrors(t.all);
  await t.first.page.getByTestId('abort').click();
  await t.first.page.getByTestId('abort-confirm').click();
  for (const p of t.all) await until(`${p.label}: waiting again`, () => p.lastState()?.status === 'waiting');
  await closeAll(t.all);
});

test('/tv says when no game is being played, shows the next one, and after its end the next by itself', async () => {
  // No game is left running by the tests above: /tv says so, and asks again.
  const viewer = await newPerson(live.browser, 'viewer');
  await viewer.page.goto(`${live.server.url}/tv`);
  await viewer.page.getByTestId('tv-title').filter({ hasText: 'Sannin TV' }).waitFor();
  await viewer.page.getByTestId('tv-status').filter({ hasText: 'No game is being played right now' }).waitFor();
  assert.equal(await viewer.page.getByTestId('nav-tv').getAttribute('aria-current'), 'page');

  // A game of bots and one of three people start; at its next question /tv shows the
  // people's game (people come before bots).
  const bots = await createRoom({ bots: { first: 0, middle: 0, last: 0 } });
  const t = await table();
  await until('tv shows the people\'s game', async () => (await viewer.page.getByTestId('tv-players').getAttribute('data-room')) === t.id, 20_000);
  await viewer.page.waitForSelector('[data-testid="tv"] svg.board');
  // The board can be drawn a moment before the page's socket has recorded its state.
  await until('its state', () => viewer.lastState()?.room === t.id && viewer.lastState().status === 'playing');
  assert.equal(viewer.lastState().you, null, 'a spectator');
  // Three guests, each tagged as one.
  assert.equal(await viewer.page.getByTestId('tv-players').textContent(), 'Akira guest · Beni guest · Chiyo guest');
  assert.equal(await viewer.page.getByTestId('tv-players').getByTestId('guest-mark').count(), 3);
  await viewer.page.waitForSelector('[data-testid="seat-first"] .name');
  await viewer.page.screenshot({ path: `${SHOTS}play-tv.png` });

  // Each plays a move, then First and Middle resign: the game is over, and /tv goes
  // to the bots' game by itself, the address still /tv.
  for (const p of t.all) await playMove(p);
  for (const p of [t.first, t.middle]) await resign(p);
  await until('the people\'s game over', () => viewer.io.states.some((s) => s.room === t.id && s.status === 'finished'));
  await viewer.page.getByTestId('tv-status').filter({ hasText: 'The game is over' }).waitFor();
  await until('tv shows the bots\' game', async () => (await viewer.page.getByTestId('tv-players').getAttribute('data-room')) === bots, 15_000);
  await until('its state', () => viewer.lastState()?.room === bots);
  assert.equal(new URL(viewer.page.url()).pathname, '/tv');
  noErrors([viewer, ...t.all]);
  await closeAll([viewer, ...t.all]);
});
