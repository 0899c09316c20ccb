// /mod — the moderators' page (docs/moderation.md §4): the open reports, newest first,
// each with the lines around a reported chat line (that one marked) and the quick
// actions (mute for a day, ban, close); the pairs of accounts that finish first and
// second together too often (mod-pairs.js); a player's page and the form to act on an
// account or an address range (mod-player.js; `/mod?player=<name>` opens with that
// account looked up); and the log of every action. An account
// that is not a moderator's is told that the page is for moderators (the API answers
// it 401 or 403). The server's words are shown for every refusal.
import { h } from './dom.js';
import { dateLocale, onLangChange, t } from './i18n.js';
import { api } from './protocol.js';
import { currentAccount } from './account.js';
import { playerSection } from './mod-player.js';
import { pairsSection } from './mod-pairs.js';
import { act, dateText, minutesText, roomHref, word } from './mod-common.js';

/** The ban lengths offered on a report, in minutes (0: until lifted). */
const BAN_MINUTES = [1440, 10080, 0];

export function showMod(app) {
  const page = { me: null, reports: null, log: null, denied: false, error: '', status: '' };
  const root = h('div', { class: 'mod-page', 'data-testid': 'mod-page' });
  app.replaceChildren(root);
  let player = null;
  let pairs = null;
  // `/mod?player=<name>`: that account's record, once the page is drawn.
  let wanted = new URLSearchParams(location.search).get('player');

  async function load() {
    try {
      const [reports, log] = await Promise.all([api('/api/mod/reports?open=true'), api('/api/mod/log')]);
      page.reports = reports ?? [];
      page.log = log ?? [];
      page.error = '';
    } catch (e) {
      if (e.status === 401 || e.status === 403) page.denied = true;
      else page.error = e.message;
    }
    draw();
  }

  /** The open reports again (the rest of the page stays as it is). */
  async function reloadReports() {
    try {
      page.reports = (await api('/api/mod/reports?open=true')) ?? [];
      page.reportsError = '';
    } catch (e) { page.reportsError = e.message; }
    reportsBox.replaceChildren(...reportParts(page, ctx, reloadReports));
  }

  async function reloadLog() {
    try {
      page.log = (await api('/api/mod/log')) ?? [];
      page.logError = '';
    } catch (e) { page.logError = e.message; }
    logBox.replaceChildren(...logParts(page, reloadLog));
  }

  const ctx = {
    get me() { return page.me; },
    /** After an action: what it did, the report gone from the list, the log again. */
    done(text, reportId = null) {
      if (reportId) page.reports = page.reports.filter((r) => r.id !== reportId);
      page.status = text;
      reportsBox.replaceChildren(...reportParts(page, ctx, reloadReports));
      statusLine.textContent = text;
      reloadLog();
    },
    lookUp(name) {
      player?.lookUp(name);
      const url = `/mod?player=${encodeURIComponent(name)}`;
      if (location.pathname + location.search !== url) history.replaceState(null, '', url);
    },
    useAddr(addr) { player?.useAddr(addr); },
  };
  const statusLine = h('p', { class: 'mod-status', role: 'status', 'data-testid': 'mod-status' });
  const reportsBox = h('section', { class: 'panel mod-reports', 'data-testid': 'mod-reports', 'aria-labelledby': 'mod-reports-title' });
  const logBox = h('section', { class: 'panel mod-log', 'data-testid': 'mod-log', 'aria-labelledby': 'mod-log-title' });

  function draw() {
    document.title = t('mod.pageTitle');
    if (page.denied) {
      root.replaceChildren(h('section', { class: 'panel' }, h('h1', {}, t('mod.title')),
        h('p', { 'data-testid': 'mod-denied' }, t('mod.forModerators')),
        page.me ? null : h('p', {}, h('a', { href: `/account?next=${encodeURIComponent('/mod')}` }, t('account.loginLink')))));
      return;
    }
    if (!page.reports) {
      root.replaceChildren(h('h1', {}, t('mod.title')),
        page.error ? h('p', { class: 'error', role: 'alert', 'data-testid': 'mod-error' }, page.error) : h('p', { class: 'empty' }, t('lobby.loading')));
      return;
    }
    player = playerSection(ctx);
    const firstPairs = !pairs;
    pairs ??= pairsSection(ctx);
    if (firstPairs) pairs.load(); else pairs.draw();
    statusLine.textContent = page.status;
    reportsBox.replaceChildren(...reportParts(page, ctx, reloadReports));
    logBox.replaceChildren(...logParts(page, reloadLog));
    root.replaceChildren(...[h('h1', {}, t('mod.title')), statusLine,
      page.error ? h('p', { class: 'error', role: 'alert', 'data-testid': 'mod-error' }, page.error) : null,
      reportsBox, pairs.node, player.node, logBox].filter(Boolean));
    if (wanted) {
      player.lookUp(wanted);
      wanted = null;
    }
  }

  draw();
  currentAccount().then((me) => { page.me = me; load(); });
  onLangChange(draw);
}

