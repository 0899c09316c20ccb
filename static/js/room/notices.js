// Notices: the list (newest first, scrolling inside itself), the notice line above the
// board with the latest of them, and errors, in the same place. Nothing is ever laid
// over the board: the line has a fixed height in the strip above it, holds one notice
// at a time, and goes with the next move or a click. The news that matters (the game
// started, an alliance, a mate) is set off and stays a moment even if a move comes at
// once (bots answer within a blink).
import { h } from '../dom.js';

const KEEP = 80;
/** How long news that matters stays at least, whatever moves come meanwhile. */
const NEWS_MS = 4000;

export class Notices {
  constructor() {
    this.log = h('ul', { class: 'log', 'data-testid': 'log', 'aria-live': 'polite' });
    this.text = h('span', { class: 'notice-text' });
    // The log reads the notices out: the line is for the eyes (a click clears it).
    this.line = h('div', {
      class: 'notice-line', 'data-testid': 'notice-line', 'aria-hidden': 'true', onclick: () => this.dismiss(),
    }, h('span', { class: 'notice' }, this.text, h('span', { class: 'close' }, '×')));
    this.error = h('div', { class: 'error', role: 'alert', 'data-testid': 'error' });
    this.errorTimer = null;
    this.shownAt = 0;
    this.news = false;
    this.dismissTimer = null;
  }

  /** A notice for the list and the line; `news`: set off on the line. */
  add(text, kind = '', news = false) {
    if (!text) return;
    this.log.prepend(h('li', { class: kind }, text));
    while (this.log.children.length > KEEP) this.log.lastChild.remove();
    // Lesser news does not push aside news that matters while it is fresh.
    if (this.news && !news && this.fresh()) return;
    this.show(text, kind, news);
  }

  show(text, kind, news) {
    clearTimeout(this.dismissTimer);
    this.news = news;
    this.shownAt = Date.now();
    this.line.className = `notice-line shown ${kind}${news ? ' news' : ''}`;
    this.line.dataset.kind = kind || 'note';
    this.line.title = text;
    this.text.textContent = text;
  }

  fresh() {
    return Date.now() - this.shownAt < NEWS_MS;
  }

  /** A move was made: the line clears (news that matters, once it has been seen). */
  moved() {
    if (!this.news || !this.fresh()) {
      this.dismiss();
      return;
    }
    clearTimeout(this.dismissTimer);
    this.dismissTimer = setTimeout(() => this.dismiss(), NEWS_MS - (Date.now() - this.shownAt));
  }

  dismiss() {
    clearTimeout(this.dismissTimer);
    this.news = false;
    this.line.className = 'notice-line';
    this.line.dataset.kind = '';
    this.line.removeAttribute('title');
    this.text.textContent = '';
  }

  showError(text, code = '') {
    this.error.textContent = text;
    this.error.dataset.code = code;
    clearTimeout(this.errorTimer);
    // A ban says until when: long enough to be read.
    const ms = { client: 4000, banned: 30000 }[code] ?? 10000;
    this.errorTimer = setTimeout(() => { this.error.textContent = ''; }, ms);
  }

  clearError() {
    clearTimeout(this.errorTimer);
    this.error.textContent = '';
  }
}
