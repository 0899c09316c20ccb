// "Play the computer": one click makes a room with two computer players of the chosen
// level in the two other seats, with the chosen clock, seats the reader in the chosen
// seat (First, Middle, Last, or one drawn at random), says ready and opens the running
// game.
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { api } from '../protocol.js';
import { t } from '../i18n.js';
import { clockText, levelOptions, seatLabel } from './messages.js';
import { roomLink, takeSeat } from './enter.js';

/**
 * Makes a room with computer players of `level` in the two seats other than `seat`
 * (with `clock`, a `POST /api/rooms` clock, or none), takes `seat` as `name`, says ready
 * and opens the running game. Rejects with the server's error.
 */
export async function startComputerGame({ level, seat = 'first', clock = null, name = '', allies = false }) {
  const bots = Object.fromEntries(SEATS.filter((s) => s !== seat).map((s) => [s, level]));
  const body = clock ? { bots, clock } : { bots };
  // The two computer players may team up against the reader (at their level's rate).
  if (allies) body.bots_ally = 'sometimes';
  const { id } = await api('/api/rooms', { method: 'POST', body: JSON.stringify(body) });
  await takeSeat(id, { seat, name: name.trim(), ready: true });
  location.assign(roomLink(id));
}

/** The clocks offered (`POST /api/rooms` clocks, docs/protocol.md §2): none, sudden
 * death, Fischer and byoyomi, each at a pace for a first game. */
export const COMPUTER_CLOCKS = [
  null,
  { kind: 'sudden_death', main_seconds: 300 },
  { kind: 'sudden_death', main_seconds: 600 },
  { kind: 'fischer', main_seconds: 600, increment_seconds: 5 },
  { kind: 'byoyomi', main_seconds: 600, byoyomi_seconds: 30, periods: 3 },
];

/** A clock of COMPUTER_CLOCKS in a few words, as the lobby's lists write room clocks. */
function clockLabel(c) {
  if (!c) return t('clock.none');
  return clockText({
    kind: c.kind, main_ms: c.main_seconds * 1000, increment_ms: (c.increment_seconds ?? 0) * 1000,
    byoyomi_ms: (c.byoyomi_seconds ?? 0) * 1000, periods: c.periods,
  });
}

/** The seat asked for: `random` draws one of the three. */
function seatFor(choice) {
  return SEATS.includes(choice) ? choice : SEATS[Math.floor(Math.random() * SEATS.length)];
}

/** Starts a game against the computer with the choices of the card (the level, the
 * seat, the clock), as the reader's name. */
export async function playComputer(lobby) {
  const { state } = lobby;
  lobby.begin(t('lobby.starting'));
  try {
    await startComputerGame({
      level: state.level, seat: seatFor(state.computerSeat ?? 'first'),
      clock: COMPUTER_CLOCKS[state.computerClock ?? 0] ?? null, name: state.name,
      allies: Boolean(state.computerAllies),
    });
  } catch (e) {
    lobby.fail(t('lobby.couldNotStart', { reason: e.message }));
  }
}

/** The card (a way into a game, lobby.js `PATHS`). */
export function computerCard(lobby) {
  const { state } = lobby;
  const level = h('select', {
    id: 'bot-level', 'data-testid': 'computer-level',
    onchange: (e) => { state.level = Number(e.target.value); },
  }, levelOptions(state.level));
  const seatNow = state.computerSeat ?? 'first';
  const seat = h('select', {
    id: 'computer-seat', 'data-testid': 'computer-seat',
    onchange: (e) => { state.computerSeat = e.target.value; },
  }, [...SEATS, 'random'].map((s) => h('option', { value: s, selected: s === seatNow }, s === 'random' ? t('lobby.seatRandom') : seatLabel(s))));
  const clockNow = state.computerClock ?? 0;
  const clock = h('select', {
    id: 'computer-clock', 'data-testid': 'computer-clock',
    onchange: (e) => { state.computerClock = Number(e.target.value); },
  }, COMPUTER_CLOCKS.map((c, i) => h('option', { value: i, selected: i === clockNow }, clockLabel(c))));
  const allies = h('label', { class: 'pair check' },
    h('input', {
      type: 'checkbox', 'data-testid': 'computer-allies', checked: Boolean(state.computerAllies),
      onchange: (e) => { state.computerAllies = e.target.checked; },
    }), ' ', t('lobby.computerAllies'));
  return h('section', { class: 'panel path', 'aria-labelledby': 'path-computer' },
    h('h2', { id: 'path-computer' }, t('lobby.computerTitle')),
    h('p', {}, t('lobby.computerText')),
    h('div', { class: 'row computer-options' },
      h('span', { class: 'pair' }, h('label', { for: 'computer-seat' }, t('lobby.computerSeat')), seat),
      h('span', { class: 'pair' }, h('label', { for: 'computer-clock' }, t('lobby.computerClock')), clock),
      allies),
    h('div', { class: 'row' },
      h('label', { for: 'bot-level' }, t('lobby.levelLabel')), level,
      lobby.whileIdle(h('button', {
        type: 'button', class: 'primary', 'data-testid': 'play-computer', disabled: Boolean(state.busy),
        onclick: () => playComputer(lobby),
      }, t('lobby.computerButton')))));
}
