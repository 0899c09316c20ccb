// Notifications (docs/correspondence.md, "Notifications"): one setting for the whole
// site, changed from the bell in the header (and, for "your turn", from the room's
// "Notify me" box, which is the same setting). Turned on, it asks the browser's
// permission; then
//
// - while a page of the site is open in the background, the room page itself says
//   that the turn came (`showTurn`);
// - where the browser has a push service, a Web Push subscription (service worker
//   /sw.js) lets the server tell the reader when no page of the game is open: the
//   subscription is posted to `POST /api/push/subscriptions` with the seat tokens and
//   tickets this browser holds, the kinds chosen and the language, and posted again
//   whenever one of those changes (the same endpoint keeps its id).
//
// Every failure ends in words for the reader (`status().problem`), never in an
// uncaught error.
import { TOKENS_EVENT, allSeatTokens } from './protocol.js';
import { allTickets, correspondenceTickets, forgetTable, removeCorrespondenceTicket, storeWaiting, tableTicket, waitingTicket } from './pairing.js';
import { loadMyGames, myGames, onMyGames, tokenOf } from './mine.js';
import { lang, onLangChange } from './i18n.js';

/** The kinds of notification, in the order the bell lists them. */
export const KINDS = ['your_turn', 'matched', 'game_started', 'game_over', 'draw_offered'];
const KEY = 'sannin.push';
const OLD_KEY = 'sannin.notify';
const SW_URL = '/sw.js';
const MAX_TOKENS = 100;

/** `{ on, kinds, id, endpoint, sent }`: on — the reader turned notifications on; id and
 * endpoint — the push subscription posted (null without one); sent — what was posted
 * last (posted again when it changes). */
function load() {
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(KEY) ?? 'null'); } catch { saved = null; }
  const out = { on: false, kinds: [...KINDS], id: null, endpoint: null, sent: null };
  if (saved && typeof saved === 'object') {
    out.on = saved.on === true;
    if (Array.isArray(saved.kinds)) out.kinds = KINDS.filter((k) => saved.kinds.includes(k));
    if (typeof saved.id === 'string') out.id = saved.id;
    if (typeof saved.endpoint === 'string') out.endpoint = saved.endpoint;
    if (typeof saved.sent === 'string') out.sent = saved.sent;
  } else {
    // The room's "Notify me" box of earlier pages: your turn, while the page is open.
    try { if (localStorage.getItem(OLD_KEY) === 'on') { out.on = true; out.kinds = ['your_turn']; } } catch { /* no storage */ }
  }
  return out;
}

let s = load();
/** What the bell says besides the settings: `busy` while turning on or off; `push`:
 * 'on' (subscribed), 'off', 'unsupported' (no push here); `problem`: a message key. */
const st = { busy: false, push: s.id ? 'on' : 'off', problem: null };
const listeners = new Set();

function save() {
  try {
    localStorage.setItem(KEY, JSON.stringify(s));
    localStorage.removeItem(OLD_KEY);
  } catch { /* not remembered */ }
}
function changed() {
  for (const fn of listeners) fn();
}

/** Calls `fn()` whenever the settings or their state change; returns unsubscribe. */
export function onNotifyChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** `{ on, kinds, push, busy, problem, permission }`. */
export function notifyStatus() {
  return { on: s.on, kinds: [...s.kinds], push: st.push, busy: st.busy, problem: st.problem, permission: permission() };
}

/** Whether the browser can show notifications at all. */
export function canNotify() {
  return typeof Notification === 'function';
}

function permission() {
  return canNotify() ? Notification.permission : 'unsupported';
}

/** Whether this browser could have a push subscription (it may still fail). */
function pushPossible() {
  return typeof navigator !== 'undefined' && 'serviceWorker' in navigator && typeof PushManager === 'function' && window.isSecureContext;
}

/** Whether the reader wants notifications of `kind`. */
export function wants(kind) {
  return s.on && s.kinds.includes(kind) && permission() === 'granted';
}

/** Turns notifications on: the browser's permission, then a push subscription where
 * the browser has one. Resolves to the status. */
