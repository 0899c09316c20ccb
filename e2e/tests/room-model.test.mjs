// The room page's pure parts, in node (no browser): how `state` and events change what
// the page knows (static/js/room/model.js), the move table by rounds (rounds.js),
// premoves against `legal` (premove.js) and the downloaded record's headers
// (record.js). Messages follow docs/protocol.md §3.3–§3.4.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { START } from '../lib/mock.mjs';

const model = await import('../../static/js/room/model.js');
const { roundsOf } = await import('../../static/js/room/rounds.js');
const { premoveAction, premoveCells } = await import('../../static/js/room/premove.js');
const { recordWithHeaders, splitRecord, timeControlTag } = await import('../../static/js/room/record.js');
const { indexLegal } = await import('../../static/js/position.js');

const SEATS = {
  first: { name: 'Akira', connected: true, ready: true },
  middle: { name: 'Beni', connected: true, ready: true },
  last: { name: 'Chiyo', connected: true, ready: true },
};
// Positions only need to be readable here; the pieces do not matter.
const P1 = START.replace(' F -/-/- FML - FML', ' M -/-/- FML - FML');
const P2 = START.replace(' F -/-/- FML - FML', ' L -/-/- FML - FML');

function state(over = {}) {
  return {
    type: 'state', seq: 1, status: 'playing', position: START, start_position: START, moves: [],
    move_players: [], seats: SEATS, to_move: 'first', legal: [], you: 'middle', in_check: [], ...over,
  };
}

function playing() {
  const m = model.createModel();
  model.applyState(m, state());
  assert.ok(model.setHistory(m, { start: START, plies: [] }));
  return m;
}

test('an action, its events and the following state make one history ply', () => {
  const m = playing();
  const a = model.applyEvent(m, { type: 'action', player: 'first', action: 'B2gx10k+' });
  assert.deepEqual(a.sounds, ['capture']);
  model.applyEvent(m, { type: 'captured', cell: '10k', piece: 'P', promoted: false, owner: 'Middle', by: 'First' });
  model.applyEvent(m, { type: 'check', player: 'Middle', by: ['First'] });
  // The state after an action may leave `moves` out: the action event carries it.
  model.applyState(m, { ...state({ position: P1, to_move: 'middle', in_check: ['middle'] }), moves: undefined, move_players: undefined });
  assert.deepEqual(m.state.moves, ['B2gx10k+']);
  assert.deepEqual(m.state.move_players, ['first']);
  assert.equal(m.history.plies.length, 1);
  const ply = m.history.plies[0];
  assert.equal(ply.ply, 1);
  assert.equal(ply.action, 'B2gx10k+');
  assert.equal(ply.position, P1);
  assert.deepEqual(ply.events.map((e) => e.type), ['captured', 'check']);
  assert.equal(m.historyStale, false);
  assert.ok(m.checks.has('middle'));
});

test('a check that goes on is not news; a new checker is', () => {
  const m = playing();
  const checks = [];
  const act = (player, action, events, position, inCheck) => {
    for (const r of [model.applyEvent(m, { type: 'action', player, action }), ...events.map((e) => model.applyEvent(m, e))]) {
      checks.push(...r.notices.filter((n) => n.type === 'check').map((n) => `${n.player}<${n.by.join('+')}`));
    }
    model.applyState(m, state({ position, moves: [...m.state.moves, action], in_check: inCheck }));
  };
  act('first', 'P3c-4c', [{ type: 'check', player: 'Middle', by: ['First'] }], P1, ['middle']);
  // Middle does not answer (in three-player shogi it may be someone else's move first).
  act('middle', 'P10k-10j', [{ type: 'check', player: 'Middle', by: ['First'] }], P2, ['middle']);
  act('last', 'P11g-10g', [{ type: 'check', player: 'Middle', by: ['First', 'Last'] }], START, ['middle']);
  act('first', 'P4c-5d', [], P1, []);
  act('middle', 'P10j-10i', [{ type: 'check', player: 'Middle', by: ['First'] }], P2, ['middle']);
  assert.deepEqual(checks, ['Middle<First', 'Middle<First+Last', 'Middle<First']);
  assert.equal(m.history.plies.length, 5);
});

test('a history that misses the live moves is refused; a stale one is reloaded', () => {
  const m = model.createModel();
  model.applyState(m, state({ moves: ['P3c-4c', 'P10k-10j'], move_players: ['first', 'middle'] }));
  assert.equal(m.historyStale, true, 'no history yet');
  assert.equal(model.setHistory(m, { start: START, plies: [{ ply: 1, player: 'First', action: 'P3c-4c', events: [], position: P1 }] }), false);
  assert.equal(model.setHistory(m, {
    start: START,
    plies: [
      { ply: 1, player: 'First', action: 'P3c-4c', events: [], position: P1 },
      { ply: 2, player: 'Middle', action: 'P10k-10j', events: [], position: P2 },
    ],
  }), true);
  assert.equal(m.historyStale, false);
  // An action whose events were missed (the page was elsewhere): the count is off.
  model.applyState(m, state({ moves: ['P3c-4c', 'P10k-10j', 'P11g-10g', 'P4c-5d'] }));
  assert.equal(m.historyStale, true);
});

