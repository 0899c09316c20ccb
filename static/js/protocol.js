// The room WebSocket (docs/protocol.md, 'WebSocket'): join/resume/watch, seq tracking,
// reconnects.

import { httpError, t } from './i18n.js';

const TOKEN_PREFIX = 'sannin.token.';
const TOKEN_KEY = (roomId) => `${TOKEN_PREFIX}${roomId}`;
/** Said on `window` whenever the seat tokens or pairing tickets this browser holds
 * change (mine.js and notify.js tell the server again). */
export const TOKENS_EVENT = 'sannin:tokens';

/** Tells the page that the seat tokens or tickets this browser holds changed. */
export function tokensChanged() {
  try { dispatchEvent(new Event(TOKENS_EVENT)); } catch { /* not in a page */ }
}

export function savedToken(roomId) {
  try { return localStorage.getItem(TOKEN_KEY(roomId)); } catch { return null; }
}
export function saveToken(roomId, token) {
  try {
    if (token === savedToken(roomId)) return;
    if (token) localStorage.setItem(TOKEN_KEY(roomId), token);
    else localStorage.removeItem(TOKEN_KEY(roomId));
  } catch { return; /* storage unavailable: the seat just won't survive a reload */ }
  tokensChanged();
}

/** Every seat token this browser keeps: `{ room: token }`. */
export function allSeatTokens() {
  const out = {};
  try {
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (key?.startsWith(TOKEN_PREFIX)) {
        const token = localStorage.getItem(key);
        if (token) out[key.slice(TOKEN_PREFIX.length)] = token;
      }
    }
  } catch { /* storage unavailable: none */ }
  return out;
}

/**
 * One room connection. Callbacks:
 *  onState(state), onEvent(event, seq), onSeated(msg), onError(msg), onStatus(status),
 *  onChat(message), onChatHistory(messages), isGone() → Promise<bool> (asked when a
 *  socket is refused before it opens: true stops the reconnects), onGivenUp() (the
 *  server closed the room: a table of quick pairing given up); `watchOnly`: spectate
 *  even where a seat token is kept
 * where status is { phase: 'connecting'|'open'|'reconnecting'|'closed', attempt, delayMs }.
 * Reconnects with exponential backoff; resumes the seat with the stored token; on a
 * gap in `seq` it asks for a fresh snapshot (resume or watch again).
 */
export class RoomConnection {
  constructor(roomId, handlers) {
    this.roomId = roomId;
    this.h = handlers;
    this.ws = null;
    this.seq = null; // seq of the last state/event applied
    this.attempt = 0;
    this.closed = false;
    this.resyncing = false;
    this.queue = [];
    this.timer = null;
  }

  /** The seat token kept for the room; none for a view that only watches (the TV page). */
  get token() { return this.h.watchOnly ? null : savedToken(this.roomId); }

