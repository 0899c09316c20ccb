// The pairs part of /mod (docs/moderation.md): `GET /api/mod/pairs`, the pairs of
// accounts that played together, the most unusual first — how often the two finished
// first and second together against the share expected, its z, the captures and checks
// between them against those on the third player, and the games one of them gave up
// while the other stood ahead — with the pair's games and "Keep apart" / "Allow
// together" (`POST /api/mod/pairs/apart`, with a reason). The figures flag; they
// decide nothing.
import { h } from './dom.js';
import { dateLocale, t } from './i18n.js';
import { api } from './protocol.js';
import { roomHref } from './mod-common.js';

/** A share 0..1 as a percentage in the reader's language ("33 %"); "—" when unknown. */
export function shareText(x, digits = 0) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return '—';
  return new Intl.NumberFormat(dateLocale(), { style: 'percent', maximumFractionDigits: digits }).format(x);
}

function numberText(x, digits = 1) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return '—';
  return new Intl.NumberFormat(dateLocale(), { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
}

/** A z this high is worth a look (about one pair in a thousand plays like this by chance). */
const HIGH_Z = 3;
/** The columns whose heading explains itself in a tooltip. */
const TITLED = new Set(['firstSecond', 'z', 'between', 'third', 'gaveUp']);
/** The games of a pair listed at once; the rest behind "more". */
const ROOMS_SHOWN = 6;

/** The link to an account's record on /mod: looked up in place (`lookUp`), or opened
 * in a new tab like any link. */
export function modPlayerLink(name, lookUp, testid = null) {
  return h('a', {
    href: `/mod?player=${encodeURIComponent(name)}`, class: 'mod-name', 'data-testid': testid,
    onclick: (e) => {
      if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
      e.preventDefault();
      lookUp(name);
    },
  }, String(name));
}

/** The section: `{ node, load() }`. `ctx`: mod.js's (`lookUp(name)`, `done(text)`). */
export function pairsSection(ctx) {
  const st = { data: null, error: '', busy: false };
  const node = h('section', { class: 'panel mod-pairs', 'data-testid': 'mod-pairs', 'aria-labelledby': 'mod-pairs-title' });

  async function load() {
    st.busy = true;
    try {
      st.data = (await api('/api/mod/pairs')) ?? { site: null, pairs: [] };
      st.error = '';
    } catch (e) {
      st.error = e.message;
    }
    st.busy = false;
    draw();
  }

  function siteLine(site) {
    if (!site?.pairs) return null;
    return h('p', { class: 'mod-site', 'data-testid': 'mod-pairs-site' }, t('mod.pairs.site', {
      pairs: site.pairs ?? 0, games: site.games ?? 0,
      share: shareText(site.first_second_share), between: shareText(site.between_share),
      gaveUp: shareText(site.gave_up_share),
    }));
  }

  function roomsCell(pair) {
    const rooms = pair.rooms ?? [];
    if (!rooms.length) return '—';
    const link = (id, i) => h('a', {
      href: roomHref(id), 'data-testid': 'mod-pair-room', title: String(id),
      'aria-label': t('mod.pairs.gameLabel', { n: i + 1, id: String(id).slice(0, 8) }),
    }, String(i + 1));
    const first = rooms.slice(0, ROOMS_SHOWN).map(link);
    const rest = rooms.slice(ROOMS_SHOWN).map((id, i) => link(id, i + ROOMS_SHOWN));
    return h('span', { class: 'mod-pair-rooms' }, first,
      rest.length ? h('details', {}, h('summary', {}, t('mod.pairs.moreGames', { n: rest.length })), h('span', { class: 'mod-pair-rooms' }, rest)) : null);
  }

  /** The action of a row: the button, then its form asking the reason. */
  function apartCell(pair) {
    const box = h('div', { class: 'mod-pair-action' });
    const apart = !pair.kept_apart;
    const button = h('button', {
      type: 'button', class: apart ? 'small danger' : 'small', 'data-testid': apart ? 'mod-pair-apart' : 'mod-pair-together',
      onclick: () => {
        box.replaceChildren(reasonForm(pair, apart, () => box.replaceChildren(button)));
        box.querySelector('input')?.focus();
      },
    }, t(apart ? 'mod.pairs.apart' : 'mod.pairs.together'));
    box.append(button);
    return box;
  }

  function reasonForm(pair, apart, cancel) {
    const id = `pair-reason-${encodeURIComponent(pair.a)}-${encodeURIComponent(pair.b)}`;
    const reason = h('input', { id, 'data-testid': 'mod-pair-reason', required: true, maxlength: 500, autocomplete: 'off' });
    const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'mod-pair-error' });
    const submit = h('button', { type: 'submit', class: apart ? 'danger' : 'primary', 'data-testid': 'mod-pair-submit' },
      t(apart ? 'mod.pairs.apartSubmit' : 'mod.pairs.togetherSubmit'));
    return h('form', {
      class: 'mod-inline-form', 'data-testid': 'mod-pair-form',
      onsubmit: async (e) => {
        e.preventDefault();
        const text = reason.value.trim();
        if (!text) { reason.focus(); return; }
        error.textContent = '';
        submit.disabled = true;
        try {
          await api('/api/mod/pairs/apart', { method: 'POST', body: JSON.stringify({ a: pair.a, b: pair.b, apart, reason: text }) });
          ctx.done(t(apart ? 'mod.pairs.keptApart' : 'mod.pairs.allowed', { a: pair.a, b: pair.b }));
          await load();
        } catch (err) {
          error.textContent = err.message;
          submit.disabled = false;
        }
      },
    },
    h('label', { for: id }, t('mod.reason')), reason,
    h('div', { class: 'row' }, submit, h('button', { type: 'button', onclick: cancel }, t('mod.cancel'))), error);
  }

  /** A cell with its column's name, which a phone shows before it (the table becomes
   * one card a pair). */
  const cell = (col, content, cls = null) => h('td', { 'data-label': t(`mod.pairs.col.${col}`), class: cls }, content);

  /** "captures: 0" over "checks: 0". */
  const countsOf = (captures, checks) => h('span', { class: 'counts' },
    h('span', {}, t('mod.pairs.captures', { n: captures ?? 0 })), h('span', {}, t('mod.pairs.checks', { n: checks ?? 0 })));

  function row(pair) {
    const high = typeof pair.z === 'number' && pair.z >= HIGH_Z;
    return h('tr', {
      'data-testid': 'mod-pair', 'data-a': pair.a, 'data-b': pair.b, class: [high ? 'high' : null, pair.kept_apart ? 'apart' : null].filter(Boolean).join(' ') || null,
    },
    cell('pair', h('span', { class: 'mod-pair-names' },
      modPlayerLink(pair.a, ctx.lookUp, 'mod-pair-a'), h('span', { class: 'amp' }, ' · '), modPlayerLink(pair.b, ctx.lookUp, 'mod-pair-b'),
      pair.kept_apart ? h('span', { class: 'tag apart-tag', 'data-testid': 'mod-pair-kept-apart' }, t('mod.pairs.keptApartTag')) : null)),
    cell('games', String(pair.games ?? 0), 'num'),
    cell('firstSecond', h('span', {},
      h('b', {}, t('mod.pairs.firstSecondCount', { n: pair.first_second ?? 0, share: shareText(pair.first_second_share) })),
      h('span', { class: 'hint' }, t('mod.pairs.expected', { share: shareText(pair.expected_share) }))), 'num stack'),
    cell('z', h('span', { class: `z${high ? ' high' : ''}`, 'data-testid': 'mod-pair-z' }, numberText(pair.z)), 'num'),
    cell('between', h('span', {}, countsOf(pair.captures_between, pair.checks_between),
      typeof pair.between_share === 'number'
        ? h('span', { class: 'hint' }, t('mod.pairs.betweenShare', { share: shareText(pair.between_share) })) : null)),
    cell('third', countsOf(pair.captures_on_third, pair.checks_on_third)),
    cell('gaveUp', String(pair.gave_up_for_partner ?? 0), 'num'),
    cell('rooms', roomsCell(pair)),
    cell('action', apartCell(pair)));
  }

  function table(pairs) {
    const cols = ['pair', 'games', 'firstSecond', 'z', 'between', 'third', 'gaveUp', 'rooms', 'action'];
    return h('div', { class: 'table-scroll' }, h('table', { class: 'games mod-table mod-pairs-table', 'data-testid': 'mod-pairs-table' },
      h('thead', {}, h('tr', {}, cols.map((k) => h('th', { scope: 'col', title: TITLED.has(k) ? t(`mod.pairs.colTitle.${k}`) : null }, t(`mod.pairs.col.${k}`))))),
      h('tbody', {}, pairs.map(row))));
  }

  function draw() {
    const pairs = st.data?.pairs ?? [];
    node.replaceChildren(...[
      h('div', { class: 'panel-head' },
        h('h2', { id: 'mod-pairs-title' }, t('mod.pairs.title'), st.data ? [' ', h('span', { class: 'count' }, `(${pairs.length})`)] : null),
        h('button', { type: 'button', class: 'small', 'data-testid': 'mod-pairs-refresh', onclick: load }, t('mod.refresh'))),
      h('p', { class: 'mod-explain', 'data-testid': 'mod-pairs-explain' }, t('mod.pairs.explain')),
      st.error ? h('p', { class: 'error', role: 'alert', 'data-testid': 'mod-pairs-error' }, st.error) : null,
      st.data ? siteLine(st.data.site) : null,
      !st.data && !st.error ? h('p', { class: 'empty' }, t('lobby.loading')) : null,
      st.data && !pairs.length ? h('p', { class: 'empty', 'data-testid': 'mod-no-pairs' }, t('mod.pairs.empty')) : null,
      pairs.length ? table(pairs) : null,
    ].filter(Boolean));
  }

  draw();
  return { node, load, draw };
}
