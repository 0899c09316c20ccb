// 分析棋盘（为任何一方走棋、变化树及其棋谱、评估条）以及对局页面到它的链接的中文
// 消息（由 `i18n.js` 并入 `zh.js`）。`{name}` 是 `t()` 的参数。
export default {
  'analysis.introPlay': '走轮到的一方的棋子，粘贴棋谱或局面字符串，或者手动摆出局面。从之前的局面走棋会开始一个变化。',
  'analysis.auto': '自动分析',
  'analysis.busy': '服务器正在分析另一个局面，请稍后再试。',
  'analysis.rateLimited': '来自你的地址的请求过多：请等待 {n} 秒后再试。',
  'analysis.event.draw': '对局结束：和棋',
  'analysis.bar.label': '评估：{text}',
  'analysis.play.drop': '打入：{piece}',
  'analysis.play.busy': '正在走棋…',
  'analysis.tree.variation': '变化',
  'analysis.tree.empty': '还没有着法：请走轮到的一方的棋子。',
  'analysis.tree.errorLine': '在变化中：',
  'analysis.tree.copy': '复制棋谱',
  'analysis.tree.copied': '棋谱已连同变化一起复制。',
  'analysis.tree.inBox': '棋谱在下面的框里：请从那里复制。',
  'analysis.tree.promote': '设为主线',
  'analysis.tree.promoted': '这条线现在是主线。',
  'analysis.tree.delete': '从这里删除',
  'analysis.tree.deleted': '着法已删除。',
  'analysis.tree.help': '按键：← → 一步，↑ 开局，↓ 这条线的末尾。',
  'room.analysis.open': '在分析棋盘中打开',

  'analysis.liveGame': '这个局面是一盘正在进行的对局的棋盘：对局结束后才能用引擎分析。',
  'room.analysis.later': '终局后可分析',
  'room.analysis.laterTitle': '有人在下这盘棋时不能用引擎：分析棋盘和电脑复盘在对局结束后开放。',
};
