// /learn: the tutorial. A list of lessons (lessons.js) with the reader's progress, kept
// in localStorage, and each lesson (`/learn#id`): a short text, then positions where
// the reader, as Middle, plays the move asked for by clicking a piece (or a piece in
// hand) and a cell on the real board. The server judges every move: the page sends a
// record of that one move from the lesson's position (`POST /api/replay`); a move it
// refuses is explained from the rule it names, a legal move that is not the one asked
// for gets the lesson's hint, and the right one shows the position after it and goes
// on. The cells a picked piece may reach are marked from its moves alone (reach.js),
// as a guide: only the server's answer counts. At the end: a first game against two
// Beginner computer players.
import { h } from './dom.js';
import { Board } from './board.js';
import { CELLS } from './geometry.js';
import { onLangChange, t } from './i18n.js';
import { pieceSvg } from './pieces.js';
import { HAND_ORDER, parsePosition } from './position.js';
import { reach } from './reach.js';
import { replay } from './analysis.js';
import { announce } from './site.js';
import { EXERCISE_COUNT, LESSONS } from './lessons.js';
import { startComputerGame } from './lobby/computer.js';
import { storedName } from './prefs.js';

export const PROGRESS_KEY = 'sannin.learn';
/** The computer players of the first game: Beginner (bots.md, level 1). */
export const FIRST_GAME_LEVEL = 1;

/** The exercises done: { lessonId: [index, …] }. */
function loadProgress() {
  try {
    const p = JSON.parse(localStorage.getItem(PROGRESS_KEY) ?? '{}');
    return p && typeof p === 'object' ? p : {};
  } catch {
    return {};
  }
}

function saveProgress(p) {
  try { localStorage.setItem(PROGRESS_KEY, JSON.stringify(p)); } catch { /* storage blocked: kept for this page */ }
}

function doneIn(progress, lesson) {
  const done = new Set(Array.isArray(progress[lesson.id]) ? progress[lesson.id] : []);
  return lesson.exercises.filter((_, i) => done.has(i)).length;
}

/** The reason a refused move is refused, in the reader's words, from the rule the
 * server's message cites (its text is English only). */
function whyRefused(message, kindName) {
  const m = String(message ?? '');
  if (/§8|castling/.test(m)) return t('learn.why.cannotMove', { piece: kindName });
  if (/§10\.3|would be in check/.test(m)) return t('learn.why.check');
  if (/§7/.test(m)) return t('learn.why.promotion');
  if (/§6/.test(m)) return t('learn.why.drop');
  if (/§5|cannot move|cannot reach|blocked|occupied/.test(m)) return t('learn.why.cannotMove', { piece: kindName });
  return t('learn.why.other');
}

function pieceName(piece) {
  return t(`piece.${piece.promoted ? '+' : ''}${piece.kind}`);
}

/** The server's answers, by position and action: a move tried for its promotion and
 * then played is asked for once (the server budgets replays per address). */
const answers = new Map();
function judge(action, position) {
  const key = `${position}\n${action}`;
  if (!answers.has(key)) {
    const p = replay(action, position);
    answers.set(key, p);
    // Only the rules' answers are kept: a network failure is asked again next time.
    p.catch((e) => { if (e.code !== 'illegal_action') answers.delete(key); });
  }
  return answers.get(key);
}

/** Does the played ply meet the exercise's goal? */
function meetsGoal(goal, ply) {
  const events = ply.events ?? [];
  if (goal.actions) return goal.actions.includes(ply.action);
  if (goal.drop) return ply.action.startsWith(`${goal.drop}*`);
  if (goal.event === 'garden') return events.some((e) => e.type === 'game_over' && e.reason === 'pleasure_garden');
  if (goal.event === 'check') return events.some((e) => e.type === 'check' && e.player !== 'Middle');
  return events.some((e) => e.type === goal.event);
}

