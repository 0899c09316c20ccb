// What the real-server browser tests share: a browser context per person with its
// WebSocket traffic recorded, polling until something holds, and a person's first steps
// in a room (taking a seat, moving a piece by clicking).

/** Where these tests' screenshots go (git-ignored). */
export const SHOTS = new URL('../screenshots/', import.meta.url).pathname;

/** A browser context of its own (own localStorage), with every WebSocket frame the page
 * sends and receives recorded, so a test can read `legal` from the server's state. */
export async function person(browser, label) {
  return personIn(await browser.newContext({ viewport: { width: 1200, height: 950 } }), label);
}

/** A new page in `context` whose errors and WebSocket frames are recorded in `io`: the
 * frames sent, the `state` messages and the events received. */
export async function personIn(context, label) {
  const page = await context.newPage();
  const io = { sent: [], states: [], events: [], errors: [] };
  page.on('pageerror', (e) => io.errors.push(`${label}: ${e.message}`));
  page.on('websocket', (ws) => {
    // A `state` after an action leaves `moves` out (docs/protocol.md §3.3): the states
    // recorded here are made whole from the previous one and the `action` events since.
    let actions = [];
    ws.on('framesent', (f) => io.sent.push(JSON.parse(f.payload)));
    ws.on('framereceived', (f) => {
      const msg = JSON.parse(f.payload);
      if (msg.type === 'state') {
        if (!Array.isArray(msg.moves)) {
          const prev = io.states.at(-1);
          msg.moves = [...(prev?.moves ?? []), ...actions.map((e) => e.action)];
          msg.move_players = [...(prev?.move_players ?? []), ...actions.map((e) => e.player)];
        }
        actions = [];
        io.states.push(msg);
      }
      if (msg.type === 'event') {
        io.events.push(msg.event);
        if (msg.event?.type === 'action') actions.push(msg.event);
      }
    });
  });
  return { label, context, page, io, lastState: () => io.states.at(-1) };
}

/** Polls `fn` every 50 ms until it returns something truthy, which it returns. */
export async function until(what, fn, timeout = 20000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `p` resigns by clicking (Resign, then its confirmation), and its page hears it. */
export async function resign(p) {
  const seat = p.lastState()?.you;
  await p.page.getByTestId('resign').click();
  await p.page.getByTestId('resign-confirm').click();
  await until(`${p.label} out`, () => p.io.events.some((e) => e.type === 'resigned' && e.player === seat));
}

/** Opens room `id` of `server` on `p`'s page and takes `seat` under `name`. */
export async function joinRoom(p, server, id, name, seat) {
  await p.page.goto(`${server.url}/rooms/${id}`);
  await p.page.getByTestId('room-name').fill(name);
  await p.page.getByTestId(`sit-${seat}`).click();
  await until(`${p.label} seated`, () => p.lastState()?.you === seat);
}

/** A plain move from `legal`, by preference a pawn push: `[action, from, to]` of a board
 * move with no promotion suffix (a pawn push may be missing later in a game, when the
 * player is in check or the pawns are blocked); null if there is none. */
export function plainMove(legal) {
  const plain = legal.map((a) => /^\+?[A-Z](\d+[a-m])[-x](\d+[a-m])$/.exec(a)).filter(Boolean);
  return plain.find((m) => /^P\d+[a-m]-/.test(m[0])) ?? plain[0] ?? null;
}

/** Plays a plain move (a pawn push where there is one) from the legal list of the page's
 * connection, by clicking; returns the action and the ply it was played at once the page
 * has sent it. */
export async function playMove(p) {
  const s = await until(`${p.label} to move`, () => {
    const s = p.lastState();
    return s && s.status === 'playing' && s.to_move === s.you && s.legal.length ? s : null;
  });
  const move = plainMove(s.legal);
  if (!move) throw new Error(`${p.label}: no plain move among ${s.legal.join(' ')}`);
  const [action, from, to] = move;
  // The socket's frame can be seen here before the page has drawn it: wait until the
  // page offers the piece (a click before that would queue a premove instead).
  await p.page.waitForSelector(`[data-cell="${from}"].source`);
  await p.page.locator(`[data-cell="${from}"]`).click();
  await p.page.waitForSelector(`[data-cell="${to}"][data-target]`);
  await p.page.locator(`[data-cell="${to}"]`).click();
  await until(`${action} sent`, () => p.io.sent.some((m) => m.type === 'act' && m.action === action));
  return { action, ply: s.moves.length };
}

/** The pieces the page draws: cell → piece code ("f+B"), "" for an empty cell. */
export function boardPieces(page) {
  return page.$$eval('[data-cell]', (ns) => Object.fromEntries(ns.map((n) => [n.dataset.cell, n.querySelector('.piece')?.dataset.piece ?? ''])));
}

/** The same for a position string, read by the page's own parser. */
export function positionPieces(page, position) {
  return page.evaluate(async (text) => {
    const { parsePosition } = await import('/js/position.js');
    const { CELLS } = await import('/js/geometry.js');
    const pos = parsePosition(text);
    return Object.fromEntries(CELLS.map(({ name }) => {
      const p = pos.board.get(name);
      return [name, p ? `${p.owner[0]}${p.promoted ? '+' : ''}${p.kind}` : ''];
    }));
  }, position);
}
