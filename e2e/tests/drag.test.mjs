// Pieces dragged on the game page against the real server: a move dragged with the
// mouse (the piece follows the pointer, its targets marked while it is held), a piece
// dropped from the hand by dragging, one let go on an illegal cell or off the board
// going back (nothing sent); a move dragged by a finger on a touch screen (touch events
// through the DevTools protocol, as a phone's are); a premove dragged while the others
// move; and the "click only" preference, under which a drag moves nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS, personIn, plainMove, until } from '../lib/people.mjs';
import { START, openMockRoom } from '../lib/mock.mjs';

const live = serverAndBrowser({ shots: SHOTS });

/** The start position with a pawn of Middle's in First's hand (taken off Middle's
 * edge): something to drop from the start. */
const WITH_PAWN = START.replace('/mPmPmPmPmN', '/1mPmPmPmN').replace(' F -/-/- FML - FML', ' F P/-/- FML - FML');

/** A room of `position` with two level-0 bots, `p` seated as First and ready. */
async function botRoom(p, position = WITH_PAWN) {
  const res = await fetch(`${live.server.url}/api/rooms`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ position, bots: { middle: 0, last: 0 } }),
  });
  const { id } = await res.json();
  await p.page.goto(`${live.server.url}/rooms/${id}`);
  await p.page.getByTestId('room-name').fill('Ann');
  await p.page.getByTestId('sit-first').click();
  await until('seated', () => p.lastState()?.you === 'first');
  await p.page.getByTestId('ready').click();
  return id;
}

/** First's turn (ply `n`), drawn: its `legal` list. */
async function firstToMove(p, n) {
  const s = await until(`First to move at ply ${n}`, () => {
    const s = p.lastState();
    return s?.status === 'playing' && s.to_move === 'first' && s.moves.length === n && s.legal.length ? s : null;
  });
  await p.page.waitForSelector('[data-testid="turn"].mine');
  return s.legal;
}

const centre = async (page, sel) => {
  const b = await page.locator(sel).boundingBox();
  return [b.x + b.width / 2, b.y + b.height / 2];
};
const cellCentre = (page, name) => centre(page, `[data-cell="${name}"] .hex`);
const acts = (p) => p.io.sent.filter((m) => m.type === 'act').map((m) => m.action);

test('mouse: a move dragged, a pawn dropped from the hand by dragging, an illegal drop and one off the board put back', async () => {
  const p = await personIn(await live.browser.newContext({ viewport: { width: 1366, height: 768 } }), 'ann');
  const { page } = p;
  await botRoom(p);
  let legal = await firstToMove(p, 0);
  const [action, from, to] = plainMove(legal);
  await page.waitForSelector(`[data-cell="${from}"].source`);
  // Pressed and moved half way: the piece is lifted, follows the pointer, its targets marked.
  const [fx, fy] = await cellCentre(page, from);
  const [tx, ty] = await cellCentre(page, to);
  await page.mouse.move(fx, fy);
  await page.mouse.down();
  await page.mouse.move((fx + tx) / 2, (fy + ty) / 2, { steps: 4 });
  const ghost = await page.getByTestId('drag-ghost').boundingBox();
  assert.ok(Math.abs(ghost.x + ghost.width / 2 - (fx + tx) / 2) < 2 && Math.abs(ghost.y + ghost.height / 2 - (fy + ty) / 2) < 2, 'the piece under the pointer');
  assert.equal(await page.locator(`[data-cell="${to}"]`).getAttribute('data-target'), 'move');
  assert.ok(await page.locator(`[data-cell="${from}"].drag-from`).count(), 'its cell shows it lifted');
  await page.screenshot({ path: `${SHOTS}drag-mouse.png` });
  await page.mouse.move(tx, ty, { steps: 4 });
  await page.mouse.up();
  await until(`${action} sent`, () => acts(p).includes(action));
  assert.equal(await page.getByTestId('drag-ghost').count(), 0);

  // Next turn: the pawn in hand dragged onto First's own king: put back, nothing sent.
  legal = await firstToMove(p, 3);
  const drop = legal.find((a) => a.startsWith('P*'));
  assert.ok(drop, 'a pawn drop is legal');
  const king = await page.$eval('[data-cell]:has(.piece[data-piece="fK"])', (n) => n.dataset.cell);
  const handPawn = '[data-testid="hand-first"] [data-testid="drop-P"]';
  const [hx, hy] = await centre(page, handPawn);
  await page.mouse.move(hx, hy);
  await page.mouse.down();
  await page.mouse.move(...await cellCentre(page, king), { steps: 6 });
  assert.equal(await page.locator(`[data-cell="${drop.slice(2)}"]`).getAttribute('data-target'), 'drop', 'drops marked while dragged');
  await page.mouse.up();
  await page.waitForTimeout(300);
  assert.deepEqual(acts(p), [action], 'an illegal drop sends nothing');
  assert.equal(await page.locator('[data-target]').count(), 0, 'and selects nothing');
  assert.equal(await page.locator(handPawn).count(), 1, 'the pawn is still in hand');
  // Let go off the board (over the move list): back too.
  await page.mouse.move(hx, hy);
  await page.mouse.down();
  await page.mouse.move(...await centre(page, '[data-testid="moves"]'), { steps: 6 });
  await page.mouse.up();
  await page.waitForTimeout(300);
  assert.deepEqual(acts(p), [action]);
  assert.equal(await page.locator('[data-target]').count(), 0);
  // Dragged to a legal cell: dropped.
  await page.mouse.move(hx, hy);
  await page.mouse.down();
  await page.mouse.move(...await cellCentre(page, drop.slice(2)), { steps: 6 });
  await page.mouse.up();
  await until(`${drop} sent`, () => acts(p).includes(drop));
  await until('the drop played', () => p.lastState()?.moves.includes(drop));
  assert.deepEqual(p.io.errors, []);
  await p.context.close();
});

