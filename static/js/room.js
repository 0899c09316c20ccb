// A room: seats, readiness, pre-game alliances, the board and play, the move table and
// stepping through the game, notices, result. Legal actions come only from the
// server's `legal` list and past positions from its history: the client has no rules
// engine. The parts live in room/: model.js (what the page knows, pure), rounds.js,
// premove.js, record.js (pure), messages.js (words), seats.js, movetable.js,
// controls.js, pregame.js, notices.js (views), input.js (clicks and keys), sound.js.
// A table of quick pairing given up before its game got going sends its players back
// to the lobby (pairing.js keeps the ticket that waits again). A correspondence game
// (days for each move) says how long the player to move has, in days and hours, and
// counts nobody down for being away.
import { h, redraw } from './dom.js';
import { SEATS } from './geometry.js';
import { START_POSITION, indexLegal } from './position.js';
import { Board } from './board.js';
import { PieceDrag, clicksOn } from './drag.js';
import { RoomConnection, api, savedToken } from './protocol.js';
import { isBot, playerName } from './players.js';
import { describeClock, isCorrespondence } from './clocks.js';
import { canNotify, onNotifyChange, setKind, showTurn, turnOn, wants } from './notify.js';
import { refreshMyGames, takeClaim } from './mine.js';
import { ChatPanel } from './chat.js';
import { JOIN_INTENT_KEY, getPref, onPrefChange, setPref, shortId, storedName, storeName } from './prefs.js';
import { hasServerWords, serverError, t, onLangChange } from './i18n.js';
import { account, forgetRatings, onRatings, ratingOf } from './account.js';
import { followRatingChanges } from './room/ratings.js';
import {
  applyEvent, applyState, createModel, goTo, plyCount, runningElapsed, setHistory, shown, shownPly, step,
} from './room/model.js';
import { renderTurn } from './room/turn.js';
import { premoveCells } from './room/premove.js';
import { analysisHref, engineAllowed, recordWithHeaders, reviewHref } from './room/record.js';
import { noticeText, seatLabel } from './room/messages.js';
import { Notices } from './room/notices.js';
import { MoveTable } from './room/movetable.js';
import { Pregame } from './room/pregame.js';
import { placesFor, paintClock, renderSeat } from './room/seats.js';
import {
  followRematch, keepsWatching, renderControls, renderNav, renderResult, renderViewPicker,
} from './room/controls.js';
import * as input from './room/input.js';
import { TypedMove, announceMove } from './room/typed.js';
import { Sounds } from './room/sound.js';
import { givenUpEarlier, tableAborted } from './room/aborted.js';
import { giveTimeFor } from './room/givetime.js';
import { tookBack } from './room/takeback.js';

const VIEW_KEY = 'sannin.view';

/** `opts` (the TV page, tv.js): `watchOnly` (never take a seat), `docTitle()`,
 * `onState(state)`, `onGone()` (the room is no more; the view has stopped). */
export function showRoom(app, roomId, opts = {}) {
  const ui = new RoomView(app, roomId, opts);
  ui.start();
  return ui;
}

class RoomView {
  constructor(app, roomId, opts = {}) {
    this.app = app;
    this.roomId = roomId;
    this.opts = opts;
    this.model = createModel();
    this.legal = indexLegal([]);
    this.selected = null; // { cell } | { hand: kind }, on the reader's turn
    this.premoveSel = null; // the same while others move
    this.premove = null; // a queued move (premove.js)
    this.pendingAction = false;
    this.illumPreview = false;
    this.confirmResign = false;
    this.keepWatching = keepsWatching(roomId); // a player out said "Keep watching"
    this.confirming = null; // an action waiting for "Play it" (confirmMoves preference)
    this.wasMyTurn = false;
    this.heardState = false; // a state came since the page opened
    this.viewSeat = null;
    this.viewChosen = false;
    this.clocks = null; // `clocks` of the last state or action event
    this.clocksAt = 0; // performance.now() when they arrived
    this.skew = null; // the server's clock minus this computer's (the state's `now_ms`)
    this.historyLoading = false;
    this.historyTries = 0;
    this.sounds = new Sounds();
    this.timers = [];
    this.offs = []; // unsubscribes and listeners to drop on stop()
    this.build();
    // The notice line's words were those of the language before (the list keeps them).
    this.offs.push(onLangChange(() => { this.notices.dismiss(); this.relabel(); this.render(); }));
  }

  /** Leaves the room for good (the TV page moves on to another game). */
  stop() {
    this.aborted = true;
    this.conn?.close();
    for (const id of this.timers) clearInterval(id);
    for (const off of this.offs.splice(0)) off();
  }

