// The analysis board: a board to play on for every side, its moves kept as a tree of
// variations (analysis/tree.js). A pasted record or position, a game of the site
// (`?room=<id>&ply=<n>`, from `GET /api/rooms/{id}/history`) or the start position
// opens it; each move is played out by the server (`POST /api/replay`, which also
// gives the legal actions after it); the tree is kept in localStorage for its start
// position (or game) and copied as a record with variations in parentheses. The
// position editor sets up a position by hand. **Analyse** asks the server's search
// (`POST /api/analyse`): an evaluation bar for the three players and the best line's
// first moves as arrows on the board (analysis/evalbar.js). A finished game of the site
// has its computer review beside it (analysis/review-panel.js). The engine is refused
// the position on the board of a game being played (`live_game`): the page says so.
import { h } from './dom.js';
import { SEATS } from './geometry.js';
import { START_POSITION, indexLegal, parseAction, parsePosition } from './position.js';
import { Board, boardHasArrows } from './board.js';
import { onLangChange, t } from './i18n.js';
import { onPrefChange } from './prefs.js';
import { announce } from './site.js';
import { describeAction, seatOf } from './say.js';
import { PositionEditor, writePosition } from './editor.js';
import { analysePosition, replay, roomHistory } from './analysis/api.js';
import {
  ENDINGS, applyPlies, childFor, endOf, fromJSON, isMain, leaves, lineRecord, lineThrough,
  mergeInto, mergeSame, newTree, parseRecord, pathTo, promote, remove, toJSON, writeRecord,
} from './analysis/tree.js';
import { describeEvent, moveList, sayNode } from './analysis/movelist.js';
import { drawArrows, evalBar, showScore } from './analysis/evalbar.js';
import * as play from './analysis/play.js';
import { reviewPanel, showBoard } from './analysis/review-panel.js';

export { replay, analysePosition };

const STORE = 'sannin.analysis.';

/** A refusal in words: the request budget spent says so plainly, with the wait. */
function refusal(e) {
  if (e.code === 'rate_limited') return t('analysis.rateLimited', { n: e.retryAfter ?? 60 });
  if (e.code === 'analysis_busy') return t('analysis.busy');
  if (e.code === 'live_game') return t('analysis.liveGame');
  return e.message;
}

