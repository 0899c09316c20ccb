// Pieces dragged on a board (board.js) with a mouse, a finger or a pen: pointer events.
// A press on a piece that may move, then a move of a few pixels, lifts it: the piece
// follows the pointer (drawn a little larger under a finger), the page marks where it
// may go, and letting it go over a cell asks the page to play there; let go off the
// board, the page puts it back. A press and release without moving stays a click, so
// click-click play goes on as before. Pieces in hand are lifted from their buttons
// (`handDown`). Shared by the room and the analysis board. Which of clicks and drags
// the reader uses is the `moveInput` preference (prefs.js): `both`, `click` or `drag`.
import { getPref } from './prefs.js';

/** How far (CSS px) a pressed pointer moves before the press becomes a drag. */
const LIFT_PX = 5;
/** How much larger than a cell the lifted piece is drawn under a finger. */
const TOUCH_SCALE = 1.6;

/** Whether drags are on (`both` or `drag`). */
export function dragsOn() {
  return getPref('moveInput') !== 'click';
}

/** Whether clicks and taps choose pieces (`both` or `click`). Keyboard activation
 * (Enter, Space) always does. */
export function clicksOn() {
  return getPref('moveInput') !== 'drag';
}

/**
 * Drags on `board`. `opts`:
 * - `grab(source)`: may this source (`{ cell }` or `{ hand: kind }`) be lifted now?
 *   Changes nothing.
 * - `lift(source)`: the drag begins: the page selects the source and marks its targets.
 * - `drop(source, cell)`: let go over `cell` (null off the board): the page plays, or
 *   puts the piece back.
 * - `handPiece(kind)`: the piece a hand's `kind` is, as drawn (`{ owner, kind }`).
 */
export class PieceDrag {
  constructor(board, opts) {
    this.board = board;
    this.opts = opts;
    this.cur = null;
    this.swallowing = false;
    const box = board.container;
    box.classList.add('drag-board');
    box.addEventListener('pointerdown', (e) => {
      const cell = e.target.closest?.('[data-cell]')?.dataset.cell;
      if (cell) this.press(e, { cell });
    });
    // The click that ends a drag made with a mouse is no click-click move; with clicks
    // off (`drag`), a click on a cell chooses nothing.
    box.addEventListener('click', (e) => {
      if (this.swallowing || (e.detail > 0 && !clicksOn())) {
        e.stopPropagation();
        e.preventDefault();
      }
    }, true);
  }

  /** A press on a hand's piece button (its `pointerdown`). */
  handDown(e, kind) {
    this.press(e, { hand: kind }, e.currentTarget);
  }

  /** A click on a hand's piece button just after it was dragged: not a selection. */
  swallows() {
    return this.swallowing;
  }

  press(e, source, from = null) {
    if (this.cur || !e.isPrimary || (e.pointerType === 'mouse' && e.button !== 0)) return;
    if (!dragsOn() || !this.opts.grab(source)) return;
    const cur = { source, id: e.pointerId, x: e.clientX, y: e.clientY, touch: e.pointerType !== 'mouse', from, lifted: false };
    const move = (ev) => { if (ev.pointerId === cur.id) this.move(ev); };
    const up = (ev) => { if (ev.pointerId === cur.id) this.end(ev, true); };
    const cancel = (ev) => { if (ev.pointerId === cur.id) this.end(ev, false); };
    cur.off = () => {
      removeEventListener('pointermove', move, true);
      removeEventListener('pointerup', up, true);
      removeEventListener('pointercancel', cancel, true);
    };
    addEventListener('pointermove', move, true);
    addEventListener('pointerup', up, true);
    addEventListener('pointercancel', cancel, true);
    this.cur = cur;
  }

  move(e) {
    const cur = this.cur;
    if (!cur.lifted) {
      if (Math.hypot(e.clientX - cur.x, e.clientY - cur.y) < LIFT_PX) return;
      if (!this.opts.grab(cur.source)) { this.stop(); return; }
      cur.lifted = true;
      this.opts.lift(cur.source);
      this.ghost = this.makeGhost(cur);
      if (cur.source.cell) this.board.cells.get(cur.source.cell)?.classList.add('drag-from');
      if (cur.from) cur.from.classList.add('drag-from');
      document.documentElement.classList.add('dragging');
    }
    e.preventDefault();
    this.place(e.clientX, e.clientY);
    const over = this.cellAt(e.clientX, e.clientY);
    if (over !== this.over) {
      if (this.over) this.board.cells.get(this.over)?.classList.remove('drag-over');
      this.over = over;
      if (over) this.board.cells.get(over)?.classList.add('drag-over');
    }
  }

  end(e, released) {
    const cur = this.cur;
    const lifted = cur.lifted;
    const cell = lifted && released ? this.cellAt(e.clientX, e.clientY) : null;
    this.stop();
    if (!lifted) return;
    // The click a mouse makes on release comes in the same task as the release.
    this.swallowing = true;
    setTimeout(() => { this.swallowing = false; });
    this.opts.drop(cur.source, cell);
  }

  stop() {
    const cur = this.cur;
    if (!cur) return;
    cur.off();
    this.cur = null;
    this.ghost?.remove();
    this.ghost = null;
    if (this.over) this.board.cells.get(this.over)?.classList.remove('drag-over');
    this.over = null;
    for (const g of this.board.svg.querySelectorAll('.drag-from')) g.classList.remove('drag-from');
    cur.from?.classList.remove('drag-from');
    document.documentElement.classList.remove('dragging');
  }

  /** The cell under the point (a near marked target on a small board: board.js). */
  cellAt(x, y) {
    const hit = document.elementFromPoint(x, y)?.closest?.('[data-cell]');
    if (!hit || !this.board.svg.contains(hit)) return null;
    return this.board.snapped(hit.dataset.cell, { clientX: x, clientY: y, detail: 1 });
  }

  makeGhost(cur) {
    const NS = 'http://www.w3.org/2000/svg';
    const cellRect = this.board.cells.values().next().value?.querySelector('.hex')?.getBoundingClientRect();
    const size = Math.max(24, (cellRect?.height ?? 32) * (cur.touch ? TOUCH_SCALE : 1.05));
    const svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('viewBox', '-10 -10 20 20');
    svg.setAttribute('class', 'drag-ghost');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('data-testid', 'drag-ghost');
    svg.style.width = svg.style.height = `${size}px`;
    const piece = cur.source.cell
      ? this.board.cells.get(cur.source.cell)?.querySelector('.content > .piece')?.cloneNode(true)
      : this.board.pieceNode?.(this.opts.handPiece(cur.source.hand));
    if (piece) svg.append(piece);
    document.body.append(svg);
    this.ghostSize = size;
    return svg;
  }

  place(x, y) {
    if (!this.ghost) return;
    const half = this.ghostSize / 2;
    this.ghost.style.transform = `translate(${Math.round(x - half)}px, ${Math.round(y - half)}px)`;
  }
}
