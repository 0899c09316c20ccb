// A room given up (`table_aborted`, docs/protocol.md §3.4): a table of quick pairing
// whose game did not get going, or a game a player aborted in its first moves (§17).
// The room is gone: the page says who gave it up and that nobody is rated. A player of
// a table of quick pairing who did not give it up is back at the front of the queue
// with the same ticket, and the lobby waits again; the one who did is told so there too.
// `r`: the room view (room.js).
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { backToQueue, forgetTable, leaveNotice, sentences, tableFound, tableTicket, ticketStatus } from '../pairing.js';
import { ownName } from '../players.js';
import { seatLabel } from './messages.js';

/** How long the page of a table given up stays before the lobby. */
const ABORTED_BACK_MS = 3500;
const REASONS = ['not_connected', 'left', 'no_first_move', 'aborted'];

/** `ev`: the `table_aborted` event; null when only the socket's closing said so. */
export async function tableAborted(r, ev) {
  if (r.aborted) return;
  if (r.opts.onGone) {
    r.stop();
    r.opts.onGone();
    return;
  }
  r.aborted = true;
  r.conn?.close();
  const me = r.you ?? r.seatedAs ?? null;
  const table = tableTicket();
  const mine = table?.room === r.roomId ? table : null;
  if (!ev) {
    if (!(await givenUpEarlier(r))) showAborted(r, t('room.aborted.generic'));
    return;
  }
  const reason = REASONS.includes(ev.reason) ? ev.reason : 'other';
  // A game aborted at a table of one's own stays on screen: no queue to go back to.
  const stay = reason === 'aborted' && !mine;
  if (me && ev.seat === me) {
    const text = t(`room.aborted.you.${reason}`);
    if (mine) {
      forgetTable();
      leaveNotice(text);
    }
    showAborted(r, text, { stay, reason });
    return;
  }
  const info = r.state?.seats?.[ev.seat];
  const name = ownName(info, ev.seat);
  const whoText = name ? t('quick.who', { name, seat: seatLabel(ev.seat) }) : seatLabel(ev.seat);
  let text = t(`quick.requeued.${reason}`, { who: whoText });
  if (mine && me) {
    backToQueue(mine, { seat: ev.seat, reason, name });
    text = sentences(text, t('quick.requeued.front'));
  }
  showAborted(r, text, { stay, reason });
}

/**
 * The room of a table found by quick pairing is gone (the page came late, or the news
 * of its end was missed): the ticket says what became of it — waiting again (someone
 * else did not come), seated at another table, or gone (the reader did not come).
 * False when this room was no table of the reader's.
 */
export async function givenUpEarlier(r) {
  const table = tableTicket();
  if (table?.room !== r.roomId) return false;
  r.aborted = true;
  let status = null;
  try {
    status = await ticketStatus(table.ticket);
  } catch (e) {
    if (e.status !== 404) return false;
  }
  if (status?.status === 'matched' && status.room !== r.roomId) {
    tableFound(table, status);
    location.replace(`/rooms/${encodeURIComponent(status.room)}`);
    return true;
  }
  if (status?.status === 'waiting') {
    backToQueue(table, { seat: null, reason: 'other' });
    showAborted(r, sentences(t('room.aborted.generic'), t('quick.requeued.front')));
    return true;
  }
  if (status) return false;
  forgetTable();
  const text = t('room.aborted.you.other');
  leaveNotice(text);
  showAborted(r, text);
  return true;
}

/** The page of a room given up: what happened, then back to the lobby (`stay`: not by
 * itself — a game aborted offers a new one, in the lobby). */
function showAborted(r, text, { stay = false, reason = null } = {}) {
  const game = reason === 'aborted';
  r.app.replaceChildren(h('section', { class: 'panel aborted', role: 'alert', 'data-testid': 'table-aborted', 'data-reason': reason ?? '' },
    h('h1', {}, t(game ? 'ctl.abort.title' : 'room.aborted.title')),
    h('p', { 'data-testid': 'aborted-text' }, text),
    stay ? null : h('p', { class: 'hint' }, t('room.aborted.back_in')),
    h('p', { class: 'row' }, stay
      ? h('a', { class: 'button primary', href: '/', 'data-testid': 'aborted-new-game' }, t('room.out.new_game'))
      : h('a', { class: 'button', href: '/', 'data-testid': 'aborted-back' }, t('room.aborted.back')))));
  r.connStatus.textContent = '';
  r.offlineBar.hidden = true;
  document.title = t(game ? 'ctl.abort.doc_title' : 'room.aborted.doc_title');
  if (!stay) setTimeout(() => location.assign('/'), ABORTED_BACK_MS);
}
