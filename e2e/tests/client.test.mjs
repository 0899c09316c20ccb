// The browser client against a scripted server (Playwright routing): geometry, drawing
// from each side, selection and targets from `legal` only, promotion choice, drops,
// illumination, keyboard use, seq gaps, reconnects, and text-only user names.
// Runs without the Rust server; game.test.mjs covers the real one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { launch } from '../lib/browser.mjs';
import { cell, mockServer, openMockRoom, ORIGIN, sends, START } from '../lib/mock.mjs';
import { until } from '../lib/people.mjs';
import { chooseLang } from '../lib/site.mjs';

const SHOTS = new URL('../screenshots/', import.meta.url).pathname;
let browser;
before(async () => {
  browser = await launch();
  await mkdir(SHOTS, { recursive: true });
});
after(async () => { await browser?.close(); });

const SEATS = {
  first: { name: 'Akira', connected: true, ready: true },
  middle: { name: '<img src=x onerror="window.pwned=1">Beni', connected: true, ready: true },
  last: { name: 'Chiyo', connected: true, ready: true },
};

// First to move at the start; a few of its real opening actions (RULES §4).
const FIRST_LEGAL = ['P3c-4c', 'P3c-4d', 'B2g-4h', 'B2g-6i', 'B2g-8j', 'B2gx10k+', 'B2gx10k='];

function state(over = {}) {
  return {
    type: 'state', seq: 3, position: START, moves: [], seats: SEATS, status: 'playing',
    to_move: 'first', legal: [], you: null, illumination: null, outcome: null, result: null, ...over,
  };
}

const openRoom = (first, options) => openMockRoom(browser, first, options);

test('geometry: 127 cells, depths, territories and the 120° views (RULES §1–§2)', async () => {
  const { page } = await openRoom(state());
  const g = await page.evaluate(async () => {
    const m = await import('/js/geometry.js');
    const count = m.CELLS.length;
    const sums = m.CELLS.every(({ r, f }) => m.SEATS.reduce((a, s) => a + m.depth(s, r, f), 0) === 18);
    const terr = { first: 0, middle: 0, last: 0, none: 0 };
    for (const { r, f } of m.CELLS) terr[m.territoryOf(r, f) ?? 'none'] += 1;
    const views = {};
    for (const view of m.SEATS) {
      const at = m.layout(view, 10);
      // Every neighbour pair is the same distance apart on screen.
      const dists = new Set();
      for (const { r, f } of m.CELLS) {
        for (const [a, b] of m.neighbours(r, f)) {
          const p = at(r, f); const q = at(a, b);
          dists.add(Math.hypot(p.x - q.x, p.y - q.y).toFixed(3));
        }
      }
      // The lowest row of cells on screen is the viewer's home edge (depth 0).
      const ys = m.CELLS.map(({ r, f, name }) => ({ name, y: at(r, f).y, d: m.depth(view, r, f) }));
      const maxY = Math.max(...ys.map((c) => c.y));
      const bottom = ys.filter((c) => Math.abs(c.y - maxY) < 1e-6);
      views[view] = { dists: [...dists], bottom: bottom.length, bottomDepths: [...new Set(bottom.map((c) => c.d))] };
    }
    return { count, sums, terr, views, pg: m.territoryOf(6, 6) };
  });
  assert.equal(g.count, 127);
  assert.ok(g.sums);
  assert.deepEqual(g.terr, { first: 24, middle: 24, last: 24, none: 55 });
  assert.equal(g.pg, null);
  for (const view of ['first', 'middle', 'last']) {
    assert.equal(g.views[view].dists.length, 1, `${view}: neighbours equidistant`);
    assert.equal(g.views[view].bottom, 7, `${view}: 7 cells on the bottom edge`);
    assert.deepEqual(g.views[view].bottomDepths, [0], `${view}: own home edge at the bottom`);
  }
  assert.equal(await page.locator('[data-cell]').count(), 127);
  await page.close();
});

