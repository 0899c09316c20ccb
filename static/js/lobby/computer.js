// "Play the computer": one click makes a room with two computer players of the chosen
// level, seats the reader as First, says ready and opens the running game.
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { api } from '../protocol.js';
import { t } from '../i18n.js';
import { levelOptions } from './messages.js';
import { roomLink, takeSeat } from './enter.js';

/**
 * Makes a room with computer players of `level` in the two seats other than `seat`
 * (with `clock`, a `POST /api/rooms` clock, or none), takes `seat` as `name`, says ready
 * and opens the running game. Rejects with the server's error.
 */
export async function startComputerGame({ level, seat = 'first', clock = null, name = '' }) {
  const bots = Object.fromEntries(SEATS.filter((s) => s !== seat).map((s) => [s, level]));
  const body = clock ? { bots, clock } : { bots };
  const { id } = await api('/api/rooms', { method: 'POST', body: JSON.stringify(body) });
  await takeSeat(id, { seat, name: name.trim(), ready: true });
  location.assign(roomLink(id));
}

async function playComputer(lobby) {
  const { state } = lobby;
  lobby.begin(t('lobby.starting'));
  try {
    await startComputerGame({ level: state.level, seat: 'first', name: state.name });
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
  return h('section', { class: 'panel path', 'aria-labelledby': 'path-computer' },
    h('h2', { id: 'path-computer' }, t('lobby.computerTitle')),
    h('p', {}, t('lobby.computerText')),
    h('div', { class: 'row' },
      h('label', { for: 'bot-level' }, t('lobby.levelLabel')), level,
      lobby.whileIdle(h('button', {
        type: 'button', class: 'primary', 'data-testid': 'play-computer', disabled: Boolean(state.busy),
        onclick: () => playComputer(lobby),
      }, t('lobby.computerButton')))));
}
