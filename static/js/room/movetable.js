// The move table: a row per round, a column per seat (rounds.js), in a box that scrolls
// by itself so the page never does. Clicking a move shows the position after it.
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { lang, t } from '../i18n.js';
import { roundsOf } from './rounds.js';
import { reasonText, seatLabel } from './messages.js';
import { seatOf } from './model.js';
import { playerName } from '../players.js';

export class MoveTable {
  /** `onPick(ply)` is called with the ply number clicked. */
  constructor(onPick) {
    this.onPick = onPick;
    this.body = h('tbody');
    this.table = h('table', { class: 'moves', 'data-testid': 'moves' }, this.body);
    this.scroller = h('div', { class: 'moves-scroll', 'data-testid': 'moves-scroll', tabindex: -1 }, this.table);
    this.count = -1;
    this.current = null;
  }

  /** `plies`: the history's plies; `current`: the ply shown (0..n); `seats`: state.seats.
   * Rows and buttons already drawn are kept as they are and only what changed is
   * redrawn: a move clicked while the game goes on is never lost to a redraw. */
  render(plies, current, seats, { follow }) {
    const names = SEATS.map((seat) => playerName(seats?.[seat], seat) ?? '');
    const headKey = `${lang()}|${names.join('|')}`;
    if (this.headKey !== headKey) {
      this.headKey = headKey;
      this.table.tHead?.remove();
      this.table.prepend(h('thead', {}, h('tr', {}, h('th', { scope: 'col', class: 'round' }, '#'),
        ...SEATS.map((seat, i) => h('th', { scope: 'col', class: `seat-${seat}` },
          h('span', { class: 'swatch' }), seatLabel(seat), names[i] ? h('small', { title: names[i] }, names[i]) : null)))));
    }
    if (this.lang !== lang()) {
      this.lang = lang();
      this.body.replaceChildren();
    }
    const rows = roundsOf(plies);
    rows.forEach((row, i) => this.drawRow(row, i, current));
    if (!plies.length) this.place(0, 'empty', () => h('tr', { class: 'empty' }, h('td', { colspan: 4 }, t('room.moves.none'))));
    while (this.body.rows.length > Math.max(rows.length, 1)) this.body.lastElementChild.remove();
    for (const b of this.table.querySelectorAll('.ply.current')) {
      if (Number(b.dataset.ply) !== current) { b.classList.remove('current'); b.removeAttribute('aria-current'); }
    }
    const shown = this.table.querySelector(`[data-ply="${current}"]`);
    if (shown) { shown.classList.add('current'); shown.setAttribute('aria-current', 'true'); }
    const grew = plies.length > this.count;
    this.count = plies.length;
    if (follow && grew) this.scroller.scrollTop = this.scroller.scrollHeight;
    else if (current !== this.current) this.reveal(current);
    this.current = current;
  }

  /** Row `i` of the body: a round whose cells fill in as its moves come, or an ending. */
  drawRow(row, i, current) {
    if (row.ending) {
      const p = row.ending;
      this.place(i, `end-${p.ply}-${p.action}`, () => h('tr', { class: 'ending' }, h('td', { class: 'round' }),
        h('td', { colspan: 3 }, this.cell(p, current, endingText(p)))));
      return;
    }
    const tr = this.place(i, `round-${row.round}`, () => h('tr', {}, h('th', { scope: 'row', class: 'round' }, String(row.round)),
      ...SEATS.map((seat) => h('td', { class: `seat-${seat}` }))));
    row.cells.forEach((p, col) => {
      const td = tr.cells[col + 1];
      const have = td.firstElementChild;
      if (!p) { if (have) td.replaceChildren(); return; }
      if (have?.dataset.ply !== String(p.ply) || have.dataset.action !== p.action) td.replaceChildren(this.cell(p, current, p.action));
    });
  }

  /** The body's row `i`, kept when its key is `key`, otherwise made anew by `make`. */
  place(i, key, make) {
    const old = this.body.rows[i];
    if (old?.dataset.key === key) return old;
    const tr = make();
    tr.dataset.key = key;
    if (old) old.replaceWith(tr);
    else this.body.append(tr);
    return tr;
  }

  cell(p, current, text) {
    return h('button', {
      type: 'button', class: `ply${p.ply === current ? ' current' : ''}`, 'data-ply': p.ply, 'data-action': p.action,
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
