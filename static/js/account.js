// The reader's account (docs/accounts.md): who is logged in (the session cookie is
// HttpOnly, so the page asks `GET /api/session`), logging in and out, and the ratings
// of account players shown next to their names (`GET /api/players?names=…`, cached).
// A guest's `GET /api/session` is answered `null`, not an error.
import { t } from './i18n.js';
import { api } from './protocol.js';

let me = null;
let loaded = null;
const listeners = new Set();

function tell() {
  for (const fn of listeners) fn(me);
}

/** The logged-in account (`{name, rating, provisional, games}`) or null, once known. */
export function currentAccount() {
  if (!loaded) {
    loaded = api('/api/session').then((a) => { me = a ?? null; }, () => { me = null; }).then(() => { tell(); return me; });
  }
  return loaded;
}

/** The account as last known (null while unknown or logged out). */
export function account() {
  return me;
}

/** Calls `fn(account)` whenever the reader logs in or out. */
export function onAccountChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function changed(a) {
  me = a;
  loaded = Promise.resolve(a);
  tell();
  return a;
}

/** The message of an API error of the accounts in the reader's language when there is
 * one (`account.error.<code>`), else the server's own. */
export function accountErrorText(e) {
  const key = `account.error.${e.code}`;
  const text = t(key);
  return text === key ? e.message : text;
}

/** Registers (which also logs in). Throws the API error (`code`, `message`). */
export async function register(name, password) {
  return changed(await api('/api/accounts', { method: 'POST', body: JSON.stringify({ name, password }) }));
}

/** Logs in. Throws the API error. */
export async function login(name, password) {
  return changed(await api('/api/session', { method: 'POST', body: JSON.stringify({ name, password }) }));
}

/** Logs out. */
export async function logout() {
  await api('/api/session', { method: 'DELETE' });
  changed(null);
}

/** Changes the password (other sessions end). Throws the API error. */
export async function changePassword(current, next) {
  await api('/api/account/password', { method: 'POST', body: JSON.stringify({ current, new: next }) });
}

// ---- ratings next to names --------------------------------------------------------

const ratings = new Map(); // lower-case name → rating, or null (no such account)
const asked = new Set();
const ratingListeners = new Set();
let batch = null;

/** Calls `fn()` when ratings asked for by `ratingOf` arrive. */
export function onRatings(fn) {
  ratingListeners.add(fn);
  return () => ratingListeners.delete(fn);
}

/** Forgets the ratings of `names` (after a game they change). */
export function forgetRatings(names) {
  for (const n of names) {
    const key = String(n).toLowerCase();
    ratings.delete(key);
    asked.delete(key);
  }
}

/** The rating of account `name` if known; otherwise asks for it (in one batch with the
 * other names asked for now) and answers null. */
export function ratingOf(name) {
  const key = String(name ?? '').toLowerCase();
  if (!key) return null;
  if (ratings.has(key)) return ratings.get(key);
  if (!asked.has(key)) {
    asked.add(key);
    if (!batch) {
      batch = new Set();
      queueMicrotask(fetchBatch);
    }
    batch.add(key);
  }
  return null;
}

async function fetchBatch() {
  const names = [...batch];
  batch = null;
  try {
    const list = await api(`/api/players?names=${encodeURIComponent(names.join(','))}`);
    for (const n of names) ratings.set(n, null);
    for (const r of list ?? []) ratings.set(r.name.toLowerCase(), r);
    for (const fn of ratingListeners) fn();
  } catch {
    for (const n of names) asked.delete(n);
  }
}

/** "1050", or "1050?" while provisional. */
export function ratingText(r) {
  if (!r) return '';
  return `${r.rating}${r.provisional ? '?' : ''}`;
}

/** The link to a player's profile page. */
export function profileLink(name) {
  return `/players/${encodeURIComponent(name)}`;
}