test('start position drawn from every side; pieces face their owner\'s way', async () => {
  const { page, errors } = await openRoom(state());
  assert.equal(await page.locator('[data-cell] .piece').count(), 54);
  assert.equal(await cell(page, '10k').locator('.piece').getAttribute('data-piece'), 'mP');
  assert.equal(await cell(page, '1d').locator('.piece').getAttribute('data-piece'), 'fK');
  assert.equal(await cell(page, '10d').locator('.piece').getAttribute('data-piece'), 'lK');
  assert.ok(await cell(page, '7g').evaluate((n) => n.classList.contains('garden')));
  assert.ok(await cell(page, '1a').evaluate((n) => n.classList.contains('terr-first')));
  assert.ok(await cell(page, '7m').evaluate((n) => n.classList.contains('terr-middle')));
  assert.ok(await cell(page, '13g').evaluate((n) => n.classList.contains('terr-last')));
  for (const view of ['first', 'middle', 'last']) {
    await page.getByTestId(`view-${view}`).click();
    await page.waitForSelector(`[data-testid="board"][data-view="${view}"]`);
    // Each viewer's own pieces point straight up; the others' are turned by ±120°.
    const rot = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[data-cell] .piece')]
      .map((p) => [p.dataset.piece[0], p.getAttribute('transform')])));
    assert.equal(rot[view[0]], 'rotate(0)', `${view} sees its own pieces upright`);
    // Kings stand on their owner's home edge, which is at the bottom for the viewer.
    const kingY = await cell(page, { first: '1d', middle: '10m', last: '10d' }[view]).boundingBox();
    const board = await page.getByTestId('board').boundingBox();
    assert.ok(kingY.y > board.y + board.height * 0.75, `${view}'s king is near the bottom`);
    await page.getByTestId('board').screenshot({ path: `${SHOTS}mock-start-${view}.png` });
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('select shows targets from `legal` only; promotion choice; illegal clicks send nothing', async () => {
  const { page, sent } = await openRoom(state({ you: 'first', legal: FIRST_LEGAL }), { token: 'tok-first' });
  // The board may be drawn before the socket opens: wait for the first message.
  await until('the resume sent', () => sent.length > 0);
  assert.deepEqual(sent[0], { type: 'resume', token: 'tok-first' });
  await page.waitForSelector('[data-testid="turn"].mine');
  const before = sent.length;
  // A Middle piece, an empty cell and a First piece with no legal move: nothing happens.
  await cell(page, '10m').click();
  await cell(page, '5e').click();
  await cell(page, '1d').click();
  assert.equal(await page.locator('[data-target]').count(), 0);
  assert.equal(sent.length, before);
  // The bishop: exactly its targets from `legal`.
  await cell(page, '2g').click();
  const targets = await page.$$eval('[data-target]', (ns) => ns.map((n) => `${n.dataset.cell}:${n.dataset.target}`).sort());
  assert.deepEqual(targets, ['10k:capture', '4h:move', '6i:move', '8j:move']);
  // A non-target cell while selected cancels, sends nothing.
  await cell(page, '5e').click();
  assert.equal(await page.locator('[data-target]').count(), 0);
  assert.equal(sent.length, before);
  // Promote or not: both are legal, so the client asks.
  await cell(page, '2g').click();
  await cell(page, '10k').click();
  await page.getByTestId('promotion-dialog').waitFor();
  await page.getByTestId('board').page().screenshot({ path: `${SHOTS}mock-promotion.png` });
  assert.deepEqual(await sends(sent, () => page.getByTestId('promote-yes').click()), { type: 'act', action: 'B2gx10k+' });
  await page.close();
});

test('a new position redraws the cells that changed and keeps the others\' drawings', async () => {
  const { page, server, errors } = await openRoom(state());
  const pieces = page.locator('svg.board .piece');
  assert.equal(await pieces.count(), 54);
  const mark = () => page.evaluate(() => { for (const p of document.querySelectorAll('svg.board .piece')) p.dataset.kept = '1'; });
  const fresh = () => page.locator('svg.board .piece:not([data-kept])').count();
  await mark();
  // Middle's first pawn gone: that cell is emptied, the 53 other drawings stay.
  const oneLess = START.replace('/mPmPmPmPmNmPmPmPmP/', '/1mPmPmPmNmPmPmPmP/');
  server().send(JSON.stringify(state({ seq: 4, position: oneLess })));
  await until('the pawn gone', async () => (await pieces.count()) === 53);
  assert.equal(await fresh(), 0);
  // Back: one new drawing, on that cell.
  server().send(JSON.stringify(state({ seq: 5 })));
  await until('the pawn back', async () => (await pieces.count()) === 54);
  assert.equal(await fresh(), 1);
  assert.deepEqual(errors, []);
  await page.close();
});

test('keyboard: arrows move focus, Enter selects and plays, Escape cancels', async () => {
  const { page, sent } = await openRoom(state({ you: 'first', legal: FIRST_LEGAL }), { token: 't' });
  await page.waitForSelector('[data-testid="turn"].mine');
  await page.getByTestId('view-middle').click(); // Middle's view: rows are ranks
  await page.keyboard.press('Tab'); // a keyboard user: the arrows walk the board
  await cell(page, '7g').focus();
  const focused = () => page.evaluate(() => document.activeElement?.dataset?.cell);
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), '6g');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await focused(), '8g');
  await page.keyboard.press('ArrowUp');
  assert.ok(['8f', '7f'].includes(await focused()));
  // Walk to 2g (the First bishop): right along rank g from 7g.
  await cell(page, '7g').focus();
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), '2g');
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('[data-target]').count(), 4);
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('[data-target]').count(), 0);
  await page.keyboard.press(' ');
  assert.equal(await page.locator('[data-target]').count(), 4);
  // Move to 4h: down-left twice from 2g in Middle's view is 3h, 4i... go by name instead.
  await cell(page, '4h').focus();
  assert.deepEqual(await sends(sent, () => page.keyboard.press('Enter')), { type: 'act', action: 'B2g-4h' });
  await page.close();
});

