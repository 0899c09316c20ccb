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
  const st = { seat: SEATS.includes(host.seat) ? host.seat : 'first', index: -1, verdict: null, finished: false };
  const section = h('section', { class: 'review-learn', 'data-testid': 'review-learn' });
  const prompt = h('div', { class: 'learn-prompt', 'data-testid': 'learn-box', hidden: true });

  const list = () => exercises(host.review(), st.seat);
  const exercise = () => (st.index >= 0 ? list()[st.index] ?? null : null);
  const spot = () => { const ex = exercise(); return ex ? host.gameNode(ex.before) : null; };
  const seatName = (s) => t(`seat.${s}`);

  /** Keeps the block under the board in sight (on a small screen the board fills it). */
  const inSight = () => { if (!prompt.hidden) prompt.scrollIntoView({ block: 'nearest' }); };

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
      announce(t('review.learn.done'));
    }
  }

  function solve() {
    st.verdict = st.verdict ?? 'shown';
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
    return t(st.verdict === 'wrong' ? 'review.learn.wrong' : 'review.learn.solution', { action: ex.best });
  }

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
        h('span', { 'data-testid': 'learn-count' }, st.finished ? t('review.learn.done')
          : t(exs.length === 1 ? 'review.learn.countOne' : 'review.learn.count', { n: exs.length, seat: seatName(st.seat) })),
        h('button', { type: 'button', class: 'primary small', 'data-testid': 'learn-start', onclick: start },
          t(st.finished ? 'review.learn.again' : 'review.learn.start')));
    }
    return [h('h3', {}, t('review.learn.title')), picker, body];
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
      h('p', { class: 'learn-step' }, h('b', {}, t('review.learn.title')), ' · ', t('review.learn.step', { i: st.index + 1, n: list().length })),
      h('p', { 'data-testid': 'learn-prompt' }, `${t('analysis.plyN', { n: ex.ply })} · ${said}`),
      h('p', {
        class: `learn-verdict ${st.verdict === 'correct' ? 'ok' : st.verdict ? 'miss' : ''}`, role: 'status', 'data-testid': 'learn-verdict',
      }, verdictText()),
      h('div', { class: 'row learn-buttons' },
        away ? h('button', { type: 'button', class: 'small', 'data-testid': 'learn-back', onclick: () => host.go(spot()) }, t('review.learn.back')) : null,
        st.verdict ? null : h('button', { type: 'button', class: 'small', 'data-testid': 'learn-solution', onclick: solve }, t('review.learn.show')),
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
      return ex && st.verdict && st.verdict !== 'correct' && node === spot() ? { line: [ex.best], player: ex.seat } : null;
    },
    /** Whether the engine's choice must stay hidden on `node` (the position being tried,
     * not yet answered). */
    hides: (node) => Boolean(exercise()) && !st.verdict && node === spot(),
    /** A move `node` played from `from`: the answer, when `from` is the position tried. */
    played: (from, node) => {
      const ex = exercise();
      if (!ex || st.verdict || from !== spot()) return;
      st.verdict = node.action === ex.best ? 'correct' : 'wrong';
      announce(verdictText());
      // Back to the position, where the arrow shows the engine's move.
      if (st.verdict === 'wrong') host.go(from);
      else host.refresh();
      inSight();
    },
  };
}
