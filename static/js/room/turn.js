// The turn line above the board: whose move it is (with check), the result once the
// game is over, and for a correspondence game (days for each move) how long the player
// to move has — "Ann (First) has 2 days 14 hours to move." — whose time is a span of
// its own, kept up to date without the live region reading it out each minute; so is
// the countdown of a first move at a table of quick pairing. A table of friends whose
// game was aborted says so while it waits again.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { sentences } from '../pairing.js';
import { deadlineLeft, durationText, isCorrespondence } from '../clocks.js';
import { runningElapsed } from './model.js';
import { resultLine, reasonText, who } from './messages.js';

/** Where the time left goes in a turn line's text. */
const TIME_MARK = '\u0000';

/** The time left of the player to move of a correspondence game, or null. `v`: the
 * room view (state, clocks, clocksAt, skew). */
export function correspondenceLeft(v) {
  const s = v.state;
  if (!s || s.status !== 'playing' || !s.to_move || !isCorrespondence(v.clocks)) return null;
  if (v.clocks.running && v.clocks.running !== s.to_move) return null;
  const elapsed = runningElapsed(v.clocks, s.seats, performance.now() - v.clocksAt);
  return deadlineLeft(v.clocks, { elapsed, skew: v.skew });
}

/** Whole seconds the reader, to move at a table of quick pairing, has left for its
 * first move (`first_move_by_ms`, the server's unix ms), or null. */
export function firstMoveLeft(v) {
  const s = v.state;
  if (!v.myTurn || typeof s?.first_move_by_ms !== 'number' || isCorrespondence(s.clocks)) return null;
  return Math.max(0, Math.ceil((s.first_move_by_ms - (Date.now() + (v.skew ?? 0))) / 1000));
}

/** The turn line's words (TIME_MARK where the time left goes) and whether it tells a
 * check. */
function turnWords(v, corr) {
  const s = v.state;
  const ctx = v.ctx();
  const checks = v.model.checks;
  let text = '';
  let check = false;
  if (s.status === 'waiting' && v.model.abortedBy) {
    const by = v.model.abortedBy;
    text = t(by === v.you ? 'ctl.note.game_aborted.you' : 'ctl.note.game_aborted', { who: who(by, ctx, { capital: true }) });
  } else if (s.status === 'waiting') text = t(s.paired ? 'room.paired.waiting' : 'room.turn.waiting');
  else if (s.status === 'finished') {
    const outcome = s.outcome ?? s.result;
    text = outcome ? t('room.turn.over', { result: resultLine(outcome, ctx), reason: reasonText(outcome.reason) }) : t('room.turn.over_plain');
  } else if (v.myTurn) {
    check = checks.has(v.you);
    if (corr) text = t(check ? 'room.corr.turn.check' : 'room.corr.turn.yours', { time: TIME_MARK });
    else text = v.pendingAction ? t('room.turn.sending') : t(check ? 'room.turn.check' : 'room.turn.yours');
  } else if (s.to_move) {
    check = checks.has(s.to_move);
    const params = { who: who(s.to_move, ctx, { capital: true }), time: TIME_MARK };
    if (corr) text = t(check ? 'room.corr.turn.other_check' : 'room.corr.turn.other', params);
    else text = t(check ? 'room.turn.other_check' : 'room.turn.other', params);
  }
  if (s.status === 'playing' && v.you && !v.myTurn && checks.has(v.you)) {
    text = `${text} ${t('room.turn.you_in_check')}`;
    check = true;
  }
  // A table of quick pairing is given up when a player makes no first move in time
  // (not so at a correspondence table): the seconds left count down. Elsewhere a live
  // clock that does not run on the reader's turn is its first move's (docs/protocol.md
  // §11): said, so that a clock standing still is no surprise.
  if (firstMoveLeft(v) !== null) text = sentences(text, t('room.paired.first_move', { s: TIME_MARK }));
  else if (v.myTurn && s.status === 'playing' && s.clocks && !isCorrespondence(s.clocks) && !s.clocks.running) {
    text = sentences(text, t('room.turn.first_move_free'));
  }
  return { text, check };
}

/** Draws the turn line of the room view `v` into `v.turn`. */
export function renderTurn(v) {
  const s = v.state;
  const left = correspondenceLeft(v);
  const corr = left !== null && !v.pendingAction;
  const { text, check } = turnWords(v, corr);
  const first = firstMoveLeft(v);
  setTurnText(v, text, corr ? durationText(left) : first !== null ? String(first) : null);
  v.turn.className = `turn${v.myTurn ? ' mine' : ''}${check ? ' check' : ''}${s.to_move ? ` seat-${s.to_move}` : ''}`;
  // A finished game: the result takes both lines of the strip (the latest notice would
  // only repeat it), so that a phone shows it whole; so does the news of an abort
  // while the table waits again.
  const aborted = s.status === 'waiting' && Boolean(v.model.abortedBy);
  v.turn.parentElement?.classList.toggle('over', s.status === 'finished' || aborted);
  v.turn.dataset.toMove = s.to_move ?? '';
  v.turn.dataset.check = String(check);
}

/** The turn line; `time` (a correspondence game's time left) in its own span, which
 * the live region does not read out each minute. */
function setTurnText(v, text, time) {
  if (v.turnText !== text) {
    v.turnText = text;
    const [before, after] = text.split(TIME_MARK);
    v.turnTime = after === undefined ? null : h('span', { class: 'time-left', 'aria-live': 'off', 'data-testid': 'time-left' });
    v.turn.replaceChildren(before, ...(v.turnTime ? [v.turnTime, after] : []));
  }
  if (v.turnTime && v.turnTime.textContent !== time) v.turnTime.textContent = time ?? '';
}
