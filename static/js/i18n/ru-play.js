// Russian messages of the aids to play on the game page — premove marks, drops, typed
// moves, moves read out — and the rating chart's dates (merged into `ru.js` by
// `i18n.js`). `{name}` marks a parameter of `t()`.
export default {
  'room.board.premove_target': 'сюда может пойти предход',
  'room.drop.none': 'Эту фигуру ({piece}) некуда сбросить.',
  'room.drop.none_check': 'Эту фигуру ({piece}) некуда сбросить: вам шах.',
  'room.typed.label': 'Ввести ход',
  'room.typed.placeholder': 'P3c-4d, S-9l, P*5e…',
  'room.typed.play': 'Сыграть',
  'room.typed.help': 'Ходы пишутся как в записи партии: фигура, откуда, - или x, куда (+ — превратить, = — не превращать); сброс — как P*5e.',
  'room.typed.empty': 'Сначала введите ход.',
  'room.typed.not_turn': 'Сейчас не ваш ход.',
  'room.typed.unknown': '«{text}» — не ход: пишите как P3c-4d, S-9l или P*5e.',
  'room.typed.illegal': 'Ход {text} здесь недопустим.',
  'room.typed.which': '{text} может означать {options}: уточните, какой.',
  'room.typed.promote': '{text}: добавьте +, чтобы превратить, или =, чтобы не превращать.',
  'room.say.move': '{seat}: {piece} с {from} на {to}',
  'room.say.capture': '{seat}: {piece} с {from} бьёт на {to}',
  'room.say.drop': '{seat}: сброс «{piece}» на {to}',
  'room.say.illuminate': '{seat}: король убивает светом',
  'room.say.promotes': ', с превращением',
  'room.say.check': ', шах',
  'prefs.announceMoves': 'Зачитывать ходы (экранный диктор)',
  'profile.chartPoint': '{date}: {rating}',
  'profile.chartStart': '{date}: {rating} до партии',
};
