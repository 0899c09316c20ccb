// The computer review of a finished game of the site on the analysis board
// (`?room=<id>`): the review is looked for (`GET /api/rooms/{id}/review`) and, when
// nobody has asked for one yet, a button asks for it (`POST`, at once with
// `&review=1`); while it waits or runs it is asked again every 1.5 s, with its place in
// the queue or its progress; refusals are said in plain words. Once done: the
// evaluation graph (analysis/review-graph.js), the judged moves marked in the move list
// (?!, ?, ??), a table of each player's inaccuracies, mistakes and blunders, the list
// of judged moves (each goes to the position it was played in), the engine's preferred
// move of the position shown (in words under the board and as an arrow on it), and
// "Learn from your mistakes" (analysis/review-learn.js).
import { h } from '../dom.js';
import { lang, t } from '../i18n.js';
import { announce } from '../site.js';
import { describeAction } from '../say.js';
import { durationText } from '../clocks.js';
import { requestReview, roomReview } from './api.js';
import { JUDGEMENTS, MARKS, SEATS, bestAt, counts, markOf, markText, marks, pending, percent } from './review.js';
import { reviewGraph } from './review-graph.js';
import { roundOf } from './movelist.js';
import { drawOnce, learner } from './review-learn.js';

const POLL_MS = 1500;
/** Failed polls in a row (the network) before the failure is shown. */
const PATIENCE = 3;

/** A refusal of the review in words. */
export function reviewError(e) {
  switch (e?.code) {
    case 'rate_limited': return t('review.error.rateLimited', { time: durationText((e.retryAfter ?? 60) * 1000) });
    case 'review_busy': return t('review.error.busy');
    case 'reviews_off': return t('review.error.off');
    case 'game_not_finished': return t('review.error.notFinished');
    case 'room_not_found': case 'bad_room_id': return t('review.error.noRoom');
    default: return t('review.error.other', { reason: e?.message ?? '' });
  }
}

/**
 * The panel for room `host.room`. `host`: { room, seat (this browser's seat in the game
 * or null), auto (ask at once), gameNode(k) (the node after k plies of the game),
 * plyOf(node) (k, or -1 off the game), current(), go(node), setView(seat), refresh()
 * (the page drawn again) }. Returns { element (the panel), engine (the block under the
 * board), update(), decorate(moveListElement), arrow(node), played(from, node), stop() }.
 */
