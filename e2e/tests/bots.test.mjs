// Computer players against the real server (docs/protocol.md §16): bots chosen in the lobby's
// "create room" form, bots added to and removed from a waiting room by clicking, the
// bot seats marked, and a bot answering the human's move. Screenshots go to
// e2e/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS, person as newPerson, playMove, until } from '../lib/people.mjs';

const live = serverAndBrowser({ shots: SHOTS });
const person = (label) => newPerson(live.browser, label);

async function sit(p, seat, name) {
  await p.page.getByTestId('room-name').fill(name);
  await p.page.getByTestId(`sit-${seat}`).click();
  await until(`${p.label} seated`, () => p.lastState()?.you === seat);
}

test('bots chosen when creating a room play against the human', async () => {
  const host = await person('host');
  await host.page.goto(`${live.server.url}/`);
  await host.page.getByTestId('name').fill('Akira');
  await host.page.getByTestId('create-bot-middle').selectOption('1');
  await host.page.getByTestId('create-bot-last').selectOption('0');
  await host.page.getByTestId('bot-takeover').check();
  await host.page.screenshot({ path: `${SHOTS}real-lobby-bots.png` });
  await host.page.getByTestId('create-room').click();
  await host.page.waitForURL(/\/rooms\/[^/]+$/);
  await until('bot seats', () => host.lastState()?.seats?.last?.bot === 0);
  const s = host.lastState();
  assert.equal(s.seats.middle.bot, 1);
  assert.equal(s.seats.middle.name, 'Bot (Beginner)');
  assert.equal(s.bot_takeover, true);
  await host.page.getByTestId('bot-middle').waitFor();
  await host.page.getByTestId('bot-last').waitFor();
  // The lobby seats the room's creator in the first free seat.
  await until('the creator seated as First', () => host.lastState()?.you === 'first');
  await host.page.getByTestId('ready').click();
  await until('playing', () => host.lastState()?.status === 'playing');
  await playMove(host);
  // Both bots answer; First is to move again.
  await until('the bots moved', () => {
    const st = host.lastState();
    return st.moves.length >= 3 && st.to_move === 'first';
  });
  assert.deepEqual(host.lastState().move_players.slice(0, 3), ['first', 'middle', 'last']);
  await host.page.screenshot({ path: `${SHOTS}real-bots-playing.png` });
  assert.deepEqual(host.io.errors, []);
  await host.context.close();
});

test('a bot added from the waiting room, removed, added again, and seen moving', async () => {
  const res = await fetch(`${live.server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const { id } = await res.json();
  const ann = await person('ann');
  await ann.page.goto(`${live.server.url}/rooms/${id}`);
  await sit(ann, 'first', 'Ann');
  await ann.page.getByTestId('bot-controls').waitFor();
  await ann.page.screenshot({ path: `${SHOTS}real-bots-add.png` });
  // Add a level-0 bot as Middle, then take it away again.
  await ann.page.getByTestId('bot-level-middle').selectOption('0');
  await ann.page.getByTestId('add-bot-middle').click();
  await ann.page.getByTestId('bot-middle').waitFor();
  // The card names the bot by its badge, in the reader's language (not the server's
  // English "Bot (Random moves)").
  assert.match(await ann.page.getByTestId('seat-middle').textContent(), /bot · random moves/);
  assert.doesNotMatch(await ann.page.getByTestId('seat-middle').textContent(), /Bot \(Random moves\)/);
  await ann.page.getByTestId('remove-bot-middle').click();
  await ann.page.getByTestId('bot-middle').waitFor({ state: 'detached' });
  await ann.page.getByTestId('add-bot-middle').waitFor();
  // Two bots, one of each level; the human readies and the game starts.
  await ann.page.getByTestId('bot-level-middle').selectOption('1');
  await ann.page.getByTestId('add-bot-middle').click();
  await ann.page.getByTestId('bot-middle').waitFor();
  await ann.page.getByTestId('add-bot-last').click();
  await ann.page.getByTestId('bot-last').waitFor();
  await ann.page.getByTestId('seats').screenshot({ path: `${SHOTS}real-bots-waiting.png` });
  await ann.page.getByTestId('ready').click();
  await until('playing', () => ann.lastState()?.status === 'playing');
  const { action: played } = await playMove(ann);
  await until('the bots moved', () => {
    const st = ann.lastState();
    return st.moves.length >= 3 && st.to_move === 'first';
  });
  const st = ann.lastState();
  assert.equal(st.seats.middle.bot, 1);
  assert.equal(st.seats.last.bot, 2, 'the default level of the picker is 2');
  assert.equal(st.moves[0], played);
  // The bots' moves are on the board: the last one is highlighted like any move.
  await ann.page.locator('[data-cell].last').first().waitFor();
  assert.deepEqual(ann.io.errors, []);
  await ann.context.close();
});