test('drops from hand and illumination', async () => {
  const pos = START.replace(' F -/-/- FML - FML', ' F 2P/-/- FML - FML');
  const { page, sent } = await openRoom(state({
    you: 'first', position: pos, legal: ['P*5e', 'P*6e', 'P3c-4c', '+K1d!'], illumination: ['3g', '5e'],
  }), { token: 't' });
  await page.waitForSelector('[data-testid="turn"].mine');
  assert.equal(await page.getByTestId('hand-first').locator('[data-kind="P"]').getAttribute('data-count'), '2');
  await page.getByTestId('drop-P').click();
  const targets = await page.$$eval('[data-target]', (ns) => ns.map((n) => n.dataset.cell).sort());
  assert.deepEqual(targets, ['5e', '6e']);
  assert.deepEqual(await sends(sent, () => cell(page, '6e').click()), { type: 'act', action: 'P*6e' });
  // The server answers with a new state where it is our move again (scripted).
  await page.close();

  const r2 = await openRoom(state({ you: 'first', legal: ['+K1d!', 'P3c-4c'], illumination: ['3g', '5e'] }), { token: 't' });
  // By keyboard: the button, then the confirmation that takes focus.
  await r2.page.getByTestId('illuminate').focus();
  await r2.page.keyboard.press('Enter');
  assert.deepEqual(await r2.page.$$eval('.cell.lit', (ns) => ns.map((n) => n.dataset.cell).sort()), ['3g', '5e']);
  assert.equal(await r2.page.evaluate(() => document.activeElement.dataset.testid), 'illuminate-confirm');
  await r2.page.getByTestId('board').screenshot({ path: `${SHOTS}mock-illuminate.png` });
  assert.deepEqual(await sends(r2.sent, () => r2.page.keyboard.press('Enter')), { type: 'act', action: '+K1d!' });
  await r2.page.close();
});

test('events: alliance notice, check on the king, result; names are text', async () => {
  const { page, server, errors } = await openRoom(state({ you: 'middle', to_move: 'first' }), { token: 't' });
  const ws = server();
  let seq = 3;
  const ev = (event) => ws.send(JSON.stringify({ type: 'event', seq: ++seq, event }));
  ev({ type: 'action', player: 'first', action: 'P3c-4c' });
  ev({ type: 'check', player: 'Middle', by: ['First'] });
  ev({ type: 'alliance_formed', allies: ['First', 'Last'], cause: 'discovered' });
  await page.locator('[data-testid="notice-line"][data-kind="alliance"]').waitFor();
  // Named for the reader (Middle, left alone): who allied against it, why, and what it
  // changes for it (RULES §12.5).
  assert.match(await page.getByTestId('notice-line').textContent(), /Akira \(First\) and Chiyo \(Last\) are now allied against you.*discovered attack.*Your king is promoted/);
  assert.ok(await cell(page, '10m').evaluate((n) => n.classList.contains('check')));
  // The notice lies above the board, on a phone too, never over it.
  for (const [tag, viewport] of [['desktop', { width: 1366, height: 768 }], ['phone', { width: 390, height: 844 }]]) {
    await page.setViewportSize(viewport);
    const box = await page.getByTestId('notice-line').boundingBox();
    const board = await page.locator('svg.board').boundingBox();
    assert.ok(box.y + box.height <= board.y, `${tag}: the notice above the board`);
    await page.screenshot({ path: `${SHOTS}mock-alliance-${tag}.png` });
  }
  // In Japanese, on a phone: the whole notice is read, still above the board.
  await chooseLang(page, 'ja');
  assert.equal(await page.locator('.notice-line.shown').count(), 0, 'the notice in English went');
  ev({ type: 'alliance_formed', allies: ['First', 'Last'], cause: 'discovered' });
  await page.locator('[data-testid="notice-line"][data-kind="alliance"]').waitFor();
  const text = page.locator('.notice-line .notice-text');
  assert.ok(await text.evaluate((n) => n.scrollHeight <= n.clientHeight + 1), 'not cut off');
  assert.ok((await page.locator('.notice-line .notice').boundingBox()).y + (await page.locator('.notice-line .notice').boundingBox()).height
    <= (await page.locator('svg.board').boundingBox()).y, 'above the board');
  await page.screenshot({ path: `${SHOTS}mock-alliance-phone-ja.png` });
  await chooseLang(page, 'en');
  await page.setViewportSize({ width: 1200, height: 900 });
  // Name with markup shows as text, runs nothing.
  assert.match(await page.getByTestId('seat-middle').textContent(), /<img src=x/);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  ws.send(JSON.stringify(state({
    seq, you: 'middle', status: 'finished', to_move: null, moves: ['P3c-4c'],
    position: START.replace(' F -/-/- FML - FML', ' - -/-/- FL FL -'),
    outcome: { winners: ['First', 'Last'], reason: 'alliance_defeated', ranking: ['First', 'Last', 'Middle'] },
  })));
  await page.getByTestId('result').waitFor();
  assert.match(await page.getByTestId('result').textContent(), /Akira \(First\) and Chiyo \(Last\) win/);
  // The game is over for the reader: a rematch, or a new game from the lobby.
  assert.ok(await page.getByTestId('rematch').isVisible());
  assert.equal(await page.getByTestId('result').getByTestId('new-game').getAttribute('href'), '/');
  assert.equal(await page.getByTestId('out-offer').count(), 0);
  assert.equal(await page.getByTestId('seat-middle').getAttribute('data-eliminated'), 'true');
  await page.screenshot({ path: `${SHOTS}mock-finished.png`, fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a gap in seq asks for a fresh state; a dropped socket reconnects and resumes', async () => {
  const { page, sent, server, sockets } = await openRoom((n) => state({ seq: n === 1 ? 3 : 9, you: 'middle' }), { token: 'tok' });
  server().send(JSON.stringify({ type: 'event', seq: 6, event: { type: 'player_ready', seat: 'first', ready: true } }));
  await until('the page asks for a fresh state', () => sent.some((m) => m.type === 'sync'));
  assert.deepEqual(sent.at(-1), { type: 'sync' });
  server().close();
  await page.waitForSelector('[data-testid="conn-status"][data-phase="reconnecting"]');
  assert.match(await page.getByTestId('conn-status').textContent(), /Reconnecting/);
  await page.waitForSelector('[data-testid="conn-status"][data-phase="open"]', { timeout: 10000 });
  assert.equal(sockets.length, 2);
  await until('the new socket resumes', () => sent.at(-1)?.type === 'resume');
  assert.deepEqual(sent.at(-1), { type: 'resume', token: 'tok' });
  await page.close();
});

test('server errors are shown in words; bad tokens are forgotten', async () => {
  const { page, server, sent } = await openRoom(state({ you: null }), { token: 'stale' });
  // Said in the page's words for the code, not in the server's.
  server().send(JSON.stringify({ type: 'error', code: 'bad_token', message: 'That seat token is not valid here.' }));
  await page.getByText('Your seat in this room is gone: you are watching.').waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem('sannin.token.r1')), null);
  await until('the page watches', () => sent.at(-1)?.type === 'watch');
  assert.deepEqual(sent.at(-1), { type: 'watch' });
  // Errors go above the board, never over it, and are read whole (on a phone too).
  const long = 'This game is rated: log in (top right) to take a seat. You can watch without an account.';
  for (const [tag, viewport] of [['desktop', { width: 1366, height: 768 }], ['phone', { width: 390, height: 844 }]]) {
    await page.setViewportSize(viewport);
    server().send(JSON.stringify({ type: 'error', code: 'login_required', message: 'login required' }));
    const error = page.getByTestId('error');
    await until('the error shown', async () => (await error.textContent()) === long);
    const box = await error.boundingBox();
    assert.ok(box.y + box.height <= (await page.locator('svg.board').boundingBox()).y, `${tag}: above the board`);
    assert.ok(await error.evaluate((n) => n.scrollHeight <= n.clientHeight + 1), `${tag}: not cut off`);
    await page.screenshot({ path: `${SHOTS}mock-error-${tag}.png` });
  }
  await page.close();
});

