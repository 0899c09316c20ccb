// The analysis board: open a position string or paste a game record (RULES §13.2),
// have the server play it out (`POST /api/replay`), and step through it ply by ply; a
// record that fails shows the ply, the token and the reason. The position editor sets
// up a position by hand and copies its string once the server accepts it. **Analyse**
// asks the server's search (`POST /api/analyse`) for the best move of the position shown.
import { h } from './dom.js';
import { SEATS } from './geometry.js';
import { HAND_ORDER, START_POSITION, parseAction, parsePosition } from './position.js';
import { Board, boardHasArrows } from './board.js';
import { onLangChange, t } from './i18n.js';
import { onPrefChange } from './prefs.js';
import { pieceSvg } from './pieces.js';
import { announce } from './site.js';
import { describeAction, seatOf } from './say.js';
import { PositionEditor, writePosition } from './editor.js';

/** POST /api/replay. Resolves to { start, plies } or rejects with an Error carrying
 * the server's `code`, `ply` and `token`. */
export async function replay(record, position) {
  const res = await fetch('/api/replay', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify(position ? { record, position } : { record }),
  });
  let body = null;
  try { body = await res.json(); } catch { body = null; }
  if (!res.ok) {
    const err = new Error(body?.error?.message ?? `${res.status} ${res.statusText}`);
    err.code = body?.error?.code ?? null;
    err.ply = body?.ply ?? null;
    err.token = body?.token ?? null;
    throw err;
  }
  return body;
}

/** POST /api/analyse. Resolves to the analysis object (docs/protocol.md) or rejects
 * with an Error carrying the server's message. */