export function showAnalysis(app) {
  const params = new URLSearchParams(location.search);
  const st = {
    record: params.get('record') ?? '',
    startText: params.get('position') ?? '',
    room: params.get('room'),
    tree: null,
    current: null,
    key: null, // where the tree is kept: `room:<id>` or its start position
    error: null, // the last import's failure
    notice: null, // a refusal of a move's request (the budget, the network)
    // The side the board is seen from: a player's own (`?seat=`, the review's link), else Middle's.
    view: SEATS.includes(params.get('seat')) ? params.get('seat') : 'middle',
    mode: 'replay', // or 'edit'
    edit: null,
    editCheck: null,
    analysis: null, // { text, busy, result?, error? } for the position string `text`
    auto: false,
    again: false,
    busy: false,
    selected: null,
    review: null, // the computer review of a finished game of the site (analysis/review-panel.js)
  };
  let board = null;
  let editor = null;
  const els = {};
  const asking = new Map(); // line record → the request for its legal actions

  // ---- the tree and its storage --------------------------------------------------------

  function save() {
    if (!st.tree || !st.key) return;
    try { localStorage.setItem(STORE + st.key, JSON.stringify(toJSON(st.tree, st.current))); } catch { /* not kept */ }
  }

  function restore(key) {
    try { return fromJSON(JSON.parse(localStorage.getItem(STORE + key))); } catch { return null; }
  }

  /** Shows `tree` at `current`; with `key`, merged into the tree kept there (the new
   * tree's main line becoming the main line). */
  function setTree(tree, current, key, merge) {
    const kept = merge ? restore(key) : null;
    if (kept && kept.tree.start === tree.start) {
      const map = mergeInto(kept.tree, tree);
      const mainEnd = map.get(endOf(tree.root));
      for (const [from, to] of map) if (from.legal !== undefined) to.legal = from.legal;
      if (mainEnd) promote(mainEnd);
      st.tree = kept.tree;
      st.current = map.get(current) ?? kept.tree.root;
    } else {
      st.tree = tree;
      st.current = current;
    }
    st.key = key;
    st.selected = null;
    st.tip = null;
    save();
  }

  const keyFor = (start) => (st.room ? `room:${st.room}` : start);

  /** The record in the box (variations in parentheses): each line played out by the
   * server on its own, the main line first (its headers and start position with it). */
  async function importRecord(merge) {
    const { header, tree } = parseRecord(st.record);
    let start = null;
    const lines = leaves(tree);
    for (const [i, leaf] of lines.entries()) {
      const body = i === 0 ? [header, lineRecord(leaf)].filter(Boolean).join('\n\n') : lineRecord(leaf);
      const position = i === 0 ? st.startText.trim() || undefined : start;
      let answer;
      try {
        answer = await replay(body, position);
      } catch (e) {
        if (i > 0) e.line = lineRecord(leaf);
        throw e;
      }
      if (i === 0) start = answer.start;
      applyPlies(leaf, answer.plies);
      leaf.legal = answer.legal ?? [];
    }
    tree.start = start;
    tree.root.position = start;
    mergeSame(tree.root);
    setTree(tree, endOf(tree.root), merge ? keyFor(start) : start, merge);
  }

  /** A game of the site as the main line, at ply `ply` (the end when absent). */
  async function openRoom(id, ply) {
    const game = await roomHistory(id);
    const tree = newTree(game.start);
    let node = tree.root;
    for (const p of game.plies) node = childFor(node, p.action, { player: p.player, position: p.position, events: p.events ?? [] });
    node.legal = game.legal ?? [];
    const line = pathTo(node);
    const n = ply === null || ply === '' || Number.isNaN(Number(ply)) ? line.length : Math.max(0, Math.min(line.length, Number(ply)));
    setTree(tree, n ? line[n - 1] : tree.root, `room:${id}`, true);
    if (!game.legal?.length) startReview(id, game.plies);
  }

  /** The computer review of the finished game of room `id`: its plies are the game's
   * line of the tree (whichever line is the main one now). */
  function startReview(id, plies) {
    st.review?.stop();
    const gameNode = (k) => {
      let node = st.tree.root;
      for (let i = 0; i < k && node; i++) node = node.children.find((c) => c.action === plies[i]?.action);
      return node ?? null;
    };
    st.review = reviewPanel({
      room: id, seat: params.get('seat'), auto: params.get('review') === '1',
      gameNode, plyOf: (node) => { const k = pathTo(node).length; return gameNode(k) === node ? k : -1; },
      current: () => st.current, go, refresh: update, setView: (seat) => { st.view = seat; build(); },
      remove: (node) => { remove(node); st.tip = null; save(); },
      showBoard: (also) => showBoard(els.boardTop, els.boardLine, also),
    });
  }

  /** The start position (or `?position=`): the tree kept for it, else an empty one. */
  async function openStart() {
    const answer = await replay('', st.startText.trim() || undefined);
    const tree = newTree(answer.start);
    tree.root.legal = answer.legal ?? [];
    const kept = restore(answer.start);
    if (kept && kept.tree.start === answer.start) {
      setTree(kept.tree, kept.current, answer.start, false);
      if (st.current === st.tree.root) st.tree.root.legal = tree.root.legal;
    } else {
      setTree(tree, tree.root, answer.start, false);
    }
  }

  async function run(task) {
    st.error = null;
    if (els.loadButton) els.loadButton.disabled = true;
    try {
      await task();
    } catch (e) {
      st.error = e;
    } finally {
      if (els.loadButton) els.loadButton.disabled = false;
    }
    build();
    if (st.error) els.errorBox.focus();
    else { reveal(); afterMove(); }
  }

  /** The record box shown: a fresh tree (kept for its start from now on). */
  function load() {
    st.room = null;
    st.review?.stop();
    st.review = null;
    st.mode = 'replay';
    return run(async () => {
      await importRecord(false);
      const url = st.tree.start === START_POSITION ? '/analysis' : `/analysis?position=${encodeURIComponent(st.tree.start)}`;
      history.replaceState(null, '', url);
    });
  }

  // ---- moves -----------------------------------------------------------------------------

  /** Asks the server for the legal actions after `node` (once per line). */
  function ensureLegal(node) {
    if (!node || node.legal !== undefined || !st.tree) return;
    const record = lineRecord(node);
    if (asking.has(record)) return;
    asking.set(record, replay(record, st.tree.start).then((answer) => {
      applyPlies(node, answer.plies);
      node.legal = answer.legal ?? [];
      if (node === st.current) update();
    }, (e) => {
      st.notice = refusal(e);
      update();
    }).finally(() => asking.delete(record)));
  }

  /** Plays `action` from the position shown: the line goes on, or a variation starts. */
  async function playAction(action) {
    const node = st.current;
    const had = node.children.find((c) => c.action === action);
    if (had) { go(had); st.review?.played(node, had, false); return; }
    st.busy = true;
    st.selected = null;
    try {
      const record = [lineRecord(node), action].filter(Boolean).join(' ');
      const answer = await replay(record, st.tree.start);
      const ply = answer.plies.at(-1);
      const child = childFor(node, ply.action, { player: ply.player, position: ply.position, events: ply.events ?? [] });
      child.legal = answer.legal ?? [];
      st.notice = null;
      st.busy = false;
      go(child);
      st.review?.played(node, child, true);
    } catch (e) {
      st.busy = false;
      st.notice = refusal(e);
      update();
    }
  }

  const page = {
    get selected() { return st.selected; },
    set selected(v) { st.selected = v; },
    legal: () => indexLegal(st.mode === 'replay' && !st.busy ? st.current?.legal ?? [] : []),
    play: (action) => playAction(action),
    render: () => update(),
    promoDialog: null,
    toMove: () => { try { return parsePosition(currentPositionText()).toMove; } catch { return null; } },
  };

  /** The end of the line being walked: kept while the node shown is on its path (so
   * that ↑ then ↓ come back to it), else the end of the line through that node. */
  function tip() {
    let on = false;
    let n = st.tip;
    for (; n?.parent; n = n.parent) if (n === st.current) on = true;
    if (!st.tip || n !== st.tree.root || !(on || st.current === st.tree.root)) st.tip = endOf(st.current);
    return st.tip;
  }

  /** The next node toward the end of the line being walked. */
  function nextNode() {
    let n = tip();
    while (n && n.parent !== st.current) n = n.parent;
    return n ?? st.current;
  }

  function go(node) {
    if (!node || !st.tree) return;
    const moved = node !== st.current;
    st.current = node;
    tip();
    st.selected = null;
    save();
    if (!moved) { update(); return; }
    update();
    reveal();
    const n = pathTo(node).length;
    if (n > 0) {
      const extra = (node.events ?? []).map(describeEvent).filter(Boolean);
      announce([`${t('analysis.plyN', { n })}: ${sayNode(node)}`, ...extra].join('. '));
    } else {
      announce(t('analysis.atStart'));
    }
    afterMove();
  }

  /** Scrolls the move list (never the page) to the move shown. */
  function reveal() {
    const box = els.moves;
    const b = box?.querySelector('[aria-current="step"]');
    if (!b) return;
    const top = b.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
    if (top < box.scrollTop) box.scrollTop = Math.max(0, top - 4);
    else if (top + b.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top + b.offsetHeight - box.clientHeight + 4;
  }

  function afterMove() {
    ensureLegal(st.current);
    if (st.auto) analyse();
  }

  // ---- analysis --------------------------------------------------------------------------

  function currentPositionText() {
    if (st.mode === 'edit') return writePosition(st.edit);
    return st.current?.position ?? st.tree?.start ?? (st.startText.trim() || START_POSITION);
  }

  /** The search on the position shown: from the start and the moves (they carry the
   * repetition history), or from the position after the last ending (not a move). */
  function analyseBody() {
    if (st.mode !== 'replay' || !st.tree) return { position: currentPositionText() };
    const path = pathTo(st.current);
    const k = path.findLastIndex((n) => ENDINGS.has(n.action));
    return k < 0
      ? { position: st.tree.start, moves: path.map((n) => n.action) }
      : { position: path[k].position, moves: path.slice(k + 1).map((n) => n.action) };
  }

  async function analyse() {
    const text = currentPositionText();
    let pos = null;
    try { pos = parsePosition(text); } catch { pos = null; }
    if (!pos?.toMove) return;
    if (st.analysis?.text === text && !st.analysis.error) return;
    if (st.analysis?.busy) { st.again = true; return; }
    st.analysis = { text, busy: true };
    update();
    try {
      const result = await analysePosition({ ...analyseBody(), movetime_ms: 1000 });
      if (st.analysis?.text === text) st.analysis = { text, result };
    } catch (e) {
      if (e.code === 'rate_limited') st.auto = false;
      if (st.analysis?.text === text) st.analysis = { text, error: refusal(e), code: e.code ?? null };
      else st.analysis = null;
    }
    if (st.analysis?.text !== text && !st.analysis?.result) st.analysis = null;
    update();
    const r = st.analysis?.result;
    if (r) announce(t('analysis.best', { seat: t(`seat.${seatOf(r.player)}`), action: describeAction(r.player, r.best) }));
    if (st.again) {
      st.again = false;
      if (st.auto) analyse();
    }
  }

  function analysisView(text) {
    const a = st.analysis?.text === text ? st.analysis : null;
    if (!a || a.busy) return a?.busy ? h('p', {}, t('analysis.analysing')) : '';
    // A position of a game being played: no engine until that game is over, said as
    // it is (no failure of the page's).
    if (a.code === 'live_game') return h('p', { class: 'notice live-game', 'data-testid': 'analyse-live-game' }, a.error);
    if (a.error) return h('p', { class: 'error', 'data-testid': 'analyse-error' }, t('analysis.analyseFailed', { reason: a.error }));
    const r = a.result;
    const seat = (p) => t(`seat.${seatOf(p)}`);
    const mate = r.mate == null ? null
      : h('p', { 'data-testid': 'analyse-mate' }, t(r.mate > 0 ? 'analysis.mateWin' : 'analysis.mateLoss', { seat: seat(r.player), n: Math.abs(r.mate) }));
    return h('div', { class: 'analyse-result' },
      h('p', { 'data-testid': 'analyse-best' }, t('analysis.best', { seat: seat(r.player), action: '' }), h('b', {}, h('code', {}, r.best))),
      mate,
      h('p', { 'data-testid': 'analyse-line' }, t('analysis.line'), ' ', h('code', {}, r.line.join(' '))),
      h('p', { 'data-testid': 'analyse-evals' }, t('analysis.evaluations'), ' ',
        SEATS.map((s, i) => {
          const name = s[0].toUpperCase() + s.slice(1);
          return h('span', { class: `seat-${s}` }, i ? ' · ' : '', h('b', {}, t(`seat.${s}`)), ` ${showScore(r.evaluations[name])}`);
        })),
      h('p', { class: 'small' }, t('analysis.depth', { depth: r.depth, nodes: r.nodes })));
  }

  // ---- the editor ------------------------------------------------------------------------

  function startEditing(fromText) {
    let pos;
    try { pos = parsePosition(fromText ?? currentPositionText() ?? START_POSITION); } catch { pos = parsePosition(START_POSITION); }
    if (!pos.toMove) pos.toMove = 'first';
    st.edit = pos;
    st.mode = 'edit';
    st.editCheck = null;
    editor = new PositionEditor(st.edit, { onChange: () => { st.editCheck = null; update(); } });
    build();
  }

  async function checkEdited() {
    const text = writePosition(st.edit);
    try {
      await replay('', text);
      st.editCheck = { ok: true, text };
      try { await navigator.clipboard?.writeText(text); st.editCheck.copied = true; } catch { /* shown in the field */ }
    } catch (e) {
      st.editCheck = { ok: false, message: e.message, text };
    }
    update();
  }

  // ---- drawing ---------------------------------------------------------------------------

  function lastCells(node) {
    const cells = new Set();
    for (let n = node; n?.parent; n = n.parent) {
      if (ENDINGS.has(n.action)) continue;
      const a = parseAction(n.action);
      if (a?.from) cells.add(a.from);
      if (a?.to) cells.add(a.to);
      break;
    }
    return cells;
  }

  function renderBoard(pos, text) {
    const live = st.mode === 'replay' && st.tree;
    const legal = page.legal();
    const checks = new Set();
    const checked = new Set((st.current?.events ?? []).filter((e) => e.type === 'check').map((e) => seatOf(e.player)));
    for (const [cell, p] of pos?.board ?? []) if (p.kind === 'K' && checked.has(p.owner)) checks.add(cell);
    board.render({
      board: pos?.board ?? new Map(),
      selected: st.selected?.cell ?? null,
      sources: new Set(live ? legal.moves.keys() : []),
      targets: live ? play.targets(page) : new Map(),
      last: live ? lastCells(st.current) : new Set(),
      checks,
    });
    const r = st.analysis?.text === text ? st.analysis.result : null;
    drawArrows(board, r ? { line: r.line, player: seatOf(r.player), active: pos?.active } : (st.review?.arrow(st.current) ?? {}));
  }

  function renderStepper(pos) {
    const line = lineThrough(tip());
    const n = pathTo(st.current).length;
    els.where.textContent = t('analysis.where', { n, of: line.length });
    for (const b of [els.first, els.prev]) b.disabled = n === 0;
    for (const b of [els.next, els.last]) b.disabled = !st.current.children.length;
    const node = st.current;
    const events = (node.events ?? []).map(describeEvent).filter(Boolean);
    // A move that ended the game says so with its winners: "Game over" once.
    const told = (node.events ?? []).some((e) => e?.type === 'game_over');
    els.status.textContent = [
      node.parent ? sayNode(node) : t('analysis.atStart'),
      ...events,
      pos?.toMove ? t('analysis.toMove', { seat: t(`seat.${pos.toMove}`) }) : told ? null : t('analysis.over'),
    ].filter(Boolean).join(' · ');
    els.moves.replaceChildren(moveList(st.tree, st.current, go));
    st.review?.decorate(els.moves);
    const branch = Boolean(st.current.parent);
    els.promote.hidden = !branch || isMain(st.current);
    els.remove.hidden = !branch;
    els.illuminate.hidden = !page.legal().illuminate;
    els.busyNote.hidden = !st.busy;
    els.notice.hidden = !st.notice;
    els.notice.textContent = st.notice ?? '';
  }

  function update() {
    const text = currentPositionText();
    let pos = null;
    try { pos = text ? parsePosition(text) : null; } catch { pos = null; }
    renderBoard(pos, text);
    if (st.mode === 'replay' && st.tree) renderStepper(pos);
    else els.status.textContent = st.mode === 'edit' ? t('analysis.editing') : '';
    els.hands.replaceChildren(play.handsView(page, pos));
    els.positionOut.value = text ?? '';
    if (els.analyseBox) {
      els.analyseButton.disabled = !pos?.toMove || Boolean(st.analysis?.busy);
      els.auto.checked = st.auto; // off again once the budget of analyses is spent
      els.analyseBox.replaceChildren(analysisView(text));
      const r = st.analysis?.text === text ? st.analysis.result : null;
      els.bar.replaceChildren(r ? evalBar(r) : '');
      els.bar.hidden = !r;
    }
    st.review?.update();
    renderErrors();
  }

  function renderErrors() {
    if (st.error) {
      const e = st.error;
      els.errorBox.hidden = false;
      // Through `h`: a part left out (null) is dropped, never written as "null".
      els.errorBox.replaceChildren(...h('div', {},
        h('h2', {}, t('analysis.errorTitle')),
        e.line ? h('p', { 'data-testid': 'error-line' }, t('analysis.tree.errorLine'), ' ', h('code', {}, e.line)) : null,
        e.ply ? h('p', { 'data-testid': 'error-ply' }, t('analysis.errorPly', { n: e.ply })) : null,
        e.token ? h('p', { 'data-testid': 'error-token' }, t('analysis.errorToken'), ' ', h('code', {}, e.token)) : null,
        h('p', { 'data-testid': 'error-reason' }, t('analysis.errorReason'), ' ', refusal(e))).childNodes);
    } else {
      els.errorBox.hidden = true;
      els.errorBox.replaceChildren();
    }
    if (els.editCheck) {
      const c = st.editCheck;
      els.editCheck.replaceChildren(!c ? '' : c.ok
        ? h('span', { class: 'ok', 'data-testid': 'edit-ok' }, c.copied ? t('editor.validCopied') : t('editor.valid'))
        : h('span', { class: 'error', 'data-testid': 'edit-error' }, t('editor.invalid', { reason: c.message })));
    }
  }

  async function copyRecord() {
    const headers = st.tree.start === START_POSITION ? [] : [['Position', st.tree.start]];
    const text = writeRecord(st.tree, headers);
    st.record = text;
    els.recordArea.value = text;
    try {
      await navigator.clipboard.writeText(text);
      announce(t('analysis.tree.copied'));
    } catch {
      announce(t('analysis.tree.inBox'));
    }
  }

  const icon = (d) => {
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', '0 0 16 16');
    svg.setAttribute('class', 'icon');
    svg.setAttribute('aria-hidden', 'true');
    const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    path.setAttribute('d', d);
    svg.append(path);
    return svg;
  };

  function treePanel() {
    // Icons drawn as SVG: media-control characters are missing from many fonts.
    const stepButton = (key, d, onclick) => h('button', { type: 'button', 'data-testid': `step-${key}`, 'aria-label': t(`analysis.${key}`), title: t(`analysis.${key}`), onclick }, icon(d));
    els.first = stepButton('first', 'M3 2h2v12H3zM14 2v12L6 8z', () => go(st.tree.root));
    els.prev = stepButton('prev', 'M12 2v12L4 8z', () => go(st.current.parent ?? st.current));
    els.next = stepButton('next', 'M4 2v12l8-6z', () => go(nextNode()));
    els.last = stepButton('last', 'M11 2h2v12h-2zM2 2v12l8-6z', () => go(endOf(tip())));
    els.where = h('span', { class: 'where', 'data-testid': 'where' });
    els.moves = h('div', { class: 'moves-box' });
    els.promote = h('button', {
      type: 'button', class: 'small', 'data-testid': 'promote-line',
      onclick: () => { promote(st.current); save(); update(); announce(t('analysis.tree.promoted')); },
    }, t('analysis.tree.promote'));
    els.remove = h('button', {
      type: 'button', class: 'small', 'data-testid': 'delete-from-here',
      onclick: () => { const parent = remove(st.current); st.tip = null; go(parent); announce(t('analysis.tree.deleted')); },
    }, t('analysis.tree.delete'));
    els.illuminate = h('button', {
      type: 'button', class: 'small', 'data-testid': 'illuminate', hidden: true,
      onclick: () => { const a = page.legal().illuminate; if (a) playAction(a); },
    }, t('room.illuminate.confirm'));
    els.busyNote = h('span', { class: 'hint', hidden: true }, t('analysis.play.busy'));
    els.notice = h('p', { class: 'error', role: 'alert', 'data-testid': 'analysis-notice', hidden: true });
    els.stepper = h('div', {},
      h('div', { class: 'stepper', role: 'group', 'aria-label': t('analysis.stepper') },
        els.first, els.prev, els.where, els.next, els.last),
      els.notice,
      h('div', { class: 'row tree-tools' }, els.illuminate, els.busyNote));
    return h('section', { class: 'tree-panel', 'aria-label': t('analysis.plies') },
      h('h2', {}, t('analysis.plies')),
      els.moves,
      h('div', { class: 'row tree-tools' }, els.promote, els.remove,
        h('button', { type: 'button', class: 'small', 'data-testid': 'copy-record', onclick: copyRecord }, t('analysis.tree.copy'))),
      h('p', { class: 'hint' }, t('analysis.tree.help')));
  }

  function analysePanel() {
    els.analyseButton = h('button', { type: 'button', 'data-testid': 'analyse', onclick: () => { st.analysis = null; analyse(); } }, t('analysis.analyse'));
    els.analyseBox = h('div', { role: 'status', 'data-testid': 'analyse-result' });
    const auto = els.auto = h('input', {
      type: 'checkbox', id: 'auto-analyse', 'data-testid': 'auto-analyse', checked: st.auto,
      onchange: (e) => { st.auto = e.target.checked; if (st.auto) analyse(); },
    });
    return h('div', { class: 'analyse' },
      h('p', { class: 'row' }, els.analyseButton, h('label', { for: 'auto-analyse', class: 'auto' }, auto, t('analysis.auto'))),
      els.analyseBox);
  }

  function editSide() {
    els.editCheck = h('p', { role: 'status', 'data-testid': 'edit-check' });
    return h('div', {},
      editor.element,
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'primary', 'data-testid': 'edit-validate', onclick: checkEdited }, t('editor.validate')),
        h('button', { type: 'button', 'data-testid': 'edit-start', onclick: () => startEditing(START_POSITION) }, t('editor.startPosition')),
        h('button', {
          type: 'button', 'data-testid': 'edit-clear',
          onclick: () => { st.edit.board.clear(); st.editCheck = null; update(); },
        }, t('editor.clear'))),
      els.editCheck,
      h('div', { class: 'row' },
        h('button', {
          type: 'button', 'data-testid': 'edit-analyse',
          onclick: () => { st.startText = writePosition(st.edit); st.record = ''; load(); },
        }, t('editor.analyse')),
        h('button', { type: 'button', 'data-testid': 'edit-done', onclick: () => { st.mode = 'replay'; build(); } }, t('editor.done'))));
  }

  function importSide() {
    els.recordArea = h('textarea', {
      id: 'record', 'data-testid': 'record', spellcheck: 'false', placeholder: '1. P3c-4d P10k-10j (P9l-9k) P11g-10g',
      oninput: (e) => { st.record = e.target.value; },
    });
    els.recordArea.value = st.record;
    const startInput = h('input', {
      id: 'start-position', class: 'position', 'data-testid': 'start-position', spellcheck: 'false',
      placeholder: t('analysis.startPlaceholder'), oninput: (e) => { st.startText = e.target.value; },
    });
    startInput.value = st.startText;
    els.loadButton = h('button', { type: 'submit', class: 'primary', 'data-testid': 'load' }, t('analysis.load'));
    return h('div', {},
      st.tree ? treePanel() : null,
      st.review?.element,
      h('form', { onsubmit: (e) => { e.preventDefault(); load(); } },
        h('label', { for: 'record' }, h('b', {}, t('analysis.recordLabel'))),
        els.recordArea,
        h('label', { for: 'start-position' }, t('analysis.startLabel')),
        startInput,
        h('p', { class: 'row' }, els.loadButton)),
      els.errorBox,
      h('p', {}, h('button', { type: 'button', 'data-testid': 'edit-position', onclick: () => startEditing() }, t('analysis.editPosition'))));
  }

  function build() {
    // A rebuild (an answer arriving, the language switched) keeps the text field being
    // typed in: its focus and selection pass to the new one.
    const field = app.contains(document.activeElement) && document.activeElement.id ? document.activeElement : null;
    const typing = field && { id: field.id, start: field.selectionStart, end: field.selectionEnd };
    document.title = t('analysis.pageTitle');
    const boardBox = h('div', { class: 'board-wrap' });
    board?.stopFollowingPrefs?.();
    board = new Board(boardBox, {
      onActivate: (cell) => {
        if (st.mode === 'edit') editor.cellClicked(cell);
        else if (st.tree && !st.busy) play.activate(page, cell);
      },
      onCancel: () => { st.selected = null; update(); },
    });
    board.setView(st.view);
    page.drag = play.enableDrag(page, board);
    els.errorBox = h('div', { class: 'replay-error', role: 'alert', tabindex: -1, 'data-testid': 'replay-error', hidden: true });
    els.status = h('p', { class: 'status-line', 'data-testid': 'analysis-status' });
    els.hands = h('div');
    els.positionOut = h('input', { class: 'position', readonly: true, id: 'position-out', 'data-testid': 'position-out' });
    els.editCheck = null;
    els.analyseBox = null;
    els.stepper = null;
    els.bar = h('div', { class: 'evalbar-box', hidden: true });
    page.promoDialog = h('dialog', { class: 'promo', 'data-testid': 'promotion-dialog' });
    page.promoDialog.addEventListener('cancel', () => { st.selected = null; update(); });
    const viewPicker = h('div', { class: 'view-picker', role: 'group', 'aria-label': t('analysis.seenFrom') },
      SEATS.map((seat) => h('button', {
        type: 'button', class: `small seat-button seat-${seat}`, 'aria-pressed': String(st.view === seat),
        'data-testid': `view-${seat}`, onclick: () => { st.view = seat; build(); },
      }, t(`seat.${seat}`))));
    const side = st.mode === 'edit' ? editSide() : importSide();

    app.replaceChildren(h('div', { class: 'analysis-page' },
      h('h1', {}, t('analysis.title')),
      h('p', {}, t('analysis.introPlay')),
      h('div', { class: 'analysis' },
        els.boardTop = h('div', { class: 'panel board-column' },
          els.status,
          els.boardLine = h('div', { class: 'board-line' }, els.bar, boardBox),
          st.mode === 'replay' ? els.stepper : null,
          st.mode === 'replay' ? st.review?.engine : null,
          viewPicker,
          els.hands,
          h('label', { for: 'position-out' }, t('analysis.positionLabel')),
          h('div', { class: 'position-row' }, els.positionOut,
            h('button', {
              type: 'button', class: 'small', 'data-testid': 'copy-position',
              onclick: () => navigator.clipboard?.writeText(els.positionOut.value).then(() => announce(t('analysis.copied')), () => {}),
            }, t('analysis.copy')))),
        // Analyse heads the other column: in sight beside the board on a laptop's screen.
        h('div', { class: 'panel side-column' }, st.mode === 'replay' ? analysePanel() : null, side)),
      page.promoDialog));
    update();
    const again = typing && document.getElementById(typing.id);
    if (again) {
      again.focus();
      if (typing.start != null) again.setSelectionRange(typing.start, typing.end);
    }
  }

  // Arrow keys walk the current line when no text field has the focus: ←/→ a move,
  // ↑/Home to the start, ↓/End to the end.
  addEventListener('keydown', (e) => {
    if (st.mode !== 'replay' || !st.tree || e.altKey || e.ctrlKey || e.metaKey || page.promoDialog?.open) return;
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(e.target?.tagName) || boardHasArrows(e.target)) return;
    const to = {
      ArrowLeft: () => st.current.parent ?? st.current,
      ArrowRight: nextNode,
      ArrowUp: () => st.tree.root,
      Home: () => st.tree.root,
      ArrowDown: () => endOf(tip()),
      End: () => endOf(tip()),
    }[e.key];
    if (!to) return;
    e.preventDefault();
    go(to());
  });

  build();
  if (st.room) run(() => openRoom(st.room, params.get('ply')));
  else if (st.record) run(() => importRecord(true));
  else run(openStart);
  onLangChange(build);
  onPrefChange((key) => { if (key === 'pieceStyle') update(); });
}
