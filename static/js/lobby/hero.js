// The top of the lobby: what the game is, the three buttons into a game, links to the tutorial, the rules and the
// analysis board, the reader's name (used by every way into a game), the lines that
// say what the page is doing or what went wrong, and the start position in miniature.
import { h } from '../dom.js';
import { START_POSITION, parsePosition } from '../position.js';
import { storeName } from '../prefs.js';
import { t } from '../i18n.js';
import { miniBoard } from '../miniboard.js';

function nameRow(state) {
  const input = h('input', {
    id: 'player-name', 'data-testid': 'name', maxlength: 32, autocomplete: 'nickname',
    placeholder: t('lobby.namePlaceholder'), value: state.name,
  });
  input.addEventListener('input', () => { state.name = input.value; });
  input.addEventListener('change', () => storeName(input.value.trim()));
  return h('div', { class: 'name-row' }, h('label', { for: 'player-name' }, t('lobby.nameLabel')), input);
}

/** The hero section `el`, with its `busy` and `error` lines for the page to fill;
 * `startButtons`, the three buttons into a game, under the title. */
export function heroSection(state, startButtons = null) {
  const busy = h('p', { class: 'busy', role: 'status' });
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'error' });
  let start = null;
  try { start = parsePosition(START_POSITION).board; } catch { start = null; }
  const el = h('section', { class: 'panel hero' },
    h('div', {},
      h('h1', {}, t('lobby.title')),
      startButtons,
      h('p', { 'data-testid': 'what' }, t('lobby.what')),
      h('p', {}, h('a', { href: '/learn', 'data-testid': 'learn-link' }, t('lobby.learnLink')), ' · ',
        h('a', { href: '/rules', 'data-testid': 'rules-link' }, t('lobby.rulesLink')),
        ' · ', h('a', { href: '/analysis' }, t('lobby.analysisLink'))),
      nameRow(state), busy, error),
    start ? miniBoard(start, { cls: 'hero-board' }) : null);
  return { el, busy, error };
}