  /** The tab's title: who plays and what is happening ("Ann vs Bob vs Cid · your
   * move"), "Sannin — room 5700af31" before anyone sits. */
  docTitle() {
    if (this.opts.docTitle) return this.opts.docTitle();
    const s = this.state;
    const seats = s?.seats ?? {};
    const names = SEATS.filter((seat) => seats[seat]).map((seat) => playerName(seats[seat], seat) ?? seatLabel(seat));
    if (!names.length) return t('room.doc_title', { id: shortId(this.roomId) });
    let what;
    if (s.status === 'waiting') what = t('room.doc.waiting');
    else if (s.status !== 'playing') what = t('room.doc.over');
    else if (this.myTurn) what = t('room.doc.your_move');
    else {
      const mover = seats[s.to_move];
      what = t('room.doc.to_move', { name: mover ? (playerName(mover, s.to_move) ?? seatLabel(s.to_move)) : seatLabel(s.to_move) });
    }
    return `${names.join(t('room.doc.vs'))} · ${what}`;
  }

  get state() { return this.model.state; }
  get you() { return this.state?.you ?? null; }
  get myTurn() {
    return Boolean(this.state && this.you && this.state.status === 'playing' && this.state.to_move === this.you);
  }

  /** What messages.js needs to name people for this reader. */
  ctx() {
    return { you: this.you, seats: this.state?.seats ?? {}, active: this.model.pos?.active };
  }

  send(msg) { this.conn?.send(msg); }

  async start() {
    this.title = this.docTitle();
    document.title = this.title;
    // Whether the room is there is asked beside the socket, not before it: one round
    // trip fewer before the board (a room that is gone closes the socket again).
    const gone = this.isGone();
    const intent = this.opts.watchOnly ? null : this.takeJoinIntent();
    // A game of the reader's account opened from My games on a device without its
    // token: the account takes its seat back (the server gives it a new token).
    const claim = this.opts.watchOnly ? null : takeClaim(this.roomId);
    this.conn = new RoomConnection(this.roomId, {
      onState: (s) => this.onState(s),
      onEvent: (e) => this.onEvent(e),
      onSeated: (m) => { this.seatedAs = m.seat; this.notices.add(t('room.note.seated', { seat: seatLabel(m.seat) })); },
      onError: (m) => this.showError(m),
      onStatus: (s) => this.showStatus(s),
      onChat: (m) => this.chat.add(m),
      onChatHistory: (ms) => this.chat.setHistory(ms),
      spectatorName: () => storedName(),
      isGone: () => this.isGone(),
      onGivenUp: () => this.tableAborted(null),
      watchOnly: this.opts.watchOnly,
    });
    this.conn.connect();
    if (intent && !savedToken(this.roomId)) this.conn.send({ type: 'join', seat: intent.seat ?? null, name: intent.name });
    else if (claim && !savedToken(this.roomId)) this.conn.send({ type: 'join', seat: claim, name: '' });
    if (await gone || this.aborted) { this.conn?.close(); return; } // gone, or left meanwhile (stop())
    this.offs.push(onRatings(() => this.renderSeats()));
    this.timers.push(setInterval(() => this.tickCountdowns(), 1000), setInterval(() => this.tickClocks(), 100));
  }

  /**
   * Whether the room is gone for good — no such room, or stored but unreadable by the
   * server — in which case the page says so in place of the board. Anything else
   * (a server restarting…) is not: the socket's reconnect loop takes over.
   */
  async isGone() {
    try {
      await api(`/api/rooms/${encodeURIComponent(this.roomId)}`);
      return false;
    } catch (e) {
      const kind = e.status === 404 ? 'missing' : e.code === 'room_broken' ? 'broken' : null;
      if (!kind) return false;
      this.conn?.close();
      if (this.opts.onGone) return this.tableAborted(null).then(() => true);
      if (kind === 'missing' && await this.givenUpEarlier()) return true;
      this.app.replaceChildren(h('section', { class: 'panel', 'data-testid': kind === 'missing' ? 'no-room' : 'broken-room' },
        h('h1', {}, t(`room.${kind}.title`)),
        h('p', {}, t(`room.${kind}.text`, { id: this.roomId })),
        h('a', { class: 'button', href: '/' }, t('room.missing.back'))));
      this.connStatus.textContent = '';
      this.offlineBar.hidden = true;
      return true;
    }
  }

  /** The room was given up (`table_aborted`, or only the socket's closing): room/aborted.js. */
  tableAborted(ev) { return tableAborted(this, ev); }

  givenUpEarlier() { return givenUpEarlier(this); }

