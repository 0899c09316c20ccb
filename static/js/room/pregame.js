// The waiting room: take a seat, get ready, propose or answer a pre-game alliance
// (RULES §12.8), add or remove computer players. A table of quick pairing only waits
// for its players.
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { START_POSITION } from '../position.js';
import { lang, t } from '../i18n.js';
import { storedName } from '../prefs.js';
import { botControls } from '../bots.js';
import { account, currentAccount, onAccountChange } from '../account.js';
import { seatLabel, who } from './messages.js';

export class Pregame {
  /** `r`: the room view (state, you, proposal, send, join). */
  constructor(r) {
    this.r = r;
    this.node = h('div', { class: 'pregame', 'data-testid': 'pregame' });
    this.joinForm = null;
    this.seatLabels = {};
    this.drawn = null;
  }

  /** The join form is built once, so that typing a name is not disturbed by re-rendering;
   * its words follow a language change. */
  buildJoinForm() {
    this.seatButtons = Object.fromEntries(SEATS.map((seat) => [seat, h('button', {
      type: 'button', class: `seat-button seat-${seat}`, 'data-testid': `sit-${seat}`, onclick: () => this.r.join(seat),
    })]));
    this.nameInput = h('input', { 'data-testid': 'room-name', maxlength: 32, value: storedName() });
    this.anyButton = h('button', { type: 'button', 'data-testid': 'sit-any', onclick: () => this.r.join(null) });
    this.joinTitle = h('h2');
    this.joinFields = h('div', { class: 'join-fields' }, this.nameInput,
      h('div', { class: 'seat-buttons' }, Object.values(this.seatButtons), this.anyButton));
    // A rated room seats accounts only: a guest is sent to log in (and back here).
    this.ratedText = h('p');
    this.ratedLink = h('a', { class: 'button primary', 'data-testid': 'rated-login' });
    this.ratedLogin = h('div', { class: 'rated-login', 'data-testid': 'rated-login-box' }, this.ratedText, this.ratedLink);
    this.joinForm = h('div', { class: 'join-form' }, this.joinTitle, this.joinFields, this.ratedLogin);
    currentAccount();
    onAccountChange(() => this.r.render());
    // The seated player's buttons stay the same elements from one render to the next: a
    // click whose press and release fall on either side of a redraw would be lost.
    this.fullNote = h('p');
    this.seatedTitle = h('h2');
    this.readyButton = h('button', {
      type: 'button', 'data-testid': 'ready',
      onclick: () => this.r.send({ type: this.isReady() ? 'unready' : 'ready' }),
    });
    this.leaveButton = h('button', { type: 'button', class: 'small', 'data-testid': 'leave', onclick: () => this.r.conn.leave() });
    this.more = h('div');
    this.seated = h('div', {}, this.seatedTitle, this.readyButton, this.leaveButton, this.more);
    // A table of quick pairing: its seats were taken for its players and it starts by
    // itself once they are all here (no ready step, no seat to take or leave).
    this.pairedTitle = h('h2');
    this.pairedText = h('p');
    this.pairedNote = h('div', { class: 'paired-note', 'data-testid': 'paired-note' }, this.pairedTitle, this.pairedText);
    this.node.replaceChildren(this.pairedNote, this.joinForm, this.fullNote, this.seated);
  }

  /** In a rated room, a guest gets "Log in to play rated games" in place of the seats. */
  renderRatedLogin(s) {
    const guest = Boolean(s.rated) && !account();
    this.ratedLogin.hidden = !guest;
    this.joinFields.hidden = guest;
    if (!guest) return;
    this.ratedText.textContent = t('room.join.rated_text');
    this.ratedLink.textContent = t('room.join.rated_login');
    this.ratedLink.href = `/account?next=${encodeURIComponent(location.pathname)}`;
  }

  isReady() {
    const { r } = this;
    return Boolean(r.you && r.state?.seats?.[r.you]?.ready);
  }

