// Where a piece may go by its moves alone (RULES §3, §5, §8), whatever check or the
// alliance rules say: a premove's "pseudo-destinations", marked while the others move.
// The server's `legal` list still decides when the turn comes. Pure: runs in node.
import { CELLS, cellName, depth, parseCell } from './geometry.js';

/** RULES §3: each player's step (Δr, Δf) for each clock hour (12 = straight forward). */
export const STEPS = {
  first: {
    1: [0, 1], 2: [-1, 1], 3: [-1, 0], 4: [-2, -1], 5: [-1, -1], 6: [-1, -2],
    7: [0, -1], 8: [1, -1], 9: [1, 0], 10: [2, 1], 11: [1, 1], 12: [1, 2],
  },
  middle: {
    1: [-1, -1], 2: [-1, -2], 3: [0, -1], 4: [1, -1], 5: [1, 0], 6: [2, 1],
    7: [1, 1], 8: [1, 2], 9: [0, 1], 10: [-1, 1], 11: [-1, 0], 12: [-2, -1],
  },
  last: {
    1: [1, 0], 2: [2, 1], 3: [1, 1], 4: [1, 2], 5: [0, 1], 6: [-1, 1],
    7: [-1, 0], 8: [-2, -1], 9: [-1, -1], 10: [-1, -2], 11: [0, -1], 12: [1, -1],
  },
};

const ORTHOGONAL = [1, 3, 5, 7, 9, 11];
const DIAGONAL = [2, 4, 6, 8, 10, 12];
const ALL = [...ORTHOGONAL, ...DIAGONAL];
const GOLD = { steps: [1, 3, 6, 9, 11, 12], ranges: [] };

/** RULES §5: each piece's move set by hours, keyed `K`, `+K`… */
export const MOVE_SETS = {
  K: { steps: ORTHOGONAL, ranges: [] },
  '+K': { steps: [], ranges: ALL },
  R: { steps: [], ranges: [1, 3, 9, 11, 6] },
  '+R': { steps: [], ranges: ORTHOGONAL },
  B: { steps: [], ranges: DIAGONAL },
  '+B': { steps: ORTHOGONAL, ranges: DIAGONAL },
  G: GOLD,
  S: { steps: [1, 2, 5, 7, 10, 11], ranges: [] },
  '+S': { steps: [1, 2, 5, 7, 10, 11], ranges: [6, 12] },
  N: { steps: [2, 3, 4, 8, 9, 10], ranges: [] },
  L: { steps: [], ranges: [1, 11] },
  '+L': { steps: [], ranges: [1, 5, 7, 11] },
  P: { steps: [1, 11], ranges: [] },
  '+P': GOLD,
};

/**
 * The cells the piece on `from` may reach by its moves in `position` (position.js
 * `parsePosition`): steps and ranges onto empty cells or another player's piece, and
 * the king's castling jump while its owner keeps the right. A Set of cell names.
 */
export function reach(position, from) {
  const piece = position.board.get(from);
  const at = parseCell(from);
  const out = new Set();
  if (!piece || !at) return out;
  const set = MOVE_SETS[`${piece.promoted ? '+' : ''}${piece.kind}`] ?? GOLD;
  const steps = STEPS[piece.owner];
  const open = (name) => {
    const there = position.board.get(name);
    return !there || there.owner !== piece.owner;
  };
  for (const hour of set.steps) {
    const [dr, df] = steps[hour];
    const name = parseCell(cellName(at.r + dr, at.f + df)) ? cellName(at.r + dr, at.f + df) : null;
    if (name && open(name)) out.add(name);
  }
  for (const hour of set.ranges) {
    const [dr, df] = steps[hour];
    for (let k = 1; ; k++) {
      const r = at.r + dr * k;
      const f = at.f + df * k;
      if (r < 0 || r > 12 || f < 0 || f > 12 || !parseCell(cellName(r, f))) break;
      const name = cellName(r, f);
      if (open(name)) out.add(name);
      if (position.board.has(name)) break;
    }
  }
  if (piece.kind === 'K' && !piece.promoted && position.castling?.has(piece.owner)) {
    for (const { r, f, name } of CELLS) {
      const there = position.board.get(name);
      if (depth(piece.owner, r, f) <= 2 && (!there || (there.owner !== piece.owner && there.kind !== 'K'))) out.add(name);
    }
  }
  return out;
}
