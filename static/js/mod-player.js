// The player part of /mod (docs/moderation.md §4): a name looked up
// (`GET /api/mod/players/{name}`) shows the account's role, its sanctions, recent games
// and chat lines and the addresses it used, and how often its moves in reviewed rated
// games matched the computer review's best move beside the site's spread of the same
// figure (a flag, never a sanction by itself); the form under it acts on that account or
// on an address range (`POST /api/mod/actions`): ban, unban, mute, unmute, rename, and
// for admins delete and role, always with a reason.
import { h } from './dom.js';
import { t } from './i18n.js';
import { api } from './protocol.js';
import { act, dateText, minutesText, roomHref, word } from './mod-common.js';
import { shareText } from './mod-pairs.js';

const ACTIONS = ['ban', 'unban', 'mute', 'unmute', 'rename'];
const ADMIN_ACTIONS = ['delete', 'role'];
const MINUTES = [60, 1440, 10080, 43200, 0];
const ROLES = ['player', 'moderator', 'admin'];
/** Which fields each action needs besides its target and reason. */
const NEEDS = { ban: ['minutes'], mute: ['minutes'], rename: ['newName'], role: ['role'] };
/** Actions on an account only (no address range). */
const ACCOUNT_ONLY = new Set(['rename', 'delete', 'role']);

function list(items, draw) {
  return items?.length ? h('ul', { class: 'mod-list' }, items.map((x) => h('li', {}, [draw(x)].flat(3))))
    : h('p', { class: 'empty' }, t('mod.none'));
}

function sanctionState(s) {
  if (s.lifted_at) return t('mod.state.lifted', { date: dateText(s.lifted_at), name: s.lifted_by ?? '' });
  if (s.until && s.until < Date.now()) return t('mod.state.ended');
  return t('mod.state.inForce');
}

function sanctionsTable(rows) {
  if (!rows?.length) return h('p', { class: 'empty' }, t('mod.none'));
  return h('div', { class: 'table-scroll' }, h('table', { class: 'games mod-table', 'data-testid': 'mod-sanctions' },
    h('thead', {}, h('tr', {}, ['kind', 'until', 'reason', 'by', 'given', 'state'].map((k) => h('th', {}, t(`mod.col.${k}`))))),
    h('tbody', {}, rows.map((s) => h('tr', { class: s.lifted_at ? 'lifted' : null },
      h('td', {}, word('mod.kind', s.kind), s.addr ? [' ', h('code', {}, s.addr)] : null),
      h('td', { class: 'num' }, s.until ? dateText(s.until) : t('mod.minutes.0')),
      h('td', { class: 'wrap' }, String(s.reason ?? '')), h('td', {}, String(s.by ?? '')),
      h('td', { class: 'num' }, dateText(s.created_at)), h('td', {}, sanctionState(s)))))));
}

/** Where `x` (0..1) lies on the bar of the engine block, as a CSS length. */
const at = (x) => `${Math.max(0, Math.min(1, x)) * 100}%`;

/** The account's agreement with the computer review (`engine` of the record): its
 * share of best moves and average loss, the site's 10th, 50th and 90th percentiles
 * of the share, and a bar that puts the account among them. */
function engineBlock(e) {
  if (!e) return null;
  const site = e.site ?? {};
  const known = typeof e.match_share === 'number';
  const spread = [site.match_p10, site.match_p50, site.match_p90].every((x) => typeof x === 'number');
  const above = known && spread && e.match_share > site.match_p90;
  // Placed through the CSSOM: the site's style-src allows no style attributes.
  const place = (node, left, width = null) => {
    node.style.left = at(left);
    if (width !== null) node.style.width = at(width);
    return node;
  };
  const bar = known && spread ? h('div', { class: 'engine-bar', 'aria-hidden': 'true', title: t('mod.engine.barTitle') },
    place(h('span', { class: 'band' }), site.match_p10, site.match_p90 - site.match_p10),
    place(h('span', { class: 'median' }), site.match_p50),
    place(h('span', { class: `mark${above ? ' above' : ''}` }), e.match_share)) : null;
  // What is not known yet is left out (the notes below say so).
  const rows = [
    ['games', String(e.games ?? 0)],
    known ? ['moves', String(e.moves ?? 0)] : null,
    known ? ['match', [shareText(e.match_share, 1),
      above ? [' ', h('span', { class: 'tag above-tag', 'data-testid': 'mod-engine-above' }, t('mod.engine.above'))] : null], 'mod-engine-match'] : null,
    known ? ['loss', shareText(e.average_loss, 1), 'mod-engine-loss'] : null,
    spread ? ['spread', [site.match_p10, site.match_p50, site.match_p90].map((x) => shareText(x, 1)).join(' · '), 'mod-engine-spread'] : null,
    spread ? ['siteLoss', shareText(site.loss_p50, 1)] : null,
    ['accounts', String(site.accounts ?? 0)],
  ].filter(Boolean);
  return h('div', { class: 'mod-engine', 'data-testid': 'mod-engine' },
    h('h4', {}, t('mod.engine.title')),
    h('dl', { class: 'mod-engine-facts', 'data-testid': 'mod-engine-facts' }, rows.flatMap(([k, v, testid]) => [h('dt', {}, t(`mod.engine.${k}`)), h('dd', { 'data-testid': testid ?? null }, [v].flat(3))])),
    bar,
    known ? null : h('p', { class: 'empty', 'data-testid': 'mod-engine-none' }, t('mod.engine.none')),
    spread ? null : h('p', { class: 'empty' }, t('mod.engine.siteNone')),
    h('p', { class: 'hint' }, t('mod.engine.flagOnly')));
}

