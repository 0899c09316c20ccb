// 분석 보드(어느 쪽이든 두는 수, 변화 트리와 그 기보, 평가 막대)와 대국 화면의 링크에
// 쓰이는 한국어 메시지(`i18n.js`가 `ko.js`에 합친다). `{name}`은 `t()`의 인자.
export default {
  'analysis.introPlay': '둘 차례인 쪽의 말을 움직이거나, 기보나 국면 문자열을 붙여 넣거나, 국면을 직접 배치하세요. 이전 국면에서 두면 변화가 시작됩니다.',
  'analysis.auto': '자동 분석',
  'analysis.busy': '서버가 다른 국면을 분석하고 있습니다. 잠시 후 다시 시도하세요.',
  'analysis.rateLimited': '이 주소에서 요청이 너무 많습니다. {n}초 기다린 뒤 다시 시도하세요.',
  'analysis.event.draw': '대국 종료: 무승부',
  'analysis.bar.label': '평가: {text}',
  'analysis.play.drop': '놓기: {piece}',
  'analysis.play.busy': '수를 두는 중…',
  'analysis.tree.variation': '변화',
  'analysis.tree.empty': '아직 수가 없습니다. 둘 차례인 쪽의 말을 움직이세요.',
  'analysis.tree.errorLine': '변화에서:',
  'analysis.tree.copy': '기보 복사',
  'analysis.tree.copied': '변화까지 포함해 기보를 복사했습니다.',
  'analysis.tree.inBox': '기보는 아래 칸에 있습니다. 거기서 복사하세요.',
  'analysis.tree.promote': '본선으로 올리기',
  'analysis.tree.promoted': '이 수순이 이제 본선입니다.',
  'analysis.tree.delete': '여기부터 삭제',
  'analysis.tree.deleted': '수를 삭제했습니다.',
  'analysis.tree.help': '키: ← → 한 수, ↑ 처음, ↓ 수순의 끝.',
  'room.analysis.open': '분석 보드에서 열기',

  'analysis.liveGame': '이 국면은 진행 중인 대국의 판입니다. 그 대국이 끝나면 엔진으로 분석할 수 있습니다.',
  'room.analysis.later': '분석은 대국 후에',
  'room.analysis.laterTitle': '사람이 두는 대국 중에는 엔진을 쓸 수 없습니다. 분석 보드와 컴퓨터 분석은 대국이 끝나면 열립니다.',
};
