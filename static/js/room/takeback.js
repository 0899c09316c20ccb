// Aborting a game in its first moves and taking a move back (docs/protocol.md §17), in
// the play controls (controls.js): "Abort game" with its confirmation; in a casual room,
// "Ask to take back" for the player who made the last move, the request as each reader
// sees it (Accept / Decline for the others still in the game, who is awaited for the
// one who asked), and the page's input put back in order once a move is taken back.
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { t } from '../i18n.js';
import { isBot } from '../players.js';
import { sentences } from '../pairing.js';
import { list, who } from './messages.js';
import { ENDINGS, seatOf } from './model.js';

/** Plies after which a game can no longer be aborted. */
export const ABORT_PLIES = 6;

const button = (cls, testid, text, onclick) => h('button', { type: 'button', class: cls, 'data-testid': testid, onclick }, text);

/** The last ply as the page knows it: `{ seat, move }` (a move, not a resignation…),
 * or null before the first. */
function lastPly(r) {
  const m = r.model;
  const ply = m.history && !m.historyStale ? m.history.plies.at(-1) : null;
  if (ply) {
    const ended = (ply.events ?? []).some((e) => e.type === 'eliminated' || e.type === 'game_over');
    return { seat: seatOf(ply.player), move: !ENDINGS.has(ply.action) && !ended };
  }
  const seat = r.state?.move_players?.at(-1);
  return seat ? { seat: seatOf(seat), move: true } : null;
}

/** Whether the reader plays on in a running game. */
function playing(r) {
  return Boolean(r.state?.status === 'playing' && r.you && r.model.pos?.active?.has(r.you));
}

/** Whether the reader may ask to take its last move back now. */
export function canAskTakeback(r) {
  const s = r.state;
  if (!playing(r) || s.rated || s.takeback || !s.to_move || s.to_move === r.you) return false;
  const last = lastPly(r);
  return Boolean(last?.move && last.seat === r.you);
}

/** The takeback controls: the request while one is pending, else "Ask to take back". */
export function takebackParts(r) {
  const s = r.state;
  if (s?.status !== 'playing') return [];
  const tb = s.takeback;
  if (!tb) {
    return canAskTakeback(r) ? [button('small', 'ask-takeback', t('ctl.takeback.ask'), () => r.send({ type: 'offer_takeback' }))] : [];
  }
  const ctx = r.ctx();
  const active = r.model.pos?.active ?? new Set(SEATS);
  const accepted = (tb.accepted ?? []).map(seatOf);
  const awaited = SEATS.filter((x) => x !== tb.seat && active.has(x) && !accepted.includes(x) && !isBot(s.seats?.[x]));
  const names = (seats) => list(seats.map((x) => who(x, ctx)));
  let text = tb.seat === r.you ? t('ctl.takeback.yours') : t('ctl.takeback.asks', { who: who(tb.seat, ctx, { capital: true }) });
  if (awaited.length) text = sentences(text, t('ctl.takeback.waiting', { who: names(awaited) }));
  const agreed = accepted.filter((x) => !isBot(s.seats?.[x]));
  if (agreed.length) text = sentences(text, t('ctl.takeback.accepted', { who: names(agreed) }));
  const parts = [h('span', { class: 'hint request', 'data-testid': 'takeback-request', 'data-seat': tb.seat }, text)];
  if (playing(r) && tb.seat !== r.you && !accepted.includes(r.you)) {
    parts.push(button('small', 'accept-takeback', t('ctl.takeback.accept'), () => r.send({ type: 'accept_takeback' })),
      button('small', 'decline-takeback', t('ctl.takeback.decline'), () => r.send({ type: 'decline_takeback' })));
  }
  return parts;
}

/** Whether the reader may abort the game: still in it, in its first moves. */
export function canAbort(r) {
  const s = r.state;
  const plies = Math.max(s?.moves?.length ?? 0, r.model.history?.plies.length ?? 0);
  return playing(r) && plies < ABORT_PLIES;
}

/** "Abort game", then its confirmation. */
export function abortParts(r) {
  if (!canAbort(r)) {
    r.confirmAbort = false;
    return [];
  }
  if (!r.confirmAbort) {
    return [button('small abort', 'abort', t('ctl.abort.button'), () => { r.confirmAbort = true; r.focusNext = 'abort-confirm'; r.render(); })];
  }
  return [h('span', { class: 'hint', 'data-testid': 'abort-ask' }, t('ctl.abort.ask')),
    button('danger', 'abort-confirm', t('ctl.abort.yes'), () => { r.confirmAbort = false; r.send({ type: 'abort' }); r.render(); }),
    button('small', 'abort-cancel', t('ctl.abort.no'), () => { r.confirmAbort = false; r.render(); })];
}

/** A move was taken back: nothing chosen or queued on the board survives it. */
export function tookBack(r) {
  r.selected = null;
  r.premove = null;
  r.premoveSel = null;
  r.confirming = null;
  r.illumPreview = false;
  r.pendingAction = false;
}