test('waiting room: take a seat, ready, alliance proposal', async () => {
  const waiting = state({ status: 'waiting', to_move: null, seats: { first: null, middle: { name: 'Beni', connected: true, ready: false }, last: null } });
  const { page, sent, server } = await openRoom(waiting);
  await page.getByTestId('room-name').fill('Akira');
  assert.deepEqual(await sends(sent, () => page.getByTestId('sit-first').click()), { type: 'join', seat: 'first', name: 'Akira' });
  const ws = server();
  ws.send(JSON.stringify({ type: 'seated', seat: 'first', token: 'tok-a' }));
  ws.send(JSON.stringify({ ...waiting, seq: 4, you: 'first', seats: { ...waiting.seats, first: { name: 'Akira', connected: true, ready: false } } }));
  assert.deepEqual(await sends(sent, () => page.getByTestId('ready').click()), { type: 'ready' });
  assert.deepEqual(await sends(sent, () => page.getByTestId('propose-middle').click()), { type: 'propose_alliance', seat: 'middle' });
  ws.send(JSON.stringify({ type: 'event', seq: 5, event: { type: 'alliance_proposed', from: 'middle', to: 'first' } }));
  assert.deepEqual(await sends(sent, () => page.getByTestId('accept-alliance').click()), { type: 'accept_alliance' });
  assert.equal(await page.evaluate(() => localStorage.getItem('sannin.token.r1')), 'tok-a');
  await page.close();
});

