// The wait for a quick game goes on while the reader looks at other pages (the rules,
// a game being watched…): a bar under the header says so, with the time waited and
// Cancel. When the table is found the reader is taken to it — except from a room page,
// where a game may be under way: there the bar offers the way to the table instead.
import { h } from './dom.js';
import { onLangChange, t } from './i18n.js';
import {
  Waiter, elapsedText, errorText, leavePool, playSound, poolLabel, storeWaiting, tableFound, waitingTicket,
} from './pairing.js';

/** Shows the bar on this page if a ticket waits; `page` as site.js `pageOf` names it. */
export function mountWaitBar(page) {
  const w = waitingTicket();
  if (!w) return;
  const text = h('span', { class: 'wait-text' });
  const clock = h('span', { class: 'wait-clock', role: 'timer', 'aria-live': 'off' });
  const actions = h('span', { class: 'wait-actions' });
  const bar = h('div', { class: 'wait-bar', 'aria-live': 'polite', 'data-testid': 'wait-bar' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), text, clock, actions);
  document.querySelector('header.top')?.after(bar);
  let found = null;
  let trouble = '';
  const cancel = h('button', { type: 'button', class: 'small', 'data-testid': 'wait-bar-cancel' });
  const lobby = h('a', { class: 'button small', href: '/' });
  cancel.addEventListener('click', async () => {
    waiter.stop();
    cancel.disabled = true;
    try {
      await leavePool(w.ticket);
      storeWaiting(null);
      bar.remove();
      clearInterval(timer);
    } catch (e) {
      trouble = t('quick.error.cancel', { reason: errorText(e, { joining: false }) });
      cancel.disabled = false;
      waiter.start();
      draw();
    }
  });
  function draw() {
    if (found) {
      text.textContent = t('quick.found');
      clock.textContent = '';
      actions.replaceChildren(h('a', { class: 'button small primary', href: `/rooms/${encodeURIComponent(found)}`, 'data-testid': 'wait-bar-go' }, t('quick.goToTable')));
      return;
    }
    text.textContent = trouble || t('quick.lookingIn', { pool: poolLabel(w.pool) });
    clock.textContent = elapsedText(Date.now() - w.since);
    cancel.textContent = t('quick.cancel');
    lobby.textContent = t('room.missing.back');
    actions.replaceChildren(lobby, cancel);
  }
  const waiter = new Waiter(w, {
    onTrouble(msg) { trouble = msg ?? ''; draw(); },
    onGone() { storeWaiting(null); bar.remove(); clearInterval(timer); },
    onMatched(m) {
      // Another tab took the table first: it goes there, not this one.
      if (waitingTicket()?.ticket !== w.ticket) {
        bar.remove();
        clearInterval(timer);
        return;
      }
      tableFound(w, m);
      found = m.room;
      clearInterval(timer);
      playSound('alliance');
      document.title = t('quick.foundTitle');
      bar.classList.add('found');
      draw();
      if (page !== 'room') setTimeout(() => location.assign(`/rooms/${encodeURIComponent(m.room)}`), 600);
    },
  }).start();
  const timer = setInterval(() => { if (!found) clock.textContent = elapsedText(Date.now() - w.since); }, 1000);
  draw();
  onLangChange(draw);
}
