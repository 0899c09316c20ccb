// The three buttons at the top of the lobby, in the first screen on a desktop and on a
// phone, as lichess has them: Play now (quick pairing: people, computer players after
// the chosen wait), Play the computer (one click, the level and clock of its card) and
// Play with friends (a room of its own, its link to share). Each card below holds the
// same way in with its choices.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { playNowButton } from './quick.js';
import { playComputer } from './computer.js';
import { createForFriends } from './friends.js';

/** A big button: its label and a line under it. */
function bigButton(testid, label, sub, onclick) {
  return h('button', { type: 'button', class: 'start-button', 'data-testid': testid, onclick },
    h('span', { class: 'start-label' }, label), sub);
}

/** The section of the three buttons. */
export function startSection(lobby) {
  const now = playNowButton();
  const computer = lobby.whileIdle(bigButton('start-computer', t('lobby.computerTitle'),
    h('span', { class: 'start-sub' }, t('start.computerSub')), () => playComputer(lobby)));
  const friends = lobby.whileIdle(bigButton('start-friends', t('lobby.friendsTitle'),
    h('span', { class: 'start-sub' }, t('start.friendsSub')), () => createForFriends(lobby, {})));
  return h('div', { class: 'start', role: 'group', 'aria-label': t('start.label'), 'data-testid': 'start' },
    now, computer, friends);
}
