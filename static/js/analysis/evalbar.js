// The evaluation bar of the analysis board: the three players' evaluations of
// `POST /api/analyse` (centipawns, ±1000000 for won/lost) as one bar of three segments,
// each player's share of the game, labelled with the seat and its number or won/lost.
// Beside the board it stands upright; on a phone it lies under the board (CSS).
// And the best line's first moves as arrows on the board, in the mover's seat colour.
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { t } from '../i18n.js';
import { parseAction } from '../position.js';

const WON = 1000000;
const SVG = 'http://www.w3.org/2000/svg';

/** A score for people: signed, or won / lost. */
export function showScore(v) {
  if (v >= WON) return t('analysis.won');
  if (v <= -WON) return t('analysis.lost');
  return v > 0 ? `+${v}` : String(v);
}

const nameOf = (seat) => seat[0].toUpperCase() + seat.slice(1);

/** Each seat's share (0..1, summing to 1) of `evaluations`: a won game is all of it, a
 * lost one none; otherwise a logistic weight of each evaluation (600 centipawns: about
 * e times the weight), as the server's computer review divides the game. */
export function shares(evaluations) {
  const ev = SEATS.map((s) => Number(evaluations?.[nameOf(s)] ?? 0));
  const top = Math.max(...ev.filter((v) => v > -WON));
  let w = ev.some((v) => v >= WON) ? ev.map((v) => (v >= WON ? 1 : 0))
    // Weighed from the best evaluation down, so that no weight overflows.
    : ev.map((v) => (v <= -WON ? 0 : Math.exp((v - top) / 600)));
  const sum = w.reduce((a, b) => a + b, 0);
  if (!sum) w = [1, 1, 1];
  const total = w.reduce((a, b) => a + b, 0);
  return Object.fromEntries(SEATS.map((s, i) => [s, w[i] / total]));
}

/** The bar for an analysis result. */
export function evalBar(result) {
  const share = shares(result.evaluations);
  return h('div', { class: 'evalbar', 'data-testid': 'evalbar', role: 'img',
    'aria-label': t('analysis.bar.label', {
      text: SEATS.map((s) => `${t(`seat.${s}`)} ${showScore(result.evaluations[nameOf(s)])}`).join(', '),
    }) },
  SEATS.map((s) => {
    const seg = h('div', { class: `evalbar-seg seat-${s}`, 'data-testid': `evalbar-${s}`, 'data-share': share[s].toFixed(3) },
      h('span', { class: 'evalbar-name' }, t(`seat.${s}`)),
      h('b', { class: 'evalbar-score' }, showScore(result.evaluations[nameOf(s)])));
    // Set through the CSSOM: the site's CSP refuses style attributes.
    seg.style.flexGrow = Math.max(share[s], 0.001).toFixed(4);
    return seg;
  }));
}

/** The movers of the first `n` plies of `line`, `player` moving first, turns going
 * First → Middle → Last among `active` seats. */
function movers(player, active, n) {
  const order = SEATS.filter((s) => !active || active.has(s));
  let i = order.indexOf(String(player).toLowerCase());
  const out = [];
  for (let k = 0; k < n; k++) {
    out.push(order[(i + order.length) % order.length] ?? 'first');
    i += 1;
  }
  return out;
}

function svgEl(name, attrs) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

const OPACITY = [0.9, 0.6, 0.38];

/**
 * Draws the first 1–3 actions of `line` (played by `player`, then the next players
 * among `active`) as arrows on `board` (board.js), or clears them (`line` empty).
 * Moves are arrows from cell to cell, drops and illuminations rings on their cell.
 */
export function drawArrows(board, { line = [], player = 'first', active = null } = {}) {
  board.svg?.querySelector('g.arrows')?.remove();
  if (!line.length || !board.svg) return;
  const g = svgEl('g', { class: 'arrows', 'data-testid': 'arrows', 'aria-hidden': 'true' });
  const who = movers(player, active, Math.min(3, line.length));
  line.slice(0, 3).forEach((text, i) => {
    const a = parseAction(text);
    const to = a?.to ? board.pos.get(a.to) : a?.from ? board.pos.get(a.from) : null;
    if (!to) return;
    const cls = `arrow seat-${who[i]}`;
    const opacity = OPACITY[i];
    const from = a.type === 'move' ? board.pos.get(a.from) : null;
    if (!from) {
      g.append(svgEl('circle', { class: `${cls} ring`, cx: to.x, cy: to.y, r: 7.5, opacity, 'data-action': text }));
      return;
    }
    const dx = to.x - from.x;
    const dy = to.y - from.y;
    const len = Math.hypot(dx, dy) || 1;
    const ux = dx / len;
    const uy = dy / len;
    const head = 6;
    const end = { x: to.x - ux * 2, y: to.y - uy * 2 };
    const base = { x: end.x - ux * head, y: end.y - uy * head };
    const arrow = svgEl('g', { class: cls, opacity, 'data-action': text });
    arrow.append(svgEl('line', { x1: from.x + ux * 3, y1: from.y + uy * 3, x2: base.x, y2: base.y }));
    const px = -uy * head * 0.6;
    const py = ux * head * 0.6;
    arrow.append(svgEl('polygon', { points: `${end.x},${end.y} ${base.x + px},${base.y + py} ${base.x - px},${base.y - py}` }));
    g.append(arrow);
  });
  board.svg.append(g);
}
