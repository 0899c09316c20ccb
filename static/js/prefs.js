// What the browser remembers for the reader: name, join intent, and the preferences
// (piece style, board theme, sound, legal targets, move confirmation, coordinates,
// moves read out, moving by clicks or drags, the typed-move box, the board's size).
//
// Preferences API (every page reads them from here):
//   getPref(key)            → the current value (a default when never set)
//   setPref(key, value)     → stores it, updates <html data-*> and tells subscribers
//   allPrefs()              → { pieceStyle, theme, sound, legalTargets, confirmMoves, coordinates,
//                               announceMoves, moveInput, typedMoves, boardSize }
//   onPrefChange(fn)        → fn(key, value, all) after every change; returns unsubscribe
//   PREF_CHOICES            → allowed values of each key
// The page root carries them as attributes, so CSS alone can follow them:
//   <html data-theme="light|dark|wood" data-piece-style="kanji|international"
//         data-coords="on|off" data-targets="on|off" data-move-input="both|click|drag"
//         data-typed-moves="on|off" data-board-size="s|m|l|xl">

export const JOIN_INTENT_KEY = 'sannin.join';
const NAME_KEY = 'sannin.name';
const PREFS_KEY = 'sannin.prefs';
const OLD_SOUND_KEY = 'sannin.sound';

export function storedName() {
  try { return localStorage.getItem(NAME_KEY) ?? ''; } catch { return ''; }
}
export function storeName(name) {
  try { localStorage.setItem(NAME_KEY, name); } catch { /* ignore */ }
}

/** Room ids are UUIDs: their first block is enough to tell rooms apart by eye. */
export function shortId(id) {
  return id.length > 12 ? id.slice(0, 8) : id;
}

export const PREF_CHOICES = {
  pieceStyle: ['kanji', 'international'],
  theme: ['light', 'dark', 'wood'],
  sound: [true, false],
  legalTargets: [true, false],
  confirmMoves: [false, true],
  coordinates: [true, false],
  announceMoves: [false, true],
  moveInput: ['both', 'click', 'drag'], // pieces moved by click-click, by dragging, or both
  typedMoves: [true, false], // the typed-move box under the room's board
  boardSize: ['m', 's', 'l', 'xl'], // the room's board on a wide screen
};

function defaults() {
  const coarse = typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;
  let sound = true;
  try { sound = localStorage.getItem(OLD_SOUND_KEY) !== 'off'; } catch { /* default */ }
  const dark = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
  return {
    pieceStyle: 'kanji',
    theme: dark ? 'dark' : 'light',
    sound,
    legalTargets: true,
    confirmMoves: coarse, // a mistap on a phone is easy: ask by default there
    coordinates: true,
    announceMoves: false, // screen readers: each move said in words
    moveInput: 'both',
    typedMoves: !coarse, // a keyboard's box: not on a touch screen unless asked for
    boardSize: 'm',
  };
}

function load() {
  const out = defaults();
  try {
    const saved = JSON.parse(localStorage.getItem(PREFS_KEY) ?? '{}');
    for (const [k, allowed] of Object.entries(PREF_CHOICES)) {
      if (saved && allowed.includes(saved[k])) out[k] = saved[k];
    }
    // Sound is also kept under its own key, which older pages wrote.
    const sound = localStorage.getItem(OLD_SOUND_KEY);
    if (sound) out.sound = sound !== 'off';
  } catch { /* unreadable or blocked storage: defaults */ }
  return out;
}

let current = load();
const listeners = new Set();

function applyToRoot() {
  const root = document.documentElement;
  root.dataset.theme = current.theme;
  root.dataset.pieceStyle = current.pieceStyle;
  root.dataset.coords = current.coordinates ? 'on' : 'off';
  root.dataset.targets = current.legalTargets ? 'on' : 'off';
  root.dataset.moveInput = current.moveInput;
  root.dataset.typedMoves = current.typedMoves ? 'on' : 'off';
  root.dataset.boardSize = current.boardSize;
  root.style.colorScheme = current.theme === 'dark' ? 'dark' : 'light';
}
applyToRoot();

export function getPref(key) {
  if (!(key in PREF_CHOICES)) throw new Error(`no such preference: ${key}`);
  return current[key];
}

export function allPrefs() {
  return { ...current };
}

export function setPref(key, value) {
  if (!(key in PREF_CHOICES)) throw new Error(`no such preference: ${key}`);
  if (!PREF_CHOICES[key].includes(value)) throw new Error(`bad value for ${key}: ${value}`);
  if (current[key] === value) return;
  current = { ...current, [key]: value };
  try {
    localStorage.setItem(PREFS_KEY, JSON.stringify(current));
    if (key === 'sound') localStorage.setItem(OLD_SOUND_KEY, value ? 'on' : 'off');
  } catch { /* not remembered */ }
  applyToRoot();
  for (const fn of listeners) fn(key, value, allPrefs());
}

export function onPrefChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// Another tab changed them: follow.
addEventListener('storage', (e) => {
  if (e.key !== PREFS_KEY && e.key !== OLD_SOUND_KEY) return;
  const before = current;
  current = load();
  applyToRoot();
  for (const k of Object.keys(PREF_CHOICES)) {
    if (before[k] !== current[k]) for (const fn of listeners) fn(k, current[k], allPrefs());
  }
});
