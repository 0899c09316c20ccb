// The room chat (docs/protocol.md §13). Players write and read the players' chat only;
// spectators write the spectators' chat and may also read the players' (two tabs).
// Messages are text nodes: never parsed as HTML.
import { h } from './dom.js';

const SEAT_NAMES = { first: 'First', middle: 'Middle', last: 'Last' };

export class ChatPanel {
  /** `send(text)` sends a chat message. */
  constructor(send, maxChars = 500) {
    this.send = send;
    this.role = 'spectator';
    this.tab = 'players';
    this.unread = { players: 0, spectators: 0 };
    this.lists = {
      players: h('ul', { class: 'chat-list', 'data-testid': 'chat-players', 'aria-live': 'polite' }),
      spectators: h('ul', { class: 'chat-list', 'data-testid': 'chat-spectators', 'aria-live': 'polite' }),
    };
    this.tabs = h('div', { class: 'chat-tabs', role: 'tablist' });
    this.input = h('input', {
      'data-testid': 'chat-input', maxlength: maxChars, placeholder: 'Message', 'aria-label': 'Chat message', autocomplete: 'off',
    });
    this.note = h('p', { class: 'hint chat-note', 'data-testid': 'chat-note' });
    this.form = h('form', { class: 'chat-form', onsubmit: (e) => this.submit(e) },
      this.input, h('button', { type: 'submit', 'data-testid': 'chat-send' }, 'Send'));
    this.node = h('section', { class: 'panel chat', 'data-testid': 'chat' },
      h('h2', {}, 'Chat'), this.tabs, this.lists.players, this.lists.spectators, this.note, this.form);
    this.render();
  }

  submit(e) {
    e.preventDefault();
    const text = this.input.value.trim();
    if (!text) return;
    this.send(text);
    this.input.value = '';
  }

  /** 'player' or 'spectator': what this page may read and where it writes. */
  setRole(role) {
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
      m.seat ? h('span', { class: 'swatch', title: SEAT_NAMES[m.seat] ?? m.seat }) : null, String(m.name ?? '?'));
    const time = new Date(m.at_ms ?? Date.now()).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    const list = this.lists[channel];
    list.append(h('li', { 'data-id': m.id }, h('time', {}, time), ' ', who, ': ', h('span', { class: 'text' }, String(m.text ?? ''))));
    while (list.children.length > 200) list.firstChild.remove();
    list.scrollTop = list.scrollHeight;
    if (live && channel !== this.tab) this.unread[channel] += 1;
    if (live) this.render();
  }

  render() {
    const spectator = this.role === 'spectator';
    this.tabs.hidden = !spectator;
    if (spectator) {
      this.tabs.replaceChildren(...['spectators', 'players'].map((t) => h('button', {
        type: 'button', role: 'tab', class: 'small', 'aria-selected': String(this.tab === t), 'aria-pressed': String(this.tab === t),
        'data-testid': `chat-tab-${t}`,
        onclick: () => { this.tab = t; this.unread[t] = 0; this.render(); },
      }, t === 'players' ? 'Players' : 'Spectators', this.unread[t] ? ` (${this.unread[t]})` : '')));
    } else {
      this.tabs.replaceChildren();
    }
    this.lists.players.hidden = this.tab !== 'players';
    this.lists.spectators.hidden = this.tab !== 'spectators';
    const canWrite = !spectator || this.tab === 'spectators';
    this.form.hidden = !canWrite;
    this.note.textContent = spectator
      ? (this.tab === 'players' ? 'The players’ chat: only players write here.' : 'Spectators only: the players never see this.')
      : 'Players only: spectators can read this, but you never see theirs.';
  }
}