export async function analysePosition(body) {
  const res = await fetch('/api/analyse', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  let json = null;
  try { json = await res.json(); } catch { json = null; }
  if (!res.ok) throw new Error(json?.error?.message ?? `${res.status} ${res.statusText}`);
  return json;
}

/** A score for people: signed, or won / lost (±1000000 in the server's units). */
function showScore(v) {
  if (v >= 1000000) return t('analysis.won');
  if (v <= -1000000) return t('analysis.lost');
  return v > 0 ? `+${v}` : String(v);
}

function describeEvent(ev) {
  const seat = (p) => t(`seat.${seatOf(p)}`);
  switch (ev?.type) {
    case 'check': return t('analysis.event.check', { who: seat(ev.player), by: seat(ev.by) });
    case 'mated': return t('analysis.event.mated', { who: seat(ev.player) });
    case 'eliminated': return t('analysis.event.eliminated', { who: seat(ev.player) });
    case 'alliance_formed': return t('analysis.event.alliance', { a: seat(ev.allies?.[0]), b: seat(ev.allies?.[1]) });
    case 'illuminated': return t('analysis.event.illuminated', { n: ev.cells?.length ?? 0 });
    case 'game_over': return t('analysis.event.gameOver', { who: (ev.winners ?? []).map(seat).join(t('lobby.and')) || '—' });
    default: return null;
  }
}

export function showAnalysis(app) {
  const params = new URLSearchParams(location.search);
  const st = {
    record: params.get('record') ?? '',
    startText: params.get('position') ?? '',
    game: null, // { start, plies }
    index: 0,
    error: null,
    view: 'middle',
    mode: 'replay', // or 'edit'
    edit: null, // the position being edited
    editCheck: null, // { ok: true, text } or { ok: false, message }
    analysis: null, // { text, busy, result?, error? } for the position string `text`
  };
  let board = null;
  let editor = null;
  const els = {};

  function currentPositionText() {
    if (st.mode === 'edit') return writePosition(st.edit);
    if (!st.game) return st.startText.trim() || START_POSITION;
    return st.index === 0 ? st.game.start : st.game.plies[st.index - 1].position;
  }

  async function load() {
    st.error = null;
    els.loadButton.disabled = true;
    try {
      st.game = await replay(st.record, st.startText.trim() || undefined);
      st.index = st.game.plies.length;
      st.mode = 'replay';
    } catch (e) {
      st.error = e;
      st.game = null;
    } finally {
      els.loadButton.disabled = false;
    }
    update();
    if (st.error) els.errorBox.focus();
  }

  /** The server's search on the position shown: the record's start and its moves up
   * to the ply shown (they carry the repetition history), else the position string. */
  async function analyse() {
    const text = currentPositionText();
    const body = st.mode === 'replay' && st.game
      ? { position: st.game.start, moves: st.game.plies.slice(0, st.index).map((p) => p.action) }
      : { position: text };
    st.analysis = { text, busy: true };
    update();
    try {
      const result = await analysePosition({ ...body, movetime_ms: 1000 });
      if (st.analysis?.text === text) st.analysis = { text, result };
    } catch (e) {
      if (st.analysis?.text === text) st.analysis = { text, error: e.message };
    }
    update();
    const r = st.analysis?.result;
    if (r) announce(t('analysis.best', { seat: t(`seat.${seatOf(r.player)}`), action: describeAction(r.player, r.best) }));
  }

  function analysisView(text) {
    const a = st.analysis?.text === text ? st.analysis : null;
    if (!a || a.busy) return a?.busy ? h('p', {}, t('analysis.analysing')) : '';
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

  function go(i) {
    if (!st.game) return;
    const n = Math.max(0, Math.min(st.game.plies.length, i));
    if (n === st.index) return;
    st.index = n;
    update();
    if (n > 0) {
      const ply = st.game.plies[n - 1];
      const extra = (ply.events ?? []).map(describeEvent).filter(Boolean);
      announce([`${t('analysis.plyN', { n })}: ${describeAction(ply.player, ply.action)}`, ...extra].join('. '));
    } else {
      announce(t('analysis.atStart'));
    }
  }

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

  function handsView(pos) {
    return h('div', { class: 'hands', 'data-testid': 'analysis-hands' }, SEATS.map((seat) => {
      const hand = pos?.hands?.[seat] ?? {};
      const items = HAND_ORDER.filter((k) => hand[k] > 0).map((k) => {
        const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
        svg.setAttribute('viewBox', '-10 -10 20 20');
        svg.setAttribute('class', 'mini');
        svg.setAttribute('aria-hidden', 'true');
        svg.append(pieceSvg({ owner: seat, kind: k, promoted: false }, 0));
        return h('span', { class: 'hand-item' }, svg, hand[k] > 1 ? `×${hand[k]}` : '',
          h('span', { class: 'sr-only' }, `${t(`piece.${k}`)}${hand[k] > 1 ? ` ×${hand[k]}` : ''}`));
      });
      return h('div', { class: `hand-line seat-${seat}`, 'data-testid': `analysis-hand-${seat}` },
        h('b', {}, t(`seat.${seat}`)), ' ', items.length ? items : h('span', { class: 'empty' }, t('analysis.emptyHand')));
    }));
  }

  function update() {
    const text = currentPositionText();
    let pos = null;
    try { pos = text ? parsePosition(text) : null; } catch { pos = null; }
    let last = new Set();
    if (st.mode === 'replay' && st.game && st.index > 0) {
      const a = parseAction(st.game.plies[st.index - 1].action);
      if (a?.from) last.add(a.from);
      if (a?.to) last.add(a.to);
    }
    board.render({ board: pos?.board ?? new Map(), last, targets: new Map(), sources: new Set(), checks: new Set() });

    // Status line: whose turn, the ply.
    if (st.mode === 'replay' && st.game) {
      const total = st.game.plies.length;
      els.where.textContent = t('analysis.where', { n: st.index, of: total });
      for (const b of [els.first, els.prev]) b.disabled = st.index === 0;
      for (const b of [els.next, els.last]) b.disabled = st.index === total;
      for (const b of els.plyList.querySelectorAll('button')) {
        if (Number(b.dataset.ply) === st.index) b.setAttribute('aria-current', 'step');
        else b.removeAttribute('aria-current');
      }
      const ply = st.index > 0 ? st.game.plies[st.index - 1] : null;
      const events = (ply?.events ?? []).map(describeEvent).filter(Boolean);
      els.status.textContent = [
        ply ? describeAction(ply.player, ply.action) : t('analysis.atStart'),
        ...events,
        pos?.toMove ? t('analysis.toMove', { seat: t(`seat.${pos.toMove}`) }) : t('analysis.over'),
      ].join(' · ');
    } else if (st.mode === 'edit') {
      els.status.textContent = t('analysis.editing');
    } else {
      els.status.textContent = '';
    }
    els.hands.replaceChildren(handsView(pos));
    els.positionOut.value = text ?? '';
    if (els.analyseBox) {
      els.analyseButton.disabled = !pos?.toMove || !!(st.analysis?.busy);
      els.analyseBox.replaceChildren(analysisView(text));
    }

    // Errors of the last load.
    if (st.error) {
      const e = st.error;
      els.errorBox.hidden = false;
      els.errorBox.replaceChildren(
        h('h2', {}, t('analysis.errorTitle')),
        e.ply ? h('p', { 'data-testid': 'error-ply' }, t('analysis.errorPly', { n: e.ply })) : null,
        e.token ? h('p', { 'data-testid': 'error-token' }, t('analysis.errorToken'), ' ', h('code', {}, e.token)) : null,
        h('p', { 'data-testid': 'error-reason' }, t('analysis.errorReason'), ' ', e.message));
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

  function build() {
    document.title = t('analysis.pageTitle');
    const boardBox = h('div', { class: 'board-wrap' });
    board?.stopFollowingPrefs?.();
    board = new Board(boardBox, {
      onActivate: (cell) => { if (st.mode === 'edit') editor.cellClicked(cell); },
      onCancel: () => {},
    });
    board.setView(st.view);

    const recordArea = h('textarea', {
      id: 'record', 'data-testid': 'record', spellcheck: 'false', placeholder: '1. P3c-4d P10k-10j P11g-10g',
      oninput: (e) => { st.record = e.target.value; },
    });
    recordArea.value = st.record;
    const startInput = h('input', {
      id: 'start-position', class: 'position', 'data-testid': 'start-position', spellcheck: 'false',
      placeholder: t('analysis.startPlaceholder'), oninput: (e) => { st.startText = e.target.value; },
    });
    startInput.value = st.startText;
    els.loadButton = h('button', { type: 'submit', class: 'primary', 'data-testid': 'load' }, t('analysis.load'));
    els.errorBox = h('div', { class: 'replay-error', role: 'alert', tabindex: -1, 'data-testid': 'replay-error', hidden: true });
    els.status = h('p', { class: 'status-line', 'data-testid': 'analysis-status' });
    els.where = h('span', { class: 'where', 'data-testid': 'where' });
    // Icons drawn as SVG: media-control characters are missing from many fonts.
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
    const stepButton = (key, d, onclick) => h('button', { type: 'button', 'data-testid': `step-${key}`, 'aria-label': t(`analysis.${key}`), title: t(`analysis.${key}`), onclick }, icon(d));
    els.first = stepButton('first', 'M3 2h2v12H3zM14 2v12L6 8z', () => go(0));
    els.prev = stepButton('prev', 'M12 2v12L4 8z', () => go(st.index - 1));
    els.next = stepButton('next', 'M4 2v12l8-6z', () => go(st.index + 1));
    els.last = stepButton('last', 'M11 2h2v12h-2zM2 2v12l8-6z', () => go(Infinity));
    els.plyList = h('ol', { class: 'ply-list', 'data-testid': 'ply-list', 'aria-label': t('analysis.plies') },
      (st.game?.plies ?? []).map((p) => h('li', { class: `seat-${seatOf(p.player)}` }, h('button', {
        type: 'button', dataset: { ply: p.ply }, 'aria-label': `${p.action} — ${t('analysis.plyN', { n: p.ply })}: ${describeAction(p.player, p.action)}`,
        onclick: () => go(p.ply),
      }, p.action))));
    els.hands = h('div');
    els.positionOut = h('input', { class: 'position', readonly: true, id: 'position-out', 'data-testid': 'position-out' });
    els.editCheck = null;
    els.analyseButton = h('button', { type: 'button', 'data-testid': 'analyse', onclick: analyse }, t('analysis.analyse'));
    els.analyseBox = h('div', { role: 'status', 'data-testid': 'analyse-result' });

    const viewPicker = h('div', { class: 'view-picker', role: 'group', 'aria-label': t('analysis.seenFrom') },
      SEATS.map((seat) => h('button', {
        type: 'button', class: `small seat-button seat-${seat}`, 'aria-pressed': String(st.view === seat),
        'data-testid': `view-${seat}`, onclick: () => { st.view = seat; build(); },
      }, t(`seat.${seat}`))));

    let side;
    if (st.mode === 'edit') {
      els.editCheck = h('p', { role: 'status', 'data-testid': 'edit-check' });
      side = h('div', {},
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
            onclick: () => { st.startText = writePosition(st.edit); st.record = ''; load().then(build); },
          }, t('editor.analyse')),
          h('button', { type: 'button', 'data-testid': 'edit-done', onclick: () => { st.mode = 'replay'; build(); } }, t('editor.done'))));
    } else {
      side = h('div', {},
        h('form', { onsubmit: (e) => { e.preventDefault(); load().then(build); } },
          h('label', { for: 'record' }, h('b', {}, t('analysis.recordLabel'))),
          recordArea,
          h('label', { for: 'start-position' }, t('analysis.startLabel')),
          startInput,
          h('p', { class: 'row' }, els.loadButton)),
        els.errorBox,
        st.game ? h('div', {},
          h('h2', {}, t('analysis.plies')),
          els.plyList) : null,
        h('p', {}, h('button', { type: 'button', 'data-testid': 'edit-position', onclick: () => startEditing() }, t('analysis.editPosition'))));
    }

    app.replaceChildren(h('div', { class: 'analysis-page' },
      h('h1', {}, t('analysis.title')),
      h('p', {}, t('analysis.intro')),
      h('div', { class: 'analysis' },
        h('div', { class: 'panel' },
          els.status,
          boardBox,
          st.mode === 'replay' && st.game ? h('div', { class: 'stepper', role: 'group', 'aria-label': t('analysis.stepper') },
            els.first, els.prev, els.where, els.next, els.last) : null,
          viewPicker,
          els.hands,
          h('label', { for: 'position-out' }, t('analysis.positionLabel')),
          h('div', { class: 'position-row' }, els.positionOut,
            h('button', {
              type: 'button', class: 'small', 'data-testid': 'copy-position',
              onclick: () => navigator.clipboard?.writeText(els.positionOut.value).then(() => announce(t('analysis.copied')), () => {}),
            }, t('analysis.copy'))),
          st.mode === 'replay' ? h('div', { class: 'analyse' }, h('p', { class: 'row' }, els.analyseButton), els.analyseBox) : null),
        h('div', { class: 'panel' }, side))));
    update();
  }

  // Arrow keys step through the game when no text field has the focus.
  addEventListener('keydown', (e) => {
    if (st.mode !== 'replay' || !st.game) return;
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(e.target?.tagName) || boardHasArrows(e.target)) return;
    if (e.key === 'ArrowLeft') { e.preventDefault(); go(st.index - 1); }
    else if (e.key === 'ArrowRight') { e.preventDefault(); go(st.index + 1); }
    else if (e.key === 'Home') { e.preventDefault(); go(0); }
    else if (e.key === 'End') { e.preventDefault(); go(Infinity); }
  });

  build();
  if (st.record || st.startText) load().then(build);
  onLangChange(build);
  onPrefChange((key) => { if (key === 'pieceStyle') update(); });
}
