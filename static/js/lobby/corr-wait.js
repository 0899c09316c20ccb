// The correspondence pools of the Quick game card (days for each move): a ticket there
// waits however long it takes — the page may be closed, the table shows up in My games
// (and in a notification) — so it neither locks the card nor needs a long poll. While
// the lobby is open its tickets are asked after now and then (and when the tab comes
// back, and at once when the live lobby says the count of such a pool changed), and a
// table found is announced with a link to it.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { storeName } from '../prefs.js';
import {
  addCorrespondenceTicket, correspondenceFound, correspondenceTickets, errorText, isCorrespondenceKey, joinPool,
  leavePool, playSound, poolKey, removeCorrespondenceTicket, ticketStatus,
} from '../pairing.js';
import { roomLink } from './enter.js';

/** How often a waiting ticket is asked after while the lobby is open and visible. */
const POLL_MS = 30000;

/** The state of the correspondence waits; `draw` is the card's. */
const c = { busy: new Set(), message: null, draw: () => {}, started: false, timer: null, soon: null, counts: new Map() };

/** Whether the reader waits in the correspondence pool `pool`. */
export function waitsIn(pool) {
  return correspondenceTickets().some((w) => poolKey(w.pool) === poolKey(pool));
}

/** Whether a ticket is being taken or given up in `pool` (its tile is disabled). */
export function busyIn(pool) {
  return c.busy.has(poolKey(pool));
}

/** Starts asking after the tickets (once per page); `draw` redraws the card. */
export function startCorrespondence(draw) {
  c.draw = draw;
  if (c.started) return;
  c.started = true;
  addEventListener('storage', (e) => { if (isCorrespondenceKey(e.key)) c.draw(); });
  document.addEventListener('visibilitychange', () => { if (!document.hidden) check(); });
  c.timer = setInterval(() => { if (!document.hidden) check(); }, POLL_MS);
  check();
}

/** The live lobby's pools (lobby/live.js): a pool the reader waits in whose count
 * changed may have made a table of its tickets — asked after at once, not at the next
 * round of `POLL_MS`. */
export function poolsChanged(pools) {
  let changed = false;
  for (const p of pools ?? []) {
    const key = poolKey(p);
    if (!waitsIn(p) || typeof p.waiting !== 'number') continue;
    if (c.counts.has(key) && c.counts.get(key) !== p.waiting) changed = true;
    c.counts.set(key, p.waiting);
  }
  if (changed && c.started) {
    clearTimeout(c.soon);
    c.soon = setTimeout(check, 200);
  }
}

/** Asks the server where each waiting ticket stands. */
async function check() {
  for (const w of correspondenceTickets()) {
    let answer;
    try {
      answer = await ticketStatus(w.ticket);
    } catch (e) {
      if (e.status === 404) {
        removeCorrespondenceTicket(w.ticket);
        c.message = { text: t('quick.corrGone', { pool: poolName(w.pool) }), kind: 'notice' };
        c.draw();
      }
      continue;
    }
    if (answer?.status === 'matched') found(w, answer);
  }
}

function found(w, m) {
  correspondenceFound(w, m);
  c.message = { text: t('quick.corrFound', { pool: poolName(w.pool) }), kind: 'notice', room: m.room };
  playSound('alliance');
  c.draw();
}

/** Takes a ticket in the correspondence pool `pool` (people only, no computer players). */
export async function joinCorrespondence(pool, name) {
  const key = poolKey(pool);
  if (c.busy.has(key) || waitsIn(pool)) return;
  if (name) storeName(name);
  c.busy.add(key);
  c.message = null;
  c.draw();
  try {
    const ticket = await joinPool(pool, { name, bots: null });
    addCorrespondenceTicket({ ticket, pool: { name: pool.name, rated: Boolean(pool.rated), clock: pool.clock }, since: Date.now() });
    c.message = null;
  } catch (e) {
    c.message = { text: errorText(e), kind: 'error', login: e.code === 'login_required' };
  }
  c.busy.delete(key);
  c.draw();
  // A table may be there already (two others were waiting).
  setTimeout(check, 1500);
}

async function cancel(w) {
  const key = poolKey(w.pool);
  c.busy.add(key);
  c.draw();
  try {
    await leavePool(w.ticket);
    removeCorrespondenceTicket(w.ticket);
  } catch (e) {
    c.message = { text: t('quick.error.cancel', { reason: errorText(e, { joining: false }) }), kind: 'error' };
  }
  c.busy.delete(key);
  c.draw();
}

/** "3 days" / "3日": a correspondence pool by its time for each move. */
export function poolName(pool) {
  const days = Math.round((pool.clock?.main_ms ?? 0) / 86400000);
  return days ? t(days === 1 ? 'quick.corrDay' : 'quick.corrDays', { n: days }) : pool.name;
}

/** The message line of the correspondence waits (an error, a table found), or null. */
export function correspondenceMessage() {
  const m = c.message;
  if (!m) return null;
  return h('p', { class: m.kind === 'error' ? 'error' : 'notice', 'data-testid': 'corr-message' }, m.text,
    m.login ? [' ', h('a', { href: '/account?next=/' }, t('account.loginLink'))] : null,
    m.room ? [' ', h('a', { href: roomLink(m.room), 'data-testid': 'corr-go' }, t('quick.goToTable'))] : null);
}

/** The waiting tickets, each with Cancel, and what waiting means here. `pools`: the
 * pools as listed (their counts). */
export function correspondenceWaits(pools) {
  const list = correspondenceTickets();
  if (!list.length) return null;
  return h('div', { class: 'corr-waits', 'data-testid': 'corr-waits' },
    h('ul', {}, list.map((w) => {
      const now = pools.find((p) => poolKey(p) === poolKey(w.pool));
      const kind = t(w.pool.rated ? 'quick.rated' : 'quick.casual');
      return h('li', { 'data-testid': `corr-wait-${poolKey(w.pool)}` },
        h('span', { class: 'spinner', 'aria-hidden': 'true' }),
        h('span', { class: 'corr-wait-text' }, t('quick.corrWaiting', { pool: poolName(w.pool), kind }),
          typeof now?.waiting === 'number' ? h('span', { class: 'corr-count' }, t('quick.corrCount', { n: Math.max(now.waiting, 1) })) : null),
        h('button', {
          type: 'button', class: 'small', 'data-testid': `corr-cancel-${poolKey(w.pool)}`, disabled: c.busy.has(poolKey(w.pool)),
          onclick: () => cancel(w),
        }, t('quick.cancel')));
    })),
    h('p', { class: 'corr-note' }, t('quick.corrClose'), ' ', h('a', { href: '/games' }, t('games.link'))));
}
