// The pages of accounts: `/account` (log in, register, change password, log out),
// `/players/{name}` (a player's rating, its history as a small SVG chart, the rated
// games with results, opponents and replay links, and every finished game, casual ones
// too, a page at a time) and `/leaderboard`.
import { h } from './dom.js';
import { dateLocale, onLangChange, t } from './i18n.js';
import { safeNext } from './next.js';
import { emailPanel, forgotPanel, showLink } from './recovery.js';
import { api } from './protocol.js';
import { openReport } from './report.js';
import { historyList } from './history.js';
import {
  accountErrorText as errorText, account, changePassword, currentAccount, login, logout, onAccountChange, profileLink, ratingText, register,
} from './account.js';

function dateText(ms) {
  return new Date(ms).toLocaleString(dateLocale(), { dateStyle: 'medium', timeStyle: 'short' });
}


// ---- /account ------------------------------------------------------------------------

function credentialsForm(kind, onDone) {
  const id = (f) => `${kind}-${f}`;
  const name = h('input', {
    id: id('name'), 'data-testid': id('name'), required: true, minlength: 2, maxlength: 24,
    autocomplete: 'username',
  });
  const password = h('input', {
    id: id('password'), 'data-testid': id('password'), type: 'password', required: true, minlength: 8, maxlength: 256,
    autocomplete: kind === 'register' ? 'new-password' : 'current-password',
  });
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': id('error') });
  const button = h('button', { type: 'submit', class: 'primary', 'data-testid': id('submit') }, t(`account.${kind}.button`));
  async function submit(e) {
    e.preventDefault();
    error.textContent = '';
    button.disabled = true;
    try {
      await (kind === 'register' ? register : login)(name.value.trim(), password.value);
      onDone();
    } catch (err) {
      error.textContent = errorText(err);
    } finally {
      button.disabled = false;
    }
  }
  return h('form', { class: 'panel account-form', onsubmit: submit, 'data-testid': `${kind}-form` },
    h('h2', {}, t(`account.${kind}.title`)),
    kind === 'register' ? h('p', { class: 'hint' }, t('account.register.hint')) : null,
    h('label', { for: id('name') }, t('account.name')), name,
    h('label', { for: id('password') }, t('account.password')), password,
    button, error);
}

function passwordForm() {
  const current = h('input', { id: 'pw-current', 'data-testid': 'pw-current', type: 'password', required: true, autocomplete: 'current-password' });
  const next = h('input', { id: 'pw-new', 'data-testid': 'pw-new', type: 'password', required: true, minlength: 8, autocomplete: 'new-password' });
  const status = h('p', { role: 'status', 'data-testid': 'pw-status' });
  async function submit(e) {
    e.preventDefault();
    try {
      await changePassword(current.value, next.value);
      status.textContent = t('account.password.changed');
      current.value = '';
      next.value = '';
    } catch (err) {
      status.textContent = errorText(err);
    }
  }
  return h('form', { class: 'panel account-form', onsubmit: submit },
    h('h2', {}, t('account.password.title')),
    h('label', { for: 'pw-current' }, t('account.password.current')), current,
    h('label', { for: 'pw-new' }, t('account.password.new')), next,
    h('button', { type: 'submit', 'data-testid': 'pw-submit' }, t('account.password.button')), status);
}

export function showAccount(app) {
  if (location.pathname.startsWith('/account/')) {
    showLink(app);
    return;
  }
  function render() {
    document.title = t('account.pageTitle');
    const me = account();
    if (me) {
      app.replaceChildren(h('div', { class: 'account-page' },
        h('section', { class: 'panel' },
          h('h1', {}, t('account.loggedInAs', { name: me.name })),
          h('p', {}, t('account.ratingLine', { rating: ratingText(me), n: me.games })),
          h('p', {}, h('a', { href: profileLink(me.name), 'data-testid': 'my-profile' }, t('account.profileLink')),
            ' · ', h('a', { href: '/leaderboard' }, t('nav.leaderboard'))),
          h('button', { type: 'button', 'data-testid': 'logout', onclick: () => logout() }, t('account.logout'))),
        passwordForm(), emailPanel()));
    } else {
      // Back where the reader came from: a page of this site only (next.js).
      const next = new URLSearchParams(location.search).get('next');
      const back = () => { location.assign(safeNext(next, location.origin)); };
      app.replaceChildren(h('div', { class: 'account-page' },
        h('section', { class: 'panel' }, h('h1', {}, t('account.title')), h('p', {}, t('account.intro'))),
        h('div', { class: 'account-forms' },
          h('div', { class: 'login-column' }, credentialsForm('login', back), forgotPanel()),
          credentialsForm('register', back))));
    }
  }
  currentAccount().then(render);
  onAccountChange(render);
  onLangChange(render);
}

// ---- /players/{name} -------------------------------------------------------------------

/** A day as the chart's axis writes it ("27 Nov 2026", "2026/11/27"). */
function dayText(ms) {
  return new Date(ms).toLocaleDateString(dateLocale(), { dateStyle: 'medium' });
}

