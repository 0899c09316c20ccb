// The SVG board: 127 hex cells laid out from RULES §1 coordinates, seen from one side.
import {
  CELLS, PLEASURE_GARDEN, cellName, labelSpots, layout, neighbours, parseCell,
  pieceRotation, territoryOf,
} from './geometry.js';

const SVG = 'http://www.w3.org/2000/svg';
const SIZE = 10; // hexagon circumradius in SVG units
/** The marks of targets: a dot for a move, a ring round a capture, a small dot for a
 * drop (a piece in hand may go to most of the board: it must not paint it over). */
const MARK_RADIUS = { move: SIZE * 0.28, capture: SIZE * 0.8, drop: SIZE * 0.17 };
/** The least touch target, in CSS px (WCAG 2.5.5). */
const TOUCH_PX = 44;

// Pieces are drawn by pieces.js in the reader's piece style (preferences).
import { pieceSvg } from './pieces.js';
import { getPref, onPrefChange } from './prefs.js';
import { t } from './i18n.js';

export { KANJI, PROMOTED_KANJI, pieceSvg } from './pieces.js';
export const PIECE_NAMES = {
  K: 'king', R: 'rook', B: 'bishop', G: 'gold', S: 'silver', N: 'knight', L: 'lance', P: 'pawn',
};
export const SEAT_NAMES = { first: 'First', middle: 'Middle', last: 'Last' };

// How the reader last used the page: a click or tap on a cell gives that cell the focus,
// yet its arrow keys should then step through the game (as on any game site), not
// wander over the board. Only a reader who came to the board by keyboard (Tab) moves
// between cells with the arrows.
let keyboardUser = false;
if (typeof document !== 'undefined') {
  document.addEventListener('pointerdown', () => { keyboardUser = false; }, true);
  document.addEventListener('keydown', (e) => { if (e.key === 'Tab') keyboardUser = true; }, true);
}

/** Do the arrow keys belong to the board cell that has the focus (`target`)? Only when
 * the reader walks the board by keyboard; after a click they step through the game. */
export function boardHasArrows(target) {
  return keyboardUser && Boolean(target?.closest?.('svg.board [data-cell]'));
}

function el(name, attrs = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function hexPoints(radius) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = ((-90 + 60 * i) * Math.PI) / 180;
    pts.push(`${(radius * Math.cos(a)).toFixed(3)},${(radius * Math.sin(a)).toFixed(3)}`);
  }
  return pts.join(' ');
}

export function describePiece(piece) {
  const kind = t(`room.piece.${piece.kind}`);
  return t('room.board.piece', { seat: t(`room.seat.${piece.owner}`), piece: piece.promoted ? t('room.piece.promoted', { piece: kind }) : kind });
}

/**
 * Board view. `onActivate(cell)` is called when a cell is clicked or activated with
 * Enter/Space; `onCancel()` on Escape.
 */
export class Board {
  constructor(container, { onActivate, onCancel }) {
    this.container = container;
    this.onActivate = onActivate;
    this.onCancel = onCancel;
    this.view = 'middle';
    this.cells = new Map();
    this.focusCell = PLEASURE_GARDEN;
    this.navX = null;
    this.last = null;
    this.build();
    // A new piece style redraws the pieces (`stopFollowingPrefs()` when thrown away).
    this.stopFollowingPrefs = onPrefChange((key) => { if (key === 'pieceStyle' && this.last) this.render(this.last); });
  }

  /** A piece drawn as on this board (turned for its seat, in the reader's style). */
  pieceNode(piece) {
    return pieceSvg(piece, pieceRotation(piece.owner, this.view), getPref('pieceStyle'));
  }

  setView(view) {
    if (view === this.view) return;
    this.view = view;
    const hadFocus = this.svg.contains(document.activeElement);
    this.build();
    if (this.last) this.render(this.last);
    if (hadFocus) this.cells.get(this.focusCell)?.focus();
  }

