// Every user-visible string comes from one message table per language
// (`i18n/en.js`, `i18n/ja.js`, with the pages of games and notifications in
// `i18n/en-games.js`, `i18n/ja-games.js`, the aids to play in `i18n/en-play.js`,
// `i18n/ja-play.js`). `t(key, params)` looks a key up in the reader's
// language, falling back to English; `{name}` placeholders are filled from `params`.
// The language is the one chosen in the header, else the browser's, else English.
import en from './i18n/en.js';
import enGames from './i18n/en-games.js';
import enPlay from './i18n/en-play.js';
import ja from './i18n/ja.js';
import jaGames from './i18n/ja-games.js';
import jaPlay from './i18n/ja-play.js';

export const LANGUAGES = { en: { ...en, ...enGames, ...enPlay }, ja: { ...ja, ...jaGames, ...jaPlay } };
const LANG_KEY = 'sannin.lang';
const listeners = new Set();

function initialLang() {
  try {
    const saved = localStorage.getItem(LANG_KEY);
    if (saved && saved in LANGUAGES) return saved;
  } catch { /* storage blocked: use the browser's language */ }
  const wanted = (navigator.languages ?? [navigator.language ?? 'en']).map((l) => String(l).slice(0, 2));
  return wanted.find((l) => l in LANGUAGES) ?? 'en';
}

let current = initialLang();
document.documentElement.lang = current;

/** The reader's language code (`en`, `ja`). */
export function lang() {
  return current;
}

/** Switches language, remembers it and tells every subscriber (views re-render). */
export function setLang(code) {
  if (!(code in LANGUAGES) || code === current) return;
  current = code;
  try { localStorage.setItem(LANG_KEY, code); } catch { /* not remembered */ }
  document.documentElement.lang = code;
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
  const text = LANGUAGES[current][key] ?? LANGUAGES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}