/** The rating after each game, oldest first, as an SVG line chart: the dates of the
 * first and the last game under it, each point's date and rating in its tooltip. */
export function ratingChart(history) {
  const NS = 'http://www.w3.org/2000/svg';
  const points = [...history].reverse();
  const values = points.length ? [points[0].rating_before, ...points.map((g) => g.rating_after)] : [];
  const svg = document.createElementNS(NS, 'svg');
  const W = 600;
  const H = 176;
  const pad = 28;
  const bottom = 16; // the dates under the axis
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('class', 'rating-chart');
  svg.setAttribute('role', 'img');
  svg.setAttribute('data-testid', 'rating-chart');
  svg.setAttribute('aria-label', t('profile.chartLabel', { from: values[0] ?? '', to: values.at(-1) ?? '' }));
  if (values.length < 2) return svg;
  const lo = Math.min(...values) - 10;
  const hi = Math.max(...values) + 10;
  const x = (i) => pad + (i * (W - 2 * pad)) / (values.length - 1);
  const y = (v) => H - bottom - pad / 2 - ((v - lo) * (H - bottom - pad)) / (hi - lo);
  const el = (tag, attrs, text) => {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
    if (text !== undefined) n.textContent = text;
    return n;
  };
  svg.append(el('line', { x1: pad, x2: W - pad, y1: y(lo + 10), y2: y(lo + 10), class: 'axis' }));
  svg.append(el('text', { x: 2, y: y(hi - 10) + 4, class: 'tick' }, String(Math.round(hi - 10))));
  svg.append(el('text', { x: 2, y: y(lo + 10), class: 'tick' }, String(Math.round(lo + 10))));
  const first = points[0].rated_at_ms;
  const last = points.at(-1).rated_at_ms;
  svg.append(el('text', { x: pad, y: H - 3, class: 'tick date', 'text-anchor': 'start', 'data-testid': 'chart-first-date' }, dayText(first)));
  svg.append(el('text', { x: W - pad, y: H - 3, class: 'tick date', 'text-anchor': 'end', 'data-testid': 'chart-last-date' }, dayText(last)));
  svg.append(el('polyline', { points: values.map((v, i) => `${x(i)},${y(v)}`).join(' '), class: 'line' }));
  values.forEach((v, i) => {
    // Point 0 is the rating before the first game; point i the one after game i.
    const date = dateText(points[Math.max(0, i - 1)].rated_at_ms);
    const dot = el('circle', { cx: x(i), cy: y(v), r: 3.5, class: 'dot', 'data-testid': 'chart-point' });
    dot.append(el('title', {}, t(i === 0 ? 'profile.chartStart' : 'profile.chartPoint', { date, rating: v })));
    svg.append(dot);
  });
  return svg;
}

/** A rated game's placing ("2nd of 3"), or a draw; its class for the colour: only the
 * first and the last place are coloured, a second place is neither won nor lost. */
function placing(g) {
  if (g.result === 'draw') return { text: t('profile.result.draw'), cls: 'draw' };
  const place = g.result === 'win' ? 1 : g.place;
  return { text: t(`profile.place.${place}`), cls: `place${place}` };
}

/** The finished games of a profile asked at a time (`GET /api/players/{name}/games`). */
const HISTORY_PAGE = 20;

