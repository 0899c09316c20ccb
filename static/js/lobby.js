// The lobby: what the game is and three big buttons into a game (lobby/start.js), then
// the ways into a game with their choices — a quick game with two other
// people (one click, or a pool picked in the grid), play the computer (one click), play
// with friends (create, be seated, share the link) — then the games waiting for players,
// the running ones to watch and the finished ones, kept up to date by the server's live
// feed. Every text comes from the message tables (i18n). This file only puts the parts
// together; they live in lobby/: hero.js (the top, the reader's name), quick.js,
// computer.js and friends.js (the ways in, a card each; create-options.js the options of
// a new room), lists.js and cards.js (the lists of rooms), rooms.js (what they hold),
// live.js (the live feed), enter.js (into a room), messages.js (words).
import { h } from './dom.js';
import { onLangChange, t } from './i18n.js';
import { storedName } from './prefs.js';
import { onAccountChange, onRatings } from './account.js';
import { heroSection } from './lobby/hero.js';
import { startSection } from './lobby/start.js';
import { leaveQueue, quickCard } from './lobby/quick.js';
import { computerCard } from './lobby/computer.js';
import { friendsCard } from './lobby/friends.js';
import { listSections, renderLists } from './lobby/lists.js';
import { applyPicture, createFeed, loadDetails, loadRooms, reloadFinished, turnPage } from './lobby/rooms.js';
import { followLobby } from './lobby/live.js';

/** The ways into a game, in the order shown: each a module of lobby/ whose card takes
 * the page's `lobby` (below) and returns its section. A new way in is one more here. */
const PATHS = [quickCard, computerCard, friendsCard];
/** The boards of running games are fetched again at most this often. */
const DETAILS_MS = 2000;

export function showLobby(app) {
  // What the reader chose and what the page is doing; the rooms are in `feed`.
  const state = { busy: '', error: '', level: 2, name: storedName() };
  const feed = createFeed();
  const hooks = new Set();
  let view = null;
  let idleButtons = [];
  // What the cards get: the state, the rooms and pools, and the page's busy and error
  // lines.
  const lobby = {
    state,
    feed,
    render,
    /** A request begins that must not be repeated meanwhile; `text` says what it does.
     * It leads into another game: a place in the queue of quick pairing is given up. */
    begin(text) { leaveQueue(); state.busy = text; state.error = ''; render(); },
    /** It failed: `text` says why. */
    fail(text) { state.busy = ''; state.error = text; render(); },
    /** `button` starts such a request: it is disabled while one runs. */
    whileIdle(button) { idleButtons.push(button); return button; },
    /** `fn(feed)` after each drawing (news of the rooms and pools, busy or not). */
    onRender(fn) { hooks.add(fn); },
  };

  // The page is built once per language; news only replaces the lists, the counts and
  // the status lines, so nothing being typed or chosen is disturbed.
  function build() {
    document.title = t('lobby.pageTitle');
    idleButtons = [];
    view = { hero: heroSection(state, startSection(lobby)), lists: listSections() };
    app.replaceChildren(h('div', { class: 'lobby' },
      view.hero.el,
      h('div', { class: 'paths' }, PATHS.map((card) => card(lobby))),
      view.lists.waiting.el, view.lists.playing.el, view.lists.finished.el));
    render();
  }

  /** Draws what changed; `now`: the reader's click asked for it (drawn at once). */
  function render({ force = false, now = false } = {}) {
    if (!view) return;
    view.hero.busy.textContent = state.busy;
    view.hero.busy.hidden = !state.busy;
    view.hero.error.textContent = state.error;
    for (const b of idleButtons) b.disabled = Boolean(state.busy);
    renderLists(view.lists, { root: app, lobby, feed, onTurn: turnFinished, force, now });
    for (const fn of hooks) fn(feed);
  }

  const loadFailed = (e) => { state.error = t('lobby.couldNotLoad', { reason: e.message }); };
  const loaded = () => {
    if (state.error.startsWith(t('lobby.couldNotLoad', { reason: '' }))) state.error = '';
  };

  /** Without the live feed: every list from the server. */
  async function poll() {
    try {
      await loadRooms(feed);
      loaded();
    } catch (e) {
      loadFailed(e);
    }
    render();
  }

  async function finishedAgain() {
    try {
      await reloadFinished(feed);
    } catch (e) {
      loadFailed(e);
    }
    render();
  }

  // The boards of the running games: a game's board is fetched again when its moves
  // changed, at most every DETAILS_MS.
  let detailsAt = 0;
  let detailsTimer = null;
  function details() {
    if (detailsTimer) return;
    detailsTimer = setTimeout(async () => {
      detailsAt = Date.now();
      await loadDetails(feed);
      detailsTimer = null;
      render();
    }, Math.max(0, detailsAt + DETAILS_MS - Date.now()));
  }

  async function turnFinished(delta) {
    try {
      await turnPage(feed, delta);
    } catch (e) {
      loadFailed(e);
    }
    render({ now: true });
  }

  build();
  onAccountChange(build);
  onRatings(() => render({ force: true }));
  followLobby({
    onPicture(picture) {
      if (applyPicture(feed, picture)) finishedAgain();
      loaded();
      details();
      render();
    },
    onPoll: poll,
  });
  finishedAgain();
  onLangChange(build);
}
