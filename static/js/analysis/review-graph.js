// The evaluation graph of a computer review: each player's share of the game (0–100 %)
// position by position, one line per seat in its colour, the judged moves as dots on
// their player's line and a cursor on the position shown. It is a slider: a click or
// a drag goes to the position under the pointer, the arrow keys move along it (Home,
// End, Page Up/Down by ten), and its value is read out as the position and the shares.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { GRAPH, SEATS, graph, marks, percent, sharesAt } from './review.js';

const SVG = 'http://www.w3.org/2000/svg';

function svgEl(name, attrs = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** The shares of position `k` in words: "Move 17: First 36 %, Middle 32 %, Last 32 %". */
export function sharesText(review, k) {
  const shares = sharesAt(review, k);
  const where = k ? t('analysis.plyN', { n: k }) : t('analysis.atStart');
  const text = SEATS.map((s) => t('review.graph.share', { seat: t(`seat.${s}`), n: percent(shares[s]) })).join(', ');
  return t('review.graph.value', { where, text });
}

function drawing(review, g) {
  const { width, height, padX } = GRAPH;
  const svg = svgEl('svg', { viewBox: `0 0 ${width} ${height}`, class: 'review-graph-svg', 'aria-hidden': 'true', focusable: 'false' });
  svg.append(
    svgEl('rect', { class: 'frame', x: 0.5, y: 0.5, width: width - 1, height: height - 1, rx: 4 }),
    svgEl('line', { class: 'even', x1: padX, x2: width - padX, y1: g.even, y2: g.even }));
  for (const s of SEATS) svg.append(svgEl('path', { class: `share seat-${s}`, d: g.lines[s], 'data-seat': s }));
  for (const m of marks(review)) {
    if (!m.seat || m.ply > g.n) continue;
    svg.append(svgEl('circle', {
      class: `dot ${m.judgement} seat-${m.seat}`, cx: g.x(m.ply), cy: g.y(sharesAt(review, m.ply)[m.seat]), r: m.judgement === 'blunder' ? 7 : 6,
    }));
  }
  const cursor = svgEl('g', { class: 'cursor', 'data-testid': 'review-cursor' });
  cursor.append(svgEl('line', { y1: 0, y2: height }));
  const knobs = Object.fromEntries(SEATS.map((s) => [s, svgEl('circle', { class: `knob seat-${s}`, r: 6 })]));
  cursor.append(...Object.values(knobs));
  svg.append(cursor);
  return { svg, cursor, knobs };
}

/**
 * The graph of a done `review`. `onPick(k)`: the reader chose position `k` (0…n).
 * Returns { element, setPly(k) } — `setPly` moves the cursor to the position shown
 * (null: none of the game's).
 */
export function reviewGraph(review, { onPick, onRelease }) {
  const g = graph(review);
  const { svg, cursor, knobs } = drawing(review, g);
  let ply = null;
  const element = h('div', {
    class: 'review-graph', role: 'slider', tabindex: 0, 'data-testid': 'review-graph',
    'aria-label': t('review.graph.label'), 'aria-valuemin': 0, 'aria-valuemax': g.n, 'aria-orientation': 'horizontal',
  }, svg);

  function setPly(k) {
    ply = k;
    cursor.style.display = k === null ? 'none' : '';
    if (k === null) {
      element.setAttribute('aria-valuenow', '0');
      element.setAttribute('aria-valuetext', t('review.graph.off'));
      return;
    }
    const x = g.x(k);
    const line = cursor.querySelector('line');
    line.setAttribute('x1', x);
    line.setAttribute('x2', x);
    const shares = sharesAt(review, k);
    for (const s of SEATS) {
      knobs[s].setAttribute('cx', x);
      knobs[s].setAttribute('cy', g.y(shares[s]));
    }
    element.dataset.ply = String(k);
    element.setAttribute('aria-valuenow', String(k));
    element.setAttribute('aria-valuetext', sharesText(review, k));
  }

  const pick = (k) => { if (k !== ply) onPick(Math.max(0, Math.min(g.n, k))); };
  const atPointer = (e) => {
    const r = svg.getBoundingClientRect();
    return g.plyAt(r.width ? (e.clientX - r.left) / r.width : 0);
  };
  let dragging = false;
  svg.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    dragging = true;
    svg.setPointerCapture?.(e.pointerId);
    pick(atPointer(e));
  });
  svg.addEventListener('pointermove', (e) => { if (dragging) pick(atPointer(e)); });
  const stop = () => { dragging = false; };
  // A pick done (the finger or button lifted): the caller may bring the board into sight.
  svg.addEventListener('pointerup', () => { if (dragging) onRelease?.(); stop(); });
  svg.addEventListener('pointercancel', stop);
  element.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const from = ply ?? 0;
    const to = {
      ArrowLeft: from - 1, ArrowDown: from - 1, ArrowRight: from + 1, ArrowUp: from + 1,
      PageDown: from - 10, PageUp: from + 10, Home: 0, End: g.n,
    }[e.key];
    if (to === undefined) return;
    // The page's own keys walk the line too: the graph answers alone while it has the focus.
    e.preventDefault();
    e.stopPropagation();
    pick(to);
  });
  return { element, setPly };
}
