// The header every page shares: navigation (behind a menu button on phones; with My games and its badge: the games
// where it is the reader's move), the bell (notifications), the language switch and
// the preferences dialog; and a polite live region for announcements. The tab's title
// starts with "(2) " while it is the reader's move in two games.
import { h, iconSvg } from './dom.js';
import { LANGUAGE_CODES, LANGUAGE_NAMES, LANGUAGE_TAGS, lang, onLangChange, setLang, t } from './i18n.js';
import { PREF_CHOICES, allPrefs, onPrefChange, setPref } from './prefs.js';
import { KANJI_PATHS } from '../pieces/kanji.js';
import { account, currentAccount, onAccountChange, profileLink } from './account.js';
import { followMyGames, onMyGames, setLoggedIn } from './mine.js';
import { bellButton } from './bell.js';
import { followNotify, setNotifyAccount } from './notify.js';


/** Which page the path is: 'lobby', 'learn', 'rules', 'analysis', 'room', 'games', 'account',
 * 'leaderboard', 'player', 'mod' or 'tv'. */
export function pageOf(pathname) {
  if (/^\/rooms\//.test(pathname)) return 'room';
  if (/^\/games\/?$/.test(pathname)) return 'games';
  if (/^\/rules\/?$/.test(pathname)) return 'rules';
  if (/^\/learn\/?$/.test(pathname)) return 'learn';
  if (/^\/analysis\/?$/.test(pathname)) return 'analysis';
  if (/^\/account(\/(verify|reset))?\/?$/.test(pathname)) return 'account';
  if (/^\/leaderboard\/?$/.test(pathname)) return 'leaderboard';
  if (/^\/players\//.test(pathname)) return 'player';
  if (/^\/mod\/?$/.test(pathname)) return 'mod';
  if (/^\/tv\/?$/.test(pathname)) return 'tv';
  if (/^\/(index\.html)?$/.test(pathname)) return 'lobby';
  return 'missing';
}

let announcer = null;
/** Says `text` to screen readers through a polite live region (once per call). */
export function announce(text) {
  if (!announcer) return;
  announcer.textContent = '';
  // A fresh text node after clearing is announced even when the words repeat.
  setTimeout(() => { announcer.textContent = text; }, 30);
}

function prefsDialog() {
  const dialog = h('dialog', { class: 'prefs', 'data-testid': 'prefs-dialog', 'aria-labelledby': 'prefs-title' });
  function radios(key, labelKey) {
    const name = `pref-${key}`;
    const now = allPrefs()[key];
    return h('fieldset', {},
      h('legend', {}, t(labelKey)),
      PREF_CHOICES[key].map((value) => h('label', { class: 'choice' },
        h('input', {
          type: 'radio', name, value, checked: now === value, 'data-testid': `pref-${key}-${value}`,
          onchange: () => setPref(key, value),
        }),
        t(`prefs.${key}.${value}`))));
  }
  function toggle(key) {
    return h('label', { class: 'toggle' },
      h('input', {
        type: 'checkbox', checked: allPrefs()[key], 'data-testid': `pref-${key}`,
        onchange: (e) => setPref(key, e.target.checked),
      }),
      t(`prefs.${key}`));
  }
  function fill() {
    dialog.replaceChildren(
      h('h2', { id: 'prefs-title' }, t('prefs.title')),
      radios('pieceStyle', 'prefs.pieceStyle'),
      radios('theme', 'prefs.theme'),
      h('fieldset', {}, h('legend', {}, t('prefs.play')),
        toggle('sound'), toggle('legalTargets'), toggle('confirmMoves'), toggle('coordinates'), toggle('announceMoves'),
        toggle('typedMoves')),
      radios('moveInput', 'prefs.moveInput'),
      radios('boardSize', 'prefs.boardSize'),
      h('form', { method: 'dialog' }, h('button', { type: 'submit', class: 'primary', 'data-testid': 'prefs-close' }, t('prefs.close'))));
  }
  fill();
  onLangChange(fill);
  onPrefChange(() => { if (!dialog.open) fill(); });
  return dialog;
}

/** The preferences' gear (phones show it without its word). */
const GEAR = 'M19.14 12.94c.04-.3.06-.61.06-.94s-.02-.64-.07-.94l2.03-1.58a.49.49 0 0 0 .12-.61l-1.92-3.32a.49.49 0 0 0-.59-.22l-2.39.96a7 7 0 0 0-1.62-.94l-.36-2.54a.48.48 0 0 0-.48-.41h-3.84a.47.47 0 0 0-.47.41l-.36 2.54c-.59.24-1.13.57-1.62.94l-2.39-.96a.49.49 0 0 0-.59.22L2.74 8.87a.47.47 0 0 0 .12.61l2.03 1.58c-.05.3-.09.63-.09.94s.02.64.07.94l-2.03 1.58a.49.49 0 0 0-.12.61l1.92 3.32c.12.22.37.29.59.22l2.39-.96c.5.38 1.03.7 1.62.94l.36 2.54c.05.24.24.41.48.41h3.84c.24 0 .44-.17.47-.41l.36-2.54c.59-.24 1.13-.56 1.62-.94l2.39.96c.22.08.47 0 .59-.22l1.92-3.32a.47.47 0 0 0-.12-.61zM12 15.6A3.6 3.6 0 1 1 12 8.4a3.6 3.6 0 0 1 0 7.2z';

/** The logo 三人将棋 drawn from the bundled outlines: it never waits for a font. */
function logo() {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  const text = '三人将棋';
  svg.setAttribute('viewBox', `0 -500 ${text.length * 1000} 1000`);
  svg.setAttribute('class', 'logo');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', text);
  [...text].forEach((ch, i) => {
    const path = document.createElementNS(NS, 'path');
    path.setAttribute('d', KANJI_PATHS[ch]);
    path.setAttribute('transform', `translate(${i * 1000 + 500} 0)`);
    svg.append(path);
  });
  return svg;
}

/** Builds the header's navigation and tools; they follow language changes. */
export function mountHeader(page) {
  const header = document.querySelector('header.top');
  const brand = header.querySelector('.brand');
  const nav = h('nav', { class: 'site-nav', 'aria-label': 'Site' });
  const tools = h('div', { class: 'site-tools' });
  announcer = h('div', { class: 'sr-only', 'aria-live': 'polite', 'data-testid': 'announcer' });
  const dialog = prefsDialog();
  // Phones: the links behind a menu button (pages.css shows it on narrow screens only).
  nav.id = 'site-nav';
  const menu = h('button', {
    type: 'button', class: 'menu-button', 'data-testid': 'site-menu', 'aria-controls': 'site-nav', 'aria-expanded': 'false',
    onclick: () => menu.setAttribute('aria-expanded', String(header.classList.toggle('menu-open'))),
  }, iconSvg('menu-icon', 'M3 6h18v2H3zm0 5h18v2H3zm0 5h18v2H3z'));
  header.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && header.classList.contains('menu-open')) { header.classList.remove('menu-open'); menu.setAttribute('aria-expanded', 'false'); menu.focus(); }
  });
  brand.after(menu, nav);
  header.append(tools);
  document.body.append(announcer, dialog);

  let yourTurn = 0;
  const bell = bellButton();
  function render() {
    brand.replaceChildren(logo(), ' ', h('span', {}, t('site.brandSub')));
    brand.setAttribute('title', t('site.homeLabel'));
    const links = [['lobby', '/', 'nav.lobby'], ['games', '/games', 'nav.games'], ['tv', '/tv', 'nav.tv'],
      ['learn', '/learn', 'nav.learn'], ['rules', '/rules', 'nav.rules'],
      ['analysis', '/analysis', 'nav.analysis'], ['leaderboard', '/leaderboard', 'nav.leaderboard']];
    // Moderators and admins: their page (docs/moderation.md §4).
    if (['moderator', 'admin'].includes(account()?.role)) links.push(['mod', '/mod', 'nav.mod']);
    nav.setAttribute('aria-label', t('nav.label'));
    menu.setAttribute('aria-label', t('site.menu'));
    menu.title = t('site.menu');
    nav.replaceChildren(...links.map(([id, href, key]) => h('a', {
      href, 'data-testid': `nav-${id}`, 'aria-current': id === page ? 'page' : null,
    }, t(key), id === 'games' ? gamesBadge() : null)));
    const select = h('select', {
      'data-testid': 'lang', 'aria-label': t('site.language'),
      onchange: (e) => setLang(e.target.value),
    }, LANGUAGE_CODES.map((code) => h('option', { value: code, selected: code === lang(), lang: LANGUAGE_TAGS[code] }, LANGUAGE_NAMES[code] ?? code)));
    const me = account();
    const who = me
      ? h('a', { href: profileLink(me.name), class: 'account-link', 'data-testid': 'account-name' }, me.name)
      : h('a', { href: `/account?next=${encodeURIComponent(location.pathname)}`, class: 'account-link', 'data-testid': 'login-link', 'aria-current': page === 'account' ? 'page' : null }, t('account.loginLink'));
    tools.replaceChildren(bell.el, who, select,
      h('button', { type: 'button', class: 'prefs-button', 'data-testid': 'open-prefs', onclick: () => dialog.showModal() },
        iconSvg('gear-icon', GEAR), h('span', { class: 'prefs-word' }, t('prefs.open'))));
    bell.relabel();
  }
  /** The number of games where it is the reader's move, beside "My games". */
  function gamesBadge() {
    return h('span', { class: 'games-badge', 'data-testid': 'games-badge', hidden: !yourTurn, 'data-count': String(yourTurn) },
      h('span', { 'aria-hidden': 'true' }, String(yourTurn)),
      h('span', { class: 'sr-only' }, t('games.badgeLabel', { n: yourTurn })));
  }
  render();
  onLangChange(render);
  onAccountChange((a) => {
    render();
    setLoggedIn(Boolean(a));
    setNotifyAccount(a?.name ?? null);
  });
  onMyGames((list) => {
    const n = list?.your_turn ?? 0;
    if (n === yourTurn) return;
    yourTurn = n;
    nav.querySelector('[data-testid="nav-games"] .games-badge')?.replaceWith(gamesBadge());
    titlePrefix(n);
  });
  currentAccount().then((a) => {
    followMyGames({ isLoggedIn: Boolean(a) });
    setNotifyAccount(a?.name ?? null);
    followNotify();
  });
}

let prefixCount = 0;
let titleWatch = null;
/** "(2) " before the tab's title while it is the reader's move in two games; kept there
 * whatever the page sets its title to. */
function titlePrefix(n) {
  prefixCount = n;
  const apply = () => {
    const bare = document.title.replace(/^\(\d+\) /, '');
    const want = prefixCount > 0 ? `(${prefixCount}) ${bare}` : bare;
    if (document.title !== want) document.title = want;
  };
  apply();
  if (!titleWatch && typeof MutationObserver === 'function') {
    const head = document.querySelector('title') ?? document.head;
    titleWatch = new MutationObserver(apply);
    titleWatch.observe(head, { childList: true, characterData: true, subtree: true });
  }
}