export async function turnOn() {
  if (st.busy) return notifyStatus();
  st.problem = null;
  if (!canNotify()) {
    st.problem = 'notify.problem.unsupported';
    changed();
    return notifyStatus();
  }
  st.busy = true;
  changed();
  try {
    let p = Notification.permission;
    if (p === 'default') {
      try { p = await Notification.requestPermission(); } catch { p = Notification.permission; }
    }
    if (p !== 'granted') {
      st.problem = p === 'denied' ? 'notify.problem.denied' : 'notify.problem.dismissed';
      return notifyStatus();
    }
    s.on = true;
    if (!s.kinds.length) s.kinds = [...KINDS];
    save();
    await subscribe();
  } finally {
    st.busy = false;
    changed();
  }
  return notifyStatus();
}

/** Turns notifications off: the subscription deleted on the server and in the browser. */
export async function turnOff() {
  if (st.busy) return notifyStatus();
  st.busy = true;
  st.problem = null;
  s.on = false;
  save();
  changed();
  try {
    if (s.id) {
      try {
        const res = await fetch(`/api/push/subscriptions/${encodeURIComponent(s.id)}`, { method: 'DELETE' });
        if (!res.ok && res.status !== 404) throw new Error(String(res.status));
      } catch {
        st.problem = 'notify.problem.offFailed';
      }
    }
    try {
      const reg = pushPossible() ? await navigator.serviceWorker.getRegistration(SW_URL) : null;
      const sub = await reg?.pushManager.getSubscription();
      await sub?.unsubscribe();
    } catch { /* the browser forgets it by itself */ }
    s.id = null;
    s.endpoint = null;
    s.sent = null;
    st.push = 'off';
    save();
  } finally {
    st.busy = false;
    changed();
  }
  return notifyStatus();
}

/** Chooses whether to be told of `kind`; posted to the server when subscribed. */
export async function setKind(kind, on) {
  if (!KINDS.includes(kind)) return;
  const kinds = new Set(s.kinds);
  if (on) kinds.add(kind); else kinds.delete(kind);
  s.kinds = KINDS.filter((k) => kinds.has(k));
  save();
  changed();
  await repost();
}

/** Registers the service worker and subscribes, then posts the subscription. */
async function subscribe() {
  if (!pushPossible()) {
    st.push = 'unsupported';
    st.problem = 'notify.problem.noPush';
    return;
  }
  let sub;
  try {
    const key = await fetch('/api/push/key').then((r) => (r.ok ? r.json() : null)).catch(() => null);
    if (typeof key?.public_key !== 'string') {
      st.push = 'unsupported';
      st.problem = 'notify.problem.noServerPush';
      return;
    }
    const reg = await registerWorker();
    sub = await reg.pushManager.getSubscription();
    if (sub && !sameKey(sub, key.public_key)) {
      await sub.unsubscribe().catch(() => {});
      sub = null;
    }
    sub ??= await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64urlBytes(key.public_key) });
  } catch {
    // Headless browsers, browsers without a push service, push blocked by the browser's
    // settings: notifications still come while a page is open.
    st.push = 'unsupported';
    st.problem = 'notify.problem.noPush';
    return;
  }
  await post(sub);
}

/** The service worker, registered and active. */
export async function registerWorker() {
  await navigator.serviceWorker.register(SW_URL, { scope: '/' });
  return navigator.serviceWorker.ready;
}

function sameKey(sub, publicKey) {
  const have = sub.options?.applicationServerKey;
  if (!have) return true;
  const want = base64urlBytes(publicKey);
  const a = new Uint8Array(have);
  return a.length === want.length && a.every((b, i) => b === want[i]);
}

/** base64url (no padding) → bytes. */
export function base64urlBytes(text) {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(text.length / 4) * 4, '=');
  const raw = atob(b64);
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

/** The seat tokens to post, with the tickets: every seat token kept, or (`listed`)
 * only those of the games My games lists now — a token of a room that is gone would
 * be refused. */
async function tokens({ tickets = true, listed = false } = {}) {
  let seats = Object.values(allSeatTokens());
  if (listed) {
    let games = null;
    try { games = (await loadMyGames()).games; } catch { games = myGames()?.games ?? null; }
    if (games) seats = games.map(tokenOf).filter(Boolean);
  }
  return [...new Set([...(tickets ? allTickets() : []), ...seats])].slice(0, MAX_TOKENS);
}

