// The move table by rounds: one row per round, one column per seat (First, Middle,
// Last). Play goes First → Middle → Last (RULES §2), skipping eliminated players, so a
// new row starts whenever the seat to act does not come after the previous one in the
// row; the cells of players who no longer move stay empty. Endings that are not moves
// (resignation, loss on time, abandonment, agreed draw) get a row of their own, and the
// round they interrupted goes on in its row.
// Pure: runs in node.
import { SEATS } from '../geometry.js';
import { ENDINGS, seatOf } from './model.js';

/**
 * `plies`: [{ ply, player, action }]. Returns rows
 * `{ round, cells: [ply|null, ply|null, ply|null] }` or `{ ending: ply }`.
 */
export function roundsOf(plies) {
  const rows = [];
  let row = null;
  let round = 0;
  for (const p of plies) {
    if (ENDINGS.has(p.action)) {
      rows.push({ ending: p });
      continue;
    }
    const col = SEATS.indexOf(seatOf(p.player));
    const lastCol = row ? row.cells.reduce((acc, c, i) => (c ? i : acc), -1) : Infinity;
    if (!row || col <= lastCol || col < 0) {
      round += 1;
      row = { round, cells: [null, null, null] };
      rows.push(row);
    }
    row.cells[col < 0 ? 0 : col] = p;
  }
  return rows;
}
