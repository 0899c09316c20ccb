// The rules page: a friendly summary of RULES.md, with a picture of each piece's moves
// computed from the rule book's direction table (RULES §3, §5) and drawn with the
// board's own geometry (geometry.js) and pieces (pieces.js).
import { h } from './dom.js';
import { layout } from './geometry.js';
import { onLangChange, t } from './i18n.js';
import { onPrefChange } from './prefs.js';
import { pieceSvg } from './pieces.js';
import { START_POSITION, parsePosition } from './position.js';
import { hexPoints, miniBoard, svgEl } from './miniboard.js';

/** RULES §3: Middle's step (Δr, Δf) for each clock hour (12 = straight forward). */
export const MIDDLE_STEPS = {
  1: [-1, -1], 2: [-1, -2], 3: [0, -1], 4: [1, -1], 5: [1, 0], 6: [2, 1],
  7: [1, 1], 8: [1, 2], 9: [0, 1], 10: [-1, 1], 11: [-1, 0], 12: [-2, -1],
};

const ORTHOGONAL = [1, 3, 5, 7, 9, 11];
const ALL = [...Array(12).keys()].map((i) => i + 1);

/** RULES §5: each piece's complete move set, as steps and ranges by hour. */
export const MOVES = [
  { kind: 'K', promoted: false, steps: ORTHOGONAL, ranges: [], note: 'rules.note.K' },
  { kind: 'K', promoted: true, steps: [], ranges: ALL, note: 'rules.note.+K' },
  { kind: 'R', promoted: false, steps: [], ranges: [1, 3, 9, 11, 6] },
  { kind: 'R', promoted: true, steps: [], ranges: ORTHOGONAL },
  { kind: 'B', promoted: false, steps: [], ranges: [2, 4, 6, 8, 10, 12] },
  { kind: 'B', promoted: true, steps: ORTHOGONAL, ranges: [2, 4, 6, 8, 10, 12] },
  { kind: 'G', promoted: false, steps: [1, 3, 6, 9, 11, 12], ranges: [] },
  { kind: 'S', promoted: false, steps: [1, 2, 5, 7, 10, 11], ranges: [] },
  { kind: 'S', promoted: true, steps: [1, 2, 5, 7, 10, 11], ranges: [6, 12] },
  { kind: 'N', promoted: false, steps: [2, 3, 4, 8, 9, 10], ranges: [] },
  { kind: 'L', promoted: false, steps: [], ranges: [1, 11] },
  { kind: 'L', promoted: true, steps: [], ranges: [1, 5, 7, 11] },
  { kind: 'P', promoted: false, steps: [1, 11], ranges: [] },
  { kind: 'P', promoted: true, steps: [1, 3, 6, 9, 11, 12], ranges: [] },
];

const SIZE = 10;
const RADIUS = 4; // cells around the piece in a diagram

function hexDistance(dr, df) {
  return Math.max(Math.abs(dr), Math.abs(df), Math.abs(df - dr));
}

/** The diagram of one piece's moves, Middle's piece at 7g seen from Middle's side. */
export function moveDiagram(move) {
  const at = layout('middle', SIZE);
  const c = { r: 6, f: 6 };
  const svg = svgEl('svg', { class: 'move-diagram', viewBox: '-80 -72 160 144', 'aria-hidden': 'true' });
  for (let dr = -RADIUS; dr <= RADIUS; dr++) {
    for (let df = -RADIUS; df <= RADIUS; df++) {
      if (hexDistance(dr, df) > RADIUS) continue;
      const p = at(c.r + dr, c.f + df);
      svg.append(svgEl('polygon', {
        class: 'hex', points: hexPoints(SIZE * 0.97), transform: `translate(${p.x.toFixed(2)} ${p.y.toFixed(2)})`,
        fill: 'var(--wood)', stroke: 'var(--hex-stroke)', 'stroke-width': 0.6,
      }));
    }
  }
  const centre = at(c.r, c.f);
  for (const hour of move.ranges) {
    const [dr, df] = MIDDLE_STEPS[hour];
    let n = 1;
    while (hexDistance(dr * (n + 1), df * (n + 1)) <= RADIUS) n += 1;
    for (let k = 1; k <= n; k++) {
      const p = at(c.r + dr * k, c.f + df * k);
      svg.append(svgEl('circle', { class: 'range-dot', cx: p.x.toFixed(2), cy: p.y.toFixed(2), r: 2.2 }));
    }
    const end = at(c.r + dr * n, c.f + df * n);
    const s = at(c.r + dr * 0.55, c.f + df * 0.55);
    svg.append(svgEl('line', {
      class: 'range', x1: s.x.toFixed(2), y1: s.y.toFixed(2), x2: end.x.toFixed(2), y2: end.y.toFixed(2), 'data-hour': hour,
    }));
    // An arrowhead past the last cell: the range goes on to the edge of the board.
    const angle = (Math.atan2(end.y - centre.y, end.x - centre.x) * 180) / Math.PI;
    svg.append(svgEl('polygon', {
      class: 'step', points: '0,-3.2 6,0 0,3.2',
      transform: `translate(${end.x.toFixed(2)} ${end.y.toFixed(2)}) rotate(${angle.toFixed(1)}) translate(2 0)`,
    }));
  }
  for (const hour of move.steps) {
    const [dr, df] = MIDDLE_STEPS[hour];
    const p = at(c.r + dr, c.f + df);
    svg.append(svgEl('circle', { class: 'step', cx: p.x.toFixed(2), cy: p.y.toFixed(2), r: 4, 'data-hour': hour }));
  }
  const g = svgEl('g', { transform: `translate(${centre.x} ${centre.y})` });
  g.append(pieceSvg({ owner: 'middle', kind: move.kind, promoted: move.promoted }, 0));
  svg.append(g);
  return svg;
}

