// Computer players and the voluntary alliance (docs/protocol.md §5) against the real
// server, by clicking: a bot proposed to answers by its search, in one line of the
// players' chat; in a room of one person and two bots made to ally, the bots team up
// as soon as the person sits down and the person, alone, becomes First; the lobby's
// "Play the computer" card asks for that with a box. Screenshots (desktop and phone, five
// languages) of the bots' alliance go to SHOTS_DIR or e2e/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS as DEFAULT_SHOTS, until } from '../lib/people.mjs';
import { DESKTOP, PHONE, shot, visitor } from '../lib/site.mjs';

const SHOTS = process.env.SHOTS_DIR ? `${process.env.SHOTS_DIR.replace(/\/$/, '')}/` : DEFAULT_SHOTS;
const live = serverAndBrowser({ shots: SHOTS });

async function createRoom(body) {
  const res = await fetch(`${live.server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()).id;
}

async function sit(p, id, seat, name = 'Akira') {
  await p.page.goto(`${live.server.url}/rooms/${id}`);
  await p.page.getByTestId('room-name').fill(name);
  await p.page.getByTestId(`sit-${seat}`).click();
}

const chatLines = (page) => page.$$eval('[data-testid="chat-players"] li', (ns) => ns.map((n) => n.textContent));

test('a bot proposed to answers as its search rates the alliance, in one line of chat', async () => {
  const id = await createRoom({ bots: { middle: 2, last: 1 } });
  const p = await visitor(live.browser, 'first');
  await sit(p, id, 'first');
  await until('seated', () => p.lastState()?.you === 'first');
  // Bots are offered an alliance like people; the hint says what it does to the seats.
  await p.page.getByTestId('propose-middle').waitFor();
  await p.page.getByTestId('propose-last').waitFor();
  assert.match(await p.page.locator('#seated .hint, .hint').filter({ hasText: 'alliance' }).first().textContent(), /moves first with a promoted king.*seats may change/);
  await p.page.getByTestId('propose-middle').click();
  const answer = await until('the bot answers', () => p.io.events.find((e) => e.type === 'alliance_declined' || e.type === 'alliance_agreed'));
  await until('the answer in the chat', async () => (await chatLines(p.page)).some((l) => /Bot \(Casual\)/.test(l)));
  const line = (await chatLines(p.page)).find((l) => /Bot \(Casual\)/.test(l));
  if (answer.type === 'alliance_declined') {
    assert.equal(answer.by, 'middle');
    assert.match(line, /No, thank you: I rate my chances better on my own\./);
    // Declined: the offer stands for another try.
    await p.page.getByTestId('propose-last').waitFor();
  } else {
    assert.match(line, /Agreed: the two of us against the third\./);
  }
  assert.deepEqual(p.io.errors, []);
  await p.context.close();
});

test('two bots made to ally team up as the person sits down: the person plays alone, first', async () => {
  const id = await createRoom({ bots: { first: 1, last: 2 }, bots_ally: 'always' });
  const p = await visitor(live.browser, 'middle');
  await sit(p, id, 'middle');
  await until('the alliance agreed', () => p.io.events.some((e) => e.type === 'alliance_agreed'));
  await until('moved to First', () => p.lastState()?.you === 'first' && p.lastState()?.alliance?.agreed);
  const s = p.lastState();
  assert.equal(s.seats.first.name, 'Akira');
  assert.ok(s.seats.middle.bot != null && s.seats.last.bot != null);
  await until('the proposer says so', async () => (await chatLines(p.page)).some((l) => /We two are allies now/.test(l)));
  // No more alliance to propose once one is agreed.
  assert.equal(await p.page.locator('[data-testid^="propose-"]').count(), 0);
  await p.page.getByTestId('ready').click();
  await until('playing', () => p.lastState()?.status === 'playing');
  assert.equal(p.lastState().to_move, 'first');
  assert.match(p.lastState().position, /f\+K/);
  assert.deepEqual(p.io.errors, []);
  await p.context.close();
});

test('the computer card asks for bots that may ally', async () => {
  const p = await visitor(live.browser, 'lobby');
  await p.page.goto(`${live.server.url}/`);
  const box = p.page.getByTestId('computer-allies');
  assert.equal(await box.isChecked(), false);
  await box.check();
  const posted = p.page.waitForRequest((r) => r.url().endsWith('/api/rooms') && r.method() === 'POST');
  await p.page.getByTestId('play-computer').click();
  const body = JSON.parse((await posted).postData());
  assert.equal(body.bots_ally, 'sometimes');
  assert.deepEqual(Object.keys(body.bots).sort(), ['last', 'middle']);
  await p.page.waitForURL(/\/rooms\/[^/]+$/);
  await until('playing', () => p.lastState()?.status === 'playing');
  await p.context.close();
});

test('screenshots: two bots allied against a person, desktop and phone, five languages', async () => {
  for (const lang of ['en', 'ja', 'ru', 'zh', 'ko']) {
    for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
      const id = await createRoom({ bots: { first: 3, last: 2 }, bots_ally: 'always' });
      const p = await visitor(live.browser, `${lang}-${size}`, { lang, viewport });
      await sit(p, id, 'middle', lang === 'en' ? 'Akira' : '明');
      await until('allied', () => p.lastState()?.alliance?.agreed && p.lastState()?.you === 'first');
      await until('the chat line', async () => (await chatLines(p.page)).length > 0);
      await shot(p.page, { path: `${SHOTS}bot-alliance-${lang}-${size}.png`, fullPage: size === 'phone' });
      await p.context.close();
    }
  }
});