  takeJoinIntent() {
    try {
      const intent = JSON.parse(sessionStorage.getItem(JOIN_INTENT_KEY) ?? 'null');
      sessionStorage.removeItem(JOIN_INTENT_KEY);
      return intent?.room === this.roomId ? intent : null;
    } catch { return null; }
  }

  // ---- building the page ------------------------------------------------------------

  build() {
    this.connStatus = h('span', { class: 'conn', 'data-testid': 'conn-status', role: 'status' });
    this.soundBox = h('input', { type: 'checkbox', 'data-testid': 'sound', checked: getPref('sound') !== false });
    this.soundBox.addEventListener('change', () => setPref('sound', this.soundBox.checked));
    this.offs.push(onPrefChange((key, value) => { if (key === 'sound') this.soundBox.checked = value !== false; }));
    this.soundLabel = h('span');
    // "Notify me": the bell's "your turn" (notify.js), the same setting.
    this.notifyBox = h('input', { type: 'checkbox', 'data-testid': 'notify', checked: wants('your_turn') });
    this.notifyBox.addEventListener('change', async () => {
      if (this.notifyBox.checked) {
        await setKind('your_turn', true);
        if (!wants('your_turn')) await turnOn();
      } else await setKind('your_turn', false);
      this.notifyBox.checked = wants('your_turn');
    });
    this.offs.push(onNotifyChange(() => { this.notifyBox.checked = wants('your_turn'); }));
    this.notifyLabel = h('span');
    this.roomTop = h('span', { class: 'room-top' }, this.connStatus,
      h('label', { class: 'toggle' }, this.soundBox, this.soundLabel),
      canNotify() ? h('label', { class: 'toggle' }, this.notifyBox, this.notifyLabel) : null);

    this.offlineText = h('span');
    this.offlineBar = h('div', { class: 'offline', role: 'alert', 'data-testid': 'offline', hidden: true },
      this.offlineText,
      this.retryButton = h('button', {
        type: 'button', class: 'small', 'data-testid': 'retry',
        onclick: () => { this.replaced = false; this.conn?.connect(); },
      }));
    this.notices = new Notices();
    this.turn = h('div', { class: 'turn', 'data-testid': 'turn', 'aria-live': 'polite' });
    this.boardBox = h('div', { class: 'board-box' });
    this.board = new Board(this.boardBox, {
      onActivate: (cell) => input.activate(this, cell),
      onCancel: () => this.cancel(),
    });
    this.drag = new PieceDrag(this.board, {
      grab: (source) => input.canLift(this, source),
      lift: (source) => input.lift(this, source),
      drop: (source, cell) => input.dropOn(this, source, cell),
      handPiece: (kind) => ({ owner: this.you ?? 'first', kind, promoted: false }),
    });
    this.looking = h('div', { class: 'looking-back', 'data-testid': 'looking-back', hidden: true });
    this.liveButton = h('button', { type: 'button', class: 'live-button', 'data-testid': 'back-to-live', hidden: true, onclick: () => this.goTo(Infinity) });
    this.panels = Object.fromEntries(SEATS.map((seat) => [seat, h('section', { class: 'seat-card' })]));
    this.slots = { left: h('div', { class: 'slot slot-left' }), right: h('div', { class: 'slot slot-right' }), bottom: h('div', { class: 'slot slot-bottom' }) };
    this.controls = h('div', { class: 'controls', 'data-testid': 'controls' });
    this.nav = h('div', { class: 'nav-bar', role: 'group', 'data-testid': 'nav' });
    this.viewPicker = h('div', { class: 'view-picker', role: 'group' });
    this.result = h('div', { class: 'result-card', 'data-testid': 'result', role: 'status', hidden: true });
    this.pregame = new Pregame(this);
    this.typed = new TypedMove(this);
    this.moveTable = new MoveTable((ply) => this.goTo(ply));
    this.movesTitle = h('h2');
    this.recordBox = h('div', { class: 'record-links' });
    this.analysisLink = h('a', { class: 'button small', 'data-testid': 'open-analysis', hidden: true });
    this.reviewLink = h('a', { class: 'button small', 'data-testid': 'request-review-room', hidden: true });
    // In place of the analysis link while people play: when it comes.
    this.analysisLater = h('span', { class: 'analysis-later', 'data-testid': 'analysis-later', hidden: true });
    this.promoDialog = h('dialog', { class: 'promo', 'data-testid': 'promotion-dialog' });
    this.promoDialog.addEventListener('cancel', () => this.cancel());
    this.chat = new ChatPanel((text) => this.send({ type: 'chat', text }), { roomId: this.roomId, seatInfo: (seat) => this.state?.seats?.[seat] });
    this.tabButtons = {
      // Phones: the move table behind a tab of its own (play.css).
      moves: h('button', { type: 'button', role: 'tab', class: 'small moves-tab', 'data-testid': 'tab-moves', onclick: () => this.showTab('moves') }),
      chat: h('button', { type: 'button', role: 'tab', class: 'small', 'data-testid': 'tab-chat', onclick: () => this.showTab('chat') }),
      log: h('button', { type: 'button', role: 'tab', class: 'small', 'data-testid': 'tab-log', onclick: () => this.showTab('log') }),
    };
    this.logPanel = h('section', { class: 'log-panel', 'data-testid': 'notices' }, this.notices.log);
    this.headTitle = h('h1', { title: this.roomId });
    this.clockInfo = h('span', { class: 'clock-info', 'data-testid': 'clock-info' });
    this.watching = h('span', { class: 'watching', 'data-testid': 'watching', hidden: true });
    this.ratedTag = h('span', { class: 'rated-tag', 'data-testid': 'rated', hidden: true });
    this.spectatorCount = h('span', { class: 'spectator-count', 'data-testid': 'spectators' });
    this.copyButton = h('button', { type: 'button', class: 'small', 'data-testid': 'copy-link', onclick: () => this.copyLink() });
    this.copyBox = h('span', { class: 'copy-box', hidden: true });

    this.app.replaceChildren(h('div', { class: 'room', 'data-testid': 'room' },
      h('div', { class: 'room-head' }, this.headTitle, this.ratedTag, this.watching, this.spectatorCount, this.clockInfo, this.copyButton, this.copyBox, this.roomTop),
      this.offlineBar,
      h('div', { class: 'room-grid' },
        h('div', { class: 'table', 'data-testid': 'seats' },
          h('div', { class: 'status-strip' }, this.turn, this.notices.line, this.notices.error),
          this.slots.left, this.slots.right,
          h('div', { class: 'board-wrap' }, h('div', { class: 'board-stage' }, this.boardBox, this.looking, this.liveButton), this.typed.node),
          this.slots.bottom,
          h('div', { class: 'side-controls' }, this.nav, this.controls, this.result, this.viewPicker)),
        h('div', { class: 'pregame-area' }, this.pregame.node),
        this.side = h('aside', { class: 'side' },
          h('section', { class: 'panel moves-panel' }, h('div', { class: 'panel-head' }, this.movesTitle, this.recordBox), this.moveTable.scroller),
          h('section', { class: 'panel talk' }, h('div', { class: 'tabs', role: 'tablist' }, this.tabButtons.moves, this.tabButtons.chat, this.tabButtons.log),
            this.chat.node, this.logPanel))),
      this.promoDialog));
    const onKey = (e) => input.onPageKey(this, e);
    document.addEventListener('keydown', onKey);
    this.offs.push(() => document.removeEventListener('keydown', onKey));
    this.showTab('chat');
    this.relabel();
  }

