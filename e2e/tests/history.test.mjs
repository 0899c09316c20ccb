// Finished games against the real server: a guest's game played to its end (two
// resignations) under Finished games in My games, with the result for each of its
// players, the players with the reader's seat marked, rated or casual, the moves, when
// it ended and a replay link that opens the finished room; a page with none says so;
// a registered player's profile lists its casual games, newest first, with More
// loading the next page. Screenshots (desktop and phone; English, Japanese, Russian) go
// to HISTORY_SHOTS (or /tmp/shots-history/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { joinRoom, personIn, playMove, resign, until } from '../lib/people.mjs';
import { BROWSER_LOCALES, DESKTOP, PHONE, axe, englishLeft, shot } from '../lib/site.mjs';
import { chooseLang } from '../lib/site.mjs';

const SHOTS = process.env.HISTORY_SHOTS ?? '/tmp/shots-history/';
// Every context shares one address: My games is asked on every page load, and the
// profile's test makes a room every few hundred milliseconds.
const live = serverAndBrowser({ shots: SHOTS, serverArgs: ['--my-games-per-minute', '0', '--rooms-per-minute', '0'] });

async function person(label, { viewport = { width: 1200, height: 950 }, lang = 'en' } = {}) {
  const context = await live.browser.newContext({ viewport, locale: BROWSER_LOCALES[lang], reducedMotion: 'reduce' });
  return personIn(context, label);
}

