// "Quick game": one click ("Play now") puts the reader in the casual pool where most
// people wait, or a tile of the grid in the pool of its choice; then the card says it is
// looking for opponents (for how long, how many wait, when computer players join) until
// a table is found, and goes into the room. The wait survives a reload (the ticket is
// kept by pairing.js) and is given up with Cancel, or by going into another game.
//
// The card is drawn again with the page (a language change, logging in), but the wait
// is the page's: it lives here, outside the card. The correspondence pools (days for
// each move) have a row of their own, and their waits (corr-wait.js) go on beside a
// live one.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { account } from '../account.js';
import { storeName } from '../prefs.js';
import {
  BOT_WAITS, DEFAULT_POOLS, Waiter, botsWait, busiestPool, elapsedText, errorText, isCorrespondencePool, isWaitingKey,
  joinPool, leavePool, playSound, poolKey, poolLabel, setBotsWait, storeWaiting, tableFound, tableTicket, takeNotice,
  sentences, waitText, waitingTicket,
} from '../pairing.js';
import {
  busyIn, correspondenceMessage, correspondenceWaits, joinCorrespondence, poolName, poolsChanged, startCorrespondence, waitsIn,
} from './corr-wait.js';
import { clockText, seatLabel } from './messages.js';
import { roomLink } from './enter.js';
import { playComputer } from './computer.js';
import { createForFriends } from './friends.js';

/** Between "Table found!" (its sound) and the room. */
const FOUND_DELAY_MS = 600;
/** Tries of a new ticket while pairing is briefly unavailable. */
const JOIN_TRIES = 4;
/** After this long alone in the queue the waiting panel offers the computer and a
 * room for friends. */
const OFFER_AFTER_MS = 20000;

/** The wait, whatever card shows it. `mode`: idle, joining, waiting, cancelling, found. */
const q = {
  mode: 'idle', w: null, count: null, trouble: '', message: null, waiter: null, tick: null,
  pools: DEFAULT_POOLS, lobby: null, view: null, started: false, room: null, top: null,
};

/** The big Play now button at the top of the lobby (lobby/start.js): the busiest pool,
 * as the card's own button, with the pool and its people on a line under it. */
export function playNowButton() {
  const sub = h('span', { class: 'start-sub' });
  const button = h('button', {
    type: 'button', class: 'start-button play', 'data-testid': 'start-play-now', onclick: () => join(busiestPool(q.pools)),
  }, h('span', { class: 'start-label' }, t('quick.playNow')), sub);
  q.top = { button, sub };
  return button;
}

/** The card (a way into a game, lobby.js `PATHS`). */
export function quickCard(lobby) {
  q.lobby = lobby;
  if (!q.started) start(lobby);
  q.view = buildView();
  draw();
  return q.view.el;
}

/** Gives up the place in the queue (the reader goes into another game). */
export function leaveQueue() {
  if (q.mode !== 'waiting' || !q.w) return;
  const { ticket } = q.w;
  q.waiter?.stop();
  storeWaiting(null);
  leavePool(ticket, { keepalive: true }).catch(() => { /* gone with the page */ });
  toIdle();
}

function start(lobby) {
  q.started = true;
  startCorrespondence(() => draw());
  const notice = takeNotice();
  if (notice) q.message = { text: notice, kind: 'notice' };
  lobby.onRender((feed) => {
    if (Array.isArray(feed.pools) && feed.pools.length) q.pools = feed.pools;
    poolsChanged(q.pools);
    const mine = q.w && q.pools.find((p) => poolKey(p) === poolKey(q.w.pool));
    if (q.mode === 'waiting' && typeof mine?.waiting === 'number') q.count = mine.waiting;
    draw();
  });
  const w = waitingTicket();
  if (w) wait(w);
  // Another tab of this browser started, found or gave up the wait.
  addEventListener('storage', (e) => {
    if (!isWaitingKey(e.key)) return;
    const now = waitingTicket();
    if (!now && q.mode === 'waiting') {
      q.waiter?.stop();
      const table = tableTicket();
      if (table && table.ticket === q.w?.ticket) q.message = { text: t('quick.foundElsewhere'), kind: 'notice', room: table.room };
      toIdle();
    } else if (now && q.mode === 'idle') {
      wait(now);
    }
  });
}

