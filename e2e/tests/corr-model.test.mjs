// Node only, no browser: the pure parts of correspondence games and notifications —
// durations in days and hours (static/js/duration.js), the record's time control, and
// the service worker's choices (static/sw.js): the notification a push payload makes,
// and which tab a click goes to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import vm from 'node:vm';

const { durationParts, wholeDays, DAY, HOUR, MINUTE } = await import('../../static/js/duration.js');
const { timeControlTag } = await import('../../static/js/room/record.js');

test('a duration is its two largest units, floored; seconds only in the last minute', () => {
  assert.deepEqual(durationParts(2 * DAY + 14 * HOUR + 59 * MINUTE), [[2, 'day'], [14, 'hour']]);
  assert.deepEqual(durationParts(3 * DAY), [[3, 'day']]);
  assert.deepEqual(durationParts(DAY - 1), [[23, 'hour'], [59, 'minute']]);
  assert.deepEqual(durationParts(5 * HOUR + 12 * MINUTE + 30000), [[5, 'hour'], [12, 'minute']]);
  assert.deepEqual(durationParts(HOUR), [[1, 'hour']]);
  assert.deepEqual(durationParts(12 * MINUTE + 59000), [[12, 'minute']]);
  assert.deepEqual(durationParts(MINUTE), [[1, 'minute']]);
  assert.deepEqual(durationParts(MINUTE - 1), [[59, 'second']]);
  assert.deepEqual(durationParts(44500), [[44, 'second']]);
  assert.deepEqual(durationParts(0), [[0, 'second']]);
  assert.deepEqual(durationParts(-5), [[0, 'second']]);
  assert.equal(wholeDays(3 * DAY), 3);
  assert.equal(wholeDays(12 * HOUR), null);
});

test('the record writes a correspondence clock as one move in so many seconds', () => {
  assert.equal(timeControlTag({ kind: 'correspondence', main_ms: DAY }), '1/86400');
  assert.equal(timeControlTag({ kind: 'fischer', main_ms: 300000, increment_ms: 5000 }), '300+5');
});

/** static/sw.js run with a stand-in `self` (no service worker here: its listeners are
 * not added), for its pure parts. */
async function serviceWorker(origin = 'https://sannin.example') {
  const code = await readFile(new URL('../../static/sw.js', import.meta.url), 'utf8');
  const self = { location: { origin } };
  vm.runInNewContext(code, { self, URL });
  return self.sanninSw;
}

test('a push payload makes one notification per room, opening a page of the site', async () => {
  const sw = await serviceWorker();
  const n = sw.notificationOf({
    type: 'your_turn', room: 'r1', seat: 'middle', title: 'Your move', body: 'Ann vs Bob vs you — 2 days 23 hours left', url: '/rooms/r1',
  });
  assert.equal(n.title, 'Your move');
  assert.equal(n.options.body, 'Ann vs Bob vs you — 2 days 23 hours left');
  assert.equal(n.options.tag, 'r1');
  assert.equal(n.options.data.url, '/rooms/r1');
  assert.equal(n.options.icon, '/icon-192.png');
  // Another site's address, or none: My games.
  assert.equal(sw.notificationOf({ title: 'x', url: 'https://evil.example/rooms/r1' }).options.data.url, '/games');
  assert.equal(sw.notificationOf({ title: 'x', url: '//evil.example/x' }).options.data.url, '/games');
  assert.equal(sw.notificationOf({ title: 'x' }).options.data.url, '/games');
  assert.equal(sw.notificationOf({ title: 'x', url: 'https://sannin.example/rooms/r2?a=1' }).options.data.url, '/rooms/r2?a=1');
  assert.equal(sw.notificationOf(null), null);
  assert.equal(sw.notificationOf({}).title, 'Sannin');
});

test('a click goes to an open tab of that page, else to none (a new tab opens)', async () => {
  const sw = await serviceWorker('http://127.0.0.1:8080');
  const tabs = [
    { id: 'lobby', url: 'http://127.0.0.1:8080/' },
    { id: 'room', url: 'http://127.0.0.1:8080/rooms/r1#x' },
    { id: 'other', url: 'http://127.0.0.1:8080/rooms/r2' },
  ];
  assert.equal(sw.clientFor(tabs, '/rooms/r1', 'http://127.0.0.1:8080').id, 'room');
  assert.equal(sw.clientFor(tabs, '/rooms/r3', 'http://127.0.0.1:8080'), null);
  assert.equal(sw.clientFor(tabs, '/', 'http://127.0.0.1:8080').id, 'lobby');
  assert.equal(sw.clientFor([{ url: 'not a url' }], '/games', 'http://127.0.0.1:8080'), null);
});
