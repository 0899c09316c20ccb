// What the room page knows, and how each server message changes it (docs/protocol.md
// §3.3–§3.4). Pure: no DOM and no wording here, so it runs in node as well as in the
// browser. `applyState` and `applyEvent` change the model in place and return the
// notices the page should show (descriptors, worded by messages.js) and the sounds it
// should play.
import { SEATS } from '../geometry.js';
import { parseAction, parsePosition } from '../position.js';

/** Actions of a history that are not moves on the board (history plies: docs/protocol.md,
 * 'HTTP', `GET /api/rooms/{id}/history`). */
export const ENDINGS = new Set(['resign', 'timeout', 'abandon', 'draw']);

/** Rules events name players "First"; seat events and `to_move` use "first". */
export function seatOf(player) {
  return typeof player === 'string' ? player.toLowerCase() : null;
}

export function createModel() {
  return {
    state: null, // the last `state`, with seat events folded in
    pos: null, // its parsed position
    posError: null,
    checks: new Set(), // seats in check in the live position
    checkBy: new Map(), // seat -> who checks it, for telling a new check from one that goes on
    illuminated: null, // cells taken by the last illumination (live)
    leaving: new Map(), // seat -> deadline (ms since epoch) of an abandonment countdown
    proposal: null, // { from, to } pre-game alliance proposal
    // The game ply by ply (the history's shape: docs/protocol.md, 'HTTP'), kept up to
    // date from the event stream once loaded from `GET /api/rooms/{id}/history`.
    history: null, // { start, plies: [{ ply, player, action, events, position }] }
    historyStale: true, // the page should (re)load the history
    // Plies received while the history is missing or stale, each with `after`: the
    // number of moves played once it was. They complete a loaded history that is behind
    // the live game (moves came in while it was on its way).
    tail: [],
    pending: null, // the ply being received: lead event seen, its `state` not yet
    view: null, // ply shown while looking back (0 = start), null for the live position
    missed: false, // a new ply arrived while looking back
    abortedBy: null, // seat that aborted the last game of a table that waits again
  };
}

/** The most plies kept in `tail`. */
const TAIL_MAX = 2000;

function countMoves(plies) {
  return plies.filter((p) => !ENDINGS.has(p.action)).length;
}

/** Takes a `state` message. */
export function applyState(m, s, nowMs = Date.now()) {
  const prev = m.state;
  const next = { ...s };
  if (!Array.isArray(next.moves)) {
    // A `state` after an accepted action may leave `moves` out: the events carry it.
    const moves = [...(prev?.moves ?? [])];
    const players = [...(prev?.move_players ?? [])];
    if (m.pending && !ENDINGS.has(m.pending.action)) {
      moves.push(m.pending.action);
      players.push(seatOf(m.pending.player));
    }
    next.moves = moves;
    if (!Array.isArray(next.move_players)) next.move_players = players;
  }
  m.state = next;
  try {
    m.pos = parsePosition(next.position);
    m.posError = null;
  } catch (e) {
    m.pos = null;
    m.posError = e.message;
  }
  if (Array.isArray(next.in_check)) m.checks = new Set(next.in_check.map(seatOf));
  if (next.status !== 'playing') m.checks = new Set();
  for (const seat of [...m.checkBy.keys()]) if (!m.checks.has(seat)) m.checkBy.delete(seat);
  // Abandonment countdowns from the server's deadlines (they survive a reload); `now_ms`
  // corrects for this computer's clock being off. A finished game has none.
  const skew = typeof next.now_ms === 'number' ? next.now_ms - nowMs : 0;
  for (const seat of SEATS) {
    const at = next.seats?.[seat]?.abandon_at_ms;
    if (typeof at === 'number' && next.status !== 'finished') m.leaving.set(seat, at - skew);
    else if (next.seats?.[seat]?.connected !== false || next.status === 'finished') m.leaving.delete(seat);
  }
  const proposal = next.alliance?.proposal;
  if (next.alliance && typeof next.alliance === 'object') m.proposal = proposal ? { from: proposal.from, to: proposal.to } : null;
  if (next.status !== 'waiting') m.proposal = null;

  // The history: finish the ply being received, or start afresh in a waiting room.
  if (next.status === 'waiting') {
    m.history = { start: next.start_position ?? next.position, plies: [] };
    m.historyStale = false;
    m.tail = [];
    m.view = null;
  } else if (m.pending) {
    const ply = { ...m.pending, position: next.position };
    m.pending = null;
    if (m.history && !m.historyStale) {
      ply.ply = m.history.plies.length + 1;
      m.history.plies.push(ply);
      if (m.view !== null) m.missed = true;
    } else {
      m.tail.push({ ...ply, after: next.moves.length });
      if (m.tail.length > TAIL_MAX) m.tail.shift();
    }
  } else if (m.tail.length && m.tail.at(-1).after !== next.moves.length) {
    m.tail = []; // moves were missed (a resync): the tail no longer joins up
  }
  if (m.history && countMoves(m.history.plies) !== next.moves.length) m.historyStale = true;
  if (!m.history) m.historyStale = true;
  if (m.view !== null && m.history && m.view > m.history.plies.length) m.view = null;
  return { notices: [], sounds: [] };
}

