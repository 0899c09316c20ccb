// The lobby: what the game is, then the ways into a game — play the computer (one
// click), play with friends (create, be seated, share the link) — then the games
// waiting for players, the running ones to watch and the finished ones. Every text
// comes from the message tables (i18n). This file only puts the parts together; they
// live in lobby/: hero.js (the top, the reader's name), computer.js and friends.js
// (the ways in, a card each; create-options.js the options of a new room), lists.js and
// cards.js (the lists of rooms), rooms.js (loading them), enter.js (into a room),
// messages.js (words).
import { h } from './dom.js';
import { onLangChange, t } from './i18n.js';
import { storedName } from './prefs.js';
import { onAccountChange, onRatings } from './account.js';
import { heroSection } from './lobby/hero.js';
import { computerCard } from './lobby/computer.js';
import { friendsCard } from './lobby/friends.js';
import { listSections, renderLists } from './lobby/lists.js';
import { createFeed, loadRooms, turnPage } from './lobby/rooms.js';

/** The ways into a game, in the order shown: each a module of lobby/ whose card takes
 * the page's `lobby` (below) and returns its section. A new way in is one more here. */
const PATHS = [computerCard, friendsCard];
const REFRESH_MS = 5000;

export function showLobby(app) {
  // What the reader chose and what the page is doing; the rooms are in `feed`.
  const state = { busy: '', error: '', level: 2, name: storedName() };
  const feed = createFeed();
  let view = null;
  let idleButtons = [];
  // What the cards get: the state, and the page's busy and error lines.
  const lobby = {
    state,
    render,
    /** A request begins that must not be repeated meanwhile; `text` says what it does. */
    begin(text) { state.busy = text; state.error = ''; render(); },
    /** It failed: `text` says why. */
    fail(text) { state.busy = ''; state.error = text; render(); },
    /** `button` starts such a request: it is disabled while one runs. */
    whileIdle(button) { idleButtons.push(button); return button; },
  };

  // The page is built once per language; refreshes only replace the lists and the
  // status lines, so nothing being typed or chosen is disturbed.
  function build() {
    document.title = t('lobby.pageTitle');
    idleButtons = [];
    view = { hero: heroSection(state), lists: listSections() };
    app.replaceChildren(h('div', { class: 'lobby' },
      view.hero.el,
      h('div', { class: 'paths' }, PATHS.map((card) => card(lobby))),
      view.lists.waiting.el, view.lists.playing.el, view.lists.finished.el,
      h('button', { type: 'button', onclick: refresh, 'data-testid': 'refresh' }, t('lobby.refresh'))));
    render();
  }

  function render() {
    if (!view) return;
    view.hero.busy.textContent = state.busy;
    view.hero.busy.hidden = !state.busy;
    view.hero.error.textContent = state.error;
    for (const b of idleButtons) b.disabled = Boolean(state.busy);
    renderLists(view.lists, { root: app, lobby, feed, onTurn: turnFinished });
  }

  const loadFailed = (e) => { state.error = t('lobby.couldNotLoad', { reason: e.message }); };

  async function refresh() {
    try {
      await loadRooms(feed);
      if (state.error.startsWith(t('lobby.couldNotLoad', { reason: '' }))) state.error = '';
    } catch (e) {
      loadFailed(e);
    }
    render();
  }

  async function turnFinished(delta) {
    try {
      await turnPage(feed, delta);
    } catch (e) {
      loadFailed(e);
    }
    render();
  }

  build();
  onAccountChange(build);
  onRatings(render);
  refresh();
  const timer = setInterval(() => { if (!document.hidden) refresh(); }, REFRESH_MS);
  addEventListener('pagehide', () => clearInterval(timer));
  onLangChange(build);
}
