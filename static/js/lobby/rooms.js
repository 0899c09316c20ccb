// The rooms the lobby lists, as the server gives them: open and running rooms and the
// pools of quick pairing from the live feed (live.js) — or, without it, from
// `GET /api/rooms` and `GET /api/pairing` — with the detail of up to 12 running rooms
// (for their boards), and finished games a page at a time. No DOM here: lists.js draws
// them.
import { api } from '../protocol.js';
import { httpError } from '../i18n.js';

const FINISHED_PER_PAGE = 8;

export function createFeed() {
  return {
    rooms: [], details: new Map(), loaded: false, page: 0,
    // The pools of quick pairing with the people waiting in each (null until known).
    pools: null,
    // Finished games come a page at a time from the server (`status=finished`, `limit`,
    // and the `Link: rel="next"` cursor); `urls[i]` fetches page i. A server that
    // ignores the query answers with every room: then the pages are cut here.
    fin: { urls: [`/api/rooms?status=finished&limit=${FINISHED_PER_PAGE}`], rooms: [], next: null, serverPaged: false },
  };
}

/** Loads the detail (position) of the running rooms whose moves changed. */
export async function loadDetails(feed) {
  const playing = feed.rooms.filter((r) => r.status === 'playing').slice(0, 12);
  await Promise.all(playing.map(async (room) => {
    const known = feed.details.get(room.id);
    if (known && typeof room.moves === 'number' && known.moves?.length === room.moves) return;
    try {
      feed.details.set(room.id, await api(`/api/rooms/${encodeURIComponent(room.id)}`));
    } catch { /* the card shows without a board */ }
  }));
}

async function loadFinished(feed) {
  const fin = feed.fin;
  const res = await fetch(fin.serverPaged ? fin.urls[feed.page] ?? fin.urls[0] : fin.urls[0]);
  if (!res.ok) throw httpError(res, await res.json().catch(() => null));
  const list = (await res.json()) ?? [];
  const link = /<([^>]+)>\s*;\s*rel="?next"?/.exec(res.headers.get('link') ?? '');
  fin.rooms = list.filter((r) => r.status === 'finished');
  fin.serverPaged = list.length <= FINISHED_PER_PAGE && fin.rooms.length === list.length;
  fin.next = link ? link[1] : null;
}

/** A picture of the live feed: the open tables, the games under way, the pools.
 * Returns whether a game left the running ones (it may have finished). */
export function applyPicture(feed, picture) {
  const rooms = [...(picture.waiting ?? []), ...(picture.playing ?? [])];
  const playing = new Set(rooms.filter((r) => r.status === 'playing').map((r) => r.id));
  const ended = feed.rooms.some((r) => r.status === 'playing' && !playing.has(r.id));
  feed.rooms = rooms;
  if (Array.isArray(picture.pools)) feed.pools = picture.pools;
  for (const id of feed.details.keys()) if (!playing.has(id)) feed.details.delete(id);
  feed.loaded = true;
  return ended;
}

/** Without the live feed: every list again; throws if the server could not be read. */
export async function loadRooms(feed) {
  const pools = api('/api/pairing').then((p) => { if (Array.isArray(p)) feed.pools = p; }, () => { /* no pairing here */ });
  const [rooms] = await Promise.all([api('/api/rooms').then((r) => r ?? []), loadFinished(feed), pools]);
  feed.rooms = rooms.filter((r) => r.status !== 'finished');
  await loadDetails(feed);
  feed.loaded = true;
}

/** The finished games again (a game just ended). Only the first page moves: a later
 * page being read stays as it is. */
export function reloadFinished(feed) {
  if (feed.page > 0 && feed.fin.serverPaged) return null;
  return loadFinished(feed);
}

/** Moves the finished list `delta` pages (older > 0). Where the server pages, the page
 * is fetched (the promise returned); else it is cut from what is here (null). */
export function turnPage(feed, delta) {
  const fin = feed.fin;
  if (!fin.serverPaged) {
    feed.page += delta;
    return null;
  }
  if (delta > 0 && fin.next) fin.urls[feed.page + 1] = fin.next;
  feed.page = Math.max(0, feed.page + delta);
  return loadFinished(feed);
}

/** The finished games to show, newest first, and `pager`: { page (from 0), pages (null
 * where the server pages), older (whether there is an older page) }, or null when
 * everything fits on one page. */
export function finishedPage(feed) {
  const fin = feed.fin;
  if (fin.serverPaged) {
    const pager = feed.page > 0 || fin.next ? { page: feed.page, pages: null, older: Boolean(fin.next) } : null;
    return { shown: fin.rooms, pager };
  }
  const recent = (r) => r.updated_at_ms ?? r.created_at_ms ?? 0;
  const all = [...fin.rooms].sort((a, b) => recent(b) - recent(a));
  const pages = Math.max(1, Math.ceil(all.length / FINISHED_PER_PAGE));
  feed.page = Math.min(feed.page, pages - 1);
  const shown = all.slice(feed.page * FINISHED_PER_PAGE, (feed.page + 1) * FINISHED_PER_PAGE);
  return { shown, pager: pages > 1 ? { page: feed.page, pages, older: feed.page < pages - 1 } : null };
}
