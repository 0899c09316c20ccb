// Quick pairing (`/api/pairing`): a ticket in a pool, kept in localStorage so that the
// wait survives a reload; the long poll that waits for a table; and the ticket of the
// table found, kept so that a table given up by someone else sends the reader back to
// the front of the queue with the same ticket. No DOM here: lobby/quick.js draws the
// wait, room.js reads the table's ticket.
//
// A correspondence pool (days for each move) is another kind of wait: its ticket waits
// however long it takes, whether a page asks after it or not, and its table starts at
// once. Those tickets are kept apart (several at once, beside a live wait), and shown by
// the lobby and by /games, which learns of their tables.
import { TOKENS_EVENT, saveToken, tokensChanged } from './protocol.js';
import { getPref } from './prefs.js';
import { serverError, t } from './i18n.js';
import { clientFile } from './files.js';

/** The ticket waiting in a pool: `{ ticket, pool: { name, rated, clock }, since (ms),
 * bots (seconds or null), notice? }` — `notice` `{ seat, reason, who }` when it came back
 * to the front of the queue after a table was given up. */
const WAIT_KEY = 'sannin.pairing';
/** The ticket of the table found: the waiting record plus `room` and `seat`. */
const TABLE_KEY = 'sannin.pairing.table';
/** How long before computer players may fill the table: seconds, or "never". */
const BOTS_KEY = 'sannin.pairing.bots';
/** What the lobby says once, after the reader's own table was given up (this tab). */
const NOTICE_KEY = 'sannin.pairing.notice';
/** The tickets waiting in correspondence pools: `[{ ticket, pool, since }]`. */
const CORR_KEY = 'sannin.pairing.corr';
export { TOKENS_EVENT };

/** The choices of the wait for computer players (seconds; null: never). */
export const BOT_WAITS = [30, 60, 120, null];
const DEFAULT_BOTS = 30;

/** The pools the server has (`GET /api/pairing`), shown until its own list arrives. */
const fischer = (min, inc) => ({ kind: 'fischer', main_ms: min * 60000, increment_ms: inc * 1000, byoyomi_ms: 0, periods: 0 });
const PRESETS = [
  ['3+2', fischer(3, 2)], ['5+3', fischer(5, 3)], ['10+5', fischer(10, 5)], ['15+10', fischer(15, 10)],
  ['10|30', { kind: 'byoyomi', main_ms: 600000, increment_ms: 0, byoyomi_ms: 30000, periods: 1 }],
  ...[1, 3, 7].map((d) => [`${d}d`, { kind: 'correspondence', main_ms: d * 86400000, increment_ms: 0, byoyomi_ms: 0, periods: 0 }]),
];
export const DEFAULT_POOLS = [false, true].flatMap((rated) => PRESETS.map(([name, clock]) => ({ name, clock, rated, waiting: null })));
/** The pool "Play now" picks when nobody waits anywhere. */
const FAVOURITE = '10+5';

function read(key, store = localStorage) {
  try { return JSON.parse(store.getItem(key) ?? 'null'); } catch { return null; }
}
function write(key, value, store = localStorage) {
  try {
    if (value === null || value === undefined) store.removeItem(key);
    else store.setItem(key, JSON.stringify(value));
  } catch { /* storage blocked: the wait just won't survive a reload */ }
  if (store === localStorage && key !== BOTS_KEY) tokensChanged();
}

/** Whether a pool (or a clock) is a correspondence one: days for each move. */
export function isCorrespondencePool(pool) {
  return (pool?.clock ?? pool)?.kind === 'correspondence';
}

/** A pool's key: "10+5/casual". */
export function poolKey(pool) {
  return `${pool.name}/${pool.rated ? 'rated' : 'casual'}`;
}

/** "10+5 · Casual". */
export function poolLabel(pool) {
  return t('quick.poolLabel', { name: pool.name, kind: t(pool.rated ? 'quick.rated' : 'quick.casual') });
}

/** Two sentences, one after the other, as the reader's language writes them. */
export function sentences(a, b) {
  return t('quick.sentences', { a, b });
}

/** The casual pool with the most people waiting (the favourite on a tie, or when
 * nobody waits). */
export function busiestPool(pools) {
  const casual = pools.filter((p) => !p.rated && !isCorrespondencePool(p));
  let best = casual.find((p) => p.name === FAVOURITE) ?? casual[0] ?? DEFAULT_POOLS.find((p) => p.name === FAVOURITE);
  for (const p of casual) if ((p.waiting ?? 0) > (best.waiting ?? 0)) best = p;
  return best;
}

/** The waiting ticket, or null. */
export function waitingTicket() {
  const w = read(WAIT_KEY);
  return w && typeof w.ticket === 'string' && w.pool && typeof w.pool.name === 'string' ? w : null;
}
export function storeWaiting(w) {
  write(WAIT_KEY, w);
}
/** Whether a storage event is about the waiting ticket. */
export function isWaitingKey(key) {
  return key === WAIT_KEY || key === null;
}

