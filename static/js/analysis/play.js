// Moves on the analysis board, for whichever side is to move: a piece and its target
// chosen by clicks or dragged with the mouse (only from the server's `legal` list of the position shown), a
// piece in hand dropped, the promotion question, an illumination. `page` is the
// analysis page: { legal() (indexLegal of the position shown), selected, play(action),
// render(), promoDialog }.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { pieceLabel } from '../room/messages.js';
import { HAND_ORDER } from '../position.js';
import { pieceSvg } from '../pieces.js';
import { SEATS } from '../geometry.js';

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

/** Drag and drop with a mouse on `board`: a piece pressed on one cell and let go on
 * another plays that move when it is legal (a press and release on one cell is a
 * click, as before). */
export function enableDrag(page, board) {
  let from = null;
  const cellAt = (e) => document.elementFromPoint(e.clientX, e.clientY)?.closest?.('[data-cell]')?.dataset.cell ?? null;
  board.svg.addEventListener('pointerdown', (e) => {
    from = e.pointerType === 'mouse' && e.button === 0 ? cellAt(e) : null;
    if (from && !page.legal().moves.has(from)) from = null;
  });
  board.svg.addEventListener('pointerup', (e) => {
    const start = from;
    from = null;
    const to = start ? cellAt(e) : null;
    const actions = to && to !== start ? page.legal().moves.get(start)?.get(to) : null;
    if (actions) choose(page, actions);
  });
}

export function selectHand(page, kind) {
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
        onclick: () => selectHand(page, k),
      }, mini(seat, k), count);
    });
    return h('div', { class: `hand-line seat-${seat}`, 'data-testid': `analysis-hand-${seat}` },
      h('b', {}, t(`seat.${seat}`)), ' ', items.length ? items : h('span', { class: 'empty' }, t('analysis.emptyHand')));
  }));
}
