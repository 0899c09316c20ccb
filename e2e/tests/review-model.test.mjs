// The computer review's pure part, in node (no browser): static/js/analysis/review.js
// reading a review of `GET /api/rooms/{id}/review` — progress, the graph's lines and the
// ply under a point of it, the judged moves and their text, the counts per player, the
// engine's move of a position and a player's mistakes to learn from — and the game
// page's address of the review (static/js/room/record.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';

const review = await import('../../static/js/analysis/review.js');
const { reviewHref } = await import('../../static/js/room/record.js');

const pos = (ply, player, best, shares) => ({
  ply, player, best, line: best ? [best] : [], score: 0, mate: null,
  evaluations: { first: 0, middle: 0, last: 0 }, shares,
});
const even = { first: 1 / 3, middle: 1 / 3, last: 1 / 3 };

/** Four plies: Middle blunders at ply 2, Last makes an inaccuracy at ply 3, then First
 * resigns (no judgement). */
const DONE = {
  room: 'r1', state: 'done', ahead: null, plies_done: 5, plies_total: 5, nodes: 3000, error: null,
  positions: [
    pos(0, 'first', 'P3c-4d', even),
    pos(1, 'middle', 'S4c-5d', even),
    pos(2, 'last', 'P11g-10g', { first: 0.6, middle: 0.1, last: 0.3 }),
    pos(3, 'first', 'P4d-5e', { first: 0.62, middle: 0.1, last: 0.28 }),
    pos(4, null, null, { first: 0, middle: 0.5, last: 0.5 }),
  ],
  moves: [
    { ply: 1, player: 'first', action: 'P3c-4d', best: 'P3c-4d', loss: 0, judgement: null },
    { ply: 2, player: 'middle', action: 'P5e-6f', best: 'S4c-5d', loss: 0.23, judgement: 'blunder' },
    { ply: 3, player: 'last', action: 'P9l-9k', best: 'P11g-10g', loss: 0.06, judgement: 'inaccuracy' },
    { ply: 4, player: 'first', action: 'resign', best: 'P4d-5e', loss: null, judgement: null },
  ],
  counts: {
    first: { inaccuracy: 0, mistake: 0, blunder: 0 },
    middle: { inaccuracy: 0, mistake: 0, blunder: 1 },
    last: { inaccuracy: 1, mistake: 0, blunder: 0 },
  },
};

/** A message function that shows its key and parameters. */
const t = (key, p = {}) => ({
  'analysis.plyN': `Move ${p.n}`, 'seat.first': 'First', 'seat.middle': 'Middle', 'seat.last': 'Last', 'review.better': `better: ${p.action}`,
})[key] ?? key;

test('a review waits or runs until it is done or failed; its progress is the part of the positions done', () => {
  assert.equal(review.pending({ state: 'queued' }), true);
  assert.equal(review.pending({ state: 'running' }), true);
  assert.equal(review.pending({ state: 'done' }), false);
  assert.equal(review.pending({ state: 'failed' }), false);
  assert.equal(review.pending(null), false);
  assert.equal(review.progress({ plies_done: 17, plies_total: 121 }), 17 / 121);
  assert.equal(review.progress({ plies_done: 0, plies_total: 0 }), 0);
  assert.equal(review.progress({ plies_done: 9, plies_total: 5 }), 1);
});

test('the graph has a line per seat from ply 0 to the last, 100 % at the top, and a point across it is the nearest ply', () => {
  const g = review.graph(DONE, { width: 100, height: 50, padX: 0, padY: 0 });
  assert.equal(g.n, 4);
  assert.equal(g.x(0), 0);
  assert.equal(g.x(4), 100);
  assert.equal(g.y(1), 0);
  assert.equal(g.y(0), 50);
  assert.equal(g.lines.first, 'M0 33.3 L25 33.3 L50 20 L75 19 L100 50');
  assert.equal(g.lines.middle.split(' L').length, 5);
  assert.equal(g.plyAt(0), 0);
  assert.equal(g.plyAt(0.3), 1);
  assert.equal(g.plyAt(0.4), 2);
  assert.equal(g.plyAt(1), 4);
  assert.equal(g.plyAt(-3), 0);
  assert.equal(g.plyAt(7), 4);
  // With margins the ends are inside the frame; a game of no ply sits in the middle.
  const m = review.graph(DONE);
  assert.equal(m.x(0), review.GRAPH.padX);
  assert.equal(m.x(4), review.GRAPH.width - review.GRAPH.padX);
  assert.equal(review.graph({ positions: [pos(0, 'first', 'P3c-4d', even)] }).plyAt(0.9), 0);
});

test('shares are read whichever way the seat is written, an even third where there are none', () => {
  assert.deepEqual(review.sharesAt(DONE, 2), { first: 0.6, middle: 0.1, last: 0.3 });
  const caps = { positions: [{ shares: { First: 0.5, Middle: 0.25, Last: 0.25 } }] };
  assert.deepEqual(review.sharesAt(caps, 0), { first: 0.5, middle: 0.25, last: 0.25 });
  assert.deepEqual(review.sharesAt({ positions: [{}] }, 0), even);
});

test('the judged moves, their marks and their words; the counts per player', () => {
  const marks = review.marks(DONE);
  assert.deepEqual(marks.map((m) => [m.ply, m.seat, m.judgement, m.mark]), [[2, 'middle', 'blunder', '??'], [3, 'last', 'inaccuracy', '?!']]);
  assert.equal(review.markText(marks[0], t), 'Move 2 · Middle · P5e-6f ?? (better: S4c-5d)');
  assert.equal(review.markText({ ...marks[1], best: 'P9l-9k' }, t), 'Move 3 · Last · P9l-9k ?!');
  assert.equal(review.markOf(DONE, 2).judgement, 'blunder');
  assert.equal(review.markOf(DONE, 1), null);
  assert.equal(review.markOf(DONE, 4), null);
  assert.deepEqual(review.counts(DONE), DONE.counts);
  // Counted from the moves when the review gives no counts.
  assert.deepEqual(review.counts({ ...DONE, counts: undefined }), DONE.counts);
  assert.deepEqual(review.MARKS, { inaccuracy: '?!', mistake: '?', blunder: '??' });
});

test('the engine\'s move of a position, none once the game is over', () => {
  assert.deepEqual(review.bestAt(DONE, 1), { best: 'S4c-5d', seat: 'middle', line: ['S4c-5d'] });
  assert.equal(review.bestAt(DONE, 4), null);
  assert.equal(review.bestAt(DONE, 9), null);
});

test('a player\'s mistakes and blunders to learn from start in the position they were played in', () => {
  assert.deepEqual(review.exercises(DONE, 'middle').map((e) => [e.ply, e.before, e.action, e.best]), [[2, 1, 'P5e-6f', 'S4c-5d']]);
  assert.deepEqual(review.exercises(DONE, 'last'), [], 'an inaccuracy is not one');
  assert.deepEqual(review.exercises(DONE, 'first'), []);
  const same = { moves: [{ ply: 1, player: 'first', action: 'P3c-4d', best: 'P3c-4d', judgement: 'mistake' }] };
  assert.deepEqual(review.exercises(same, 'first'), [], 'nothing to find where the engine agrees');
});

test('the game page sends a player to the review with its seat, a spectator without', () => {
  assert.equal(reviewHref('abc', 'middle'), '/analysis?room=abc&review=1&seat=middle');
  assert.equal(reviewHref('abc', null), '/analysis?room=abc&review=1');
});