/** Takes the server's history (`{start, plies}`); false if it does not fit the state. */
export function setHistory(m, history) {
  if (!history || !Array.isArray(history.plies)) return false;
  const moves = m.state?.moves ?? [];
  const plies = history.plies.filter((p) => !ENDINGS.has(p.action)).map((p) => p.action);
  if (plies.slice(0, moves.length).some((a, i) => moves[i] !== a)) return false;
  let whole;
  if (plies.length < moves.length) {
    // Behind the live game (moves came while it was on its way): the plies received
    // since then complete it, or it waits for the next load.
    whole = joinTail(m, history.plies, plies.length, moves);
    if (!whole) return false;
  } else {
    // Plies past the live position arrive as events: keep the history up to it.
    let seen = 0;
    const upTo = history.plies.findIndex((p) => !ENDINGS.has(p.action) && ++seen > moves.length);
    whole = upTo < 0 ? history.plies.slice() : history.plies.slice(0, upTo);
  }
  m.history = { start: history.start, plies: whole.map((p, i) => ({ ...p, ply: i + 1 })) };
  m.historyStale = false;
  m.tail = [];
  return true;
}

/** `plies` (holding the first `h` of `moves`) followed by the tail's plies after them,
 * or null when the tail does not reach back that far or does not match the moves. */
function joinTail(m, plies, h, moves) {
  const first = m.tail.findIndex((p) => !ENDINGS.has(p.action) && p.after === h + 1);
  if (first < 0) return null;
  // Endings (a resignation…) between the history's last move and the tail's first one,
  // less those the history has already.
  let start = first;
  while (start > 0 && ENDINGS.has(m.tail[start - 1].action) && m.tail[start - 1].after === h) start -= 1;
  let had = 0;
  for (let i = plies.length - 1; i >= 0 && ENDINGS.has(plies[i].action); i -= 1) had += 1;
  start = Math.min(first, start + had);
  const rest = m.tail.slice(start).map(({ after, ...p }) => p);
  const restMoves = rest.filter((p) => !ENDINGS.has(p.action)).map((p) => p.action);
  if (restMoves.length !== moves.length - h || restMoves.some((a, i) => moves[h + i] !== a)) return null;
  return [...plies, ...rest];
}

function startPly(m, player, action) {
  m.pending = { ply: null, player, action, events: [] };
}

function lead(ev) {
  switch (ev.type) {
    case 'action': return ev.action;
    case 'resigned': return 'resign';
    case 'forfeited': return ev.reason === 'timeout' ? 'timeout' : 'abandon';
    case 'draw_agreed': return 'draw';
    default: return null;
  }
}

const RULES_EVENTS = new Set([
  'captured', 'promoted', 'illuminated', 'alliance_formed', 'check', 'mated', 'eliminated',
  'alliance_dissolved', 'game_over',
]);

/** Sounds, most important first: only the first of a burst is played. */
export const SOUND_ORDER = ['end', 'mate', 'alliance', 'check', 'capture', 'move', 'turn'];

/**
 * Takes one event. Returns `{ notices, sounds }`: a notice is the event itself plus
 * `kind` ('' | 'check' | 'mate' | 'alliance' | 'start' | 'result') and `banner` (news
 * that matters: set off on the notice line above the board as well as in the list).
 */
