// The analysis board's variation tree: a start position and the moves played from it,
// each node a ply with its answers from the server (player, canonical action, events,
// position after it). A node's first child continues its line (the main line is the
// chain of first children from the root); the others are variations. The tree is
// written as a game record (RULES §13.2) with each variation in parentheses after the
// move it replaces — `1. P3c-4d P10k-10j (P9l-9k P11g-10g) P11g-10g` — and read back
// from one; the server's record reader knows no parentheses, so every line is sent to
// it on its own. Endings that are not moves are written as `First:resign`,
// `Middle:timeout`, `Last:abandon` and `draw`. Pure: runs in node.

export const ENDINGS = new Set(['resign', 'timeout', 'abandon', 'draw']);
const SEATS = ['first', 'middle', 'last'];

let nextId = 1;

/** A node: `action` is the canonical action (or the text read, before the server has
 * answered), `legal` the server's legal actions after it (undefined until asked). */
export function makeNode(parent, fields = {}) {
  return { id: nextId++, parent, children: [], action: null, player: null, position: null, events: [], ...fields };
}

/** An empty tree from the position string `start`. */
export function newTree(start) {
  return { start, root: makeNode(null, { position: start }) };
}

/** The child of `parent` playing `action`, made (as the last variation) if missing. */
export function childFor(parent, action, fields = {}) {
  let child = parent.children.find((c) => c.action === action);
  if (!child) {
    child = makeNode(parent, { action });
    parent.children.push(child);
  }
  Object.assign(child, fields);
  return child;
}

/** The nodes from the root's child down to `node` (empty for the root). */
export function pathTo(node) {
  const out = [];
  for (let n = node; n?.parent; n = n.parent) out.push(n);
  return out.reverse();
}

/** The line through `node`: its path, then on through first children to the end. */
export function lineThrough(node) {
  const out = pathTo(node);
  for (let n = node.children[0]; n; n = n.children[0]) out.push(n);
  return out;
}

/** The last node of the line through `node`. */
export function endOf(node) {
  let n = node;
  while (n.children[0]) n = n.children[0];
  return n;
}

/** Is `node` on the main line (every node above it a first child)? */
export function isMain(node) {
  for (let n = node; n?.parent; n = n.parent) if (n.parent.children[0] !== n) return false;
  return true;
}

/** Makes the line through `node` the main line: each node of its path becomes the first
 * child of its parent. */
export function promote(node) {
  for (let n = node; n?.parent; n = n.parent) {
    const kids = n.parent.children;
    kids.splice(kids.indexOf(n), 1);
    kids.unshift(n);
  }
}

/** Takes `node` and everything after it out of the tree; returns its parent. */
export function remove(node) {
  const parent = node.parent;
  if (!parent) return node;
  parent.children.splice(parent.children.indexOf(node), 1);
  return parent;
}

/** The token a node is written as: its action, or the ending's `First:resign`/`draw`. */
export function recordToken(node) {
  if (!ENDINGS.has(node.action)) return node.action;
  if (node.action === 'draw' || !node.player) return node.action;
  const p = String(node.player);
  return `${p[0].toUpperCase()}${p.slice(1).toLowerCase()}:${node.action}`;
}

/** The tokens of the path down to `node`, as a plain record for the server. */
export function lineRecord(node) {
  return pathTo(node).map(recordToken).join(' ');
}

function seatIndex(player) {
  return SEATS.indexOf(String(player ?? '').toLowerCase());
}

/** Writes the tree as a record: round numbers on the main line (a round starts when the
 * seat to move does not come after the previous one), variations in parentheses after
 * the move they replace. `headers`: [key, value] pairs written first. */
export function writeRecord(tree, headers = []) {
  const out = [];
  let lastSeat = Infinity;
  let round = 0;
  const line = (first, main) => {
    for (let n = first; n; n = n.children[0]) {
      if (main && !ENDINGS.has(n.action)) {
        const s = seatIndex(n.player);
        if (s <= lastSeat || s < 0) out.push(`${++round}.`);
        lastSeat = s;
      }
      out.push(recordToken(n));
      if (n.parent.children[0] === n) {
        for (const alt of n.parent.children.slice(1)) {
          out.push('(');
          line(alt, false);
          out.push(')');
        }
      }
    }
  };
  if (tree.root.children[0]) line(tree.root.children[0], true);
  const text = out.join(' ').replaceAll('( ', '(').replaceAll(' )', ')');
  const head = headers.map(([k, v]) => `[${k} "${String(v).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"]`).join('\n');
  return head ? `${head}\n\n${text}` : text;
}