function toIdle() {
  q.mode = 'idle';
  q.w = null;
  q.count = null;
  q.trouble = '';
  clearInterval(q.tick);
  q.tick = null;
  document.title = t('lobby.pageTitle');
  draw();
}

/** Takes a ticket in `pool` and waits. */
async function join(pool) {
  if (q.mode !== 'idle' || q.lobby.state.busy) return;
  const name = q.lobby.state.name.trim();
  if (name) storeName(name);
  q.mode = 'joining';
  q.message = null;
  draw();
  const bots = pool.rated ? null : botsWait();
  for (let attempt = 1; ; attempt += 1) {
    try {
      const ticket = await joinPool(pool, { name, bots });
      wait({ ticket, pool: { name: pool.name, rated: Boolean(pool.rated), clock: pool.clock }, since: Date.now(), bots }, { focus: true });
      return;
    } catch (e) {
      if (e.code === 'pairing_unavailable' && attempt < JOIN_TRIES) {
        await new Promise((r) => setTimeout(r, 1500 * attempt));
        continue;
      }
      q.mode = 'idle';
      q.message = { text: errorText(e), kind: 'error', login: e.code === 'login_required' };
      draw();
      q.view?.playNow.focus();
      return;
    }
  }
}

/** Waits with the ticket of `w` (kept for a reload). */
function wait(w, { focus = false } = {}) {
  storeWaiting(w);
  q.w = w;
  q.mode = 'waiting';
  q.trouble = '';
  q.count = q.pools.find((p) => poolKey(p) === poolKey(w.pool))?.waiting ?? null;
  q.waiter = new Waiter(w, {
    onWaiting(n) { q.count = n; draw(); },
    onTrouble(text) { q.trouble = text ?? ''; draw(); },
    onGone() {
      storeWaiting(null);
      q.message = { text: t('quick.gone'), kind: 'notice' };
      toIdle();
    },
    onMatched(m) { found(w, m); },
  }).start();
  clearInterval(q.tick);
  q.tick = setInterval(tick, 1000);
  draw();
  tick();
  if (focus) q.view?.waitTitle.focus();
}

function found(w, m) {
  // Another tab of this browser, waiting with the same ticket, took the table first.
  if (waitingTicket()?.ticket !== w.ticket) {
    q.message = { text: t('quick.foundElsewhere'), kind: 'notice', room: m.room };
    toIdle();
    return;
  }
  tableFound(w, m);
  q.mode = 'found';
  q.room = m.room;
  clearInterval(q.tick);
  document.title = t('quick.foundTitle');
  playSound('alliance');
  draw();
  setTimeout(() => location.assign(roomLink(m.room)), FOUND_DELAY_MS);
}

async function cancel() {
  if (q.mode !== 'waiting') return;
  const w = q.w;
  q.waiter?.stop();
  q.mode = 'cancelling';
  draw();
  try {
    await leavePool(w.ticket);
  } catch (e) {
    // Still in the queue as far as the server knows: keep waiting, say why.
    wait(w);
    q.trouble = t('quick.error.cancel', { reason: errorText(e, { joining: false }) });
    draw();
    return;
  }
  storeWaiting(null);
  toIdle();
  q.view?.playNow.focus();
}

/** The clock of the wait, in the card and in the tab's title. */
function tick() {
  if (q.mode !== 'waiting' || !q.w) return;
  const time = elapsedText(Date.now() - q.w.since);
  if (q.view) q.view.clock.textContent = time;
  document.title = t('quick.waitingTitle', { time });
  if (q.view && q.view.parts.offer.hidden === offerDue()) draw();
}

