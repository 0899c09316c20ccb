// My games (`POST /api/games/mine`, docs/correspondence.md): the games of every seat
// token and pairing ticket this browser keeps, and of the logged-in account, the ones
// where it is the reader's turn first, and the games of both that ended last. Loaded
// once per page and then every minute and when the tab comes back into view; the
// header's badge, the tab's title ("(2) …") and the /games page follow it. A game found
// by a ticket brings its seat token: it is kept for the room page, as a seat taken
// there would be.
import { TOKENS_EVENT, allSeatTokens, saveToken, savedToken } from './protocol.js';
import { allTickets } from './pairing.js';
import { httpError } from './i18n.js';

const REFRESH_MS = 60000;
/** The most tokens one request names (the server's limit). */
const MAX_TOKENS = 100;
/** The seat a logged-in reader takes back with `join` (a game of its account whose
 * token this browser does not hold): `{ room, seat }`, for the room page. */
const CLAIM_KEY = 'sannin.claim';

const listeners = new Set();
/** The last answer: `{ games, your_turn, finished, skew }` (finished: the games that
 * ended, newest first; skew: the server's clock minus this
 * computer's, from the answer's Date header, for the deadlines), or null. */
let last = null;
let loading = null;
let timer = null;
let loggedIn = false;

/** The tokens to send: every ticket and seat token (as many as the server takes). */
export function heldTokens() {
  return [...new Set([...allTickets(), ...Object.values(allSeatTokens())])].slice(0, MAX_TOKENS);
}

/** Whether there is anything to ask about: a token, a ticket or an account. */
export function anythingToAsk() {
  return loggedIn || heldTokens().length > 0;
}

/** The last list, or null. */
export function myGames() {
  return last;
}

/** Calls `fn(list)` after each load (`list` null when it failed); returns unsubscribe. */
export function onMyGames(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Loads the list (one request at a time); resolves to it, or throws. */
export function loadMyGames() {
  if (loading) return loading;
  loading = (async () => {
    try {
      const res = await fetch('/api/games/mine', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tokens: heldTokens() }),
      });
      const body = await res.json().catch(() => null);
      if (!res.ok || !Array.isArray(body?.games)) {
        throw httpError(res, body);
      }
      keepTokens(body.games);
      const date = Date.parse(res.headers.get('date') ?? '');
      // The header has whole seconds: a difference under two is none.
      const skew = Number.isFinite(date) && Math.abs(date - Date.now()) > 2000 ? date - Date.now() : 0;
      last = {
        games: body.games,
        your_turn: typeof body.your_turn === 'number' ? body.your_turn : body.games.filter((g) => g.your_turn).length,
        finished: Array.isArray(body.finished) ? body.finished : [],
        skew,
      };
      for (const fn of listeners) fn(last);
      return last;
    } finally {
      loading = null;
    }
  })();
  return loading;
}

/** The seat tokens that came with the games (found by a ticket) are the room's now. */
function keepTokens(games) {
  for (const g of games) if (typeof g.token === 'string' && g.token && savedToken(g.room) !== g.token) saveToken(g.room, g.token);
}

/** The seat token of a game of the list, where this browser holds one. */
export function tokenOf(game) {
  return game.token ?? (game.by_account ? null : savedToken(game.room));
}

/** Loads now, quietly (the header's refresh): failures keep the last list. */
export function refreshMyGames() {
  if (!anythingToAsk()) {
    last = { games: [], your_turn: 0, finished: [], skew: 0 };
    for (const fn of listeners) fn(last);
    return Promise.resolve(last);
  }
  return loadMyGames().catch(() => null);
}

/**
 * Keeps the list fresh on this page: now, every minute while the tab is visible, when
 * it comes back into view and when the tokens change. `isLoggedIn`: whether a session
 * is known (an account's games are found without tokens).
 */
export function followMyGames({ isLoggedIn = false } = {}) {
  loggedIn = isLoggedIn;
  if (timer) return;
  timer = setInterval(() => { if (!document.hidden) refreshMyGames(); }, REFRESH_MS);
  document.addEventListener('visibilitychange', () => { if (!document.hidden) refreshMyGames(); });
  let soon = null;
  addEventListener(TOKENS_EVENT, () => {
    clearTimeout(soon);
    soon = setTimeout(refreshMyGames, 1500);
  });
  refreshMyGames();
}

/** The account is known (or gone): asked again if that changes what there is to ask. */
export function setLoggedIn(on) {
  if (on === loggedIn) return;
  loggedIn = on;
  if (timer) refreshMyGames();
}

/** Opens a game of the list: its token kept, or its seat to be taken back by the
 * account on arrival. */
export function prepareOpen(game) {
  if (game.token) saveToken(game.room, game.token);
  else if (game.by_account && !savedToken(game.room)) {
    try { sessionStorage.setItem(CLAIM_KEY, JSON.stringify({ room: game.room, seat: game.seat })); } catch { /* the page watches */ }
  }
}

/** The seat to take back in room `roomId` (once), or null. */
export function takeClaim(roomId) {
  try {
    const claim = JSON.parse(sessionStorage.getItem(CLAIM_KEY) ?? 'null');
    if (claim?.room !== roomId) return null;
    sessionStorage.removeItem(CLAIM_KEY);
    return typeof claim.seat === 'string' ? claim.seat : null;
  } catch { return null; }
}
