// The lobby's words: seat names, room titles, time controls, dates, move counts, who
// won, and the computer players' levels — each in the reader's language (i18n).
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { dateLocale, t } from '../i18n.js';
import { playerName } from '../players.js';
import { perMoveText } from '../clocks.js';
import { BOT_LEVELS } from '../bots.js';

const PLAYER = { First: 'first', Middle: 'middle', Last: 'last' };

/** A seat's name in the reader's language: "First" / "先手". */
export function seatLabel(seat) {
  return t(`seat.${seat}`);
}

/** The seat of a player as results name them ("First") or of a seat ("first"). */
function seatOf(player) {
  return PLAYER[player] ?? (SEATS.includes(player) ? player : null);
}

/** Rooms are named by their players: "Ann · Bob · Bot (Casual)". */
export function roomTitle(room) {
  const names = SEATS.filter((s) => room.seats?.[s]).map((s) => playerName(room.seats[s], s) ?? seatLabel(s));
  return names.length ? names.join(' · ') : t('lobby.emptyRoom');
}

/** A room's time control in a few words: "10 min + 5 s", "3 days per move". */
export function clockText(clock) {
  if (!clock || clock.kind === 'none') return t('clock.none');
  const min = (ms) => `${+(ms / 60000).toFixed(1)}`;
  const sec = (ms) => `${+(ms / 1000).toFixed(1)}`;
  switch (clock.kind) {
    case 'sudden_death': return t('clock.suddenDeathShort', { min: min(clock.main_ms) });
    case 'fischer': return t('clock.fischerShort', { min: min(clock.main_ms), inc: sec(clock.increment_ms) });
    case 'byoyomi': return t('clock.byoyomiShort', { min: min(clock.main_ms), byo: sec(clock.byoyomi_ms), periods: clock.periods });
    case 'correspondence': return perMoveText(clock.main_ms);
    default: return clock.kind;
  }
}

/** A time (milliseconds since the epoch) as the reader's language writes it; null if none. */
export function dateText(ms) {
  if (typeof ms !== 'number') return null;
  return new Date(ms).toLocaleString(dateLocale(), { dateStyle: 'medium', timeStyle: 'short' });
}

/** "3 moves"; null where the count is not known. */
export function pliesText(plies) {
  return typeof plies === 'number' ? t(plies === 1 ? 'lobby.ply' : 'lobby.plies', { n: plies }) : null;
}

/** "2 watching". */
export function watchersText(room) {
  const n = typeof room.spectators === 'number' ? room.spectators : (room.spectators?.length ?? 0);
  return t('lobby.watching', { n });
}

/** "Winner: Ann (First)", "Winners: …", "Draw"; null where the result names no winners. */
export function winnerText(room) {
  const winners = room.result?.winners;
  if (!Array.isArray(winners)) return null;
  if (!winners.length) return t('lobby.draw');
  const who = winners.map((p) => {
    const seat = seatOf(p);
    const name = playerName(room.seats?.[seat], seat);
    return name ? `${name} (${seatLabel(seat)})` : seatLabel(seat) ?? String(p);
  });
  return t(winners.length > 1 ? 'lobby.winners' : 'lobby.winner', { who: who.join(t('lobby.and')) });
}

/** The `<option>`s of a computer player's level, `selected` chosen. */
export function levelOptions(selected) {
  return BOT_LEVELS.map((n) => h('option', { value: n, selected: n === selected }, t(`bot.level${n}`)));
}