/** Whether the wait has gone on long enough, with nobody else in the pool, for the
 * waiting panel to offer the other ways into a game. */
function offerDue() {
  return q.mode === 'waiting' && Boolean(q.w?.since) && Date.now() - q.w.since >= OFFER_AFTER_MS
    && !(typeof q.count === 'number' && q.count >= 2);
}

// ---- drawing -------------------------------------------------------------------------

function botsChoice() {
  const now = botsWait();
  const choices = BOT_WAITS.includes(now) ? BOT_WAITS : [...BOT_WAITS.slice(0, -1), now, null].sort((a, b) => (a ?? Infinity) - (b ?? Infinity));
  const select = h('select', {
    id: 'bots-after', 'data-testid': 'bots-after',
    onchange: (e) => setBotsWait(e.target.value === 'never' ? null : Number(e.target.value)),
  }, choices.map((s) => h('option', { value: s ?? 'never', selected: s === now }, s === null ? t('quick.botsNever') : waitText(s))));
  return h('div', { class: 'bots-row' }, h('label', { for: 'bots-after' }, t('quick.botsLabel')), select);
}

/** A pool's tile: its name, casual or rated, its clock in words, the people waiting. A
 * rated tile asks a guest to log in. */
function tile(pool) {
  const key = poolKey(pool);
  const corr = isCorrespondencePool(pool);
  const count = h('span', { class: 'pool-count' });
  const parts = [
    h('span', { class: 'pool-name' }, corr ? poolName(pool) : pool.name),
    h('span', { class: 'pool-kind' }, t(pool.rated ? 'quick.rated' : 'quick.casual')),
    h('span', { class: 'pool-clock' }, corr ? t('quick.perMove') : clockText(pool.clock)),
  ];
  if (pool.rated && !account()) {
    return { key, corr, count: null, el: h('a', { class: `pool-tile locked${corr ? ' corr' : ''}`, href: '/account?next=/', 'data-testid': `pool-${key}` }, parts, h('span', { class: 'pool-count' }, t('quick.loginRated'))) };
  }
  const el = h('button', {
    type: 'button', class: `pool-tile${pool.rated ? ' rated' : ''}${corr ? ' corr' : ''}`, 'data-testid': `pool-${key}`,
    onclick: () => (corr ? joinCorrespondence(pool, q.lobby.state.name.trim()) : join(pool)),
  }, parts, count);
  return { key, corr, pool, count, el };
}