test('looking back: positions, last move and checks of a past ply; a new move while looking back', () => {
  const m = playing();
  model.applyEvent(m, { type: 'action', player: 'first', action: 'P3c-4c' });
  model.applyEvent(m, { type: 'check', player: 'Last', by: ['First'] });
  model.applyState(m, state({ position: P1, moves: ['P3c-4c'], in_check: ['last'] }));
  model.applyEvent(m, { type: 'action', player: 'middle', action: 'P10k-10j' });
  model.applyState(m, state({ position: P2, moves: ['P3c-4c', 'P10k-10j'] }));
  assert.equal(model.shownPly(m), 2);
  assert.equal(model.shown(m).live, true);
  model.goTo(m, 1);
  let v = model.shown(m);
  assert.equal(v.live, false);
  assert.equal(v.ply, 1);
  assert.equal(v.position.toMove, 'middle');
  assert.deepEqual([...v.last].sort(), ['3c', '4c']);
  assert.deepEqual([...v.checks], ['last']);
  model.step(m, -1);
  v = model.shown(m);
  assert.equal(v.ply, 0);
  assert.equal(v.position.toMove, 'first');
  assert.equal(v.last.size, 0);
  model.step(m, -1);
  assert.equal(model.shownPly(m), 0, 'no ply before the start');
  // A move arrives while looking back: the view stays, and says so.
  model.applyEvent(m, { type: 'action', player: 'last', action: 'P11g-10g' });
  model.applyState(m, state({ position: START, moves: ['P3c-4c', 'P10k-10j', 'P11g-10g'] }));
  assert.equal(model.shownPly(m), 0);
  assert.equal(m.missed, true);
  model.goTo(m, Infinity);
  assert.equal(m.view, null);
  assert.equal(m.missed, false);
  model.goTo(m, 99);
  assert.equal(m.view, null, 'past the end is the live position');
});

test('resignations are plies of the history but not moves', () => {
  const m = playing();
  model.applyEvent(m, { type: 'action', player: 'first', action: 'P3c-4c' });
  model.applyState(m, state({ position: P1, moves: ['P3c-4c'] }));
  model.applyEvent(m, { type: 'resigned', player: 'last' });
  model.applyEvent(m, { type: 'eliminated', player: 'Last', reason: 'resigned' });
  model.applyState(m, state({ position: P1, moves: ['P3c-4c'] }));
  assert.deepEqual(m.history.plies.map((p) => p.action), ['P3c-4c', 'resign']);
  assert.equal(m.historyStale, false);
  model.goTo(m, 1);
  assert.deepEqual([...model.shown(m).last].sort(), ['3c', '4c']);
});

test('no abandonment countdown once the game is over; seat events change the seats', () => {
  const m = model.createModel();
  const seats = { ...SEATS, last: { ...SEATS.last, connected: false, abandon_at_ms: 5000 } };
  model.applyState(m, state({ seats, now_ms: 1000 }), 1000);
  assert.equal(m.leaving.get('last'), 5000);
  model.applyState(m, state({ seats, status: 'finished', to_move: null, now_ms: 1000 }), 1000);
  assert.equal(m.leaving.size, 0);
  model.applyEvent(m, { type: 'player_left', seat: 'middle', grace_seconds: 120 });
  assert.equal(m.leaving.size, 0, 'no countdown after the end');
  assert.equal(m.state.seats.middle.connected, false);
  model.applyEvent(m, { type: 'bot_took_over', seat: 'middle', level: 2 });
  assert.equal(m.state.seats.middle.bot, 2);
});

test('sounds: an action makes a move or capture sound, mates and the end theirs', () => {
  const m = playing();
  assert.deepEqual(model.applyEvent(m, { type: 'action', player: 'first', action: 'P3c-4c' }).sounds, ['move']);
  assert.deepEqual(model.applyEvent(m, { type: 'mated', player: 'Last', by: 'First' }).sounds, ['mate']);
  assert.deepEqual(model.applyEvent(m, { type: 'alliance_formed', allies: ['First', 'Middle'], cause: 'double' }).sounds, ['alliance']);
  const end = model.applyEvent(m, { type: 'game_over', winners: ['First'], reason: 'last_player' });
  assert.deepEqual(end.sounds, ['end']);
  assert.equal(end.notices[0].kind, 'result');
});

