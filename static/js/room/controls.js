// The controls beside (or under) the board: what the selection does, illumination,
// takebacks, draw offers, aborting (those two: takeback.js), resignation, stepping
// through the game, the side the board is seen from, and the result with the rematch.
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { lang, t } from '../i18n.js';
import { savedToken, saveToken } from '../protocol.js';
import { pieceLabel, reasonText, resultLine, seatLabel, who } from './messages.js';
import { plyCount, shownPly } from './model.js';
import { reviewHref } from './record.js';
import { parseAction } from '../position.js';
import { abortParts, takebackParts } from './takeback.js';
import { changeText } from './ratings.js';

/** An action in words for the move confirmation: "bishop 2g takes on 10k, promoting
 * (B2gx10k+)" — a newcomer does not read the notation yet. */
export function actionWords(text) {
  const a = parseAction(text ?? '');
  if (!a || a.type === 'illuminate') return text;
  let words;
  if (a.type === 'drop') words = t('room.confirm.drop', { piece: pieceLabel(a.kind), to: a.to });
  else {
    words = t(a.capture ? 'room.confirm.capture' : 'room.confirm.move', { piece: pieceLabel(a.kind, a.promotedPiece), from: a.from, to: a.to });
    if (a.promote) words += t('room.confirm.promote');
    else if (a.decline) words += t('room.confirm.decline');
  }
  return t('room.confirm.words', { words, action: text });
}

/** The play controls (`data-testid="controls"`). `r`: the room view. */
export function renderControls(r) {
  const s = r.state;
  const parts = [];
  const live = r.model.view === null;
  if (r.myTurn && live && r.confirming) {
    parts.push(h('span', { class: 'hint' }, t('room.confirm.ask', { move: actionWords(r.confirming) })),
      h('button', { type: 'button', class: 'primary', 'data-testid': 'confirm-move', onclick: () => r.play(r.confirming) }, t('room.confirm.yes')),
      h('button', { type: 'button', class: 'small', 'data-testid': 'confirm-cancel', onclick: () => r.cancel() }, t('room.cancel')));
  } else if (r.myTurn && live) {
    if (r.selected?.hand) {
      parts.push(h('span', { class: 'hint' }, t('room.hint.drop', { piece: pieceLabel(r.selected.hand) })));
    } else if (r.selected?.cell) {
      parts.push(h('span', { class: 'hint' }, t('room.hint.move', { cell: r.selected.cell })));
    }
    if (r.selected) parts.push(h('button', { type: 'button', class: 'small', 'data-testid': 'cancel', onclick: () => r.cancel() }, t('room.cancel_esc')));
    if (r.legal.illuminate) {
      const cells = s.illumination ?? [];
      if (r.illumPreview) {
        parts.push(h('span', { class: 'hint lit' }, t('room.illuminate.preview', { cells: cells.join(', ') || '…' })),
          h('button', { type: 'button', class: 'primary', 'data-testid': 'illuminate-confirm', onclick: () => r.play(r.legal.illuminate) }, t('room.illuminate.confirm')),
          h('button', { type: 'button', class: 'small', onclick: () => r.cancel() }, t('room.cancel')));
      } else {
        parts.push(h('button', {
          type: 'button', class: 'illuminate', 'data-testid': 'illuminate',
          onclick: () => { r.selected = null; r.illumPreview = true; r.focusNext = 'illuminate-confirm'; r.render(); },
        }, t('room.illuminate.button', { n: cells.length })));
      }
    }
  } else if (r.premoveSel || r.premove) {
    const p = r.premove;
    parts.push(h('span', { class: 'hint premove-hint', 'data-testid': 'premove-hint' },
      p ? t('room.premove.queued', { move: p.hand ? `${p.hand}*${p.to}` : `${p.from}-${p.to}` }) : t('room.premove.choose')),
    h('button', { type: 'button', class: 'small', 'data-testid': 'premove-cancel', onclick: () => r.cancel() }, t('room.premove.cancel')));
  }
  parts.push(...takebackParts(r));
  if (s.status === 'playing' && r.you && r.model.pos?.active?.has(r.you)) {
    const offers = s.draw_offers ?? [];
    const send = (type) => () => r.send({ type });
    if (offers.length) {
      parts.push(h('span', { class: 'hint', 'data-testid': 'draw-offers' },
        t('room.draw.offered_by', { who: offers.map((x) => who(x, r.ctx())).join(', ') })));
    }
    if (offers.includes(r.you)) {
      parts.push(h('button', { type: 'button', class: 'small', 'data-testid': 'withdraw-draw', onclick: send('withdraw_draw') }, t('room.draw.withdraw')));
    } else if (offers.length) {
      parts.push(h('button', { type: 'button', class: 'small', 'data-testid': 'accept-draw', onclick: send('accept_draw') }, t('room.draw.accept')),
        h('button', { type: 'button', class: 'small', 'data-testid': 'decline-draw', onclick: send('decline_draw') }, t('room.draw.decline')));
    } else {
      parts.push(h('button', { type: 'button', class: 'small', 'data-testid': 'offer-draw', onclick: send('offer_draw') }, t('room.draw.offer')));
    }
    parts.push(...abortParts(r));
    if (r.confirmResign) {
      parts.push(h('span', { class: 'hint' }, t('room.resign.ask')),
        h('button', { type: 'button', class: 'danger', 'data-testid': 'resign-confirm', onclick: () => { r.confirmResign = false; r.send({ type: 'resign' }); } }, t('room.resign.yes')),
        h('button', { type: 'button', class: 'small', onclick: () => { r.confirmResign = false; r.render(); } }, t('room.resign.no')));
    } else {
      parts.push(h('button', { type: 'button', class: 'small resign', 'data-testid': 'resign', onclick: () => { r.confirmResign = true; r.focusNext = 'resign-confirm'; r.render(); } }, t('room.resign.button')));
    }
  }
  if (isOut(r) && !r.keepWatching) parts.push(outOffer(r));
  r.controls.replaceChildren(...parts);
}