  url() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${proto}//${location.host}/api/rooms/${encodeURIComponent(this.roomId)}/ws`;
  }

  connect() {
    this.closed = false;
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) return; // already connecting or open
    clearTimeout(this.timer);
    this.status(this.attempt ? 'reconnecting' : 'connecting');
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    let opened = false;
    ws.addEventListener('open', () => {
      opened = true;
      this.attempt = 0;
      this.closeReason = null;
      this.status('open');
      this.hello();
      for (const msg of this.queue.splice(0)) this.send(msg);
    });
    ws.addEventListener('message', (e) => this.receive(e.data));
    ws.addEventListener('close', (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      // The server's reason is a code (docs/protocol.md §3.5), said in the reader's
      // language while the page is offline (a failed try to reconnect keeps it); none
      // once a socket opens again.
      if (typeof e.reason === 'string' && e.reason) this.closeReason = e.reason;
      // 4000: another connection resumed this seat (docs/protocol.md §3.5). Reconnecting
      // would take it back and start a tug of war between two tabs, so stop here.
      if (e.code === 4000) this.closed = true;
      // A table of quick pairing given up before its game got going: the room is gone.
      if (e.code === 1000 && (e.reason === 'table_given_up' || e.reason === 'table given up')) {
        this.closed = true;
        this.h.onGivenUp?.();
      }
      if (this.closed) this.status('closed');
      else if (!opened && this.h.isGone) {
        // Refused before it opened: a room that is gone for good (the page says so)
        // is not retried forever.
        this.h.isGone().then((gone) => { if (!gone && !this.closed) this.scheduleReconnect(); });
      } else this.scheduleReconnect();
    });
    ws.addEventListener('error', () => { /* a close event follows */ });
  }

  /** First words on a (re)opened socket: take the seat back, or spectate. */
  hello() {
    const token = this.token;
    if (token) this.sendNow({ type: 'resume', token });
    else this.watch();
  }

  /** Spectate, with the chat name the page knows (if any) unless the server refused
   * it (`bad_name`: it poses as an account or a bot): then as "Spectator". */
  watch() {
    const name = this.nameRefused ? undefined : this.h.spectatorName?.() || undefined;
    this.watchingAs = name ?? null;
    this.sendNow({ type: 'watch', name });
  }

  scheduleReconnect() {
    this.attempt += 1;
    const base = Math.min(10000, 500 * 2 ** (this.attempt - 1));
    const delayMs = Math.round(base * (0.75 + Math.random() * 0.5));
    this.status('reconnecting', delayMs);
    this.timer = setTimeout(() => this.connect(), delayMs);
  }

  status(phase, delayMs = 0) {
    this.h.onStatus?.({ phase, attempt: this.attempt, delayMs, reason: this.closeReason ?? null });
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.ws?.close();
  }

  sendNow(msg) {
    if (this.ws?.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  /** Sends now, or once the socket is open again (joins, readies, actions are not lost). */
  send(msg) {
    if (!this.sendNow(msg)) this.queue.push(msg);
  }

  /** Gives the seat up (before the game starts) and forgets its token. */
  leave() {
    this.send({ type: 'leave' });
    saveToken(this.roomId, null);
    this.watch();
  }

  /** Asks the server for a fresh snapshot (after a gap in `seq`). */
  resync() {
    this.resyncing = true;
    if (!this.sendNow({ type: 'sync' })) this.resyncing = false;
  }

  receive(data) {
    let msg;
    try { msg = JSON.parse(data); } catch { return; }
    switch (msg.type) {
      case 'seated':
        if (msg.token) saveToken(this.roomId, msg.token);
        this.h.onSeated?.(msg);
        break;
      case 'state':
        this.resyncing = false;
        this.watchingAs = null;
        if (typeof msg.seq === 'number') this.seq = msg.seq;
        this.h.onState?.(msg);
        break;
      case 'event': {
        if (this.resyncing) break; // a full state is on its way
        if (typeof msg.seq === 'number' && this.seq !== null) {
          if (msg.seq <= this.seq) break; // already applied
          if (msg.seq !== this.seq + 1) { this.resync(); break; }
        }
        if (typeof msg.seq === 'number') this.seq = msg.seq;
        this.h.onEvent?.(msg.event ?? {}, msg.seq);
        break;
      }
      case 'error':
        if (msg.code === 'replaced') this.closed = true;
        if (msg.code === 'bad_token') {
          saveToken(this.roomId, null);
          this.watch();
        }
        // A chat name refused with the watch: watch without it (the page says why).
        if (msg.code === 'bad_name' && this.watchingAs) {
          this.nameRefused = true;
          this.watch();
        }
        this.h.onError?.(msg);
        break;
      case 'chat':
        this.h.onChat?.(msg);
        break;
      case 'chat_history':
        this.h.onChatHistory?.(msg.messages ?? []);
        break;
      default:
        break;
    }
  }
}

/** A JSON request to the server's API; a refusal throws `httpError` (its words in the
 * reader's language). */
export async function api(path, options = {}) {
  let res;
  try {
    res = await fetch(path, {
      ...options,
      headers: { 'content-type': 'application/json', ...(options.headers ?? {}) },
    });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw Object.assign(new Error(t('lobby.connectionLost')), { code: 'network', status: 0 });
  }
  const text = await res.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch { body = text; }
  if (!res.ok) {
    throw httpError(res, body);
  }
  return body;
}
