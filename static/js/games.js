// /games — My games: the games of this browser's seat tokens and tickets and of the
// logged-in account (mine.js), the ones where it is the reader's move first, each with
// its board in miniature, the opponents, whose move it is and the time left; the
// correspondence tickets still waiting for a table, with Cancel; with nothing in
// progress, what the page is for and how to start; and below, the games that ended
// last (history.js), each with the reader's result and a link to its replay.
import { h } from './dom.js';
import { SEATS } from './geometry.js';
import { parsePosition } from './position.js';
import { miniBoard } from './miniboard.js';
import { onLangChange, t } from './i18n.js';
import { account, currentAccount, onAccountChange } from './account.js';
import { guestMark, isGuest, playerName } from './players.js';
import { durationText, isCorrespondence } from './clocks.js';
import { clockText, pliesText, seatLabel } from './lobby/messages.js';
import { roomLink } from './lobby/enter.js';
import { loadMyGames, myGames, onMyGames, prepareOpen } from './mine.js';
import {
  correspondenceFound, correspondenceTickets, errorText, isCorrespondenceKey, leavePool, removeCorrespondenceTicket,
  ticketStatus,
} from './pairing.js';
import { poolName } from './lobby/corr-wait.js';
import { historyList } from './history.js';

/** The times left are drawn again this often (the list itself is loaded every minute). */
const REDRAW_MS = 20000;

export function showGames(app) {
  const page = { list: myGames(), error: '', loaded: false, busy: new Set(), ticketError: '' };
  const root = h('div', { class: 'games-page', 'data-testid': 'games-page' });
  app.replaceChildren(root);

  function draw() {
    document.title = t('games.pageTitle');
    const games = page.list?.games ?? [];
    const mine = games.filter((g) => g.your_turn);
    const others = games.filter((g) => !g.your_turn);
    const tickets = correspondenceTickets();
    const parts = [h('h1', {}, t('games.title'))];
    if (page.error) {
      parts.push(h('p', { class: 'error', role: 'alert', 'data-testid': 'games-error' }, t('games.error', { reason: page.error }),
        ' ', h('button', { type: 'button', class: 'small', onclick: load }, t('games.retry'))));
    }
    if (!page.loaded && !page.list) parts.push(h('p', { class: 'hint' }, t('lobby.loading')));
    if (tickets.length) parts.push(ticketSection(tickets));
    if (mine.length) parts.push(section('games-yours', t('games.yourTurn', { n: mine.length }), mine));
    if (others.length) parts.push(section('games-others', t('games.others'), others));
    if ((page.loaded || page.list) && !games.length && !tickets.length) parts.push(emptyState());
    if (page.list) parts.push(finishedSection(page.list.finished ?? []));
    root.replaceChildren(...parts);
  }

  function finishedSection(finished) {
    return h('section', { class: 'panel games-section history', 'aria-labelledby': 'games-finished-title', 'data-testid': 'games-finished' },
      h('h2', { id: 'games-finished-title' }, t('history.title'),
        finished.length ? h('span', { class: 'count' }, ` (${finished.length})`) : null),
      historyList(finished, { you: true, empty: t('history.empty') }));
  }

  function section(testid, title, games) {
    const skew = page.list?.skew ?? 0;
    return h('section', { class: 'panel games-section', 'aria-labelledby': `${testid}-title` },
      h('h2', { id: `${testid}-title` }, title),
      h('ul', { class: 'my-games', 'data-testid': testid }, games.map((g) => gameItem(g, skew))));
  }

  function ticketSection(tickets) {
    return h('section', { class: 'panel games-section tickets', 'aria-labelledby': 'games-tickets-title', 'data-testid': 'games-tickets' },
      h('h2', { id: 'games-tickets-title' }, t('games.tickets')),
      page.ticketError ? h('p', { class: 'error', role: 'alert' }, page.ticketError) : null,
      h('ul', { class: 'corr-tickets' }, tickets.map((w) => h('li', { 'data-testid': `games-ticket-${w.pool.name}-${w.pool.rated ? 'rated' : 'casual'}` },
        h('span', { class: 'spinner', 'aria-hidden': 'true' }),
        h('span', { class: 'ticket-text' }, t('quick.corrWaiting', { pool: poolName(w.pool), kind: t(w.pool.rated ? 'quick.rated' : 'quick.casual') }),
          h('span', { class: 'since' }, t('games.since', { time: durationText(Date.now() - (w.since ?? Date.now())) }))),
        h('button', {
          type: 'button', class: 'small', 'data-testid': 'games-ticket-cancel', disabled: page.busy.has(w.ticket),
          onclick: () => cancel(w),
        }, t('quick.cancel'))))),
      h('p', { class: 'hint' }, t('games.ticketsHint')));
  }

  async function cancel(w) {
    page.busy.add(w.ticket);
    page.ticketError = '';
    draw();
    try {
      await leavePool(w.ticket);
      removeCorrespondenceTicket(w.ticket);
    } catch (e) {
      page.ticketError = t('quick.error.cancel', { reason: errorText(e, { joining: false }) });
    }
    page.busy.delete(w.ticket);
    draw();
  }

  function emptyState() {
    const me = account();
    return h('section', { class: 'panel games-empty', 'data-testid': 'games-empty' },
      h('h2', {}, t('games.empty.title')),
      h('p', {}, t('games.empty.text')),
      h('p', {}, t('games.empty.corr')),
      h('div', { class: 'row' },
        h('a', { class: 'button primary', href: '/#corr-title', 'data-testid': 'games-start-corr' }, t('games.empty.corrButton')),
        h('a', { class: 'button', href: '/' }, t('games.empty.play'))),
      me ? null : h('p', { class: 'hint' }, t('games.empty.login'), ' ',
        h('a', { href: '/account?next=/games', 'data-testid': 'games-login' }, t('account.loginLink'))));
  }

  /** Where the correspondence tickets stand: a table found brings its token. */
  async function checkTickets() {
    let found = false;
    for (const w of correspondenceTickets()) {
      try {
        const answer = await ticketStatus(w.ticket);
        if (answer?.status === 'matched') {
          correspondenceFound(w, answer);
          found = true;
        }
      } catch (e) {
        if (e.status === 404) removeCorrespondenceTicket(w.ticket);
      }
    }
    return found;
  }

  async function load() {
    page.error = '';
    try {
      page.list = await loadMyGames();
    } catch (e) {
      page.error = e.message;
    }
    page.loaded = true;
    draw();
  }

  draw();
  onMyGames((list) => {
    if (!list) return;
    page.list = list;
    page.loaded = true;
    page.error = '';
    draw();
  });
  onLangChange(draw);
  onAccountChange(() => load());
  addEventListener('storage', (e) => { if (isCorrespondenceKey(e.key)) draw(); });
  setInterval(() => { if (!document.hidden) draw(); }, REDRAW_MS);
  (async () => {
    await currentAccount();
    const found = await checkTickets();
    await load();
    if (found) draw();
  })();
}

