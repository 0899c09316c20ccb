// The move table: a row per round, a column per seat (rounds.js), in a box that scrolls
// by itself so the page never does. Clicking a move shows the position after it.
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { t } from '../i18n.js';
import { roundsOf } from './rounds.js';
import { reasonText, seatLabel } from './messages.js';
import { seatOf } from './model.js';
import { playerName } from '../players.js';

export class MoveTable {
  /** `onPick(ply)` is called with the ply number clicked. */
  constructor(onPick) {
    this.onPick = onPick;
    this.table = h('table', { class: 'moves', 'data-testid': 'moves' });
    this.scroller = h('div', { class: 'moves-scroll', 'data-testid': 'moves-scroll', tabindex: -1 }, this.table);
    this.count = -1;
    this.current = null;
  }

  /** `plies`: the history's plies; `current`: the ply shown (0..n); `seats`: state.seats. */
  render(plies, current, seats, { follow }) {
    const head = h('thead', {}, h('tr', {}, h('th', { scope: 'col', class: 'round' }, '#'),
      ...SEATS.map((seat) => h('th', { scope: 'col', class: `seat-${seat}` },
        h('span', { class: 'swatch' }), seatLabel(seat), playerName(seats?.[seat], seat) ? h('small', {}, playerName(seats[seat], seat)) : null))));
    const body = h('tbody');
    for (const row of roundsOf(plies)) {
      if (row.ending) {
        const p = row.ending;
        body.append(h('tr', { class: 'ending' }, h('td', { class: 'round' }),
          h('td', { colspan: 3 }, this.cell(p, current, endingText(p)))));
        continue;
      }
      body.append(h('tr', {}, h('th', { scope: 'row', class: 'round' }, String(row.round)),
        ...row.cells.map((p, i) => h('td', { class: `seat-${SEATS[i]}` }, p ? this.cell(p, current, p.action) : null))));
    }
    if (!plies.length) {
      body.append(h('tr', { class: 'empty' }, h('td', { colspan: 4 }, t('room.moves.none'))));
    }
    this.table.replaceChildren(head, body);
    const grew = plies.length > this.count;
    this.count = plies.length;
    if (follow && grew) this.scroller.scrollTop = this.scroller.scrollHeight;
    else if (current !== this.current) this.reveal(current);
    this.current = current;
  }

  cell(p, current, text) {
    return h('button', {
      type: 'button', class: `ply${p.ply === current ? ' current' : ''}`, 'data-ply': p.ply,
      'aria-current': p.ply === current ? 'true' : null,
      'aria-label': t('room.moves.ply', { n: p.ply, action: text }),
      onclick: () => this.onPick(p.ply),
    }, text);
  }

  /** Scrolls the table (never the page) so that the ply shown is in view. */
  reveal(ply) {
    const node = this.table.querySelector(`[data-ply="${ply}"]`);
    const box = this.scroller;
    if (!node) { if (ply === 0) box.scrollTop = 0; return; }
    const top = node.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
    const bottom = top + node.offsetHeight;
    const headH = this.table.tHead?.offsetHeight ?? 0;
    if (top - headH < box.scrollTop) box.scrollTop = Math.max(0, top - headH - 4);
    else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight + 4;
  }
}

function endingText(p) {
  const seat = seatOf(p.player);
  switch (p.action) {
    case 'resign': return t('room.moves.resign', { seat: seatLabel(seat) });
    case 'timeout': return t('room.moves.forfeit', { seat: seatLabel(seat), reason: reasonText('timeout') });
    case 'abandon': return t('room.moves.forfeit', { seat: seatLabel(seat), reason: reasonText('abandoned') });
    default: return t('room.moves.draw');
  }
}