/** What `GET /api/mod/players/{name}` says of an account. `useAddr(addr)` puts an
 * address into the action form. */
function playerView(p, useAddr) {
  return h('div', { class: 'mod-player-view', 'data-testid': 'mod-player-view' },
    h('h3', {}, h('a', { href: `/players/${encodeURIComponent(p.name)}` }, String(p.name)), ' ',
      h('span', { class: `badge role-${p.role}`, 'data-testid': 'mod-player-role' }, word('mod.role', p.role))),
    p.created_at ? h('p', { class: 'hint' }, t('mod.player.created', { date: dateText(p.created_at) })) : null,
    h('h4', {}, t('mod.player.sanctions')), sanctionsTable(p.sanctions),
    engineBlock(p.engine),
    h('div', { class: 'mod-columns' },
      h('div', {}, h('h4', {}, t('mod.player.games')), list(p.games, (g) => [
        h('a', { href: roomHref(g.room) }, String(g.room).slice(0, 8)), ' ',
        word('room.seat', g.seat), ' · ', word('mod.game', g.status), ' · ', dateText(g.created_at)])),
      h('div', {}, h('h4', {}, t('mod.player.addresses')), list(p.addresses, (a) => [
        h('code', {}, String(a.addr ?? a)), ' ', a.last_seen ? t('mod.player.lastSeen', { date: dateText(a.last_seen) }) : '', ' ',
        h('button', { type: 'button', class: 'small', 'data-testid': 'mod-use-addr', onclick: () => useAddr(String(a.addr ?? a)) }, t('mod.player.useAddr'))]))),
    h('h4', {}, t('mod.player.chat')), list(p.chat, (c) => [
      h('time', {}, dateText(c.at_ms)), ' ', h('a', { href: roomHref(c.room) }, String(c.room).slice(0, 8)),
      c.channel === 'spectators' ? [' ', h('span', { class: 'tag' }, t('mod.report.spectators'))] : null,
      ': ', h('span', { class: 'text' }, String(c.text ?? '')), c.addr ? [' ', h('code', {}, c.addr)] : null]));
}

function field(id, labelKey, control) {
  return h('div', { class: 'mod-field', 'data-field': id }, h('label', { for: control.id }, t(labelKey)), control);
}

