// Reading the position string of RULES.md §13.3, and canonical actions of §13.1.
import { RANKS, SEATS, cellName } from './geometry.js';

const OWNER = { f: 'first', m: 'middle', l: 'last' };
const LETTER = { F: 'first', M: 'middle', L: 'last' };
export const HAND_ORDER = ['R', 'B', 'G', 'S', 'N', 'L', 'P'];

/** The start position of RULES.md §4, written as §13.3 writes positions. */
export const START_POSITION = 'lL1lP1fP1fL/lSlBlP2fPfRfS/lG1lP3fP1fG/lK1lP4fP1fK/lG1lN5fN1fG/lS1lP6fP1fS/lLlRlP7fPfBfL/1lP8fP1/lP9fP/10/mPmPmPmPmNmPmPmPmP/1mB4mR1/mLmSmGmKmGmSmL F -/-/- FML - FML';

/**
 * Parses a position string. Returns
 * { board: Map<cell, {owner, kind, promoted}>, toMove: seat|null,
 *   hands: {first: {R: n, ...}, ...}, active: Set<seat>, alliance: [seat, seat]|null,
 *   castling: Set<seat> }.
 * Throws an Error with a message on malformed input.
 */
export function parsePosition(text) {
  const fields = String(text).trim().split(/\s+/);
  if (fields.length !== 6) throw new Error(`position needs 6 fields, got ${fields.length}`);
  const [boardText, toMoveText, handsText, activeText, allianceText, castlingText] = fields;

  const ranks = boardText.split('/');
  if (ranks.length !== 13) throw new Error(`board needs 13 ranks, got ${ranks.length}`);
  const board = new Map();
  ranks.forEach((rankText, r) => {
    const lo = Math.max(0, r - 6);
    let f = Math.min(12, r + 6); // each rank from its highest file to its lowest
    const token = /(\d+)|([fml])(\+?)([KRBGSNLP])/gy;
    let m;
    while (token.lastIndex < rankText.length && (m = token.exec(rankText))) {
      if (m[1]) {
        f -= Number(m[1]);
      } else {
        if (f < lo) break;
        board.set(cellName(r, f), { owner: OWNER[m[2]], kind: m[4], promoted: m[3] === '+' });
        f -= 1;
      }
    }
    if (token.lastIndex !== rankText.length || f !== lo - 1) {
      throw new Error(`rank ${RANKS[r]} does not add up: ${rankText}`);
    }
  });

  const toMove = LETTER[toMoveText] ?? null;
  const handParts = handsText.split('/');
  if (handParts.length !== 3) throw new Error(`hands need 3 parts: ${handsText}`);
  const hands = {};
  SEATS.forEach((seat, i) => {
    const hand = {};
    if (handParts[i] !== '-') {
      // Counts precede the letter, as in SFEN: "B2P" is one bishop and two pawns.
      const re = /(\d*)([RBGSNLP])/gy;
      let m;
      while (re.lastIndex < handParts[i].length && (m = re.exec(handParts[i]))) {
        hand[m[2]] = (hand[m[2]] ?? 0) + (m[1] ? Number(m[1]) : 1);
      }
      if (re.lastIndex !== handParts[i].length) throw new Error(`bad hand: ${handParts[i]}`);
    }
    hands[seat] = hand;
  });
  const letters = (s) => new Set([...(s === '-' ? '' : s)].map((c) => LETTER[c]).filter(Boolean));
  const allianceSet = letters(allianceText);
  return {
    board,
    toMove,
    hands,
    active: letters(activeText),
    alliance: allianceSet.size === 2 ? SEATS.filter((s) => allianceSet.has(s)) : null,
    castling: letters(castlingText),
  };
}

const MOVE = /^(\+?)([KRBGSNLP])(\d{1,2}[a-m])([-x])(\d{1,2}[a-m])([+=]?)$/;
const DROP = /^([RBGSNLP])\*(\d{1,2}[a-m])$/;
const ILLUMINATE = /^\+K(\d{1,2}[a-m])?!$/;

/** Parses one canonical action (RULES §13.1, FROM always present). */
export function parseAction(text) {
  let m = MOVE.exec(text);
  if (m) {
    return {
      type: 'move', text, promotedPiece: m[1] === '+', kind: m[2], from: m[3],
      capture: m[4] === 'x', to: m[5], promote: m[6] === '+', decline: m[6] === '=',
    };
  }
  m = DROP.exec(text);
  if (m) return { type: 'drop', text, kind: m[1], to: m[2] };
  m = ILLUMINATE.exec(text);
  if (m) return { type: 'illuminate', text, from: m[1] ?? null };
  return null;
}

/**
 * Indexes the server's `legal` list (the client never computes moves itself).
 * moves: Map<from, Map<to, action[]>>; drops: Map<kind, Map<to, action>>;
 * illuminate: action text or null.
 */
export function indexLegal(legal) {
  const moves = new Map();
  const drops = new Map();
  let illuminate = null;
  for (const text of legal ?? []) {
    const a = parseAction(text);
    if (!a) continue;
    if (a.type === 'move') {
      if (!moves.has(a.from)) moves.set(a.from, new Map());
      const byTo = moves.get(a.from);
      if (!byTo.has(a.to)) byTo.set(a.to, []);
      byTo.get(a.to).push(a);
    } else if (a.type === 'drop') {
      if (!drops.has(a.kind)) drops.set(a.kind, new Map());
      drops.get(a.kind).set(a.to, a);
    } else {
      illuminate = a.text;
    }
  }
  return { moves, drops, illuminate };
}
