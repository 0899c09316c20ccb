// The three player panels around the board: name, clock, hand and badges of each
// seat, placed next to that seat's edge of the board as the viewer sees it (the
// viewed seat's edge is at the bottom, the next seat's at the upper left, the one
// before at the upper right: RULES §2, geometry.js `VIEW_ROTATION`). A guest's card
// carries the guest tag among its badges; an account's name links to its profile.
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { HAND_ORDER } from '../position.js';
import { pieceSvg } from '../board.js';
import { t } from '../i18n.js';
import { clockText, isCorrespondence } from '../clocks.js';
import { botBadge } from '../bots.js';
import { pieceLabel, seatLabel } from './messages.js';
import { accountOf, guestMark, isBot, isGuest, ownName } from '../players.js';
import { account, profileLink, ratingText } from '../account.js';
import { flagIcon, openReport } from '../report.js';

const SVG = 'http://www.w3.org/2000/svg';

export function miniPiece(piece) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '-9 -9.5 18 18');
  svg.setAttribute('class', 'mini');
  svg.setAttribute('aria-hidden', 'true');
  svg.append(pieceSvg(piece));
  return svg;
}

/** Where each seat's panel goes for a viewer of `view`: bottom, left (upper left), right. */
export function placesFor(view) {
  const i = SEATS.indexOf(view);
  return { bottom: SEATS[i], left: SEATS[(i + 1) % 3], right: SEATS[(i + 2) % 3] };
}

/**
 * Draws the panel of `seat` into `node`. `v`: { state, roomId, pos (shown position), you,
 * myTurn, active (live active seats), alliance, leaving, checks, clocks, clocksAt, skew
 * (the server's clock minus this computer's), selectedHand, canDrop(kind),
 * onDrop(kind, byKeyboard), onHandDown(pointerdown event, kind) (a drag from the hand), place, giveTime (givetime.js: "+15 s" for a seat, under its clock) }.
 */
export function renderSeat(node, seat, v) {
  const s = v.state;
  const info = s.seats?.[seat] ?? null;
  const waiting = s.status === 'waiting';
  const finished = s.status === 'finished';
  const out = !waiting && !v.active.has(seat);
  const badges = [];
  if (s.to_move === seat && s.status === 'playing') badges.push(h('span', { class: 'badge to-move' }, t('room.badge.to_move')));
  if (seat === v.you) badges.push(h('span', { class: 'badge you' }, t('room.badge.you')));
  const bot = botBadge(seat, info);
  if (bot) badges.push(bot);
  // A guest says so among the badges, as a bot does.
  if (isGuest(info)) {
    const guest = guestMark();
    guest.classList.add('badge');
    guest.dataset.testid = `guest-${seat}`;
    badges.push(guest);
  }
  // A table of quick pairing has no ready step: who is here is what it waits for.
  if (waiting && info && s.paired) {
    if (info.connected !== false) badges.push(h('span', { class: 'badge ready' }, t('room.badge.here')));
  } else if (waiting && info) badges.push(h('span', { class: `badge ${info.ready ? 'ready' : 'not-ready'}` }, t(info.ready ? 'room.badge.ready' : 'room.badge.not_ready')));
  if (v.checks.has(seat) && !out) badges.push(h('span', { class: 'badge check', 'data-testid': `in-check-${seat}` }, t('room.badge.check')));
  if (info && info.connected === false && isCorrespondence(v.clocks ?? s.clocks)) {
    // A correspondence game forfeits nobody for being away: its clock is the only limit.
    badges.push(h('span', { class: 'badge absent', 'data-testid': `offline-${seat}` }, t('room.badge.offline')));
  } else if (info && info.connected === false) {
    // A finished game, or a player already out of it, abandons nothing.
    const deadline = finished || out ? null : v.leaving.get(seat);
    const left = deadline ? Math.max(0, Math.ceil((deadline - Date.now()) / 1000)) : null;
    badges.push(h('span', { class: 'badge away', 'data-testid': `countdown-${seat}` },
      left === null ? t(finished || out ? 'room.badge.left' : 'room.badge.disconnected')
        : t(waiting ? (s.paired ? 'room.badge.countdown_table' : 'room.badge.countdown_seat') : 'room.badge.countdown_game', { n: left })));
  }
  if (v.alliance?.includes(seat)) {
    badges.push(h('span', { class: 'badge ally' }, t('room.badge.ally', { seat: seatLabel(v.alliance.find((x) => x !== seat)) })));
  }
  if (out) badges.push(h('span', { class: 'badge out' }, t('room.badge.out')));
  let clock = null;
  if (v.clocks) {
    clock = h('span', {
      class: 'clock', 'data-clock': seat, 'data-testid': `clock-${seat}`, role: 'timer',
      'aria-label': t('room.clock_of', { seat: seatLabel(seat) }),
    });
    paintClock(clock, v.clocks, s.status, performance.now() - v.clocksAt, v.skew);
  }
  // A bot's card says "bot · level 2" in its badge; a player without a name has none.
  const shown = ownName(info, seat);
  const rating = info && shown && v.ratingOf ? ratingText(v.ratingOf(shown)) : '';
  // An account's name links to its profile (in another tab: the game stays open).
  const acct = accountOf(info);
  const nameNode = !info ? h('span', { class: 'name free' }, t('room.free_seat'))
    : acct && shown ? h('a', {
      class: 'name profile-link', href: profileLink(acct), target: '_blank', rel: 'noopener', title: shown,
      'data-testid': `profile-${seat}`,
    }, shown)
      : h('span', { class: 'name', title: shown ?? '' }, shown ?? '');
  node.className = `seat-card seat-${seat} place-${v.place}${out ? ' eliminated' : ''}${s.to_move === seat && s.status === 'playing' ? ' moving' : ''}${v.checks.has(seat) && !out ? ' in-check' : ''}`;
  node.dataset.testid = `seat-${seat}`;
  node.dataset.eliminated = String(out);
  node.replaceChildren(
    h('div', { class: 'seat-head' }, h('span', { class: 'swatch' }), h('b', {}, seatLabel(seat)), nameNode,
      rating ? h('span', { class: 'rating', 'data-testid': `rating-${seat}` }, rating) : null, clock),
    h('div', { class: 'badges' }, badges, v.giveTime?.(seat) ?? null, reportButton(seat, info, shown, v)),
    renderHand(seat, v));
}