/**
 * Reads a record with variations. Returns { header: the header lines (text, for the
 * server: a `Position` header among them), tree: a tree whose nodes hold the tokens as
 * read (no positions yet) }. Throws an Error on unbalanced parentheses.
 */
export function parseRecord(text) {
  const lines = String(text ?? '').split('\n');
  const head = [];
  let i = 0;
  while (i < lines.length && (/^\s*\[.*\]\s*$/.test(lines[i]) || (!lines[i].trim() && !head.length))) {
    if (lines[i].trim()) head.push(lines[i].trim());
    i++;
  }
  const body = lines.slice(i).join('\n');
  const tree = newTree(null);
  let cur = tree.root;
  let prev = null; // the node before the last move: a variation starts there
  const stack = [];
  const token = /\{[^}]*\}?|\(|\)|\d+\.+|[^\s(){}]+/g;
  for (const [tok] of body.matchAll(token)) {
    if (tok.startsWith('{') || /^\d+\.+$/.test(tok)) continue;
    if (tok === '(') {
      if (!prev) throw new Error('a variation before any move');
      stack.push([cur, prev]);
      cur = prev;
      prev = null;
    } else if (tok === ')') {
      if (!stack.length) throw new Error('")" without "("');
      [cur, prev] = stack.pop();
    } else {
      prev = cur;
      cur = childFor(cur, tok);
    }
  }
  if (stack.length) throw new Error('"(" without ")"');
  return { header: head.join('\n'), tree };
}

/** The last node of every line, the main line's first. */
export function leaves(tree) {
  const out = [];
  const walk = (n) => {
    if (!n.children.length) { out.push(n); return; }
    for (const c of n.children) walk(c);
  };
  walk(tree.root);
  return out;
}

/** Writes the server's answer for the line ending at `leaf` (`plies` in path order)
 * into the nodes of that line. */
export function applyPlies(leaf, plies) {
  const path = pathTo(leaf);
  path.forEach((n, i) => {
    const p = plies[i];
    if (!p) return;
    n.action = p.action;
    n.player = p.player;
    n.position = p.position;
    n.events = p.events ?? [];
  });
}

/** Two children with the same action (a short form and its canonical form, read from
 * one record) become one, their continuations merged. */
export function mergeSame(node) {
  const kept = [];
  for (const c of node.children) {
    const same = kept.find((k) => k.action === c.action);
    if (!same) { kept.push(c); continue; }
    for (const g of c.children) { g.parent = same; same.children.push(g); }
  }
  node.children = kept;
  for (const c of kept) mergeSame(c);
}

/** Adds every line of `from` to `into` (same start); returns the node of `into` for
 * each node of `from` (a Map). */
export function mergeInto(into, from) {
  const map = new Map([[from.root, into.root]]);
  const walk = (src) => {
    for (const c of src.children) {
      const { action, player, position, events } = c;
      map.set(c, childFor(map.get(src), action, { player, position, events }));
      walk(c);
    }
  };
  walk(from.root);
  return map;
}

/** A plain object for storage (no parents, no legal lists). */
export function toJSON(tree, current) {
  const node = (n) => [n.action, n.player, n.position, n.events?.length ? n.events : 0, n.children.map(node)];
  const at = pathTo(current).map((n) => n.parent.children.indexOf(n));
  return { v: 1, start: tree.start, root: node(tree.root), at };
}

/** The tree (and current node) from `toJSON`'s object; null when it does not read. */
export function fromJSON(obj) {
  if (obj?.v !== 1 || !Array.isArray(obj.root)) return null;
  const tree = newTree(obj.start);
  const fill = (n, [action, player, position, events, kids]) => {
    Object.assign(n, { action, player, position, events: events || [] });
    for (const k of kids ?? []) fill(childFor(n, k[0]), k);
  };
  fill(tree.root, obj.root);
  tree.root.action = null;
  let current = tree.root;
  for (const i of obj.at ?? []) current = current.children[i] ?? current;
  return { tree, current };
}