function buildView() {
  const playNow = h('button', { type: 'button', class: 'primary play-now', 'data-testid': 'play-now', onclick: () => join(busiestPool(q.pools)) }, t('quick.playNow'));
  const playNowPool = h('p', { class: 'play-now-pool', 'data-testid': 'play-now-pool' });
  const message = h('div', { class: 'quick-message', role: 'status', 'data-testid': 'quick-message' });
  const grids = h('div', { class: 'pool-grids' });
  const corrGrid = h('div', { class: 'pool-grid corr-grid', role: 'group', 'aria-labelledby': 'corr-title' });
  const idle = h('div', { class: 'quick-idle' },
    h('div', { class: 'quick-start' }, h('p', {}, t('quick.text')), playNow, playNowPool, botsChoice()),
    h('div', { class: 'quick-pools' }, h('h3', { id: 'pools-title' }, t('quick.poolsTitle')), grids,
      h('div', { class: 'corr-pools', 'data-testid': 'corr-pools' },
        h('h3', { id: 'corr-title' }, t('quick.corrTitle')),
        h('p', { class: 'corr-text' }, t('quick.corrText')),
        corrGrid)));
  // The correspondence waits and their news stay in view during a live wait.
  const corrBox = h('div', { class: 'corr-box', 'aria-live': 'polite', 'data-testid': 'corr-box' });
  const waitTitle = h('h3', { tabindex: '-1', 'data-testid': 'waiting-title' });
  const clock = h('span', { class: 'waiting-clock', role: 'timer', 'aria-live': 'off', 'data-testid': 'waiting-clock' });
  const parts = {
    requeued: h('p', { class: 'requeued', 'data-testid': 'requeued' }),
    head: h('div', { class: 'waiting-head' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), waitTitle),
    clock,
    pool: h('p', { class: 'waiting-pool', 'data-testid': 'waiting-pool' }),
    bots: h('p', { class: 'waiting-bots', 'data-testid': 'waiting-bots' }),
    trouble: h('p', { class: 'trouble', 'data-testid': 'waiting-trouble' }),
    cancel: h('button', { type: 'button', 'data-testid': 'cancel-pairing', onclick: cancel }, t('quick.cancel')),
    // Alone for a while: the computer now, or a room for friends (the place in the
    // queue is given up for either).
    offer: h('div', { class: 'waiting-offer', 'data-testid': 'waiting-offer', hidden: true },
      h('p', {}, t('quick.offerText')),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'primary', 'data-testid': 'offer-computer', onclick: () => playComputer(q.lobby) }, t('lobby.computerTitle')),
        h('button', { type: 'button', 'data-testid': 'offer-friends', onclick: () => createForFriends(q.lobby, {}) }, t('quick.offerFriends')))),
  };
  // Polite live region, always in the page (a region that appears is not read out): what
  // it holds changes as the wait goes on. The clock ticking in it is not read out.
  const waiting = h('div', { class: 'waiting-panel', 'aria-live': 'polite', 'data-testid': 'waiting-panel' });
  const el = h('section', { class: 'panel path quick', 'aria-labelledby': 'path-quick', 'data-testid': 'quick' },
    h('h2', { id: 'path-quick' }, t('quick.title')), message, idle, waiting, corrBox);
  return { el, playNow, playNowPool, message, grids, corrGrid, corrBox, idle, waiting, waitTitle, clock, parts, tiles: [], poolsDrawn: '' };
}

