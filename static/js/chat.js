// The room chat (docs/protocol.md §13). Players write and read the players' chat only;
// spectators write the spectators' chat and may also read the players' (two tabs).
// Messages are text nodes: never parsed as HTML. Each line of someone else has a flag
// that reports it to the moderators (report.js); one's own lines have none. A writer
// with an account is a link to its profile; a guest's name carries the guest tag.
import { h } from './dom.js';
import { t } from './i18n.js';
import { flagIcon, openReport } from './report.js';
import { guestMark, isBot } from './players.js';
import { profileLink } from './account.js';

export class ChatPanel {
  /** `send(text)` sends a chat message; `roomId`: the room its lines are reported in;
   * `seatInfo(seat)`: the room's seat (a bot's lines carry no guest tag). */
  constructor(send, { maxChars = 500, roomId = null, seatInfo = null } = {}) {
    this.send = send;
    this.roomId = roomId;
    this.seatInfo = seatInfo;
    this.sent = []; // the texts this page sent last (a spectator's own lines)
    this.role = 'spectator';
    // Spectators start on their own chat, the one they can write in.
    this.tab = 'spectators';
    this.unread = { players: 0, spectators: 0 };
    this.lists = {
      players: h('ul', { class: 'chat-list', 'data-testid': 'chat-players', 'aria-live': 'polite' }),
      spectators: h('ul', { class: 'chat-list', 'data-testid': 'chat-spectators', 'aria-live': 'polite' }),
    };
    this.tabs = h('div', { class: 'chat-tabs', role: 'tablist' });
    this.input = h('input', {
      'data-testid': 'chat-input', maxlength: maxChars, autocomplete: 'off',
    });
    this.sendButton = h('button', { type: 'submit', 'data-testid': 'chat-send' });
    this.title = h('h2', { class: 'visually-hidden' });
    this.note = h('p', { class: 'hint chat-note', 'data-testid': 'chat-note' });
    this.form = h('form', { class: 'chat-form', onsubmit: (e) => this.submit(e) },
      this.input, this.sendButton);
    this.node = h('section', { class: 'panel chat', 'data-testid': 'chat' },
      this.title, this.tabs, this.lists.players, this.lists.spectators, this.note, this.form);
    this.relabel();
  }

  submit(e) {
    e.preventDefault();
    const text = this.input.value.trim();
    if (!text) return;
    this.send(text);
    this.sent = [...this.sent.slice(-19), text];
    this.input.value = '';
  }

  /** 'player' or 'spectator': what this page may read and where it writes; `seat`:
   * the reader's (its lines are not reported). */
  setRole(role, seat = null) {
    for (const list of Object.values(this.lists)) list.dataset.you = seat ?? '';
    if (role === this.role) return;
    this.role = role;
    if (role === 'player') this.tab = 'players';
    else this.tab = 'spectators';
    this.render();
  }

  setHistory(messages) {
    for (const list of Object.values(this.lists)) list.replaceChildren();
    this.unread = { players: 0, spectators: 0 };
    for (const m of messages) this.add(m, false);
    this.render();
  }

  add(m, live = true) {
    const channel = m.channel === 'spectators' ? 'spectators' : 'players';
    if (channel === 'spectators' && this.role === 'player') return; // never shown to players
    const who = h('span', { class: `who${m.seat ? ` seat-${m.seat}` : ''}` },
      m.seat ? h('span', { class: 'swatch', title: t(`room.seat.${m.seat}`) }) : null, this.writer(m));
    const time = new Date(m.at_ms ?? Date.now()).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    const list = this.lists[channel];
    list.append(h('li', { 'data-id': m.id, 'data-seat': m.seat ?? null, class: this.isOwn(m, channel, live) ? 'own' : null },
      h('span', { class: 'line' }, h('time', {}, time), ' ', who, ': ', h('span', { class: 'text' }, String(m.text ?? ''))), this.flag(m)));
    while (list.children.length > 200) list.firstChild.remove();
    list.scrollTop = list.scrollHeight;
    if (live && channel !== this.tab) this.unread[channel] += 1;
    if (live) this.render();
  }

  /** The writer's name: an account's links to its profile (in another tab), a guest's
   * has the guest tag after it; a computer player is no guest. */
  writer(m) {
    // A spectator that gave no name has the server's default (DEFAULT_SPECTATOR_NAME),
    // said in the reader's language.
    const unnamed = m.channel === 'spectators' && !m.seat && !m.account && m.name === 'Spectator';
    const name = unnamed ? t('room.chat.anonymous') : String(m.name ?? '?');
    const seat = m.seat ? this.seatInfo?.(m.seat) : null;
    if (seat && isBot(seat)) return name;
    if (typeof m.account === 'string' && m.account) {
      return h('a', { class: 'profile-link', href: profileLink(m.account), target: '_blank', rel: 'noopener' }, name);
    }
    return 'account' in m && m.account === null ? [name, ' ', guestMark()] : name;
  }

  /** A spectator's own line, just sent from this page (a player's is told by its seat). */
  isOwn(m, channel, live) {
    if (!live || channel !== 'spectators' || this.role !== 'spectator') return false;
    const i = this.sent.indexOf(String(m.text ?? ''));
    if (i < 0) return false;
    this.sent.splice(i, 1);
    return true;
  }

  /** The button that reports line `m` (none without a room or an id). */
  flag(m) {
    if (!this.roomId || m.id === undefined || m.id === null) return null;
    return h('button', {
      type: 'button', class: 'chat-flag', 'data-testid': 'chat-report',
      'aria-label': t('report.chatLabel'), title: t('report.chatLabel'),
      onclick: () => openReport({ room: this.roomId, chat_id: m.id }, { name: String(m.name ?? ''), text: String(m.text ?? '') }),
    }, flagIcon());
  }

  /** Words that do not change with the messages (again after a language change). */
  relabel() {
    for (const b of this.node.querySelectorAll('.chat-flag')) {
      b.setAttribute('aria-label', t('report.chatLabel'));
      b.title = t('report.chatLabel');
    }
    this.input.placeholder = t('room.chat.placeholder');
    this.input.setAttribute('aria-label', t('room.chat.placeholder'));
    this.sendButton.textContent = t('room.chat.send');
    this.title.textContent = t('room.tab.chat');
    this.render();
  }

  render() {
    const spectator = this.role === 'spectator';
    this.tabs.hidden = !spectator;
    if (spectator) {
      this.tabs.replaceChildren(...['spectators', 'players'].map((tab) => h('button', {
        type: 'button', role: 'tab', class: 'small', 'aria-selected': String(this.tab === tab),
        'data-testid': `chat-tab-${tab}`,
        onclick: () => { this.tab = tab; this.unread[tab] = 0; this.render(); },
      }, t(tab === 'players' ? 'room.chat.players' : 'room.chat.spectators'), this.unread[tab] ? ` (${this.unread[tab]})` : '')));
    } else {
      this.tabs.replaceChildren();
    }
    this.lists.players.hidden = this.tab !== 'players';
    this.lists.spectators.hidden = this.tab !== 'spectators';
    const canWrite = !spectator || this.tab === 'spectators';
    this.form.hidden = !canWrite;
    this.note.textContent = spectator
      ? t(this.tab === 'players' ? 'room.chat.note_players' : 'room.chat.note_spectators')
      : t('room.chat.note_player');
  }
}