/** The form that acts on an account or an address range. `done(text)` after it. */
function actionForm(ctx, fields) {
  const admin = ctx.me?.role === 'admin';
  const action = h('select', { id: 'mod-action', 'data-testid': 'mod-action' },
    [...ACTIONS, ...(admin ? ADMIN_ACTIONS : [])].map((a) => h('option', { value: a }, word('mod.action', a))));
  const byAccount = h('input', { type: 'radio', name: 'mod-target', id: 'mod-by-account', value: 'account', checked: true, 'data-testid': 'mod-by-account' });
  const byAddr = h('input', { type: 'radio', name: 'mod-target', id: 'mod-by-addr', value: 'addr', 'data-testid': 'mod-by-addr' });
  const account = fields.account;
  const addr = fields.addr;
  const minutes = h('select', { id: 'mod-minutes', 'data-testid': 'mod-minutes' },
    MINUTES.map((n) => h('option', { value: String(n), selected: n === 1440 }, minutesText(n))));
  const newName = h('input', { id: 'mod-new-name', 'data-testid': 'mod-new-name', maxlength: 24, autocomplete: 'off' });
  const role = h('select', { id: 'mod-role', 'data-testid': 'mod-role' }, ROLES.map((r) => h('option', { value: r }, word('mod.role', r))));
  const reason = h('textarea', { id: 'mod-reason', 'data-testid': 'mod-reason', required: true, maxlength: 500, rows: 2 });
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'mod-action-error' });
  const button = h('button', { type: 'submit', class: 'primary', 'data-testid': 'mod-action-submit' }, t('mod.action.submit'));
  const extra = { minutes: field('minutes', 'mod.action.minutes', minutes), newName: field('newName', 'mod.action.newName', newName), role: field('role', 'mod.action.roleField', role) };
  const addrChoice = h('label', { class: 'choice' }, byAddr, t('mod.action.addr'));
  function fit() {
    const needs = NEEDS[action.value] ?? [];
    for (const [k, node] of Object.entries(extra)) node.hidden = !needs.includes(k);
    const accountOnly = ACCOUNT_ONLY.has(action.value);
    addrChoice.hidden = accountOnly;
    addr.hidden = accountOnly;
    if (accountOnly) byAccount.checked = true;
    account.disabled = !byAccount.checked;
    addr.disabled = byAccount.checked;
  }
  for (const n of [action, byAccount, byAddr]) n.addEventListener('change', fit);
  fields.onAddr = () => { byAddr.checked = true; if (ACCOUNT_ONLY.has(action.value)) action.value = 'ban'; fit(); };
  async function submit(e) {
    e.preventDefault();
    error.textContent = '';
    const a = action.value;
    const body = { action: a, reason: reason.value.trim() };
    if (byAccount.checked) body.account = account.value.trim(); else body.addr = addr.value.trim();
    const needs = NEEDS[a] ?? [];
    if (needs.includes('minutes')) body.minutes = Number(minutes.value);
    if (needs.includes('newName')) body.new_name = newName.value.trim();
    if (needs.includes('role')) body.role = role.value;
    button.disabled = true;
    try {
      await act(body);
      reason.value = '';
      ctx.done(t('mod.done', { action: word('mod.action', a), target: body.account ?? body.addr }));
      if (body.account && a !== 'delete') fields.lookUp(a === 'rename' ? body.new_name : body.account);
    } catch (err) {
      error.textContent = err.message;
    } finally {
      button.disabled = false;
    }
  }
  const form = h('form', { class: 'mod-action-form', 'data-testid': 'mod-action-form', onsubmit: submit },
    h('h3', {}, t('mod.action.title')),
    field('action', 'mod.action.what', action),
    h('fieldset', { class: 'mod-target' }, h('legend', {}, t('mod.action.target')),
      h('label', { class: 'choice' }, byAccount, t('mod.action.account')), account,
      addrChoice, addr),
    extra.minutes, extra.newName, extra.role,
    field('reason', 'mod.reason', reason),
    h('div', { class: 'row' }, button), error);
  fit();
  return form;
}

/** The section: `{ node, lookUp(name), useAddr(addr) }` (an address put in the form). */
export function playerSection(ctx) {
  const name = h('input', { id: 'mod-player-name', 'data-testid': 'mod-player-name', required: true, maxlength: 24, autocomplete: 'off' });
  const box = h('div', { class: 'mod-player-box', 'aria-live': 'polite' });
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'mod-player-error' });
  const fields = {
    account: h('input', { id: 'mod-account', 'data-testid': 'mod-account', 'aria-label': t('mod.action.account'), maxlength: 24, autocomplete: 'off' }),
    addr: h('input', { id: 'mod-addr', 'data-testid': 'mod-addr', 'aria-label': t('mod.action.addr'), placeholder: '203.0.113.0/24', autocomplete: 'off' }),
  };
  fields.lookUp = (who) => lookUp(who, false);
  const useAddr = (addr) => { fields.addr.value = addr; fields.onAddr?.(); fields.addr.focus(); };
  async function lookUp(who, scroll = true) {
    const wanted = String(who ?? '').trim();
    if (!wanted) return;
    name.value = wanted;
    fields.account.value = wanted;
    error.textContent = '';
    try {
      const p = await api(`/api/mod/players/${encodeURIComponent(wanted)}`);
      fields.account.value = p.name ?? wanted;
      box.replaceChildren(playerView(p, useAddr));
    } catch (e) {
      box.replaceChildren();
      error.textContent = e.message;
    }
    if (scroll) node.scrollIntoView?.({ block: 'start' });
  }
  const node = h('section', { class: 'panel mod-player', 'data-testid': 'mod-player', 'aria-labelledby': 'mod-player-title' },
    h('h2', { id: 'mod-player-title' }, t('mod.player.title')),
    h('form', { class: 'mod-lookup', onsubmit: (e) => { e.preventDefault(); lookUp(name.value); } },
      h('label', { for: 'mod-player-name' }, t('mod.player.name')), name,
      h('button', { type: 'submit', 'data-testid': 'mod-player-look-up' }, t('mod.player.lookUp'))),
    error, box, actionForm(ctx, fields));
  return { node, lookUp, useAddr: (addr) => { useAddr(addr); fields.addr.scrollIntoView?.({ block: 'center' }); } };
}
