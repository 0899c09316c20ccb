// Actions in words, for screen readers and labels: "Middle, rook 7l to 7g" in the
// reader's language. The analysis board announces moves with it; the game page with
// `sayMove` ("Middle: silver from 8m to 9l, check").
import { parseAction } from './position.js';
import { t } from './i18n.js';

const PLAYER = { First: 'first', Middle: 'middle', Last: 'last' };

/** A seat key (`first`…) from a rules player (`First`) or a wire seat (`first`). */
export function seatOf(player) {
  return PLAYER[player] ?? player;
}

/** "Middle, rook 7l to 7g" in the reader's language. */
export function describeAction(player, text) {
  const seat = t(`seat.${seatOf(player)}`);
  const a = parseAction(text);
  if (!a) return t('analysis.say.other', { seat, action: text });
  if (a.type === 'drop') return t('analysis.say.drop', { seat, piece: t(`piece.${a.kind}`), to: a.to });
  if (a.type === 'illuminate') return t('analysis.say.illuminate', { seat });
  const piece = t(`piece.${a.promotedPiece ? '+' : ''}${a.kind}`);
  const key = a.capture ? 'analysis.say.capture' : 'analysis.say.move';
  return t(key, { seat, piece, from: a.from, to: a.to }) + (a.promote ? t('analysis.say.promotes') : '');
}

/** A move of the game page in words: "Middle: silver from 8m to 9l, check" (`check`:
 * whether it checks someone). */
export function sayMove(player, text, check = false) {
  const seat = t(`seat.${seatOf(player)}`);
  const a = parseAction(text);
  let words;
  if (!a) words = t('analysis.say.other', { seat, action: text });
  else if (a.type === 'drop') words = t('room.say.drop', { seat, piece: t(`piece.${a.kind}`), to: a.to });
  else if (a.type === 'illuminate') words = t('room.say.illuminate', { seat });
  else {
    const piece = t(`piece.${a.promotedPiece ? '+' : ''}${a.kind}`);
    words = t(a.capture ? 'room.say.capture' : 'room.say.move', { seat, piece, from: a.from, to: a.to });
    if (a.promote) words += t('room.say.promotes');
  }
  return check ? words + t('room.say.check') : words;
}
