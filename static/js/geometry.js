// Board geometry of RULES.md §1–§2, and its layout on screen.
// Pure functions: no DOM here, so the same code can be checked in isolation.

export const RANKS = 'abcdefghijklm';
export const SEATS = ['first', 'middle', 'last'];

/** RULES §1: a cell (r, f) exists iff both are in 0..12 and |r − f| ≤ 6. */
export function exists(r, f) {
  return r >= 0 && r <= 12 && f >= 0 && f <= 12 && Math.abs(r - f) <= 6;
}

/** Cell name, file then rank: (6, 6) → "7g". */
export function cellName(r, f) {
  return `${f + 1}${RANKS[r]}`;
}

/** "10m" → { r: 12, f: 9 }, or null if it is no cell of the board. */
export function parseCell(name) {
  const m = /^(\d{1,2})([a-m])$/.exec(name);
  if (!m) return null;
  const f = Number(m[1]) - 1;
  const r = RANKS.indexOf(m[2]);
  return exists(r, f) ? { r, f } : null;
}

/** All 127 cells, rank by rank (a..m), each rank from its highest file to its lowest (§13.3 order). */
export const CELLS = [];
for (let r = 0; r <= 12; r++) {
  for (let f = 12; f >= 0; f--) {
    if (exists(r, f)) CELLS.push({ r, f, name: cellName(r, f) });
  }
}

/** RULES §1 neighbour steps (Δr, Δf). */
export const NEIGHBOUR_STEPS = [[0, 1], [0, -1], [1, 0], [-1, 0], [-1, -1], [1, 1]];

export function neighbours(r, f) {
  return NEIGHBOUR_STEPS.map(([dr, df]) => [r + dr, f + df]).filter(([a, b]) => exists(a, b));
}

/** RULES §1 depth formulas: distance from the player's home edge. */
export function depth(seat, r, f) {
  switch (seat) {
    case 'first': return f;
    case 'middle': return 12 - r;
    case 'last': return 6 + r - f;
    default: throw new Error(`no such seat ${seat}`);
  }
}

/** The player whose territory (depth ≤ 2, RULES §1) holds the cell, or null (arena). */
export function territoryOf(r, f) {
  for (const seat of SEATS) if (depth(seat, r, f) <= 2) return seat;
  return null;
}

export const PLEASURE_GARDEN = '7g';

// ---- Layout -------------------------------------------------------------------------
// Middle's view is the reference (RULES §1): ranks are horizontal rows, a at the top;
// files run top-left to bottom-right, numbered right to left. Pointy-top hexagons of
// circumradius `size`: (r, f±1) are left/right neighbours, (r+1, f) is down-right.
// Screen angles below are in SVG coordinates (y down, degrees clockwise from +x).

/** Rotation that brings each player's home edge to the bottom (RULES §2: the 120° turn
 * Middle → First → Last). First's home edge faces up-right (−30°), Last's up-left (210°). */
export const VIEW_ROTATION = { middle: 0, first: 120, last: -120 };

/** Direction each owner's pieces point in Middle's view (RULES §2): Middle up; First
 * toward the 13g–13m edge (down-left); Last toward the 1g–7m edge (down-right). */
export const FACING = { middle: -90, first: 150, last: 30 };

/** Maps (r, f) — any integers, also just outside the board for labels — to screen
 * coordinates for the given view, centred on 7g. */
export function layout(view, size) {
  const w = Math.sqrt(3) * size;
  const a = (VIEW_ROTATION[view] * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  return (r, f) => {
    const x = (r / 2 - f + 3) * w;
    const y = 1.5 * size * (r - 6);
    return { x: x * cos - y * sin, y: x * sin + y * cos };
  };
}

/** Rotation (degrees) to draw an upright (pointing-up) tile so that it points the way
 * its owner's pieces face, in the given view. */
export function pieceRotation(owner, view) {
  return (((FACING[owner] + 90 + VIEW_ROTATION[view]) % 360) + 360) % 360;
}

/** Where coordinates are written: ranks at both ends of each rank; files at the top
 * edge (files 1–7) and the bottom edge (files 7–13). Every one of these label spots is
 * a distinct position just outside the board (`OUT` of a cell step beyond its edge). */
export function labelSpots() {
  const OUT = 0.8;
  const spots = [];
  for (let r = 0; r <= 12; r++) {
    const lo = Math.max(0, r - 6);
    const hi = Math.min(12, r + 6);
    spots.push({ r, f: lo - OUT, text: RANKS[r], kind: 'rank' });
    spots.push({ r, f: hi + OUT, text: RANKS[r], kind: 'rank' });
  }
  for (let f = 0; f <= 6; f++) spots.push({ r: -OUT, f, text: String(f + 1), kind: 'file' });
  for (let f = 6; f <= 12; f++) spots.push({ r: 12 + OUT, f, text: String(f + 1), kind: 'file' });
  return spots;
}
