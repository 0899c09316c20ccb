// The computer review of a finished game (`GET /api/rooms/{id}/review`), read for the
// analysis board: whether it is still coming, how far it has got, each player's share of
// the game position by position as the lines of a graph, the moves judged inaccurate,
// mistaken or blundered (with their marks ?!, ?, ??), the count of each per player, and
// a player's mistakes and blunders as positions to find a better move in. Pure: no DOM
// and no messages of its own (texts take the caller's `t`), so it runs in node.

export const SEATS = ['first', 'middle', 'last'];
/** The judgements from the mildest, with the mark written after the move. */
export const JUDGEMENTS = ['inaccuracy', 'mistake', 'blunder'];
export const MARKS = { inaccuracy: '?!', mistake: '?', blunder: '??' };

/** A seat key (`first`…) of a player as the wire writes it (`first` or `First`). */
export function seatKey(player) {
  const s = String(player ?? '').toLowerCase();
  return SEATS.includes(s) ? s : null;
}

/** A value of an object keyed by seat, whichever way the seat is written. */
function bySeat(obj, seat) {
  return obj?.[seat] ?? obj?.[seat[0].toUpperCase() + seat.slice(1)];
}

/** Is the review still to come (queued or running)? */
export function pending(review) {
  return review?.state === 'queued' || review?.state === 'running';
}

/** The part done, 0..1. */
export function progress(review) {
  const total = Number(review?.plies_total) || 0;
  return total > 0 ? Math.max(0, Math.min(1, (Number(review.plies_done) || 0) / total)) : 0;
}

/** Each seat's share (0..1) of the game in position `k` of the review; an even third
 * each where the review gives none. */
export function sharesAt(review, k) {
  const shares = review?.positions?.[k]?.shares;
  const out = {};
  for (const s of SEATS) {
    const v = Number(bySeat(shares, s));
    out[s] = Number.isFinite(v) ? Math.max(0, Math.min(1, v)) : 1 / 3;
  }
  return out;
}

/** The graph's frame: its size (SVG user units) and margins. */
export const GRAPH = { width: 600, height: 240, padX: 6, padY: 8 };

/**
 * The graph of a done review: x = ply 0..n, y = each seat's share (100 % at the top).
 * Returns { n, x(k), y(share), lines: { seat: path data }, plyAt(fraction) (the ply
 * nearest to a point `fraction` of the width across), even: y of an equal third }.
 */
export function graph(review, frame = GRAPH) {
  const positions = review?.positions ?? [];
  const n = Math.max(0, positions.length - 1);
  const { width, height, padX, padY } = frame;
  const span = width - 2 * padX;
  const x = (k) => padX + (n ? (k / n) * span : span / 2);
  const y = (share) => padY + (1 - share) * (height - 2 * padY);
  const round = (v) => Math.round(v * 10) / 10;
  const lines = {};
  for (const s of SEATS) {
    lines[s] = positions.map((_, k) => `${k ? 'L' : 'M'}${round(x(k))} ${round(y(sharesAt(review, k)[s]))}`).join(' ');
  }
  const plyAt = (fraction) => {
    if (!n) return 0;
    const k = Math.round(((fraction * width - padX) / span) * n);
    return Math.max(0, Math.min(n, k));
  };
  return { n, x, y, lines, plyAt, even: y(1 / 3) };
}

/** The judged moves in the order played: { ply, seat, action, best, judgement, loss,
 * mark }. */
export function marks(review) {
  return (review?.moves ?? [])
    .filter((m) => JUDGEMENTS.includes(m?.judgement))
    .map((m) => ({
      ply: m.ply, seat: seatKey(m.player), action: m.action, best: m.best ?? null,
      judgement: m.judgement, loss: m.loss ?? null, mark: MARKS[m.judgement],
    }));
}

/** The judged move of ply `ply` (1…), or null. */
export function markOf(review, ply) {
  const m = review?.moves?.[ply - 1];
  return m && m.ply === ply && JUDGEMENTS.includes(m.judgement) ? marks({ moves: [m] })[0] : null;
}

/** How many inaccuracies, mistakes and blunders each seat made: the review's own
 * counts, else counted from its moves. */
export function counts(review) {
  const out = Object.fromEntries(SEATS.map((s) => [s, { inaccuracy: 0, mistake: 0, blunder: 0 }]));
  const given = review?.counts;
  if (given && typeof given === 'object') {
    for (const s of SEATS) for (const j of JUDGEMENTS) out[s][j] = Number(bySeat(given, s)?.[j]) || 0;
    return out;
  }
  for (const m of marks(review)) if (m.seat) out[m.seat][m.judgement] += 1;
  return out;
}

/** The engine's preferred action in position `k` (ply `k` played), with its mover;
 * null where it has none (the game over). */
export function bestAt(review, k) {
  const p = review?.positions?.[k];
  if (!p?.best) return null;
  return { best: p.best, seat: seatKey(p.player), line: Array.isArray(p.line) && p.line.length ? p.line : [p.best] };
}

/** The mistakes and blunders of `seat` where the engine preferred another action: the
 * positions to find a better move in. Each: { ply (of the move), before (the position
 * it was played in), seat, action, best, judgement, mark }. */
export function exercises(review, seat) {
  return marks(review)
    .filter((m) => m.seat === seat && m.judgement !== 'inaccuracy' && m.best && m.best !== m.action)
    .map((m) => ({ ...m, before: m.ply - 1 }));
}

/** A judged move in words for its button: "8. P5e-6f ?? · Middle (better: S4c-5d)"
 * with `round` (the move list's number of the move's round), else "Move 23 · Middle ·
 * P5e-6f ?? (better: S4c-5d)". `t`: the message function (i18n.js). */
export function markText(mark, t, round) {
  const better = mark.best && mark.best !== mark.action ? ` (${t('review.better', { action: mark.best })})` : '';
  if (round) return `${round}. ${mark.action} ${mark.mark} · ${t(`seat.${mark.seat}`)}${better}`;
  return `${t('analysis.plyN', { n: mark.ply })} · ${t(`seat.${mark.seat}`)} · ${mark.action} ${mark.mark}${better}`;
}

/** A share as a whole percentage: "36 %" (the message gives the spacing). */
export const percent = (share) => Math.round(share * 100);