test('a mate has one banner: the elimination that follows it goes to the list only; a resignation has its own', () => {
  const m = playing();
  model.applyEvent(m, { type: 'action', player: 'first', action: 'P3c-4c' });
  const mated = model.applyEvent(m, { type: 'mated', player: 'Last', by: 'First' }).notices;
  const out = model.applyEvent(m, { type: 'eliminated', player: 'Last', reason: 'mated' }).notices;
  assert.deepEqual(mated.map((n) => n.banner), [true]);
  assert.deepEqual(out.map((n) => [n.kind, n.banner]), [['mate', false]]);
  const resigned = model.applyEvent(m, { type: 'eliminated', player: 'Middle', reason: 'resigned' }).notices;
  assert.deepEqual(resigned.map((n) => n.banner), [true]);
});

test('the move table: a row per round, eliminated players leave empty cells', () => {
  const ply = (n, player, action = `P${n}`) => ({ ply: n, player, action });
  const rows = roundsOf([
    ply(1, 'First'), ply(2, 'Middle'), ply(3, 'Last'),
    ply(4, 'First'), ply(5, 'Middle'),
    { ply: 6, player: 'Last', action: 'resign' },
    ply(7, 'First'), ply(8, 'Middle'), ply(9, 'First'),
  ]);
  const shape = rows.map((r) => (r.ending ? `end:${r.ending.ply}` : `${r.round}:${r.cells.map((c) => c?.ply ?? '-').join(',')}`));
  assert.deepEqual(shape, ['1:1,2,3', '2:4,5,-', 'end:6', '3:7,8,-', '4:9,-,-']);
  // A game from a position where Middle moves first.
  const custom = roundsOf([ply(1, 'Middle'), ply(2, 'Last'), ply(3, 'First')]);
  assert.deepEqual(custom.map((r) => r.cells.map((c) => c?.ply ?? '-').join(',')), ['-,1,2', '3,-,-']);
  // 90 plies of three players: 30 rounds.
  const long = roundsOf(Array.from({ length: 90 }, (_, i) => ply(i + 1, ['First', 'Middle', 'Last'][i % 3])));
  assert.equal(long.length, 30);
  assert.equal(long.at(-1).cells[2].ply, 90);
});

test('premoves: sent only if legal when the turn comes; promotion preferred', () => {
  const legal = indexLegal(['P10k-10j', 'B12l-10k', 'N9k-10i+', 'N9k-10i=', 'P*7g']);
  assert.equal(premoveAction({ from: '10k', to: '10j' }, legal), 'P10k-10j');
  assert.equal(premoveAction({ from: '10k', to: '10i' }, legal), null);
  assert.equal(premoveAction({ from: '9k', to: '10i' }, legal), 'N9k-10i+');
  assert.equal(premoveAction({ hand: 'P', to: '7g' }, legal), 'P*7g');
  assert.equal(premoveAction({ hand: 'G', to: '7g' }, legal), null);
  assert.equal(premoveAction(null, legal), null);
  assert.deepEqual(premoveCells({ from: '9k', to: '10i' }), ['9k', '10i']);
  assert.deepEqual(premoveCells({ hand: 'P', to: '7g' }), ['7g']);
});

test('the downloaded record gets site, date, names and time control; the server\'s headers stay', () => {
  const server = '[Position "x y"]\n[Result "First wins (last player standing)"]\n\n1. P3c-4d P10k-10j Last:resign\n';
  const text = recordWithHeaders(server, {
    site: 'http://example.test/rooms/r1', date: new Date(Date.UTC(2026, 10, 3)),
    seats: { ...SEATS, last: { name: 'Chi "yo"' } },
    clock: { kind: 'fischer', main_ms: 300000, increment_ms: 5000 },
    startPosition: 'ignored: the server wrote one', standardStart: false,
  });
  const { headers, body } = splitRecord(text);
  assert.deepEqual(headers, [
    ['Site', 'http://example.test/rooms/r1'], ['Date', '2026.11.03'], ['First', 'Akira'],
    ['Middle', 'Beni'], ['Last', 'Chi "yo"'], ['TimeControl', '300+5'],
    ['Position', 'x y'], ['Result', 'First wins (last player standing)'],
  ]);
  assert.match(text, /\[Last "Chi \\"yo\\""\]/);
  assert.equal(body, '1. P3c-4d P10k-10j Last:resign\n');
  // No headers from the server: a running game, from the standard start.
  const running = splitRecord(recordWithHeaders('1. P3c-4d\n', { site: 's', date: null, seats: SEATS, clock: null, standardStart: true }));
  assert.deepEqual(running.headers.map(([k]) => k), ['Site', 'First', 'Middle', 'Last', 'TimeControl', 'Result']);
  assert.equal(running.headers.find(([k]) => k === 'TimeControl')[1], '-');
  assert.equal(timeControlTag({ kind: 'byoyomi', main_ms: 600000, byoyomi_ms: 30000, periods: 3 }), '600+3x30');
  assert.equal(timeControlTag({ kind: 'sudden_death', main_ms: 15000 }), '15');
});

