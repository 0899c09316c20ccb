// English messages of the aids to play on the game page — premove marks, drops, typed
// moves, moves read out — and the rating chart's dates (merged into `en.js` by
// `i18n.js`). `{name}` marks a parameter of `t()`.
export default {
  'room.board.premove_target': 'a premove may go here',
  'room.drop.none': 'No legal drop for this piece ({piece}).',
  'room.drop.none_check': 'No legal drop for this piece ({piece}): you are in check.',
  'room.typed.label': 'Type a move',
  'room.typed.placeholder': 'P3c-4d, S-9l, P*5e…',
  'room.typed.play': 'Play',
  'room.typed.help': 'Moves are written as in the game record: piece, from, - or x, to (+ to promote, = not to); a drop as P*5e.',
  'room.typed.empty': 'Type a move first.',
  'room.typed.not_turn': 'It is not your move.',
  'room.typed.unknown': '“{text}” is not a move: write it like P3c-4d, S-9l or P*5e.',
  'room.typed.illegal': '{text} is not a legal move here.',
  'room.typed.which': '{text} could be {options}: say which.',
  'room.typed.promote': '{text}: add + to promote or = not to.',
  'room.say.move': '{seat}: {piece} from {from} to {to}',
  'room.say.capture': '{seat}: {piece} from {from} takes on {to}',
  'room.say.drop': '{seat}: {piece} dropped on {to}',
  'room.say.illuminate': '{seat}: the king kills by light',
  'room.say.promotes': ', promotes',
  'room.say.check': ', check',
  'prefs.announceMoves': 'Announce moves (screen readers)',
  'profile.chartPoint': '{date}: {rating}',
  'profile.chartStart': '{date}: {rating} before the game',
};
