// Into a room from the lobby: its link; a seat taken over the room's WebSocket before
// going there (the game against the computer); a seat the room page takes on arrival
// (games with friends); the room of a link someone pasted.
import { saveToken } from '../protocol.js';
import { JOIN_INTENT_KEY, storeName } from '../prefs.js';
import { serverError, t } from '../i18n.js';

/** The page of room `id`, the link players share. */
export function roomLink(id) {
  return `/rooms/${encodeURIComponent(id)}`;
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
        const err = new Error(serverError(msg.code, 'ws'));
        err.code = msg.code;
        finish(err);
      }
    };
  });
}

/** Goes to room `id`, where the room page seats the reader in `seat` (any free seat
 * if null) under `name`, which is kept for next time. */
export function goSeated(id, seat, name) {
  const trimmed = name.trim();
  if (trimmed) storeName(trimmed);
  sessionStorage.setItem(JOIN_INTENT_KEY, JSON.stringify({ room: id, seat, name: trimmed || undefined }));
  location.assign(roomLink(id));
}

/** The room of pasted text: a link (`…/rooms/{id}…`) or the id itself. */
export function roomIdOf(text) {
  const m = /\/rooms\/([^/?#]+)/.exec(text);
  let id = m ? m[1] : text;
  // A pasted link with broken percent-encoding opens as it is (the room page says
  // there is no such room) rather than throwing here.
  try { if (m) id = decodeURIComponent(id); } catch { /* keep it as pasted */ }
  return id;
}
