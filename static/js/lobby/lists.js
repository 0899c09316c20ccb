// The lists under the ways into a game: games waiting for players, games to watch, and
// finished games (a page at a time). Redrawn on every refresh; what had the focus in
// them keeps it.
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { t } from '../i18n.js';
import { finishedItem, playingCard, waitingCard } from './cards.js';
import { finishedPage } from './rooms.js';

function listSection(id, titleKey) {
  const body = h('div', { 'data-testid': `list-${id}` });
  return { body, el: h('section', { class: 'panel', 'aria-labelledby': `list-${id}` }, h('h2', { id: `list-${id}` }, t(titleKey)), body) };
}

/** The three sections, each `{ el, body }`, empty until `renderLists`. */
export function listSections() {
  return {
    waiting: listSection('waiting', 'lobby.openGames'),
    playing: listSection('playing', 'lobby.watchTitle'),
    finished: listSection('finished', 'lobby.finishedTitle'),
  };
}

function byStatus(rooms) {
  const groups = { waiting: [], playing: [] };
  for (const room of rooms) {
    // A waiting room nobody sits in is of no use to anyone reading the lobby.
    if (room.status === 'waiting' && !SEATS.some((seat) => room.seats?.[seat])) continue;
    (groups[room.status] ?? groups.waiting).push(room);
  }
  return groups;
}

/** Newer / "Page 2 of 3" / Older; `onTurn(delta)` turns the page. */
function pagerNav(pager, onTurn) {
  const n = pager.page + 1;
  const label = pager.pages === null ? t('lobby.pageN', { n }) : t('lobby.page', { n, of: pager.pages });
  return h('nav', { class: 'pager', 'aria-label': t('lobby.pages') },
    h('button', { type: 'button', 'data-testid': 'finished-prev', disabled: pager.page === 0, onclick: () => onTurn(-1) }, t('lobby.newer')),
    h('span', { 'data-testid': 'finished-page' }, label),
    h('button', { type: 'button', 'data-testid': 'finished-next', disabled: !pager.older, onclick: () => onTurn(1) }, t('lobby.older')));
}

/** Fills `lists` (from `listSections`) from `feed` (rooms.js); `root` is the page. */
export function renderLists(lists, { root, lobby, feed, onTurn }) {
  const groups = byStatus(feed.rooms);
  const { shown, pager } = finishedPage(feed);
  const focusedId = document.activeElement?.dataset?.testid;
  const empty = (key) => h('p', { class: 'empty' }, t(feed.loaded ? key : 'lobby.loading'));
  lists.waiting.body.replaceChildren(groups.waiting.length
    ? h('ul', { class: 'rooms-grid', 'data-testid': 'rooms-waiting' }, groups.waiting.map((room) => waitingCard(room, lobby)))
    : empty('lobby.noOpenGames'));
  lists.playing.body.replaceChildren(groups.playing.length
    ? h('ul', { class: 'rooms-grid', 'data-testid': 'rooms-playing' }, groups.playing.map((room) => playingCard(room, feed.details.get(room.id), lobby)))
    : empty('lobby.noRunning'));
  lists.finished.body.replaceChildren(shown.length
    ? h('ul', { class: 'finished-list', 'data-testid': 'rooms-finished' }, shown.map(finishedItem)) : empty('lobby.noFinished'));
  if (pager) lists.finished.body.append(pagerNav(pager, onTurn));
  if (focusedId && !root.contains(document.activeElement)) root.querySelector(`[data-testid="${CSS.escape(focusedId)}"]`)?.focus();
}