export function applyEvent(m, ev) {
  const s = m.state;
  const notices = [];
  const sounds = [];
  const note = (kind = '', banner = false) => notices.push({ ...ev, kind, banner });
  const action = lead(ev);
  if (action) {
    startPly(m, ev.player ?? null, action);
    m.illuminated = null;
  } else if (RULES_EVENTS.has(ev.type) && m.pending) {
    m.pending.events.push(ev);
  }
  switch (ev.type) {
    case 'action': {
      m.checks = new Set();
      const a = parseAction(ev.action ?? '');
      sounds.push(a?.capture || a?.type === 'illuminate' ? 'capture' : 'move');
      break;
    }
    case 'check': {
      const seat = seatOf(ev.player);
      const by = (ev.by ?? []).map(seatOf).sort().join(',');
      m.checks.add(seat);
      // The same check going on after someone else's move is not news.
      if (m.checkBy.get(seat) !== by) {
        m.checkBy.set(seat, by);
        note('check');
        sounds.push('check');
      }
      break;
    }
    case 'captured':
      sounds.push('capture');
      note();
      break;
    case 'mated':
      m.checkBy.delete(seatOf(ev.player));
      note('mate', true);
      sounds.push('mate');
      break;
    case 'eliminated':
      m.checkBy.delete(seatOf(ev.player));
      // A mate has been news already ("… was mated by …"): the elimination that
      // follows goes to the list only.
      note('mate', ev.reason !== 'mated');
      sounds.push('mate');
      break;
    case 'alliance_formed':
      note('alliance', true);
      sounds.push('alliance');
      break;
    case 'alliance_dissolved':
      note('alliance', true);
      sounds.push('alliance');
      break;
    case 'illuminated':
      m.illuminated = new Set(ev.cells ?? []);
      note();
      break;
    case 'promoted':
      note();
      break;
    case 'resigned':
    case 'forfeited':
      m.checks.delete(seatOf(ev.player));
      note();
      break;
    case 'draw_agreed':
      note();
      break;
    case 'game_over':
      m.checks = new Set();
      note('result');
      sounds.push('end');
      break;
    case 'player_joined':
      if (s) s.seats = { ...s.seats, [ev.seat]: { name: ev.name, connected: true, ready: false } };
      note();
      break;
    case 'player_left':
      if (s?.seats?.[ev.seat]) s.seats[ev.seat] = { ...s.seats[ev.seat], connected: false };
      if (ev.grace_seconds != null && s?.status !== 'finished') m.leaving.set(ev.seat, Date.now() + ev.grace_seconds * 1000);
      note();
      break;
    case 'player_reconnected':
      if (s?.seats?.[ev.seat]) s.seats[ev.seat] = { ...s.seats[ev.seat], connected: true };
      m.leaving.delete(ev.seat);
      note();
      break;
    case 'player_ready':
      if (s?.seats?.[ev.seat]) s.seats[ev.seat] = { ...s.seats[ev.seat], ready: Boolean(ev.ready) };
      break;
    case 'game_started':
      if (s) s.status = 'playing';
      m.proposal = null;
      m.abortedBy = null;
      m.history = { start: s?.start_position ?? s?.position ?? null, plies: [] };
      m.historyStale = !m.history.start;
      note('start', true);
      break;
    case 'game_aborted':
      // A table of friends: the game is gone and the room waits for `ready` again
      // (its `state` follows).
      m.abortedBy = ev.seat ?? null;
      m.pending = null;
      note('start', true);
      sounds.push('end');
      break;
    case 'alliance_proposed':
      m.proposal = { from: ev.from, to: ev.to };
      note();
      break;
    case 'alliance_declined':
      m.proposal = null;
      note();
      break;
    case 'alliance_agreed': {
      m.proposal = null;
      // Seats may have been swapped (`moved`): name the people by their new seats.
      const before = s?.seats ?? {};
      const after = { ...before };
      for (const { from, to } of ev.moved ?? []) after[to] = before[from];
      notices.push({ ...ev, kind: 'alliance', banner: true, seatsAfter: after });
      sounds.push('alliance');
      break;
    }
    case 'alliance_cancelled':
      note('alliance', true);
      break;
    case 'seat_freed':
      if (s?.seats) s.seats = { ...s.seats, [ev.seat]: null };
      m.leaving.delete(ev.seat);
      note();
      break;
    case 'draw_offered':
      if (s) s.draw_offers = [...new Set([...(s.draw_offers ?? []), ev.seat])];
      note();
      break;
    case 'draw_declined':
      if (s) s.draw_offers = [];
      note();
      break;
    case 'draw_withdrawn':
      if (s) s.draw_offers = (s.draw_offers ?? []).filter((x) => x !== ev.seat);
      note();
      break;
    case 'draw_expired':
      if (s) s.draw_offers = [];
      note();
      break;
    case 'rematch_requested':
      if (s) s.rematch = { ...(s.rematch ?? {}), requested: [...new Set([...(s.rematch?.requested ?? []), ev.seat])] };
      note();
      break;
    case 'rematch_cancelled':
      if (s) s.rematch = { ...(s.rematch ?? {}), requested: ev.seat ? (s.rematch?.requested ?? []).filter((x) => x !== ev.seat) : [] };
      break;
    case 'rematch_started':
      if (s) s.rematch = { ...(s.rematch ?? {}), room: ev.room };
      note('start');
      break;
    case 'bot_added':
      if (s) s.seats = { ...s.seats, [ev.seat]: { name: ev.name, connected: true, ready: true, bot: ev.level, taken_over: false } };
      note();
      break;
    case 'bot_removed':
      if (s) s.seats = { ...s.seats, [ev.seat]: null };
      note();
      break;
    case 'bot_took_over':
      // Named by who it stood in for: take the name before changing the seat.
      notices.push({ ...ev, kind: '', banner: true, name: s?.seats?.[ev.seat]?.name ?? null });
      if (s?.seats?.[ev.seat]) s.seats[ev.seat] = { ...s.seats[ev.seat], connected: true, bot: ev.level, taken_over: true };
      m.leaving.delete(ev.seat);
      break;
    case 'takeback_offered':
      if (s) s.takeback = { seat: ev.seat, accepted: [] };
      note();
      break;
    case 'takeback_declined':
      if (s) s.takeback = null;
      note();
      break;
    case 'took_back':
      undoLastMove(m);
      note('', true);
      break;
    case 'time_given':
      note();
      break;
    case 'bot_released':
      notices.push({ ...ev, kind: '', banner: false, name: s?.seats?.[ev.seat]?.name ?? null });
      if (s?.seats?.[ev.seat]) s.seats[ev.seat] = { ...s.seats[ev.seat], bot: null, taken_over: false };
      m.leaving.delete(ev.seat);
      break;
    default:
      break;
  }
  return { notices, sounds };
}

