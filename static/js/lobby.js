// The lobby: what the game is, then the ways in — play the computer (one click), play
// with friends (create, be seated, share the link), watch running games, look back at
// finished ones. Every text comes from the message tables (i18n).
import { h } from './dom.js';
import { api, saveToken } from './protocol.js';
import { SEATS } from './geometry.js';
import { parsePosition } from './position.js';
import { JOIN_INTENT_KEY, storedName, storeName } from './prefs.js';
import { lang, onLangChange, t } from './i18n.js';
import { miniBoard } from './miniboard.js';
import { playerName } from './players.js';
import { account, onAccountChange, onRatings, ratingOf, ratingText } from './account.js';

/** RULES §4: the start position. */
export const START_POSITION = 'lL1lP1fP1fL/lSlBlP2fPfRfS/lG1lP3fP1fG/lK1lP4fP1fK/lG1lN5fN1fG/lS1lP6fP1fS/lLlRlP7fPfBfL/1lP8fP1/lP9fP/10/mPmPmPmPmNmPmPmPmP/1mB4mR1/mLmSmGmKmGmSmL F -/-/- FML - FML';
const LEVELS = [0, 1, 2, 3, 4];
const FINISHED_PER_PAGE = 8;
const PLAYER = { First: 'first', Middle: 'middle', Last: 'last' };

function roomLink(id) {
  return `/rooms/${encodeURIComponent(id)}`;
}

/** A seat's name in the reader's language: "First" / "先手". */
export function seatLabel(seat) {
  return t(`seat.${seat}`);
}

function seatOf(player) {
  return PLAYER[player] ?? (SEATS.includes(player) ? player : null);
}

/** Rooms are named by their players: "Ann · Bob · Bot (level 2)". */
export function roomTitle(room) {
  const names = SEATS.filter((s) => room.seats?.[s]).map((s) => playerName(room.seats[s], s) ?? seatLabel(s));
  return names.length ? names.join(' · ') : t('lobby.emptyRoom');
}

function clockText(clock) {
  if (!clock || clock.kind === 'none') return t('clock.none');
  const min = (ms) => `${+(ms / 60000).toFixed(1)}`;
  const sec = (ms) => `${+(ms / 1000).toFixed(1)}`;
  switch (clock.kind) {
    case 'sudden_death': return t('clock.suddenDeathShort', { min: min(clock.main_ms) });
    case 'fischer': return t('clock.fischerShort', { min: min(clock.main_ms), inc: sec(clock.increment_ms) });
    case 'byoyomi': return t('clock.byoyomiShort', { min: min(clock.main_ms), byo: sec(clock.byoyomi_ms), periods: clock.periods });
    default: return clock.kind;
  }
}