  build() {
    const at = layout(this.view, SIZE);
    const svg = el('svg', {
      class: 'board', viewBox: '-123 -109 246 218', role: 'group',
      'aria-label': t('room.board.label', { seat: t(`room.seat.${this.view}`) }),
      'data-testid': 'board', 'data-view': this.view,
    });
    const labels = el('g', { class: 'labels', 'aria-hidden': 'true' });
    for (const spot of labelSpots()) {
      const p = at(spot.r, spot.f);
      const t = el('text', {
        class: `label ${spot.kind}`, x: p.x.toFixed(2), y: p.y.toFixed(2),
        'text-anchor': 'middle', 'dominant-baseline': 'central',
      });
      t.textContent = spot.text;
      labels.append(t);
    }
    const cells = el('g', { class: 'cells' });
    this.cells.clear();
    /** What each cell's drawing shows (`render`). */
    this.drawn = new Map();
    this.pos = new Map();
    for (const { r, f, name } of CELLS) {
      const p = at(r, f);
      this.pos.set(name, p);
      const terr = territoryOf(r, f);
      const g = el('g', {
        class: `cell ${terr ? `terr-${terr}` : 'arena'}${name === PLEASURE_GARDEN ? ' garden' : ''}`,
        transform: `translate(${p.x.toFixed(3)} ${p.y.toFixed(3)})`,
        'data-cell': name, tabindex: name === this.focusCell ? 0 : -1, role: 'button',
      });
      g.append(el('polygon', { class: 'hex', points: hexPoints(SIZE * 0.985) }));
      // Outlines for selection, focus, targets and check sit inside the cell, where the
      // neighbours (drawn later) cannot paint over them.
      g.append(el('polygon', { class: 'ring', points: hexPoints(SIZE * 0.9) }));
      if (name === PLEASURE_GARDEN) {
        g.append(el('polygon', { class: 'garden-ring', points: hexPoints(SIZE * 0.78) }));
      }
      g.append(el('g', { class: 'content' }));
      g.addEventListener('click', (e) => {
        const to = this.snapped(name, e);
        this.setFocusCell(to, false);
        this.onActivate(to);
      });
      g.addEventListener('keydown', (e) => this.onKey(e, name));
      this.cells.set(name, g);
      cells.append(g);
    }
    svg.append(labels, cells);
    this.svg = svg;
    this.container.replaceChildren(svg);
  }

  /**
   * The cell a tap means. On a small board (a phone: cells under 44 CSS px) a marked
   * cell — a target or where a premove may go — takes the taps within 22 px of its
   * centre, beyond its drawn edge: every mark is a 44 px touch target. Clicks made by
   * keyboard (`detail` 0) and taps on a marked cell are taken as they are.
   */
  snapped(name, e) {
    const marks = this.last ? [...(this.last.targets?.keys() ?? []), ...(this.last.hints ?? [])] : [];
    if (!marks.length || marks.includes(name) || e.detail === 0) return name;
    let best = name;
    let bestDist = TOUCH_PX / 2;
    for (const cell of marks) {
      const r = this.cells.get(cell)?.querySelector('.hex')?.getBoundingClientRect();
      if (!r || r.width >= TOUCH_PX) return name;
      const d = Math.hypot(e.clientX - (r.left + r.width / 2), e.clientY - (r.top + r.height / 2));
      if (d < bestDist) { best = cell; bestDist = d; }
    }
    return best;
  }

  setFocusCell(name, focus = true) {
    const old = this.cells.get(this.focusCell);
    if (old) old.setAttribute('tabindex', -1);
    this.focusCell = name;
    const g = this.cells.get(name);
    g.setAttribute('tabindex', 0);
    if (focus) g.focus();
  }

  /** Gives the board the keyboard without scrolling the page (moves are played by mouse
   * too, and the page must not jump after them). */
  focus() {
    this.cells.get(this.focusCell)?.focus({ preventScroll: true });
  }