test('lobby lists rooms by status, creates rooms and joins seats', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const posted = [];
  await mockServer(page, {
    api: (path, method, body) => {
      if (path === '/api/rooms' && method === 'POST') { posted.push(body); return { status: 201, json: { id: 'new1' } }; }
      if (path === '/api/rooms') {
        return {
          json: [
            { id: 'w1', status: 'waiting', seats: { first: { name: 'A<b>', connected: true, ready: false }, middle: null, last: null }, spectators: 1 },
            { id: 'p1', status: 'playing', seats: { first: { name: 'A' }, middle: { name: 'B' }, last: { name: 'C' } }, spectators: 4 },
            { id: 'f1', status: 'finished', seats: { first: { name: 'A' }, middle: { name: 'B' }, last: { name: 'C' } }, spectators: 0 },
          ],
        };
      }
      return null;
    },
    ws: (ws) => ws.send(JSON.stringify(state({ status: 'waiting', to_move: null, seats: { first: null, middle: null, last: null } }))),
  });
  await page.goto(`${ORIGIN}/`);
  await page.getByTestId('rooms-waiting').locator('[data-room="w1"]').waitFor();
  assert.equal(await page.getByTestId('rooms-playing').locator('[data-room="p1"]').count(), 1);
  assert.equal(await page.getByTestId('rooms-finished').locator('[data-room="f1"]').count(), 1);
  assert.match(await page.getByTestId('rooms-waiting').textContent(), /A<b>/);
  await page.screenshot({ path: `${SHOTS}mock-lobby-phone.png`, fullPage: true });
  await page.getByTestId('name').fill('Dai');
  await page.getByTestId('join-w1-middle').click();
  await page.waitForURL(`${ORIGIN}/rooms/w1`);
  await page.waitForSelector('[data-cell="7g"]');
  await page.goto(`${ORIGIN}/`);
  await page.getByTestId('create-room').click();
  await page.waitForURL(`${ORIGIN}/rooms/new1`);
  assert.deepEqual(posted, ['{}']);
  await page.close();
});

test('phone-sized room page', async () => {
  const { page } = await openRoom(state({ you: 'last', to_move: 'last', legal: ['P7c-7d'] }), { token: 't', viewport: { width: 390, height: 844 } });
  const board = await page.getByTestId('board').boundingBox();
  assert.ok(board.width >= 360 && board.width <= 390, `board fills the phone width (${board.width})`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, 'no horizontal scrolling');
  await page.screenshot({ path: `${SHOTS}mock-phone-last.png`, fullPage: true });
  await page.close();
});

test('a missing room says so; a player leaving shows a countdown', async () => {
  const page = await browser.newPage();
  await mockServer(page, {
    api: (path) => (path === '/api/rooms/nope' ? { status: 404, json: { error: { code: 'room_not_found', message: 'no room' } } } : null),
  });
  await page.goto(`${ORIGIN}/rooms/nope`);
  await page.getByTestId('no-room').waitFor();
  await page.close();

  const { page: p2, server } = await openRoom(state({ you: 'middle' }), { token: 't' });
  server().send(JSON.stringify({ type: 'event', seq: 4, event: { type: 'player_left', seat: 'last', grace_seconds: 90 } }));
  await p2.getByTestId('countdown-last').waitFor();
  assert.match(await p2.getByTestId('countdown-last').textContent(), /abandoned in (89|90) s/);
  server().send(JSON.stringify({ type: 'event', seq: 5, event: { type: 'player_reconnected', seat: 'last' } }));
  await p2.getByTestId('countdown-last').waitFor({ state: 'detached' });
  await p2.close();
});

test('a room the server cannot read back says so plainly instead of reconnecting forever', async () => {
  const broken = { status: 500, json: { error: { code: 'room_broken', message: 'room bad cannot be shown' } } };
  // Its details already say so: the page says so in place of the board.
  const page = await browser.newPage();
  await mockServer(page, { api: (path) => (path === '/api/rooms/bad' ? broken : null) });
  await page.goto(`${ORIGIN}/rooms/bad`);
  await page.getByTestId('broken-room').waitFor();
  assert.match(await page.getByTestId('broken-room').innerText(), /cannot be shown/);
  await page.close();

  // Found out later: the socket is refused before it opens, and the details that
  // answered at first now say the room cannot be read. The page stops there.
  let asked = 0;
  const p2 = await browser.newPage();
  await mockServer(p2, {
    api: (path) => {
      if (path !== '/api/rooms/late') return null;
      asked += 1;
      return asked === 1 ? null : broken;
    },
  });
  await p2.goto(`${ORIGIN}/rooms/late`);
  await p2.getByTestId('broken-room').waitFor();
  assert.equal(await p2.getByTestId('offline').isHidden(), true, 'no reconnect notice over the message');
  const before = asked;
  // A wait on purpose: what is checked is that nothing happens in that time (longer
  // than the first reconnect delay).
  await p2.waitForTimeout(1500);
  assert.equal(asked, before, 'no more attempts once the room is known to be gone');
  await p2.close();
});

