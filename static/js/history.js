// Finished games as My games (`finished` of `POST /api/games/mine`) and a player's
// profile (`GET /api/players/{name}/games`) list them, newest first: the result for the
// holder of the list (won, lost, a draw), the three players with the holder's seat
// marked (an account's name links to its profile), rated or casual, the moves, when it
// ended, and a link to its replay (the room's page).
import { h } from './dom.js';
import { SEATS } from './geometry.js';
import { LANGUAGE_TAGS, lang, t } from './i18n.js';
import { nameNodes, playerName } from './players.js';
import { dateText, pliesText, seatLabel } from './lobby/messages.js';
import { roomLink } from './lobby/enter.js';

const SEAT_OF = { First: 'first', Middle: 'middle', Last: 'last' };

/** `won`, `lost` or `draw` for the holder's seat of game `g`; null without a result. */
export function holderResult(g) {
  const winners = g.result?.winners;
  if (!Array.isArray(winners)) return null;
  if (!winners.length) return 'draw';
  return winners.map((w) => SEAT_OF[w] ?? w).includes(g.seat) ? 'won' : 'lost';
}

const UNITS = [['day', 86400000], ['hour', 3600000], ['minute', 60000]];

/** "3 hours ago", "yesterday" for a game of the last week; its date before that. */
export function endedText(ms, now = Date.now()) {
  const ago = now - ms;
  if (!(ago >= 0 && ago < 7 * 86400000)) return dateText(ms);
  const rtf = new Intl.RelativeTimeFormat(LANGUAGE_TAGS[lang()], { numeric: 'auto' });
  const [unit, size] = UNITS.find(([, s]) => ago >= s) ?? ['minute', 60000];
  return rtf.format(-Math.floor(ago / size), unit);
}

/** One game: `you` marks the holder's seat as the reader's ("you"), else its name is
 * only set off from the others (a profile's player). */
function historyItem(g, { you }) {
  const result = holderResult(g);
  const players = SEATS.map((s) => {
    const info = g.players?.[s];
    const name = info ? (playerName(info, s) ?? t('player.unnamed')) : '—';
    const mine = s === g.seat;
    return h('span', { class: `history-player seat-${s}${mine ? ' holder' : ''}`, 'data-testid': mine ? 'history-holder' : null },
      h('span', { class: 'history-seat' }, seatLabel(s)), ' ',
      info ? nameNodes(info, name) : name,
      mine && you ? [' ', h('span', { class: 'history-you' }, t('history.you'))] : null);
  });
  const meta = [t(g.rated ? 'lobby.ratedTag' : 'history.casual'), pliesText(g.moves)].filter(Boolean);
  const ended = Number.isFinite(g.ended_at_ms)
    ? [' · ', h('time', { datetime: new Date(g.ended_at_ms).toISOString(), title: dateText(g.ended_at_ms), 'data-testid': 'history-ended' }, endedText(g.ended_at_ms))]
    : null;
  return h('li', { class: 'history-item', 'data-room': g.room, 'data-testid': `history-${g.room}`, 'data-result': result ?? 'none' },
    h('span', { class: `history-result ${result ?? 'none'}`, 'data-testid': 'history-result' }, t(`history.result.${result ?? 'none'}`)),
    h('span', { class: 'history-body' },
      h('span', { class: 'history-players' }, players),
      h('span', { class: 'meta' }, meta.join(' · '), ended)),
    h('a', { class: 'button small history-replay', href: roomLink(g.room), 'data-testid': `history-replay-${g.room}` }, t('history.replay')));
}

/** The list of `games`, or `empty` (a line saying why there are none). */
export function historyList(games, { you = false, empty }) {
  if (!games.length) return h('p', { class: 'empty', 'data-testid': 'history-empty' }, empty);
  return h('ul', { class: 'history-list', 'data-testid': 'history-list' }, games.map((g) => historyItem(g, { you })));
}
