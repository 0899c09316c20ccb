// Reporting a chat line or a player to the moderators (docs/moderation.md §3): one
// dialog for the whole page — a reason, a few optional words, Send — that posts
// `POST /api/reports` with what is reported (`{room, chat_id}`, `{room, seat}` or
// `{name}`) and says how it went: thanks, or the server's own words (too many reports,
// no such line…).
import { h, iconSvg } from './dom.js';
import { t } from './i18n.js';
import { api } from './protocol.js';

export const REASONS = ['abuse', 'cheating', 'spam', 'other'];
export const MAX_DETAILS = 500;

/** A small flag, for the report buttons. */
export function flagIcon() {
  return iconSvg('flag-icon', 'M5 2.5a1 1 0 0 1 1 1V4h11.2a.8.8 0 0 1 .64 1.28L16 9l2.84 3.72a.8.8 0 0 1-.64 1.28H6v6.5a1 1 0 0 1-2 0v-17a1 1 0 0 1 1-1Z');
}

let dialog = null;

function theDialog() {
  if (!dialog) {
    dialog = h('dialog', { class: 'report-dialog', 'data-testid': 'report-dialog', 'aria-labelledby': 'report-title' });
    document.body.append(dialog);
  }
  return dialog;
}

/**
 * Opens the report dialog. `target`: `{room, chat_id}`, `{room, seat}` or `{name}`;
 * `about`: `{name, text}` — whom (and which line) the reader reports, shown at the top.
 */
export function openReport(target, about = {}) {
  const d = theDialog();
  d.replaceChildren(reportForm(d, target, about));
  d.showModal();
  d.querySelector('select')?.focus();
}

function aboutText(target, about) {
  const name = about.name || t('report.someone');
  if (target.chat_id !== undefined) return t('report.aboutLine', { name, text: about.text ?? '' });
  return t('report.aboutPlayer', { name });
}

function reportForm(d, target, about) {
  const reason = h('select', { id: 'report-reason', 'data-testid': 'report-reason', required: true },
    REASONS.map((r) => h('option', { value: r }, t(`report.reason.${r}`))));
  const details = h('textarea', {
    id: 'report-details', 'data-testid': 'report-details', maxlength: MAX_DETAILS, rows: 3,
  });
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'report-error' });
  const send = h('button', { type: 'submit', class: 'primary', 'data-testid': 'report-send' }, t('report.send'));
  const cancel = h('button', { type: 'button', 'data-testid': 'report-cancel', onclick: () => d.close() }, t('report.cancel'));
  async function submit(e) {
    e.preventDefault();
    error.textContent = '';
    send.disabled = true;
    try {
      const text = details.value.trim();
      await api('/api/reports', {
        method: 'POST', body: JSON.stringify({ ...target, reason: reason.value, ...(text ? { text } : {}) }),
      });
      d.replaceChildren(thanks(d));
      d.querySelector('button')?.focus();
    } catch (err) {
      error.textContent = err.status ? err.message : t('report.network');
      send.disabled = false;
    }
  }
  return h('form', { class: 'report-form', onsubmit: submit },
    h('h2', { id: 'report-title' }, t('report.title')),
    h('p', { class: 'report-about', 'data-testid': 'report-about' }, aboutText(target, about)),
    h('label', { for: 'report-reason' }, t('report.reason')), reason,
    h('label', { for: 'report-details' }, t('report.details')), details,
    error,
    h('div', { class: 'report-buttons' }, send, cancel));
}

function thanks(d) {
  return h('div', { class: 'report-form' },
    h('h2', { id: 'report-title' }, t('report.title')),
    h('p', { role: 'status', 'data-testid': 'report-done' }, t('report.sent')),
    h('div', { class: 'report-buttons' },
      h('button', { type: 'button', class: 'primary', 'data-testid': 'report-close', onclick: () => d.close() }, t('report.close'))));
}
