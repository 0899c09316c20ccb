// "Play with friends": create a room with the options chosen (create-options.js), go
// there seated, and send its link to two friends; or open a room from a link someone
// sent.
import { h } from '../dom.js';
import { api } from '../protocol.js';
import { t } from '../i18n.js';
import { createOptions } from './create-options.js';
import { goSeated, roomIdOf, roomLink } from './enter.js';

/** Creates a room of `body` (`POST /api/rooms`) and goes there seated: its page gives
 * the link to share. */
export async function createForFriends(lobby, body) {
  lobby.begin(t('lobby.creating'));
  try {
    const { id } = await api('/api/rooms', { method: 'POST', body: JSON.stringify(body) });
    goSeated(id, null, lobby.state.name);
  } catch (e) {
    lobby.fail(t('lobby.couldNotCreate', { reason: e.message }));
  }
}

/** "Have a link? Paste it here" and its button. */
function openForm() {
  const input = h('input', { id: 'open-room', 'data-testid': 'open-room', placeholder: t('lobby.openPlaceholder') });
  function open(e) {
    e.preventDefault();
    const text = input.value.trim();
    if (text) location.assign(roomLink(roomIdOf(text)));
  }
  return h('form', { class: 'open-form', onsubmit: open },
    h('label', { for: 'open-room', class: 'sr-only' }, t('lobby.openLabel')), input,
    h('button', { type: 'submit' }, t('lobby.openButton')));
}

/** The card (a way into a game, lobby.js `PATHS`). */
export function friendsCard(lobby) {
  const options = createOptions();
  return h('section', { class: 'panel path', 'aria-labelledby': 'path-friends' },
    h('h2', { id: 'path-friends' }, t('lobby.friendsTitle')),
    h('p', {}, t('lobby.friendsText')),
    options.el,
    // The button after the options it uses.
    h('div', { class: 'row' },
      lobby.whileIdle(h('button', {
        type: 'button', class: 'primary', 'data-testid': 'create-room', disabled: Boolean(lobby.state.busy),
        onclick: () => createForFriends(lobby, options.body()),
      }, t('lobby.createButton')))),
    openForm());
}
