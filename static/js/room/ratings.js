// The rating change of each player of a finished rated game, for the result card
// ("1520 → 1536 (+16)"): each seated account's rating history (`GET /api/players/{name}`,
// docs/accounts.md) holds an entry for the room once the server has rated the game, a
// moment after its end; asked again a few times until every seat has one.
import { api } from '../protocol.js';
import { SEATS } from '../geometry.js';

/** How long to wait before each question: the rating is written a moment after the end. */
const WAITS_MS = [300, 1000, 2000, 3000, 5000, 8000];

/** The entries of room `roomId` in the histories of the accounts in `seats` ({ first:
 * name, … }): `onChange({ seat: { before, after } })` each time more are known. Returns
 * a function that stops asking. */
export function followRatingChanges(roomId, seats, onChange) {
  let stopped = false;
  const known = {};
  (async () => {
    for (const wait of WAITS_MS) {
      await new Promise((r) => setTimeout(r, wait));
      if (stopped) return;
      const missing = SEATS.filter((seat) => seats[seat] && !known[seat]);
      if (!missing.length) return;
      const found = await Promise.all(missing.map(async (seat) => {
        try {
          const p = await api(`/api/players/${encodeURIComponent(seats[seat])}`);
          const e = (p?.history ?? []).find((g) => g.room_id === roomId);
          return e && Number.isFinite(e.rating_before) && Number.isFinite(e.rating_after) ? [seat, { before: e.rating_before, after: e.rating_after }] : null;
        } catch { return null; }
      }));
      const more = found.filter(Boolean);
      if (stopped) return;
      if (more.length) {
        for (const [seat, change] of more) known[seat] = change;
        onChange({ ...known });
      }
    }
  })();
  return () => { stopped = true; };
}

/** "1520 → 1536 (+16)": a change in words, its sign always shown (−, not -). */
export function changeText({ before, after }) {
  const d = after - before;
  const delta = d > 0 ? `+${d}` : d < 0 ? `−${-d}` : '±0';
  return `${before} → ${after} (${delta})`;
}
