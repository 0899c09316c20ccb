// A small, non-interactive drawing of a position (lobby cards, rules page, hero),
// laid out by the same geometry as the game board (RULES §1–§2).
import { CELLS, PLEASURE_GARDEN, layout, pieceRotation, territoryOf } from './geometry.js';
import { pieceSvg } from './pieces.js';

const SVG = 'http://www.w3.org/2000/svg';
const SIZE = 10;

export function svgEl(name, attrs = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  }
  return node;
}

export function hexPoints(radius) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = ((-90 + 60 * i) * Math.PI) / 180;
    pts.push(`${(radius * Math.cos(a)).toFixed(2)},${(radius * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(' ');
}

/**
 * `board`: Map<cell, piece> (see position.js). Options: `view` (seat at the bottom),
 * `label` (accessible name; without one the drawing is hidden from screen readers),
 * `cls` (extra class).
 */
export function miniBoard(board, { view = 'middle', label = null, cls = '' } = {}) {
  const at = layout(view, SIZE);
  const svg = svgEl('svg', {
    class: `board mini-board ${cls}`, viewBox: '-118 -104 236 208',
    role: label ? 'img' : null, 'aria-label': label, 'aria-hidden': label ? null : 'true',
  });
  for (const { r, f, name } of CELLS) {
    const p = at(r, f);
    const terr = territoryOf(r, f);
    const g = svgEl('g', {
      class: `cell ${terr ? `terr-${terr}` : 'arena'}${name === PLEASURE_GARDEN ? ' garden' : ''}`,
      transform: `translate(${p.x.toFixed(2)} ${p.y.toFixed(2)})`,
    });
    g.append(svgEl('polygon', { class: 'hex', points: hexPoints(SIZE * 0.985) }));
    const piece = board?.get(name);
    if (piece) g.append(pieceSvg(piece, pieceRotation(piece.owner, view)));
    svg.append(g);
  }
  return svg;
}
