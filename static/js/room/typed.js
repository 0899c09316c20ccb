// Moves typed on the keyboard (desktop): a labelled text box under the board where the
// player writes a move as the game record does (RULES §13.1, the move table's own
// text: `P3c-4d`, `B2gx10k+`, `P*5e`, `+K!`) or its short form (`S-9l`, FROM left out
// when one piece can make the move). It completes from the server's `legal` list (a
// datalist), and Enter plays; a text that is no legal move is refused in words and
// sends nothing. And the moves read out: the site's polite live region says each move
// ("Middle: silver from 8m to 9l, check") when the reader turned "Announce moves" on.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { parseAction } from '../position.js';
import { getPref } from '../prefs.js';
import { sayMove } from '../say.js';
import { announce } from '../site.js';

const SHORT = /^(\+?)([KRBGSNLP])(\d{1,2}[a-m])?([-x])?(\d{1,2}[a-m])([+=]?)$/;
/** How long after a move its words wait for the checks that come with it. */
const SAY_AFTER_MS = 250;

/** The typed text written as the record writes it: pieces upper case, cells lower case,
 * no spaces. */
export function normalise(text) {
  return String(text).replace(/\s+/g, '').replace(/[a-zA-Z]/g, (c, i, s) => {
    // A letter right after a digit is a rank, an x before one a capture; any other a piece.
    if (/\d/.test(s[i - 1] ?? '') || (/x/i.test(c) && /\d/.test(s[i + 1] ?? ''))) return c.toLowerCase();
    return c.toUpperCase();
  });
}

/**
 * Matches a typed move against the legal action texts. Returns `{ action }`, or
 * `{ error: 'empty'|'unknown'|'illegal'|'which'|'promote', options }`. Pure: runs in
 * node.
 */
export function matchTyped(typed, legal) {
  const text = normalise(typed);
  if (!text) return { error: 'empty' };
  if (legal.includes(text)) return { action: text };
  if (/^\+K(\d{1,2}[a-m])?!$/.test(text)) {
    const lit = legal.find((a) => parseAction(a)?.type === 'illuminate');
    return lit ? { action: lit } : { error: 'illegal' };
  }
  if (/^[RBGSNLP]\*\d{1,2}[a-m]$/.test(text)) return { error: 'illegal' };
  const m = SHORT.exec(text);
  if (!m) return { error: 'unknown' };
  const [, plus, kind, from, sep, to, suffix] = m;
  const found = legal.map(parseAction).filter((a) => a?.type === 'move'
    && a.kind === kind && a.promotedPiece === (plus === '+') && a.to === to
    && (!from || a.from === from) && (!sep || a.capture === (sep === 'x'))
    && (suffix === '+' ? a.promote : suffix === '=' ? !a.promote : true));
  if (!found.length) return { error: 'illegal' };
  const froms = [...new Set(found.map((a) => a.from))];
  if (froms.length > 1) return { error: 'which', options: found.map((a) => a.text) };
  if (found.length > 1) return { error: 'promote', options: found.map((a) => a.text) };
  return { action: found[0].text };
}

let lists = 0;

/** The box, its completions and its message. `r`: the room view (state, legal
 * texts, `play`). */
export class TypedMove {
  constructor(r) {
    this.r = r;
    const id = `typed-move-${++lists}`;
    this.input = h('input', {
      type: 'text', id, list: `${id}-list`, autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off',
      'data-testid': 'typed-move', 'aria-describedby': `${id}-help ${id}-msg`,
      onkeydown: (e) => { if (e.key === 'Enter') { e.preventDefault(); this.submit(); } },
    });
    this.list = h('datalist', { id: `${id}-list`, 'data-testid': 'typed-options' });
    this.label = h('label', { for: id });
    this.button = h('button', { type: 'button', class: 'small', 'data-testid': 'typed-play', onclick: () => this.submit() });
    this.help = h('span', { id: `${id}-help`, class: 'visually-hidden' });
    this.message = h('span', { id: `${id}-msg`, class: 'typed-message', role: 'status', 'data-testid': 'typed-message' });
    this.node = h('div', { class: 'typed-move' }, this.label, this.input, this.button, this.list, this.help, this.message);
    this.shown = '';
    this.relabel();
  }

  relabel() {
    this.label.textContent = t('room.typed.label');
    this.input.placeholder = t('room.typed.placeholder');
    this.button.textContent = t('room.typed.play');
    this.help.textContent = t('room.typed.help');
  }

  /** Its completions follow the legal moves (none while it is not the reader's move);
   * it is there only for a player of a game under way (`playing`). */
  update(legal, playing) {
    this.node.hidden = !playing;
    const key = legal.join(' ');
    if (key === this.shown) return;
    this.shown = key;
    this.list.replaceChildren(...legal.map((a) => h('option', { value: a })));
  }

  submit() {
    const r = this.r;
    if (!r.myTurn || r.pendingAction) {
      this.say(t('room.typed.not_turn'));
      return;
    }
    const typed = this.input.value;
    const got = matchTyped(typed, r.state?.legal ?? []);
    if (got.action) {
      this.say('');
      this.input.value = '';
      r.play(got.action);
      this.input.focus({ preventScroll: true });
      return;
    }
    const text = got.error === 'unknown' ? typed.trim() : normalise(typed);
    this.say(t(`room.typed.${got.error}`, { text, options: got.options?.join(', ') ?? '' }));
  }

  say(text) {
    this.message.textContent = text;
    this.message.classList.toggle('error', Boolean(text));
  }
}

/** The moves read out, a moment after each (the checks it gives come with the events
 * that follow it), in the site's polite live region, when the reader turned the
 * "Announce moves" preference on. `checked()`: whether someone is in check then. */
export function announceMove(player, action, checked) {
  if (getPref('announceMoves') !== true) return;
  setTimeout(() => announce(sayMove(player, action, checked())), SAY_AFTER_MS);
}