function dateText(ms) {
  if (typeof ms !== 'number') return null;
  return new Date(ms).toLocaleString(lang() === 'ja' ? 'ja-JP' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * Takes a seat over the room's WebSocket, keeps the seat's token (the room page resumes
 * with it), and with `ready` also says ready and waits for the game to start.
 */
export function takeSeat(roomId, { seat = null, name = '', ready = false }) {
  return new Promise((resolve, reject) => {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/api/rooms/${encodeURIComponent(roomId)}/ws`);
    let seated = null;
    const finish = (err) => {
      clearTimeout(timer);
      ws.onmessage = null;
      ws.onclose = null;
      ws.close();
      if (err) reject(err); else resolve(seated);
    };
    const timer = setTimeout(() => finish(new Error(t('lobby.noAnswer'))), 15000);
    ws.onopen = () => ws.send(JSON.stringify({ type: 'join', seat, ...(name ? { name } : {}) }));
    ws.onclose = () => finish(new Error(t('lobby.connectionLost')));
    ws.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg.type === 'seated') {
        seated = msg.seat;
        saveToken(roomId, msg.token);
        if (ready) ws.send(JSON.stringify({ type: 'ready' }));
        else finish();
      } else if (msg.type === 'state' && seated && ready
        && (msg.status === 'playing' || msg.seats?.[seated]?.ready)) {
        finish();
      } else if (msg.type === 'error') {
        finish(new Error(msg.message ?? msg.code));
      }
    };
  });
}

export function showLobby(app) {
  const state = {
    rooms: [], details: new Map(), finishedPage: 0, loaded: false, error: '', busy: '',
    // Finished games come a page at a time from the server (`status=finished`, `limit`,
    // and the `Link: rel="next"` cursor); `urls[i]` fetches page i. A server that
    // ignores the query answers with every room: then the pages are cut here.
    fin: { urls: [`/api/rooms?status=finished&limit=${FINISHED_PER_PAGE}`], rooms: [], next: null, serverPaged: false },
    level: 2, name: storedName(),
  };
  let timer = null;

  function setMessage(text) {
    state.error = text;
    render();
  }

  async function playComputer() {
    state.busy = t('lobby.starting');
    state.error = '';
    render();
    try {
      const { id } = await api('/api/rooms', {
        method: 'POST', body: JSON.stringify({ bots: { middle: state.level, last: state.level } }),
      });
      await takeSeat(id, { seat: 'first', name: state.name.trim(), ready: true });
      location.assign(roomLink(id));
    } catch (e) {
      state.busy = '';
      setMessage(t('lobby.couldNotStart', { reason: e.message }));
    }
  }

  /** Seats the reader as they arrive in the room: the room page joins for them. */
  function goSeated(id, seat) {
    const name = state.name.trim();
    if (name) storeName(name);
    sessionStorage.setItem(JOIN_INTENT_KEY, JSON.stringify({ room: id, seat, name: name || undefined }));
    location.assign(roomLink(id));
  }

  async function createForFriends(body) {
    state.busy = t('lobby.creating');
    state.error = '';
    render();
    try {
      const { id } = await api('/api/rooms', { method: 'POST', body: JSON.stringify(body) });
      goSeated(id, null);
    } catch (e) {
      state.busy = '';
      setMessage(t('lobby.couldNotCreate', { reason: e.message }));
    }
  }

  function join(id, seat) {
    goSeated(id, seat);
  }

  // ---- pieces of the page -----------------------------------------------------------

  function nameRow() {
    const input = h('input', {
      id: 'player-name', 'data-testid': 'name', maxlength: 32, autocomplete: 'nickname',
      placeholder: t('lobby.namePlaceholder'), value: state.name,
    });
    input.addEventListener('input', () => { state.name = input.value; });
    input.addEventListener('change', () => storeName(input.value.trim()));
    return h('div', { class: 'name-row' }, h('label', { for: 'player-name' }, t('lobby.nameLabel')), input);
  }

  function computerPath() {
    const level = h('select', {
      id: 'bot-level', 'data-testid': 'computer-level',
      onchange: (e) => { state.level = Number(e.target.value); },
    }, LEVELS.map((n) => h('option', { value: n, selected: n === state.level }, t(`bot.level${n}`))));
    return h('section', { class: 'panel path', 'aria-labelledby': 'path-computer' },
      h('h2', { id: 'path-computer' }, t('lobby.computerTitle')),
      h('p', {}, t('lobby.computerText')),
      h('div', { class: 'row' },
        h('label', { for: 'bot-level' }, t('lobby.levelLabel')), level,
        h('button', {
          type: 'button', class: 'primary', 'data-testid': 'play-computer', disabled: Boolean(state.busy),
          onclick: playComputer,
        }, t('lobby.computerButton'))));
  }

  function friendsPath() {
    const kind = h('select', { id: 'clock-kind', 'data-testid': 'clock-kind' },
      ['none', 'sudden_death', 'fischer', 'byoyomi'].map((k) => h('option', { value: k }, t(`clock.kind.${k}`))));
    const num = (testid, key, value, min, max, step = 1) => {
      const input = h('input', { type: 'number', 'data-testid': testid, value, min, max, step });
      return { input, label: h('label', {}, t(key), ' ', input) };
    };
    const mainMin = num('clock-main', 'clock.minutes', 10, 0, 600, 0.5);
    const inc = num('clock-increment', 'clock.increment', 5, 0, 3600);
    const byo = num('clock-byoyomi', 'clock.byoyomi', 30, 1, 3600);
    const periods = num('clock-periods', 'clock.periods', 3, 1, 10);
    const showClockFields = () => {
      const k = kind.value;
      mainMin.label.hidden = k === 'none';
      inc.label.hidden = k !== 'fischer';
      byo.label.hidden = k !== 'byoyomi';
      periods.label.hidden = k !== 'byoyomi';
    };
    kind.addEventListener('change', showClockFields);
    showClockFields();
    const privateBox = h('input', { type: 'checkbox', 'data-testid': 'private-room' });
    // Rated rooms seat only logged-in players and no bots (docs/accounts.md).
    const ratedBox = h('input', { type: 'checkbox', 'data-testid': 'rated-room', disabled: !account() });
    const takeover = h('input', { type: 'checkbox', 'data-testid': 'bot-takeover' });
    const botSelects = Object.fromEntries(SEATS.map((seat) => [seat, h('select', {
      'data-testid': `create-bot-${seat}`, id: `create-bot-${seat}`,
    }, h('option', { value: '' }, t('lobby.human')), LEVELS.map((n) => h('option', { value: n }, t(`bot.level${n}`))))]));

    function body() {
      const out = {};
      if (privateBox.checked) out.private = true;
      const k = kind.value;
      if (k !== 'none') {
        out.clock = { kind: k, main_seconds: Number(mainMin.input.value) * 60 };
        if (k === 'fischer') out.clock.increment_seconds = Number(inc.input.value);
        if (k === 'byoyomi') {
          out.clock.byoyomi_seconds = Number(byo.input.value);
          out.clock.periods = Number(periods.input.value);
        }
      }
      const bots = {};
      for (const seat of SEATS) if (botSelects[seat].value !== '') bots[seat] = Number(botSelects[seat].value);
      if (Object.keys(bots).length) out.bots = bots;
      if (takeover.checked) out.bot_takeover = true;
      if (ratedBox.checked) {
        out.rated = true;
        delete out.bots;
        delete out.bot_takeover;
      }
      return out;
    }

    const openInput = h('input', { id: 'open-room', 'data-testid': 'open-room', placeholder: t('lobby.openPlaceholder') });
    function open(e) {
      e.preventDefault();
      const text = openInput.value.trim();
      if (!text) return;
      const m = /\/rooms\/([^/?#]+)/.exec(text);
      let id = m ? m[1] : text;
      // A pasted link with broken percent-encoding opens as it is (the room page says
      // there is no such room) rather than throwing here.
      try { if (m) id = decodeURIComponent(id); } catch { /* keep it as pasted */ }
      location.assign(roomLink(id));
    }

    return h('section', { class: 'panel path', 'aria-labelledby': 'path-friends' },
      h('h2', { id: 'path-friends' }, t('lobby.friendsTitle')),
      h('p', {}, t('lobby.friendsText')),
      h('fieldset', { class: 'more' },
        h('legend', {}, t('lobby.options')),
        h('div', { class: 'create-options' },
          h('label', { for: 'clock-kind' }, t('clock.label')), kind, mainMin.label, inc.label, byo.label, periods.label),
        h('div', { class: 'create-options' },
          h('label', {}, privateBox, t('lobby.private')),
          h('label', { title: t('lobby.ratedHint') }, ratedBox, t('lobby.rated')),
          account() ? null : h('a', { href: '/account?next=/', class: 'hint', 'data-testid': 'rated-login' }, t('lobby.ratedLogin'))),
        h('div', { class: 'bot-picker' },
          SEATS.map((seat) => h('span', { class: 'pair' }, h('label', { class: `seat-${seat}`, for: `create-bot-${seat}` }, t('lobby.seatPick', { seat: seatLabel(seat) })), botSelects[seat])),
          h('label', {}, takeover, t('lobby.takeover')))),
      // The button after the options it uses.
      h('div', { class: 'row' },
        h('button', {
          type: 'button', class: 'primary', 'data-testid': 'create-room', disabled: Boolean(state.busy),
          onclick: () => createForFriends(body()),
        }, t('lobby.createButton'))),
      h('form', { class: 'open-form', onsubmit: open },
        h('label', { for: 'open-room', class: 'sr-only' }, t('lobby.openLabel')), openInput,
        h('button', { type: 'submit' }, t('lobby.openButton'))));
  }

  function seatChips(room, joinable) {
    return h('span', { class: 'seats' }, SEATS.map((seat) => {
      const info = room.seats?.[seat];
      if (info?.name) {
        const bot = info.bot !== null && info.bot !== undefined;
        const r = room.rated ? ratingOf(info.name) : null;
        return h('span', { class: `seat-chip seat-${seat}${bot ? ' bot' : ''}` }, `${seatLabel(seat)}: `, h('b', {}, playerName(info, seat) ?? t('player.unnamed')),
          r ? h('span', { class: 'rating', 'data-testid': `rating-${room.id}-${seat}` }, ` ${ratingText(r)}`) : null,
          info.taken_over ? ` ${t('lobby.takenOver')}` : null);
      }
      if (!joinable) return h('span', { class: `seat-chip seat-${seat} free` }, `${seatLabel(seat)}: —`);
      return h('button', {
        class: `seat-chip seat-${seat} free`, type: 'button', 'data-testid': `join-${room.id}-${seat}`,
        disabled: Boolean(state.busy), onclick: () => join(room.id, seat),
      }, t('lobby.sitAs', { seat: seatLabel(seat) }));
    }));
  }

  function watchers(room) {
    const n = typeof room.spectators === 'number' ? room.spectators : (room.spectators?.length ?? 0);
    return t('lobby.watching', { n });
  }

  function waitingCard(room) {
    return h('li', { class: 'game-card', dataset: { room: room.id, status: 'waiting' } },
      h('h3', {}, h('a', { href: roomLink(room.id) }, roomTitle(room))),
      seatChips(room, true),
      h('span', { class: 'meta' }, [room.rated ? t('lobby.ratedTag') : null, clockText(room.clock), watchers(room)].filter(Boolean).join(' · ')));
  }

  function playingCard(room) {
    const detail = state.details.get(room.id);
    let pos = null;
    try { pos = detail?.position ? parsePosition(detail.position) : null; } catch { pos = null; }
    const plies = room.moves ?? detail?.moves?.length;
    const alliance = pos?.alliance;
    const meta = [
      typeof plies === 'number' ? t(plies === 1 ? 'lobby.ply' : 'lobby.plies', { n: plies }) : null,
      alliance ? t('lobby.alliance', { a: seatLabel(alliance[0]), b: seatLabel(alliance[1]) }) : (room.voluntary_alliance ? t('lobby.voluntaryAlliance') : null),
      pos?.toMove ? t('lobby.toMove', { seat: seatLabel(pos.toMove) }) : null,
      room.rated ? t('lobby.ratedTag') : null, clockText(room.clock), watchers(room),
    ].filter(Boolean);
    return h('li', { class: 'game-card', dataset: { room: room.id, status: 'playing' } },
      pos ? miniBoard(pos.board) : null,
      h('h3', {}, roomTitle(room)),
      seatChips(room, false),
      h('span', { class: 'meta', 'data-testid': `meta-${room.id}` }, meta.join(' · ')),
      h('a', { class: 'button', href: roomLink(room.id), 'data-testid': `watch-${room.id}` }, t('lobby.watchButton')));
  }

  function winnerText(room) {
    const winners = room.result?.winners;
    if (!Array.isArray(winners)) return null;
    if (!winners.length) return t('lobby.draw');
    const who = winners.map((p) => {
      const seat = seatOf(p);
      const name = playerName(room.seats?.[seat], seat);
      return name ? `${name} (${seatLabel(seat)})` : seatLabel(seat) ?? String(p);
    });
    return t(winners.length > 1 ? 'lobby.winners' : 'lobby.winner', { who: who.join(t('lobby.and')) });
  }

  function finishedItem(room) {
    const plies = room.moves;
    const meta = [
      dateText(room.updated_at_ms ?? room.created_at_ms),
      typeof plies === 'number' ? t(plies === 1 ? 'lobby.ply' : 'lobby.plies', { n: plies }) : null,
    ].filter(Boolean);
    return h('li', { dataset: { room: room.id, status: 'finished' } },
      h('a', { href: roomLink(room.id) }, roomTitle(room)),
      h('b', { 'data-testid': `winner-${room.id}` }, winnerText(room) ?? t('lobby.finished')),
      h('span', { class: 'meta' }, meta.join(' · ')));
  }

  function listSection(id, titleKey) {
    const body = h('div', { 'data-testid': `list-${id}` });
    return { body, el: h('section', { class: 'panel', 'aria-labelledby': `list-${id}` }, h('h2', { id: `list-${id}` }, t(titleKey)), body) };
  }

  // The page is built once per language; refreshes only replace the lists and the
  // status lines, so nothing being typed or chosen is disturbed.
  let view = null;
  function build() {
    document.title = t('lobby.pageTitle');
    let start = null;
    try { start = parsePosition(START_POSITION).board; } catch { start = null; }
    view = {
      busy: h('p', { class: 'busy', role: 'status' }),
      error: h('p', { class: 'error', role: 'alert', 'data-testid': 'error' }),
      waiting: listSection('waiting', 'lobby.openGames'),
      playing: listSection('playing', 'lobby.watchTitle'),
      finished: listSection('finished', 'lobby.finishedTitle'),
    };
    app.replaceChildren(h('div', { class: 'lobby' },
      h('section', { class: 'panel hero' },
        h('div', {},
          h('h1', {}, t('lobby.title')),
          h('p', { 'data-testid': 'what' }, t('lobby.what')),
          h('p', {}, h('a', { href: '/rules', 'data-testid': 'rules-link' }, t('lobby.rulesLink')),
            ' · ', h('a', { href: '/analysis' }, t('lobby.analysisLink'))),
          nameRow(), view.busy, view.error),
        start ? miniBoard(start, { cls: 'hero-board' }) : null),
      h('div', { class: 'paths' }, computerPath(), friendsPath()),
      view.waiting.el, view.playing.el, view.finished.el,
      h('button', { type: 'button', onclick: refresh, 'data-testid': 'refresh' }, t('lobby.refresh'))));
    render();
  }

  function render() {
    if (!view) return;
    view.busy.textContent = state.busy;
    view.busy.hidden = !state.busy;
    view.error.textContent = state.error;
    for (const b of app.querySelectorAll('[data-testid="play-computer"], [data-testid="create-room"]')) b.disabled = Boolean(state.busy);
    const byStatus = { waiting: [], playing: [], finished: [] };
    for (const room of state.rooms) {
      // A waiting room nobody sits in is of no use to anyone reading the lobby.
      if (room.status === 'waiting' && !SEATS.some((seat) => room.seats?.[seat])) continue;
      (byStatus[room.status] ?? byStatus.waiting).push(room);
    }
    const recent = (r) => r.updated_at_ms ?? r.created_at_ms ?? 0;
    const fin = state.fin;
    let shown;
    let pager = null;
    const pagerNav = (prevOff, label, nextOff, goPrev, goNext) => h('nav', { class: 'pager', 'aria-label': t('lobby.pages') },
      h('button', { type: 'button', 'data-testid': 'finished-prev', disabled: prevOff, onclick: goPrev }, t('lobby.newer')),
      h('span', { 'data-testid': 'finished-page' }, label),
      h('button', { type: 'button', 'data-testid': 'finished-next', disabled: nextOff, onclick: goNext }, t('lobby.older')));
    if (fin.serverPaged) {
      shown = fin.rooms;
      if (state.finishedPage > 0 || fin.next) {
        pager = pagerNav(state.finishedPage === 0, t('lobby.pageN', { n: state.finishedPage + 1 }), !fin.next,
          () => turnFinishedPage(-1), () => turnFinishedPage(1));
      }
    } else {
      const all = [...fin.rooms].sort((a, b) => recent(b) - recent(a));
      const pages = Math.max(1, Math.ceil(all.length / FINISHED_PER_PAGE));
      state.finishedPage = Math.min(state.finishedPage, pages - 1);
      shown = all.slice(state.finishedPage * FINISHED_PER_PAGE, (state.finishedPage + 1) * FINISHED_PER_PAGE);
      if (pages > 1) {
        pager = pagerNav(state.finishedPage === 0, t('lobby.page', { n: state.finishedPage + 1, of: pages }), state.finishedPage >= pages - 1,
          () => { state.finishedPage -= 1; render(); }, () => { state.finishedPage += 1; render(); });
      }
    }
    const focusedId = document.activeElement?.dataset?.testid;
    const empty = (key) => h('p', { class: 'empty' }, t(state.loaded ? key : 'lobby.loading'));
    view.waiting.body.replaceChildren(byStatus.waiting.length
      ? h('ul', { class: 'rooms-grid', 'data-testid': 'rooms-waiting' }, byStatus.waiting.map(waitingCard)) : empty('lobby.noOpenGames'));
    view.playing.body.replaceChildren(byStatus.playing.length
      ? h('ul', { class: 'rooms-grid', 'data-testid': 'rooms-playing' }, byStatus.playing.map(playingCard)) : empty('lobby.noRunning'));
    view.finished.body.replaceChildren(shown.length
      ? h('ul', { class: 'finished-list', 'data-testid': 'rooms-finished' }, shown.map(finishedItem)) : empty('lobby.noFinished'));
    if (pager) view.finished.body.append(pager);
    if (focusedId && !app.contains(document.activeElement)) app.querySelector(`[data-testid="${CSS.escape(focusedId)}"]`)?.focus();
  }

  async function loadDetails(rooms) {
    const playing = rooms.filter((r) => r.status === 'playing').slice(0, 12);
    await Promise.all(playing.map(async (room) => {
      const known = state.details.get(room.id);
      if (known && typeof room.moves === 'number' && known.moves?.length === room.moves) return;
      try {
        state.details.set(room.id, await api(`/api/rooms/${encodeURIComponent(room.id)}`));
      } catch { /* the card shows without a board */ }
    }));
  }

  async function loadFinished() {
    const fin = state.fin;
    const res = await fetch(fin.serverPaged ? fin.urls[state.finishedPage] ?? fin.urls[0] : fin.urls[0]);
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
    const list = (await res.json()) ?? [];
    const link = /<([^>]+)>\s*;\s*rel="?next"?/.exec(res.headers.get('link') ?? '');
    fin.rooms = list.filter((r) => r.status === 'finished');
    fin.serverPaged = list.length <= FINISHED_PER_PAGE && fin.rooms.length === list.length;
    fin.next = link ? link[1] : null;
  }

  async function turnFinishedPage(delta) {
    const fin = state.fin;
    if (delta > 0 && fin.next) fin.urls[state.finishedPage + 1] = fin.next;
    state.finishedPage = Math.max(0, state.finishedPage + delta);
    try {
      await loadFinished();
    } catch (e) {
      state.error = t('lobby.couldNotLoad', { reason: e.message });
    }
    render();
  }

  async function refresh() {
    try {
      const [rooms] = await Promise.all([api('/api/rooms').then((r) => r ?? []), loadFinished()]);
      await loadDetails(rooms);
      state.rooms = rooms.filter((r) => r.status !== 'finished');
      state.loaded = true;
      if (state.error.startsWith(t('lobby.couldNotLoad', { reason: '' }))) state.error = '';
    } catch (e) {
      state.error = t('lobby.couldNotLoad', { reason: e.message });
    }
    render();
  }

  build();
  onAccountChange(build);
  onRatings(render);
  refresh();
  timer = setInterval(() => { if (!document.hidden) refresh(); }, 5000);
  addEventListener('pagehide', () => clearInterval(timer));
  onLangChange(build);
}
