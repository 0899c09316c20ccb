// Moderation in the browser against the real server (docs/moderation.md): a chat line
// reported through its flag and the report dialog, seen by a moderator on /mod with the
// lines around it, and its writer muted from there (its next line reaches nobody else);
// a player reported from its profile page and from its seat card; an account banned
// from the player section of /mod, then told so in the lobby and in a room; and /mod
// telling everyone else that it is for moderators. The moderator is made with `sannin admin
// role` on the server's database while it runs. Screenshots (desktop and phone, English
// and Japanese) go to MOD_SHOTS (or /tmp/shots-mod/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { serverAndBrowser } from '../lib/setup.mjs';
import { personIn, joinRoom, until } from '../lib/people.mjs';
import { axe } from '../lib/site.mjs';
import { chooseLang } from '../lib/site.mjs';

const SHOTS = (process.env.MOD_SHOTS ?? '/tmp/shots-mod/').replace(/\/?$/, '/');
const live = serverAndBrowser({ shots: SHOTS });
const VIEWPORTS = { desktop: { width: 1366, height: 768 }, phone: { width: 390, height: 844 } };
const PASSWORD = (name) => `pw-${name}-e2e-Secret`;

/** A person in a context of its own (English, desktop). */
async function person(label) {
  const context = await live.browser.newContext({ viewport: VIEWPORTS.desktop, locale: 'en-GB', reducedMotion: 'reduce' });
  return personIn(context, label);
}

/** `POST` of JSON from `p`'s context (its cookies): the response. */
async function post(p, path, data) {
  return p.context.request.post(`${live.server.url}${path}`, { data });
}

/** A person logged in to a new account `name` (registering logs in). */
async function accountPerson(name) {
  const p = await person(name);
  const res = await post(p, '/api/accounts', { name, password: PASSWORD(name) });
  assert.ok(res.ok(), `register ${name}: ${res.status()} ${await res.text()}`);
  return p;
}

let moderatorPromise = null;
/** mod1, made a moderator with `sannin admin role` while the server runs, logged in. */
function moderator() {
  moderatorPromise ??= (async () => {
    const p = await accountPerson('mod1');
    const cli = spawnSync(live.server.bin, ['admin', '--database-url', live.server.databaseUrl, 'role', 'mod1', 'moderator'], { encoding: 'utf8' });
    assert.equal(cli.status, 0, `sannin admin role: ${cli.stdout}\n${cli.stderr}`);
    const res = await post(p, '/api/session', { name: 'mod1', password: PASSWORD('mod1') });
    assert.ok(res.ok(), `log in mod1: ${res.status()} ${await res.text()}`);
    const session = await (await p.context.request.get(`${live.server.url}/api/session`)).json();
    assert.equal(session?.role, 'moderator', `GET /api/session of mod1: ${JSON.stringify(session)}`);
    return p;
  })();
  return moderatorPromise;
}