export function showLearn(app) {
  let progress = loadProgress();
  let st = null; // the lesson shown: { lesson, index, pos, selected, hand, result, feedback, busy, choice }
  let board = null;

  function route() {
    const id = decodeURIComponent(location.hash.slice(1));
    const lesson = LESSONS.find((l) => l.id === id);
    if (lesson) {
      const done = new Set(progress[lesson.id] ?? []);
      const first = lesson.exercises.findIndex((_, i) => !done.has(i));
      openExercise(lesson, first < 0 ? 0 : first);
    } else {
      st = null;
      board?.stopFollowingPrefs?.();
      board = null;
      renderList();
    }
    window.scrollTo(0, 0);
  }

  function renderList() {
    document.title = t('learn.pageTitle');
    const total = LESSONS.reduce((n, l) => n + doneIn(progress, l), 0);
    const allDone = total === EXERCISE_COUNT;
    app.replaceChildren(h('article', { class: 'learn-page', 'data-testid': 'learn' },
      h('h1', {}, t('learn.title')),
      h('p', {}, t('learn.intro')),
      h('p', { 'data-testid': 'learn-progress' }, t('learn.progress', { done: total, n: EXERCISE_COUNT })),
      h('ol', { class: 'lesson-list', 'data-testid': 'lesson-list' }, LESSONS.map((lesson) => {
        const done = doneIn(progress, lesson);
        const complete = done === lesson.exercises.length;
        return h('li', { class: complete ? 'done' : '', dataset: { lesson: lesson.id } },
          h('a', { href: `#${lesson.id}`, 'data-testid': `lesson-${lesson.id}` }, t(`learn.${lesson.id}.title`)),
          h('span', { class: 'lesson-state', 'data-testid': `lesson-state-${lesson.id}` },
            complete ? `✓ ${t('learn.complete')}` : t('learn.count', { done, n: lesson.exercises.length })));
      })),
      h('section', { class: 'panel first-game', 'aria-labelledby': 'learn-first-game' },
        h('h2', { id: 'learn-first-game' }, t('learn.firstGame.title')),
        h('p', {}, t(allDone ? 'learn.firstGame.ready' : 'learn.firstGame.text')),
        firstGameButton()),
      h('p', {},
        h('a', { href: '/rules' }, t('learn.rulesLink')), ' · ',
        h('button', { type: 'button', class: 'link', 'data-testid': 'learn-reset', onclick: resetProgress }, t('learn.reset')))));
  }

  function firstGameButton() {
    const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'learn-first-game-error' });
    const button = h('button', {
      type: 'button', class: 'primary', 'data-testid': 'learn-play',
      onclick: async () => {
        button.disabled = true;
        error.textContent = '';
        try {
          await startComputerGame({ level: FIRST_GAME_LEVEL, seat: 'first', name: storedName() });
        } catch (e) {
          button.disabled = false;
          error.textContent = t('lobby.couldNotStart', { reason: e.message });
        }
      },
    }, t('learn.firstGame.button'));
    return h('div', {}, button, error);
  }

  function resetProgress() {
    if (!confirm(t('learn.resetConfirm'))) return;
    progress = {};
    saveProgress(progress);
    renderList();
  }

  async function openExercise(lesson, index) {
    const ex = lesson.exercises[index];
    st = {
      lesson, index, pos: parsePosition(ex.position), selected: null, hand: null,
      result: null, feedback: null, busy: false, choice: null, prelude: null,
    };
    if (ex.prelude) {
      // The action before Middle's, played by the server: the board shows its result.
      const mine = st;
      mine.busy = true;
      renderLesson();
      try {
        const game = await judge(ex.prelude, ex.position);
        mine.pos = parsePosition(game.plies[0].position);
        mine.prelude = ex.prelude;
      } catch (e) {
        mine.feedback = { kind: 'wrong', text: t('learn.serverError', { reason: e.message }) };
      }
      mine.busy = false;
      if (st !== mine) return;
    }
    renderLesson();
  }

  /** The record sent for the reader's `action`: the exercise's prelude, then it. */
  function record(action) {
    const ex = st.lesson.exercises[st.index];
    return ex.prelude ? `${ex.prelude} ${action}` : action;
  }

  function markDone() {
    const list = new Set(progress[st.lesson.id] ?? []);
    list.add(st.index);
    progress = { ...progress, [st.lesson.id]: [...list].sort((a, b) => a - b) };
    saveProgress(progress);
  }

  /** Sends `action` from the exercise's position and judges the answer. */
  async function play(action) {
    st.choiceFrom = null;
    st.busy = true;
    st.feedback = { kind: 'busy', text: t('learn.checking') };
    drawBoard();
    drawSide();
    const ex = st.lesson.exercises[st.index];
    const from = /^\+?[A-Z]((?:\d{1,2})[a-m])/.exec(action)?.[1];
    const piece = from ? st.pos.board.get(from) : { kind: action[0], promoted: false };
    try {
      const game = await judge(record(action), ex.position);
      const ply = game.plies.at(-1);
      if (meetsGoal(ex.goal, ply)) {
        markDone();
        st.result = { ply, pos: parsePosition(ply.position) };
        st.selected = null;
        st.hand = null;
        st.feedback = { kind: 'right', text: t(`learn.${st.lesson.id}.${st.index + 1}.right`) };
        announce(`${t('learn.right')} ${st.feedback.text}`);
      } else {
        st.feedback = { kind: 'wrong', text: `${t('learn.notThis', { action: ply.action })} ${t(`learn.${st.lesson.id}.${st.index + 1}.hint`)}` };
        announce(st.feedback.text);
      }
    } catch (e) {
      st.feedback = e.code === 'illegal_action'
        ? { kind: 'wrong', text: `${t('learn.refused', { action })} ${whyRefused(e.serverMessage ?? e.message, pieceName(piece ?? { kind: 'P' }))}` }
        : { kind: 'wrong', text: t('learn.serverError', { reason: e.message }) };
      announce(st.feedback.text);
    } finally {
      st.busy = false;
    }
    renderLesson();
  }

  /** A move from `from` to `to`: with promotion when the server takes it, asking the
   * reader when both are legal. */
  async function tryMove(from, to) {
    const piece = st.pos.board.get(from);
    const base = `${piece.promoted ? '+' : ''}${piece.kind}${from}${st.pos.board.has(to) ? 'x' : '-'}${to}`;
    if (piece.promoted || !['K', 'R', 'B', 'S', 'L', 'P'].includes(piece.kind)) return play(base);
    const ex = st.lesson.exercises[st.index];
    st.busy = true;
    st.feedback = { kind: 'busy', text: t('learn.checking') };
    drawSide();
    let promotes = false;
    try { await judge(record(`${base}+`), ex.position); promotes = true; } catch { promotes = false; }
    st.busy = false;
    if (!promotes) return play(base);
    let plainLegal = false;
    try { await judge(record(base), ex.position); plainLegal = true; } catch { plainLegal = false; }
    if (!plainLegal) return play(`${base}+`);
    st.choice = base;
    st.choiceFrom = from;
    st.feedback = null;
    renderLesson();
    return undefined;
  }

  function onCell(cell) {
    if (!st || st.busy || st.result || st.choice) return;
    const piece = st.pos.board.get(cell);
    if (st.hand) {
      if (!piece) return play(`${st.hand}*${cell}`);
      st.hand = null;
    }
    if (piece && piece.owner === 'middle') {
      st.selected = st.selected === cell ? null : cell;
      st.feedback = null;
      drawBoard();
      drawSide();
      return undefined;
    }
    if (st.selected) {
      const from = st.selected;
      st.selected = null;
      return tryMove(from, cell);
    }
    st.feedback = { kind: 'wrong', text: t('learn.pickFirst') };
    drawSide();
    return undefined;
  }

  let els = {};

  function drawBoard() {
    if (!board) return;
    const shown = st.result ? st.result.pos : st.pos;
    const targets = new Map();
    if (!st.result && st.selected) {
      for (const cell of reach(st.pos, st.selected)) targets.set(cell, st.pos.board.has(cell) ? 'capture' : 'move');
    }
    if (!st.result && st.hand) {
      for (const { name } of CELLS) if (!st.pos.board.has(name)) targets.set(name, 'drop');
    }
    const ex = st.lesson.exercises[st.index];
    const last = new Set();
    const lastAction = st.result?.ply.action ?? st.prelude;
    if (lastAction) {
      const m = /([0-9]{1,2}[a-m])[-x]([0-9]{1,2}[a-m])/.exec(lastAction);
      if (m) { last.add(m[1]); last.add(m[2]); }
      const drop = /\*([0-9]{1,2}[a-m])/.exec(lastAction);
      if (drop) last.add(drop[1]);
    }
    board.render({ board: shown.board, selected: st.selected ?? st.choiceFrom ?? null, targets, last });
    const marked = new Set(st.result ? [] : ex.mark ?? []);
    for (const [cell, g] of board.cells) g.classList.toggle('goal', marked.has(cell));
  }

  function handView() {
    const hand = st.pos.hands.middle ?? {};
    const kinds = HAND_ORDER.filter((k) => hand[k] > 0);
    if (!kinds.length || st.result) return null;
    return h('div', { class: 'learn-hand', 'data-testid': 'learn-hand' },
      h('span', {}, t('learn.yourHand')),
      kinds.map((k) => {
        const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
        svg.setAttribute('viewBox', '-10 -10 20 20');
        svg.setAttribute('class', 'mini');
        svg.setAttribute('aria-hidden', 'true');
        svg.append(pieceSvg({ owner: 'middle', kind: k, promoted: false }, 0));
        return h('button', {
          type: 'button', class: 'hand-piece', 'data-testid': `learn-hand-${k}`, 'aria-pressed': st.hand === k ? 'true' : 'false',
          'aria-label': t('learn.dropPiece', { piece: t(`piece.${k}`) }),
          onclick: () => {
            if (st.busy) return;
            st.hand = st.hand === k ? null : k;
            st.selected = null;
            st.feedback = null;
            drawBoard();
            drawSide();
          },
        }, svg, hand[k] > 1 ? `×${hand[k]}` : '');
      }));
  }

  function drawSide() {
    const lessonIndex = LESSONS.indexOf(st.lesson);
    const hasPlusKing = [...st.pos.board].find(([, p]) => p.owner === 'middle' && p.kind === 'K' && p.promoted);
    const fb = st.feedback;
    const lastExercise = st.index === st.lesson.exercises.length - 1;
    const nextLesson = LESSONS[lessonIndex + 1];
    const next = st.result
      ? h('div', { class: 'row' },
        lastExercise
          ? (nextLesson
            ? h('a', { class: 'button primary', href: `#${nextLesson.id}`, 'data-testid': 'learn-next' }, t('learn.nextLesson', { title: t(`learn.${nextLesson.id}.title`) }))
            : h('a', { class: 'button primary', href: '#', 'data-testid': 'learn-next' }, t('learn.finish')))
          : h('button', { type: 'button', class: 'primary', 'data-testid': 'learn-next', onclick: () => openExercise(st.lesson, st.index + 1) }, t('learn.nextExercise')),
        h('button', { type: 'button', 'data-testid': 'learn-again', onclick: () => openExercise(st.lesson, st.index) }, t('learn.again')))
      : null;
    const choice = st.choice
      ? h('div', { class: 'row learn-choice', role: 'group', 'aria-label': t('learn.promoteQuestion') },
        h('span', {}, t('learn.promoteQuestion')),
        h('button', { type: 'button', class: 'primary', 'data-testid': 'learn-promote', onclick: () => { const b = st.choice; st.choice = null; play(`${b}+`); } }, t('learn.promote')),
        h('button', { type: 'button', 'data-testid': 'learn-decline', onclick: () => { const b = st.choice; st.choice = null; play(`${b}=`); } }, t('learn.decline')))
      : null;
    els.side.replaceChildren(...[
      h('p', { class: 'small', 'data-testid': 'learn-step' }, t('learn.exerciseN', { i: st.index + 1, n: st.lesson.exercises.length })),
      h('p', { class: 'learn-task', 'data-testid': 'learn-task' }, t(`learn.${st.lesson.id}.${st.index + 1}`)),
      handView(),
      hasPlusKing && !st.result ? h('button', {
        type: 'button', 'data-testid': 'learn-illuminate', disabled: st.busy,
        onclick: () => play(`+K${hasPlusKing[0]}!`),
      }, t('learn.illuminate')) : null,
      choice,
      h('p', {
        class: `learn-feedback ${fb?.kind ?? ''}`, 'data-testid': 'learn-feedback', role: fb?.kind === 'wrong' ? 'alert' : 'status',
      }, fb?.kind === 'right' ? h('b', {}, `${t('learn.right')} `) : null, fb ? fb.text : ''),
      next,
    ].filter(Boolean));
  }

  function renderLesson() {
    const { lesson } = st;
    document.title = `${t(`learn.${lesson.id}.title`)} · ${t('learn.pageTitle')}`;
    const fresh = !els.lessonId || els.lessonId !== lesson.id || !app.contains(els.side);
    if (fresh) {
      const boardWrap = h('div', { class: 'board-wrap', 'data-testid': 'learn-board' });
      els = { lessonId: lesson.id, side: h('div', { class: 'learn-side' }), boardWrap };
      app.replaceChildren(h('article', { class: 'learn-page lesson', 'data-testid': 'learn-lesson', dataset: { lesson: lesson.id } },
        h('p', { class: 'crumbs' }, h('a', { href: '#', 'data-testid': 'learn-back' }, t('learn.backToList'))),
        h('h1', {}, t(`learn.${lesson.id}.title`)),
        h('div', { class: 'learn-grid' },
          h('div', { class: 'learn-text' }, String(t(`learn.${lesson.id}.text`)).split('\n').map((p) => h('p', {}, p))),
          boardWrap,
          els.side)));
      board?.stopFollowingPrefs?.();
      board = new Board(boardWrap, { onActivate: onCell, onCancel: () => { st.selected = null; st.hand = null; drawBoard(); drawSide(); } });
    }
    drawBoard();
    drawSide();
  }

  window.addEventListener('hashchange', route);
  onLangChange(() => { els = {}; if (st) renderLesson(); else renderList(); });
  route();
}
