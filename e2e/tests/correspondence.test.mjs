// Correspondence games, My games and notifications against the real server
// (docs/correspondence.md): a game of a day for each move played across page closes by
// three browsers, each finding its turn in /games (the header's badge, the tab's
// "(1) ") and moving there; the game page says how long the player to move has and
// counts nobody down for being away; a game found by a correspondence ticket listed in
// /games with the token that resumes its seat; the wait of a correspondence pool in the
// lobby (the page may be closed), kept across a reload and cancelled from /games; the
// service worker showing a push delivered through the DevTools protocol; the bell's
// panel (kinds saved, a browser without a push service told so, a subscription posted,
// posted again and deleted). Screenshots of what people see go to /tmp/shots/corr-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { webcrypto } from 'node:crypto';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS, joinRoom, personIn, playMove, until } from '../lib/people.mjs';
import { englishLeft } from '../lib/site.mjs';
import { chooseLang } from '../lib/site.mjs';

// My games is asked on every page load: no limit here, where every context shares one
// address.
const live = serverAndBrowser({ shots: SHOTS, serverArgs: ['--my-games-per-minute', '0'] });
const CORR_SHOTS = '/tmp/shots/';
const DAY_CLOCK = { kind: 'correspondence', seconds_per_move: 86400 };
const SEATS = ['first', 'middle', 'last'];

const DESKTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

/** A browser context; `notifications`: in the full browser, which can show them. */
async function context({ viewport = { width: 1200, height: 950 }, lang = 'en', permissions = [], notifications = false } = {}) {
  const browser = notifications ? await live.fullBrowser() : live.browser;
  const ctx = await browser.newContext({ viewport, locale: lang === 'ja' ? 'ja-JP' : 'en-GB', reducedMotion: 'reduce' });
  if (permissions.length) await ctx.grantPermissions(permissions, { origin: live.server.url });
  return ctx;
}

async function person(label, options) {
  return personIn(await context(options), label);
}

