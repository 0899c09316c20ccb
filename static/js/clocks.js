// Game clocks on the page: the server sends each player's time left as of the moment it
// sent a `state` or an action event (docs/protocol.md §11); between messages the page
// counts the running clock down locally from that value, so it never drifts further
// than one message's transit. A correspondence clock (days for each move) is shown in
// days and hours rather than counted in seconds (docs/correspondence.md).
import { t } from './i18n.js';
import { HOUR, durationParts, wholeDays } from './duration.js';

/** `ms` in words: "2 days 14 hours", "5 hours 12 minutes", "45 seconds"; `short`:
 * "2d 14h" (the clocks beside the board). */
export function durationText(ms, { short = false } = {}) {
  const parts = durationParts(ms).map(([n, unit]) => t(short ? `dur.short.${unit}` : `dur.${unit}${n === 1 ? '' : 's'}`, { n }));
  return parts.join(t(short ? 'dur.short.join' : 'dur.join'));
}

export function isCorrespondence(clocks) {
  return clocks?.kind === 'correspondence';
}

/**
 * Time left of the player to move of a correspondence clock, `elapsed` ms after the
 * snapshot was received: from `deadline_ms` (server's unix ms) corrected by `skew` (the
 * server's clock minus this computer's, from the state's `now_ms`), else from its
 * `remaining_ms`.
 */
export function deadlineLeft(clocks, { elapsed = 0, skew = null, now = Date.now() } = {}) {
  if (!clocks?.running) return null;
  if (typeof clocks.deadline_ms === 'number' && typeof skew === 'number') return Math.max(0, clocks.deadline_ms - (now + skew));
  const c = clocks[clocks.running];
  return c ? Math.max(0, c.remaining_ms - Math.max(0, elapsed)) : null;
}

/** Time left of `seat` `elapsed` ms after the snapshot was received. */
export function clockLeft(clocks, seat, elapsed) {
  const c = clocks?.[seat];
  if (!c) return null;
  const used = clocks.running === seat ? Math.max(0, elapsed) : 0;
  const byo = clocks.byoyomi_ms ?? 0;
  let main = c.remaining_ms - used;
  let periods = c.periods ?? 0;
  let period = c.period_ms ?? byo;
  if (main < 0) {
    let over = -main;
    main = 0;
    if (byo > 0 && periods > 0) {
      // Spend the current period, then whole periods.
      while (over >= period && periods > 0) {
        over -= period;
        periods -= 1;
        period = byo;
      }
      period = periods > 0 ? period - over : 0;
    } else {
      period = 0;
    }
  }
  const total = main + (byo > 0 && periods > 0 ? period + (periods - 1) * byo : 0);
  return { main, periods, period, total, byoyomi: byo > 0 && main === 0 && periods > 0 };
}

/** 5:07, 1:02:03; tenths under ten seconds. */
export function formatMs(ms) {
  const t = Math.max(0, ms);
  if (t < 10000) return `${Math.floor(t / 1000)}.${Math.floor((t % 1000) / 100)}`;
  const s = Math.ceil(t / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** Low time: under 20 s in all, or (byoyomi) under 10 s of the current period. */
const LOW_MS = 20000;

/** What a clock shows: text, label for screen readers, low-time flag. */
export function clockText(clocks, seat, elapsed, skew = null) {
  if (isCorrespondence(clocks)) {
    // The player to move: its time left; the others: the time each move gives (nothing
    // carries over from one move to the next).
    if (!clocks[seat]) return null;
    const running = clocks.running === seat;
    const total = running ? deadlineLeft(clocks, { elapsed, skew }) ?? 0 : clocks.main_ms;
    return { text: durationText(total, { short: true }), low: running && total < HOUR, total };
  }
  const left = clockLeft(clocks, seat, elapsed);
  if (!left) return null;
  const byo = clocks.byoyomi_ms ?? 0;
  let text;
  if (left.byoyomi) text = `${formatMs(left.period)} ×${left.periods}`;
  else if (byo > 0 && left.periods > 0) text = `${formatMs(left.main)} +${left.periods}×${Math.round(byo / 1000)}s`;
  else text = formatMs(left.main);
  const low = left.byoyomi ? left.period < 10000 : left.total < LOW_MS;
  return { text, low, total: left.total };
}

/** A one-line description of a time control (lobby, room head). */
export function describeClock(c) {
  if (!c) return t('room.clockdesc.none');
  const min = (ms) => (ms % 60000 ? t('room.clockdesc.s', { n: ms / 1000 }) : t('room.clockdesc.min', { n: ms / 60000 }));
  switch (c.kind) {
    case 'sudden_death': return t('room.clockdesc.sudden_death', { main: min(c.main_ms) });
    case 'fischer': return t('room.clockdesc.fischer', { main: min(c.main_ms), inc: c.increment_ms / 1000 });
    case 'byoyomi': return t('room.clockdesc.byoyomi', { main: min(c.main_ms), periods: c.periods, byo: c.byoyomi_ms / 1000 });
    case 'correspondence': return perMoveText(c.main_ms);
    default: return String(c.kind);
  }
}

/** "3 days per move" (or "12 hours per move"). */
export function perMoveText(ms) {
  const days = wholeDays(ms);
  if (days) return t(days === 1 ? 'clock.perMoveDay' : 'clock.perMoveDays', { n: days });
  return t('clock.perMove', { time: durationText(ms) });
}