async function newRoom() {
  const res = await fetch(`${live.server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const text = await res.text();
  assert.equal(res.status, 201, text);
  return JSON.parse(text).id;
}

async function say(p, text) {
  await p.page.getByTestId('chat-input').fill(text);
  await p.page.getByTestId('chat-send').click();
}

const chatText = (p) => p.page.getByTestId('chat-players').textContent();
/** The card of /mod's open reports whose reported player is `name`. */
const reportOn = (p, name) => p.page.getByTestId('report-card').filter({ has: p.page.locator('.report-name', { hasText: new RegExp(`^${name}$`) }) });
const chatLine = (p, text) => p.page.getByTestId('chat-players').locator('li', { hasText: text });

/** Switches the page's language with the header's switch. */
async function setLang(p, code) {
  await chooseLang(p.page, code);
}

async function shoot(p, name, { full = false } = {}) {
  await p.page.evaluate(() => document.fonts.ready.then(() => true));
  await p.page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: full });
}

/** Opens the report dialog of A's line on B's page, shot in each size and language, and
 * closed again. */
async function shootDialog(b, text) {
  for (const [lang, size] of [['en', 'desktop'], ['ja', 'phone'], ['en', 'phone'], ['ja', 'desktop']]) {
    await setLang(b, lang);
    await b.page.setViewportSize(VIEWPORTS[size]);
    const line = chatLine(b, text);
    await line.scrollIntoViewIfNeeded();
    await line.hover();
    await line.getByTestId('chat-report').click();
    await b.page.getByTestId('report-dialog').waitFor();
    await shoot(b, `report-dialog-${lang}-${size}`);
    await b.page.getByTestId('report-cancel').click();
  }
  await setLang(b, 'en');
  await b.page.setViewportSize(VIEWPORTS.desktop);
}

/** /mod in each size and language (then English on a desktop again). */
async function shootMod(m, name) {
  for (const lang of ['en', 'ja']) {
    await setLang(m, lang);
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      await m.page.setViewportSize(viewport);
      await shoot(m, `${name}-${lang}-${size}`, { full: true });
    }
  }
  await setLang(m, 'en');
  await m.page.setViewportSize(VIEWPORTS.desktop);
}

test('report a chat line, a moderator sees it in /mod and mutes the sender', async () => {
  const mod = await moderator();
  const id = await newRoom();
  const ann = await accountPerson('ann');
  const bob = await person('bob');
  await joinRoom(ann, live.server, id, 'ann', 'first');
  await joinRoom(bob, live.server, id, 'Bob', 'middle');

  const insult = 'you all play like potatoes';
  await say(ann, 'good luck');
  await say(ann, insult);
  await until('bob reads it', async () => (await chatText(bob)).includes(insult));
  await say(bob, 'be nice please');
  await until('bob reads his own line', async () => (await chatText(bob)).includes('be nice please'));
  // The flag is on the others' lines only; its name says what it does.
  const flag = chatLine(bob, insult).getByTestId('chat-report');
  assert.equal(await flag.getAttribute('aria-label'), 'Report this message');
  assert.equal(await flag.getAttribute('title'), 'Report this message');
  await chatLine(bob, 'be nice please').hover();
  assert.equal(await chatLine(bob, 'be nice please').getByTestId('chat-report').isVisible(), false, 'no flag on one\'s own line');
  await chatLine(ann, insult).hover();
  assert.equal(await chatLine(ann, insult).getByTestId('chat-report').isVisible(), false, 'no flag on one\'s own line');
  // And on the seat cards: on the others', not one's own.
  assert.equal(await bob.page.getByTestId('report-seat-first').count(), 1, 'Report on ann\'s card');
  assert.equal(await bob.page.getByTestId('report-seat-middle').count(), 0, 'no Report on one\'s own card');

  await shootDialog(bob, insult);
  await chatLine(bob, insult).hover();
  await flag.click();
  const dialog = bob.page.getByTestId('report-dialog');
  assert.match(await dialog.getByTestId('report-about').textContent(), /potatoes/);
  await dialog.getByTestId('report-reason').selectOption('abuse');
  await dialog.getByTestId('report-details').fill('insults in the players\' chat');
  assert.deepEqual(await axe(bob.page), [], 'axe-core on the report dialog');
  await dialog.getByTestId('report-send').click();
  await until('the thanks', async () => /Reported\. Thank you — a moderator will look at it\./.test(await dialog.getByTestId('report-done').textContent().catch(() => '')));
  await dialog.getByTestId('report-close').click();

  // The moderator: a link in the header, the report on /mod with its conversation.
  await mod.page.goto(`${live.server.url}/`);
  await mod.page.getByTestId('nav-mod').click();
  await mod.page.waitForURL(`${live.server.url}/mod`);
  const card = mod.page.getByTestId('report-card').filter({ hasText: insult });
  await card.waitFor();
  assert.match(await card.getByTestId('report-line').textContent(), /potatoes/, 'the reported line is marked');
  const context = await card.getByTestId('report-context').textContent();
  for (const line of ['good luck', 'be nice please']) assert.ok(context.includes(line), `context has "${line}": ${context}`);
  assert.match(await card.textContent(), /Abuse or insults/);
  assert.match(await card.textContent(), /insults in the players' chat/);
  assert.match(await card.textContent(), /ann/);
  assert.equal(await card.getByTestId('report-room').getAttribute('href'), `/rooms/${id}`);
  await shootMod(mod, 'mod-report');
  assert.deepEqual(await axe(mod.page), [], 'axe-core on /mod');

  await card.getByTestId('report-mute').click();
  await until('the report leaves the open list', async () => (await mod.page.getByTestId('report-card').filter({ hasText: insult }).count()) === 0);
  await until('the action said done', async () => /Done/.test(await mod.page.getByTestId('mod-status').textContent()));
  await until('the log has it', async () => /Mute/.test(await mod.page.getByTestId('mod-log').textContent()));
  await shoot(mod, 'mod-after-mute', { full: true });

  // A muted writer sees its own line; nobody else gets it.
  const muted = 'can anyone hear me';
  await say(ann, muted);
  await until('ann sees her own line', async () => (await chatText(ann)).includes(muted));
  const end = Date.now() + 5000;
  while (Date.now() < end) {
    assert.ok(!(await chatText(bob)).includes(muted), 'bob never gets the muted line');
    await new Promise((r) => setTimeout(r, 250));
  }
  for (const p of [mod, ann, bob]) assert.deepEqual(p.io.errors, []);
  await ann.context.close();
  await bob.context.close();
});

test('a report on a player\'s name from the profile page and from a seat card lands in /mod too', async () => {
  const mod = await moderator();
  await accountPerson('cleo').then((p) => p.context.close());
  const guest = await person('guest');
  await guest.page.goto(`${live.server.url}/players/cleo`);
  await guest.page.getByTestId('report-player').click();
  const dialog = guest.page.getByTestId('report-dialog');
  assert.match(await dialog.getByTestId('report-about').textContent(), /cleo/);
  await dialog.getByTestId('report-reason').selectOption('cheating');
  await dialog.getByTestId('report-send').click();
  await dialog.getByTestId('report-done').waitFor();

  // A seat card: the reader reports the player in the first seat.
  const id = await newRoom();
  const dan = await person('dan');
  await joinRoom(dan, live.server, id, 'Dan', 'first');
  await guest.page.goto(`${live.server.url}/rooms/${id}`);
  await guest.page.getByTestId('report-seat-first').click();
  assert.match(await dialog.getByTestId('report-about').textContent(), /Dan/);
  await dialog.getByTestId('report-reason').selectOption('spam');
  await dialog.getByTestId('report-send').click();
  await dialog.getByTestId('report-done').waitFor();

  await mod.page.goto(`${live.server.url}/mod`);
  const card = reportOn(mod, 'cleo');
  await card.waitFor();
  assert.match(await card.textContent(), /Cheating/);
  const seatCard = reportOn(mod, 'Dan');
  await seatCard.waitFor();
  assert.match(await seatCard.textContent(), /Spam/);
  // Closed with a resolution, it leaves the open list.
  await card.getByTestId('report-close').click();
  await card.getByTestId('close-resolution').fill('no sign of cheating');
  await card.getByTestId('close-submit').click();
  await until('the report leaves the open list', async () => (await reportOn(mod, 'cleo').count()) === 0);
  for (const p of [mod, guest, dan]) assert.deepEqual(p.io.errors, []);
  await guest.context.close();
  await dan.context.close();
});

test('a moderator bans an account from the player section; its player is told so where it acts', async () => {
  const mod = await moderator();
  const eve = await accountPerson('eve');
  const first = await newRoom();
  await joinRoom(eve, live.server, first, 'eve', 'first');
  await say(eve, 'hello from eve');
  await until('eve reads her line', async () => (await chatText(eve)).includes('hello from eve'));

  await mod.page.goto(`${live.server.url}/mod`);
  await mod.page.getByTestId('mod-player-name').fill('eve');
  await mod.page.getByTestId('mod-player-look-up').click();
  const view = mod.page.getByTestId('mod-player-view');
  await view.waitFor();
  assert.equal(await view.getByTestId('mod-player-role').textContent(), 'player');
  assert.match(await view.textContent(), /hello from eve/, 'her chat lines');
  assert.ok(await view.locator(`a[href="/rooms/${first}"]`).count() > 0, 'her games link to their rooms');
  const form = mod.page.getByTestId('mod-action-form');
  assert.deepEqual(await form.getByTestId('mod-action').locator('option').evaluateAll((os) => os.map((o) => o.value)),
    ['ban', 'unban', 'mute', 'unmute', 'rename'], 'a moderator (not an admin) neither deletes nor gives roles');
  // The reason is required: the form is not sent without one.
  await form.getByTestId('mod-action').selectOption('ban');
  await form.getByTestId('mod-minutes').selectOption('60');
  await form.getByTestId('mod-action-submit').click();
  assert.equal(await form.getByTestId('mod-reason').evaluate((n) => n.validity.valueMissing), true);
  await form.getByTestId('mod-reason').fill('insults after a warning');
  await form.getByTestId('mod-action-submit').click();
  await until('the action said done', async () => /Done/.test(await mod.page.getByTestId('mod-status').textContent()));
  await until('the ban among her sanctions', async () => /insults after a warning/.test(await view.getByTestId('mod-sanctions').textContent().catch(() => '')));
  await shoot(mod, 'mod-player-banned', { full: true });

  // Eve cannot create a room: the lobby says why, in its own words for the code.
  const api = await eve.page.evaluate(async () => {
    const res = await fetch('/api/rooms', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    return { status: res.status, body: await res.json().catch(() => null) };
  });
  assert.equal(api.status, 403, JSON.stringify(api));
  const code = api.body?.error?.code ?? api.body?.code;
  const message = api.body?.error?.message ?? api.body?.error;
  assert.equal(code, 'banned', JSON.stringify(api.body));
  await eve.page.goto(`${live.server.url}/`);
  await eve.page.getByTestId('create-room').click();
  assert.ok(message, 'the server says why too');
  const words = await eve.page.evaluate(async () => (await (await import('/js/i18n.js')).messagesOf('en'))['error.api.banned']);
  await until('the lobby tells eve', async () => (await eve.page.getByTestId('error').textContent()).includes(words));
  // Nor take a seat in another room.
  const second = await newRoom();
  await eve.page.goto(`${live.server.url}/rooms/${second}`);
  await eve.page.getByTestId('room-name').fill('eve');
  await eve.page.getByTestId('sit-first').click();
  await until('the room tells eve', async () => {
    const error = eve.page.getByTestId('error');
    return (await error.getAttribute('data-code')) === 'banned' && (await error.textContent()).length > 0;
  });
  await shoot(eve, 'banned-room');
  assert.deepEqual(eve.io.errors, []);
  await eve.context.close();
});

test('a player who is not a moderator sees that /mod is for moderators', async () => {
  const pat = await accountPerson('pat');
  const guest = await person('guest');
  for (const p of [pat, guest]) {
    await p.page.goto(`${live.server.url}/mod`);
    await until(`${p.label} told`, async () => (await p.page.getByTestId('mod-denied').textContent().catch(() => '')) === 'This page is for moderators.');
    assert.equal(await p.page.getByTestId('nav-mod').count(), 0, 'no Moderation link in the header');
    assert.equal(await p.page.getByTestId('report-card').count(), 0);
    assert.deepEqual(p.io.errors, []);
  }
  await pat.context.close();
  await guest.context.close();
});