// ---- the open reports --------------------------------------------------------------

function reportParts(page, ctx, reload) {
  const list = page.reports;
  return [
    h('div', { class: 'panel-head' },
      h('h2', { id: 'mod-reports-title' }, t('mod.reports.title'), ' ', h('span', { class: 'count' }, `(${list.length})`)),
      h('button', { type: 'button', class: 'small', 'data-testid': 'mod-reports-refresh', onclick: reload }, t('mod.refresh'))),
    page.reportsError ? h('p', { class: 'error', role: 'alert' }, page.reportsError) : null,
    list.length ? h('div', { class: 'report-cards' }, list.map((r) => reportCard(r, ctx)))
      : h('p', { class: 'empty', 'data-testid': 'mod-no-reports' }, t('mod.reports.empty')),
  ].filter(Boolean);
}

/** Whom a report's actions apply to: its account, else its guest's address. */
function targetOf(r) {
  if (r.target?.account) return { account: r.target.account };
  if (r.target?.addr) return { addr: r.target.addr };
  return null;
}

/** The reason a quick action records: the report's own words. */
function reportReason(r) {
  return `${t(`report.reason.${r.reason}`)}${r.text ? `: ${r.text}` : ''}`.slice(0, 500);
}

function reportFacts(r, ctx) {
  const target = r.target ?? {};
  const who = [h('b', {}, String(target.name ?? '?'))];
  if (target.account) {
    who.push(' · ', h('button', { type: 'button', class: 'link', 'data-testid': 'report-look-up', onclick: () => ctx.lookUp(target.account) },
      t('mod.report.account', { name: target.account })));
  } else who.push(' · ', t('mod.report.guest'));
  if (target.addr) {
    who.push(' · ', h('code', {}, target.addr), ' ',
      h('button', { type: 'button', class: 'small', 'data-testid': 'report-use-addr', onclick: () => ctx.useAddr(target.addr) }, t('mod.player.useAddr')));
  }
  const rows = [
    [t('mod.report.target'), who],
    [t('mod.report.reporter'), r.reporter ? String(r.reporter) : t('mod.report.aGuest')],
  ];
  if (r.room) {
    rows.push([t('mod.report.room'), [h('a', { href: roomHref(r.room), 'data-testid': 'report-room' }, t('mod.report.openRoom')),
      r.seat ? ` · ${word('room.seat', r.seat)}` : '']]);
  }
  return h('dl', { class: 'report-facts' }, rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

function contextList(r) {
  if (!r.context?.length) return null;
  return h('div', { class: 'report-context-box' },
    h('h3', {}, t('mod.report.context')),
    h('ol', { class: 'report-context', 'data-testid': 'report-context' }, r.context.map((line) => h('li', {
      class: line.reported ? 'reported' : null, 'data-testid': line.reported ? 'report-line' : null,
    },
    h('time', {}, new Date(line.at_ms).toLocaleTimeString(dateLocale(), { hour: '2-digit', minute: '2-digit' })), ' ',
    line.channel === 'spectators' ? h('span', { class: 'tag' }, t('mod.report.spectators')) : null,
    h('b', {}, String(line.name ?? '?')), ': ', h('span', { class: 'text' }, String(line.text ?? '')),
    line.reported ? h('span', { class: 'tag reported-tag' }, t('mod.report.reported')) : null))));
}

function reportCard(r, ctx) {
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'report-card-error' });
  const formBox = h('div', { class: 'report-form-box' });
  const target = targetOf(r);
  async function run(fn, text) {
    error.textContent = '';
    for (const b of card.querySelectorAll('button')) b.disabled = true;
    try {
      await fn();
      ctx.done(text, r.id);
    } catch (e) {
      error.textContent = e.message;
      for (const b of card.querySelectorAll('button')) b.disabled = false;
    }
  }
  const name = String(r.target?.name ?? '');
  const mute = () => run(() => act({ action: 'mute', ...target, minutes: 1440, reason: reportReason(r), report: r.id }),
    t('mod.done', { action: word('mod.action', 'mute'), target: name }));
  function ban() {
    formBox.replaceChildren(banForm(r, (minutes, reason) => run(
      () => act({ action: 'ban', ...target, minutes, reason, report: r.id }),
      t('mod.done', { action: word('mod.action', 'ban'), target: name }),
    ), () => formBox.replaceChildren()));
    formBox.querySelector('select')?.focus();
  }
  function close() {
    formBox.replaceChildren(closeForm(r, (resolution) => run(
      () => api(`/api/mod/reports/${encodeURIComponent(r.id)}/close`, { method: 'POST', body: JSON.stringify({ resolution }) }),
      t('mod.closed'),
    ), () => formBox.replaceChildren()));
    formBox.querySelector('input')?.focus();
  }
  const card = h('article', { class: 'report-card', 'data-testid': 'report-card', 'data-id': r.id },
    h('header', {},
      h('span', { class: `badge reason reason-${r.reason}` }, word('report.reason', r.reason)),
      h('b', { class: 'report-name' }, name),
      h('time', {}, dateText(r.created_at))),
    r.text ? h('blockquote', { class: 'report-text', 'data-testid': 'report-text' }, String(r.text)) : null,
    reportFacts(r, ctx),
    contextList(r),
    h('div', { class: 'report-actions' },
      h('button', { type: 'button', 'data-testid': 'report-mute', disabled: !target, onclick: mute }, t('mod.mute24')),
      h('button', { type: 'button', 'data-testid': 'report-ban', disabled: !target, onclick: ban }, t('mod.ban')),
      h('button', { type: 'button', 'data-testid': 'report-close', onclick: close }, t('mod.close'))),
    target ? null : h('p', { class: 'hint' }, t('mod.noTarget')),
    formBox, error);
  return card;
}

