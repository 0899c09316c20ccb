// Game clocks on the page: the server sends each player's time left as of the moment it
// sent a `state` or an action event (docs/protocol.md §11); between messages the page
// counts the running clock down locally from that value, so it never drifts further
// than one message's transit.
import { t } from './i18n.js';

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
export function clockText(clocks, seat, elapsed) {
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
    default: return String(c.kind);
  }
}
