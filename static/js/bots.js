// Computer players (issue 6): the bot pickers of the lobby's "create room" form, the
// add/remove controls of a waiting room, the bot badge of a seat card, and how the
// bot events change the seats. Bot names come from the server and are shown as text.
import { h } from './dom.js';
import { SEATS } from './geometry.js';
import { SEAT_NAMES } from './board.js';

export const BOT_LEVELS = [
  [0, 'random moves'],
  [1, 'greedy'],
  [2, 'searches'],
  [3, 'strongest'],
];

function levelOptions(selected, withNone) {
  const opts = withNone ? [h('option', { value: '' }, 'Human')] : [];
  for (const [n, what] of BOT_LEVELS) {
    opts.push(h('option', { value: String(n), selected: n === selected }, `Bot level ${n} (${what})`));
  }
  return opts;
}

/** The lobby's bot choice per seat and the takeover box. `body()` gives the fields
 * to add to `POST /api/rooms`. */
export function botPicker() {
  const selects = Object.fromEntries(SEATS.map((seat) => [seat, h('select', {
    'data-testid': `create-bot-${seat}`, 'aria-label': `${SEAT_NAMES[seat]}: human or bot`,
  }, levelOptions(null, true))]));
  const takeover = h('input', { type: 'checkbox', 'data-testid': 'bot-takeover' });
  const element = h('div', { class: 'bot-picker' },
    ...SEATS.map((seat) => h('label', { class: `seat-${seat}` }, `${SEAT_NAMES[seat]}:`, ' ', selects[seat])),
    h('label', { title: 'A player who leaves and does not come back within the grace period is replaced by a bot instead of losing; they can come back and take the seat back.' },
      takeover, 'A bot takes over from a player who abandons'));
  return {
    element,
    body() {
      const out = {};
      const bots = {};
      for (const seat of SEATS) {
        if (selects[seat].value !== '') bots[seat] = Number(selects[seat].value);
      }
      if (Object.keys(bots).length) out.bots = bots;
      if (takeover.checked) out.bot_takeover = true;
      return out;
    },
  };
}

/** A seat card's bot badge, or null for a human seat. */
export function botBadge(seat, info) {
  if (info?.bot === null || info?.bot === undefined) return null;
  const text = info.taken_over ? `bot playing for them (level ${info.bot})` : `bot · level ${info.bot}`;
  return h('span', { class: 'badge bot', 'data-testid': `bot-${seat}` }, text);
}

/** "Add bot" on free seats and "Remove bot" on bot seats, for a seated player of a
 * waiting room. `send` sends a protocol message. */
export function botControls(state, send) {
  const rows = [];
  for (const seat of SEATS) {
    const info = state.seats?.[seat];
    if (!info) {
      const level = h('select', { 'data-testid': `bot-level-${seat}`, 'aria-label': `Level of the bot for ${SEAT_NAMES[seat]}` }, levelOptions(2, false));
      rows.push(h('div', { class: 'bot-row' },
        h('button', {
          type: 'button', class: `small seat-${seat}`, 'data-testid': `add-bot-${seat}`,
          onclick: () => send({ type: 'add_bot', seat, level: Number(level.value) }),
        }, `Add bot as ${SEAT_NAMES[seat]}`), level));
    } else if (info.bot !== null && info.bot !== undefined) {
      rows.push(h('div', { class: 'bot-row' },
        h('button', {
          type: 'button', class: `small seat-${seat}`, 'data-testid': `remove-bot-${seat}`,
          onclick: () => send({ type: 'remove_bot', seat }),
        }, `Remove the bot from ${SEAT_NAMES[seat]}`)));
    }
  }
  if (!rows.length) return null;
  return h('div', { class: 'bot-controls', 'data-testid': 'bot-controls' },
    h('p', { class: 'hint' }, 'Computer players:'), ...rows);
}

/** Applies a bot event to the state's seats; returns the note to show, or null when
 * `ev` is not a bot event. */
export function applyBotEvent(state, ev) {
  const seats = state?.seats;
  const seatName = SEAT_NAMES[ev.seat] ?? ev.seat;
  switch (ev.type) {
    case 'bot_added':
      if (state) state.seats = { ...seats, [ev.seat]: { name: ev.name, connected: true, ready: true, bot: ev.level, taken_over: false } };
      return `${ev.name} sits as ${seatName}.`;
    case 'bot_removed':
      if (state) state.seats = { ...seats, [ev.seat]: null };
      return `The bot leaves the ${seatName} seat.`;
    case 'bot_took_over': {
      const who = seats?.[ev.seat]?.name ?? seatName;
      if (seats?.[ev.seat]) seats[ev.seat] = { ...seats[ev.seat], connected: true, bot: ev.level, taken_over: true };
      return `${who} did not come back: a bot (level ${ev.level}) plays ${seatName} for them.`;
    }
    case 'bot_released': {
      const who = seats?.[ev.seat]?.name ?? seatName;
      if (seats?.[ev.seat]) seats[ev.seat] = { ...seats[ev.seat], bot: null, taken_over: false };
      return `${who} is back and takes the ${seatName} seat back from the bot.`;
    }
    default:
      return null;
  }
}