function reasonField(id, value = '') {
  return h('input', { id, 'data-testid': id, required: true, maxlength: 500, value });
}

function banForm(r, submit, cancel) {
  const id = `ban-${r.id}`;
  const minutes = h('select', { id: `${id}-minutes`, 'data-testid': 'ban-minutes' },
    BAN_MINUTES.map((n) => h('option', { value: String(n) }, minutesText(n))));
  const reason = reasonField(`${id}-reason`, reportReason(r));
  reason.dataset.testid = 'ban-reason';
  return h('form', {
    class: 'mod-inline-form', 'data-testid': 'ban-form',
    onsubmit: (e) => { e.preventDefault(); submit(Number(minutes.value), reason.value.trim()); },
  },
  h('label', { for: minutes.id }, t('mod.ban.length')), minutes,
  h('label', { for: reason.id }, t('mod.reason')), reason,
  h('div', { class: 'row' }, h('button', { type: 'submit', class: 'danger', 'data-testid': 'ban-submit' }, t('mod.ban.submit')),
    h('button', { type: 'button', onclick: cancel }, t('mod.cancel'))));
}

function closeForm(r, submit, cancel) {
  const resolution = reasonField(`close-${r.id}`);
  resolution.dataset.testid = 'close-resolution';
  return h('form', {
    class: 'mod-inline-form', 'data-testid': 'close-form',
    onsubmit: (e) => { e.preventDefault(); submit(resolution.value.trim()); },
  },
  h('label', { for: resolution.id }, t('mod.close.resolution')), resolution,
  h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary', 'data-testid': 'close-submit' }, t('mod.close.submit')),
    h('button', { type: 'button', onclick: cancel }, t('mod.cancel'))));
}

// ---- the log -----------------------------------------------------------------------

/** What else an entry of the log says: the length, the new name, the role, a report. */
function detailsText(d) {
  if (!d || typeof d !== 'object') return '';
  const parts = [];
  if ('minutes' in d) parts.push(minutesText(d.minutes ?? 0)); // null: until lifted
  if (d.new_name) parts.push(t('mod.details.newName', { name: d.new_name }));
  if (d.role) parts.push(t('mod.details.role', { role: word('mod.role', d.role) }));
  if (d.report) parts.push(t('mod.details.report'));
  return parts.join(' · ');
}

/** Whom an entry acted on: an account or a range, or (a report closed) the report's id, cut short. */
function logTarget(e) {
  const target = String(e.target ?? '');
  if (e.action !== 'close_report') return h('td', {}, target);
  return h('td', { title: target }, h('code', {}, target.slice(0, 8)));
}

function logParts(page, reload) {
  const rows = page.log ?? [];
  return [
    h('div', { class: 'panel-head' }, h('h2', { id: 'mod-log-title' }, t('mod.log.title')),
      h('button', { type: 'button', class: 'small', 'data-testid': 'mod-log-refresh', onclick: reload }, t('mod.refresh'))),
    page.logError ? h('p', { class: 'error', role: 'alert' }, page.logError) : null,
    rows.length
      ? h('div', { class: 'table-scroll' }, h('table', { class: 'games mod-table', 'data-testid': 'mod-log-table' },
        h('thead', {}, h('tr', {}, ['when', 'by', 'action', 'target', 'reason', 'details'].map((k) => h('th', {}, t(`mod.col.${k}`))))),
        h('tbody', {}, rows.map((e) => h('tr', {},
          h('td', { class: 'num' }, dateText(e.at)), h('td', {}, String(e.by ?? '')),
          h('td', {}, word('mod.action', e.action)), logTarget(e),
          h('td', { class: 'wrap' }, String(e.reason ?? '')), h('td', { class: 'wrap' }, detailsText(e.details)))))))
      : h('p', { class: 'empty' }, t('mod.log.empty')),
  ].filter(Boolean);
}
