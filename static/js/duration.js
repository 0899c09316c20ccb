// Durations of correspondence games (days for each move): the two largest units that
// matter — days and hours, hours and minutes, minutes, and seconds only in the last
// minute — floored, so that what is shown is never more than what is left. Pure: no
// wording here (clocks.js words the parts), so it runs in node too.

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** `[[n, unit], …]` of `ms`: `[[2, 'day'], [14, 'hour']]`, `[[5, 'hour'], [12, 'minute']]`,
 * `[[12, 'minute']]`, `[[45, 'second']]`; a zero second unit is left out (`[[3, 'day']]`). */
export function durationParts(ms) {
  const t = Math.max(0, Math.floor(Number(ms) || 0));
  const two = (big, bigUnit, small, smallUnit) => {
    const a = Math.floor(t / big);
    const b = Math.floor((t % big) / small);
    return b ? [[a, bigUnit], [b, smallUnit]] : [[a, bigUnit]];
  };
  if (t >= DAY) return two(DAY, 'day', HOUR, 'hour');
  if (t >= HOUR) return two(HOUR, 'hour', MINUTE, 'minute');
  if (t >= MINUTE) return [[Math.floor(t / MINUTE), 'minute']];
  return [[Math.floor(t / SECOND), 'second']];
}

/** Whole days of a time for each move (`main_ms`), or null when it is no whole number
 * of days. */
export function wholeDays(ms) {
  return ms > 0 && ms % DAY === 0 ? ms / DAY : null;
}