  /** The words that do not depend on the state (again after a language change). */
  relabel() {
    this.title = this.docTitle();
    document.title = this.title;
    this.soundLabel.textContent = t('room.sound');
    this.notifyLabel.textContent = t('room.notify');
    this.headTitle.textContent = this.roomName();
    this.copyButton.textContent = t('room.copy_link');
    this.movesTitle.textContent = t('room.moves.title');
    this.tabButtons.moves.textContent = t('room.tab.moves');
    this.tabButtons.chat.textContent = t('room.tab.chat');
    this.tabButtons.log.textContent = t('room.tab.log');
    this.liveButton.textContent = t('room.nav.live');
    this.board.svg?.setAttribute('aria-label', t('room.board.label', { seat: seatLabel(this.board.view) }));
    this.recordBox.replaceChildren(this.recordLink('download-record'), this.analysisLink, this.analysisLater, this.reviewLink);
    this.analysisLink.textContent = t('room.analysis.open');
    this.analysisLater.textContent = t('room.analysis.later');
    this.analysisLater.title = t('room.analysis.laterTitle');
    this.reviewLink.textContent = t('room.review.open');
    this.chat.relabel?.();
    this.typed.relabel();
    if (this.lastStatus) this.showStatus(this.lastStatus);
    else this.connStatus.textContent = t('room.conn.connecting');
  }

  showTab(tab) {
    this.tab = tab;
    for (const [name, b] of Object.entries(this.tabButtons)) {
      b.setAttribute('aria-selected', String(name === tab));
    }
    this.chat.node.hidden = tab !== 'chat';
    this.logPanel.hidden = tab !== 'log';
    this.side.dataset.tab = tab;
  }

