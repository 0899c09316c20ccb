// Every user-visible string comes from one message table per language
// (`i18n/en.js`, `i18n/ja.js`, `i18n/ru.js`, `i18n/zh.js`, `i18n/ko.js`), with the pages
// of games and notifications in `i18n/<code>-games.js`, the aids to play in
// `i18n/<code>-play.js`, account recovery in `i18n/<code>-account.js`, the tutorial
// in `i18n/<code>-learn.js`, the words of the server's error codes in
// `i18n/<code>-errors.js` (`serverError()` below), moderation (reports, /mod) in
// `i18n/<code>-mod.js`, the analysis board's play, variations and evaluation bar in
// `i18n/<code>-analysis.js`, the game's controls (abort, takeback, giving time) and /tv in
// `i18n/<code>-controls.js`, and the computer review of a game in `i18n/<code>-review.js`.
// `t(key, params)` looks a key up in the reader's language (every table has every key
// of the English one: tests/locales.test.mjs); `{name}` placeholders are filled from
// `params`. A message that depends on a count may
// be an object of plural forms (`{ one, few, many, other }`, the categories of
// `Intl.PluralRules` for the language: English one/other, Russian one/few/many/other,
// Japanese, Chinese and Korean a plain string), chosen by `params.n`. A Korean particle
// written in both its forms after a placeholder (`{who}이(가)`) is chosen by the last
// syllable of what fills it (`koreanEnding`). The language is the one
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
  return text.replace(PLACEHOLDER, (m, name, particle) => {
    if (!(name in params)) return m;
    const value = String(params[name]);
    return particle ? value + koreanParticle(value, particle) : value;
  });
}

/** A placeholder, and the Korean particle written after it in both its forms
 * (`{who}이(가)`, `{a}와(과)`, `{email}(으)로`…), if any. */
const PLACEHOLDER = /\{(\w+)\}(이\(가\)|가\(이\)|은\(는\)|는\(은\)|을\(를\)|를\(을\)|과\(와\)|와\(과\)|\(으\)로)?/g;
/** Each written pair: [the form after a final consonant (batchim), the form after a vowel]. */
const PARTICLES = {
  '이(가)': ['이', '가'], '가(이)': ['이', '가'], '은(는)': ['은', '는'], '는(은)': ['은', '는'],
  '을(를)': ['을', '를'], '를(을)': ['을', '를'], '과(와)': ['과', '와'], '와(과)': ['과', '와'], '(으)로': ['으로', '로'],
};
/** How a digit is read in Korean ends: with a consonant (true), ㄹ ('l') or a vowel (false). */
const DIGIT_ENDS = ['ㅇ', 'l', false, true, false, false, true, 'l', 'l', false];

/** How `word` ends when read in Korean: 'l' (ㄹ), true (another final consonant), false
 * (a vowel) or null (not known: a name in kanji, say). Latin letters by a rule of thumb:
 * -l reads ㄹ, -m, -n and -ng a final consonant, the rest a vowel (Anna, Mark: 마크). */
export function koreanEnding(word) {
  const last = [...String(word).trim()].at(-1) ?? '';
  const code = last.codePointAt(0) ?? 0;
  if (code >= 0xac00 && code <= 0xd7a3) {
    const final = (code - 0xac00) % 28;
    return final === 0 ? false : final === 8 ? 'l' : true;
  }
  if (/[0-9]/.test(last)) return DIGIT_ENDS[Number(last)] === 'ㅇ' ? true : DIGIT_ENDS[Number(last)];
  if (/[A-Za-z]/.test(last)) return /l$/i.test(last) ? 'l' : /[mn]/i.test(last) ? true : false;
  return null;
}

/** The particle of the written pair `pair` that follows `word` (the pair as written when
 * the ending is not known). */
function koreanParticle(word, pair) {
  const [consonant, vowel] = PARTICLES[pair];
  const ending = koreanEnding(word);
  if (ending === null) return pair;
  if (pair === '(으)로') return ending === true ? consonant : vowel;
  return ending ? consonant : vowel;
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

/** The words of a refusal of the server, in the reader's language: `code` is an
 * `ErrorCode` of the WebSocket (`kind` 'ws'), an `ApiCode` of the HTTP API ('api') or the
 * code of a WebSocket close frame ('close'), docs/protocol.md. The server's own
 * `message` (English) is never shown: an unknown code (a newer server) reads as the
 * generic "Something went wrong". */
export function serverError(code, kind = 'api') {
  return hasServerWords(code, kind) ? t(`error.${kind}.${code}`) : t('room.error.generic');
}

/** Whether the page has words for the server's `code` of `kind` (serverError). */
export function hasServerWords(code, kind = 'api') {
  return Boolean(code) && `error.${kind}.${code}` in messages;
}

/** The Error of an HTTP refusal (`res`, its JSON `body`): `message` the words of its code
 * in the reader's language (`serverError`), `code` (null without one), `status`, and
 * `serverMessage`, the server's own English (for the console, and the tutorial that reads
 * the rules' reason for a move refused). */
export function httpError(res, body) {
  const code = typeof body?.error?.code === 'string' ? body.error.code : null;
  const err = new Error(serverError(code, 'api'));
  err.code = code;
  err.status = res.status;
  err.serverMessage = typeof body?.error?.message === 'string' ? body.error.message : null;
  return err;
}