  /** What the bot and alliance controls are drawn from: they are redrawn only when it
   * changes, so that another seat's readiness or connection neither swallows a click
   * nor resets a bot level being chosen. */
  key() {
    const { r } = this;
    const seats = SEATS.map((seat) => {
      const i = r.state.seats?.[seat];
      return i ? [i.name ?? null, i.bot ?? null, Boolean(i.taken_over)] : null;
    });
    return JSON.stringify([lang(), r.you ?? null, seats, r.model.proposal ?? null, canAlly(r.state)]);
  }

  render() {
    const { r } = this;
    const s = r.state;
    this.node.hidden = s.status !== 'waiting';
    if (this.node.hidden) return;
    if (!this.joinForm) this.buildJoinForm();
    this.joinTitle.textContent = t('room.join.title');
    this.renderRatedLogin(s);
    this.nameInput.placeholder = t('room.join.name');
    this.nameInput.setAttribute('aria-label', t('room.join.name'));
    this.anyButton.textContent = t('room.join.any');
    for (const seat of SEATS) {
      const label = t('room.join.sit', { seat: seatLabel(seat) });
      if (this.seatLabels[seat] === label) continue;
      this.seatLabels[seat] = label;
      this.seatButtons[seat].replaceChildren(h('span', { class: 'swatch' }), label);
    }
    this.pairedNote.hidden = !s.paired;
    if (s.paired) {
      this.pairedTitle.textContent = t('room.paired.title');
      this.pairedText.textContent = t('room.paired.text');
      this.joinForm.hidden = true;
      this.fullNote.hidden = true;
      this.seated.hidden = true;
      return;
    }
    const free = SEATS.filter((seat) => !s.seats?.[seat]);
    this.joinForm.hidden = Boolean(r.you) || !free.length;
    for (const seat of SEATS) this.seatButtons[seat].hidden = !free.includes(seat);
    this.fullNote.hidden = Boolean(r.you) || free.length > 0;
    this.fullNote.textContent = t('room.join.full');
    this.seated.hidden = !r.you;
    if (!r.you) return;
    const ready = this.isReady();
    this.seatedTitle.textContent = t('room.pregame.title');
    this.readyButton.className = ready ? '' : 'primary';
    this.readyButton.setAttribute('aria-pressed', String(ready));
    this.readyButton.textContent = t(ready ? 'room.pregame.unready' : 'room.pregame.ready');
    this.leaveButton.textContent = t('room.pregame.leave');
    const key = this.key();
    if (key === this.drawn) return;
    this.drawn = key;
    const parts = [];
    const ctx = r.ctx();
    const bots = botControls(s, (msg) => r.send(msg));
    if (bots) parts.push(bots);
    const p = r.model.proposal;
    if (p && p.to === r.you) {
      parts.push(h('p', { class: 'proposal' }, t('room.note.proposed.to_you', { from: who(p.from, ctx, { capital: true }) })),
        h('button', { type: 'button', class: 'primary', 'data-testid': 'accept-alliance', onclick: () => r.send({ type: 'accept_alliance' }) }, t('room.pregame.accept')),
        h('button', { type: 'button', 'data-testid': 'decline-alliance', onclick: () => r.send({ type: 'decline_alliance' }) }, t('room.pregame.decline')));
    } else if (p && p.from === r.you) {
      parts.push(h('p', { class: 'proposal' }, t('room.pregame.waiting_answer', { to: who(p.to, ctx) })));
    } else if (canAlly(s)) {
      // A computer player answers too, as its search rates the alliance.
      const others = SEATS.filter((seat) => seat !== r.you && r.state.seats?.[seat]);
      if (others.length) {
        parts.push(h('p', { class: 'hint' }, t('room.pregame.propose_hint')),
          ...others.map((seat) => h('button', {
            type: 'button', class: `small seat-${seat}`, 'data-testid': `propose-${seat}`,
            onclick: () => r.send({ type: 'propose_alliance', seat }),
          }, t('room.pregame.propose', { who: who(seat, ctx) }))));
      }
    }
    this.more.replaceChildren(...parts);
  }
}

/** Whether the players of `s` may still ally: not once an alliance is agreed, nor in a
 * room started from a position of its own (RULES §12.8). */
export function canAlly(s) {
  return !s.alliance?.agreed && (!s.start_position || s.start_position === START_POSITION);
}