function draw() {
  const v = q.view;
  if (!v) return;
  const busy = Boolean(q.lobby?.state.busy);
  const waiting = q.mode === 'waiting' || q.mode === 'cancelling' || q.mode === 'found';
  // The message line: an error, or what became of a wait.
  const m = q.message;
  v.message.replaceChildren(...(m ? [h('p', { class: m.kind === 'error' ? 'error' : 'notice' }, m.text,
    m.login ? [' ', h('a', { href: '/account?next=/' }, t('account.loginLink'))] : null,
    m.room ? [' ', h('a', { href: roomLink(m.room) }, t('quick.goToTable'))] : null)] : []));
  v.idle.hidden = waiting;
  // The grid: drawn again only when the pools are others (the counts change in place).
  const order = [...q.pools].sort((a, b) => Number(a.rated) - Number(b.rated));
  const drawn = JSON.stringify([order.map(poolKey), Boolean(account())]);
  if (drawn !== v.poolsDrawn) {
    v.poolsDrawn = drawn;
    v.tiles = order.map(tile);
    const live = v.tiles.filter((x) => !x.corr);
    v.grids.replaceChildren(
      h('div', { class: 'pool-grid', role: 'group', 'aria-label': t('quick.casualPools') }, live.filter((x) => !x.key.endsWith('/rated')).map((x) => x.el)),
      h('div', { class: 'pool-grid', role: 'group', 'aria-label': t('quick.ratedPools') }, live.filter((x) => x.key.endsWith('/rated')).map((x) => x.el)));
    v.corrGrid.replaceChildren(...v.tiles.filter((x) => x.corr).map((x) => x.el));
  }
  for (const x of v.tiles) {
    const pool = q.pools.find((p) => poolKey(p) === x.key);
    const mine = x.corr && waitsIn(x.pool ?? pool);
    if (x.count) {
      x.count.textContent = mine ? t('quick.corrYouWait')
        : typeof pool?.waiting === 'number' ? t('quick.waiting', { n: pool.waiting }) : '';
      x.count.classList.toggle('some', mine || pool?.waiting > 0);
    }
    if (x.el.tagName === 'BUTTON') x.el.disabled = x.corr ? busy || mine || busyIn(x.pool) : q.mode !== 'idle' || busy;
    x.el.classList.toggle('mine', Boolean(mine));
  }
  v.corrBox.replaceChildren(...[correspondenceMessage(), correspondenceWaits(q.pools)].filter(Boolean));
  v.playNow.disabled = q.mode !== 'idle' || busy;
  v.playNow.textContent = t(q.mode === 'joining' ? 'quick.joining' : 'quick.playNow');
  const best = busiestPool(q.pools);
  v.playNowPool.textContent = typeof best.waiting === 'number'
    ? t('quick.playNowPool', { pool: poolLabel(best), n: best.waiting }) : poolLabel(best);
  if (q.top) {
    q.top.button.disabled = q.mode !== 'idle' || busy;
    q.top.button.firstChild.textContent = t(q.mode === 'joining' ? 'quick.joining' : waiting ? 'quick.waitingButton' : 'quick.playNow');
    q.top.sub.textContent = waiting && q.w?.pool ? poolLabel(q.w.pool) : v.playNowPool.textContent;
  }

  if (!waiting) {
    v.waiting.replaceChildren();
    return;
  }
  const p = v.parts;
  if (!v.waiting.firstChild) v.waiting.replaceChildren(p.requeued, p.head, p.clock, p.pool, p.bots, p.trouble, p.offer, p.cancel);
  const w = q.w ?? {};
  const notice = w.notice;
  p.requeued.hidden = !notice || q.mode === 'found';
  if (notice) p.requeued.textContent = requeuedText(notice);
  if (q.mode === 'found') {
    v.waitTitle.textContent = t('quick.found');
    v.clock.hidden = true;
    p.pool.textContent = t('quick.goingToTable');
    p.bots.hidden = true;
    p.trouble.textContent = '';
    p.offer.hidden = true;
    p.cancel.hidden = true;
    v.waiting.classList.add('found');
    return;
  }
  v.waiting.classList.remove('found');
  v.clock.hidden = false;
  if (w.since) v.clock.textContent = elapsedText(Date.now() - w.since);
  v.waitTitle.textContent = t(q.count === 2 ? 'quick.lookingOne' : 'quick.lookingTwo');
  const label = w.pool ? poolLabel(w.pool) : '';
  // The reader is one of those waiting, whatever a count taken before its ticket says.
  p.pool.textContent = typeof q.count === 'number' ? t('quick.waitingIn', { pool: label, n: Math.max(q.count, 1) }) : label;
  p.bots.hidden = w.bots === null || w.bots === undefined || Boolean(w.pool?.rated);
  if (!p.bots.hidden) p.bots.textContent = t('quick.botsAt', { time: elapsedText(w.bots * 1000) });
  p.trouble.textContent = q.trouble;
  p.offer.hidden = !offerDue();
  for (const b of p.offer.querySelectorAll('button')) b.disabled = busy;
  p.cancel.hidden = false;
  p.cancel.disabled = q.mode === 'cancelling';
  p.cancel.textContent = t(q.mode === 'cancelling' ? 'quick.cancelling' : 'quick.cancel');
}

/** "Middle did not connect in time: the table was given up. You are back at the front
 * of the queue." */
function requeuedText(n) {
  if (!n.seat) return sentences(t('room.aborted.generic'), t('quick.requeued.front'));
  const seat = seatLabel(n.seat);
  const who = n.name ? t('quick.who', { name: n.name, seat }) : seat;
  const reason = ['not_connected', 'left', 'no_first_move'].includes(n.reason) ? n.reason : 'other';
  return sentences(t(`quick.requeued.${reason}`, { who }), t('quick.requeued.front'));
}
