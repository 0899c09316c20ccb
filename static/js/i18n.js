// Every user-visible string comes from one message table per language
// (`i18n/en.js`, `i18n/ja.js`, `i18n/ru.js`, `i18n/zh.js`, `i18n/ko.js`), with the pages
// of games and notifications in `i18n/<code>-games.js`, the aids to play in
// `i18n/<code>-play.js`, account recovery in `i18n/<code>-account.js`, the tutorial
// in `i18n/<code>-learn.js`, moderation (reports, /mod) in `i18n/<code>-mod.js`, the
// analysis board's play, variations and evaluation bar in `i18n/<code>-analysis.js`,
// the game's controls (abort, takeback, giving time) and /tv in
// `i18n/<code>-controls.js`, and the computer review of a game in `i18n/<code>-review.js`.
// `t(key, params)` looks a key up in the reader's language, falling back to English;
// `{name}` placeholders are filled from `params`. A message that depends on a count may
// be an object of plural forms (`{ one, few, many, other }`, the categories of
// `Intl.PluralRules` for the language), chosen by `params.n`. The language is the one
// chosen in the header, else the browser's, else English.
import en from './i18n/en.js';
import enGames from './i18n/en-games.js';
import enPlay from './i18n/en-play.js';
import enAccount from './i18n/en-account.js';
import enLearn from './i18n/en-learn.js';
import enMod from './i18n/en-mod.js';
import enAnalysis from './i18n/en-analysis.js';
import enControls from './i18n/en-controls.js';
import enReview from './i18n/en-review.js';
import ja from './i18n/ja.js';
import jaGames from './i18n/ja-games.js';
import jaPlay from './i18n/ja-play.js';
import jaAccount from './i18n/ja-account.js';
import jaLearn from './i18n/ja-learn.js';
import jaMod from './i18n/ja-mod.js';
import jaAnalysis from './i18n/ja-analysis.js';
import jaControls from './i18n/ja-controls.js';
import jaReview from './i18n/ja-review.js';
import ru from './i18n/ru.js';
import ruGames from './i18n/ru-games.js';
import ruPlay from './i18n/ru-play.js';
import ruAccount from './i18n/ru-account.js';
import ruLearn from './i18n/ru-learn.js';
import ruMod from './i18n/ru-mod.js';
import ruAnalysis from './i18n/ru-analysis.js';
import ruControls from './i18n/ru-controls.js';
import ruReview from './i18n/ru-review.js';
import zh from './i18n/zh.js';
import zhGames from './i18n/zh-games.js';
import zhPlay from './i18n/zh-play.js';
import zhAccount from './i18n/zh-account.js';
import zhLearn from './i18n/zh-learn.js';
import zhMod from './i18n/zh-mod.js';
import zhAnalysis from './i18n/zh-analysis.js';
import zhControls from './i18n/zh-controls.js';
import zhReview from './i18n/zh-review.js';
import ko from './i18n/ko.js';
import koGames from './i18n/ko-games.js';
import koPlay from './i18n/ko-play.js';
import koAccount from './i18n/ko-account.js';
import koLearn from './i18n/ko-learn.js';
import koMod from './i18n/ko-mod.js';
import koAnalysis from './i18n/ko-analysis.js';
import koControls from './i18n/ko-controls.js';
import koReview from './i18n/ko-review.js';

export const LANGUAGES = {
  en: { ...en, ...enGames, ...enPlay, ...enAccount, ...enLearn, ...enMod, ...enAnalysis, ...enControls, ...enReview },
  ja: { ...ja, ...jaGames, ...jaPlay, ...jaAccount, ...jaLearn, ...jaMod, ...jaAnalysis, ...jaControls, ...jaReview },
  ru: { ...ru, ...ruGames, ...ruPlay, ...ruAccount, ...ruLearn, ...ruMod, ...ruAnalysis, ...ruControls, ...ruReview },
  zh: { ...zh, ...zhGames, ...zhPlay, ...zhAccount, ...zhLearn, ...zhMod, ...zhAnalysis, ...zhControls, ...zhReview },
  ko: { ...ko, ...koGames, ...koPlay, ...koAccount, ...koLearn, ...koMod, ...koAnalysis, ...koControls, ...koReview },
};
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
    if (saved && saved in LANGUAGES) return saved;
  } catch { /* storage blocked: use the browser's language */ }
  const wanted = (navigator.languages ?? [navigator.language ?? 'en']).map((l) => String(l).toLowerCase().split(/[-_]/)[0]);
  return wanted.find((l) => l in LANGUAGES) ?? 'en';
}

let current = initialLang();
document.documentElement.lang = LANGUAGE_TAGS[current];

/** The reader's language code (`en`, `ja`, `ru`, `zh`, `ko`). */
export function lang() {
  return current;
}

/** The locale for `toLocaleString` and friends in the reader's language. */
export function dateLocale() {
  return DATE_LOCALES[current];
}

/** Switches language, remembers it and tells every subscriber (views re-render). */
export function setLang(code) {
  if (!(code in LANGUAGES) || code === current) return;
  current = code;
  try { localStorage.setItem(LANG_KEY, code); } catch { /* not remembered */ }
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
  const text = pluralForm(LANGUAGES[current][key] ?? LANGUAGES.en[key] ?? key, params.n);
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
