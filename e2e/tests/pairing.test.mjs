// Quick pairing against the real server: three people pressing the same pool tile sit
// at one game that starts by itself; "Play now" alone gets computer players after the
// chosen wait; Cancel empties the pool in another lobby, live; a reload keeps the place
// in the queue, and so do the site's other pages; the lobby's open tables follow the
// live feed; a table given up because a player never came sends the others back to the
// queue with their tickets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS, person as newPerson, playMove, until } from '../lib/people.mjs';

// Seats left before the start are freed after a second (the open tables' test).
const live = serverAndBrowser({ shots: SHOTS, serverArgs: ['--waiting-grace-seconds', '1'] });

/** A person whose lobby waits `bots` seconds for computer players ('never': none). */
async function person(label, { bots = 'never' } = {}) {
  const p = await newPerson(live.browser, label);
  await p.context.addInitScript((b) => {
    if (!sessionStorage.getItem('test.bots')) {
      localStorage.setItem('sannin.pairing.bots', JSON.stringify(b));
      sessionStorage.setItem('test.bots', '1');
    }
  }, bots);
  // Every request to the pairing API and the room lists, in order.
  p.asked = [];
  p.page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/pairing') || url.pathname === '/api/rooms') p.asked.push(`${r.method()} ${url.pathname}${url.search}`);
  });
  return p;
}

async function lobby(p, name) {
  await p.page.goto(`${live.server.url}/`);
  if (name) await p.page.getByTestId('name').fill(name);
  await p.page.getByTestId('play-now').waitFor();
}

