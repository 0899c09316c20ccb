// The turn line above the board: whose move it is (with check), the result once the
// game is over, and for a correspondence game (days for each move) how long the player
// to move has — "Ann (First) has 2 days 14 hours to move." — whose time is a span of
// its own, kept up to date without the live region reading it out each minute.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { sentences } from '../pairing.js';
import { deadlineLeft, durationText, isCorrespondence } from '../clocks.js';
import { plyCount, runningElapsed } from './model.js';
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

/** The turn line's words (TIME_MARK where the time left goes) and whether it tells a
 * check. */
function turnWords(v, corr) {
  const s = v.state;
  const ctx = v.ctx();
  const checks = v.model.checks;
  let text = '';
  let check = false;
  if (s.status === 'waiting') text = t(s.paired ? 'room.paired.waiting' : 'room.turn.waiting');
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
  // A table of quick pairing is given up when a player makes no first move in time:
  // the first round is everyone's first move (not so at a correspondence table).
  const plies = Math.max(plyCount(v.model), s.moves?.length ?? 0);
  if (s.paired && v.myTurn && plies < 3 && !isCorrespondence(s.clocks)) text = sentences(text, t('room.paired.first_move'));
  return { text, check };
}

/** Draws the turn line of the room view `v` into `v.turn`. */
export function renderTurn(v) {
  const s = v.state;
  const left = correspondenceLeft(v);
  const corr = left !== null && !v.pendingAction;
  const { text, check } = turnWords(v, corr);
  setTurnText(v, text, corr ? durationText(left) : null);
  v.turn.className = `turn${v.myTurn ? ' mine' : ''}${check ? ' check' : ''}${s.to_move ? ` seat-${s.to_move}` : ''}`;
  // A finished game: the result takes both lines of the strip (the latest notice would
  // only repeat it), so that a phone shows it whole.
  v.turn.parentElement?.classList.toggle('over', s.status === 'finished');
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