/** Whether the reader's seat is out of a game that goes on without it. */
export function isOut(r) {
  const s = r.state;
  return Boolean(s?.status === 'playing' && r.you && r.model.pos?.active && !r.model.pos.active.has(r.you));
}

const KEEP_WATCHING_KEY = 'sannin.keepWatching';

/** Whether the reader said "Keep watching" in room `roomId` (for this tab's session). */
export function keepsWatching(roomId) {
  try { return sessionStorage.getItem(`${KEEP_WATCHING_KEY}.${roomId}`) === '1'; } catch { return false; }
}

function keepWatching(roomId) {
  try { sessionStorage.setItem(`${KEEP_WATCHING_KEY}.${roomId}`, '1'); } catch { /* for this page only */ }
}

/** "New game" (the lobby) or "Keep watching" (the offer goes) for a player who is out:
 * the same element from one render to the next (moves keep coming), anew in another
 * language. */
function outOffer(r) {
  if (r.outOffer?.lang !== lang()) r.outOffer = { lang: lang(), node: buildOutOffer(r) };
  return r.outOffer.node;
}

function buildOutOffer(r) {
  return h('div', { class: 'out-offer', role: 'group', 'data-testid': 'out-offer', 'aria-labelledby': 'out-offer-title' },
    h('strong', { id: 'out-offer-title' }, t('room.out.title')),
    h('span', { class: 'hint' }, t('room.out.text')),
    h('div', { class: 'row' },
      h('a', { class: 'button primary', href: '/', 'data-testid': 'new-game' }, t('room.out.new_game')),
      h('button', {
        type: 'button', class: 'small', 'data-testid': 'keep-watching',
        onclick: () => { keepWatching(r.roomId); r.keepWatching = true; r.render(); },
      }, t('room.out.keep_watching'))));
}

/** « ‹ ply › » and "back to the live position". */
export function renderNav(r) {
  const m = r.model;
  const count = plyCount(m);
  const at = shownPly(m);
  const live = m.view === null;
  const go = (n) => () => r.goTo(n);
  const btn = (testid, label, text, target, disabled) => h('button', {
    type: 'button', class: 'small nav', 'data-testid': testid, 'aria-label': label, title: label, disabled, onclick: go(target),
  }, text);
  r.nav.hidden = r.state?.status === 'waiting';
  const where = at === 0 ? t('room.nav.start') : t('room.nav.ply', { n: at, count });
  r.nav.replaceChildren(
    btn('nav-first', t('room.nav.first'), '«', 0, at === 0),
    btn('nav-prev', t('room.nav.prev'), '‹', at - 1, at === 0),
    btn('nav-next', t('room.nav.next'), '›', at + 1, at >= count),
    btn('nav-last', t('room.nav.last'), '»', count, at >= count),
    h('span', { class: 'nav-where', 'data-testid': 'nav-where', 'data-ply': at }, where));
  r.liveButton.hidden = live || r.state?.status === 'waiting';
  r.liveButton.textContent = m.missed ? t('room.nav.live_new') : t('room.nav.live');
  r.liveButton.classList.toggle('missed', m.missed);
}