const stored = (p, key) => p.page.evaluate((k) => JSON.parse(localStorage.getItem(k) ?? 'null'), key);
const roomOf = (p) => /\/rooms\/([^/?#]+)$/.exec(p.page.url())?.[1] ?? null;
const clockOf = async (id) => (await (await fetch(`${live.server.url}/api/rooms/${id}`)).json()).clock;
const countText = (p, pool) => p.page.getByTestId(`pool-${pool}`).locator('.pool-count').textContent();

/** Plays the first round: each player's first move (a table of pairing is given up
 * when a player makes none in time). */
async function firstRound(people) {
  for (let ply = 0; ply < 3; ply += 1) {
    const seat = await until('someone to move', () => people[0].lastState()?.to_move);
    const mover = people.find((p) => p.lastState()?.you === seat);
    await playMove(mover);
    await until(`ply ${ply + 1} seen`, () => people.every((p) => (p.lastState()?.moves?.length ?? 0) > ply));
  }
}

test('three people press the same pool tile and sit at one game that starts by itself', async () => {
  const people = [await person('ann'), await person('bob'), await person('cid')];
  const names = ['Ann', 'Bob', 'Cid'];
  for (const [i, p] of people.entries()) await lobby(p, names[i]);
  const [ann, bob] = people;
  await ann.page.getByTestId('pool-5+3/casual').click();
  await ann.page.getByTestId('waiting-title').filter({ hasText: 'Looking for two opponents…' }).waitFor();
  assert.match(await ann.page.getByTestId('waiting-pool').textContent(), /5\+3 · Casual · 1 waiting, you included/);
  assert.equal(await ann.page.getByTestId('waiting-bots').isHidden(), true, 'no computer players were asked for');
  assert.match(await ann.page.title(), /^\(0:0\d\) Looking for opponents – Sannin$/);
  // The others' tiles count Ann, live.
  await until('Bob sees Ann waiting', async () => (await countText(bob, '5+3/casual')) === '1 waiting');
  await bob.page.getByTestId('pool-5+3/casual').click();
  await ann.page.getByTestId('waiting-title').filter({ hasText: 'Looking for one more opponent…' }).waitFor();
  await people[2].page.getByTestId('pool-5+3/casual').click();
  for (const p of people) await p.page.waitForURL(/\/rooms\/[^/]+$/);
  const room = roomOf(ann);
  assert.ok(people.every((p) => roomOf(p) === room), 'one room for the three');
  for (const p of people) await until(`${p.label} sees the game running`, () => p.lastState()?.status === 'playing');
  const seats = people.map((p) => p.lastState().you);
  assert.deepEqual([...seats].sort(), ['first', 'last', 'middle']);
  const s = ann.lastState();
  assert.equal(s.paired, true);
  assert.deepEqual(await clockOf(room), { kind: 'fischer', main_ms: 300000, increment_ms: 3000, byoyomi_ms: 0, periods: 0 });
  for (const p of people) {
    assert.ok(p.io.sent.some((m) => m.type === 'resume'), `${p.label} resumed the seat of its ticket`);
    assert.ok(!p.io.sent.some((m) => m.type === 'join' || m.type === 'ready'), `${p.label} neither joined nor said ready`);
    // The seat token came from the ticket; the wait is over.
    assert.equal(await stored(p, 'sannin.pairing'), null);
    assert.equal((await stored(p, 'sannin.pairing.table')).room, room);
  }
  assert.deepEqual(people.map((p) => s.seats[p.lastState().you].name), names);
  // The one to move is told of the first-move deadline.
  const mover = people.find((p) => p.lastState().you === s.to_move);
  await mover.page.getByTestId('turn').filter({ hasText: /first move within (30|29|28) s/ }).waitFor();
  await mover.page.screenshot({ path: `${SHOTS}real-pairing-found.png` });
  await firstRound(people);
  for (const p of people) assert.deepEqual(p.io.errors, []);
  for (const p of people) await p.context.close();
});

test('Play now alone: computer players fill the table after the chosen wait', async () => {
  const ann = await person('solo', { bots: 2 });
  await lobby(ann, 'Solo');
  // The stored wait is offered in the choice (the test's 2 s), and shown on the panel.
  assert.equal(await ann.page.getByTestId('bots-after').inputValue(), '2');
  assert.match(await ann.page.getByTestId('play-now-pool').textContent(), /^10\+5 · Casual/);
  await ann.page.getByTestId('play-now').click();
  await ann.page.getByTestId('waiting-bots').filter({ hasText: 'Computer players join at 0:02' }).waitFor();
  await ann.page.waitForURL(/\/rooms\/[^/]+$/, { timeout: 15000 });
  await until('playing', () => ann.lastState()?.status === 'playing');
  const s = ann.lastState();
  const bots = Object.values(s.seats).filter((x) => x.bot !== null && x.bot !== undefined);
  assert.equal(bots.length, 2, 'two computer players');
  assert.equal(s.seats[s.you].name, 'Solo');
  assert.equal((await clockOf(roomOf(ann))).main_ms, 600000);
  const posts = ann.asked.filter((a) => a.startsWith('POST'));
  assert.deepEqual(posts, ['POST /api/pairing']);
  // The choice is remembered: a new choice is kept for next time.
  await ann.page.goto(`${live.server.url}/`);
  await ann.page.getByTestId('bots-after').selectOption('60');
  await ann.page.reload();
  assert.equal(await ann.page.getByTestId('bots-after').inputValue(), '60');
  assert.deepEqual(ann.io.errors, []);
  await ann.context.close();
});

test('Cancel leaves the queue: the pool is empty again in another lobby, live', async () => {
  const ann = await person('canceller');
  const bob = await person('watcher');
  await lobby(ann, 'Ann');
  await lobby(bob);
  await until('Bob sees the counts', async () => (await countText(bob, '15+10/casual')) === '0 waiting');
  await ann.page.getByTestId('pool-15+10/casual').click();
  await ann.page.getByTestId('cancel-pairing').waitFor();
  await until('Bob sees one waiting', async () => (await countText(bob, '15+10/casual')) === '1 waiting');
  const { ticket } = await stored(ann, 'sannin.pairing');
  await ann.page.getByTestId('cancel-pairing').click();
  await ann.page.getByTestId('play-now').waitFor();
  await until('Bob sees nobody waiting', async () => (await countText(bob, '15+10/casual')) === '0 waiting');
  assert.equal(await stored(ann, 'sannin.pairing'), null);
  assert.equal(await ann.page.title(), 'Sannin shogi — play three-player shogi');
  assert.ok(ann.asked.includes(`DELETE /api/pairing/${ticket}`));
  const res = await fetch(`${live.server.url}/api/pairing/${ticket}`);
  assert.equal(res.status, 404, 'the ticket is gone');
  // Bob's lobby followed the live feed: it never polled the room list.
  assert.deepEqual(bob.asked.filter((a) => a === 'GET /api/rooms'), []);
  assert.deepEqual([...ann.io.errors, ...bob.io.errors], []);
  await ann.context.close();
  await bob.context.close();
});

test('rated tiles: a guest is asked to log in; an account waits, with no computer players', async () => {
  const kim = await person('rated');
  await lobby(kim);
  const tile = kim.page.getByTestId('pool-10+5/rated');
  assert.match(await tile.textContent(), /10\+5\s*Rated.*Log in to play rated/);
  assert.equal(await tile.getAttribute('href'), '/account?next=/');
  const res = await kim.page.evaluate(async () => (await fetch('/api/accounts', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'kimiko', password: 'correct horse' }),
  })).status);
  assert.equal(res, 201);
  await kim.page.reload();
  await kim.page.locator('button[data-testid="pool-10+5/rated"]').click();
  await kim.page.getByTestId('waiting-pool').filter({ hasText: '10+5 · Rated · 1 waiting' }).waitFor();
  assert.equal(await kim.page.getByTestId('waiting-bots').isHidden(), true);
  await kim.page.getByTestId('cancel-pairing').click();
  await kim.page.getByTestId('play-now').waitFor();
  assert.deepEqual(kim.io.errors, []);
  await kim.context.close();
});

