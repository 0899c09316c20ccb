// The analysis board's move list: the main line with round numbers, each variation
// indented under the move it leaves from (its own variations nested in it), every move
// a button that shows the position after it. Endings that are not moves (resignation,
// loss on time, abandonment, agreed draw) are written in words.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { describeAction, seatOf } from '../say.js';
import { reasonText } from '../room/messages.js';
import { ENDINGS, pathTo } from './tree.js';

const SEATS = ['first', 'middle', 'last'];

/** An ending in words: "First resigns", "Last: lost on time", "Draw agreed". */
export function endingText(node) {
  const seat = t(`room.seat.${seatOf(node.player)}`);
  switch (node.action) {
    case 'resign': return t('room.moves.resign', { seat });
    case 'timeout': return t('room.moves.forfeit', { seat, reason: reasonText('timeout') });
    case 'abandon': return t('room.moves.forfeit', { seat, reason: reasonText('abandoned') });
    default: return t('room.moves.draw');
  }
}

/** A node in words, for labels and announcements. */
export function sayNode(node) {
  return ENDINGS.has(node.action) ? endingText(node) : describeAction(node.player, node.action);
}

/** The move list's round numbering: a function called with each node of a line from
 * its first move, giving the round that node is in and whether it opens the round (a
 * new round starts when the seats come round again; endings are not numbered). */
export function roundCounter() {
  let round = 0;
  let lastSeat = Infinity;
  return (n) => {
    if (ENDINGS.has(n.action)) return { round, opens: false };
    const s = SEATS.indexOf(seatOf(n.player));
    const opens = s <= lastSeat || s < 0;
    if (opens) round += 1;
    lastSeat = s;
    return { round, opens };
  };
}

/** The round number the move list writes before (or for) `node` of its line. */
export function roundOf(node) {
  const count = roundCounter();
  let round = 0;
  for (const n of pathTo(node)) round = count(n).round;
  return round;
}

/**
 * The list for `tree` with `current` marked; `onPick(node)` when a move is clicked.
 * Buttons carry `data-ply` (the ply's number in its line) and `data-node` (its id).
 */
export function moveList(tree, current, onPick) {
  const onPath = new Set(pathTo(current));
  const button = (n) => {
    const ply = pathTo(n).length;
    const ending = ENDINGS.has(n.action);
    const text = ending ? endingText(n) : n.action;
    const b = h('button', {
      type: 'button', class: `mv seat-${seatOf(n.player)}${ending ? ' ending' : ''}${onPath.has(n) ? ' on-path' : ''}`,
      dataset: { ply, node: n.id },
      'aria-label': `${text} — ${t('analysis.plyN', { n: ply })}${ending ? '' : `: ${describeAction(n.player, n.action)}`}`,
      'aria-current': n === current ? 'step' : null,
      onclick: () => onPick(n),
    }, text);
    return b;
  };
  const count = roundCounter();
  const line = (first, main, out) => {
    for (let n = first; n; n = n.children[0]) {
      if (main) {
        const { round, opens } = count(n);
        if (opens) out.append(h('span', { class: 'round-no', 'aria-hidden': 'true' }, `${round}.`));
      }
      out.append(button(n));
      if (n.parent.children[0] === n && n.parent.children.length > 1) {
        for (const alt of n.parent.children.slice(1)) {
          const box = h('div', { class: 'variation', 'data-testid': 'variation', role: 'group', 'aria-label': t('analysis.tree.variation') });
          line(alt, false, box);
          out.append(box);
        }
      }
    }
    return out;
  };
  const list = h('div', { class: 'move-tree', 'data-testid': 'ply-list', role: 'group', 'aria-label': t('analysis.plies') });
  if (!tree.root.children.length) list.append(h('p', { class: 'hint' }, t('analysis.tree.empty')));
  else line(tree.root.children[0], true, list);
  return list;
}

/** What a rules event of a move did, in words; null for events not told. */
export function describeEvent(ev) {
  const seat = (p) => t(`seat.${seatOf(p)}`);
  switch (ev?.type) {
    case 'check': return t('analysis.event.check', { who: seat(ev.player), by: seat(ev.by) });
    case 'mated': return t('analysis.event.mated', { who: seat(ev.player) });
    case 'eliminated': return t('analysis.event.eliminated', { who: seat(ev.player) });
    case 'alliance_formed': return t('analysis.event.alliance', { a: seat(ev.allies?.[0]), b: seat(ev.allies?.[1]) });
    case 'illuminated': return t('analysis.event.illuminated', { n: ev.cells?.length ?? 0 });
    case 'game_over':
      if (!ev.winners?.length) return t('analysis.event.draw');
      return t('analysis.event.gameOver', { who: (ev.winners ?? []).map(seat).join(t('lobby.and')) || '—' });
    default: return null;
  }
}
