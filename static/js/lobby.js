// The lobby: open, running and finished rooms; create, join, watch, open by link.
import { h } from './dom.js';
import { api } from './protocol.js';
import { SEATS } from './geometry.js';
import { SEAT_NAMES } from './board.js';
import { JOIN_INTENT_KEY, shortId, storedName, storeName } from './prefs.js';
import { describeClock } from './clocks.js';
import { botPicker } from './bots.js';

function roomLink(id) {
  return `/rooms/${encodeURIComponent(id)}`;
}

export function showLobby(app) {
  document.title = 'Sannin — lobby';
  const nameInput = h('input', {
    id: 'player-name', 'data-testid': 'name', maxlength: 40, autocomplete: 'nickname',
    placeholder: 'Your name', value: storedName(),
  });
  nameInput.addEventListener('change', () => storeName(nameInput.value.trim()));
  const message = h('p', { class: 'error', role: 'alert', 'data-testid': 'error' });
  const lists = {
    waiting: h('ul', { class: 'rooms', 'data-testid': 'rooms-waiting' }),
    playing: h('ul', { class: 'rooms', 'data-testid': 'rooms-playing' }),
    finished: h('ul', { class: 'rooms', 'data-testid': 'rooms-finished' }),
  };
  const openInput = h('input', { 'data-testid': 'open-room', placeholder: 'Room link or id', 'aria-label': 'Room link or id' });

  // Room options: time control and privacy.
  const num = (testid, label, value, min, max, step = 1) => {
    const input = h('input', { type: 'number', 'data-testid': testid, value, min, max, step, 'aria-label': label });
    return { input, label: h('label', {}, label, ' ', input) };
  };
  const kind = h('select', { 'data-testid': 'clock-kind', 'aria-label': 'Clock' },
    h('option', { value: 'none' }, 'No clock'),
    h('option', { value: 'sudden_death' }, 'Sudden death'),
    h('option', { value: 'fischer' }, 'Fischer (increment)'),
    h('option', { value: 'byoyomi' }, 'Byoyomi'));
  const mainMin = num('clock-main', 'Minutes', 10, 0, 600, 0.5);
  const inc = num('clock-increment', 'Increment s', 5, 0, 3600);
  const byo = num('clock-byoyomi', 'Byoyomi s', 30, 1, 3600);
  const periods = num('clock-periods', 'Periods', 3, 1, 10);
  const privateBox = h('input', { type: 'checkbox', 'data-testid': 'private-room' });
  const bots = botPicker();
  const showClockFields = () => {
    const k = kind.value;
    mainMin.label.hidden = k === 'none';
    inc.label.hidden = k !== 'fischer';
    byo.label.hidden = k !== 'byoyomi';
    periods.label.hidden = k !== 'byoyomi';
  };
  kind.addEventListener('change', showClockFields);
  showClockFields();

  function roomBody() {
    const body = { ...(privateBox.checked ? { private: true } : {}), ...bots.body() };
    const k = kind.value;
    if (k !== 'none') {
      body.clock = { kind: k, main_seconds: Number(mainMin.input.value) * 60 };
      if (k === 'fischer') body.clock.increment_seconds = Number(inc.input.value);
      if (k === 'byoyomi') {
        body.clock.byoyomi_seconds = Number(byo.input.value);
        body.clock.periods = Number(periods.input.value);
      }
    }
    return body;
  }

  async function create() {
    message.textContent = '';
    try {
      const { id } = await api('/api/rooms', { method: 'POST', body: JSON.stringify(roomBody()) });
      location.assign(roomLink(id));
    } catch (e) {
      message.textContent = `Could not create a room: ${e.message}`;
    }
  }

  function join(id, seat) {
    const name = nameInput.value.trim();
    if (!name) {
      message.textContent = 'Enter your name first.';
      nameInput.focus();
      return;
    }
    storeName(name);
    sessionStorage.setItem(JOIN_INTENT_KEY, JSON.stringify({ room: id, seat, name }));
    location.assign(roomLink(id));
  }

  function roomItem(room) {
    const seats = room.seats ?? {};
    const status = room.status ?? 'waiting';
    const seatBits = SEATS.map((seat) => {
      const name = seats[seat]?.name;
      if (name) {
        const bot = seats[seat].bot ?? null;
        return h('span', { class: `seat-chip seat-${seat}${bot !== null ? ' bot' : ''}` }, `${SEAT_NAMES[seat]}: `, h('b', {}, name),
          seats[seat].taken_over ? ' (a bot plays for them)' : null);
      }
      if (status !== 'waiting') return h('span', { class: `seat-chip seat-${seat} free` }, `${SEAT_NAMES[seat]}: —`);
      return h('button', {
        class: `seat-chip seat-${seat} free`, type: 'button', 'data-testid': `join-${room.id}-${seat}`,
        onclick: () => join(room.id, seat),
      }, `Sit as ${SEAT_NAMES[seat]}`);
    });
    const spectators = typeof room.spectators === 'number' ? room.spectators : (room.spectators?.length ?? 0);
    return h('li', { class: 'room', dataset: { room: room.id, status } },
      h('a', { href: roomLink(room.id), class: 'room-id', title: room.id }, `Room ${shortId(room.id)}`),
      h('span', { class: 'seats' }, seatBits),
      h('span', { class: 'spectators' }, `${spectators} watching`),
      room.clock ? h('span', { class: 'room-tag', 'data-testid': `clock-${room.id}` }, `Clock: ${describeClock(room.clock)}`) : null,
      h('a', { class: 'button', href: roomLink(room.id), 'data-testid': `watch-${room.id}` }, 'Watch'));
  }

  async function refresh() {
    try {
      const rooms = await api('/api/rooms');
      for (const key of Object.keys(lists)) lists[key].replaceChildren();
      for (const room of rooms ?? []) (lists[room.status] ?? lists.waiting).append(roomItem(room));
      for (const [key, list] of Object.entries(lists)) {
        if (!list.children.length) list.append(h('li', { class: 'empty' }, key === 'waiting' ? 'No open rooms — create one.' : 'None.'));
      }
    } catch (e) {
      message.textContent = `Could not load rooms: ${e.message}`;
    }
  }

  function open(e) {
    e.preventDefault();
    const text = openInput.value.trim();
    if (!text) return;
    const m = /\/rooms\/([^/?#]+)/.exec(text);
    location.assign(roomLink(m ? decodeURIComponent(m[1]) : text));
  }

  app.replaceChildren(h('div', { class: 'lobby' },
    h('section', { class: 'panel intro' },
      h('h1', {}, 'Three-player shogi'),
      h('label', { for: 'player-name' }, 'Name '), nameInput,
      h('button', { type: 'button', class: 'primary', 'data-testid': 'create-room', onclick: create }, 'Create a room'),
      h('div', { class: 'create-options' }, kind, mainMin.label, inc.label, byo.label, periods.label,
        h('label', { title: 'Not listed here: only people with the link can join or watch.' }, privateBox, 'Private (link only)'),
        bots.element),
      h('form', { class: 'open-form', onsubmit: open }, openInput, h('button', { type: 'submit' }, 'Open')),
      message),
    h('section', { class: 'panel' }, h('h2', {}, 'Open rooms'), lists.waiting),
    h('section', { class: 'panel' }, h('h2', {}, 'Running'), lists.playing),
    h('section', { class: 'panel' }, h('h2', {}, 'Finished'), lists.finished),
    h('button', { type: 'button', onclick: refresh, 'data-testid': 'refresh' }, 'Refresh')));
  refresh();
  const timer = setInterval(() => { if (!document.hidden) refresh(); }, 5000);
  addEventListener('pagehide', () => clearInterval(timer));
}