test('a history ahead of the live position is cut there', () => {
  const m = model.createModel();
  model.applyState(m, state({ moves: ['P3c-4c'], move_players: ['first'] }));
  assert.ok(model.setHistory(m, {
    start: START,
    plies: [
      { ply: 1, player: 'First', action: 'P3c-4c', events: [], position: P1 },
      { ply: 2, player: 'Middle', action: 'P10k-10j', events: [], position: P2 },
    ],
  }));
  assert.deepEqual(m.history.plies.map((p) => p.action), ['P3c-4c']);
  model.applyEvent(m, { type: 'action', player: 'middle', action: 'P10k-10j' });
  model.applyState(m, state({ position: P2, moves: ['P3c-4c', 'P10k-10j'] }));
  assert.deepEqual(m.history.plies.map((p) => p.ply), [1, 2]);
  assert.equal(m.historyStale, false);
});

test('a history behind the live game is completed by the plies that came while it loaded', () => {
  const m = model.createModel();
  model.applyState(m, state({ moves: ['P3c-4c'], move_players: ['first'] }));
  assert.equal(m.historyStale, true);
  // Two moves and a resignation arrive while the history is on its way.
  model.applyEvent(m, { type: 'action', player: 'middle', action: 'P10k-10j' });
  model.applyState(m, { ...state({ position: P2 }), moves: undefined, move_players: undefined });
  model.applyEvent(m, { type: 'resigned', player: 'last' });
  model.applyState(m, { ...state({ position: P2 }), moves: undefined, move_players: undefined });
  model.applyEvent(m, { type: 'action', player: 'first', action: 'P4c-5d' });
  model.applyState(m, { ...state({ position: START }), moves: undefined, move_players: undefined });
  assert.deepEqual(m.state.moves, ['P3c-4c', 'P10k-10j', 'P4c-5d']);
  // The history as it was when asked for: one move only.
  const one = { start: START, plies: [{ ply: 1, player: 'First', action: 'P3c-4c', events: [], position: P1 }] };
  assert.ok(model.setHistory(m, one));
  assert.equal(m.historyStale, false);
  assert.deepEqual(m.history.plies.map((p) => [p.ply, p.action, p.position]),
    [[1, 'P3c-4c', P1], [2, 'P10k-10j', P2], [3, 'resign', P2], [4, 'P4c-5d', START]]);
  assert.deepEqual(m.tail, []);
  model.goTo(m, 2);
  assert.equal(model.shown(m).ply, 2);
  assert.equal(model.shown(m).live, false);
});

test('a history behind the live game waits when the plies since are not all known', () => {
  const m = model.createModel();
  // The page came in at two moves: the tail starts after them.
  model.applyState(m, state({ moves: ['P3c-4c', 'P10k-10j'], move_players: ['first', 'middle'] }));
  model.applyEvent(m, { type: 'action', player: 'last', action: 'P11g-10g' });
  model.applyState(m, { ...state({ position: P2 }), moves: undefined, move_players: undefined });
  const none = { start: START, plies: [] };
  assert.equal(model.setHistory(m, none), false, 'the second move is known nowhere');
  assert.equal(m.historyStale, true);
  // A history that does not match the moves is refused too.
  const wrong = { start: START, plies: [{ ply: 1, player: 'First', action: 'P4c-5d', events: [], position: P1 }] };
  assert.equal(model.setHistory(m, wrong), false);
  const two = { start: START, plies: [
    { ply: 1, player: 'First', action: 'P3c-4c', events: [], position: P1 },
    { ply: 2, player: 'Middle', action: 'P10k-10j', events: [], position: P1 },
  ] };
  assert.ok(model.setHistory(m, two));
  assert.deepEqual(m.history.plies.map((p) => p.action), ['P3c-4c', 'P10k-10j', 'P11g-10g']);
});

test('a bot\'s clock is shown standing until it moves; a person\'s runs', () => {
  const clocks = { kind: 'fischer', running: 'middle', first: { remaining_ms: 60000 }, middle: { remaining_ms: 60000 }, last: { remaining_ms: 60000 } };
  assert.equal(model.runningElapsed(clocks, SEATS, 1500), 1500);
  assert.equal(model.runningElapsed(clocks, { ...SEATS, middle: { ...SEATS.middle, bot: 3 } }, 1500), 0);
  // Level 0 is a bot too; a bot not to move changes nothing.
  assert.equal(model.runningElapsed(clocks, { ...SEATS, middle: { ...SEATS.middle, bot: 0 } }, 1500), 0);
  assert.equal(model.runningElapsed(clocks, { ...SEATS, last: { ...SEATS.last, bot: 2 } }, 1500), 1500);
});
