// Sannin TV (/tv): the game the server picks as the best one being played right now
// (`GET /api/tv` → `{"room": id | null}`: rated games first by their players' average
// rating, then casual games with people, then games of bots alone; never a private
// room), shown as on its game page to a spectator — the spectators' chat included —
// under a title with its players. When that game ends, the next one comes by itself a
// few seconds later; with none being played the page asks again every 10 s. The address
// stays /tv.
import { h } from './dom.js';
import { SEATS } from './geometry.js';
import { api } from './protocol.js';
import { t, onLangChange } from './i18n.js';
import { onRatings, ratingOf, ratingText } from './account.js';
import { nameNodes, playerName } from './players.js';
import { showRoom } from './room.js';
import { seatLabel } from './room/messages.js';

/** After a game ends, how long it stays on screen before the next one. */
const NEXT_MS = 5000;
/** With no game being played (or the server out of reach), how often to ask again. */
const AGAIN_MS = 10000;

export function showTv(app) {
  const tv = new Tv(app);
  tv.next();
  return tv;
}

class Tv {
  constructor(app) {
    this.room = null; // the id of the game shown
    this.view = null; // its RoomView
    this.state = null; // its last state
    this.timer = null;
    this.phase = 'loading'; // 'loading' | 'none' | 'error' | 'live' | 'over' | 'gone'
    this.title = h('h1', { class: 'tv-title', 'data-testid': 'tv-title' });
    this.players = h('p', { class: 'tv-players', 'data-testid': 'tv-players' });
    this.status = h('p', { class: 'tv-status hint', 'data-testid': 'tv-status', role: 'status' });
    this.open = h('a', { class: 'button small', 'data-testid': 'tv-open', hidden: true });
    this.stage = h('div', { class: 'tv-stage', 'data-testid': 'tv-stage' });
    app.replaceChildren(h('div', { class: 'tv', 'data-testid': 'tv' },
      h('div', { class: 'tv-head' }, this.title, this.players, this.open, this.status), this.stage));
    onLangChange(() => this.paint());
    onRatings(() => this.paintPlayers());
    this.paint();
  }

  /** Asks the server for the game to show, and shows it (or says there is none). */
  async next() {
    clearTimeout(this.timer);
    let room = null;
    try {
      room = (await api('/api/tv'))?.room ?? null;
    } catch {
      this.idle('error');
      return;
    }
    if (!room) {
      this.idle('none');
      return;
    }
    if (room === this.room && this.view && !this.view.aborted) {
      // Still the game shown: it goes on, or it is over and there is no other.
      if (this.state?.status === 'finished') this.idle('none');
      return;
    }
    this.watch(room);
  }

  /** No game to show: the last one stays (if any) and the page asks again later. */
  idle(phase) {
    this.phase = phase;
    if (!this.view) this.stage.replaceChildren();
    this.paint();
    this.timer = setTimeout(() => this.next(), AGAIN_MS);
  }

  watch(room) {
    this.view?.stop();
    this.room = room;
    this.state = null;
    this.phase = 'live';
    const box = h('div', { class: 'tv-room' });
    this.stage.replaceChildren(box);
    this.view = showRoom(box, room, {
      watchOnly: true,
      docTitle: () => t('tv.doc_title'),
      onState: (s) => this.onState(s),
      onGone: () => this.gone(),
    });
    this.paint();
  }

  onState(s) {
    this.state = s;
    if (s.status === 'finished' && this.phase === 'live') {
      this.phase = 'over';
      this.timer = setTimeout(() => this.next(), NEXT_MS);
    }
    this.paint();
  }

  /** The game shown was given up (aborted) or is no more: on to the next. */
  gone() {
    this.phase = 'gone';
    this.view = null;
    this.room = null;
    this.state = null;
    this.stage.replaceChildren();
    this.paint();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.next(), 1500);
  }

  paint() {
    document.title = t('tv.doc_title');
    this.title.textContent = t('tv.title');
    const words = { loading: 'tv.loading', none: 'tv.none', error: 'tv.error', over: 'tv.next', gone: 'tv.gone' }[this.phase];
    this.status.textContent = words ? t(words) : '';
    this.status.hidden = !words;
    this.status.dataset.phase = this.phase;
    this.open.hidden = !this.room;
    if (this.room) this.open.href = `/rooms/${encodeURIComponent(this.room)}`;
    this.open.textContent = t('tv.open');
    this.paintPlayers();
  }

  /** "Akira (1620) · Beni (1580) · Chiyo (1500)": ratings in rated games. */
  paintPlayers() {
    const s = this.state;
    this.players.dataset.room = this.room ?? '';
    if (!s) { this.players.replaceChildren(); return; }
    this.players.replaceChildren(...SEATS.filter((seat) => s.seats?.[seat]).flatMap((seat, i) => {
      const name = playerName(s.seats[seat], seat) ?? seatLabel(seat);
      const rating = s.rated ? ratingText(ratingOf(s.seats[seat].name)) : '';
      return [...(i ? [' · '] : []), h('span', { class: `tv-player seat-${seat}`, 'data-seat': seat },
        nameNodes(s.seats[seat], rating ? t('tv.player', { name, rating }) : name))];
    }));
  }
}
