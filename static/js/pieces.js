// Drawing one piece, in the reader's chosen piece style (prefs `pieceStyle`):
// - "kanji": the traditional characters, drawn as SVG paths from the bundled outlines
//   (pieces/kanji.js), so no CJK font is needed; the character turns with the tile,
//   as on a real board;
// - "international": a large Latin letter (K R B G S N L P, "+" when promoted), always
//   upright for the reader; the tile's point still shows where the piece faces.
import { KANJI_PATHS } from '../pieces/kanji.js';
import { getPref } from './prefs.js';

const SVG = 'http://www.w3.org/2000/svg';

export const KANJI = { K: '玉', R: '飛', B: '角', G: '金', S: '銀', N: '桂', L: '香', P: '歩' };
export const PROMOTED_KANJI = { K: '帝', R: '龍', B: '馬', S: '全', L: '杏', P: 'と' };

function el(name, attrs = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

// A shogi-style pentagon pointing up, fitting inside the board's hexagon (circumradius
// 10, inradius 8.66) in any of the 60°-multiple rotations the three facings need.
const TILE = [[0, -8.7], [5.5, -4.6], [5.7, 6.1], [-5.7, 6.1], [-5.5, -4.6]]
  .map(([x, y]) => `${x},${y}`).join(' ');

/** The character a piece shows in the kanji style. */
export function pieceChar(piece) {
  return (piece.promoted ? PROMOTED_KANJI : KANJI)[piece.kind] ?? piece.kind;
}

/** The letters a piece shows in the international style. */
export function pieceLetters(piece) {
  return `${piece.promoted ? '+' : ''}${piece.kind}`;
}

/**
 * The SVG drawing of one piece, pointing up before `rotate` (degrees), in the board's
 * units (a cell is a hexagon of circumradius 10). `style` defaults to the preference.
 * The group's `transform` is exactly `rotate(<rotate>)`.
 */
export function pieceSvg(piece, rotate = 0, style = getPref('pieceStyle')) {
  const g = el('g', {
    class: `piece owner-${piece.owner}${piece.promoted ? ' promoted' : ''} style-${style}`,
    transform: `rotate(${rotate})`,
    'data-piece': `${piece.owner[0]}${piece.promoted ? '+' : ''}${piece.kind}`,
  });
  g.append(el('polygon', { class: 'tile', points: TILE }));
  if (style === 'international') {
    const letters = pieceLetters(piece);
    // Upright for the reader whatever the tile's rotation, centred on the tile's middle.
    const text = el('text', {
      class: 'letter', x: 0, y: 0, transform: `translate(0 -0.9) rotate(${-rotate})`, 'aria-hidden': 'true',
      'text-anchor': 'middle', 'dominant-baseline': 'central',
      'font-size': letters.length > 1 ? 6.2 : 8,
    });
    text.textContent = letters;
    g.append(text);
  } else {
    const ch = pieceChar(piece);
    const d = KANJI_PATHS[ch];
    if (d) {
      g.append(el('path', { class: 'kanji-glyph', d, transform: 'translate(0 -0.8) scale(0.0082)', 'data-char': ch }));
    } else {
      const text = el('text', { class: 'letter', x: 0, y: -0.9, 'text-anchor': 'middle', 'dominant-baseline': 'central' });
      text.textContent = pieceLetters(piece);
      g.append(text);
    }
  }
  return g;
}