/** The tickets waiting in correspondence pools, oldest first. */
export function correspondenceTickets() {
  const list = read(CORR_KEY);
  return Array.isArray(list) ? list.filter((w) => w && typeof w.ticket === 'string' && w.pool && typeof w.pool.name === 'string') : [];
}
export function addCorrespondenceTicket(w) {
  write(CORR_KEY, [...correspondenceTickets().filter((x) => poolKey(x.pool) !== poolKey(w.pool)), w]);
}
export function removeCorrespondenceTicket(ticket) {
  const left = correspondenceTickets().filter((x) => x.ticket !== ticket);
  write(CORR_KEY, left.length ? left : null);
}
/** Whether a storage event is about the correspondence tickets. */
export function isCorrespondenceKey(key) {
  return key === CORR_KEY || key === null;
}

/** Every pairing ticket this browser holds: waiting (live or correspondence) and the
 * ticket of the live table found last. */
export function allTickets() {
  return [waitingTicket()?.ticket, tableTicket()?.ticket, ...correspondenceTickets().map((w) => w.ticket)].filter(Boolean);
}

/** A correspondence ticket's table was found: its seat token kept for the room page. */
export function correspondenceFound(w, { room, token }) {
  if (token) saveToken(room, token);
  removeCorrespondenceTicket(w.ticket);
}

/** The ticket of the table found last, or null. */
export function tableTicket() {
  const r = read(TABLE_KEY);
  return r && typeof r.ticket === 'string' && typeof r.room === 'string' ? r : null;
}
export function forgetTable() {
  write(TABLE_KEY, null);
}

/** A table was found: its seat token kept for the room page, the ticket kept as the
 * table's (a table given up sends it back to the queue). */
export function tableFound(w, { room, seat, token }) {
  saveToken(room, token);
  write(TABLE_KEY, { ticket: w.ticket, pool: w.pool, since: w.since, bots: w.bots ?? null, room, seat });
  write(WAIT_KEY, null);
}

/** The table `table` was given up by someone else: its ticket waits again (at the
 * front of its pool), with `notice` for the lobby to tell. */
export function backToQueue(table, notice) {
  write(WAIT_KEY, { ticket: table.ticket, pool: table.pool, since: table.since, bots: table.bots ?? null, notice });
  write(TABLE_KEY, null);
}

/** A line for the lobby to show once (after the reader's own table was given up). */
export function leaveNotice(text) {
  write(NOTICE_KEY, text, sessionStorage);
}
export function takeNotice() {
  const text = read(NOTICE_KEY, sessionStorage);
  write(NOTICE_KEY, null, sessionStorage);
  return typeof text === 'string' ? text : null;
}

/** The chosen wait for computer players, in seconds; null: never. Any number of
 * seconds stored is taken (the choices offered are `BOT_WAITS`). */
export function botsWait() {
  const v = read(BOTS_KEY);
  if (v === 'never') return null;
  return typeof v === 'number' && v >= 0 && v <= 3600 ? v : DEFAULT_BOTS;
}
export function setBotsWait(seconds) {
  write(BOTS_KEY, seconds === null ? 'never' : seconds);
}