export function renderViewPicker(r) {
  r.viewPicker.setAttribute('aria-label', t('room.view.label'));
  r.viewPicker.replaceChildren(h('span', {}, t('room.view.label')), ...SEATS.map((seat) => h('button', {
    type: 'button', class: `small seat-${seat}`, 'aria-pressed': String(r.viewSeat === seat),
    'data-testid': `view-${seat}`, onclick: () => r.setView(seat),
  }, seatLabel(seat))));
}

/** The result card, with the ranking, the rematch and the record. */
export function renderResult(r) {
  const s = r.state;
  const outcome = s.outcome ?? s.result ?? null;
  if (!outcome || s.status !== 'finished') { r.result.hidden = true; r.result.replaceChildren(); return; }
  r.result.hidden = false;
  const ctx = r.ctx();
  const ranking = outcome.ranking ?? [];
  // `replaceChildren` writes a null as the text "null": the parts left out are dropped.
  r.result.replaceChildren(...[
    h('strong', {}, resultLine(outcome, ctx)),
    h('span', { class: 'reason' }, t('room.result.reason', { reason: reasonText(outcome.reason) })),
    ranking.length ? h('ol', { class: 'ranking' }, ranking.map((p) => h('li', {}, who(p, ctx, { capital: true }), ratingChange(r, p)))) : null,
    !ranking.length && r.ratingChanges ? h('ul', { class: 'ranking' }, SEATS.filter((seat) => r.ratingChanges[seat])
      .map((seat) => h('li', {}, who(seat, ctx, { capital: true }), ratingChange(r, seat)))) : null,
    h('div', { class: 'rematch', 'data-testid': 'rematch-box' }, rematchParts(r)),
    r.recordLink('result-record')].filter(Boolean));
}

/** A rated game's change of the rating of the player at `seat` (`First` or `first`), once
 * known: "1520 → 1536 (+16)". */
function ratingChange(r, seat) {
  const key = String(seat).toLowerCase();
  const change = r.ratingChanges?.[key];
  if (!change) return null;
  const d = change.after - change.before;
  return [' ', h('span', {
    class: `rating-change${d > 0 ? ' up' : d < 0 ? ' down' : ''}`, 'data-testid': `rating-change-${key}`,
    title: t('room.result.ratingChange'),
  }, changeText(change))];
}

function rematchParts(r) {
  const s = r.state;
  const rm = s.rematch ?? {};
  const parts = [];
  if (rm.room) {
    parts.push(h('a', {
      class: 'button', href: `/rooms/${encodeURIComponent(rm.room)}`, 'data-testid': 'rematch-link',
      onclick: (e) => { if (r.you) { e.preventDefault(); followRematch(r.roomId, rm.room); } },
    }, t(r.you ? 'room.rematch.go' : 'room.rematch.watch')));
  } else if (r.you && SEATS.every((seat) => s.seats?.[seat])) {
    const asked = rm.requested ?? [];
    if (asked.includes(r.you)) {
      const waiting = SEATS.filter((seat) => !asked.includes(seat)).map((seat) => who(seat, r.ctx()));
      parts.push(h('span', { class: 'hint', 'data-testid': 'rematch-waiting' }, t('room.rematch.waiting', { who: waiting.join(', ') })),
        h('button', { type: 'button', class: 'small', 'data-testid': 'rematch-cancel', onclick: () => r.send({ type: 'cancel_rematch' }) }, t('room.cancel')));
    } else {
      parts.push(h('button', { type: 'button', class: 'primary', 'data-testid': 'rematch', onclick: () => r.send({ type: 'rematch' }) },
        asked.length ? t('room.rematch.ask_n', { n: asked.length }) : t('room.rematch.ask')));
    }
  }
  // A player whose game is over may go straight on to another one.
  if (r.you) parts.push(h('a', { class: 'button', href: '/', 'data-testid': 'new-game' }, t('room.out.new_game')));
  // Anyone (player or spectator) may have the game reviewed by the computer.
  if (plyCount(r.model) || s.moves?.length) {
    parts.push(h('a', { class: 'button', href: reviewHref(r.roomId, r.you), 'data-testid': 'request-review-result' }, t('room.review.open')));
  }
  return parts;
}

/** Our token holds our (rotated) seat in the rematch room too: carry it over and go. */
export function followRematch(roomId, room) {
  const token = savedToken(roomId);
  if (token && !savedToken(room)) saveToken(room, token);
  location.assign(`/rooms/${encodeURIComponent(room)}`);
}