function pieceName(move) {
  return t(`piece.${move.promoted ? '+' : ''}${move.kind}`);
}

function legendIcon(cls) {
  const svg = svgEl('svg', { viewBox: '-10 -10 20 20', 'aria-hidden': 'true', class: 'move-diagram' });
  if (cls === 'range') svg.append(svgEl('line', { class: 'range', x1: -8, y1: 0, x2: 6, y2: 0 }));
  else svg.append(svgEl('circle', { class: 'step', r: 5 }));
  return svg;
}

export function showRules(app) {
  function render() {
    document.title = t('rules.pageTitle');
    let start = null;
    try { start = parsePosition(START_POSITION).board; } catch { start = null; }
    const para = (key) => h('p', {}, t(key));
    const list = (...keys) => h('ul', {}, keys.map((k) => h('li', {}, t(k))));
    const section = (id, ...children) => h('section', { class: 'panel', 'aria-labelledby': `rules-${id}` },
      h('h2', { id: `rules-${id}` }, t(`rules.${id}.title`)), ...children);
    app.replaceChildren(h('article', { class: 'rules-page', 'data-testid': 'rules' },
      h('h1', {}, t('rules.title')),
      para('rules.intro'),
      section('board',
        para('rules.board.text'),
        start ? h('figure', { class: 'rules-board' },
          miniBoard(start, { label: t('rules.board.figure') }),
          h('figcaption', {}, t('rules.board.caption'))) : null,
        list('rules.board.seats', 'rules.board.order', 'rules.board.facing')),
      section('goal', list('rules.goal.mate', 'rules.goal.garden', 'rules.goal.last', 'rules.goal.resign')),
      section('pieces',
        para('rules.pieces.text'),
        h('div', { class: 'legend' },
          h('span', {}, legendIcon('step'), ' ', t('rules.legend.step')),
          h('span', {}, legendIcon('range'), ' ', t('rules.legend.range'))),
        h('ul', { class: 'piece-grid', 'data-testid': 'piece-diagrams' }, MOVES.map((move) => h('li', { class: 'piece-card', dataset: { piece: `${move.promoted ? '+' : ''}${move.kind}` } },
          h('h3', {}, pieceName(move)),
          moveDiagram(move),
          h('p', {}, t(`rules.moves.${move.promoted ? '+' : ''}${move.kind}`)),
          move.note ? h('p', {}, t(move.note)) : null)))),
      section('hand', list('rules.hand.capture', 'rules.hand.drop', 'rules.hand.limit')),
      section('promotion', list('rules.promotion.zone', 'rules.promotion.optional', 'rules.promotion.forced')),
      section('alliance', para('rules.alliance.text'), list('rules.alliance.forced', 'rules.alliance.effects', 'rules.alliance.end', 'rules.alliance.voluntary')),
      section('special', list('rules.special.castling', 'rules.special.illumination', 'rules.special.repetition')),
      h('p', {}, t('rules.more'), ' ', h('a', { href: '/analysis' }, t('rules.tryAnalysis')), ' · ', h('a', { href: '/' }, t('rules.backToLobby')))));
  }
  render();
  onLangChange(render);
  onPrefChange((key) => { if (key === 'pieceStyle') render(); });
}
