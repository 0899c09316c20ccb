// Korean messages of the aids to play on the game page — premove marks, drops, typed
// moves, moves read out — and the rating chart's dates (merged into `ko.js` by
// `i18n.js`). `{name}` marks a parameter of `t()`.
export default {
  'room.board.premove_target': '예약수로 갈 수 있는 칸',
  'room.drop.none': '이 말({piece})을 놓을 수 있는 칸이 없습니다.',
  'room.drop.none_check': '이 말({piece})을 놓을 수 있는 칸이 없습니다: 장군을 받고 있습니다.',
  'room.typed.label': '수 입력',
  'room.typed.placeholder': '예: P3c-4d, P*5e',
  'room.typed.play': '두기',
  'room.typed.help': '기보와 같은 방식으로 씁니다: 말, 출발 칸, - 또는 x, 도착 칸(승격은 +, 승격하지 않으면 =). 놓는 수는 P*5e처럼.',
  'room.typed.empty': '먼저 수를 입력하세요.',
  'room.typed.not_turn': '지금은 내 차례가 아닙니다.',
  'room.typed.unknown': '“{text}”은(는) 수가 아닙니다: P3c-4d, S-9l, P*5e처럼 쓰세요.',
  'room.typed.illegal': '{text}은(는) 이 국면에서 둘 수 없습니다.',
  'room.typed.which': '{text}은(는) {options} 중 어느 것인지 모릅니다: 출발 칸을 쓰세요.',
  'room.typed.promote': '{text}: 승격하려면 +, 승격하지 않으려면 =를 붙이세요.',
  'room.say.move': '{seat}, {piece} {from}에서 {to}로',
  'room.say.capture': '{seat}, {piece} {from}에서 {to}의 말을 잡음',
  'room.say.drop': '{seat}, {piece}을(를) {to}에 놓음',
  'room.say.illuminate': '{seat}의 옥이 광살',
  'room.say.promotes': ', 승격',
  'room.say.check': ', 장군',
  'prefs.announceMoves': '수 읽어 주기(화면 낭독기)',
  'profile.chartPoint': '{date}: {rating}',
  'profile.chartStart': '{date}: 대국 전 {rating}',
};