  /** A link to the record: the server's record, downloaded with full headers. */
  recordLink(testid) {
    const href = `/api/rooms/${encodeURIComponent(this.roomId)}/record`;
    return h('a', {
      class: 'button small', 'data-testid': testid, download: `sannin-${this.roomId}.txt`, href,
      onclick: (e) => { e.preventDefault(); this.downloadRecord(href); },
    }, t('room.record.download'));
  }

  async downloadRecord(href) {
    let text;
    try {
      const res = await fetch(href);
      if (!res.ok) throw new Error(`${res.status}`);
      text = await res.text();
    } catch (e) {
      this.flash(t('room.record.failed', { why: e.message }));
      return;
    }
    const s = this.state ?? {};
    const start = s.start_position ?? this.model.history?.start ?? null;
    const file = recordWithHeaders(text, {
      site: location.origin + location.pathname,
      date: new Date(),
      seats: s.seats,
      clock: s.clocks ?? null,
      startPosition: start,
      standardStart: !start || start === START_POSITION,
    });
    const url = URL.createObjectURL(new Blob([file], { type: 'text/plain;charset=utf-8' }));
    const a = h('a', { href: url, download: `sannin-${this.roomId}.txt`, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  async copyLink() {
    const url = location.href;
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(url);
      this.notices.add(t('room.copied'));
      return;
    } catch { /* plain HTTP off localhost has no clipboard API: show the link to copy */ }
    const field = h('input', { type: 'text', readonly: true, value: url, 'data-testid': 'copy-field', 'aria-label': t('room.copy_field') });
    this.copyBox.replaceChildren(h('span', { class: 'hint' }, t('room.copy_hint')), field,
      h('button', { type: 'button', class: 'small', 'aria-label': t('room.dismiss'), onclick: () => { this.copyBox.hidden = true; } }, '×'));
    this.copyBox.hidden = false;
    field.focus();
    field.select();
  }

  // ---- incoming ---------------------------------------------------------------------

  /** A rated game just ended: its ratings move on the server in a moment. */
  refreshRatings(s) {
    const names = SEATS.map((seat) => s.seats?.[seat]?.name).filter(Boolean);
    setTimeout(() => { forgetRatings(names); this.renderSeats(); }, 1500);
  }

  onState(s) {
    if (this.aborted) return;
    const wasStatus = this.state?.status;
    applyState(this.model, s);
    if (s.rated && s.status === 'finished' && wasStatus && wasStatus !== 'finished') this.refreshRatings(s);
    if (s.rated && s.status === 'finished' && !this.stopRatingChanges) {
      // The result card shows how each player's rating moved.
      const accounts = Object.fromEntries(SEATS.map((seat) => [seat, s.seats?.[seat]?.account]).filter(([, a]) => a));
      this.stopRatingChanges = followRatingChanges(this.roomId, accounts, (changes) => {
        this.ratingChanges = changes;
        // The game is rated now: the cards ask for the ratings after it.
        forgetRatings(Object.values(accounts));
        this.render();
      });
      this.offs.push(this.stopRatingChanges);
    }
    if (this.model.posError) this.showError({ text: t('room.error.position', { why: this.model.posError }) });
    if (typeof s.now_ms === 'number') this.skew = s.now_ms - Date.now();
    this.legal = indexLegal(this.myTurn ? s.legal : []);
    this.pendingAction = false;
    if (!this.myTurn) { this.selected = null; this.illumPreview = false; this.confirming = null; }
    else if (this.selected && !input.selectionStillValid(this)) this.selected = null;
    if (!this.legal.illuminate) this.illumPreview = false;
    if (s.status !== 'playing' || !this.you) { this.premove = null; this.premoveSel = null; }
    this.setClocks(s.clocks ?? null);
    this.chat.setRole(this.you ? 'player' : 'spectator', this.you);
    if (!this.viewSeat || (this.you && this.viewSeat !== this.you && !this.viewChosen)) {
      this.viewSeat = this.you ?? localStorage.getItem(VIEW_KEY) ?? 'middle';
      if (!SEATS.includes(this.viewSeat)) this.viewSeat = 'middle';
    }
    this.board.setView(this.viewSeat);
    const turnCame = this.myTurn && !this.wasMyTurn;
    if (turnCame && this.premove) input.firePremove(this);
    // The header's My games badge counts the games where it is the reader's turn: asked
    // again when the turn comes or goes here, or the game ends.
    const turnKey = this.you ? `${this.myTurn}|${s.status}` : null;
    if (this.turnKey !== undefined && turnKey !== this.turnKey) {
      clearTimeout(this.myGamesTimer);
      this.myGamesTimer = setTimeout(refreshMyGames, 300);
    }
    this.turnKey = turnKey;
    this.notifyTurn(turnCame);
    if (this.model.historyStale) this.loadHistory();
    this.render();
    this.opts.onState?.(this.state);
  }

  setClocks(clocks) {
    this.clocks = clocks;
    this.clocksAt = performance.now();
  }

  onEvent(ev) {
    if (ev.type === 'table_aborted') {
      this.tableAborted(ev);
      return;
    }
    if (ev.clocks) this.setClocks(ev.clocks);
    const ctx = this.ctx(); // named as seated before the event
    const proposal = this.model.proposal;
    const seatsBefore = this.state?.seats ?? {};
    const { notices, sounds } = applyEvent(this.model, ev);
    this.botAnswer(ev, proposal, seatsBefore);
    if (ev.type === 'action') this.notices.moved();
    for (const n of notices) {
      // The reader's own going and coming back (a reload, the lobby handing the seat to
      // this page) is no news to the reader.
      if ((n.type === 'player_left' || n.type === 'player_reconnected') && n.seat === (this.you ?? this.seatedAs)) continue;
      this.notices.add(noticeText(n, n.type === 'bot_took_over' ? ctx : this.ctx()), n.kind, n.banner);
    }
    this.sounds.play(sounds);
    // Every player's move, in words, for screen readers who asked for it.
    if (ev.type === 'action') announceMove(ev.player, ev.action, () => this.model.checks.size > 0);
    if (ev.type === 'alliance_agreed') this.viewChosen = false;
    if (ev.type === 'took_back') tookBack(this);
    if (ev.type === 'rematch_started' && this.you) followRematch(this.roomId, ev.room);
    this.render();
  }

  /** A computer player's answer to an alliance, said in the players' chat in one line
   * (the page's own line, in the reader's language: the notes keep the event). */
  botAnswer(ev, proposal, seats) {
    let seat = null;
    let key = null;
    if (ev.type === 'alliance_declined' && ev.by && isBot(seats[ev.by])) {
      [seat, key] = [ev.by, 'room.bot.alliance_no'];
    } else if (ev.type === 'alliance_agreed' && proposal && isBot(seats[proposal.to])) {
      const house = isBot(seats[proposal.from]);
      const speaker = house ? proposal.from : proposal.to;
      seat = (ev.moved ?? []).find((m) => m.from === speaker)?.to ?? speaker;
      key = house ? 'room.bot.alliance_team' : 'room.bot.alliance_yes';
      seats = { ...seats, [seat]: seats[speaker] };
    }
    if (!key || !seats[seat]) return;
    this.chat.add({ channel: 'players', seat, name: playerName(seats[seat], seat), text: t(key), at_ms: Date.now() });
  }

  async loadHistory() {
    if (this.historyLoading || this.historyTries > 5) return;
    this.historyLoading = true;
    this.historyTries += 1;
    try {
      const history = await api(`/api/rooms/${encodeURIComponent(this.roomId)}/history`);
      if (setHistory(this.model, history)) this.historyTries = 0;
    } catch { /* kept stale: tried again below or with the next state */ }
    this.historyLoading = false;
    // Still stale (the server was not reached): again after a while, even if no state
    // comes any more (a finished game).
    if (this.model.historyStale && this.historyTries <= 5) {
      setTimeout(() => { if (this.model.historyStale) this.loadHistory(); }, 1000 * this.historyTries);
    }
    this.render();
  }

  showStatus(st) {
    this.lastStatus = st;
    if (this.aborted) return;
    const { phase, attempt, delayMs } = st;
    const text = {
      connecting: t('room.conn.connecting'),
      open: t('room.conn.open'),
      closed: t('room.conn.closed'),
      reconnecting: attempt ? t('room.conn.retry_in', { n: attempt, s: Math.ceil(delayMs / 1000) }) : t('room.conn.reconnecting'),
    }[phase];
    this.connStatus.textContent = text;
    this.connStatus.dataset.phase = phase;
    this.offlineBar.hidden = phase !== 'reconnecting' && phase !== 'closed';
    if (phase === 'closed') {
      this.offlineText.textContent = this.replaced ? t('room.offline.replaced') : t('room.offline.closed');
      this.retryButton.textContent = this.replaced ? t('room.offline.play_here') : t('room.offline.reconnect');
    } else {
      this.retryButton.textContent = t('room.offline.retry');
    }
    if (phase === 'reconnecting') {
      const why = hasServerWords(st.reason, 'close') ? `${serverError(st.reason, 'close')} ` : '';
      this.offlineText.textContent = `${why}${attempt ? t('room.offline.lost_in', { s: Math.ceil(delayMs / 1000), n: attempt }) : t('room.offline.lost')}${this.you ? ` ${t('room.offline.seat_waits')}` : ''}`;
      this.pendingAction = false;
    }
  }

  showError(msg) {
    if (msg.code === 'replaced') this.replaced = true;
    // A server's refusal in the words of its code (the server's `message` is English);
    // the page's own notices (`text`) as they are.
    const text = msg.text ?? serverError(msg.code, 'ws');
    this.notices.showError(text, msg.code ?? '');
    this.pendingAction = false;
    this.render();
  }

  flash(text) {
    this.notices.showError(text, 'client');
  }

  /** The turn coming to the reader: a sound, the tab's title, a notification if hidden. */
  notifyTurn(turnCame) {
    this.title = this.docTitle();
    document.title = this.title;
    if (turnCame) {
      // Not for the page's first state: the reader has just opened it (and a browser
      // plays nothing before the reader's first click anyway).
      if (this.heardState) this.sounds.play([this.model.checks.has(this.you) ? 'check' : 'turn']);
      showTurn({
        title: t('room.notify.title'), body: t('room.notify.body', { room: shortId(this.roomId) }),
        url: location.pathname, tag: this.roomId,
      });
    }
    this.wasMyTurn = this.myTurn;
    this.heardState = true;
  }

  tickCountdowns() {
    if (!this.model.leaving.size) return;
    for (const [seat, deadline] of this.model.leaving) if (deadline < Date.now() - 5000) this.model.leaving.delete(seat);
    this.renderSeats();
  }

  /** Counts the running clock down between server messages. */
  tickClocks() {
    if (!this.clocks || this.aborted) return;
    const elapsed = runningElapsed(this.clocks, this.state?.seats, performance.now() - this.clocksAt);
    for (const node of this.app.querySelectorAll('[data-clock]')) paintClock(node, this.clocks, this.state?.status, elapsed, this.skew);
    // A correspondence turn line says how long is left: its minutes (seconds in the
    // last minute) follow.
    // So does the countdown of a first move at a table of quick pairing.
    if (this.state && !this.aborted && (isCorrespondence(this.clocks) || typeof this.state.first_move_by_ms === 'number')) this.renderTurn();
  }

  // ---- actions (input.js) ------------------------------------------------------------

  play(action) { input.play(this, action); }
  cancel() { input.cancel(this); }

  join(seat) {
    const field = this.pregame.nameInput;
    const name = (field?.value ?? storedName()).trim();
    if (this.state?.rated && !account()) {
      this.flash(t('room.join.rated_login'));
      return;
    }
    if (!name) {
      this.flash(t('room.join.need_name'));
      field?.focus();
      return;
    }
    storeName(name);
    this.send({ type: 'join', seat, name });
  }

  setView(seat) {
    this.viewSeat = seat;
    this.viewChosen = true;
    if (!this.you) localStorage.setItem(VIEW_KEY, seat);
    this.board.setView(seat);
    this.render();
  }

  goTo(n) {
    goTo(this.model, n);
    this.selected = null;
    this.illumPreview = false;
    this.render();
  }

  step(delta) {
    step(this.model, delta);
    this.render();
  }

  // ---- drawing ----------------------------------------------------------------------

  render() {
    const s = this.state;
    if (!s || this.aborted) return;
    // Parts of the page are rebuilt: keep keyboard focus on the control it was on.
    const focusedId = this.focusNext ?? document.activeElement?.closest?.('[data-testid]:not(svg)')?.dataset.testid;
    this.focusNext = null;
    const view = shown(this.model);
    if (view.position) {
      const kings = new Set();
      for (const [cell, p] of view.position.board) if (p.kind === 'K' && view.checks.has(p.owner)) kings.add(cell);
      const myTurnLive = this.myTurn && view.live;
      const sel = this.selected?.cell ?? this.premoveSel?.cell ?? null;
      this.board.render({
        board: view.position.board,
        selected: view.live ? sel : null,
        sources: new Set(myTurnLive ? this.legal.moves.keys() : []),
        targets: input.targets(this),
        last: view.last,
        checks: kings,
        illumination: this.illumPreview && view.live ? new Set(s.illumination ?? []) : null,
        premove: view.live ? new Set(premoveCells(this.premove)) : null,
        hints: view.live ? input.premoveHints(this) : null,
      });
    }
    this.typed.update(this.myTurn && view.live ? s.legal ?? [] : [], Boolean(this.you) && s.status === 'playing');
    this.boardBox.classList.toggle('my-turn', this.myTurn && view.live);
    // A player's board takes touch gestures for its drags (play.css).
    this.boardBox.classList.toggle('can-drag', Boolean(this.you) && s.status === 'playing' && view.live);
    this.boardBox.classList.toggle('history', !view.live);
    this.boardBox.dataset.ply = String(view.ply);
    this.looking.hidden = view.live;
    if (!view.live) this.looking.textContent = view.ply === 0 ? t('room.nav.looking_start') : t('room.nav.looking', { n: view.ply, count: plyCount(this.model) });
    this.renderHead();
    this.renderTurn();
    redraw(this.viewPicker, () => renderViewPicker(this));
    this.renderSeats(view);
    redraw(this.pregame.node, () => this.pregame.render());
    redraw(this.controls, () => renderControls(this));
    redraw(this.nav, () => renderNav(this));
    redraw(this.result, () => renderResult(this));
    // Until the history has come, the moves of the state (without their positions).
    const plies = this.model.history?.plies
      ?? (s.moves ?? []).map((action, i) => ({ ply: i + 1, player: s.move_players?.[i] ?? null, action }));
    this.moveTable.render(plies, shownPly(this.model), s.seats, { follow: view.live });
    // The game at the ply shown, on the analysis board (once it has begun; while people
    // play it, only once it is over: no engine help during a game).
    this.analysisLink.hidden = s.status === 'waiting' || !engineAllowed(s);
    this.analysisLater.hidden = s.status === 'waiting' || engineAllowed(s);
    this.analysisLink.href = analysisHref(this.roomId, this.model.history ? shownPly(this.model) : null);
    // A finished game's computer review, asked for on arrival.
    this.reviewLink.hidden = s.status !== 'finished' || !(plyCount(this.model) || s.moves?.length);
    this.reviewLink.href = reviewHref(this.roomId, this.you);
    if (focusedId && !document.activeElement?.closest?.(`[data-testid="${focusedId}"]`)) {
      this.app.querySelector(`[data-testid="${focusedId}"]`)?.focus({ preventScroll: true });
    }
  }

  renderHead() {
    const s = this.state;
    const parts = [];
    if (s.clocks) parts.push(t('room.clock', { desc: describeClock(s.clocks) }));
    if (s.private) parts.push(t('room.private'));
    this.clockInfo.textContent = parts.join(' · ');
    this.ratedTag.hidden = !s.rated;
    this.ratedTag.textContent = t('room.rated');
    this.watching.hidden = Boolean(this.you);
    this.watching.textContent = t('room.watching');
    const n = s.spectators ?? 0;
    this.spectatorCount.textContent = n ? t('room.spectators', { n }) : '';
    this.spectatorCount.dataset.count = String(n);
  }

  renderTurn() {
    renderTurn(this);
  }

  /** The room's name: its players' in seat order (a free seat left out), else "Room 5700af31". */
  roomName() {
    const seats = this.state?.seats ?? {};
    const names = SEATS.filter((s) => seats[s]).map((s) => playerName(seats[s], s) ?? seatLabel(s));
    return names.length ? names.join(' · ') : t('room.title', { id: shortId(this.roomId) });
  }

  renderSeats(view = shown(this.model)) {
    const s = this.state;
    if (!s) return;
    const name = this.roomName();
    if (this.headTitle.textContent !== name) this.headTitle.textContent = name;
    const places = placesFor(this.viewSeat ?? 'middle');
    const v = {
      state: s, roomId: this.roomId,
      pos: view.position ?? this.model.pos,
      live: view.live,
      you: this.you,
      myTurn: this.myTurn,
      active: (view.live ? this.model.pos?.active : view.position?.active) ?? new Set(SEATS),
      alliance: (view.live ? this.model.pos : view.position)?.alliance ?? null,
      leaving: this.model.leaving,
      checks: view.checks,
      clocks: this.clocks,
      clocksAt: this.clocksAt,
      skew: this.skew,
      selectedHand: this.selected?.hand ?? this.premoveSel?.hand ?? null,
      onDrop: (kind, byKeyboard) => {
        if (this.drag.swallows() || (!byKeyboard && !clicksOn())) return;
        input.selectHand(this, kind);
        if (byKeyboard) this.board.focus();
      },
      onHandDown: (e, kind) => this.drag.handDown(e, kind),
      // Rated rooms seat accounts only: their ratings go next to their names.
      ratingOf: s.rated ? ratingOf : null,
      giveTime: giveTimeFor(this),
    };
    for (const [place, seat] of Object.entries(places)) {
      const panel = this.panels[seat];
      redraw(panel, () => renderSeat(panel, seat, { ...v, place }));
      if (panel.parentNode !== this.slots[place]) this.slots[place].replaceChildren(panel);
    }
  }
}
