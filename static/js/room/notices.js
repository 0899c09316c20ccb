// Notices: the list (newest first, scrolling inside itself), the one-line strip above
// the board with the latest of them, passing banners laid over the board (they never
// push it), and errors, also over the board.
import { h } from '../dom.js';
import { t } from '../i18n.js';

const KEEP = 80;

export class Notices {
  constructor() {
    this.log = h('ul', { class: 'log', 'data-testid': 'log', 'aria-live': 'polite' });
    this.line = h('div', { class: 'notice-line', 'data-testid': 'notice-line', 'aria-hidden': 'true' });
    this.banners = h('div', { class: 'banners', 'data-testid': 'banners', role: 'status' });
    this.error = h('div', { class: 'error', role: 'alert', 'data-testid': 'error' });
    this.errorTimer = null;
  }

  add(text, kind = '', banner = false) {
    if (!text) return;
    this.log.prepend(h('li', { class: kind }, text));
    while (this.log.children.length > KEEP) this.log.lastChild.remove();
    this.line.className = `notice-line ${kind}`;
    this.line.textContent = text;
    if (banner) this.banner(text, kind);
  }

  /** A banner over the board. Results, mates and alliances stay until dismissed (or
   * until the next one); other news fades. At most two are shown. */
  banner(text, kind) {
    const close = h('button', { type: 'button', class: 'close', 'aria-label': t('room.dismiss') }, '×');
    const b = h('div', { class: `banner ${kind}`, 'data-testid': `banner-${kind || 'note'}` }, h('span', {}, text), close);
    close.addEventListener('click', () => b.remove());
    const stays = kind === 'alliance' || kind === 'mate';
    setTimeout(() => b.remove(), stays ? 20000 : 6000);
    this.banners.append(b);
    while (this.banners.children.length > 2) this.banners.firstChild.remove();
  }

  clearBanners() {
    this.banners.replaceChildren();
  }

  showError(text, code = '') {
    this.error.textContent = text;
    this.error.dataset.code = code;
    clearTimeout(this.errorTimer);
    this.errorTimer = setTimeout(() => { this.error.textContent = ''; }, code === 'client' ? 4000 : 10000);
  }

  clearError() {
    clearTimeout(this.errorTimer);
    this.error.textContent = '';
  }
}
