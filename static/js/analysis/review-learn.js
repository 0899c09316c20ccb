// "Learn from your mistakes" on the analysis board: one player's mistakes and blunders
// of a reviewed game (analysis/review.js `exercises`), one at a time. The board shows
// the position the mistake was made in; the reader plays a move there (as any move of
// the analysis board, a variation) and is told whether it is the engine's, or which
// move the engine preferred (an arrow on the board), or asks for the solution; then
// the next one. The player is the seat this browser played in the game when the page
// knows it, else First; any seat can be picked.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { announce } from '../site.js';
import { SEATS, exercises } from './review.js';

/** Replaces `node`'s children with `draw()` when `key` changed since the last time,
 * giving the focus back to the element of the same test id (a button pressed). */
export function drawOnce(node, key, draw) {
  if (node.dataset.key === key) return;
  node.dataset.key = key;
  const focused = document.activeElement && node.contains(document.activeElement)
    ? document.activeElement.dataset.testid : null;
  node.replaceChildren(...[draw()].flat().filter(Boolean));
  if (focused) node.querySelector(`[data-testid="${focused}"]`)?.focus({ preventScroll: true });
}

/**
 * `host`: { review() (the done review), gameNode(k) (the node of the game after k
 * plies), current(), go(node), setView(seat), refresh(), seat (this browser's seat in
 * the game, or null) }. Returns the section for the review panel (`section`), the
 * block shown under the board while a position is being tried (`prompt`), and
 * `update()`, `arrow(node)`, `hides(node)`, `played(from, node)`, `active()`.
 */
