// Premoves: while the others move, a player may queue one move (from a cell or from its
// hand, to a cell). The client knows no rules: the queued move is only a wish, checked
// against the server's `legal` list when the turn comes, and dropped if it is not there.
// Pure: runs in node.

/** A premove: `{ from: cell, to }` or `{ hand: kind, to }`. */

/**
 * The action to send for `premove` given the index of `legal` (position.js
 * `indexLegal`), or null when it is no longer legal. When both promoting and not
 * promoting are legal the premove promotes (the usual choice; premoves are for speed).
 */
export function premoveAction(premove, legal) {
  if (!premove || !legal) return null;
  if (premove.hand) return legal.drops.get(premove.hand)?.get(premove.to)?.text ?? null;
  const actions = legal.moves.get(premove.from)?.get(premove.to);
  if (!actions?.length) return null;
  return (actions.find((a) => a.promote) ?? actions[0]).text;
}

/** The cells a premove marks on the board. */
export function premoveCells(premove) {
  if (!premove) return [];
  return premove.from ? [premove.from, premove.to] : [premove.to];
}
