// A table's first moves against the real server, by clicking: no clock runs before
// First's first move (three seconds leave every clock as it was) nor on any player's
// first move, and a table of friends whose game is aborted waits for its three players
// again. Screenshots, desktop and phone, of the clocks waiting for the first move and of
// a table waiting again after an abort, in every language, go to SHOTS_DIR or
// e2e/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS as DEFAULT_SHOTS, joinRoom, playMove, until } from '../lib/people.mjs';
import { DESKTOP, PHONE, shot, visitor } from '../lib/site.mjs';

const SHOTS = process.env.SHOTS_DIR ? `${process.env.SHOTS_DIR.replace(/\/$/, '')}/` : DEFAULT_SHOTS;
const live = serverAndBrowser({ shots: SHOTS });

const NAMES = { first: 'Akira', middle: 'Beni', last: 'Chiyo' };
const SEATS = ['first', 'middle', 'last'];
const FISCHER = { kind: 'fischer', main_seconds: 180, increment_seconds: 2 };

/** Three people (`looks[seat]`: `{ viewport, lang }`) take the seats of a new room with
 * `body`'s settings, get ready, and the game starts. */
async function table(body, looks = {}) {
  const res = await fetch(`${live.server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 201, await res.clone().text());
  const { id } = await res.json();
  const t = { id, all: [] };
  for (const seat of SEATS) {
    const p = await visitor(live.browser, seat, looks[seat] ?? {});
    await joinRoom(p, live.server, id, NAMES[seat], seat);
    t[seat] = p;
    t.all.push(p);
  }
  for (const p of t.all) await p.page.getByTestId('ready').click();
  for (const p of t.all) await until(`${p.label}: playing`, () => p.lastState()?.status === 'playing');
  return t;
}

/** The three clocks as a page shows them, and whether each runs. */
const clocksShown = (page) => page.$$eval('[data-clock]', (ns) => Object.fromEntries(ns.map((n) => [n.dataset.clock, `${n.textContent} ${n.dataset.running}`])));

const closeAll = (people) => Promise.all(people.map((p) => p.context.close()));
const noErrors = (people) => assert.deepEqual(people.flatMap((p) => p.io.errors), []);

test('no clock runs before First\'s first move, nor on anyone\'s first move: three seconds leave every clock as it was', async () => {
  const t = await table({ clock: FISCHER });
  const still = { first: '3:00 false', middle: '3:00 false', last: '3:00 false' };
  for (const p of t.all) {
    assert.equal(p.lastState().clocks.running, null, 'the server says no clock runs');
    assert.deepEqual(await clocksShown(p.page), still, `${p.label} at the start`);
  }
  assert.match(await t.first.page.getByTestId('turn').textContent(), /^Your move\. Your clock does not run on your first move\.$/);
  await new Promise((r) => setTimeout(r, 3000));
  for (const p of t.all) assert.deepEqual(await clocksShown(p.page), still, `${p.label}: 3 s later, every clock as it was`);
  // Middle's and Last's first moves: not charged either.
  await playMove(t.first);
  await until('middle to move', () => t.middle.lastState()?.to_move === 'middle');
  await new Promise((r) => setTimeout(r, 1500));
  for (const p of t.all) assert.deepEqual(await clocksShown(p.page), still, `${p.label}: Middle's first turn`);
  await playMove(t.middle);
  await playMove(t.last);
  // First's second turn: its clock runs, the others' stand.
  await until('first to move again', () => t.first.lastState()?.to_move === 'first');
  assert.equal(t.first.lastState().clocks.running, 'first');
  for (const p of t.all) {
    await until(`${p.label}: First's clock running`, async () => {
      const c = await clocksShown(p.page);
      return /^2:5\d true$/.test(c.first) && c.middle === still.middle && c.last === still.last;
    });
  }
  assert.doesNotMatch(await t.first.page.getByTestId('turn').textContent(), /first move/);
  noErrors(t.all);
  await closeAll(t.all);
});

test('screenshots: the clocks waiting for the first move, and a table of friends waiting again after an abort', async () => {
  for (const lang of ['en', 'ja', 'ru', 'zh', 'ko']) {
    const t = await table({ clock: FISCHER }, { first: { viewport: DESKTOP, lang }, middle: { viewport: PHONE, lang } });
    await t.first.page.getByTestId('chat-input').fill(lang === 'en' ? 'good luck' : 'よろしく');
    await t.first.page.getByTestId('chat-send').click();
    await until('middle has the chat', () => t.middle.page.evaluate(() => document.querySelector('[data-testid="chat-players"]')?.textContent.length > 0));
    if (lang === 'en' || lang === 'ja') {
      await new Promise((r) => setTimeout(r, 1200));
      await shot(t.first.page, { path: `${SHOTS}first-move-clocks-${lang}-desktop.png` });
      await shot(t.middle.page, { path: `${SHOTS}first-move-clocks-${lang}-phone.png` });
    }
    await playMove(t.first);
    await until('middle to move', () => t.middle.lastState()?.to_move === 'middle');
    await t.first.page.getByTestId('abort').click();
    await t.first.page.getByTestId('abort-confirm').click();
    for (const p of t.all) {
      await until(`${p.label}: waiting again`, () => p.lastState()?.status === 'waiting');
      await p.page.getByTestId('ready').waitFor();
    }
    await shot(t.first.page, { path: `${SHOTS}aborted-table-${lang}-desktop.png` });
    await shot(t.middle.page, { path: `${SHOTS}aborted-table-${lang}-phone.png` });
    noErrors(t.all);
    await closeAll(t.all);
  }
});
