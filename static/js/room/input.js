// What clicks, drags and keys do on the room page: choosing a piece and its target (only
// from the server's `legal` list), by click-click or by dragging it (drag.js), the
// promotion question, premoves while the others move, and ←/→/Home/End through the game.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { premoveAction } from './premove.js';
import { pieceLabel } from './messages.js';
import { getPref } from '../prefs.js';
import { boardHasArrows } from '../board.js';
import { reach } from '../reach.js';

/** Target cells of the selection: Map<cell, 'move'|'capture'>. */
export function targets(r) {
  const out = new Map();
  if (!r.myTurn || r.model.view !== null) return out;
  if (r.selected?.cell) {
    for (const [to, actions] of r.legal.moves.get(r.selected.cell) ?? []) out.set(to, actions[0].capture ? 'capture' : 'move');
  } else if (r.selected?.hand) {
    for (const to of r.legal.drops.get(r.selected.hand)?.keys() ?? []) out.set(to, 'drop');
  }
  return out;
}

/** Where the piece picked for a premove may go by its moves (reach.js): a Set. A piece
 * in hand may go to any empty cell: nothing is marked rather than the whole board. */
export function premoveHints(r) {
  const sel = r.premoveSel;
  const pos = r.model.pos;
  if (!sel?.cell || !pos || r.premove || r.model.view !== null) return new Set();
  return reach(pos, sel.cell);
}

export function selectionStillValid(r) {
  if (r.selected?.cell) return r.legal.moves.has(r.selected.cell);
  if (r.selected?.hand) return r.legal.drops.has(r.selected.hand);
  return false;
}

/** May the reader queue a premove now? (It plays, it is someone else's turn.) */
function canPremove(r) {
  const s = r.state;
  return Boolean(s && r.you && s.status === 'playing' && !r.myTurn && r.model.pos?.active?.has(r.you));
}

export function activate(r, cell) {
  if (r.promoDialog.open) return;
  r.illumPreview = false;
  r.confirming = null;
  // Looking back: a click on the board brings the live position back.
  if (r.model.view !== null) {
    r.goTo(Infinity);
    return;
  }
  const piece = r.model.pos?.board.get(cell);
  if (r.pendingAction) return; // our action is on its way
  if (canPremove(r)) {
    premoveClick(r, cell, piece);
    return;
  }
  if (!r.myTurn) {
    r.selected = null;
    r.render();
    return;
  }
  if (r.selected?.hand) {
    const drop = r.legal.drops.get(r.selected.hand)?.get(cell);
    if (drop) { submit(r, drop.text); return; }
  } else if (r.selected?.cell) {
    const actions = r.legal.moves.get(r.selected.cell)?.get(cell);
    if (actions) { chooseAndPlay(r, actions); return; }
  }
  if (r.selected?.cell === cell) {
    r.selected = null;
  } else if (r.legal.moves.has(cell)) {
    r.selected = { cell };
  } else {
    if (piece && piece.owner === r.you) r.flash(t('room.error.no_move'));
    r.selected = null;
  }
  r.render();
}

/** May `source` (`{ cell }` or `{ hand: kind }`) be dragged now (drag.js): a piece
 * with a legal move on the reader's turn, or one of its own while others move (a
 * premove). */
export function canLift(r, source) {
  if (r.promoDialog.open || r.model.view !== null || r.pendingAction) return false;
  if (canPremove(r)) {
    if (source.hand) return Boolean(r.model.pos?.hands?.[r.you]?.[source.hand]);
    return r.model.pos?.board.get(source.cell)?.owner === r.you;
  }
  if (!r.myTurn) return false;
  return source.hand ? r.legal.drops.has(source.hand) : r.legal.moves.has(source.cell);
}

/** A drag begins: the source is selected and its targets (or premove hints) marked. */
export function lift(r, source) {
  r.illumPreview = false;
  r.confirming = null;
  if (canPremove(r)) {
    r.premove = null;
    r.premoveSel = source;
  } else {
    r.selected = source;
  }
  r.render();
}

/** A dragged piece let go over `cell` (null: off the board). A legal target plays (a
 * premove is queued while others move); its own cell keeps it selected, as a click
 * would; anywhere else puts it back. */
export function dropOn(r, source, cell) {
  const back = () => {
    if (cell && cell === source.cell) return; // stays selected: a click-click may follow
    r.selected = null;
    r.premoveSel = null;
  };
  if (canPremove(r)) {
    if (cell && cell !== source.cell) {
      r.premove = source.cell ? { from: source.cell, to: cell } : { hand: source.hand, to: cell };
      r.premoveSel = null;
    } else back();
    r.render();
    return;
  }
  if (r.myTurn && cell && !r.pendingAction) {
    if (source.hand) {
      const drop = r.legal.drops.get(source.hand)?.get(cell);
      if (drop) { submit(r, drop.text); return; }
    } else {
      const actions = r.legal.moves.get(source.cell)?.get(cell);
      if (actions) { chooseAndPlay(r, actions); return; }
    }
  }
  back();
  r.render();
}