/** A move taken back (`took_back`, docs/protocol.md §17): the last move leaves the
 * moves, and the history when it is the history's last ply (else the history is loaded
 * again). The `state` that follows has the position and the turn. */
function undoLastMove(m) {
  const s = m.state;
  m.pending = null;
  m.illuminated = null;
  if (!s) return;
  s.takeback = null;
  const undone = s.moves?.at(-1);
  s.moves = (s.moves ?? []).slice(0, -1);
  s.move_players = (s.move_players ?? []).slice(0, -1);
  const plies = m.history?.plies;
  if (plies?.length && !m.historyStale && plies.at(-1).action === undone) plies.pop();
  else m.historyStale = true;
  if (m.view !== null && m.view >= plyCount(m)) m.view = null;
  m.missed = false;
}

// ---- looking back -----------------------------------------------------------------

/** Number of plies known (the live position is after the last of them). */
export function plyCount(m) {
  return m.history?.plies.length ?? 0;
}

/** Shows the position after ply `n` (0: the start); the last ply (or Infinity) is the
 * live position. */
export function goTo(m, n) {
  const count = plyCount(m);
  if (!m.history || Number.isNaN(n)) return;
  const k = n === Infinity ? count : Math.max(0, Math.min(count, Math.trunc(n)));
  m.view = k >= count ? null : k;
  if (m.view === null) m.missed = false;
}

/** The ply number shown (the live position counts as the last ply). */
export function shownPly(m) {
  return m.view ?? plyCount(m);
}

export function step(m, delta) {
  goTo(m, shownPly(m) + delta);
}

/** Cells an action touched, for the last-move highlight. */
export function actionCells(text) {
  const a = parseAction(text ?? '');
  if (!a) return [];
  if (a.type === 'move') return [a.from, a.to];
  if (a.type === 'drop') return [a.to];
  return a.from ? [a.from] : [];
}

/**
 * What the board shows: the live position, or the one after ply `m.view`.
 * `{ live, position (parsed), last: Set<cell>, checks: Set<seat>, ply }`.
 */
export function shown(m) {
  if (m.view === null || !m.history) {
    const lastMove = m.state?.moves?.at(-1);
    const last = new Set([...actionCells(lastMove), ...(m.illuminated ?? [])]);
    return { live: true, position: m.pos, last, checks: m.checks, ply: plyCount(m) };
  }
  const k = m.view;
  const text = k === 0 ? m.history.start : m.history.plies[k - 1].position;
  let position = null;
  try { position = parsePosition(text); } catch { position = null; }
  const last = new Set();
  const checks = new Set();
  // The last move on the board: the ply itself, or the move before a resignation.
  for (let i = k - 1; i >= 0; i--) {
    const p = m.history.plies[i];
    if (ENDINGS.has(p.action)) continue;
    for (const c of actionCells(p.action)) last.add(c);
    if (i === k - 1) {
      for (const e of p.events ?? []) {
        if (e.type === 'check') checks.add(seatOf(e.player));
        if (e.type === 'illuminated') for (const c of e.cells ?? []) last.add(c);
      }
    }
    break;
  }
  return { live: false, position, last, checks, ply: k };
}

/** How long the running clock has run `elapsed` ms after the snapshot was received,
 * as far as the page can tell. A bot is charged for its search only: its clock stands
 * while it waits for a search slot and while it is paced (docs/protocol.md §16), which
 * the page cannot see, so a bot's clock is shown standing until its move brings the
 * time it was charged. */
export function runningElapsed(clocks, seats, elapsed) {
  const bot = seats?.[clocks?.running]?.bot;
  return bot === undefined || bot === null ? elapsed : 0;
}