test('a seat resumed elsewhere stops this page instead of taking it back', async () => {
  const { page, server, sockets, sent } = await openRoom(state({ you: 'middle' }), { token: 'tok' });
  server().send(JSON.stringify({ type: 'error', code: 'replaced', message: 'Your seat was resumed on another connection.' }));
  await server().close({ code: 4000, reason: 'replaced' });
  await page.waitForSelector('[data-testid="conn-status"][data-phase="closed"]');
  await page.getByTestId('offline').waitFor();
  assert.match(await page.getByTestId('offline').textContent(), /another window/);
  // A wait on purpose: nothing may reconnect in that time (longer than the first reconnect delay).
  await page.waitForTimeout(1500);
  assert.equal(sockets.length, 1, 'no automatic reconnect');
  await page.getByTestId('retry').click();
  await page.waitForSelector('[data-testid="conn-status"][data-phase="open"]');
  assert.equal(sockets.length, 2);
  await until('the new socket resumes', () => sent.at(-1)?.type === 'resume');
  assert.deepEqual(sent.at(-1), { type: 'resume', token: 'tok' });
  await page.close();
});

test('premove: queued while others move, shown, cancelled by Escape or a click, sent when the turn comes if legal', async () => {
  const { page, sent, server } = await openRoom(state({ you: 'middle', to_move: 'first' }), { token: 't' });
  const ws = server();
  // Middle's pawn on 10k to 10j, while First is to move.
  await cell(page, '10k').click();
  assert.ok(await cell(page, '10k').evaluate((n) => n.classList.contains('selected')));
  await cell(page, '10j').click();
  assert.deepEqual(await page.$$eval('.cell.premove', (ns) => ns.map((n) => n.dataset.cell).sort()), ['10j', '10k']);
  await page.getByTestId('premove-hint').waitFor();
  // Escape takes it back; a click on the board too.
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('.cell.premove').count(), 0);
  await cell(page, '10k').click();
  await cell(page, '10j').click();
  await cell(page, '5e').click();
  assert.equal(await page.locator('.cell.premove').count(), 0, 'a click cancels the premove');
  // Queue it again; the turn comes and it is legal: sent at once.
  await cell(page, '10k').click();
  await cell(page, '10j').click();
  await page.screenshot({ path: `${SHOTS}mock-premove.png` });
  assert.equal(sent.filter((m) => m.type === 'act').length, 0, 'nothing sent while it is not our turn');
  ws.send(JSON.stringify(state({ seq: 5, you: 'middle', to_move: 'middle', moves: ['P3c-4c'], move_players: ['first'], legal: ['P10k-10j', 'P9k-9j'] })));
  await until('the premove sent', () => sent.some((m) => m.type === 'act'));
  assert.deepEqual(sent.filter((m) => m.type === 'act'), [{ type: 'act', action: 'P10k-10j' }]);
  assert.equal(await page.locator('.cell.premove').count(), 0);
  // A premove that is no longer legal is dropped, and the page says so.
  ws.send(JSON.stringify(state({ seq: 6, you: 'middle', to_move: 'last', moves: ['P3c-4c', 'P10k-10j'], move_players: ['first', 'middle'] })));
  await page.waitForSelector('[data-testid="turn"]:not(.mine)');
  await cell(page, '9k').click();
  await cell(page, '9i').click();
  ws.send(JSON.stringify(state({ seq: 9, you: 'middle', to_move: 'middle', moves: ['P3c-4c', 'P10k-10j', 'P11g-10g', 'P4c-5d'], move_players: ['first', 'middle', 'last', 'first'], legal: ['P9k-9j'] })));
  await page.getByTestId('log').getByText('Your premove is not legal any more').waitFor({ state: 'attached' });
  assert.equal(sent.filter((m) => m.type === 'act').length, 1);
  await page.close();
});

test('check: a red glow on the king that wins over the other highlights; "You are in check"; told once', async () => {
  const { page, server } = await openRoom(state({ you: 'middle', to_move: 'first' }), { token: 't' });
  const ws = server();
  let seq = 3;
  const ev = (event) => ws.send(JSON.stringify({ type: 'event', seq: ++seq, event }));
  ev({ type: 'action', player: 'first', action: 'P3c-4c' });
  ev({ type: 'check', player: 'Middle', by: ['First'] });
  ws.send(JSON.stringify(state({ seq, you: 'middle', to_move: 'middle', moves: ['P3c-4c'], in_check: ['middle'], legal: ['K10m-9l', 'K10m-11l', 'P10k-10j'] })));
  await page.waitForSelector('[data-testid="turn"].check');
  assert.match(await page.getByTestId('turn').textContent(), /You are in check/);
  // The check sound (a small file under /sounds/) is what this burst of events played:
  // sounds asked for together are merged over a few milliseconds, so wait for it.
  await page.waitForFunction(() => document.documentElement.dataset.lastSound !== undefined);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.lastSound), 'check');
  const wav = await page.evaluate(async () => { const r = await fetch('/sounds/check.wav'); return { ok: r.ok, size: (await r.arrayBuffer()).byteLength }; });
  assert.ok(wav.ok && wav.size > 1000 && wav.size < 20000, `a small sound file (${wav.size} bytes)`);
  const king = cell(page, '10m');
  assert.ok(await king.evaluate((n) => n.classList.contains('check') && n.classList.contains('source')), 'the king is in check and can move');
  const ring = await king.locator('.ring').evaluate((n) => { const s = getComputedStyle(n); return { stroke: s.stroke, width: s.strokeWidth, filter: s.filter }; });
  assert.equal(ring.stroke, 'rgb(213, 0, 0)', 'red, over the "can move" outline');
  assert.match(ring.filter, /drop-shadow/);
  // Selected, it stays red.
  await king.click();
  assert.equal(await king.locator('.ring').evaluate((n) => getComputedStyle(n).stroke), 'rgb(213, 0, 0)');
  await page.getByTestId('seat-middle').locator('[data-testid="in-check-middle"]').waitFor();
  await page.getByTestId('board').screenshot({ path: `${SHOTS}mock-check.png` });
  // The same check after the next move is not told again; the log has it once. (Moves
  // are read out for those who asked: "Announce moves" in the preferences.)
  await page.evaluate(() => import(document.querySelector('script[type=module]').src.replace(/main\.js$/, 'prefs.js')).then((m) => m.setPref('announceMoves', true)));
  ev({ type: 'action', player: 'middle', action: 'P10k-10j' });
  ev({ type: 'check', player: 'Middle', by: ['First'] });
  // Both taken in: the move announced, and the king glowing again (the move cleared the
  // check; the check event after it sets it back).
  await page.waitForFunction(() => /^Middle: pawn from 10k to 10j, check$/.test(document.querySelector('[data-testid="announcer"]').textContent)
    && document.querySelector('[data-cell="10m"]').classList.contains('check'));
  const checks = await page.$$eval('[data-testid="log"] li', (ns) => ns.map((n) => n.textContent).filter((t) => /in check/.test(t)));
  assert.deepEqual(checks, ['You are in check from Akira (First).']);
  await page.close();
});

