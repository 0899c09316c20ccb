// 検討盤（全手番の指し手、変化の木とその棋譜、評価バー）と対局画面からのリンクの日本語
// メッセージ（`i18n.js` が `ja.js` に合わせる）。`{name}` は `t()` の引数。
export default {
  'analysis.introPlay': '手番の駒を動かすか、棋譜や局面文字列を貼り付けるか、局面を手で作ってください。前の局面から指すと変化になります。',
  'analysis.auto': '自動で検討',
  'analysis.busy': 'サーバーは別の局面を検討中です。少し待ってからもう一度どうぞ。',
  'analysis.rateLimited': 'このアドレスからのリクエストが多すぎます。{n}秒待ってからもう一度どうぞ。',
  'analysis.event.draw': '終局：引き分け',
  'analysis.bar.label': '評価：{text}',
  'analysis.play.drop': '打つ：{piece}',
  'analysis.play.busy': '指しています…',
  'analysis.tree.variation': '変化',
  'analysis.tree.empty': 'まだ指し手はありません。手番の駒を動かしてください。',
  'analysis.tree.errorLine': '変化：',
  'analysis.tree.copy': '棋譜をコピー',
  'analysis.tree.copied': '変化ごと棋譜をコピーしました。',
  'analysis.tree.inBox': '棋譜は下の欄にあります。そこからコピーしてください。',
  'analysis.tree.promote': '本譜にする',
  'analysis.tree.promoted': 'この手順が本譜になりました。',
  'analysis.tree.delete': 'ここから削除',
  'analysis.tree.deleted': '指し手を削除しました。',
  'analysis.tree.help': 'キー：← → 一手、↑ 初手へ、↓ 手順の最後へ。',
  'room.analysis.open': '検討盤で開く',

  'analysis.liveGame': 'この局面は対局中のゲームの盤面です。その対局が終わるとエンジンで検討できます。',
  'room.analysis.later': '検討は終局後に',
  'room.analysis.laterTitle': '人が指している対局の間はエンジンを使えません。検討盤とコンピューター解析は終局後に開きます。',
};
