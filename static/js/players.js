// Players' names as the reader should see them. The server names a bot "Bot (Casual)"
// and a player who gave no name by its seat ("First"), both in English: shown as they
// are, a Japanese page would say "先手 First" or "中手 Bot (Casual)". A bot is named by
// its level in the reader's language instead; a player without a name of its own has
// none (the seat label beside it says who it is). Guests — people without an account —
// carry a small "guest" tag; a name of an account links to its profile.
import { h } from './dom.js';
import { t, onLangChange } from './i18n.js';
import { profileLink } from './account.js';

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

/** True when `info` is a person playing without an account: the server says so with
 * `account: null` (a computer player has none either, but is no guest). A seat or a
 * chat line from a server that does not send `account` is never called a guest. */
export function isGuest(info) {
  return Boolean(info) && !isBot(info) && 'account' in info && info.account === null;
}

/** The account a person plays under, or null (a guest, a bot, or not said). */
export function accountOf(info) {
  return !info || isBot(info) || typeof info.account !== 'string' || !info.account ? null : info.account;
}

/** The small "guest" tag beside a guest's name (its title says what it means). */
export function guestMark() {
  return h('span', { class: 'guest-mark', 'data-testid': 'guest-mark', title: t('player.guestTitle') }, t('player.guest'));
}

// Tags already drawn (a chat line is drawn once) follow a change of language.
onLangChange(() => {
  for (const el of document.querySelectorAll('.guest-mark')) {
    el.textContent = t('player.guest');
    el.title = t('player.guestTitle');
  }
});

/** A name as shown in lists: a link to the account's profile, or the text with the
 * guest tag after it, or the text alone. `text`: the words to show (the name itself,
 * or "Bot (Casual)"). */
export function nameNodes(info, text) {
  const acct = accountOf(info);
  if (acct) return [h('a', { class: 'profile-link', href: profileLink(acct) }, text)];
  return isGuest(info) ? [text, ' ', guestMark()] : [text];
}
