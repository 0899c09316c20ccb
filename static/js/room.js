// A room: seats, readiness, pre-game alliances, the board and play, notices, result.
// Legal actions come only from the server's `legal` list; the client never computes them.
import { h } from './dom.js';
import { SEATS } from './geometry.js';
import { parsePosition, indexLegal, parseAction, HAND_ORDER } from './position.js';
import { Board, PIECE_NAMES, SEAT_NAMES, pieceSvg } from './board.js';
import { RoomConnection, api, savedToken, saveToken } from './protocol.js';
import { clockText, describeClock } from './clocks.js';
import { ChatPanel } from './chat.js';
import { applyBotEvent, botBadge, botControls } from './bots.js';
import { JOIN_INTENT_KEY, shortId, storedName, storeName } from './prefs.js';

const SVG = 'http://www.w3.org/2000/svg';

/** Rules events name players "First"; seat events and `to_move` use "first". */
function seatOf(player) {
  return typeof player === 'string' ? player.toLowerCase() : null;
}
function seatName(player) {
  return SEAT_NAMES[seatOf(player)] ?? String(player);
}
function names(players) {
  const list = (players ?? []).map(seatName);
  return list.length <= 2 ? list.join(' and ') : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;
}

// Outcome reasons and loss reasons of docs/protocol.md §3.3–§3.4.
const REASONS = {
  mated: 'mated',
  pleasure_garden: 'king reached the Pleasure Garden',
  alliance_defeated: 'the alliance was defeated',
  last_player: 'last player standing',
  draw_agreed: 'draw by agreement',
  resigned: 'resigned',
  timeout: 'lost on time',
  abandoned: 'abandoned the game',
  no_legal_action: 'no legal action',
};
function reasonText(reason) {
  return REASONS[reason] ?? String(reason ?? '').replaceAll('_', ' ');
}
const CAUSES = {
  voluntary: 'agreed before play',
  discovered: 'forced by a discovered attack',
  double: 'forced by a double attack',
};

const SOUND_KEY = 'sannin.sound';
const VIEW_KEY = 'sannin.view';

function miniPiece(piece) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '-9 -9.5 18 18');
  svg.setAttribute('class', 'mini');
  svg.setAttribute('aria-hidden', 'true');
  svg.append(pieceSvg(piece));
  return svg;
}

let audioCtx = null;
function chime() {
  try {
    audioCtx ??= new AudioContext();
    const osc = audioCtx.createOscillator();
    const gain = audioCtx.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.0001, audioCtx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.06, audioCtx.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, audioCtx.currentTime + 0.35);
    osc.connect(gain).connect(audioCtx.destination);
    osc.start();
    osc.stop(audioCtx.currentTime + 0.4);
  } catch { /* no audio: the title still changes */ }
}

export function showRoom(app, roomId) {
  const ui = new RoomView(app, roomId);
  ui.start();
  return ui;
}

class RoomView {
  constructor(app, roomId) {
    this.app = app;
    this.roomId = roomId;
    this.state = null; // last `state` message, with seat events folded in
    this.pos = null; // parsed position
    this.legal = indexLegal([]);
    this.selected = null; // { cell } | { hand: kind }
    this.checks = new Set(); // seats in check after the last action
    this.lastCells = new Set(); // cells of the last action
    this.illuminated = null; // cells taken by the last illumination
    this.movePlayers = []; // seat of each ply, learned from action events
    this.proposal = null; // { from, to } pre-game alliance proposal
    this.leaving = new Map(); // seat -> deadline (ms) of an abandonment countdown
    this.wasMyTurn = false;
    this.pendingAction = false;
    this.illumPreview = false;
    this.confirmResign = false;
    this.clocks = null; // `clocks` of the last state or action event
    this.clocksAt = 0; // performance.now() when they arrived
    this.title = `Sannin — room ${shortId(roomId)}`;
    this.view = null;
    this.build();
  }

  get you() { return this.state?.you ?? null; }
  get myTurn() {
    return Boolean(this.state && this.you && this.state.status === 'playing' && this.state.to_move === this.you);
  }

  async start() {
    document.title = this.title;
    try {
      await api(`/api/rooms/${encodeURIComponent(this.roomId)}`);
    } catch (e) {
      if (e.status === 404) {
        this.app.replaceChildren(h('section', { class: 'panel', 'data-testid': 'no-room' },
          h('h1', {}, 'No such room'),
          h('p', {}, `There is no room “${this.roomId}” on this server. It may have been mistyped.`),
          h('a', { class: 'button', href: '/' }, 'Back to the lobby')));
        this.connStatus.textContent = '';
        return;
      }
      // Anything else (server restarting…): the socket's reconnect loop takes over.
    }
    const intent = this.takeJoinIntent();
    this.conn = new RoomConnection(this.roomId, {
      onState: (s) => this.onState(s),
      onEvent: (e) => this.onEvent(e),
      onSeated: (m) => this.note(`You sit as ${SEAT_NAMES[m.seat] ?? m.seat}.`),
      onError: (m) => this.showError(m),
      onStatus: (s) => this.showStatus(s),
      onChat: (m) => this.chat.add(m),
      onChatHistory: (ms) => this.chat.setHistory(ms),
      spectatorName: () => storedName(),
    });
    this.conn.connect();
    if (intent && !savedToken(this.roomId)) this.conn.send({ type: 'join', seat: intent.seat ?? null, name: intent.name });
    setInterval(() => this.tickCountdowns(), 1000);
    setInterval(() => this.tickClocks(), 100);
  }

  takeJoinIntent() {
    try {
      const intent = JSON.parse(sessionStorage.getItem(JOIN_INTENT_KEY) ?? 'null');
      sessionStorage.removeItem(JOIN_INTENT_KEY);
      return intent?.room === this.roomId ? intent : null;
    } catch { return null; }
  }