  onKey(e, name) {
    const dirs = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.onActivate(name);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      this.onCancel();
    } else if (dirs[e.key] && keyboardUser) {
      e.preventDefault();
      const next = this.neighbourToward(name, dirs[e.key]);
      if (next) this.setFocusCell(next);
    } else if ((e.key === 'Home' || e.key === 'End') && keyboardUser) {
      e.preventDefault();
      this.setFocusCell(PLEASURE_GARDEN);
    }
  }

  /** The neighbour on screen in the arrow's direction; moving up/down keeps close to the
   * column the vertical movement started in, so it zig-zags straight on a hex grid. */
  neighbourToward(name, [dx, dy]) {
    const { r, f } = parseCell(name);
    const here = this.pos.get(name);
    if (dy === 0 || this.navX === null) this.navX = here.x;
    let best = null;
    let bestScore = Infinity;
    for (const [nr, nf] of neighbours(r, f)) {
      const n = cellName(nr, nf);
      const p = this.pos.get(n);
      const vx = p.x - here.x;
      const vy = p.y - here.y;
      let score;
      if (dy === 0) {
        if (Math.abs(vy) > 1 || Math.sign(vx) !== dx) continue;
        score = 0;
      } else {
        if (Math.sign(vy) !== dy || Math.abs(vy) < 1) continue;
        score = Math.abs(p.x - this.navX);
      }
      if (score < bestScore) { best = n; bestScore = score; }
    }
    if (dy === 0) this.navX = null;
    return best;
  }

  /**
   * Draws a snapshot. `s`: { board: Map<cell, piece>, selected, sources: Set,
   * targets: Map<cell, 'move'|'capture'|'drop'>, last: Set, checks: Set<cell>,
   * illumination: Set<cell>, premove: Set<cell> (a queued premove's cells), hints:
   * Set<cell> (where the piece picked for a premove may go) }.
   */
  render(s) {
    this.last = s;
    const style = getPref('pieceStyle');
    for (const [name, g] of this.cells) {
      const piece = s.board.get(name);
      const target = s.targets?.get(name);
      // Where a premove may go: a soft ring of its own, never taken for a legal target.
      const hint = !target && s.hints?.has(name);
      // A cell's drawing is made anew only when what it shows changed: a move redraws
      // the few cells it touched, not the board.
      const drawn = `${piece ? `${piece.owner}${piece.promoted ? '+' : ''}${piece.kind}` : ''}|${target ?? ''}|${hint ? 'hint' : ''}|${style}`;
      if (this.drawn.get(name) !== drawn) {
        this.drawn.set(name, drawn);
        const content = g.querySelector('.content');
        content.replaceChildren();
        if (piece) content.append(pieceSvg(piece, pieceRotation(piece.owner, this.view), style));
        if (target) content.append(el('circle', { class: `target-mark ${target}`, r: MARK_RADIUS[target] }));
        if (hint) content.append(el('circle', { class: 'hint-mark', r: piece ? SIZE * 0.8 : SIZE * 0.3 }));
      }
      const flags = {
        selected: s.selected === name,
        source: s.sources?.has(name),
        target: Boolean(target),
        last: s.last?.has(name),
        check: s.checks?.has(name),
        lit: s.illumination?.has(name),
        premove: s.premove?.has(name),
        hint,
      };
      for (const [k, on] of Object.entries(flags)) g.classList.toggle(k, Boolean(on));
      if (target) g.dataset.target = target; else delete g.dataset.target;
      if (hint) g.dataset.hint = 'premove'; else delete g.dataset.hint;
      let label = name;
      if (name === PLEASURE_GARDEN) label += `, ${t('room.board.garden')}`;
      const terr = territoryOf(...Object.values(parseCell(name)));
      if (terr) label += `, ${t('room.board.territory', { seat: t(`room.seat.${terr}`) })}`;
      label += `, ${piece ? describePiece(piece) : t('room.board.empty')}`;
      if (flags.selected) label += `, ${t('room.board.selected')}`;
      if (target) label += `, ${t(target === 'capture' ? 'room.board.capture_target' : 'room.board.move_target')}`;
      if (flags.check) label += `, ${t('room.board.check')}`;
      if (flags.last) label += `, ${t('room.board.last')}`;
      if (flags.lit) label += `, ${t('room.board.lit')}`;
      if (flags.premove) label += `, ${t('room.board.premove')}`;
      if (hint) label += `, ${t('room.board.premove_target')}`;
      if (g.getAttribute('aria-label') !== label) g.setAttribute('aria-label', label);
      g.setAttribute('aria-pressed', flags.selected ? 'true' : 'false');
    }
  }
}

