// Computer players: the bot pickers of the lobby's "create room" form, the
// add/remove controls of a waiting room, the bot badge of a seat card, and how the
// bot events change the seats. Bot names come from the server and are shown as text.
import { h } from './dom.js';
import { SEATS } from './geometry.js';
import { t } from './i18n.js';

// Levels by number (the server's), weakest first; the names are i18n's
// `room.bot.levelN` and `bot.levelN`: Random, Beginner, Casual, Strong, Master,
// Grandmaster.
export const BOT_LEVELS = [0, 1, 2, 3, 4, 5];
const seatName = (seat) => t(`room.seat.${seat}`);

function levelOptions(selected, withNone) {
  const opts = withNone ? [h('option', { value: '' }, t('room.bot.human'))] : [];
  for (const n of BOT_LEVELS) {
    opts.push(h('option', { value: String(n), selected: n === selected }, t('room.bot.level_option', { n, what: t(`room.bot.level${n}`) })));
  }
  return opts;
}

/** The lobby's bot choice per seat and the takeover box. `body()` gives the fields
 * to add to `POST /api/rooms`. */
export function botPicker() {
  const selects = Object.fromEntries(SEATS.map((seat) => [seat, h('select', {
    'data-testid': `create-bot-${seat}`, 'aria-label': t('room.bot.pick_label', { seat: seatName(seat) }),
  }, levelOptions(null, true))]));
  const takeover = h('input', { type: 'checkbox', 'data-testid': 'bot-takeover' });
  const element = h('div', { class: 'bot-picker' },
    ...SEATS.map((seat) => h('label', { class: `seat-${seat}` }, `${seatName(seat)}:`, ' ', selects[seat])),
    h('label', { title: t('room.bot.takeover_title') }, takeover, t('room.bot.takeover')));
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
  const text = t(info.taken_over ? 'room.bot.badge_takeover' : 'room.bot.badge', { name: t(`room.bot.level${info.bot}`) });
  return h('span', { class: 'badge bot', 'data-testid': `bot-${seat}` }, text);
}

/** "Add bot" on free seats and "Remove bot" on bot seats, for a seated player of a
 * waiting room (a rated room only says that it seats no bots). `send` sends a protocol
 * message. */
export function botControls(state, send) {
  // Rated rooms seat accounts only: no bot to add.
  if (state.rated) {
    return h('div', { class: 'bot-controls', 'data-testid': 'bot-controls' }, h('p', { class: 'hint', 'data-testid': 'no-bots-rated' }, t('room.bot.rated')));
  }
  const rows = [];
  for (const seat of SEATS) {
    const info = state.seats?.[seat];
    if (!info) {
      const level = h('select', { 'data-testid': `bot-level-${seat}`, 'aria-label': t('room.bot.level_label', { seat: seatName(seat) }) }, levelOptions(2, false));
      rows.push(h('div', { class: 'bot-row' },
        h('button', {
          type: 'button', class: `small seat-${seat}`, 'data-testid': `add-bot-${seat}`,
          onclick: () => send({ type: 'add_bot', seat, level: Number(level.value) }),
        }, t('room.bot.add', { seat: seatName(seat) })), level));
    } else if (info.bot !== null && info.bot !== undefined) {
      rows.push(h('div', { class: 'bot-row' },
        h('button', {
          type: 'button', class: `small seat-${seat}`, 'data-testid': `remove-bot-${seat}`,
          onclick: () => send({ type: 'remove_bot', seat }),
        }, t('room.bot.remove', { seat: seatName(seat) }))));
    }
  }
  if (!rows.length) return null;
  return h('div', { class: 'bot-controls', 'data-testid': 'bot-controls' },
    h('p', { class: 'hint' }, t('room.bot.title')), ...rows);
}
