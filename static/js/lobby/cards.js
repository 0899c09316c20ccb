// The lobby's rooms, one item each: a room waiting for players (a button for each free
// seat), a running game (its board in miniature, its moves, alliance and player to
// move, a button to watch it), a finished game (who won, and when). A guest's name has
// the guest tag, an account's links to its profile.
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { parsePosition } from '../position.js';
import { t } from '../i18n.js';
import { miniBoard } from '../miniboard.js';
import { nameNodes, playerName } from '../players.js';
import { ratingOf, ratingText } from '../account.js';
import { clockText, dateText, pliesText, roomTitle, seatLabel, watchersText, winnerText } from './messages.js';
import { goSeated, roomLink } from './enter.js';
import { leaveQueue } from './quick.js';

/** Who sits where; with `joinable`, a free seat is a button that seats the reader. */
function seatChips(room, joinable, lobby) {
  return h('span', { class: 'seats' }, SEATS.map((seat) => {
    const info = room.seats?.[seat];
    if (info?.name) {
      const bot = info.bot !== null && info.bot !== undefined;
      const r = room.rated ? ratingOf(info.name) : null;
      return h('span', { class: `seat-chip seat-${seat}${bot ? ' bot' : ''}`, 'data-testid': `chip-${room.id}-${seat}` }, `${seatLabel(seat)}: `,
        h('b', {}, nameNodes(info, playerName(info, seat) ?? t('player.unnamed'))),
        r ? h('span', { class: 'rating', 'data-testid': `rating-${room.id}-${seat}` }, ` ${ratingText(r)}`) : null,
        info.taken_over ? ` ${t('lobby.takenOver')}` : null);
    }
    if (!joinable) return h('span', { class: `seat-chip seat-${seat} free` }, `${seatLabel(seat)}: —`);
    return h('button', {
      class: `seat-chip seat-${seat} free`, type: 'button', 'data-testid': `join-${room.id}-${seat}`,
      disabled: Boolean(lobby.state.busy),
      onclick: () => { leaveQueue(); goSeated(room.id, seat, lobby.state.name); },
    }, t('lobby.sitAs', { seat: seatLabel(seat) }));
  }));
}

export function waitingCard(room, lobby) {
  return h('li', { class: 'game-card', dataset: { room: room.id, status: 'waiting' } },
    h('h3', {}, h('a', { href: roomLink(room.id) }, roomTitle(room))),
    seatChips(room, true, lobby),
    h('span', { class: 'meta' }, [room.rated ? t('lobby.ratedTag') : null, clockText(room.clock), watchersText(room)].filter(Boolean).join(' · ')));
}

/** `detail`: the room's `GET /api/rooms/{id}` where it was loaded (its position). */
export function playingCard(room, detail, lobby) {
  let pos = null;
  try { pos = detail?.position ? parsePosition(detail.position) : null; } catch { pos = null; }
  const alliance = pos?.alliance;
  const meta = [
    pliesText(room.moves ?? detail?.moves?.length),
    alliance ? t('lobby.alliance', { a: seatLabel(alliance[0]), b: seatLabel(alliance[1]) }) : (room.voluntary_alliance ? t('lobby.voluntaryAlliance') : null),
    pos?.toMove ? t('lobby.toMove', { seat: seatLabel(pos.toMove) }) : null,
    room.rated ? t('lobby.ratedTag') : null, clockText(room.clock), watchersText(room),
  ].filter(Boolean);
  return h('li', { class: 'game-card', dataset: { room: room.id, status: 'playing' } },
    pos ? miniBoard(pos.board) : null,
    h('h3', {}, roomTitle(room)),
    seatChips(room, false, lobby),
    h('span', { class: 'meta', 'data-testid': `meta-${room.id}` }, meta.join(' · ')),
    h('a', { class: 'button', href: roomLink(room.id), 'data-testid': `watch-${room.id}` }, t('lobby.watchButton')));
}

export function finishedItem(room) {
  const meta = [dateText(room.updated_at_ms ?? room.created_at_ms), pliesText(room.moves)].filter(Boolean);
  return h('li', { dataset: { room: room.id, status: 'finished' } },
    h('a', { href: roomLink(room.id) }, roomTitle(room)),
    h('b', { 'data-testid': `winner-${room.id}` }, winnerText(room) ?? t('lobby.finished')),
    h('span', { class: 'meta' }, meta.join(' · ')));
}
