// Every user-visible string comes from one message table per language
// (`i18n/en.js`, `i18n/ja.js`, `i18n/ru.js`, `i18n/zh.js`, `i18n/ko.js`), with the pages
// of games and notifications in `i18n/<code>-games.js`, the aids to play in
// `i18n/<code>-play.js`, account recovery in `i18n/<code>-account.js`, the tutorial
// in `i18n/<code>-learn.js`, moderation (reports, /mod) in `i18n/<code>-mod.js`, the
// analysis board's play, variations and evaluation bar in `i18n/<code>-analysis.js`,
// the game's controls (abort, takeback, giving time) and /tv in
// `i18n/<code>-controls.js`, and the computer review of a game in `i18n/<code>-review.js`.
// `t(key, params)` looks a key up in the reader's language (every table has every key
// of the English one: tests/locales.test.mjs); `{name}` placeholders are filled from
// `params`. A message that depends on a count may
// be an object of plural forms (`{ one, few, many, other }`, the categories of
// `Intl.PluralRules` for the language), chosen by `params.n`. The language is the one
// chosen in the header, else the browser's, else English. Only the reader's language is
// loaded (`lang/<code>.js`, one module of all its tables; the server preloads it from
// the `sannin.lang` cookie set here, else `Accept-Language`); another is loaded when
// chosen.

/** How each language's whole table is loaded. */
const TABLES = {
  en: () => import('./lang/en.js'),
  ja: () => import('./lang/ja.js'),
  ru: () => import('./lang/ru.js'),
  zh: () => import('./lang/zh.js'),
  ko: () => import('./lang/ko.js'),
};
/** The codes of the languages, in the header's order. */
export const LANGUAGE_CODES = Object.keys(TABLES);

/** The whole table of language `code` (loaded once). */
export async function messagesOf(code) {
  return (await TABLES[code]()).default;
}

/** Each language named in itself, for the header's switch. */
export const LANGUAGE_NAMES = { en: 'English', ja: '日本語', ru: 'Русский', zh: '中文', ko: '한국어' };
/** The full language tag of each code: `<html lang>`, dates and plural rules. */
export const LANGUAGE_TAGS = { en: 'en', ja: 'ja', ru: 'ru', zh: 'zh-Hans', ko: 'ko' };
/** The locale that formats dates and times in each language. */
const DATE_LOCALES = { en: 'en-GB', ja: 'ja-JP', ru: 'ru-RU', zh: 'zh-Hans-CN', ko: 'ko-KR' };
const LANG_KEY = 'sannin.lang';
const listeners = new Set();

function initialLang() {
  try {
    const saved = localStorage.getItem(LANG_KEY);
    if (saved && saved in TABLES) return saved;
  } catch { /* storage blocked: use the browser's language */ }
  const wanted = (navigator.languages ?? [navigator.language ?? 'en']).map((l) => String(l).toLowerCase().split(/[-_]/)[0]);
  return wanted.find((l) => l in TABLES) ?? 'en';
}

/** Tells the server the reader's language, for the next page it sends (its preload). */
function rememberForServer(code) {
  try {
    if (!document.cookie.split('; ').includes(`${LANG_KEY}=${code}`)) {
      document.cookie = `${LANG_KEY}=${code}; path=/; max-age=31536000; samesite=lax`;
    }
  } catch { /* cookies blocked: the server goes by Accept-Language */ }
}

let current = initialLang();
let messages = await messagesOf(current);
document.documentElement.lang = LANGUAGE_TAGS[current];
rememberForServer(current);

/** The reader's language code (`en`, `ja`, `ru`, `zh`, `ko`). */
export function lang() {
  return current;
}

/** The locale for `toLocaleString` and friends in the reader's language. */
export function dateLocale() {
  return DATE_LOCALES[current];
}

/** Switches language (once its table has loaded), remembers it and tells every
 * subscriber (views re-render). */
export async function setLang(code) {
  if (!(code in TABLES) || code === current) return;
  const table = await messagesOf(code);
  current = code;
  messages = table;
  try { localStorage.setItem(LANG_KEY, code); } catch { /* not remembered */ }
  rememberForServer(code);
  document.documentElement.lang = LANGUAGE_TAGS[code];
  for (const fn of listeners) fn(code);
}

/** Calls `fn(code)` after every language change; returns an unsubscribe function. */
export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The message `key` in the current language with `{param}`s filled in. A missing
 * key shows itself, so a forgotten translation is visible, never blank. */
export function t(key, params = {}) {
  const text = pluralForm(messages[key] ?? key, params.n);
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

const pluralRules = new Map();

/** A message itself, or the form of a message of plural forms that suits the count `n`
 * (`other` when no count is given or the language's category is missing). */
export function pluralForm(message, n, code = current) {
  if (typeof message === 'string') return message;
  const count = typeof n === 'string' && n.trim() !== '' ? Number(n) : n;
  if (typeof count !== 'number' || !Number.isFinite(count)) return message.other;
  if (!pluralRules.has(code)) pluralRules.set(code, new Intl.PluralRules(LANGUAGE_TAGS[code]));
  return message[pluralRules.get(code).select(count)] ?? message.other;
}