async function createRoom(body = {}) {
  const res = await fetch(`${live.server.url}/api/rooms`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  assert.equal(res.status, 201);
  return (await res.json()).id;
}

/** Plays room `id` through on `page`'s own WebSockets (its cookies: its account):
 * each of `seats` (`{ seat, name, resign }`) joins, its seat's token kept as the room
 * page keeps it, and says ready; once the game runs, those with `resign` resign;
 * resolves when the game is over. */
function playThrough(page, id, seats) {
  return page.evaluate(async ({ id, seats }) => {
    const { saveToken } = await import('/js/protocol.js');
    return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`room ${id}: not over in time`)), 20000);
    let left = seats.length;
    for (const { seat, name, resign } of seats) {
      const ws = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/api/rooms/${id}/ws`);
      let started = false;
      let over = false;
      ws.onopen = () => ws.send(JSON.stringify({ type: 'join', seat, name }));
      ws.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.type === 'seated') {
          saveToken(id, m.token);
          ws.send(JSON.stringify({ type: 'ready' }));
        }
        if (m.type === 'error' && !over) { clearTimeout(timer); reject(new Error(`${seat}: ${e.data}`)); }
        if (m.type !== 'state') return;
        if (m.status === 'playing' && !started) {
          started = true;
          if (resign) ws.send(JSON.stringify({ type: 'resign' }));
        }
        if (m.status === 'finished' && !over) {
          over = true;
          ws.close();
          if (--left === 0) { clearTimeout(timer); resolve(); }
        }
      };
    }
    });
  }, { id, seats });
}

test('a guest\'s finished game in My games: its result for each player, the players, and the replay', async () => {
  // Nothing finished yet: the section says what it will hold.
  const newcomer = await person('newcomer');
  await newcomer.page.goto(`${live.server.url}/games`);
  await newcomer.page.getByTestId('games-finished').getByTestId('history-empty').waitFor();
  assert.match(await newcomer.page.getByTestId('history-empty').textContent(), /No finished games yet/);

  const id = await createRoom();
  const names = ['Ann', 'Bob', 'Cid'];
  const seats = ['first', 'middle', 'last'];
  const people = [];
  for (const [i, name] of names.entries()) {
    const p = await person(name);
    await joinRoom(p, live.server, id, name, seats[i]);
    people.push(p);
  }
  const [ann, bob, cid] = people;
  for (const p of people) await p.page.getByTestId('ready').click();
  await until('the game started', () => people.every((p) => p.lastState()?.status === 'playing'));
  for (const p of people) await playMove(p);
  // First and Middle resign: Last wins.
  for (const p of [ann, bob]) await resign(p);
  await until('game over', () => cid.lastState()?.status === 'finished');

  const expected = { Ann: ['lost', 'Lost'], Bob: ['lost', 'Lost'], Cid: ['won', 'Won'] };
  for (const [i, p] of people.entries()) {
    await p.page.goto(`${live.server.url}/games`);
    const item = p.page.getByTestId('games-finished').getByTestId(`history-${id}`);
    await item.waitFor();
    assert.equal(await item.getAttribute('data-result'), expected[p.label][0]);
    assert.equal(await item.getByTestId('history-result').textContent(), expected[p.label][1]);
    // The reader's own seat is marked.
    assert.equal(await item.getByTestId('history-holder').textContent(), `${['First', 'Middle', 'Last'][i]} ${names[i]} you`);
    assert.equal(await item.locator('.history-player').allTextContents().then((t) => t.join(' | ')), 'First Ann | Middle Bob | Last Cid'.replace(names[i], `${names[i]} you`));
    const meta = await item.locator('.meta').textContent();
    assert.match(meta, /^Casual · 3 moves · /, meta);
    assert.match(await item.getByTestId('history-ended').textContent(), /^(now|\d+ minutes? ago|this minute)$/);
    // Nothing in progress: the page says so above the history.
    await p.page.getByTestId('games-empty').waitFor();
  }

  assert.deepEqual(await axe(cid.page), [], 'axe on My games with a finished game');
  await cid.page.evaluate(() => { document.documentElement.dataset.theme = 'dark'; });
  assert.deepEqual(await axe(cid.page), [], 'axe on My games with a finished game, dark');

  // The replay link opens the finished room, which shows the result.
  const replay = cid.page.getByTestId(`history-replay-${id}`);
  assert.equal(await replay.getAttribute('href'), `/rooms/${id}`);
  await replay.click();
  await cid.page.waitForURL(`${live.server.url}/rooms/${id}`);
  await cid.page.getByTestId('result').waitFor();
  assert.match(await cid.page.getByTestId('result').textContent(), /You win/);

  // In Japanese, nothing of the list is left in English.
  await ann.page.goto(`${live.server.url}/games`);
  await chooseLang(ann.page, 'ja');
  const item = ann.page.getByTestId(`history-${id}`);
  await until('the list in Japanese', async () => (await item.getByTestId('history-result').textContent()) === '負け');
  const left = await englishLeft(ann.page, names);
  assert.deepEqual(left.messages, []);
  await chooseLang(ann.page, 'en');
  for (const p of [newcomer, ...people]) await p.context.close();
});

test('a player\'s profile lists its finished games, casual ones too, newest first, a page at a time', async () => {
  const dana = await person('dana');
  await dana.page.goto(`${live.server.url}/`);
  const registered = await dana.page.evaluate(async () => (await fetch('/api/accounts', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'dana', password: 'pw-dana-e2e-Secret' }),
  })).status);
  assert.ok(registered === 200 || registered === 201, `registered: ${registered}`);
  const guests = await person('guests');
  await guests.page.goto(`${live.server.url}/`);

  // 21 casual games, one page and one more of the profile's 20: Dana wins the even
  // ones (the two guests resign), loses the odd ones (Dana and Eve resign: Fay wins).
  const rooms = [];
  for (let i = 0; i < 21; i += 1) {
    const id = await createRoom();
    const won = i % 2 === 0;
    await Promise.all([
      playThrough(dana.page, id, [{ seat: 'first', name: 'dana', resign: !won }]),
      playThrough(guests.page, id, [{ seat: 'middle', name: 'Eve', resign: true }, { seat: 'last', name: 'Fay', resign: won }]),
    ]);
    rooms.push({ id, won });
  }
  // A private room is no one else's business: not listed.
  const hidden = await createRoom({ private: true });
  await Promise.all([
    playThrough(dana.page, hidden, [{ seat: 'first', name: 'dana', resign: false }]),
    playThrough(guests.page, hidden, [{ seat: 'middle', name: 'Eve', resign: true }, { seat: 'last', name: 'Fay', resign: true }]),
  ]);

  const visitor = await person('visitor');
  await visitor.page.goto(`${live.server.url}/players/dana`);
  const list = visitor.page.getByTestId('profile-finished');
  await list.getByTestId('history-list').waitFor();
  const shown = () => list.locator('.history-item').evaluateAll((ns) => ns.map((n) => n.dataset.room));
  const newest = [...rooms].reverse().map((r) => r.id);
  assert.deepEqual(await shown(), newest.slice(0, 20));
  assert.equal(await list.getByTestId('history-shown').textContent(), '20 games shown');
  const top = list.getByTestId(`history-${rooms[20].id}`);
  assert.equal(await top.getByTestId('history-result').textContent(), 'Won');
  assert.equal(await list.getByTestId(`history-${rooms[19].id}`).getByTestId('history-result').textContent(), 'Lost');
  // The profile's player is set off, without "you"; its name links to its profile.
  assert.equal(await top.getByTestId('history-holder').textContent(), 'First dana');
  assert.equal(await top.getByTestId('history-holder').locator('a.profile-link').getAttribute('href'), '/players/dana');
  assert.match(await top.locator('.meta').textContent(), /^Casual · 0 moves · /);
  assert.equal(await top.getByTestId(`history-replay-${rooms[20].id}`).getAttribute('href'), `/rooms/${rooms[20].id}`);

  assert.deepEqual(await axe(visitor.page), [], 'axe on the profile with its finished games');
  await shootProfile(visitor);

  // More: the 21st, the oldest; then nothing more to ask.
  await list.getByTestId('history-more').click();
  await until('the next page', async () => (await shown()).length === 21);
  assert.deepEqual(await shown(), newest);
  assert.equal(await list.getByTestId('history-shown').textContent(), '21 games shown');
  assert.equal(await list.getByTestId('history-more').count(), 0);
  assert.equal(await list.getByTestId(`history-${hidden}`).count(), 0);

  // Dana's own My games holds the same games (the account's), the private one too.
  await dana.page.goto(`${live.server.url}/games`);
  const mine = dana.page.getByTestId('games-finished');
  await mine.getByTestId(`history-${hidden}`).waitFor();
  assert.equal(await mine.getByTestId(`history-${hidden}`).getByTestId('history-result').textContent(), 'Won');
  assert.equal(await mine.locator('.history-item').count(), 22);

  await shootGames();
  for (const p of [dana, guests, visitor]) await p.context.close();
});

/** The profile, desktop and phone, in English, Japanese and Russian. */
async function shootProfile(p) {
  for (const lang of ['en', 'ja', 'ru']) {
    await chooseLang(p.page, lang);
    await p.page.getByTestId('profile-finished').locator('.history-item').first().waitFor();
    for (const [tag, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
      await p.page.setViewportSize(viewport);
      await shot(p.page, { path: `${SHOTS}profile-${lang}-${tag}.png`, fullPage: true });
    }
  }
  await chooseLang(p.page, 'en');
  await p.page.setViewportSize({ width: 1200, height: 950 });
}

/** A guest's My games with a game in progress and finished ones, desktop and phone,
 * in English, Japanese and Russian, light and dark. */
async function shootGames() {
  const ids = [];
  for (let i = 0; i < 3; i += 1) ids.push(await createRoom());
  const guest = await person('shots');
  await guest.page.goto(`${live.server.url}/`);
  const others = await person('others');
  await others.page.goto(`${live.server.url}/`);
  for (const [i, id] of ids.entries()) {
    await Promise.all([
      playThrough(guest.page, id, [{ seat: ['first', 'middle', 'last'][i], name: 'Hiroshi Takahashi-Yamamoto', resign: i === 1 }]),
      playThrough(others.page, id, ['first', 'middle', 'last'].filter((s, j) => j !== i)
        .map((seat, j) => ({ seat, name: j ? 'Bob' : 'Анастасия', resign: i === 1 ? j === 0 : true }))),
    ]);
  }
  // And a correspondence game waiting for its players, above the history.
  const running = await createRoom({ clock: { kind: 'correspondence', seconds_per_move: 86400 } });
  await joinRoom(guest, live.server, running, 'Hiroshi Takahashi-Yamamoto', 'first');
  for (const lang of ['en', 'ja', 'ru']) {
    for (const [tag, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
      await guest.page.setViewportSize(viewport);
      await guest.page.goto(`${live.server.url}/games`);
      await chooseLang(guest.page, lang);
      await guest.page.getByTestId('games-finished').waitFor();
      await shot(guest.page, { path: `${SHOTS}games-${lang}-${tag}.png`, fullPage: true });
    }
  }
  await guest.page.evaluate(() => { document.documentElement.dataset.theme = 'dark'; });
  await shot(guest.page, { path: `${SHOTS}games-ru-phone-dark.png`, fullPage: true });
  for (const p of [guest, others]) await p.context.close();
}
