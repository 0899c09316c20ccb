// Computer players against the real server (issue 6): bots chosen in the lobby's
// "create room" form, bots added to and removed from a waiting room by clicking, the
// bot seats marked, and a bot answering the human's move. Screenshots go to
// e2e/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { launch } from '../lib/browser.mjs';
import { startServer } from '../lib/sannin.mjs';
import { person as newPerson, until } from '../lib/people.mjs';

const SHOTS = new URL('../screenshots/', import.meta.url).pathname;
let browser;
let server;

before(async () => {
  await mkdir(SHOTS, { recursive: true });
  server = await startServer();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const person = (label) => newPerson(browser, label);

/** Plays a pawn push from the legal list of the page's connection, by clicking. */
async function pushPawn(p) {
  const s = await until(`${p.label} to move`, () => {
    const s = p.lastState();
    return s && s.to_move === s.you && s.legal.length ? s : null;
  });
  const action = s.legal.find((a) => /^P\d+[a-m]-\d+[a-m]$/.test(a));
  const [, from, to] = /^P(\d+[a-m])-(\d+[a-m])$/.exec(action);
  await p.page.locator(`[data-cell="${from}"]`).click();
  await p.page.waitForSelector(`[data-cell="${to}"][data-target]`);
  await p.page.locator(`[data-cell="${to}"]`).click();
  return action;
}

async function sit(p, seat, name) {
  await p.page.getByTestId('room-name').fill(name);
  await p.page.getByTestId(`sit-${seat}`).click();
  await until(`${p.label} seated`, () => p.lastState()?.you === seat);
}

test('bots chosen when creating a room play against the human', async () => {
  const host = await person('host');
  await host.page.goto(`${server.url}/`);
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
  assert.equal(s.seats.middle.name, 'Bot (level 1)');
  assert.equal(s.bot_takeover, true);
  await host.page.getByTestId('bot-middle').waitFor();
  await host.page.getByTestId('bot-last').waitFor();
  await sit(host, 'first', 'Akira');
  await host.page.getByTestId('ready').click();
  await until('playing', () => host.lastState()?.status === 'playing');
  await pushPawn(host);
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
  const res = await fetch(`${server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const { id } = await res.json();
  const ann = await person('ann');
  await ann.page.goto(`${server.url}/rooms/${id}`);
  await sit(ann, 'first', 'Ann');
  await ann.page.getByTestId('bot-controls').waitFor();
  await ann.page.screenshot({ path: `${SHOTS}real-bots-add.png` });
  // Add a level-0 bot as Middle, then take it away again.
  await ann.page.getByTestId('bot-level-middle').selectOption('0');
  await ann.page.getByTestId('add-bot-middle').click();
  await ann.page.getByTestId('bot-middle').waitFor();
  assert.match(await ann.page.getByTestId('seat-middle').textContent(), /Bot \(level 0\)/);
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
  const played = await pushPawn(ann);
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