/** "Report" on the card of someone else — a person, not a bot — for the moderators. */
function reportButton(seat, info, shown, v) {
  if (!v.roomId || !info || isBot(info) || seat === v.you || (shown && shown === account()?.name)) return null;
  const label = t('report.playerLabel', { name: shown ?? seatLabel(seat) });
  return h('button', {
    type: 'button', class: 'seat-report', 'data-testid': `report-seat-${seat}`, 'aria-label': label, title: label,
    onclick: () => openReport({ room: v.roomId, seat }, { name: shown ?? seatLabel(seat) }),
  }, flagIcon());
}

/** A player's pieces in hand; the reader's own are buttons for drops while it plays. */
function renderHand(seat, v) {
  const hand = v.pos?.hands?.[seat] ?? {};
  const own = seat === v.you && v.state.status === 'playing' && v.active.has(seat) && v.live;
  const items = HAND_ORDER.filter((k) => hand[k]).map((kind) => {
    const count = hand[kind];
    const label = `${pieceLabel(kind)}${count > 1 ? ` ×${count}` : ''}`;
    const inner = [miniPiece({ owner: seat, kind, promoted: false }), count > 1 ? h('span', { class: 'count' }, `×${count}`) : null];
    if (!own) {
      return h('span', { class: 'hand-piece', 'data-kind': kind, 'data-count': count, title: label, 'aria-label': label }, inner);
    }
    return h('button', {
      type: 'button', class: 'hand-piece', 'data-testid': `drop-${kind}`, 'data-kind': kind, 'data-count': count,
      'aria-pressed': String(v.selectedHand === kind),
      'aria-label': t('room.drop', { piece: label }),
      onclick: (e) => v.onDrop(kind, e.detail === 0),
      onpointerdown: (e) => v.onHandDown?.(e, kind),
    }, inner);
  });
  return h('div', {
    class: 'hand', 'data-testid': `hand-${seat}`, 'aria-label': t('room.hand_of', { seat: seatLabel(seat) }),
  }, h('span', { class: 'hand-label' }, t('room.hand')), items.length ? items : h('span', { class: 'empty' }, t('room.hand_empty')));
}

/** Counts the running clock down between server messages (`skew`: the server's clock
 * minus this computer's, for a correspondence deadline). */
export function paintClock(node, clocks, status, elapsed, skew = null) {
  const seat = node.dataset.clock;
  const shown = clockText(clocks, seat, status === 'playing' ? elapsed : 0, skew);
  if (!shown) return;
  const running = status === 'playing' && clocks.running === seat;
  if (node.textContent !== shown.text) node.textContent = shown.text;
  node.classList.toggle('running', running);
  node.classList.toggle('per-move', isCorrespondence(clocks) && !running);
  node.classList.toggle('low', shown.low && (running || shown.total === 0));
  node.dataset.running = String(running);
  node.dataset.ms = String(Math.round(shown.total));
}
