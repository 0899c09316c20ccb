// The lists under the ways into a game: games waiting for players, games to watch, and
// finished games (a page at a time). A list is redrawn when what it shows changed (the
// live feed sends news many times a minute), never under a pressed pointer; what had the
// focus in it keeps it.
import { h, redraw } from '../dom.js';
import { SEATS } from '../geometry.js';
import { lang, t } from '../i18n.js';
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
    // A waiting room nobody sits in is of no use to anyone reading the lobby; a table of
    // quick pairing has no seat to offer (it starts once its players are there).
    if (room.status === 'waiting' && (room.paired || !SEATS.some((seat) => room.seats?.[seat]))) continue;
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

/** Draws `section` with `draw()` unless what it shows (`keyOf()`) is what it showed;
 * `force` draws it anyway (ratings came). A drawing the reader's click asked for
 * (`now`) is made at once; news waits for a pressed pointer to be released, and is
 * then drawn from the rooms as they are by then. */
function drawIfChanged(section, keyOf, { force, now, root }, draw) {
  const key = keyOf();
  if (!force && section.key === key) return;
  section.key = key;
  const run = () => {
    const focusedId = section.body.contains(document.activeElement) ? document.activeElement?.dataset?.testid : null;
    draw();
    if (focusedId && !root.contains(document.activeElement)) root.querySelector(`[data-testid="${CSS.escape(focusedId)}"]`)?.focus();
  };
  if (now) run();
  else redraw(section.body, run);
}

/** Fills `lists` (from `listSections`) from `feed` (rooms.js); `root` is the page;
 * `now`: the reader's click asked for it. */
export function renderLists(lists, { root, lobby, feed, onTurn, force = false, now = false }) {
  const opts = { force, now, root };
  const empty = (key) => h('p', { class: 'empty' }, t(feed.loaded ? key : 'lobby.loading'));
  const base = () => [lang(), feed.loaded, Boolean(lobby.state.busy)];
  const waiting = () => byStatus(feed.rooms).waiting;
  const playing = () => byStatus(feed.rooms).playing;
  drawIfChanged(lists.waiting, () => JSON.stringify([base(), waiting()]), opts, () => {
    const rooms = waiting();
    lists.waiting.body.replaceChildren(rooms.length
      ? h('ul', { class: 'rooms-grid', 'data-testid': 'rooms-waiting' }, rooms.map((room) => waitingCard(room, lobby)))
      : empty('lobby.noOpenGames'));
  });
  const boards = () => playing().map((room) => feed.details.get(room.id)?.position ?? null);
  drawIfChanged(lists.playing, () => JSON.stringify([base(), playing(), boards()]), opts, () => {
    const rooms = playing();
    lists.playing.body.replaceChildren(rooms.length
      ? h('ul', { class: 'rooms-grid', 'data-testid': 'rooms-playing' }, rooms.map((room) => playingCard(room, feed.details.get(room.id), lobby)))
      : empty('lobby.noRunning'));
  });
  drawIfChanged(lists.finished, () => JSON.stringify([base(), finishedPage(feed)]), opts, () => {
    const { shown, pager } = finishedPage(feed);
    lists.finished.body.replaceChildren(shown.length
      ? h('ul', { class: 'finished-list', 'data-testid': 'rooms-finished' }, shown.map(finishedItem)) : empty('lobby.noFinished'));
    if (pager) lists.finished.body.append(pagerNav(pager, onTurn));
  });
}