  // ---- building the page ------------------------------------------------------------

  build() {
    const soundOn = localStorage.getItem(SOUND_KEY) !== 'off';
    this.soundBox = h('input', { type: 'checkbox', id: 'sound', checked: soundOn, 'data-testid': 'sound' });
    this.soundBox.addEventListener('change', () => localStorage.setItem(SOUND_KEY, this.soundBox.checked ? 'on' : 'off'));
    this.connStatus = h('span', { class: 'conn', 'data-testid': 'conn-status', role: 'status' }, 'Connecting…');
    document.getElementById('top-right')?.replaceChildren(
      this.connStatus, h('label', { class: 'sound' }, this.soundBox, ' sound'));

    this.offlineText = h('span');
    this.offlineBar = h('div', { class: 'offline', role: 'alert', 'data-testid': 'offline', hidden: true },
      this.offlineText,
      this.retryButton = h('button', {
        type: 'button', class: 'small', 'data-testid': 'retry',
        onclick: () => { this.replaced = false; this.conn?.connect(); },
      }, 'Retry now'));
    this.banner = h('div', { class: 'banners', 'data-testid': 'banners' });
    this.errorBox = h('div', { class: 'error', role: 'alert', 'data-testid': 'error' });
    this.turn = h('div', { class: 'turn', 'data-testid': 'turn', 'aria-live': 'polite' });
    this.viewPicker = h('div', { class: 'view-picker', role: 'group', 'aria-label': 'See the board from' });
    this.boardBox = h('div', { class: 'board-box' });
    this.board = new Board(this.boardBox, {
      onActivate: (cell) => this.activate(cell),
      onCancel: () => this.cancel(),
    });
    this.controls = h('div', { class: 'controls', 'data-testid': 'controls' });
    this.dropBar = h('div', { class: 'drop-bar', 'data-testid': 'my-hand', 'aria-label': 'Your hand' });
    this.seatsBox = h('div', { class: 'seat-list', 'data-testid': 'seats' });
    this.pregame = h('div', { class: 'pregame', 'data-testid': 'pregame' });
    this.movesList = h('ol', { class: 'moves', 'data-testid': 'moves' });
    this.log = h('ul', { class: 'log', 'data-testid': 'log', 'aria-live': 'polite' });
    this.recordLink = h('a', {
      class: 'button', 'data-testid': 'download-record', download: `sannin-${this.roomId}.txt`,
      href: `/api/rooms/${encodeURIComponent(this.roomId)}/record`,
    }, 'Download record');
    this.promoDialog = h('dialog', { class: 'promo', 'data-testid': 'promotion-dialog', 'aria-label': 'Promotion' });
    this.promoDialog.addEventListener('cancel', () => { this.cancel(); });
    this.chat = new ChatPanel((text) => this.conn?.send({ type: 'chat', text }));
    this.clockInfo = h('span', { class: 'clock-info', 'data-testid': 'clock-info' });

    this.app.replaceChildren(h('div', { class: 'room' },
      h('div', { class: 'room-head' },
        h('h1', { title: this.roomId }, `Room ${shortId(this.roomId)}`), this.clockInfo,
        h('button', {
          type: 'button', class: 'small', 'data-testid': 'copy-link',
          onclick: () => navigator.clipboard?.writeText(location.href).then(() => this.note('Link copied.'), () => {}),
        }, 'Copy link')),
      this.offlineBar, this.banner, this.errorBox,
      h('div', { class: 'layout' },
        h('section', { class: 'play' }, this.pregame, this.turn, this.boardBox, this.dropBar, this.controls, this.viewPicker),
        h('aside', { class: 'side' },
          this.seatsBox,
          this.chat.node,
          h('section', { class: 'panel' }, h('h2', {}, 'Moves'), this.movesList, this.recordLink),
          h('section', { class: 'panel' }, h('h2', {}, 'Notices'), this.log))),
      this.promoDialog));
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !this.promoDialog.open) this.cancel();
    });
  }

  // ---- incoming ---------------------------------------------------------------------

  onState(s) {
    const prevMoves = this.state?.moves?.length ?? 0;
    this.state = { ...s };
    try {
      this.pos = parsePosition(s.position);
    } catch (e) {
      this.pos = null;
      this.showError({ message: `Unreadable position from the server: ${e.message}` });
    }
    this.legal = indexLegal(this.myTurn ? s.legal : []);
    this.pendingAction = false;
    if (!this.myTurn) { this.selected = null; this.illumPreview = false; }
    else if (this.selected && !this.selectionStillValid()) this.selected = null;
    if ((s.moves?.length ?? 0) < prevMoves) this.movePlayers = [];
    if (Array.isArray(s.move_players)) this.movePlayers = s.move_players.map(seatOf);
    if (Array.isArray(s.in_check)) this.checks = new Set(s.in_check.map(seatOf));
    this.setClocks(s.clocks ?? null);
    // Abandonment countdowns from the server's deadlines (they survive a reload);
    // `now_ms` corrects for this computer's clock being off.
    const skew = typeof s.now_ms === 'number' ? s.now_ms - Date.now() : 0;
    for (const seat of SEATS) {
      const at = s.seats?.[seat]?.abandon_at_ms;
      if (typeof at === 'number') this.leaving.set(seat, at - skew);
      else if (s.seats?.[seat]?.connected !== false) this.leaving.delete(seat);
    }
    this.chat.setRole(this.you ? 'player' : 'spectator');
    this.clockInfo.textContent = s.clocks ? `Clock: ${describeClock(s.clocks)}` : '';
    if (s.private) this.clockInfo.textContent += `${s.clocks ? ' · ' : ''}private room`;
    if (!this.legal.illuminate) this.illumPreview = false;
    const proposal = s.alliance?.proposal;
    if (s.alliance && typeof s.alliance === 'object') this.proposal = proposal ? { from: proposal.from, to: proposal.to } : null;
    if (s.status !== 'waiting') this.proposal = null;
    this.updateLastCells();
    if (!this.view || (this.you && this.view !== this.you && !this.viewChosen)) {
      this.view = this.you ?? localStorage.getItem(VIEW_KEY) ?? 'middle';
      if (!SEATS.includes(this.view)) this.view = 'middle';
    }
    this.board.setView(this.view);
    this.notifyTurn();
    this.render();
  }

  setClocks(clocks) {
    this.clocks = clocks;
    this.clocksAt = performance.now();
  }

  onEvent(ev) {
    const s = this.state;
    if (ev.clocks) this.setClocks(ev.clocks);
    switch (ev.type) {
      case 'action': {
        this.checks.clear();
        this.illuminated = null;
        const ply = s?.moves?.length ?? 0;
        this.movePlayers[ply] = seatOf(ev.player);
        break;
      }
      case 'check':
        this.checks.add(seatOf(ev.player));
        this.note(`${seatName(ev.player)} is in check${ev.by?.length ? ` from ${names(ev.by)}` : ''}.`, 'check');
        break;
      case 'mated':
        this.note(`${seatName(ev.player)} is mated${ev.by ? ` by ${seatName(ev.by)}` : ''}.`, 'mate', true);
        break;
      case 'eliminated':
        this.note(`${seatName(ev.player)} is eliminated (${reasonText(ev.reason)}).`, 'mate', true);
        break;
      case 'alliance_formed':
        this.note(`Alliance: ${names(ev.allies)} are now allied — ${CAUSES[ev.cause] ?? ev.cause}.`, 'alliance', true);
        break;
      case 'illuminated':
        this.illuminated = new Set(ev.cells ?? []);
        this.note(`Illumination takes the pieces on ${(ev.cells ?? []).join(', ')}.`);
        break;
      case 'captured':
        this.note(`${seatName(ev.by)} takes ${seatName(ev.owner)}'s ${ev.promoted ? 'promoted ' : ''}${PIECE_NAMES[String(ev.piece).replace('+', '')] ?? ev.piece} on ${ev.cell}.`);
        break;
      case 'resigned':
        this.checks.clear();
        this.note(`${seatName(ev.player)} resigns.`);
        break;
      case 'forfeited':
        this.checks.clear();
        this.note(`${seatName(ev.player)} forfeits (${reasonText(ev.reason)}).`);
        break;
      case 'draw_agreed':
        this.note('Every remaining player agreed to a draw.');
        break;
      case 'alliance_cancelled':
        this.note('The agreed alliance is cancelled: the seats changed.', 'alliance', true);
        break;
      case 'alliance_dissolved':
        this.note(`The alliance of ${names(ev.allies)} is over: they play on against each other.`, 'alliance', true);
        break;
      case 'promoted':
        this.note(`${seatName(ev.player)}'s ${PIECE_NAMES[String(ev.piece).replace('+', '')] ?? ev.piece} promotes on ${ev.cell}.`);
        break;
      case 'game_over':
        this.note(`Game over: ${names(ev.winners)} ${ev.winners?.length > 1 ? 'win' : 'wins'} (${reasonText(ev.reason)}).`, 'result');
        break;
      case 'player_joined':
        if (s) s.seats = { ...s.seats, [ev.seat]: { name: ev.name, connected: true, ready: false } };
        this.note(`${ev.name} sits as ${SEAT_NAMES[ev.seat] ?? ev.seat}.`);
        break;
      case 'player_left':
        if (s?.seats?.[ev.seat]) s.seats[ev.seat] = { ...s.seats[ev.seat], connected: false };
        if (ev.grace_seconds != null) this.leaving.set(ev.seat, Date.now() + ev.grace_seconds * 1000);
        this.note(`${SEAT_NAMES[ev.seat] ?? ev.seat} lost connection.`);
        break;
      case 'player_reconnected':
        if (s?.seats?.[ev.seat]) s.seats[ev.seat] = { ...s.seats[ev.seat], connected: true };
        this.leaving.delete(ev.seat);
        this.note(`${SEAT_NAMES[ev.seat] ?? ev.seat} is back.`);
        break;
      case 'player_ready':
        if (s?.seats?.[ev.seat]) s.seats[ev.seat] = { ...s.seats[ev.seat], ready: Boolean(ev.ready) };
        break;
      case 'game_started':
        if (s) s.status = 'playing';
        this.proposal = null;
        this.note('The game has started.', 'start', true);
        break;
      case 'alliance_proposed':
        this.proposal = { from: ev.from, to: ev.to };
        this.note(`${SEAT_NAMES[ev.from]} proposes an alliance to ${SEAT_NAMES[ev.to]}.`);
        break;
      case 'alliance_declined':
        this.proposal = null;
        this.note(`${SEAT_NAMES[ev.by] ?? ev.by} declined the alliance.`);
        break;
      case 'alliance_agreed': {
        this.proposal = null;
        this.viewChosen = false;
        // Seats may have been swapped (`moved`): name the people by their new seats.
        const before = s?.seats ?? {};
        const after = { ...before };
        for (const { from, to } of ev.moved ?? []) after[to] = before[from];
        const who = (seat) => `${after[seat]?.name ?? '?'} (${SEAT_NAMES[seat] ?? seat})`;
        this.showBanner(`Alliance agreed: ${(ev.allies ?? []).map(who).join(' and ')} play together; ${after[ev.first]?.name ?? '?'} plays First, with a promoted king.`, 'alliance');
        break;
      }
      case 'seat_freed':
        if (s?.seats) s.seats = { ...s.seats, [ev.seat]: null };
        this.leaving.delete(ev.seat);
        this.note(`${SEAT_NAMES[ev.seat] ?? ev.seat}'s seat is free again.`);
        break;
      case 'draw_offered':
        if (s) s.draw_offers = [...new Set([...(s.draw_offers ?? []), ev.seat])];
        this.note(`${SEAT_NAMES[ev.seat] ?? ev.seat} offers a draw.`);
        break;
      case 'draw_declined':
        if (s) s.draw_offers = [];
        this.note(`${SEAT_NAMES[ev.seat] ?? ev.seat} declines the draw.`);
        break;
      case 'draw_withdrawn':
        if (s) s.draw_offers = (s.draw_offers ?? []).filter((x) => x !== ev.seat);
        this.note(`${SEAT_NAMES[ev.seat] ?? ev.seat} withdraws the draw offer.`);
        break;
      case 'draw_expired':
        if (s) s.draw_offers = [];
        this.note('The draw offer lapsed: a move was played.');
        break;
      case 'rematch_requested':
        if (s) s.rematch = { ...(s.rematch ?? {}), requested: [...new Set([...(s.rematch?.requested ?? []), ev.seat])] };
        this.note(`${SEAT_NAMES[ev.seat] ?? ev.seat} asks for a rematch.`);
        break;
      case 'rematch_cancelled':
        if (s) s.rematch = { ...(s.rematch ?? {}), requested: ev.seat ? (s.rematch?.requested ?? []).filter((x) => x !== ev.seat) : [] };
        break;
      case 'rematch_started':
        if (s) s.rematch = { ...(s.rematch ?? {}), room: ev.room };
        this.note('Rematch: a new room is ready.', 'start');
        // Players follow at once, to their new seat (same token); spectators get a link.
        if (this.you) this.followRematch(ev.room);
        break;
      default: {
        // bot_added, bot_removed, bot_took_over, bot_released (bots.js).
        const text = applyBotEvent(s, ev);
        if (text) {
          this.leaving.delete(ev.seat);
          this.note(text, '', ev.type === 'bot_took_over');
        }
        break;
      }
    }
    this.render();
  }

  showStatus({ phase, attempt, delayMs }) {
    const text = {
      connecting: 'Connecting…',
      open: 'Connected',
      closed: 'Disconnected',
      reconnecting: attempt ? `Reconnecting… (try ${attempt}, in ${Math.ceil(delayMs / 1000)} s)` : 'Reconnecting…',
    }[phase];
    this.connStatus.textContent = text;
    this.connStatus.dataset.phase = phase;
    this.offlineBar.hidden = phase !== 'reconnecting' && phase !== 'closed';
    if (phase === 'closed') {
      this.offlineText.textContent = this.replaced
        ? 'This seat is now open in another window or tab, so this page stopped following the game.'
        : 'Disconnected.';
      this.retryButton.textContent = this.replaced ? 'Play here instead' : 'Reconnect';
    } else {
      this.retryButton.textContent = 'Retry now';
    }
    if (phase === 'reconnecting') {
      this.offlineText.textContent = `Connection lost — ${attempt ? `reconnecting in ${Math.ceil(delayMs / 1000)} s (try ${attempt})` : 'reconnecting…'}.${this.you ? ' Your seat waits for you.' : ''}`;
    }
    if (phase === 'reconnecting') this.pendingAction = false;
  }

  showError(msg) {
    if (msg.code === 'replaced') this.replaced = true;
    const words = msg.message || msg.code || 'Something went wrong.';
    this.errorBox.textContent = words;
    this.errorBox.dataset.code = msg.code ?? '';
    this.pendingAction = false;
    clearTimeout(this.errorTimer);
    this.errorTimer = setTimeout(() => { this.errorBox.textContent = ''; }, 10000);
    this.render();
  }

  note(text, kind = '', banner = false) {
    const li = h('li', { class: kind }, text);
    this.log.prepend(li);
    while (this.log.children.length > 60) this.log.lastChild.remove();
    if (banner) this.showBanner(text, kind);
  }

  showBanner(text, kind) {
    const close = h('button', { type: 'button', class: 'close', 'aria-label': 'Dismiss' }, '×');
    const b = h('div', { class: `banner ${kind}`, role: 'status', 'data-testid': `banner-${kind || 'note'}` }, h('span', {}, text), close);
    close.addEventListener('click', () => b.remove());
    // Passing news fades; alliances, mates and results stay until dismissed.
    if (kind === 'start' || kind === '') setTimeout(() => b.remove(), 6000);
    this.banner.append(b);
    while (this.banner.children.length > 3) this.banner.firstChild.remove();
  }

  notifyTurn() {
    const mine = this.myTurn;
    if (mine && !this.wasMyTurn) {
      document.title = `● Your move — ${this.title}`;
      if (this.soundBox.checked) chime();
    } else if (!mine) {
      document.title = this.title;
    }
    this.wasMyTurn = mine;
  }

  updateLastCells() {
    this.lastCells = new Set();
    const last = this.state?.moves?.at(-1);
    const a = last ? parseAction(last) : null;
    if (!a) return;
    if (a.type === 'move') { this.lastCells.add(a.from); this.lastCells.add(a.to); }
    else if (a.type === 'drop') this.lastCells.add(a.to);
    else if (a.from) this.lastCells.add(a.from);
  }

  tickCountdowns() {
    if (!this.leaving.size) return;
    for (const [seat, deadline] of this.leaving) if (deadline < Date.now() - 5000) this.leaving.delete(seat);
    this.renderSeats();
  }

  // ---- playing ----------------------------------------------------------------------

  selectionStillValid() {
    if (this.selected?.cell) return this.legal.moves.has(this.selected.cell);
    if (this.selected?.hand) return this.legal.drops.has(this.selected.hand);
    return false;
  }

  targets() {
    const out = new Map();
    if (this.selected?.cell) {
      for (const [to, actions] of this.legal.moves.get(this.selected.cell) ?? []) {
        out.set(to, actions[0].capture ? 'capture' : 'move');
      }
    } else if (this.selected?.hand) {
      for (const to of this.legal.drops.get(this.selected.hand)?.keys() ?? []) out.set(to, 'move');
    }
    return out;
  }

  activate(cell) {
    if (this.promoDialog.open) return;
    this.illumPreview = false;
    if (!this.myTurn || this.pendingAction) {
      const piece = this.pos?.board.get(cell);
      if (piece && this.state?.status === 'playing' && piece.owner === this.you) this.flash('It is not your turn.');
      this.selected = null;
      this.render();
      return;
    }
    if (this.selected?.hand) {
      const drop = this.legal.drops.get(this.selected.hand)?.get(cell);
      if (drop) { this.play(drop.text); return; }
    } else if (this.selected?.cell) {
      const actions = this.legal.moves.get(this.selected.cell)?.get(cell);
      if (actions) { this.chooseAndPlay(actions); return; }
    }
    if (this.selected?.cell === cell) {
      this.selected = null;
    } else if (this.legal.moves.has(cell)) {
      this.selected = { cell };
    } else {
      const piece = this.pos?.board.get(cell);
      if (piece && piece.owner === this.you) this.flash('That piece has no legal move.');
      this.selected = null;
    }
    this.render();
  }

  selectHand(kind) {
    if (!this.myTurn || !this.legal.drops.has(kind)) return;
    this.selected = this.selected?.hand === kind ? null : { hand: kind };
    this.illumPreview = false;
    this.render();
  }

  chooseAndPlay(actions) {
    if (actions.length === 1) { this.play(actions[0].text); return; }
    // Both promoting and not promoting are legal: ask.
    const promote = actions.find((a) => a.promote);
    const stay = actions.find((a) => !a.promote);
    const close = () => this.promoDialog.close();
    const name = PIECE_NAMES[actions[0].kind];
    this.promoDialog.replaceChildren(
      h('p', {}, `Promote the ${name}?`),
      h('div', { class: 'promo-buttons' },
        h('button', { type: 'button', class: 'primary', 'data-testid': 'promote-yes', onclick: () => { close(); this.play(promote.text); } },
          h('span', {}, 'Promote'), h('small', {}, promote.text)),
        h('button', { type: 'button', 'data-testid': 'promote-no', onclick: () => { close(); this.play(stay.text); } },
          h('span', {}, "Don't promote"), h('small', {}, stay.text))),
      h('button', { type: 'button', class: 'small', 'data-testid': 'promote-cancel', onclick: () => { close(); this.cancel(); } }, 'Cancel'));
    this.promoDialog.showModal();
    this.promoDialog.querySelector('[data-testid="promote-yes"]').focus();
  }

  play(action) {
    this.conn.send({ type: 'act', action });
    this.pendingAction = true;
    this.selected = null;
    this.illumPreview = false;
    this.render();
    this.board.focus();
  }

  cancel() {
    if (this.promoDialog.open) this.promoDialog.close();
    this.selected = null;
    this.illumPreview = false;
    this.confirmResign = false;
    this.render();
  }

  flash(text) {
    this.showError({ message: text, code: 'client' });
  }

  // ---- drawing ----------------------------------------------------------------------

  kingCellsInCheck() {
    const cells = new Set();
    if (!this.pos || !this.checks.size) return cells;
    for (const [cell, p] of this.pos.board) if (p.kind === 'K' && this.checks.has(p.owner)) cells.add(cell);
    return cells;
  }

  render() {
    const s = this.state;
    if (!s) return;
    // Parts of the page are rebuilt: keep keyboard focus on the control it was on.
    const focusedId = this.focusNext ?? document.activeElement?.closest?.('[data-testid]:not(svg)')?.dataset.testid;
    this.focusNext = null;
    if (this.pos) {
      const lit = this.illumPreview ? new Set(s.illumination ?? []) : null;
      this.board.render({
        board: this.pos.board,
        selected: this.selected?.cell ?? null,
        sources: new Set(this.myTurn ? this.legal.moves.keys() : []),
        targets: this.targets(),
        last: new Set([...this.lastCells, ...(this.illuminated ?? [])]),
        checks: this.kingCellsInCheck(),
        illumination: lit,
      });
    }
    this.boardBox.classList.toggle('my-turn', this.myTurn);
    this.renderTurn();
    this.renderViewPicker();
    this.renderSeats();
    this.renderPregame();
    this.renderControls();
    this.renderDropBar();
    this.renderMoves();
    this.renderResult();
    if (focusedId && !document.activeElement?.closest?.(`[data-testid="${focusedId}"]`)) {
      this.app.querySelector(`[data-testid="${focusedId}"]`)?.focus();
    }
  }

  renderTurn() {
    const s = this.state;
    let text;
    if (s.status === 'waiting') text = 'Waiting for three ready players.';
    else if (s.status === 'finished') text = 'The game is over.';
    else if (this.myTurn) text = this.pendingAction ? 'Sending…' : 'Your move.';
    else if (s.to_move) text = `${SEAT_NAMES[s.to_move]} to move${s.seats?.[s.to_move]?.name ? ` (${s.seats[s.to_move].name})` : ''}.`;
    else text = '';
    this.turn.textContent = text;
    this.turn.className = `turn${this.myTurn ? ' mine' : ''}${s.to_move ? ` seat-${s.to_move}` : ''}`;
    this.turn.dataset.toMove = s.to_move ?? '';
  }

  renderViewPicker() {
    this.viewPicker.replaceChildren(h('span', {}, 'View from: '), ...SEATS.map((seat) => h('button', {
      type: 'button', class: `small seat-${seat}`, 'aria-pressed': String(this.view === seat),
      'data-testid': `view-${seat}`,
      onclick: () => {
        this.view = seat;
        this.viewChosen = true;
        if (!this.you) localStorage.setItem(VIEW_KEY, seat);
        this.board.setView(seat);
        this.render();
      },
    }, SEAT_NAMES[seat])));
  }

  renderSeats() {
    const s = this.state;
    if (!s) return;
    const active = this.pos?.active ?? new Set(SEATS);
    const alliance = this.pos?.alliance;
    const waiting = s.status === 'waiting';
    // Own seat last (nearest the board's bottom edge on narrow screens), others in turn order.
    const order = this.view ? [...SEATS.slice(SEATS.indexOf(this.view) + 1), ...SEATS.slice(0, SEATS.indexOf(this.view) + 1)] : SEATS;
    const cards = order.map((seat) => {
      const info = s.seats?.[seat] ?? null;
      const badges = [];
      if (s.to_move === seat) badges.push(h('span', { class: 'badge to-move' }, 'to move'));
      if (seat === this.you) badges.push(h('span', { class: 'badge you' }, 'you'));
      const bot = botBadge(seat, info);
      if (bot) badges.push(bot);
      if (waiting && info) badges.push(h('span', { class: `badge ${info.ready ? 'ready' : 'not-ready'}` }, info.ready ? 'ready' : 'not ready'));
      if (info && info.connected === false) {
        const deadline = this.leaving.get(seat);
        const left = deadline ? Math.max(0, Math.ceil((deadline - Date.now()) / 1000)) : null;
        badges.push(h('span', { class: 'badge away', 'data-testid': `countdown-${seat}` },
          left === null ? 'disconnected'
            : `disconnected — ${waiting ? 'seat freed' : 'game abandoned'} in ${left} s unless back`));
      }
      if (alliance?.includes(seat)) badges.push(h('span', { class: 'badge ally' }, `allied with ${SEAT_NAMES[alliance.find((x) => x !== seat)]}`));
      const out = s.status !== 'waiting' && !active.has(seat);
      if (out) badges.push(h('span', { class: 'badge out' }, 'eliminated'));
      const hand = this.renderHand(seat);
      let clock = null;
      if (this.clocks) {
        clock = h('span', { class: 'clock', 'data-clock': seat, 'data-testid': `clock-${seat}`, role: 'timer', 'aria-label': `${SEAT_NAMES[seat]}'s clock` });
        this.paintClock(clock, performance.now() - this.clocksAt);
      }
      const nameNode = info ? h('span', { class: 'name' }, info.name ?? '—') : h('span', { class: 'name free' }, 'free seat');
      return h('section', {
        class: `seat-card seat-${seat}${out ? ' eliminated' : ''}${s.to_move === seat ? ' moving' : ''}`,
        'data-testid': `seat-${seat}`, 'data-eliminated': String(out),
      }, h('div', { class: 'seat-head' }, h('span', { class: 'swatch' }), h('b', {}, SEAT_NAMES[seat]), nameNode, clock),
      h('div', { class: 'badges' }, badges), hand);
    });
    this.seatsBox.replaceChildren(...cards);
  }

  /** A player's pieces in hand; shown read-only in every seat card. */
  renderHand(seat) {
    const hand = this.pos?.hands?.[seat] ?? {};
    const items = HAND_ORDER.filter((k) => hand[k]).map((kind) => {
      const count = hand[kind];
      const label = `${PIECE_NAMES[kind]}${count > 1 ? ` ×${count}` : ''}`;
      return h('span', { class: 'hand-piece', 'data-kind': kind, 'data-count': count, title: label, 'aria-label': label },
        miniPiece({ owner: seat, kind, promoted: false }), count > 1 ? h('span', { class: 'count' }, `×${count}`) : null);
    });
    return h('div', { class: 'hand', 'data-testid': `hand-${seat}`, 'aria-label': `${SEAT_NAMES[seat]}'s hand` },
      items.length ? items : h('span', { class: 'empty' }, 'no pieces in hand'));
  }

  /** The player's own hand under the board, as buttons for drops. */
  renderDropBar() {
    const seat = this.you;
    const show = Boolean(seat && this.state.status === 'playing' && this.pos?.active?.has(seat));
    this.dropBar.hidden = !show;
    if (!show) return;
    const hand = this.pos.hands[seat] ?? {};
    const kinds = HAND_ORDER.filter((k) => hand[k]);
    const buttons = kinds.map((kind) => {
      const count = hand[kind];
      const can = this.myTurn && this.legal.drops.has(kind);
      return h('button', {
        type: 'button', class: 'hand-piece', 'data-testid': `drop-${kind}`, disabled: !can,
        'aria-pressed': String(this.selected?.hand === kind),
        'aria-label': `Drop ${PIECE_NAMES[kind]}${count > 1 ? ` (${count} in hand)` : ''}`,
        onclick: (e) => { this.selectHand(kind); if (e.detail === 0) this.board.focus(); },
      }, miniPiece({ owner: seat, kind, promoted: false }), count > 1 ? h('span', { class: 'count' }, `×${count}`) : null);
    });
    this.dropBar.replaceChildren(h('span', { class: 'hint' }, 'Your hand:'),
      ...(buttons.length ? buttons : [h('span', { class: 'empty' }, 'empty')]));
  }

  join(seat) {
    const input = this.app.querySelector('[data-testid="room-name"]');
    const name = (input?.value ?? storedName()).trim();
    if (!name) {
      this.flash('Enter your name first.');
      input?.focus();
      return;
    }
    storeName(name);
    this.conn.send({ type: 'join', seat, name });
  }

  renderPregame() {
    const s = this.state;
    const box = this.pregame;
    box.hidden = s.status !== 'waiting';
    if (box.hidden) return;
    if (!this.joinForm) {
      // Built once, so that typing a name is not disturbed by re-rendering.
      this.seatButtons = Object.fromEntries(SEATS.map((seat) => [seat, h('button', {
        type: 'button', class: `seat-button seat-${seat}`, 'data-testid': `sit-${seat}`, onclick: () => this.join(seat),
      }, h('span', { class: 'swatch' }), `Sit as ${SEAT_NAMES[seat]}`)]));
      this.joinForm = h('div', { class: 'join-form' },
        h('h2', {}, 'Take a seat'),
        h('input', { 'data-testid': 'room-name', placeholder: 'Your name', maxlength: 32, value: storedName(), 'aria-label': 'Your name' }),
        h('div', { class: 'seat-buttons' }, Object.values(this.seatButtons),
          h('button', { type: 'button', 'data-testid': 'sit-any', onclick: () => this.join(null) }, 'Any free seat')));
      this.pregameMore = h('div');
      box.replaceChildren(this.joinForm, this.pregameMore);
    }
    const free = SEATS.filter((seat) => !s.seats?.[seat]);
    this.joinForm.hidden = Boolean(this.you) || !free.length;
    for (const seat of SEATS) this.seatButtons[seat].hidden = !free.includes(seat);
    const parts = [];
    if (!this.you) {
      if (!free.length) parts.push(h('p', {}, 'All seats are taken — you are watching.'));
    } else {
      const me = s.seats?.[this.you];
      const ready = Boolean(me?.ready);
      parts.push(h('h2', {}, 'Before play'),
        h('button', {
          type: 'button', class: ready ? '' : 'primary', 'data-testid': 'ready',
          'aria-pressed': String(ready), onclick: () => this.conn.send({ type: ready ? 'unready' : 'ready' }),
        }, ready ? 'Not ready after all' : "I'm ready"),
        h('button', { type: 'button', class: 'small', 'data-testid': 'leave', onclick: () => this.conn.leave() }, 'Leave seat'));
      const bots = botControls(s, (msg) => this.conn.send(msg));
      if (bots) parts.push(bots);
      const p = this.proposal;
      if (p && p.to === this.you) {
        parts.push(h('p', { class: 'proposal' }, `${SEAT_NAMES[p.from]} (${s.seats?.[p.from]?.name ?? '?'}) proposes an alliance.`),
          h('button', { type: 'button', class: 'primary', 'data-testid': 'accept-alliance', onclick: () => this.conn.send({ type: 'accept_alliance' }) }, 'Accept alliance'),
          h('button', { type: 'button', 'data-testid': 'decline-alliance', onclick: () => this.conn.send({ type: 'decline_alliance' }) }, 'Decline'));
      } else if (p && p.from === this.you) {
        parts.push(h('p', { class: 'proposal' }, `Waiting for ${SEAT_NAMES[p.to]} to answer your alliance proposal.`));
      } else {
        // Bots make no alliances.
        const others = SEATS.filter((seat) => seat !== this.you && s.seats?.[seat] && s.seats[seat].bot == null);
        if (others.length) {
          parts.push(h('p', { class: 'hint' }, 'Propose an alliance (the third player becomes First, with a promoted king):'),
            ...others.map((seat) => h('button', {
              type: 'button', class: `small seat-${seat}`, 'data-testid': `propose-${seat}`,
              onclick: () => this.conn.send({ type: 'propose_alliance', seat }),
            }, `Ally with ${SEAT_NAMES[seat]} (${s.seats[seat].name})`)));
        }
      }
    }
    this.pregameMore.replaceChildren(...parts);
  }

  renderControls() {
    const s = this.state;
    const parts = [];
    if (this.myTurn) {
      if (this.selected?.hand) {
        parts.push(h('span', { class: 'hint' }, `Drop a ${PIECE_NAMES[this.selected.hand]}: choose a highlighted cell.`));
      } else if (this.selected?.cell) {
        parts.push(h('span', { class: 'hint' }, `Move from ${this.selected.cell}: choose a highlighted cell.`));
      }
      if (this.selected) parts.push(h('button', { type: 'button', class: 'small', 'data-testid': 'cancel', onclick: () => this.cancel() }, 'Cancel (Esc)'));
      if (this.legal.illuminate) {
        const cells = s.illumination ?? [];
        if (this.illumPreview) {
          parts.push(h('span', { class: 'hint lit' }, `Illuminate: takes the pieces on ${cells.join(', ') || '…'}.`),
            h('button', { type: 'button', class: 'primary', 'data-testid': 'illuminate-confirm', onclick: () => this.play(this.legal.illuminate) }, 'Illuminate'),
            h('button', { type: 'button', class: 'small', onclick: () => this.cancel() }, 'Cancel'));
        } else {
          const btn = h('button', {
            type: 'button', class: 'illuminate', 'data-testid': 'illuminate',
            onclick: () => { this.selected = null; this.illumPreview = true; this.focusNext = 'illuminate-confirm'; this.render(); },
          }, `Illuminate… (takes ${cells.length})`);
          parts.push(btn);
        }
      }
    }
    if (s.status === 'playing' && this.you && this.pos?.active?.has(this.you)) {
      const offers = s.draw_offers ?? [];
      const send = (type) => () => this.conn.send({ type });
      if (offers.length) parts.push(h('span', { class: 'hint', 'data-testid': 'draw-offers' }, `Draw offered by ${offers.map((x) => SEAT_NAMES[x] ?? x).join(', ')}.`));
      if (offers.includes(this.you)) {
        parts.push(h('button', { type: 'button', class: 'small', 'data-testid': 'withdraw-draw', onclick: send('withdraw_draw') }, 'Withdraw draw offer'));
      } else if (offers.length) {
        parts.push(h('button', { type: 'button', class: 'small', 'data-testid': 'accept-draw', onclick: send('accept_draw') }, 'Accept draw'),
          h('button', { type: 'button', class: 'small', 'data-testid': 'decline-draw', onclick: send('decline_draw') }, 'Decline draw'));
      } else {
        parts.push(h('button', { type: 'button', class: 'small', 'data-testid': 'offer-draw', onclick: send('offer_draw') }, 'Offer a draw'));
      }
      if (this.confirmResign) {
        parts.push(h('span', { class: 'hint' }, 'Resign this game?'),
          h('button', { type: 'button', class: 'danger', 'data-testid': 'resign-confirm', onclick: () => { this.confirmResign = false; this.conn.send({ type: 'resign' }); } }, 'Yes, resign'),
          h('button', { type: 'button', class: 'small', onclick: () => { this.confirmResign = false; this.render(); } }, 'No'));
      } else {
        parts.push(h('button', { type: 'button', class: 'small resign', 'data-testid': 'resign', onclick: () => { this.confirmResign = true; this.focusNext = 'resign-confirm'; this.render(); } }, 'Resign…'));
      }
    }
    this.controls.replaceChildren(...parts);
  }

  renderMoves() {
    const moves = this.state.moves ?? [];
    // Without eliminations play strictly cycles First → Middle → Last (RULES §2).
    const cyclic = (this.pos?.active?.size ?? 3) === 3;
    const items = moves.map((m, i) => {
      const seat = this.movePlayers[i] ?? (cyclic ? SEATS[i % 3] : null);
      return h('li', { class: seat ? `seat-${seat}` : '', value: i + 1, 'data-ply': i + 1 },
        seat ? h('span', { class: 'swatch', title: SEAT_NAMES[seat] }) : null, m);
    });
    const count = this.movesList.children.length;
    this.movesList.replaceChildren(...items);
    if (items.length > count) this.movesList.lastElementChild?.scrollIntoView({ block: 'nearest' });
  }

  renderResult() {
    const s = this.state;
    const outcome = s.outcome ?? s.result ?? null;
    let box = this.banner.querySelector('[data-testid="result"]');
    if (!outcome || s.status !== 'finished') { box?.remove(); return; }
    if (box) { this.renderRematch(); return; }
    const winners = outcome.winners ?? [];
    const ranking = outcome.ranking ?? [];
    box = h('div', { class: 'banner result', 'data-testid': 'result', role: 'status' },
      h('strong', {}, winners.length ? `${names(winners)} ${winners.length > 1 ? 'win' : 'wins'}` : 'Game over'),
      h('span', {}, ` — ${reasonText(outcome.reason)}.`),
      ranking.length ? h('ol', { class: 'ranking' }, ranking.map((p) => h('li', {}, `${seatName(p)}${s.seats?.[seatOf(p)]?.name ? ` (${s.seats[seatOf(p)].name})` : ''}`))) : null,
      this.rematchBox = h('span', { class: 'rematch', 'data-testid': 'rematch-box' }),
      h('a', { class: 'button', href: this.recordLink.href, download: this.recordLink.download }, 'Download record'));
    this.banner.prepend(box);
    this.renderRematch();
  }

  /** The result banner's rematch part: ask, wait for the others, or follow. */
  renderRematch() {
    const s = this.state;
    const r = s.rematch ?? {};
    const parts = [];
    if (r.room) {
      parts.push(h('a', {
        class: 'button', href: `/rooms/${encodeURIComponent(r.room)}`, 'data-testid': 'rematch-link',
        onclick: (e) => { if (this.you) { e.preventDefault(); this.followRematch(r.room); } },
      }, this.you ? 'Go to the rematch' : 'Watch the rematch'));
    } else if (this.you && SEATS.every((seat) => s.seats?.[seat])) {
      const asked = r.requested ?? [];
      if (asked.includes(this.you)) {
        const waiting = SEATS.filter((seat) => !asked.includes(seat)).map((seat) => SEAT_NAMES[seat]);
        parts.push(h('span', { class: 'hint', 'data-testid': 'rematch-waiting' }, `Rematch asked — waiting for ${waiting.join(' and ')}.`),
          h('button', { type: 'button', class: 'small', 'data-testid': 'rematch-cancel', onclick: () => this.conn.send({ type: 'cancel_rematch' }) }, 'Cancel'));
      } else {
        parts.push(h('button', { type: 'button', class: 'primary', 'data-testid': 'rematch', onclick: () => this.conn.send({ type: 'rematch' }) },
          asked.length ? `Rematch (${asked.length}/3 asked)` : 'Rematch'));
      }
    }
    this.rematchBox?.replaceChildren(...parts);
  }

  /** Our token holds our (rotated) seat in the rematch room too: carry it over and go. */
  followRematch(room) {
    const token = savedToken(this.roomId);
    if (token && !savedToken(room)) saveToken(room, token);
    location.assign(`/rooms/${encodeURIComponent(room)}`);
  }

  /** Counts the running clock down between server messages. */
  tickClocks() {
    if (!this.clocks) return;
    const elapsed = performance.now() - this.clocksAt;
    for (const node of this.seatsBox.querySelectorAll('[data-clock]')) this.paintClock(node, elapsed);
  }

  paintClock(node, elapsed) {
    const seat = node.dataset.clock;
    const shown = clockText(this.clocks, seat, this.state?.status === 'playing' ? elapsed : 0);
    if (!shown) return;
    const running = this.state?.status === 'playing' && this.clocks.running === seat;
    if (node.textContent !== shown.text) node.textContent = shown.text;
    node.classList.toggle('running', running);
    node.classList.toggle('low', shown.low && (running || shown.total === 0));
    node.dataset.running = String(running);
    node.dataset.ms = String(Math.round(shown.total));
  }
}