export function reviewPanel(host) {
  const st = { phase: 'loading', review: null, error: null, timer: null, failures: 0, graph: null, stopped: false };
  const title = h('h2', { id: 'review-title' });
  const body = h('div', { class: 'review-body' });
  const element = h('section', { class: 'panel review-panel', 'data-testid': 'review-panel', 'aria-labelledby': 'review-title' }, title, body);
  const engineText = h('div', { class: 'review-engine-text' });
  const learn = learner({
    review: () => st.review, gameNode: host.gameNode, current: host.current, go: host.go,
    setView: host.setView, refresh: host.refresh, seat: host.seat, remove: host.remove, plyOf: host.plyOf,
    showBoard: host.showBoard, roundOf,
  });
  /** Goes to `node` and brings the board into sight (a jump from the panel). */
  const jump = (node) => { host.go(node); host.showBoard?.(); };
  const engine = h('div', { class: 'review-engine', 'data-testid': 'review-engine', hidden: true }, engineText, learn.prompt);
  const done = () => st.review?.state === 'done';

  // ---- asking the server -----------------------------------------------------------------

  function schedule() {
    clearTimeout(st.timer);
    if (!st.stopped) st.timer = setTimeout(() => load(false), POLL_MS);
  }

  function took(review) {
    const was = st.review;
    st.review = review;
    st.phase = 'review';
    st.error = null;
    st.failures = 0;
    if (pending(review)) schedule();
    else if (review.state === 'done' && pending(was)) announce(t('review.ready'));
  }

  /** Looks the review up (`asking`: asks for it). */
  async function load(asking) {
    clearTimeout(st.timer);
    if (st.stopped) return;
    try {
      took(asking ? await requestReview(host.room) : await roomReview(host.room));
    } catch (e) {
      if (!asking && e.code === 'review_not_found') {
        st.phase = 'none';
        if (host.auto && !st.asked) { ask(); return; }
      } else if (!e.code && pending(st.review) && ++st.failures < PATIENCE) {
        schedule(); // the network: the review goes on, ask again
        return;
      } else {
        st.phase = 'error';
        st.error = e;
      }
    }
    host.refresh();
  }

  function ask() {
    st.asked = true;
    st.phase = 'asking';
    host.refresh();
    load(true);
  }

  // ---- drawing ----------------------------------------------------------------------------

  function statusView(review) {
    if (review.state === 'failed') {
      return [
        h('p', { class: 'error', role: 'alert', 'data-testid': 'review-error' }, t('review.failed', { reason: review.error ?? '—' })),
        h('p', {}, h('button', { type: 'button', 'data-testid': 'request-review', onclick: ask }, t('review.again'))),
      ];
    }
    const queued = review.state === 'queued';
    const ahead = Number(review.ahead) || 0;
    const text = queued
      ? (ahead ? t(ahead === 1 ? 'review.queuedOne' : 'review.queued', { n: ahead }) : t('review.queuedNext'))
      : t('review.running', { done: review.plies_done ?? 0, total: review.plies_total ?? '?' });
    const bar = h('progress', { class: 'review-progress', 'data-testid': 'review-progress', max: review.plies_total || 1, 'aria-label': t('review.progressLabel') });
    // Waiting in the queue: an empty bar (nothing done yet), never a part-filled one.
    bar.value = queued ? 0 : review.plies_done ?? 0;
    return [h('p', { role: 'status', 'data-testid': 'review-status' }, text), bar];
  }

  function summaryView(review) {
    const c = counts(review);
    return h('table', { class: 'review-summary', 'data-testid': 'review-summary' },
      h('caption', {}, t('review.summary')),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('review.player')),
        JUDGEMENTS.map((j) => h('th', { scope: 'col', class: `judged ${j}`, title: t(`review.col.${j}`) },
          h('span', { class: 'mark', 'aria-hidden': 'true' }, MARKS[j]), h('span', { class: 'sr-only' }, t(`review.col.${j}`)))))),
      h('tbody', {}, SEATS.map((s) => h('tr', { class: `seat-${s}`, 'data-seat': s },
        h('th', { scope: 'row' }, h('span', { class: 'swatch', 'aria-hidden': 'true' }), t(`seat.${s}`)),
        JUDGEMENTS.map((j) => h('td', { 'data-judgement': j }, String(c[s][j])))))));
  }

  function marksView(review) {
    const list = marks(review);
    if (!list.length) return h('p', { 'data-testid': 'review-marks' }, t('review.noMarks'));
    return h('ol', { class: 'review-marks', 'data-testid': 'review-marks' }, list.map((m) => h('li', {},
      h('button', {
        type: 'button', class: `mark-button seat-${m.seat}`, 'data-judgement': m.judgement, 'data-ply': m.ply,
        onclick: () => jump(host.gameNode(m.ply - 1)),
      }, markText(m, t, roundOf(host.gameNode(m.ply)) || undefined), h('span', { class: 'sr-only' }, ` (${t(`review.kind.${m.judgement}`)})`)))));
  }

  function doneView(review) {
    st.graph = reviewGraph(review, { onPick: (k) => host.go(host.gameNode(k)), onRelease: () => host.showBoard?.() });
    const nodes = Number(review.nodes);
    return [
      st.graph.element,
      h('p', { class: 'review-legend' },
        SEATS.map((s) => h('span', { class: `seat-${s}` }, h('span', { class: 'swatch', 'aria-hidden': 'true' }), t(`seat.${s}`))),
        h('span', { class: 'hint' }, t('review.graph.hint'))),
      summaryView(review),
      nodes > 0 ? h('p', { class: 'hint', 'data-testid': 'review-nodes' },
        t('review.nodes', { nodes: new Intl.NumberFormat(lang()).format(nodes) })) : null,
      h('h3', {}, t('review.marks')),
      marksView(review),
      learn.section,
    ];
  }

  function drawBody() {
    switch (st.phase) {
      case 'loading': return h('p', { role: 'status' }, t('review.loading'));
      case 'asking': return h('p', { role: 'status', 'data-testid': 'review-status' }, t('review.asking'));
      case 'none': return [
        h('p', {}, t('review.intro')),
        h('p', {}, h('button', { type: 'button', class: 'primary', 'data-testid': 'request-review', onclick: ask }, t('review.request'))),
      ];
      case 'error': return [
        h('p', { class: 'error', role: 'alert', 'data-testid': 'review-error' }, reviewError(st.error)),
        ['review_busy', null, undefined].includes(st.error?.code)
          ? h('p', {}, h('button', { type: 'button', 'data-testid': 'request-review', onclick: ask }, t('review.again'))) : null,
      ];
      default: return done() ? doneView(st.review) : statusView(st.review);
    }
  }

  /** The node of the game the node shown is on or comes from: its ply. */
  function linePly(node) {
    for (let n = node; n; n = n.parent) {
      const k = host.plyOf(n);
      if (k >= 0) return k;
    }
    return null;
  }

  function drawEngine() {
    const node = host.current();
    const k = host.plyOf(node);
    if (k < 0) return h('p', { class: 'hint' }, t('review.offLine'));
    const out = [];
    const m = k > 0 ? markOf(st.review, k) : null;
    if (m) {
      out.push(h('p', { class: `judged ${m.judgement}`, 'data-testid': 'review-judged', 'data-judgement': m.judgement },
        t('review.played', { seat: t(`seat.${m.seat}`), action: m.action, kind: t(`review.kind.${m.judgement}`), loss: percent(m.loss ?? 0) })));
    }
    const best = learn.hides(node) ? null : bestAt(st.review, k);
    if (best) {
      out.push(h('p', { 'data-testid': 'review-best' },
        t('review.engine', { action: '' }), h('b', {}, h('code', {}, best.best)), ` — ${describeAction(best.seat, best.best)}`));
    }
    return out;
  }

  function update() {
    const code = lang();
    title.textContent = t('review.title');
    const r = st.review;
    drawOnce(body, [code, st.phase, r?.state, r?.plies_done, r?.ahead, st.error?.code, st.error?.retryAfter].join('|'), drawBody);
    engine.hidden = !done();
    if (!done()) return;
    learn.update(code);
    const node = host.current();
    st.graph?.setPly(linePly(node));
    for (const b of body.querySelectorAll('.mark-button')) {
      b.setAttribute('aria-current', String(node === host.gameNode(Number(b.dataset.ply) - 1)));
    }
    drawOnce(engineText, [code, node?.id, learn.hides(node)].join('|'), drawEngine);
    engine.hidden = !engineText.childElementCount && !learn.active();
  }

  /** Marks the judged moves of the game in the move list (`list`: its element). */
  function decorate(list) {
    if (!done()) return;
    for (const [i, move] of (st.review.moves ?? []).entries()) {
      const m = markOf(st.review, i + 1);
      const node = m ? host.gameNode(i + 1) : null;
      const b = node ? list.querySelector(`button[data-node="${node.id}"]`) : null;
      if (!b || !move) continue;
      b.dataset.judgement = m.judgement;
      b.classList.add('judged', m.judgement);
      b.append(h('span', { class: 'mark', 'aria-hidden': 'true' }, m.mark));
      b.setAttribute('aria-label', `${b.getAttribute('aria-label')} (${t(`review.kind.${m.judgement}`)})`);
    }
  }

  /** The arrow of the engine's move on `node` (drawArrows' argument), or null. */
  function arrow(node) {
    if (!done()) return null;
    const fromLearn = learn.arrow(node);
    if (fromLearn || learn.hides(node)) return fromLearn;
    const k = host.plyOf(node);
    const best = k >= 0 ? bestAt(st.review, k) : null;
    return best ? { line: [best.best], player: best.seat } : null;
  }

  load(false);
  return {
    element, engine, update, decorate, arrow,
    played: (from, node, created) => { if (done()) learn.played(from, node, created); },
    stop: () => { st.stopped = true; clearTimeout(st.timer); },
  };
}

/** Brings the board into sight after a jump from the review panel (a marked move, the
 * graph, Learn): where the board's column `top` is off screen (a narrow screen, where
 * it stands far above the panel), the page scrolls to put its top at the top; `also`
 * (the block under the board) is then kept in sight too where the screen has room for
 * it and the board's `line` together. Instantly: no animation, which also honours a
 * wish for reduced motion. */
export function showBoard(top, line, also) {
  if (!top?.isConnected) return;
  const r = top.getBoundingClientRect();
  const boardBottom = line?.getBoundingClientRect().bottom ?? r.bottom;
  if (r.top < 0 || boardBottom > innerHeight) top.scrollIntoView({ block: 'start', behavior: 'instant' });
  const b = also?.isConnected ? also.getBoundingClientRect() : null;
  // The status line above the board may go out of sight.
  const lineTop = line?.getBoundingClientRect().top ?? top.getBoundingClientRect().top;
  if (b && b.bottom > innerHeight && b.bottom - lineTop <= innerHeight) {
    also.scrollIntoView({ block: 'end', behavior: 'instant' });
  }
}
