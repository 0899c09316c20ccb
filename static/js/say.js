// Actions in words, for screen readers and labels: "Middle, rook 7l to 7g" in the
// reader's language. The analysis board and the game page both announce moves with it.
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