test('copy link falls back to a selected text field without a clipboard', async () => {
  const { page } = await openRoom(state());
  await page.evaluate(() => { Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true }); });
  await page.getByTestId('copy-link').click();
  const field = page.getByTestId('copy-field');
  await field.waitFor();
  assert.equal(await field.inputValue(), `${ORIGIN}/rooms/r1`);
  const selected = await page.evaluate(() => {
    const f = document.activeElement;
    return f?.dataset.testid === 'copy-field' && f.selectionStart === 0 && f.selectionEnd === f.value.length;
  });
  assert.ok(selected, 'the link is selected, ready for Ctrl+C');
  await page.close();
});

test('the room page in Japanese: turn, panels, moves and notices follow the language', async () => {
  const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.addInitScript(() => { localStorage.setItem('sannin.lang', 'ja'); localStorage.setItem('sannin.token.r1', 't'); });
  await mockServer(page, { ws: (ws) => ws.send(JSON.stringify(state({ you: 'first', legal: FIRST_LEGAL, moves: [], in_check: ['first'] }))) });
  await page.goto(`${ORIGIN}/rooms/r1`);
  await page.waitForSelector('[data-testid="turn"].mine');
  assert.match(await page.getByTestId('turn').textContent(), /王手/);
  assert.match(await page.getByTestId('seat-first').textContent(), /先手/);
  assert.match(await page.getByTestId('hand-first').textContent(), /持ち駒/);
  assert.match(await page.getByTestId('moves').textContent(), /先手.*中手.*後手/);
  assert.match(await page.getByTestId('resign').textContent(), /投了/);
  await page.screenshot({ path: `${SHOTS}mock-japanese.png` });
  await page.close();
});

test('with "confirm moves" on, a move waits for "Play it"', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const sent = [];
  await page.addInitScript(() => {
    localStorage.setItem('sannin.prefs', JSON.stringify({ confirmMoves: true }));
    localStorage.setItem('sannin.token.r1', 't');
  });
  await mockServer(page, { ws: (ws) => { ws.onMessage((m) => sent.push(JSON.parse(m))); ws.send(JSON.stringify(state({ you: 'first', legal: FIRST_LEGAL }))); } });
  await page.goto(`${ORIGIN}/rooms/r1`);
  await page.waitForSelector('[data-testid="turn"].mine');
  await cell(page, '3c').click();
  await cell(page, '4c').click();
  await page.getByTestId('confirm-move').waitFor();
  assert.equal(sent.filter((m) => m.type === 'act').length, 0, 'not sent before the confirmation');
  // The question says the move in words, the notation after it.
  assert.match(await page.getByTestId('controls').textContent(), /Play pawn 3c to 4c \(P3c-4c\)\?/);
  await page.getByTestId('confirm-cancel').click();
  await cell(page, '3c').click();
  await cell(page, '4d').click();
  await page.getByTestId('confirm-move').click();
  assert.deepEqual(sent.filter((m) => m.type === 'act'), [{ type: 'act', action: 'P3c-4d' }]);
  await page.close();
});

