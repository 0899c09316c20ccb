// The downloaded game record (RULES §13.2): the server's record (its actions, and its
// `[Position]`/`[Result]` headers) with the headers readers of game records expect put
// in front — site, date, the players' names, the time control. Pure: runs in node.

/** `[TimeControl]` value: seconds, "+increment" (Fischer), "+periods×byoyomi"; one
 * move in so many seconds for correspondence, as PGN writes it ("1/86400"). */
export function timeControlTag(clock) {
  if (!clock || clock.kind === 'none') return '-';
  const s = (ms) => String(Math.round((ms ?? 0) / 1000));
  switch (clock.kind) {
    case 'sudden_death': return s(clock.main_ms);
    case 'fischer': return `${s(clock.main_ms)}+${s(clock.increment_ms)}`;
    case 'byoyomi': return `${s(clock.main_ms)}+${clock.periods}x${s(clock.byoyomi_ms)}`;
    case 'correspondence': return `1/${s(clock.main_ms)}`;
    default: return String(clock.kind);
  }
}

/** `YYYY.MM.DD` of a date, in UTC. */
export function dateTag(date) {
  const p = (n) => String(n).padStart(2, '0');
  return `${date.getUTCFullYear()}.${p(date.getUTCMonth() + 1)}.${p(date.getUTCDate())}`;
}

function quote(value) {
  return String(value).replaceAll('\\', '\\\\').replaceAll('"', '\\"');
}

/** Splits a record into its header lines (`[Key "Value"]`, as [key, value]) and body. */
export function splitRecord(text) {
  const headers = [];
  const lines = String(text ?? '').split('\n');
  let i = 0;
  for (; i < lines.length; i++) {
    const m = /^\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$/.exec(lines[i]);
    if (!m) break;
    headers.push([m[1], m[2].replace(/\\(.)/g, '$1')]);
  }
  while (i < lines.length && !lines[i].trim()) i++;
  return { headers, body: lines.slice(i).join('\n') };
}

/**
 * The record to download. `server`: the text of `GET /api/rooms/{id}/record`;
 * `info`: { site, date (Date), seats (state.seats), clock, startPosition, standardStart }.
 * Headers already in the server's record win over the ones made here.
 */
export function recordWithHeaders(server, info) {
  const { headers, body } = splitRecord(server);
  const have = new Map(headers);
  const out = [];
  const add = (key, value) => {
    if (value === null || value === undefined || value === '' || have.has(key)) return;
    out.push([key, value]);
  };
  add('Site', info.site);
  add('Date', info.date ? dateTag(info.date) : null);
  for (const [key, seat] of [['First', 'first'], ['Middle', 'middle'], ['Last', 'last']]) {
    const s = info.seats?.[seat];
    add(key, s?.name ?? '?');
  }
  add('TimeControl', timeControlTag(info.clock));
  const all = [...out, ...headers];
  if (!have.has('Position') && info.startPosition && !info.standardStart) all.push(['Position', info.startPosition]);
  if (!have.has('Result')) all.push(['Result', '*']);
  const head = all.map(([k, v]) => `[${k} "${quote(v)}"]`).join('\n');
  return `${head}\n\n${body.trimEnd()}\n`;
}

/** Whether the game of `state` may be looked at with the engine now: not while it is
 * being played with a person seated (a seat with no bot, or one a bot only keeps for
 * its player) — the analysis board and the computer review open once it ends, and the
 * server refuses the engine that game's position meanwhile (`live_game`). A game of
 * computer players alone may be analysed as it goes. */
export function engineAllowed(state) {
  if (state?.status !== 'playing') return true;
  return !['first', 'middle', 'last'].some((seat) => {
    const info = state.seats?.[seat];
    return info && (info.bot === null || info.bot === undefined || info.taken_over);
  });
}

/** The analysis board's address for the game of room `id` shown at ply `ply` (the
 * history's ply number; null: its last). */
export function analysisHref(id, ply) {
  const q = new URLSearchParams({ room: id });
  if (ply !== null && ply !== undefined) q.set('ply', String(ply));
  return `/analysis?${q}`;
}

/** The analysis board's address for the computer review of room `id`'s game, asked
 * for on arrival; `seat`: the reader's seat in that game (whose mistakes to learn
 * from), if any. */
export function reviewHref(id, seat) {
  const q = new URLSearchParams({ room: id, review: '1' });
  if (seat) q.set('seat', seat);
  return `/analysis?${q}`;
}