export function learner(host) {
  // verdict: null (not tried yet), 'wrong' (a try missed: try again), 'correct' (found),
  // 'shown' (the solution asked for). found: the positions solved in this round.
  const st = { seat: SEATS.includes(host.seat) ? host.seat : 'first', index: -1, verdict: null, finished: false, found: 0, total: 0 };
  const section = h('section', { class: 'review-learn', 'data-testid': 'review-learn' });
  const prompt = h('div', { class: 'learn-prompt', 'data-testid': 'learn-box', hidden: true });

  const list = () => exercises(host.review(), st.seat);
  const exercise = () => (st.index >= 0 ? list()[st.index] ?? null : null);
  const spot = () => { const ex = exercise(); return ex ? host.gameNode(ex.before) : null; };
  const seatName = (s) => t(`seat.${s}`);

  /** Keeps the board, and the block under it, in sight. */
  const inSight = () => host.showBoard?.(prompt.hidden ? null : prompt);
  /** Answered: the solution or the engine's move is out. */
  const answered = () => st.verdict === 'correct' || st.verdict === 'shown';

  function show(index) {
    st.index = index;
    st.verdict = null;
    st.finished = index < 0;
    const node = spot();
    if (node) host.go(node);
    host.refresh();
    inSight();
  }

  function start() {
    st.finished = false;
    st.found = 0;
    st.total = list().length;
    host.setView(st.seat);
    show(0);
  }

  function next() {
    if (st.index + 1 < list().length) show(st.index + 1);
    else {
      st.index = -1;
      st.verdict = null;
      st.finished = true;
      host.refresh();
      announce(doneText());
    }
  }

  /** The end of the round: praise only when every position was found. */
  function doneText() {
    return st.found >= st.total ? t('review.learn.done') : t('review.learn.doneSome', { found: st.found, n: st.total });
  }

  function solve() {
    if (!answered()) st.verdict = 'shown';
    const node = spot();
    if (node && host.current() !== node) host.go(node);
    host.refresh();
    inSight();
    announce(verdictText());
  }

  function stop() {
    st.index = -1;
    st.verdict = null;
    host.refresh();
  }

  function verdictText() {
    const ex = exercise();
    if (!ex || !st.verdict) return '';
    if (st.verdict === 'correct') return t('review.learn.correct');
    if (st.verdict === 'wrong') return t('review.learn.wrong');
    return t('review.learn.solution', { action: ex.best });
  }

  /** "Learn from your mistakes" for a player of the game, "…the mistakes" for anyone else. */
  const title = () => t(SEATS.includes(host.seat) ? 'review.learn.title' : 'review.learn.titleOther');

  function drawSection() {
    const exs = list();
    const picker = h('div', { class: 'view-picker', role: 'group', 'aria-label': t('review.learn.pick') },
      SEATS.map((s) => h('button', {
        type: 'button', class: `small seat-button seat-${s}`, 'aria-pressed': String(st.seat === s), 'data-testid': `learn-seat-${s}`,
        onclick: () => { st.seat = s; st.index = -1; st.verdict = null; st.finished = false; host.refresh(); },
      }, seatName(s))));
    let body;
    if (!exs.length) body = h('p', { 'data-testid': 'learn-none' }, t('review.learn.none', { seat: seatName(st.seat) }));
    else if (st.index >= 0) {
      body = h('p', { 'data-testid': 'learn-where' }, t('review.learn.step', { i: st.index + 1, n: exs.length }), ' ',
        h('button', { type: 'button', class: 'small', 'data-testid': 'learn-stop', onclick: stop }, t('review.learn.stop')));
    } else {
      body = h('p', { class: 'row' },
        h('span', { 'data-testid': 'learn-count' }, st.finished ? doneText()
          : t(exs.length === 1 ? 'review.learn.countOne' : 'review.learn.count', { n: exs.length, seat: seatName(st.seat) })),
        h('button', { type: 'button', class: 'primary small', 'data-testid': 'learn-start', onclick: start },
          t(st.finished ? 'review.learn.again' : 'review.learn.start')));
    }
    return [h('h3', {}, title()), picker, body];
  }

  /** The move tried, numbered as the move list numbers it: "4. P3d-4d ??". */
  function where(ex) {
    const round = host.roundOf?.(host.gameNode(ex.ply));
    return round ? `${round}. ${ex.action} ${ex.mark}` : t('analysis.plyN', { n: ex.ply });
  }

  function drawPrompt() {
    const ex = exercise();
    if (!ex) return null;
    const kind = t(`review.kind.${ex.judgement}`);
    const said = host.seat === ex.seat
      ? t('review.learn.youPlayed', { action: ex.action, kind })
      : t('review.learn.theyPlayed', { seat: seatName(ex.seat), action: ex.action, kind });
    const away = host.current() !== spot() && host.current()?.parent !== spot();
    return [
      h('p', { class: 'learn-step' }, h('b', {}, title()), ' · ', t('review.learn.step', { i: st.index + 1, n: list().length })),
      h('p', { 'data-testid': 'learn-prompt' }, `${where(ex)} · ${said}`),
      h('p', {
        class: `learn-verdict ${st.verdict === 'correct' ? 'ok' : st.verdict ? 'miss' : ''}`, role: 'status', 'data-testid': 'learn-verdict',
      }, verdictText()),
      h('div', { class: 'row learn-buttons' },
        away ? h('button', { type: 'button', class: 'small', 'data-testid': 'learn-back', onclick: () => host.go(spot()) }, t('review.learn.back')) : null,
        answered() ? null : h('button', { type: 'button', class: 'small', 'data-testid': 'learn-solution', onclick: solve }, t('review.learn.show')),
        h('button', { type: 'button', class: 'small primary', 'data-testid': 'learn-next', onclick: next }, t('review.learn.next')),
        h('button', { type: 'button', class: 'small', 'data-testid': 'learn-stop-here', onclick: stop }, t('review.learn.stop'))),
    ];
  }

  function update(lang) {
    const away = exercise() ? String(host.current() !== spot()) : '';
    drawOnce(section, [lang, st.seat, st.index, st.finished, list().length].join('|'), drawSection);
    drawOnce(prompt, [lang, st.seat, st.index, st.verdict, away].join('|'), drawPrompt);
    prompt.hidden = !exercise();
  }

  return {
    section, prompt, update,
    active: () => Boolean(exercise()),
    /** The engine's move as an arrow, on the position being tried once answered. */
    arrow: (node) => {
      const ex = exercise();
      return ex && answered() && node === spot() ? { line: [ex.best], player: ex.seat } : null;
    },
    /** Whether the engine's choice must stay hidden on `node` (the position being tried,
     * not yet answered). */
    hides: (node) => Boolean(exercise()) && !answered() && node === spot(),
    /** A move `node` played from `from` (`created`: a node the try added to the tree):
     * the answer, when `from` is the position tried. The try is judged, taken out of the
     * tree again (never a move of the game) and the position shown again: a miss may be
     * tried again, a find shows the engine's move as an arrow. */
    played: (from, node, created) => {
      const ex = exercise();
      if (!ex || answered() || from !== spot()) return;
      st.verdict = node.action === ex.best ? 'correct' : 'wrong';
      if (st.verdict === 'correct') st.found += 1;
      if (created && host.plyOf?.(node) < 0) host.remove?.(node);
      host.go(from);
      host.refresh();
      inSight();
      announce(verdictText());
    },
  };
}
