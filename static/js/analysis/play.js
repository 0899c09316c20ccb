// Moves on the analysis board, for whichever side is to move: a piece and its target
// chosen by clicks or dragged with a mouse or a finger (drag.js; only from the server's `legal` list of the position shown), a
// piece in hand dropped, the promotion question, an illumination. `page` is the
// analysis page: { legal() (indexLegal of the position shown), selected, play(action),
// render(), promoDialog }.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { pieceLabel } from '../room/messages.js';
import { HAND_ORDER } from '../position.js';
import { pieceSvg } from '../pieces.js';
import { SEATS } from '../geometry.js';
import { PieceDrag, clicksOn } from '../drag.js';

/** Target cells of the selection: Map<cell, 'move'|'capture'|'drop'>. */
export function targets(page) {
  const out = new Map();
  const legal = page.legal();
  const sel = page.selected;
  if (sel?.cell) {
    for (const [to, actions] of legal.moves.get(sel.cell) ?? []) out.set(to, actions[0].capture ? 'capture' : 'move');
  } else if (sel?.hand) {
    for (const to of legal.drops.get(sel.hand)?.keys() ?? []) out.set(to, 'drop');
  }
  return out;
}

/** A click on `cell` (or Enter on it). */
export function activate(page, cell) {
  const legal = page.legal();
  const sel = page.selected;
  if (sel?.hand) {
    const drop = legal.drops.get(sel.hand)?.get(cell);
    if (drop) { page.play(drop.text); return; }
  } else if (sel?.cell) {
    const actions = legal.moves.get(sel.cell)?.get(cell);
    if (actions) { choose(page, actions); return; }
  }
  page.selected = sel?.cell === cell || !legal.moves.has(cell) ? null : { cell };
  page.render();
}

/** Drags on `board` (drag.js): a piece with a legal move, or one of the hand of the
 * side to move, dragged to a target plays there; let go elsewhere it goes back. */
export function enableDrag(page, board) {
  return new PieceDrag(board, {
    grab: (source) => {
      const legal = page.legal();
      return source.hand ? legal.drops.has(source.hand) : legal.moves.has(source.cell);
    },
    lift: (source) => { page.selected = source; page.render(); },
    drop: (source, cell) => {
      const legal = page.legal();
      if (cell && source.hand) {
        const drop = legal.drops.get(source.hand)?.get(cell);
        if (drop) { page.play(drop.text); return; }
      } else if (cell) {
        const actions = legal.moves.get(source.cell)?.get(cell);
        if (actions) { choose(page, actions); return; }
      }
      if (!cell || cell !== source.cell) page.selected = null;
      page.render();
    },
    handPiece: (kind) => ({ owner: page.toMove?.() ?? 'first', kind, promoted: false }),
  });
}

export function selectHand(page, kind, byKeyboard = false) {
  if (page.drag?.swallows() || (!byKeyboard && !clicksOn())) return;
  page.selected = page.selected?.hand === kind ? null : { hand: kind };
  page.render();
}

/** Plays the one action, or asks whether to promote when both are legal. */
function choose(page, actions) {
  if (actions.length === 1) { page.play(actions[0].text); return; }
  const promote = actions.find((a) => a.promote);
  const stay = actions.find((a) => !a.promote);
  const dialog = page.promoDialog;
  const close = () => dialog.close();
  dialog.setAttribute('aria-label', t('room.promo.title'));
  dialog.replaceChildren(
    h('p', {}, t('room.promo.ask', { piece: pieceLabel(actions[0].kind) })),
    h('div', { class: 'promo-buttons' },
      h('button', { type: 'button', class: 'primary', 'data-testid': 'promote-yes', onclick: () => { close(); page.play(promote.text); } },
        h('span', {}, t('room.promo.yes')), h('small', {}, promote.text)),
      h('button', { type: 'button', 'data-testid': 'promote-no', onclick: () => { close(); page.play(stay.text); } },
        h('span', {}, t('room.promo.no')), h('small', {}, stay.text))),
    h('button', { type: 'button', class: 'small', 'data-testid': 'promote-cancel', onclick: () => { close(); page.selected = null; page.render(); } }, t('room.cancel')));
  dialog.showModal();
  dialog.querySelector('[data-testid="promote-yes"]').focus();
}

function mini(seat, kind) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '-10 -10 20 20');
  svg.setAttribute('class', 'mini');
  svg.setAttribute('aria-hidden', 'true');
  svg.append(pieceSvg({ owner: seat, kind, promoted: false }, 0));
  return svg;
}

/** The three hands; the pieces of the player to move that may be dropped are buttons. */
export function handsView(page, pos) {
  const legal = page.legal();
  return h('div', { class: 'hands', 'data-testid': 'analysis-hands' }, SEATS.map((seat) => {
    const hand = pos?.hands?.[seat] ?? {};
    const items = HAND_ORDER.filter((k) => hand[k] > 0).map((k) => {
      const count = hand[k] > 1 ? `×${hand[k]}` : '';
      const words = `${t(`piece.${k}`)}${hand[k] > 1 ? ` ×${hand[k]}` : ''}`;
      if (seat !== pos?.toMove || !legal.drops.has(k)) {
        return h('span', { class: 'hand-item' }, mini(seat, k), count, h('span', { class: 'sr-only' }, words));
      }
      return h('button', {
        type: 'button', class: 'hand-item drop', 'data-testid': `drop-${k}`,
        'aria-pressed': String(page.selected?.hand === k), 'aria-label': t('analysis.play.drop', { piece: words }),
        onclick: (e) => selectHand(page, k, e.detail === 0),
        onpointerdown: (e) => page.drag?.handDown(e, k),
      }, mini(seat, k), count);
    });
    return h('div', { class: `hand-line seat-${seat}`, 'data-testid': `analysis-hand-${seat}` },
      h('b', {}, t(`seat.${seat}`)), ' ', items.length ? items : h('span', { class: 'empty' }, t('analysis.emptyHand')));
  }));
}