export function showProfile(app, name) {
  let data = null;
  let error = '';
  // The player's finished games: the pages loaded so far, whether there may be more.
  const hist = { games: null, more: false, busy: false, error: '' };

  async function loadHistory() {
    if (hist.busy) return;
    hist.busy = true;
    hist.error = '';
    drawKeepingFocus();
    const last = hist.games?.at(-1);
    const query = new URLSearchParams({ limit: String(HISTORY_PAGE) });
    if (last) query.set('before', String(last.ended_at_ms));
    try {
      const page = await api(`/api/players/${encodeURIComponent(name)}/games?${query}`);
      const seen = new Set((hist.games ?? []).map((g) => g.room));
      hist.games = [...(hist.games ?? []), ...page.filter((g) => !seen.has(g.room))];
      hist.more = page.length === HISTORY_PAGE;
    } catch (e) {
      hist.error = errorText(e);
    }
    hist.busy = false;
    drawKeepingFocus();
  }

  /** Draws the page; the More button keeps the focus it had. */
  function drawKeepingFocus() {
    const had = app.contains(document.activeElement) && document.activeElement?.dataset?.testid === 'history-more';
    render();
    if (had) app.querySelector('[data-testid="history-more"]')?.focus();
  }

  function historySection() {
    const parts = [h('h2', {}, t('history.profileTitle'))];
    if (hist.games === null) parts.push(hist.error ? null : h('p', { class: 'empty' }, t('lobby.loading')));
    else parts.push(historyList(hist.games, { empty: t('history.profileEmpty') }));
    if (hist.error) parts.push(h('p', { class: 'error', role: 'alert', 'data-testid': 'history-error' }, t('history.error', { reason: hist.error })));
    if (hist.games?.length || hist.error) {
      parts.push(h('div', { class: 'history-pager' },
        hist.games?.length ? h('span', { class: 'meta', 'data-testid': 'history-shown' }, t(hist.games.length === 1 ? 'history.shownOne' : 'history.shown', { n: hist.games.length })) : null,
        hist.more || hist.error ? h('button', {
          type: 'button', 'data-testid': 'history-more', 'aria-busy': hist.busy ? 'true' : null, onclick: loadHistory,
        }, t(hist.busy ? 'lobby.loading' : hist.error ? 'games.retry' : 'history.more')) : null));
    }
    return h('section', { class: 'panel history', 'data-testid': 'profile-finished' }, parts);
  }

  function render() {
    document.title = t('profile.pageTitle', { name: data?.name ?? name });
    if (error) {
      app.replaceChildren(h('section', { class: 'panel' }, h('h1', {}, name), h('p', { class: 'error', 'data-testid': 'profile-error' }, error)));
      return;
    }
    if (!data) {
      app.replaceChildren(h('p', { class: 'empty' }, t('lobby.loading')));
      return;
    }
    const rows = data.history.map((g) => {
      const diff = g.rating_after - g.rating_before;
      return h('tr', { 'data-room': g.room_id },
        h('td', {}, dateText(g.rated_at_ms)),
        h('td', { class: `result ${placing(g).cls}` }, placing(g).text),
        h('td', {}, g.opponents.flatMap((o, i) => [i ? ', ' : '', h('a', { href: profileLink(o.name) }, o.name)])),
        h('td', { class: 'num' }, `${g.rating_after} (${diff >= 0 ? '+' : ''}${diff})`),
        h('td', {}, h('a', { href: `/rooms/${encodeURIComponent(g.room_id)}`, 'data-testid': `replay-${g.room_id}` }, t('profile.replay'))));
    });
    app.replaceChildren(h('div', { class: 'profile-page' },
      h('section', { class: 'panel' },
        h('h1', { 'data-testid': 'profile-name' }, data.name),
        h('p', { class: 'big-rating' },
          h('span', { 'data-testid': 'profile-rating' }, String(data.rating)),
          data.provisional ? h('span', { class: 'badge', title: t('profile.provisionalHint') }, t('profile.provisional')) : null),
        h('p', { 'data-testid': 'profile-games' }, t('profile.games', { n: data.games })),
        account()?.name === data.name ? h('p', {}, h('a', { href: '/account', 'data-testid': 'account-settings' }, t('profile.settings')))
          : h('p', {}, h('button', {
            type: 'button', class: 'small', 'data-testid': 'report-player', title: t('report.playerLabel', { name: data.name }),
            onclick: () => openReport({ name: data.name }, { name: data.name }),
          }, t('report.player'))),
        ratingChart(data.history)),
      h('section', { class: 'panel' },
        h('h2', {}, t('profile.gamesTitle')),
        data.history.length
          ? h('div', { class: 'table-scroll' }, h('table', { class: 'games', 'data-testid': 'profile-history' },
            h('thead', {}, h('tr', {}, ['date', 'result', 'opponents', 'rating', 'replay'].map((k) => h('th', {}, t(`profile.col.${k}`))))),
            h('tbody', {}, rows)))
          : h('p', { class: 'empty' }, t('profile.noGames'))),
      historySection()));
  }
  currentAccount().then(render);
  api(`/api/players/${encodeURIComponent(name)}`).then((d) => { data = d; }, (e) => { error = errorText(e); }).then(render);
  loadHistory();
  render();
  onLangChange(render);
}

// ---- /leaderboard ----------------------------------------------------------------------

export function showLeaderboard(app) {
  let rows = null;
  let error = '';
  function render() {
    document.title = t('leaderboard.pageTitle');
    const body = error ? h('p', { class: 'error' }, error)
      : rows === null ? h('p', { class: 'empty' }, t('lobby.loading'))
        : rows.length === 0 ? h('p', { class: 'empty' }, t('leaderboard.empty'))
          : h('table', { class: 'games', 'data-testid': 'leaderboard' },
            h('thead', {}, h('tr', {}, ['rank', 'name', 'rating', 'games'].map((k) => h('th', {}, t(`leaderboard.col.${k}`))))),
            h('tbody', {}, rows.map((r) => h('tr', {},
              h('td', { class: 'num' }, String(r.rank)),
              h('td', {}, h('a', { href: profileLink(r.name) }, r.name)),
              h('td', { class: 'num' }, ratingText(r)),
              h('td', { class: 'num' }, String(r.games))))));
    app.replaceChildren(h('section', { class: 'panel leaderboard-page' },
      h('h1', {}, t('leaderboard.title')), h('p', {}, t('leaderboard.intro')), body));
  }
  api('/api/leaderboard').then((r) => { rows = r; }, (e) => { error = errorText(e); }).then(render);
  render();
  onLangChange(render);
}
