// What the parts of /mod share (mod.js, mod-player.js): dates, lengths and the words
// of the moderators' tables, and the call that acts.
import { dateLocale, t } from './i18n.js';
import { api } from './protocol.js';

export function dateText(ms) {
  return ms ? new Date(ms).toLocaleString(dateLocale(), { dateStyle: 'medium', timeStyle: 'short' }) : '';
}

/** A length in minutes in words ("1 day", "until lifted", "90 min"). */
export function minutesText(n) {
  const key = `mod.minutes.${Number(n) || 0}`;
  const text = t(key);
  return text === key ? t('mod.minutes.other', { n }) : text;
}

/** A word of one of the moderators' tables (`mod.action.ban`), or the raw value. */
export function word(prefix, value) {
  const key = `${prefix}.${value}`;
  const text = t(key);
  return text === key ? String(value ?? '') : text;
}

/** `POST /api/mod/actions`; resolves with the log entry. */
export function act(body) {
  return api('/api/mod/actions', { method: 'POST', body: JSON.stringify(body) });
}

export function roomHref(room) {
  return `/rooms/${encodeURIComponent(room)}`;
}