test('phone: the cards above the board show every kind of piece an opponent holds, with badges and an alliance', async () => {
  // Middle holds all seven kinds, allied with Last; both cards carry several badges.
  const position = START.replace(' F -/-/- FML - FML', ' M RBG/R2BGS2NL5P/SNL2P FML ML FML');
  const seats = {
    first: { name: 'Akira', connected: true, ready: true },
    middle: { name: 'Bot (level 2)', bot: 2, connected: true, ready: true },
    last: { name: 'Chiyo', connected: false, ready: true },
  };
  const { page, errors } = await openRoom(state({ position, seats, you: 'first', to_move: 'middle', moves: ['P3c-4d'] }), { viewport: { width: 390, height: 844 }, token: 't' });
  await page.waitForSelector('[data-testid="hand-middle"] .hand-piece[data-kind="P"]');
  const cut = await page.$$eval('.slot-left .seat-card, .slot-right .seat-card', (cards) => cards.flatMap((c) => {
    const box = c.getBoundingClientRect();
    return [...c.querySelectorAll('.hand-piece, .badge')]
      .filter((n) => { const r = n.getBoundingClientRect(); return r.bottom > box.bottom + 0.5 || r.right > box.right + 0.5; })
      .map((n) => `${c.dataset.testid}: ${n.dataset.kind ?? n.textContent}`);
  }));
  assert.deepEqual(cut, [], 'nothing in the cards above the board is cut off');
  assert.equal(await page.locator('[data-testid="hand-middle"] .hand-piece').count(), 7);
  await page.screenshot({ path: `${SHOTS}phone-hands.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

/** A page on room r1, a table of quick pairing found with ticket `tk` (as the lobby
 * leaves it), whose socket the test drives; the lobby it goes back to has no rooms and
 * finds `tk` waiting again. */
async function pairedRoom() {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const sockets = [];
  await mockServer(page, {
    api: (path) => {
      if (path === '/api/rooms') return { json: [] };
      if (path === '/api/pairing/tk') return { json: { status: 'waiting', waiting: 2 } };
      return null;
    },
    ws: (ws) => {
      sockets.push(ws);
      ws.send(JSON.stringify(state({ paired: true, you: 'first', to_move: 'first', legal: FIRST_LEGAL, now_ms: Date.now(), first_move_by_ms: Date.now() + 30000 })));
    },
  });
  await page.addInitScript(() => {
    if (sessionStorage.getItem('test.set')) return;
    sessionStorage.setItem('test.set', '1');
    localStorage.setItem('sannin.token.r1', 'seat-token');
    localStorage.setItem('sannin.pairing.table', JSON.stringify({
      ticket: 'tk', room: 'r1', seat: 'first', since: Date.now() - 5000, bots: null,
      pool: { name: '3+2', rated: false, clock: { kind: 'fischer', main_ms: 180000, increment_ms: 2000, byoyomi_ms: 0, periods: 0 } },
    }));
  });
  await page.goto(`${ORIGIN}/rooms/r1`);
  await page.waitForSelector('[data-cell] .piece');
  // The first move's time counts down, from the server's limit.
  await page.getByTestId('turn').filter({ hasText: /first move within (30|29) s/ }).waitFor();
  await page.getByTestId('turn').filter({ hasText: /first move within 2[78] s/ }).waitFor();
  const abort = (seat, reason) => {
    sockets.at(-1).send(JSON.stringify({ type: 'event', seq: 4, event: { type: 'table_aborted', seat, reason } }));
    sockets.at(-1).close({ code: 1000, reason: 'table_given_up' });
  };
  return { page, errors, abort, sockets };
}

test('a table of quick pairing given up: by the reader (told, here and in the lobby), by another (back in the queue)', async () => {
  const mine = await pairedRoom();
  mine.abort('first', 'no_first_move');
  await mine.page.getByTestId('aborted-text').filter({ hasText: 'You did not make your first move in time: the table was given up.' }).waitFor();
  assert.equal(await mine.page.getByTestId('offline').isVisible(), false, 'no reconnect loop');
  await mine.page.waitForURL(`${ORIGIN}/`);
  await mine.page.getByTestId('quick-message').filter({ hasText: 'You did not make your first move in time' }).waitFor();
  assert.equal(await mine.page.evaluate(() => localStorage.getItem('sannin.pairing') ?? localStorage.getItem('sannin.pairing.table')), null);
  assert.equal(mine.sockets.length, 1, 'the closed socket was not opened again');
  assert.deepEqual(mine.errors, []);
  await mine.page.close();

  const other = await pairedRoom();
  other.abort('middle', 'left');
  await other.page.getByTestId('aborted-text').filter({ hasText: /^<img src=x onerror="window.pwned=1">Beni \(Middle\) left before the start: the table was given up\. You are back at the front of the queue\.$/ }).waitFor();
  await other.page.waitForURL(`${ORIGIN}/`);
  await other.page.getByTestId('requeued').filter({ hasText: 'Beni (Middle) left before the start' }).waitFor();
  await other.page.getByTestId('waiting-pool').filter({ hasText: '3+2 · Casual · 2 waiting, you included' }).waitFor();
  assert.equal(JSON.parse(await other.page.evaluate(() => localStorage.getItem('sannin.pairing'))).ticket, 'tk');
  assert.equal(other.sockets.length, 1);
  assert.deepEqual(other.errors, []);
  await other.page.close();
});