/** "0:12", "1:05", "12:00". */
export function elapsedText(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** "30 s", "1 min", "2 min". */
export function waitText(seconds) {
  return seconds % 60 === 0 && seconds >= 60 ? t('quick.minutes', { n: seconds / 60 }) : t('quick.seconds', { n: seconds });
}

/** The `clock` of `POST /api/pairing` (seconds, as `POST /api/rooms` takes it) for a
 * pool's clock as the server lists it (milliseconds). */
export function clockRequest(clock) {
  if (clock.kind === 'correspondence') return { kind: 'correspondence', seconds_per_move: clock.main_ms / 1000 };
  if (clock.kind === 'byoyomi') {
    return { kind: 'byoyomi', main_seconds: clock.main_ms / 1000, byoyomi_seconds: clock.byoyomi_ms / 1000, periods: clock.periods };
  }
  if (clock.kind === 'sudden_death') return { kind: 'sudden_death', main_seconds: clock.main_ms / 1000 };
  return { kind: 'fischer', main_seconds: clock.main_ms / 1000, increment_seconds: clock.increment_ms / 1000 };
}

/** An error of the pairing API: `code`, `status`, the server's `message` and
 * `retryAfter` (seconds, from its header). */
export class PairingError extends Error {
  constructor(message, { code = null, status = 0, retryAfter = null } = {}) {
    super(message);
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

async function call(path, options = {}) {
  let res;
  try {
    res = await fetch(path, { ...options, headers: { 'content-type': 'application/json', ...(options.headers ?? {}) } });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new PairingError(t('lobby.connectionLost'), { code: 'network' });
  }
  const text = await res.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch { body = null; }
  if (!res.ok) {
    const retry = Number(res.headers.get('retry-after'));
    throw new PairingError(serverError(body?.error?.code ?? null), {
      code: body?.error?.code ?? null, status: res.status, retryAfter: Number.isFinite(retry) && retry > 0 ? retry : null,
    });
  }
  return body;
}

/** Takes a ticket in `pool`; resolves to the ticket. */
export async function joinPool(pool, { name = '', bots = null } = {}) {
  const body = { clock: clockRequest(pool.clock), rated: Boolean(pool.rated) };
  if (name) body.name = name;
  if (!pool.rated) body.bots_after_seconds = bots;
  const { ticket } = await call('/api/pairing', { method: 'POST', body: JSON.stringify(body) });
  return ticket;
}

/** Leaves the queue. `keepalive`: the request outlives the page (it is left for
 * another game). A ticket already gone is left as well. */
export async function leavePool(ticket, { keepalive = false } = {}) {
  try {
    await call(`/api/pairing/${encodeURIComponent(ticket)}`, { method: 'DELETE', keepalive });
  } catch (e) {
    if (e.status !== 404) throw e;
  }
}

/** Where a ticket stands now (no waiting): `{ status, … }`; throws (404: gone). */
export function ticketStatus(ticket) {
  return call(`/api/pairing/${encodeURIComponent(ticket)}`);
}

/** The pools with the people waiting in each (`GET /api/pairing`). */
export function loadPools() {
  return call('/api/pairing');
}

/** The words of a pairing error, in the reader's language; `joining`: it answered a new
 * ticket (else the server's own words stand for errors without words of their own). */
export function errorText(e, { joining = true } = {}) {
  switch (e.code) {
    case 'pairing_cooldown': {
      const min = e.retryAfter ? Math.ceil(e.retryAfter / 60) : null;
      return min ? t('quick.error.cooldown', { n: min }) : e.message;
    }
    case 'login_required': return t('quick.error.login');
    case 'bad_name': return t('player.badName');
    case 'already_waiting': return t('quick.error.already');
    case 'rate_limited': return t('quick.error.rate');
    case 'pairing_unavailable': return t('quick.error.unavailable');
    case 'network': return t('quick.error.network');
    default: return joining ? t('quick.error.other', { reason: e.message }) : e.message;
  }
}

const LONG_POLL_S = 25;

/**
 * Waits for a table: long polls the ticket of `w` until it is matched or gone, or
 * `stop()`. Handlers: `onWaiting(n)` (people in the pool), `onMatched({ room, seat,
 * token })`, `onGone()` (the server no longer knows the ticket), `onTrouble(text)` (the
 * server cannot be reached: still trying; null once it answers again).
 */
export class Waiter {
  constructor(w, handlers) {
    this.w = w;
    this.h = handlers;
    this.controller = null;
    this.stopped = false;
  }

  start() {
    this.stopped = false;
    this.loop();
    return this;
  }

  stop() {
    this.stopped = true;
    this.controller?.abort();
  }

  async loop() {
    let failures = 0;
    let wait = 0; // the first question is answered at once: a reload shows the count
    while (!this.stopped) {
      this.controller = new AbortController();
      const asked = Date.now();
      let answer;
      try {
        answer = await call(`/api/pairing/${encodeURIComponent(this.w.ticket)}?wait=${wait}`, { signal: this.controller.signal });
      } catch (e) {
        if (this.stopped) return;
        if (e.status === 404) {
          this.stopped = true;
          this.h.onGone?.();
          return;
        }
        failures += 1;
        // `pairing_unavailable` (the matcher moving between nodes) passes in seconds:
        // said only if it lasts.
        if (failures >= (e.code === 'pairing_unavailable' ? 4 : 2)) {
          this.h.onTrouble?.(t('quick.trying', { reason: errorText(e, { joining: false }) }));
        }
        // At most 4 s between tries: the server lets a ticket go 10 s after the last
        // question (a page that has gone).
        await sleep(Math.min(4000, 1000 * 2 ** Math.min(failures - 1, 4)));
        continue;
      }
      if (this.stopped) return;
      if (failures) this.h.onTrouble?.(null);
      failures = 0;
      wait = LONG_POLL_S;
      if (answer?.status === 'matched') {
        this.stopped = true;
        this.h.onMatched?.(answer);
        return;
      }
      if (answer?.status === 'waiting') this.h.onWaiting?.(answer.waiting);
      // A long poll answered at once (the count changed, or a proxy that does not hold
      // requests): not more than one question a second.
      if (Date.now() - asked < 1000) await sleep(1000 - (Date.now() - asked));
    }
  }
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Plays one of the site's sounds (unless the reader turned sound off). */
export function playSound(name) {
  try {
    if (getPref('sound') === false) return;
    const a = new Audio(clientFile(`sounds/${name}.wav`));
    a.volume = 0.6;
    a.play()?.catch(() => { /* autoplay blocked */ });
  } catch { /* no audio */ }
}