/** "vs Ann guest and Bot (Casual)": the opponents of `me` in game `g`, a guest's name
 * followed by the guest tag. */
function withGuests(g, me) {
  const slot = '\u0000';
  const [before, after = ''] = t('games.itemLabel', { who: slot }).split(slot);
  const people = SEATS.filter((s) => s !== me).map((s) => {
    const info = g.players?.[s];
    if (!info) return [t('games.freeSeat')];
    const name = playerName(info, s) ?? seatLabel(s);
    return isGuest(info) ? [name, ' ', guestMark()] : [name];
  });
  return [before, ...people.flatMap((p, i) => (i ? [t('lobby.and'), ...p] : p)), after];
}

/** One game of the list: its board from the reader's side, who plays, whose move it
 * is and for how long, and the way into the room. */
function gameItem(g, skew) {
  let pos = null;
  try { pos = parsePosition(g.position); } catch { pos = null; }
  const me = SEATS.includes(g.seat) ? g.seat : 'middle';
  const opponents = SEATS.filter((s) => s !== me).map((s) => {
    const info = g.players?.[s];
    return info ? (playerName(info, s) ?? seatLabel(s)) : t('games.freeSeat');
  });
  const corr = isCorrespondence(g.clock);
  const left = typeof g.deadline_ms === 'number' ? Math.max(0, g.deadline_ms - (Date.now() + skew)) : null;
  let status;
  if (g.status === 'waiting') status = t('games.status.waiting');
  else if (g.your_turn) status = '';
  else if (g.to_move) {
    const info = g.players?.[g.to_move];
    const name = playerName(info, g.to_move);
    status = t('games.status.other', { who: name ? t('room.who', { name, seat: seatLabel(g.to_move) }) : seatLabel(g.to_move) });
  } else status = '';
  let time = null;
  if (left !== null && g.status === 'playing') {
    time = g.your_turn ? t('games.time.yours', { time: durationText(left) }) : t('games.time.other', { time: durationText(left) });
  }
  const meta = [
    t('games.youPlay', { seat: seatLabel(me) }),
    pliesText(g.moves),
    clockText(g.clock),
    g.rated ? t('lobby.ratedTag') : null,
  ].filter(Boolean);
  const label = t('games.itemLabel', { who: opponents.join(t('lobby.and')) });
  // The same words with a guest's tag after its name (the item is one link: no links
  // to profiles inside it).
  const marked = SEATS.filter((s) => s !== me && isGuest(g.players?.[s])).length
    ? withGuests(g, me) : label;
  return h('li', {
    class: `my-game${g.your_turn ? ' yours' : ''}`, 'data-room': g.room, 'data-testid': `my-game-${g.room}`,
    'data-your-turn': String(Boolean(g.your_turn)),
  },
  h('a', { class: 'my-game-link', href: roomLink(g.room), 'data-testid': `open-${g.room}`, onclick: () => prepareOpen(g) },
    pos ? miniBoard(pos.board, { view: me, cls: 'my-game-board' }) : h('span', { class: 'my-game-board none' }),
    h('span', { class: 'my-game-body' },
      h('span', { class: 'my-game-title' }, marked),
      h('span', { class: 'my-game-status' },
        g.your_turn ? h('span', { class: 'badge yours' }, t('games.badge.yours')) : null,
        corr ? null : h('span', { class: 'badge live', 'data-testid': 'live-badge' }, t('games.badge.live')),
        g.by_account ? h('span', { class: 'badge account', title: t('games.byAccountHint') }, t('games.badge.account')) : null,
        status ? h('span', {}, status) : null),
      time ? h('span', { class: `my-game-time${left < 3600000 ? ' low' : ''}`, 'data-testid': 'my-game-time' }, time) : null,
      h('span', { class: 'meta' }, meta.join(' · ')))));
}