/** Forgets the tickets the server no longer knows (cancelled in another browser…). */
async function pruneTickets() {
  const gone = async (ticket) => {
    try {
      const res = await fetch(`/api/pairing/${encodeURIComponent(ticket)}`);
      return res.status === 404;
    } catch { return false; }
  };
  const w = waitingTicket();
  if (w && await gone(w.ticket)) storeWaiting(null);
  const table = tableTicket();
  if (table && await gone(table.ticket)) forgetTable();
  for (const c of correspondenceTickets()) if (await gone(c.ticket)) removeCorrespondenceTicket(c.ticket);
}

/** Posts the subscription with what this browser holds now (again only when that
 * changed, unless `force`). */
async function post(sub, { force = true } = {}) {
  const json = sub.toJSON();
  const body = {
    endpoint: json.endpoint, keys: { p256dh: json.keys?.p256dh, auth: json.keys?.auth },
    tokens: await tokens(), kinds: s.kinds, lang: lang(),
  };
  const sign = JSON.stringify([body.endpoint, [...body.tokens].sort(), body.kinds, body.lang, sessionHint()]);
  if (!force && s.id && s.endpoint === body.endpoint && s.sent === sign) return;
  let res = await send(body);
  if (res?.code === 'bad_token') {
    await pruneTickets();
    body.tokens = await tokens({ listed: true });
    res = await send(body);
    if (res?.code === 'bad_token') {
      body.tokens = await tokens({ tickets: false, listed: true });
      res = await send(body);
    }
  }
  if (res?.id) {
    s.id = res.id;
    s.endpoint = body.endpoint;
    s.sent = sign;
    st.push = 'on';
    st.problem = null;
  } else {
    st.push = s.id ? 'on' : 'off';
    st.problem = res?.code === 'rate_limited' ? 'notify.problem.rate' : 'notify.problem.server';
  }
  save();
  changed();
}

async function send(body) {
  try {
    const res = await fetch('/api/push/subscriptions', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    const answer = await res.json().catch(() => null);
    if (res.ok && typeof answer?.id === 'string') return { id: answer.id };
    return { code: answer?.error?.code ?? String(res.status) };
  } catch {
    return { code: 'network' };
  }
}

let account = null;
function sessionHint() {
  return account;
}

/** The logged-in account's name (an account's subscription covers its seats). */
export function setNotifyAccount(name) {
  if (name === account) return;
  account = name ?? null;
  schedule();
}

/** Posts again if anything changed since the last post (new seat, ticket, language). */
async function repost() {
  if (!s.on || !s.id || !pushPossible() || permission() !== 'granted') return;
  try {
    const reg = await navigator.serviceWorker.getRegistration(SW_URL);
    const sub = await reg?.pushManager.getSubscription();
    if (!sub) {
      // The browser dropped it (push permission revoked, subscription expired): again.
      await subscribe();
      changed();
      return;
    }
    await post(sub, { force: false });
  } catch { /* tried again with the next change */ }
}

let soon = null;
function schedule() {
  clearTimeout(soon);
  soon = setTimeout(repost, 2000);
}

let followed = false;
/** Keeps the subscription up to date on this page (once per page). */
export function followNotify() {
  if (followed) return;
  followed = true;
  // Permission taken back in the browser's settings: notifications are off.
  if (s.on && canNotify() && Notification.permission === 'denied') {
    s.on = false;
    save();
  }
  addEventListener(TOKENS_EVENT, schedule);
  // The seats posted are those My games lists: a new list may hold a new one.
  onMyGames(schedule);
  onLangChange(schedule);
  addEventListener('storage', (e) => {
    if (e.key !== KEY) return;
    s = load();
    st.push = s.id ? 'on' : st.push === 'unsupported' ? 'unsupported' : 'off';
    changed();
  });
  schedule();
}

/** The room page's own notification that the turn came, while it is hidden: through
 * the service worker where there is one (phones allow no other), else directly. */
export async function showTurn({ title, body, url, tag }) {
  if (!wants('your_turn') || !document.hidden) return;
  try {
    const reg = pushPossible() ? await navigator.serviceWorker.getRegistration(SW_URL) : null;
    if (reg) {
      await reg.showNotification(title, { body, tag, renotify: true, data: { url }, icon: '/icon-192.png' });
      return;
    }
  } catch { /* below */ }
  try {
    const n = new Notification(title, { body, tag, renotify: true, icon: '/icon-192.png' });
    n.onclick = () => { window.focus(); n.close(); };
  } catch { /* some browsers allow them only from a service worker */ }
}
