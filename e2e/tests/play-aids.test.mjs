// Aids to play on the game page and around it. With a scripted server (lib/mock.mjs):
// premove marks (where a picked piece may go, softly, and the queued premove's cells
// kept), why a piece in hand cannot be dropped and its drops as small dots, 44 px hand
// pieces on a phone with their counts clear of the glyph, the whole board in the window
// at 200 % zoom, the rating chart's dates, and the reconnect notice off the navigation.
// With the real server (started for the tests that need it): no console error or
// failed request for a guest on the lobby, a game page and a profile; a move typed and
// played, an illegal one refused, and a bot's move read out when asked for.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { launch } from '../lib/browser.mjs';
import { cell, mockServer, openMockRoom, ORIGIN, START } from '../lib/mock.mjs';
import { startServer } from '../lib/sannin.mjs';
import { personIn, until } from '../lib/people.mjs';

const SHOTS = process.env.SHOTS_DIR ?? new URL('../screenshots/', import.meta.url).pathname;
let browser;
let server = null;
before(async () => {
  browser = await launch();
  await mkdir(SHOTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** The real server, started by the first test that needs it. */
async function realServer() {
  server ??= await startServer();
  return server;
}

const SEATS = {
  first: { name: 'Akira', connected: true, ready: true },
  middle: { name: 'Beni', connected: true, ready: true },
  last: { name: 'Chiyo', connected: true, ready: true },
};

function state(over = {}) {
  return {
    type: 'state', seq: 3, position: START, moves: [], seats: SEATS, status: 'playing',
    to_move: 'first', legal: [], you: null, illumination: null, outcome: null, result: null, ...over,
  };
}

/** A room page on a scripted socket, seated (its seat token is `t`). */
const openRoom = (first, options = {}) => openMockRoom(browser, first, { token: 't', ...options });
const cellsWith = (page, sel) => page.$$eval(sel, (ns) => ns.map((n) => n.dataset.cell).sort());

test('premove: a piece picked while others move shows where it may go, softly; the queued premove stays marked until played', async () => {
  const { page, sent, server } = await openRoom(state({ you: 'middle', to_move: 'first' }));
  // Middle's pawn on 10k (RULES §4): its two steps forward.
  await cell(page, '10k').click();
  assert.deepEqual(await cellsWith(page, '[data-hint="premove"]'), ['10j', '9j']);
  assert.equal(await page.locator('[data-target]').count(), 0, 'no legal-move marks while others move');
  const look = await cell(page, '10j').locator('.hint-mark').evaluate((n) => {
    const s = getComputedStyle(n);
    return { fill: s.fill, dash: s.strokeDasharray };
  });
  assert.equal(look.fill, 'none', 'a ring, not the dot of a legal move');
  assert.notEqual(look.dash, 'none');
  // Another piece: its own marks; a rook ranges until the first piece in its way.
  await cell(page, '7l').click();
  assert.deepEqual(await cellsWith(page, '[data-hint="premove"]'), ['10l', '11l', '6l', '8l', '9l']);
  await cell(page, '7l').click();
  // Queue 10k-10j: the marks go, its two cells stay marked while others move on.
  await cell(page, '10k').click();
  await cell(page, '10j').click();
  assert.equal(await page.locator('[data-hint]').count(), 0);
  assert.deepEqual(await cellsWith(page, '.cell.premove'), ['10j', '10k']);
  await page.screenshot({ path: `${SHOTS}aids-premove.png` });
  const ws = server();
  ws.send(JSON.stringify(state({ seq: 4, you: 'middle', to_move: 'last', moves: ['P3c-4c'], move_players: ['first'] })));
  await page.locator('[data-testid="moves"] [data-ply="1"]').waitFor();
  assert.deepEqual(await cellsWith(page, '.cell.premove'), ['10j', '10k'], 'kept through the others\' moves');
  ws.send(JSON.stringify(state({ seq: 5, you: 'middle', to_move: 'middle', moves: ['P3c-4c', 'P11g-10g'], move_players: ['first', 'last'], legal: ['P10k-10j'] })));
  await until('the premove played', () => sent.some((m) => m.type === 'act'));
  assert.deepEqual(sent.filter((m) => m.type === 'act'), [{ type: 'act', action: 'P10k-10j' }]);
  assert.equal(await page.locator('.cell.premove').count(), 0);
  await page.close();
});

test('drops: a piece in hand with no legal drop says why; legal drops are small dots for the selected piece only', async () => {
  const pos = START.replace(' F -/-/- FML - FML', ' F 2PG/-/- FML - FML');
  const r = await openRoom(state({ you: 'first', position: pos, legal: ['P*5e', 'P*6e', 'P3c-4c'] }));
  await r.page.waitForSelector('[data-testid="turn"].mine');
  await r.page.getByTestId('drop-G').click();
  await r.page.getByTestId('notice-line').filter({ hasText: 'No legal drop for this piece (gold).' }).waitFor();
  assert.equal(await r.page.locator('[data-target]').count(), 0);
  await r.page.getByTestId('drop-P').click();
  assert.deepEqual(await cellsWith(r.page, '[data-target]'), ['5e', '6e']);
  assert.deepEqual(await r.page.$$eval('[data-target]', (ns) => ns.map((n) => n.dataset.target)), ['drop', 'drop']);
  const mark = await cell(r.page, '5e').locator('.target-mark').boundingBox();
  const hex = await cell(r.page, '5e').locator('.hex').boundingBox();
  assert.ok(mark.width < hex.width * 0.25, `a small dot (${mark.width} of ${hex.width})`);
  assert.equal(await cell(r.page, '5e').locator('.ring').evaluate((n) => getComputedStyle(n).stroke), 'none', 'no ring painted round each cell');
  assert.deepEqual(r.errors, []);
  await r.page.close();
  // In check: the reason says so.
  const c = await openRoom(state({ you: 'first', position: pos, legal: ['K1d-2d'], in_check: ['first'] }));
  await c.page.waitForSelector('[data-testid="turn"].mine');
  await c.page.getByTestId('drop-P').click();
  await c.page.getByTestId('notice-line').filter({ hasText: 'No legal drop for this piece (pawn): you are in check.' }).waitFor();
  await c.page.close();
});

/** Whether two client rects overlap (more than a hair). */
function overlap(a, b) {
  return Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
}

test('phone: the pieces in hand and the marked cells are 44 px touch targets; no "×3" lies on a piece', async () => {
  const position = START.replace(' F -/-/- FML - FML', ' L RBG/R2BGS2NL5P/3G2SNL2P FML - FML');
  const { page, errors, sent } = await openRoom(state({ position, you: 'last', to_move: 'last', legal: ['G*5e'] }), { viewport: { width: 390, height: 844 } });
  await page.waitForSelector('[data-testid="drop-P"]');
  const found = await page.$$eval('.hand-piece', (ns) => ns.map((n) => {
    const rect = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height }; };
    return {
      kind: n.dataset.kind, button: n.tagName === 'BUTTON', box: rect(n),
      glyph: rect(n.querySelector('svg.mini')), count: n.querySelector('.count') ? rect(n.querySelector('.count')) : null,
    };
  }));
  const own = found.filter((p) => p.button);
  assert.equal(own.length, 5);
  for (const p of own) assert.ok(p.box.width >= 44 && p.box.height >= 44, `${p.kind}: ${p.box.width}×${p.box.height}`);
  const counted = found.filter((p) => p.count);
  assert.ok(counted.length >= 5);
  for (const p of counted) assert.ok(!overlap(p.glyph, p.count), `${p.kind}: the count lies on the piece`);
  await page.screenshot({ path: `${SHOTS}aids-phone-hands.png` });
  // The board's cells are smaller than 44 px here: a marked cell takes the taps within
  // 22 px of its centre, past its drawn edge.
  await page.getByTestId('drop-G').click();
  const hex = await cell(page, '5e').locator('.hex').boundingBox();
  assert.ok(hex.width < 44, `small cells (${hex.width})`);
  const centre = { x: hex.x + hex.width / 2, y: hex.y + hex.height / 2 };
  const miss = { x: centre.x, y: centre.y + 19 };
  assert.equal(await page.evaluate(({ x, y }) => document.elementFromPoint(x, y).closest('[data-cell]').dataset.cell, miss) === '5e', false, 'the tap lands on another cell');
  await page.mouse.click(miss.x, miss.y);
  await until('the drop sent', () => sent.some((m) => m.type === 'act'));
  assert.deepEqual(sent.filter((m) => m.type === 'act'), [{ type: 'act', action: 'G*5e' }]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('at 200 % zoom (683 × 384 CSS px) the whole board is in the window without scrolling', async () => {
  const { page } = await openRoom(state({ you: 'first', legal: ['P3c-4c'] }), { viewport: { width: 683, height: 384 }, deviceScaleFactor: 2 });
  const box = await page.getByTestId('board').boundingBox();
  const scroll = await page.evaluate(() => ({ x: scrollX, y: scrollY }));
  assert.deepEqual(scroll, { x: 0, y: 0 });
  assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 683 && box.y + box.height <= 384,
    `the board ${JSON.stringify(box)} within 683 × 384`);
  assert.ok(box.height >= 200, `and not tiny (${box.height})`);
  await page.screenshot({ path: `${SHOTS}aids-zoom-200.png` });
  await page.close();
});

test('the rating chart has the first and the last game\'s dates, and each point its date', async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const day = (d) => Date.UTC(2026, 2, d, 12);
  const history = [3, 9, 21].map((d, i) => ({
    room_id: `g${i}`, seat: 'first', place: 1, result: 'win', rating_before: 1500 + i * 10, rating_after: 1510 + i * 10,
    rated_at_ms: day(d), opponents: [],
  })).reverse();
  await mockServer(page, {
    api: (path) => (path === '/api/players/ann' ? { json: { name: 'ann', rating: 1530, provisional: true, games: 3, history } } : null),
  });
  await page.goto(`${ORIGIN}/players/ann`);
  const chart = page.getByTestId('rating-chart');
  await chart.waitFor();
  assert.equal(await page.getByTestId('chart-first-date').textContent(), '3 Mar 2026');
  assert.equal(await page.getByTestId('chart-last-date').textContent(), '21 Mar 2026');
  const titles = await page.$$eval('[data-testid="chart-point"] title', (ns) => ns.map((n) => n.textContent));
  assert.equal(titles.length, 4);
  assert.match(titles[0], /^3 Mar 2026.*: 1500 before the game$/);
  assert.match(titles[1], /^3 Mar 2026.*: 1510$/);
  assert.match(titles[3], /^21 Mar 2026.*: 1530$/);
  await chart.screenshot({ path: `${SHOTS}aids-rating-chart.png` });
  await page.close();
});

test('the lobby has no Refresh button; the reconnect notice never covers the site navigation', async () => {
  for (const viewport of [{ width: 1366, height: 768 }, { width: 390, height: 844 }]) {
    // The first socket gets the state and is then dropped; the next ones never open.
    const { page, server } = await openRoom((n, ws) => (n === 1 ? state({ you: 'first' }) : ws.close()), { viewport });
    server().close();
    const bar = page.getByTestId('offline');
    await bar.waitFor();
    // A phone keeps the links behind its menu button: opened, they are not covered either.
    if (!await page.locator('nav.site-nav').isVisible()) await page.getByTestId('site-menu').click();
    const barBox = await bar.boundingBox();
    for (const part of ['header.top', 'nav.site-nav']) {
      const box = await page.locator(part).boundingBox();
      const apart = barBox.y >= box.y + box.height || barBox.y + barBox.height <= box.y
        || barBox.x >= box.x + box.width || barBox.x + barBox.width <= box.x;
      assert.ok(apart, `${viewport.width}: the notice ${JSON.stringify(barBox)} over ${part} ${JSON.stringify(box)}`);
    }
    await page.screenshot({ path: `${SHOTS}aids-offline-${viewport.width}.png` });
    await page.close();
  }
  const page = await browser.newPage();
  await mockServer(page, { api: (path) => (path === '/api/rooms' ? { json: [] } : null) });
  await page.goto(`${ORIGIN}/`);
  await page.getByTestId('play-now').waitFor();
  assert.equal(await page.getByRole('button', { name: /refresh|reload/i }).count(), 0);
  await page.close();
});

test('typed moves: completions from the legal moves, an unknown or illegal text refused and nothing sent (scripted server)', async () => {
  const legal = ['P3c-4c', 'P3c-4d', 'B2g-4h', 'B2g-6i', 'B2g-8j', 'B2gx10k+', 'B2gx10k='];
  const { page, sent } = await openRoom(state({ you: 'first', legal }), { viewport: { width: 1366, height: 768 } });
  await page.waitForSelector('[data-testid="turn"].mine');
  const box = page.getByLabel('Type a move');
  assert.equal(await box.getAttribute('data-testid'), 'typed-move');
  assert.deepEqual(await page.$$eval('[data-testid="typed-options"] option', (ns) => ns.map((n) => n.value)), legal);
  const acts = () => sent.filter((m) => m.type === 'act');
  const tries = [
    ['hello', /“hello” is not a move/],
    ['P3c-5e', /P3c-5e is not a legal move here/],
    ['Bx10k', /add \+ to promote or = not to/],
  ];
  for (const [text, want] of tries.slice(0, 3)) {
    await box.fill(text);
    await box.press('Enter');
    assert.match(await page.getByTestId('typed-message').textContent(), want, text);
  }
  assert.equal(acts().length, 0, 'nothing sent');
  // The short form, any case: one bishop can go to 10k and promote.
  await box.fill('bx10k+');
  await box.press('Enter');
  await until('sent', () => acts().length === 1);
  assert.deepEqual(acts(), [{ type: 'act', action: 'B2gx10k+' }]);
  assert.equal(await box.inputValue(), '');
  // In node's terms: every legal text matches itself, short forms find their move.
  const m = await page.evaluate(async (l) => {
    const { matchTyped } = await import('/js/room/typed.js');
    return [l.every((a) => matchTyped(a, l).action === a), matchTyped('B-6i', l).action, matchTyped('p3c4d', l).action,
      matchTyped('P3c-4d', l).action, matchTyped('P*5e', l).error, matchTyped(' b2g - 8j ', l).action];
  }, legal);
  assert.deepEqual(m, [true, 'B2g-6i', 'P3c-4d', 'P3c-4d', 'illegal', 'B2g-8j']);
  await page.close();
});

test('guests: the lobby, a game page and a profile log no console error and no failed request', async () => {
  const srv = await realServer();
  const post = (path, body) => fetch(`${srv.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal((await post('/api/accounts', { name: 'hanako', password: 'correct horse' })).status, 201);
  const room = await (await post('/api/rooms', { bots: { middle: 0, last: 0 } })).json();
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`); });
  page.on('pageerror', (e) => problems.push(`page: ${e.message}`));
  page.on('response', (res) => { if (res.status() >= 400) problems.push(`${res.status()} ${res.request().method()} ${res.url()}`); });
  // (A request cut short by leaving the page — the lobby's event stream — is no failure.)
  page.on('requestfailed', (req) => {
    const why = req.failure()?.errorText ?? '';
    if (!/ERR_ABORTED/.test(why)) problems.push(`failed ${req.url()}: ${why}`);
  });
  await page.goto(`${srv.url}/`);
  await page.getByTestId('play-now').waitFor();
  await page.goto(`${srv.url}/rooms/${room.id}`);
  await page.waitForSelector('[data-cell] .piece');
  await page.getByTestId('conn-status').filter({ hasText: 'Connected' }).waitFor();
  await page.goto(`${srv.url}/players/hanako`);
  await page.getByTestId('profile-name').waitFor();
  await page.waitForTimeout(500);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a move typed against the real server is played; an illegal one refused; the bots\' moves read out when asked for', async () => {
  const srv = await realServer();
  const p = await personIn(await browser.newContext({ viewport: { width: 1366, height: 768 } }), 'typist');
  // "Announce moves" on, as the preferences dialog leaves it.
  await p.page.goto(`${srv.url}/`);
  await p.page.getByTestId('open-prefs').click();
  assert.equal(await p.page.getByTestId('pref-announceMoves').isChecked(), false, 'off by default');
  await p.page.getByTestId('pref-announceMoves').check();
  await p.page.getByTestId('prefs-close').click();
  await p.page.getByTestId('computer-level').selectOption('0');
  await p.page.getByTestId('play-computer').click();
  await until('playing', () => p.lastState()?.status === 'playing');
  await p.page.waitForSelector('[data-testid="turn"].mine');
  const box = p.page.getByLabel('Type a move');
  await box.fill('P3c-6f');
  await box.press('Enter');
  await p.page.getByTestId('typed-message').filter({ hasText: 'P3c-6f is not a legal move here.' }).waitFor();
  assert.equal(p.io.sent.filter((m) => m.type === 'act').length, 0);
  await box.fill('B-4h');
  await box.press('Enter');
  await until('the move played and both bots answered', () => {
    const st = p.lastState();
    return st.moves[0] === 'B2g-4h' && st.moves.length >= 3 ? st : null;
  });
  await p.page.locator('[data-testid="moves"] [data-ply="3"]').waitFor();
  const last = p.lastState();
  const words = await p.page.evaluate(({ player, action }) => import('/js/say.js').then((m) => m.sayMove(player, action)), { player: last.move_players[2], action: last.moves[2] });
  assert.match(words, /^Last: /);
  const said = await until('the last bot\'s move read out', async () => {
    const text = await p.page.getByTestId('announcer').textContent();
    return text.startsWith(words) ? text : null;
  });
  assert.match(said, /^Last: \w+ from \d+[a-m] (to|takes on) \d+[a-m]/);
  assert.equal(await p.page.getByTestId('announcer').getAttribute('aria-live'), 'polite');
  await p.page.screenshot({ path: `${SHOTS}aids-typed.png` });
  assert.deepEqual(p.io.errors, []);
  await p.context.close();
});
