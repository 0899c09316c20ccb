// Playing online against the real server (docs/protocol.md §11–§15): clocks on the page (visible,
// ticking, the running one highlighted, low time marked), draw offers by button,
// rematch with rotated seats, private rooms from the lobby, and the two chats
// (players never see the spectators' chat). Screenshots go to e2e/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS, person as newPerson, joinRoom, playMove, until } from '../lib/people.mjs';

const live = serverAndBrowser({ shots: SHOTS });
const person = (label) => newPerson(live.browser, label);

async function createRoom(body) {
  const res = await fetch(`${live.server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()).id;
}

/** Seats three players (or, given the creator already seated as First, the other two) and
 * starts the game. */
async function table(roomId, creator) {
  const seats = ['first', 'middle', 'last'];
  const people = [creator ?? await person('first'), await person('middle'), await person('last')];
  for (const [i, p] of people.entries()) {
    if (p !== creator) await joinRoom(p, live.server, roomId, ['Akira', 'Beni', 'Chiyo'][i], seats[i]);
  }
  for (const p of people) await p.page.getByTestId('ready').click();
  for (const p of people) await until(`${p.label} playing`, () => p.lastState()?.status === 'playing');
  return people;
}

const clockOf = (page, seat) => page.getByTestId(`clock-${seat}`);

test('clocks tick for the player to move; draw buttons; rematch rotates the seats', async () => {
  // A private Fischer room made from the lobby.
  // The creator is seated as First by the lobby; the other two join by the link.
  const host = await person('first');
  await host.page.goto(`${live.server.url}/`);
  await host.page.getByTestId('name').fill('Akira');
  await host.page.getByTestId('clock-kind').selectOption('fischer');
  await host.page.getByTestId('clock-main').fill('5');
  await host.page.getByTestId('clock-increment').fill('3');
  await host.page.getByTestId('private-room').check();
  await host.page.screenshot({ path: `${SHOTS}real-lobby-options.png` });
  await host.page.getByTestId('create-room').click();
  await host.page.waitForURL(/\/rooms\/[^/]+$/);
  const roomId = decodeURIComponent(new URL(host.page.url()).pathname.split('/').pop());
  await until('the creator seated as First', () => host.lastState()?.you === 'first');
  const listed = await (await fetch(`${live.server.url}/api/rooms`)).json();
  assert.ok(!listed.some((r) => r.id === roomId), 'a private room is not listed');

  const people = await table(roomId, host);
  const [first, middle, last] = people;
  for (const p of people) {
    for (const seat of ['first', 'middle', 'last']) await clockOf(p.page, seat).waitFor();
  }
  // No clock runs on anyone's first move (§12.10); from First's second turn, First's
  // clock runs (highlighted) and ticks, and the others stand at 5:00.
  assert.equal(await clockOf(middle.page, 'first').getAttribute('data-running'), 'false');
  for (const p of people) await playMove(p);
  await until('first clock running', async () => (await clockOf(middle.page, 'first').getAttribute('data-running')) === 'true');
  assert.equal(await clockOf(middle.page, 'middle').getAttribute('data-running'), 'false');
  assert.equal(await clockOf(middle.page, 'middle').textContent(), '5:00');
  assert.match(await middle.page.getByTestId('clock-info').textContent(), /5 min \+ 3 s/);
  const t0 = Number(await clockOf(middle.page, 'first').getAttribute('data-ms'));
  const since = Date.now();
  const t1 = await until('the running clock ticks a second down', async () => {
    const ms = Number(await clockOf(middle.page, 'first').getAttribute('data-ms'));
    return t0 - ms >= 1000 ? ms : null;
  });
  const waited = Date.now() - since;
  // No faster than time passes (t0 may have been painted up to a tick, 100 ms, early).
  assert.ok(t0 - t1 < waited + 500, `the running clock ticks at the pace of time (${t0} → ${t1} in ${waited} ms)`);
  assert.match(await clockOf(middle.page, 'first').evaluate((n) => getComputedStyle(n).backgroundColor), /rgb\(36, 97, 201\)/, 'running clock in First\'s colour');
  await middle.page.screenshot({ path: `${SHOTS}real-clocks-middle.png` });

  await playMove(first);
  await until('middle clock running', async () => (await clockOf(last.page, 'middle').getAttribute('data-running')) === 'true');
  assert.equal(await clockOf(last.page, 'first').getAttribute('data-running'), 'false');
  // 5:00 − a second or two on First's second move + 3 s increment.
  const firstMs = Number(await clockOf(last.page, 'first').getAttribute('data-ms'));
  assert.ok(firstMs > 300000 && firstMs <= 303000, `increment added (${firstMs})`);

  // Draw: offered and declined, offered and withdrawn, then agreed by all three.
  await first.page.getByTestId('offer-draw').click();
  await middle.page.getByTestId('decline-draw').click();
  await first.page.getByTestId('offer-draw').waitFor();
  await first.page.getByTestId('offer-draw').click();
  await first.page.getByTestId('withdraw-draw').click();
  await middle.page.getByTestId('offer-draw').waitFor();
  await last.page.getByTestId('offer-draw').click();
  await first.page.getByTestId('accept-draw').click();
  await middle.page.getByTestId('accept-draw').click();
  for (const p of people) {
    await p.page.getByTestId('result').waitFor();
    assert.match(await p.page.getByTestId('result').textContent(), /draw/);
  }
  // The clocks stop at the end.
  assert.equal(await clockOf(first.page, 'middle').getAttribute('data-running'), 'false');

  // Rematch: one click each; everyone follows to the new room, one seat on.
  await first.page.getByTestId('rematch').click();
  await middle.page.getByTestId('rematch-waiting').waitFor({ state: 'detached' }).catch(() => {});
  await first.page.getByTestId('rematch-waiting').waitFor();
  await first.page.screenshot({ path: `${SHOTS}real-rematch-asked.png` });
  await middle.page.getByTestId('rematch').click();
  await last.page.getByTestId('rematch').click();
  for (const p of people) await p.page.waitForURL((u) => !u.pathname.endsWith(roomId) && u.pathname.startsWith('/rooms/'));
  const expected = { first: 'middle', middle: 'last', last: 'first' };
  for (const p of people) {
    await until(`${p.label} in the rematch`, () => p.lastState()?.room !== roomId && p.lastState()?.you === expected[p.label]);
  }
  for (const p of people) await until(`${p.label}: rematch started`, () => p.lastState()?.status === 'playing');
  // Last (now First) is to move, with a fresh Fischer clock that waits for its first move.
  await until('new first clock shown', async () => (await clockOf(last.page, 'first').textContent()) === '5:00');
  assert.equal(await clockOf(last.page, 'first').getAttribute('data-running'), 'false');
  assert.equal(last.lastState().clocks.running, null);
  // A reload keeps the seat (the token carried over).
  await middle.page.reload();
  await until('middle back after reload', () => middle.lastState()?.you === 'last');
  for (const p of people) assert.deepEqual(p.io.errors, []);
  for (const p of people) await p.context.close();
});

test('a button pressed while another player moves still clicks when released', async () => {
  const id = await createRoom({});
  const people = await table(id);
  const [first, middle] = people;
  // Middle presses "offer a draw" and holds it; First moves meanwhile, which redraws
  // Middle's controls; the release must still offer the draw.
  const box = await middle.page.getByTestId('offer-draw').boundingBox();
  await middle.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await middle.page.mouse.down();
  const moved = middle.io.events.length;
  await playMove(first);
  await until('middle sees the move', () => middle.io.events.slice(moved).some((e) => e.type === 'action'));
  await middle.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await middle.page.mouse.up();
  await until('the draw offered', () => middle.io.sent.some((m) => m.type === 'offer_draw'));
  await middle.page.getByTestId('withdraw-draw').waitFor();
  // The same for a pre-game button: the ready button pressed while another seat gets ready.
  const room2 = await createRoom({});
  const [a, b, c] = [await person('first'), await person('middle'), await person('last')];
  for (const [i, p] of [a, b, c].entries()) await joinRoom(p, live.server, room2, ['Akira', 'Beni', 'Chiyo'][i], ['first', 'middle', 'last'][i]);
  const ready = await b.page.getByTestId('ready').boundingBox();
  await b.page.mouse.move(ready.x + ready.width / 2, ready.y + ready.height / 2);
  await b.page.mouse.down();
  const seen = b.io.events.length;
  await a.page.getByTestId('ready').click();
  await until('b sees a ready', () => b.io.events.slice(seen).some((e) => e.type === 'player_ready'));
  await b.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await b.page.mouse.up();
  await until('b ready', () => b.io.sent.some((m) => m.type === 'ready'));
  for (const p of [...people, a, b, c]) assert.deepEqual(p.io.errors, []);
  for (const p of [...people, a, b, c]) await p.context.close();
});

test('low time is marked', async () => {
  const id = await createRoom({ clock: { kind: 'sudden_death', main_seconds: 15 } });
  const people = await table(id);
  // First's clock runs from its second turn (§12.10).
  for (const p of people) await playMove(p);
  const clock = clockOf(people[1].page, 'first');
  await until('low time shown', async () => (await clock.getAttribute('class')).includes('low'));
  assert.match(await clock.textContent(), /^\d+\.\d$|^0:1\d$/);
  await people[1].page.getByTestId('seats').screenshot({ path: `${SHOTS}real-clocks-low.png` });
  for (const p of people) await p.context.close();
});

test('chat: players talk among themselves; spectators have their own chat', async () => {
  const id = await createRoom({});
  const people = await table(id);
  const [first, middle] = people;
  const fan = await person('fan');
  const critic = await person('critic');
  for (const s of [fan, critic]) {
    await s.page.goto(`${live.server.url}/rooms/${id}`);
    await until(`${s.label} watching`, () => s.lastState());
    await s.page.getByTestId('chat').waitFor();
  }
  // Players have no tabs: one chat.
  assert.equal(await first.page.getByTestId('chat-tab-spectators').count(), 0);
  await first.page.getByTestId('chat-input').fill('good luck <b>all</b>');
  await first.page.getByTestId('chat-send').click();
  await until('middle reads it', async () => (await middle.page.getByTestId('chat-players').textContent()).includes('good luck <b>all</b>'));
  assert.equal(await middle.page.getByTestId('chat-players').locator('b').count(), 0, 'text stays text');
  // A spectator reads the players' chat in its tab, and writes in its own.
  await fan.page.getByTestId('chat-tab-players').click();
  await until('fan reads the players', async () => (await fan.page.getByTestId('chat-players').textContent()).includes('good luck'));
  assert.ok(await fan.page.locator('.chat-form').isHidden(), 'spectators cannot write in the players\' chat');
  await fan.page.getByTestId('chat-tab-spectators').click();
  await fan.page.getByTestId('chat-input').fill('First should push the rook pawn');
  await fan.page.getByTestId('chat-send').click();
  await until('critic reads the spectators', async () => (await critic.page.getByTestId('chat-spectators').textContent()).includes('rook pawn'));
  // Players never get it: Middle's next message arrives, the spectators' does not.
  await middle.page.getByTestId('chat-input').fill('thanks');
  await middle.page.getByTestId('chat-send').click();
  for (const p of people) {
    await until(`${p.label} gets thanks`, async () => (await p.page.getByTestId('chat').textContent()).includes('thanks'));
    assert.ok(!(await p.page.getByTestId('chat').textContent()).includes('rook pawn'), `${p.label} never sees spectator chat`);
  }
  await critic.page.getByTestId('chat-tab-players').click();
  await critic.page.getByTestId('chat').screenshot({ path: `${SHOTS}real-chat-spectator.png` });
  await first.page.screenshot({ path: `${SHOTS}real-chat-first.png`, fullPage: true });
  // A late spectator gets the history.
  const late = await person('late');
  await late.page.goto(`${live.server.url}/rooms/${id}`);
  await until('late history', async () => (await late.page.getByTestId('chat-spectators').textContent()).includes('rook pawn'));
  for (const p of [...people, fan, critic, late]) assert.deepEqual(p.io.errors, []);
  for (const p of [...people, fan, critic, late]) await p.context.close();
});
