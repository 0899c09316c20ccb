// English messages of the analysis board as a board to play on — moves for every side,
// the variation tree and its record, the evaluation bar — and the game page's link to
// it (merged into `en.js` by `i18n.js`). `{name}` marks a parameter of `t()`.
export default {
  'analysis.introPlay': 'Move the pieces of the player to move, paste a game record or a position string, or set up a position by hand. Moves from an earlier position start a variation.',
  'analysis.auto': 'Auto-analyse',
  'analysis.busy': 'The server is analysing another position: try again in a moment.',
  'analysis.rateLimited': 'Too many requests from your address: wait {n} s, then try again.',
  'analysis.event.draw': 'Game over: a draw',
  'analysis.bar.label': 'Evaluation: {text}',
  'analysis.play.drop': 'Drop: {piece}',
  'analysis.play.busy': 'Playing the move…',
  'analysis.tree.variation': 'Variation',
  'analysis.tree.empty': 'No moves yet: move a piece of the player to move.',
  'analysis.tree.errorLine': 'In the variation:',
  'analysis.tree.copy': 'Copy record',
  'analysis.tree.copied': 'Record copied, with its variations.',
  'analysis.tree.inBox': 'The record is in the box below: copy it from there.',
  'analysis.tree.promote': 'Promote to main line',
  'analysis.tree.promoted': 'This line is now the main line.',
  'analysis.tree.delete': 'Delete from here',
  'analysis.tree.deleted': 'Moves deleted.',
  'analysis.tree.help': 'Keys: ← → one move, ↑ the start, ↓ the end of the line.',
  'room.analysis.open': 'Open in analysis',

  'analysis.liveGame': 'This position is on the board of a game in play: the engine opens for it when that game ends.',
  'room.analysis.later': 'Analysis after the game',
  'room.analysis.laterTitle': 'No engine while people play this game: the analysis board and the computer review open when it ends.',
};