async function api(path, { method = 'GET', body } = {}) {
  const res = await fetch(`${live.server.url}${path}`, {
    method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function createRoom(body) {
  const res = await api('/api/rooms', { method: 'POST', body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

const stored = (page, key) => page.evaluate((k) => JSON.parse(localStorage.getItem(k) ?? 'null'), key);

/** Three people seated and ready in a new correspondence room of a day a move. */
async function corrGame(names = ['Ann', 'Bob', 'Cid']) {
  const id = await createRoom({ clock: DAY_CLOCK });
  const people = [];
  for (const [i, name] of names.entries()) {
    const p = await person(name);
    await joinRoom(p, live.server, id, name, SEATS[i]);
    people.push(p);
  }
  for (const p of people) await p.page.getByTestId('ready').click();
  await until('the game started', () => people.every((p) => p.lastState()?.status === 'playing'));
  return { id, people };
}

test('a correspondence game made in the lobby: days and hours on the game page; one closes its page, the others move, My games tells it its turn', async () => {
  // Ann makes the room in the lobby: a correspondence clock of a day for each move.
  const ann = await person('ann');
  await ann.page.goto(`${live.server.url}/`);
  await ann.page.getByTestId('name').fill('Ann');
  await ann.page.getByTestId('clock-kind').selectOption('correspondence');
  const days = ann.page.getByTestId('clock-days');
  assert.deepEqual(await days.locator('option').evaluateAll((os) => os.map((o) => Number(o.value))), [1, 2, 3, 5, 7, 14]);
  assert.equal(await ann.page.getByTestId('clock-main').isVisible(), false);
  await days.selectOption('1');
  await ann.page.getByTestId('create-room').click();
  await ann.page.waitForURL(/\/rooms\/[^/]+$/);
  const id = decodeURIComponent(new URL(ann.page.url()).pathname.split('/').pop());
  await until('Ann seated as First', () => ann.lastState()?.you === 'first');
  assert.deepEqual(ann.lastState().clocks.kind, 'correspondence');
  assert.equal(ann.lastState().clocks.main_ms, 86400000);
  const bob = await person('bob');
  await joinRoom(bob, live.server, id, 'Bob', 'middle');
  const cid = await person('cid');
  await joinRoom(cid, live.server, id, 'Cid', 'last');
  const people = [ann, bob, cid];
  for (const p of people) await p.page.getByTestId('ready').click();
  await until('the game started', () => people.every((p) => p.lastState()?.status === 'playing'));
  assert.equal(typeof ann.lastState().clocks.deadline_ms, 'number');

  // The game page: days and hours, not seconds; nobody counted down for being away.
  await ann.page.getByTestId('turn').filter({ hasText: /^Your move: you have (23 hours 59 minutes|1 day)\.$/ }).waitFor();
  await bob.page.getByTestId('turn').filter({ hasText: /^Ann \(First\) has (23 hours 59 minutes|1 day) to move\.$/ }).waitFor();
  assert.match(await bob.page.getByTestId('clock-first').textContent(), /^(23h 59m|1d)$/);
  assert.equal(await bob.page.getByTestId('clock-middle').textContent(), '1d');
  assert.match(await bob.page.getByTestId('clock-info').textContent(), /1 day per move/);
  // In Japanese too.
  await chooseLang(cid.page, 'ja');
  await cid.page.getByTestId('turn').filter({ hasText: /^Ann.*の手番です。残り(23時間59分|1日)。$/ }).waitFor();
  assert.match(await cid.page.getByTestId('clock-info').textContent(), /1手1日/);
  await chooseLang(cid.page, 'en');

  // Cid closes its page; the two others move on theirs.
  await cid.page.close();
  await bob.page.getByTestId('offline-last').waitFor();
  assert.equal(await bob.page.getByTestId('countdown-last').count(), 0, 'no abandonment countdown');
  assert.equal(await ann.page.getByTestId('turn').filter({ hasText: 'within 30 s' }).count(), 0);
  await playMove(ann);
  await until('Ann moved', () => bob.lastState()?.moves?.length === 1);
  await playMove(bob);
  await until('Bob moved', () => ann.lastState()?.moves?.length === 2);
  await ann.page.getByTestId('turn').filter({ hasText: /^Cid \(Last\) has (23 hours 59 minutes|1 day) to move\.$/ }).waitFor();

  // Cid comes back to My games: its turn, first in the list, the badge and the title.
  const c = await personIn(cid.context, 'cid-games');
  await c.page.goto(`${live.server.url}/games`);
  const mine = c.page.getByTestId('games-yours').getByTestId(`my-game-${id}`);
  await mine.waitFor();
  assert.equal(await mine.getAttribute('data-your-turn'), 'true');
  assert.match(await mine.textContent(), /Your move/);
  assert.match(await mine.getByTestId('my-game-time').textContent(), /^(23 hours 59 minutes|1 day) left to move$/);
  await c.page.getByTestId('games-badge').filter({ hasText: '1' }).waitFor();
  await until('the title counts the turn', async () => (await c.page.title()) === '(1) My games – Sannin');
  await c.page.screenshot({ path: `${SHOTS}corr-games-your-turn.png` });
  // The others: listed, not their turn, no badge.
  const a = await personIn(ann.context, 'ann-games');
  await a.page.goto(`${live.server.url}/games`);
  const theirs = a.page.getByTestId('games-others').getByTestId(`my-game-${id}`);
  await theirs.waitFor();
  assert.match(await theirs.textContent(), /Cid \(Last\) to move/);
  assert.match(await theirs.getByTestId('my-game-time').textContent(), /left/);
  assert.equal(await a.page.getByTestId('games-badge').isVisible(), false);
  assert.doesNotMatch(await a.page.title(), /^\(\d+\) /);
  // Cid opens the game from the list: its seat resumes with its token; it moves.
  await mine.getByTestId(`open-${id}`).click();
  await c.page.waitForURL(new RegExp(`/rooms/${id}$`));
  const { action } = await playMove(c);
  await until('Cid moved', () => ann.lastState()?.moves?.length === 3);
  assert.equal(ann.lastState().moves[2], action);
  assert.ok(c.io.sent.some((x) => x.type === 'resume'), 'the seat resumed with its token');
  // Now Ann's turn: her open My games follows (on its next load: the tab comes back).
  await a.page.reload();
  await a.page.getByTestId('games-yours').getByTestId(`my-game-${id}`).waitFor();
  await a.page.getByTestId('games-badge').filter({ hasText: '1' }).waitFor();
  for (const p of [ann, bob, c, a]) assert.deepEqual(p.io.errors, []);
  for (const p of people) await p.context.close();
});

test('the correspondence pools of quick pairing: three people take the 1-day pool and find their table, live in the lobby', async () => {
  const names = ['Lia', 'Max', 'Ned'];
  const people = [];
  for (const name of names) {
    const p = await person(name.toLowerCase());
    await p.page.goto(`${live.server.url}/`);
    await p.page.getByTestId('name').fill(name);
    const tile = p.page.getByTestId('pool-1d/casual');
    await tile.filter({ hasText: '1 day' }).waitFor();
    await tile.click();
    people.push(p);
  }
  const complete = Date.now();
  for (const p of people) {
    // The lobby asks after its ticket as soon as the live lobby says its pool's count
    // changed: the table found is announced with its link within seconds, not at the
    // next round of questions (every 30 s).
    await p.page.getByTestId('corr-message').filter({ hasText: 'A table was found in the 1 day pool' }).waitFor({ timeout: 6000 });
    assert.equal(await stored(p.page, 'sannin.pairing.corr'), null);
  }
  assert.ok(Date.now() - complete < 6000, `found after ${Date.now() - complete} ms`);
  const go = people[0].page.getByTestId('corr-go');
  const room = decodeURIComponent((await go.getAttribute('href')).split('/').pop());
  await go.click();
  await people[0].page.waitForURL(new RegExp(`/rooms/${room}$`));
  await until('seated at the table', () => people[0].lastState()?.you && people[0].lastState()?.status === 'playing');
  const s = people[0].lastState();
  assert.equal(s.clocks.kind, 'correspondence');
  assert.equal(s.clocks.main_ms, 86400000);
  assert.equal(s.paired, true);
  assert.deepEqual(SEATS.map((seat) => s.seats[seat]?.name).sort(), names);
  await people[0].page.getByTestId('time-left').waitFor();
  for (const p of people) assert.deepEqual(p.io.errors, []);
  for (const p of people) await p.context.close();
});

test('My games lists a game found by a correspondence ticket, and the room resumes with the token it gave', async () => {
  // Three people of the 1-day pool (no cookies: each ticket is a person of its own).
  const tickets = [];
  for (const name of ['Dee', 'Eli', 'Fay']) {
    const res = await api('/api/pairing', { method: 'POST', body: { pool: '1d', rated: false, name, bots_after_seconds: null } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    tickets.push(res.body.ticket);
  }
  const matched = await until('the table made', async () => {
    const s = (await api(`/api/pairing/${tickets[0]}`)).body;
    return s?.status === 'matched' ? s : null;
  });
  const dee = await person('dee');
  await dee.page.goto(`${live.server.url}/rules`);
  await dee.page.evaluate((t) => localStorage.setItem('sannin.pairing.corr', JSON.stringify([{
    ticket: t, pool: { name: '1d', rated: false, clock: { kind: 'correspondence', main_ms: 86400000, increment_ms: 0, byoyomi_ms: 0, periods: 0 } }, since: Date.now() - 60000,
  }])), tickets[0]);
  await dee.page.goto(`${live.server.url}/games`);
  const item = dee.page.getByTestId(`my-game-${matched.room}`);
  await item.waitFor();
  // The ticket's table is known: the ticket is no longer waiting, its token is the room's.
  await until('the ticket forgotten', async () => (await stored(dee.page, 'sannin.pairing.corr')) === null);
  assert.equal(await dee.page.evaluate((r) => localStorage.getItem(`sannin.token.${r}`), matched.room), matched.token);
  await item.getByTestId(`open-${matched.room}`).click();
  await dee.page.waitForURL(new RegExp(`/rooms/${matched.room}$`));
  await until('seated', () => dee.lastState()?.you === matched.seat);
  assert.ok(dee.io.sent.some((x) => x.type === 'resume' && x.token === matched.token));
  assert.equal(dee.lastState().paired, true);
  assert.equal(dee.lastState().clocks.kind, 'correspondence');
  // A table of a correspondence pool has no first-move rule.
  assert.equal(await dee.page.getByTestId('turn').filter({ hasText: 'within 30 s' }).count(), 0);
  assert.deepEqual(dee.io.errors, []);
  await dee.context.close();
});

test('the wait of a correspondence pool: the page may be closed, it survives a reload, My games cancels it', async () => {
  const gil = await person('gil');
  await gil.page.goto(`${live.server.url}/`);
  await gil.page.getByTestId('name').fill('Gil');
  const tile = gil.page.getByTestId('pool-7d/casual');
  await tile.filter({ hasText: '7 days' }).waitFor();
  await tile.click();
  const waits = gil.page.getByTestId('corr-waits');
  await waits.filter({ hasText: 'Waiting for a table in the 7 days pool · Casual' }).waitFor();
  assert.match(await waits.textContent(), /You can close this page: the game will appear in My games and we can notify you\./);
  await tile.filter({ hasText: 'You are waiting' }).waitFor();
  assert.equal(await tile.isDisabled(), true);
  // A live game can still be looked for meanwhile.
  assert.equal(await gil.page.getByTestId('play-now').isDisabled(), false);
  await gil.page.screenshot({ path: `${SHOTS}corr-lobby-waiting.png` });
  const [w] = await stored(gil.page, 'sannin.pairing.corr');
  assert.equal(w.pool.name, '7d');
  await gil.page.reload();
  await waits.filter({ hasText: '7 days' }).waitFor();
  const pool = async () => (await api('/api/pairing')).body.find((p) => p.name === '7d' && !p.rated)?.waiting;
  assert.equal(await pool(), 1);
  // Nobody asks after the ticket for a while: a correspondence ticket stays.
  await gil.page.goto(`${live.server.url}/games`);
  const listed = gil.page.getByTestId('games-ticket-7d-casual');
  await listed.filter({ hasText: 'Waiting for a table in the 7 days pool' }).waitFor();
  await listed.getByTestId('games-ticket-cancel').click();
  await listed.waitFor({ state: 'detached' });
  await gil.page.getByTestId('games-empty').waitFor();
  assert.equal(await stored(gil.page, 'sannin.pairing.corr'), null);
  assert.equal(await pool(), 0);
  assert.deepEqual(gil.io.errors, []);
  await gil.context.close();
});

test('the service worker shows a push delivered to it, one notification per room, and a click opens its page', async () => {
  const ctx = await context({ permissions: ['notifications'], notifications: true });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${live.server.url}/games`);
  const scope = await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
    await navigator.serviceWorker.ready;
    return reg.scope;
  });
  assert.equal(scope, `${live.server.url}/`);
  const cdp = await ctx.newCDPSession(page);
  const registrations = new Map();
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
    for (const r of e.registrations) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
  });
  await cdp.send('ServiceWorker.enable');
  const registrationId = await until('the registration', () => registrations.get(scope));
  const push = (payload) => cdp.send('ServiceWorker.deliverPushMessage', { origin: live.server.url, registrationId, data: JSON.stringify(payload) });
  const shown = () => page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications())
    .map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: n.data?.url })).sort((a, b) => a.tag.localeCompare(b.tag)));
  const titles = async () => (await shown()).map((n) => n.title).join(' | ');
  // One push at a time, each shown before the next is sent. The protocol's delivery
  // does not answer whether the worker ran: a push not shown within 5 s is delivered
  // again (one notification per room makes a second delivery harmless).
  const deliver = async (what, payload, want) => {
    for (let tries = 1; ; tries++) {
      await push(payload);
      try {
        return await until(what, async () => (await titles()) === want, 5000);
      } catch (e) {
        if (tries === 4) throw e;
      }
    }
  };
  await deliver('the first notification shown', { type: 'your_turn', room: 'room-a', seat: 'middle', title: 'Your move', body: 'Ann vs Bob vs you — 2 days 23 hours left', url: '/rooms/room-a' }, 'Your move');
  await deliver('the second notification shown', { type: 'game_started', room: 'room-b', seat: 'first', title: 'Your game started', body: 'Cid vs Dee vs you', url: '/rooms/room-b' }, 'Your move | Your game started');
  // The same room again: its notification replaced.
  await deliver('the room\'s notification replaced', { type: 'draw_offered', room: 'room-a', seat: 'middle', title: 'Draw offered', body: 'Ann offers a draw', url: '/rooms/room-a' }, 'Draw offered | Your game started');
  const list = await shown();
  assert.deepEqual(list, [
    { title: 'Draw offered', body: 'Ann offers a draw', tag: 'room-a', url: '/rooms/room-a' },
    { title: 'Your game started', body: 'Cid vs Dee vs you', tag: 'room-b', url: '/rooms/room-b' },
  ]);
  // A click's tab: the open tab of that page, run in the worker itself with its clients.
  const worker = ctx.serviceWorkers().find((w) => w.url().endsWith('/sw.js')) ?? await ctx.waitForEvent('serviceworker');
  const room = await ctx.newPage();
  await room.goto(`${live.server.url}/rooms/room-a`);
  const chosen = await worker.evaluate(async () => {
    const open = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const pick = (url) => self.sanninSw.clientFor(open, url, self.location.origin)?.url ?? null;
    return { a: pick('/rooms/room-a'), b: pick('/rooms/room-b'), games: pick('/games') };
  });
  assert.deepEqual(chosen, { a: `${live.server.url}/rooms/room-a`, b: null, games: `${live.server.url}/games` });
  // A click (the worker's own handler; a headless browser cannot click a notification,
  // nor may a test open windows): a page open in a tab is focused, another one opened.
  const clicks = await worker.evaluate(async () => {
    const calls = [];
    self.clients.openWindow = async (url) => { calls.push(['open', url]); return null; };
    WindowClient.prototype.focus = async function focus() { calls.push(['focus', new URL(this.url).pathname]); return this; };
    const click = async (tag) => {
      const [notification] = await self.registration.getNotifications({ tag });
      let done = null;
      self.sanninSw.onClick({ notification, waitUntil: (p) => { done = p; } });
      await done;
    };
    await click('room-b');
    await click('room-a');
    return { calls, left: (await self.registration.getNotifications()).length };
  });
  assert.deepEqual(clicks, { calls: [['open', '/rooms/room-b'], ['focus', '/rooms/room-a']], left: 0 });
  assert.deepEqual(errors, []);
  await ctx.close();
});

/** A P-256 public key and 16 bytes, base64url, as a push service would give them. */
async function fakeKeys() {
  const pair = await webcrypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
  const raw = Buffer.from(await webcrypto.subtle.exportKey('raw', pair.publicKey));
  return { p256dh: raw.toString('base64url'), auth: webcrypto.getRandomValues(Buffer.alloc(16)).toString('base64url') };
}

test('the bell: kinds saved, a refused permission and a browser without a push service told in words', async () => {
  // The server's key where it has one, else one for the browser to try (headless
  // Chromium has no push service: subscribing fails either way).
  const key = await api('/api/push/key');
  const ctx = await context({ permissions: ['notifications'], notifications: true });
  if (key.status !== 200) {
    const k = await fakeKeys();
    await ctx.route('**/api/push/key', (r) => r.fulfill({ json: { public_key: k.p256dh } }));
  }
  const p = await personIn(ctx, 'bell');
  await p.page.goto(`${live.server.url}/`);
  await p.page.getByTestId('bell').click();
  const panel = p.page.getByTestId('bell-panel');
  await panel.waitFor();
  assert.equal(await p.page.getByTestId('bell').getAttribute('aria-expanded'), 'true');
  for (const kind of ['your_turn', 'matched', 'game_started', 'game_over', 'draw_offered']) {
    assert.equal(await p.page.getByTestId(`notify-kind-${kind}`).isChecked(), true);
  }
  await p.page.getByTestId('notify-kind-game_over').uncheck();
  await p.page.keyboard.press('Escape');
  await panel.waitFor({ state: 'hidden' });
  await p.page.reload();
  await p.page.getByTestId('bell').click();
  assert.equal(await p.page.getByTestId('notify-kind-game_over').isChecked(), false);
  assert.equal(await p.page.getByTestId('notify-kind-your_turn').isChecked(), true);
  assert.deepEqual((await stored(p.page, 'sannin.push')).kinds, ['your_turn', 'matched', 'game_started', 'draw_offered']);
  // On: allowed, but no push service here.
  await p.page.getByTestId('notify-on').check();
  await p.page.getByTestId('notify-problem').filter({ hasText: 'This browser cannot receive notifications here' }).waitFor();
  await p.page.getByTestId('notify-state').filter({ hasText: 'On while a page of Sannin is open.' }).waitFor();
  assert.equal(await p.page.getByTestId('notify-on').isChecked(), true);
  assert.equal(await p.page.getByTestId('bell').getAttribute('aria-label'), 'Notifications: on');
  await p.page.screenshot({ path: `${SHOTS}corr-bell-no-push.png` });
  // The room's "Notify me" is the same setting.
  const id = await createRoom({ clock: DAY_CLOCK });
  await p.page.goto(`${live.server.url}/rooms/${id}`);
  assert.equal(await p.page.getByTestId('notify').isChecked(), true);
  await p.page.getByTestId('notify').uncheck();
  assert.equal((await stored(p.page, 'sannin.push')).kinds.includes('your_turn'), false);
  await p.page.getByTestId('bell').click();
  assert.equal(await p.page.getByTestId('notify-kind-your_turn').isChecked(), false);
  assert.deepEqual(p.io.errors, []);
  await ctx.close();

  // Refused: said so, and nothing is on.
  const denied = await context({ notifications: true });
  const d = await personIn(denied, 'denied');
  await d.page.goto(`${live.server.url}/`);
  await d.page.evaluate(() => {
    // What a browser answers once its reader has blocked the site.
    Object.defineProperty(Notification, 'permission', { get: () => 'denied' });
    Notification.requestPermission = async () => 'denied';
  });
  await d.page.getByTestId('bell').click();
  await d.page.getByTestId('notify-on').click();
  await d.page.getByTestId('notify-problem').filter({ hasText: 'Notifications are blocked for this site' }).waitFor();
  assert.equal(await d.page.getByTestId('notify-on').isChecked(), false);
  assert.deepEqual(d.io.errors, []);
  await denied.close();
});

test('turned on where the browser can subscribe: the subscription is posted with the seats, again when they change, and deleted when turned off', async (t) => {
  const key = await api('/api/push/key');
  if (key.status !== 200) {
    t.skip('this server has no Web Push (GET /api/push/key)');
    return;
  }
  const keys = await fakeKeys();
  const ctx = await context({ permissions: ['notifications'], notifications: true });
  // A push service of our own: the browser's subscribe() answers a subscription of an
  // accepted push service's origin (nothing is ever delivered to it in this test).
  await ctx.addInitScript((k) => {
    const endpoint = 'https://fcm.googleapis.com/fcm/send/sannin-e2e-fake';
    let sub = null;
    const make = (options) => ({
      endpoint, options,
      toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh: k.p256dh, auth: k.auth } }),
      unsubscribe: async () => { sub = null; return true; },
    });
    PushManager.prototype.subscribe = async function subscribe(options) { sub = make(options); return sub; };
    PushManager.prototype.getSubscription = async function getSubscription() { return sub; };
  }, keys);
  const p = await personIn(ctx, 'push');
  const posts = [];
  p.page.on('request', (r) => {
    if (r.url().endsWith('/api/push/subscriptions') && r.method() === 'POST') posts.push(JSON.parse(r.postData()));
  });
  // A seat of a game in progress.
  const id = await createRoom({ clock: DAY_CLOCK, bots: { middle: 2, last: 2 } });
  await joinRoom(p, live.server, id, 'Hal', 'first');
  const token = await p.page.evaluate((r) => localStorage.getItem(`sannin.token.${r}`), id);
  await p.page.getByTestId('ready').click();
  await until('playing', () => p.lastState()?.status === 'playing');
  await p.page.getByTestId('bell').click();
  await p.page.getByTestId('notify-on').check();
  await p.page.getByTestId('notify-state').filter({ hasText: 'On: you are told even when Sannin is closed.' }).waitFor();
  const first = posts.at(-1);
  assert.equal(first.endpoint, 'https://fcm.googleapis.com/fcm/send/sannin-e2e-fake');
  assert.deepEqual(first.keys, { p256dh: keys.p256dh, auth: keys.auth });
  assert.ok(first.tokens.includes(token), 'the seat token is posted');
  assert.deepEqual(first.kinds, ['your_turn', 'matched', 'game_started', 'game_over', 'draw_offered']);
  assert.equal(first.lang, 'en');
  const { id: subId } = await stored(p.page, 'sannin.push');
  assert.match(subId, /./);
  // A new seat (another game of this browser): posted again with its token, the same id.
  const second = await createRoom({ clock: DAY_CLOCK });
  await joinRoom(p, live.server, second, 'Hal', 'middle');
  const token2 = await p.page.evaluate((r) => localStorage.getItem(`sannin.token.${r}`), second);
  await until('posted with the new seat', () => posts.at(-1)?.tokens.includes(token2) && posts.at(-1).tokens.includes(token), 15000);
  await until('the same id', async () => (await stored(p.page, 'sannin.push')).id === subId);
  // A kind less: posted again, the same id.
  await p.page.getByTestId('bell').click();
  await p.page.getByTestId('notify-kind-draw_offered').uncheck();
  await until('posted again', () => posts.length >= 2 && !posts.at(-1).kinds.includes('draw_offered'));
  await until('the same id', async () => (await stored(p.page, 'sannin.push')).sent && (await stored(p.page, 'sannin.push')).id === subId);
  // Japanese: posted again in Japanese.
  await chooseLang(p.page, 'ja');
  await until('posted in Japanese', () => posts.at(-1).lang === 'ja', 10000);
  await chooseLang(p.page, 'en');
  // Off: the subscription deleted.
  const deleted = p.page.waitForResponse((r) => r.url().endsWith(`/api/push/subscriptions/${encodeURIComponent(subId)}`) && r.request().method() === 'DELETE');
  // (The panel may still be open from the language switch.)
  if (!(await p.page.getByTestId('bell-panel').isVisible())) await p.page.getByTestId('bell').click();
  await p.page.getByTestId('bell-panel').waitFor();
  await p.page.getByTestId('notify-on').uncheck();
  assert.equal((await deleted).status(), 204);
  const after = await stored(p.page, 'sannin.push');
  assert.equal(after.on, false);
  assert.equal(after.id, null);
  assert.deepEqual(p.io.errors, []);
  await ctx.close();
});

/** A new context of `viewport` and `lang` holding the seat tokens of `p` (set once,
 * before its first page). */
async function asPerson(p, { viewport, lang }) {
  const ctx = await context({ viewport, lang });
  await ctx.addInitScript((l) => { if (!localStorage.getItem('sannin.lang')) localStorage.setItem('sannin.lang', l); }, lang);
  const state = await p.context.storageState();
  const origin = state.origins.find((o) => o.origin === live.server.url);
  await ctx.addInitScript((items) => {
    if (sessionStorage.getItem('shots.init')) return;
    sessionStorage.setItem('shots.init', '1');
    for (const { name, value } of items) if (name.startsWith('sannin.token.')) localStorage.setItem(name, value);
  }, origin?.localStorage ?? []);
  return ctx;
}

test('what people see: My games, the correspondence game page, the pools and the bell, in English and Japanese, desktop and phone', async () => {
  await mkdir(CORR_SHOTS, { recursive: true });
  // One person with a game of each kind: its move in a correspondence game, another's
  // move in a second one, a live game.
  const { id: yours, people } = await corrGame(['Ivy', 'Jo', 'Kai']);
  const [ivy, jo, kai] = people;
  const theirs = await createRoom({ clock: { kind: 'correspondence', seconds_per_move: 3 * 86400 } });
  // Ivy's second game: Jo plays First, Ivy Middle, Kai Last.
  await joinRoom(jo, live.server, theirs, 'Jo', 'first');
  await joinRoom(ivy, live.server, theirs, 'Ivy', 'middle');
  await joinRoom(kai, live.server, theirs, 'Kai', 'last');
  for (const p of [jo, ivy, kai]) await p.page.getByTestId('ready').click();
  await until('second game started', () => ivy.lastState()?.status === 'playing' && ivy.lastState()?.room === theirs);
  const liveGame = await createRoom({ clock: { kind: 'fischer', main_seconds: 600, increment_seconds: 5 }, bots: { middle: 1, last: 1 } });
  await joinRoom(ivy, live.server, liveGame, 'Ivy', 'first');
  await ivy.page.getByTestId('ready').click();
  await until('live game started', () => ivy.lastState()?.status === 'playing' && ivy.lastState()?.room === liveGame);
  // Ivy stays in the live game (a live game forfeits a player who is away); Jo and Kai
  // leave their pages.
  for (const p of [jo, kai]) await p.page.close();

  for (const lang of ['en', 'ja']) {
    for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
      const tag = `${lang}-${size}`;
      const v = await personIn(await asPerson(ivy, { viewport, lang }), `shots-${tag}`);
      const ctx = v.context;
      await v.page.goto(`${live.server.url}/games`);
      await v.page.getByTestId(`my-game-${yours}`).waitFor();
      await v.page.getByTestId(`my-game-${liveGame}`).waitFor();
      await v.page.evaluate(() => document.fonts.ready);
      await v.page.screenshot({ path: `${CORR_SHOTS}corr-games-${tag}.png`, fullPage: true });
      if (lang === 'ja') {
        const left = await englishLeft(v.page, ['Ivy', 'Jo', 'Kai', 'Sannin']);
        assert.deepEqual(left.messages, [], `English left on the Japanese My games: ${left.messages}`);
      }
      // The correspondence game page, for a player and a spectator.
      await v.page.getByTestId(`open-${yours}`).click();
      await until('seated', () => v.lastState()?.you === 'first');
      await v.page.getByTestId('time-left').waitFor();
      await v.page.evaluate(() => document.fonts.ready);
      await v.page.screenshot({ path: `${CORR_SHOTS}corr-room-first-${tag}.png` });
      // The two others, each on its own seat's side of the board.
      for (const [p, seat] of [[jo, 'middle'], [kai, 'last']]) {
        const o = await personIn(await asPerson(p, { viewport, lang }), `${seat}-${tag}`);
        await o.page.goto(`${live.server.url}/rooms/${yours}`);
        await until(`${seat} seated`, () => o.lastState()?.you === seat);
        await o.page.getByTestId('time-left').waitFor();
        await o.page.evaluate(() => document.fonts.ready);
        await o.page.screenshot({ path: `${CORR_SHOTS}corr-room-${seat}-${tag}.png` });
        assert.deepEqual(o.io.errors, []);
        await o.context.close();
      }
      const s = await personIn(await context({ viewport, lang }), `spectator-${tag}`);
      await s.context.addInitScript((l) => localStorage.setItem('sannin.lang', l), lang);
      await s.page.goto(`${live.server.url}/rooms/${yours}`);
      await until('watching', () => s.lastState()?.status === 'playing');
      await s.page.getByTestId('time-left').waitFor();
      await s.page.evaluate(() => document.fonts.ready);
      await s.page.screenshot({ path: `${CORR_SHOTS}corr-room-spectator-${tag}.png` });
      if (lang === 'ja') {
        const left = await englishLeft(s.page, ['Ivy', 'Jo', 'Kai', 'Sannin']);
        assert.deepEqual(left.messages, [], `English left on the Japanese game page: ${left.messages}`);
      }
      // Empty My games, the pools, the wait, the bell.
      await s.page.goto(`${live.server.url}/games`);
      await s.page.getByTestId('games-empty').waitFor();
      await s.page.screenshot({ path: `${CORR_SHOTS}corr-games-empty-${tag}.png`, fullPage: true });
      await s.page.goto(`${live.server.url}/`);
      const pools = s.page.getByTestId('corr-pools');
      await pools.waitFor();
      await pools.scrollIntoViewIfNeeded();
      await s.page.screenshot({ path: `${CORR_SHOTS}corr-pools-${tag}.png` });
      await s.page.getByTestId('pool-3d/casual').click();
      await s.page.getByTestId('corr-waits').waitFor();
      await s.page.getByTestId('corr-box').scrollIntoViewIfNeeded();
      await s.page.screenshot({ path: `${CORR_SHOTS}corr-waiting-${tag}.png` });
      if (lang === 'ja') {
        const left = await englishLeft(s.page, ['Sannin']);
        assert.deepEqual(left.messages, [], `English left on the Japanese lobby: ${left.messages}`);
      }
      // The lobby redraws the card when the pools' counts change (this ticket's own
      // among them): a click that straddles a redraw is lost, so click until it goes.
      await until('the wait is given up', async () => {
        await s.page.getByTestId('corr-cancel-3d/casual').click({ timeout: 2000 }).catch(() => {});
        return (await s.page.getByTestId('corr-waits').count()) === 0;
      });
      await s.page.evaluate(() => window.scrollTo(0, 0));
      await s.page.getByTestId('bell').click();
      await s.page.getByTestId('bell-panel').waitFor();
      await s.page.screenshot({ path: `${CORR_SHOTS}corr-bell-${tag}.png` });
      assert.deepEqual([...v.io.errors, ...s.io.errors], []);
      await s.context.close();
      await ctx.close();
    }
  }
  for (const p of people) await p.context.close();
});
