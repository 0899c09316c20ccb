// Players' names as the reader should see them. The server names a bot "Bot (Casual)"
// and a player who gave no name by its seat ("First"), both in English: shown as they
// are, a Japanese page would say "先手 First" or "中手 Bot (Casual)". A bot is named by
// its level in the reader's language instead; a player without a name of its own has
// none (the seat label beside it says who it is).
import { t } from './i18n.js';

const SERVER_SEAT_NAMES = { first: 'First', middle: 'Middle', last: 'Last' };

/** True when `info` (a seat of the room's `seats`) is played by a bot. */
export function isBot(info) {
  return info?.bot !== null && info?.bot !== undefined && !info.taken_over;
}

/** The name chosen by the player in `seat`; null for a bot or a player who chose none. */
export function ownName(info, seat) {
  if (!info || isBot(info)) return null;
  const name = String(info.name ?? '').trim();
  if (!name || name === SERVER_SEAT_NAMES[seat]) return null;
  return name;
}

/** A name for lists and tables: the player's own, or "Bot (Casual)" in the reader's
 * language; null when the player chose none. */
export function playerName(info, seat) {
  if (isBot(info)) return t('player.bot', { name: t(`room.bot.level${info.bot}`) });
  return ownName(info, seat);
}