/** A finger's drag from (x0, y0) to (x1, y1): touch events as a phone sends them. */
async function touchDrag(page, [x0, y0], [x1, y1], steps = 8) {
  const cdp = await page.context().newCDPSession(page);
  const point = (x, y) => [{ x, y, id: 1, radiusX: 4, radiusY: 4, force: 1 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: point(x0, y0) });
  for (let i = 1; i <= steps; i++) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: point(x0 + ((x1 - x0) * i) / steps, y0 + ((y1 - y0) * i) / steps) });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

test('touch: a move dragged by a finger on a phone; with "click only" a drag moves nothing, a tap-tap does', async () => {
  const context = await live.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  // No confirmation step (a phone's default): the dragged move goes at once.
  await context.addInitScript(() => {
    if (!localStorage.getItem('sannin.prefs')) localStorage.setItem('sannin.prefs', JSON.stringify({ confirmMoves: false }));
  });
  const p = await personIn(context, 'phone');
  const { page } = p;
  await botRoom(p);
  let legal = await firstToMove(p, 0);
  const [action, from, to] = plainMove(legal);
  await page.waitForSelector(`[data-cell="${from}"].source`);
  await touchDrag(page, await cellCentre(page, from), await cellCentre(page, to));
  await until(`${action} sent by touch`, () => acts(p).includes(action));
  assert.deepEqual(p.io.errors, []);

  // "Click only": the same kind of drag lifts nothing; tapping then works.
  await page.evaluate(async () => (await import(document.querySelector('script[type=module]').src.replace(/main\.js$/, 'prefs.js'))).setPref('moveInput', 'click'));
  legal = await firstToMove(p, 3);
  const next = plainMove(legal);
  await page.waitForSelector(`[data-cell="${next[1]}"].source`);
  await touchDrag(page, await cellCentre(page, next[1]), await cellCentre(page, next[2]));
  await page.waitForTimeout(300);
  assert.deepEqual(acts(p), [action], 'no move dragged under "click only"');
  await page.locator(`[data-cell="${next[1]}"]`).tap();
  await page.waitForSelector(`[data-cell="${next[2]}"][data-target]`);
  await page.locator(`[data-cell="${next[2]}"]`).tap();
  await until(`${next[0]} sent by taps`, () => acts(p).includes(next[0]));
  assert.deepEqual(p.io.errors, []);
  await context.close();
});

test('premove by dragging (a scripted server): a piece dragged while the others move is queued, played when the turn comes', async () => {
  const seats = {
    first: { name: 'Akira', connected: true, ready: true },
    middle: { name: 'Beni', connected: true, ready: true },
    last: { name: 'Chiyo', connected: true, ready: true },
  };
  const state = (over) => ({
    type: 'state', seq: 3, position: START, moves: [], seats, status: 'playing', to_move: 'first',
    legal: [], you: 'middle', illumination: null, outcome: null, result: null, ...over,
  });
  const { page, sent, server, errors } = await openMockRoom(live.browser, state({}), { token: 't' });
  // Middle's pawn on 10k dragged to 10j while First moves: marked, queued, not sent.
  const [x0, y0] = await cellCentre(page, '10k');
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  await page.mouse.move(x0, y0 - 10, { steps: 2 });
  assert.deepEqual(await page.$$eval('[data-hint="premove"]', (ns) => ns.map((n) => n.dataset.cell).sort()), ['10j', '9j']);
  await page.mouse.move(...await cellCentre(page, '10j'), { steps: 3 });
  await page.mouse.up();
  assert.deepEqual(await page.$$eval('.cell.premove', (ns) => ns.map((n) => n.dataset.cell).sort()), ['10j', '10k']);
  assert.equal(sent.filter((m) => m.type === 'act').length, 0);
  server().send(JSON.stringify(state({ seq: 5, to_move: 'middle', moves: ['P3c-4c', 'P11g-10g'], move_players: ['first', 'last'], legal: ['P10k-10j'] })));
  await until('the premove played', () => sent.some((m) => m.type === 'act'));
  assert.deepEqual(sent.filter((m) => m.type === 'act'), [{ type: 'act', action: 'P10k-10j' }]);
  assert.deepEqual(errors, []);
  await page.close();
});