test('a reload while waiting keeps the place; the table found reaches the reloaded page', async () => {
  // Ann accepts computer players after a while, Bob too: once Ann's wait is over the two
  // sit down together with one computer player.
  const ann = await person('reloader', { bots: 6 });
  const bob = await person('second', { bots: 60 });
  await lobby(ann, 'Ann');
  await lobby(bob, 'Bob');
  await ann.page.getByTestId('pool-10|30/casual').click();
  await ann.page.getByTestId('cancel-pairing').waitFor();
  const before = await stored(ann, 'sannin.pairing');
  await ann.page.reload();
  await ann.page.getByTestId('waiting-title').waitFor();
  assert.deepEqual(await stored(ann, 'sannin.pairing'), before, 'the same ticket, pool and start');
  assert.match(await ann.page.getByTestId('waiting-pool').textContent(), /10\|30 · Casual/);
  assert.equal(ann.asked.filter((a) => a === 'POST /api/pairing').length, 1, 'no second ticket');
  await bob.page.getByTestId('pool-10|30/casual').click();
  await ann.page.waitForURL(/\/rooms\/[^/]+$/, { timeout: 20000 });
  await bob.page.waitForURL(/\/rooms\/[^/]+$/);
  assert.equal(roomOf(ann), roomOf(bob));
  await until('Ann playing', () => ann.lastState()?.status === 'playing');
  const s = ann.lastState();
  assert.equal((await clockOf(roomOf(ann))).kind, 'byoyomi');
  assert.equal(Object.values(s.seats).filter((x) => x.bot !== null && x.bot !== undefined).length, 1);
  assert.equal((await stored(ann, 'sannin.pairing.table')).ticket, before.ticket);
  assert.deepEqual([...ann.io.errors, ...bob.io.errors], []);
  await ann.context.close();
  await bob.context.close();
});

test('the wait goes on on other pages, and the table found is reached from there', async () => {
  const ann = await person('wanderer', { bots: 3 });
  await lobby(ann, 'Ann');
  await ann.page.getByTestId('pool-15+10/casual').click();
  await ann.page.getByTestId('cancel-pairing').waitFor();
  await ann.page.getByTestId('rules-link').click();
  await ann.page.waitForURL(/\/rules$/);
  const bar = ann.page.getByTestId('wait-bar');
  await bar.filter({ hasText: 'Looking for opponents · 15+10 · Casual' }).waitFor();
  await ann.page.waitForURL(/\/rooms\/[^/]+$/, { timeout: 15000 });
  await until('playing', () => ann.lastState()?.status === 'playing');
  assert.equal(ann.lastState().paired, true);
  assert.deepEqual(ann.io.errors, []);
  await ann.context.close();
});