function premoveClick(r, cell, piece) {
  if (r.premove) {
    // A click anywhere takes the queued move back.
    r.premove = null;
    r.premoveSel = null;
  } else if (r.premoveSel?.cell === cell) {
    r.premoveSel = null;
  } else if (piece && piece.owner === r.you) {
    r.premoveSel = { cell };
  } else if (r.premoveSel) {
    r.premove = r.premoveSel.cell ? { from: r.premoveSel.cell, to: cell } : { hand: r.premoveSel.hand, to: cell };
    r.premoveSel = null;
  }
  r.render();
}

export function selectHand(r, kind) {
  if (r.model.view !== null) return;
  if (canPremove(r)) {
    r.premove = null;
    r.premoveSel = r.premoveSel?.hand === kind ? null : { hand: kind };
    r.render();
    return;
  }
  if (!r.myTurn) return;
  if (!r.legal.drops.has(kind)) {
    // Nothing to mark: say why instead of doing nothing.
    r.selected = null;
    r.notices.add(t(r.model.checks.has(r.you) ? 'room.drop.none_check' : 'room.drop.none', { piece: pieceLabel(kind) }));
    r.render();
    return;
  }
  r.selected = r.selected?.hand === kind ? null : { hand: kind };
  r.illumPreview = false;
  r.render();
}

/** When the turn comes: plays the queued premove if it is still legal, else drops it. */
export function firePremove(r) {
  const p = r.premove;
  r.premove = null;
  r.premoveSel = null;
  if (!p || !r.myTurn) return false;
  const action = premoveAction(p, r.legal);
  if (!action) {
    r.notices.add(t('room.premove.dropped'));
    return false;
  }
  play(r, action);
  return true;
}

export function chooseAndPlay(r, actions) {
  if (actions.length === 1) { submit(r, actions[0].text); return; }
  // Both promoting and not promoting are legal: ask.
  const promote = actions.find((a) => a.promote);
  const stay = actions.find((a) => !a.promote);
  const close = () => r.promoDialog.close();
  r.promoDialog.setAttribute('aria-label', t('room.promo.title'));
  r.promoDialog.replaceChildren(
    h('p', {}, t('room.promo.ask', { piece: pieceLabel(actions[0].kind) })),
    h('div', { class: 'promo-buttons' },
      h('button', { type: 'button', class: 'primary', 'data-testid': 'promote-yes', onclick: () => { close(); submit(r, promote.text); } },
        h('span', {}, t('room.promo.yes')), h('small', {}, promote.text)),
      h('button', { type: 'button', 'data-testid': 'promote-no', onclick: () => { close(); submit(r, stay.text); } },
        h('span', {}, t('room.promo.no')), h('small', {}, stay.text))),
    h('button', { type: 'button', class: 'small', 'data-testid': 'promote-cancel', onclick: () => { close(); cancel(r); } }, t('room.cancel')));
  r.promoDialog.showModal();
  r.promoDialog.querySelector('[data-testid="promote-yes"]').focus();
}

/** Plays a chosen action, or first asks to confirm it when the reader wants that (the
 * `confirmMoves` preference: a mistap on a phone is easy). */
export function submit(r, action) {
  let confirm = false;
  try { confirm = getPref('confirmMoves') === true; } catch { /* no such preference */ }
  if (!confirm) { play(r, action); return; }
  r.confirming = action;
  r.focusNext = 'confirm-move';
  r.render();
}

export function play(r, action) {
  r.confirming = null;
  r.send({ type: 'act', action });
  r.pendingAction = true;
  r.selected = null;
  r.illumPreview = false;
  r.render();
  r.board.focus();
}

export function cancel(r) {
  if (r.promoDialog.open) r.promoDialog.close();
  r.selected = null;
  r.illumPreview = false;
  r.confirmResign = false;
  r.confirming = null;
  r.premove = null;
  r.premoveSel = null;
  r.render();
}

/** Page keys: Escape cancels; ←/→/Home/End step through the game unless a text field
 * or the board walked by keyboard (whose arrows move between cells) has them. */
export function onPageKey(r, e) {
  if (e.key === 'Escape') {
    if (!r.promoDialog.open) cancel(r);
    return;
  }
  if (e.altKey || e.ctrlKey || e.metaKey || r.promoDialog.open) return;
  const el = e.target;
  if (el?.closest?.('input, textarea, select, [contenteditable]') || boardHasArrows(el)) return;
  const nav = { ArrowLeft: -1, ArrowRight: 1 };
  if (e.key in nav) {
    e.preventDefault();
    r.step(nav[e.key]);
  } else if (e.key === 'Home') {
    e.preventDefault();
    r.goTo(0);
  } else if (e.key === 'End') {
    e.preventDefault();
    r.goTo(Infinity);
  }
}