test('the open tables follow the live feed: a new table appears, and goes when its player leaves', async () => {
  const ann = await person('reader');
  const bea = await person('host');
  await lobby(ann);
  await ann.page.getByTestId('list-waiting').filter({ hasText: 'No one is waiting' }).waitFor();
  assert.equal(await ann.page.getByTestId('refresh').count(), 0, 'no Refresh button');
  await lobby(bea, 'Bea');
  await bea.page.getByTestId('create-room').click();
  await bea.page.waitForURL(/\/rooms\/[^/]+$/);
  const id = roomOf(bea);
  await until('Bea seated', () => bea.lastState()?.you);
  const card = ann.page.getByTestId('rooms-waiting').locator(`[data-room="${id}"]`);
  await card.filter({ hasText: 'Bea' }).waitFor();
  // A second player sits down from Ann's lobby; the card follows.
  await ann.page.getByTestId('name').fill('Ann');
  const cid = await person('cid');
  await cid.page.goto(`${live.server.url}/rooms/${id}`);
  await cid.page.getByTestId('room-name').fill('Cid');
  await cid.page.getByTestId('sit-any').click();
  await card.filter({ hasText: 'Cid' }).waitFor();
  // Bea and Cid leave before the start: their seats are freed after the grace, and the
  // table, with nobody left at it, leaves the list.
  await bea.context.close();
  await cid.context.close();
  await until('the table gone from the list', async () => (await card.count()) === 0, 15000);
  await ann.page.getByTestId('list-waiting').filter({ hasText: 'No one is waiting' }).waitFor();
  assert.deepEqual(ann.asked.filter((a) => a === 'GET /api/rooms'), [], 'no polling');
  assert.deepEqual(ann.io.errors, []);
  await ann.context.close();
});

test('a table given up because a player never came sends the others back to the front of the queue', async () => {
  const ann = await person('ann2');
  const bob = await person('bob2');
  await lobby(ann, 'Ann');
  await lobby(bob, 'Bob');
  await ann.page.getByTestId('pool-3+2/casual').click();
  await bob.page.getByTestId('pool-3+2/casual').click();
  await until('two waiting', async () => (await countText(ann, '3+2/casual')) === '2 waiting' || roomOf(ann));
  const tickets = [(await stored(ann, 'sannin.pairing')).ticket, (await stored(bob, 'sannin.pairing')).ticket];
  // A third ticket whose holder never connects.
  const res = await fetch(`${live.server.url}/api/pairing`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clock: { kind: 'fischer', main_seconds: 180, increment_seconds: 2 }, name: 'Ghost' }),
  });
  assert.equal(res.status, 201);
  const ghost = (await res.json()).ticket;
  await ann.page.waitForURL(/\/rooms\/[^/]+$/);
  await bob.page.waitForURL(/\/rooms\/[^/]+$/);
  const room = roomOf(ann);
  assert.equal(roomOf(bob), room);
  const ghostSeat = (await (await fetch(`${live.server.url}/api/pairing/${ghost}`)).json()).seat;
  await ann.page.getByTestId('paired-note').waitFor();
  await ann.page.getByTestId(`countdown-${ghostSeat}`).filter({ hasText: 'not here yet' }).waitFor();
  // The ghost's 20 s to connect run out.
  for (const p of [ann, bob]) {
    await p.page.getByTestId('table-aborted').waitFor({ timeout: 30000 });
    const text = await p.page.getByTestId('aborted-text').textContent();
    assert.match(text, /Ghost \((First|Middle|Last)\) did not connect in time: the table was given up\. You are back at the front of the queue\./);
  }
  assert.ok(ann.io.events.some((e) => e.type === 'table_aborted' && e.seat === ghostSeat && e.reason === 'not_connected'));
  await ann.page.screenshot({ path: `${SHOTS}real-pairing-aborted.png` });
  // Back in the lobby, waiting again with the same tickets.
  for (const [i, p] of [ann, bob].entries()) {
    await p.page.waitForURL(`${live.server.url}/`);
    await p.page.getByTestId('requeued').filter({ hasText: 'did not connect in time' }).waitFor();
    await p.page.getByTestId('cancel-pairing').waitFor();
    assert.equal((await stored(p, 'sannin.pairing')).ticket, tickets[i]);
    assert.equal(p.asked.filter((a) => a === 'POST /api/pairing').length, 1, 'no new ticket');
  }
  const status = await (await fetch(`${live.server.url}/api/pairing/${tickets[0]}`)).json();
  assert.equal(status.status, 'waiting');
  assert.equal((await fetch(`${live.server.url}/api/pairing/${ghost}`)).status, 404, "the no-show's ticket is gone");
  await ann.page.screenshot({ path: `${SHOTS}real-pairing-requeued.png` });
  // Neither page went round the reconnect loop on the closed socket.
  for (const p of [ann, bob]) {
    const sockets = p.io.sent.filter((m) => m.type === 'resume').length;
    assert.equal(sockets, 1, `${p.label} resumed once`);
    await p.page.getByTestId('cancel-pairing').click();
    await p.page.getByTestId('play-now').waitFor();
  }
  assert.deepEqual([...ann.io.errors, ...bob.io.errors], []);
  await ann.context.close();
  await bob.context.close();
});
