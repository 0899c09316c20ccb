// Accounts in the browser against the real server: registering and logging in through
// the account page, a rated room made from the lobby (said rated, with no computer
// players to add), a guest sent to log in instead of taking a seat in it, a
// rated game played to its end by resignations, and the new ratings on the profile
// pages and the leaderboard. Screenshots (desktop and phone, English and Japanese) go
// to e2e/screenshots/ (or SHOTS_DIR).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS as DEFAULT_SHOTS, joinRoom, person as newPerson, personIn, playMove, resign, until } from '../lib/people.mjs';
import { chooseLang } from '../lib/site.mjs';

const SHOTS = process.env.SHOTS_DIR ? `${process.env.SHOTS_DIR.replace(/\/$/, '')}/` : DEFAULT_SHOTS;
const live = serverAndBrowser({ shots: SHOTS });
const person = (label) => newPerson(live.browser, label);

const PASSWORD = (name) => `pw-${name}-e2e-Secret`;

/** Fills and sends the register or log-in form of the account page. */
async function accountForm(p, kind, name) {
  await p.page.goto(`${live.server.url}/account?next=/`);
  await p.page.getByTestId(`${kind}-name`).fill(name);
  await p.page.getByTestId(`${kind}-password`).fill(PASSWORD(name));
  await p.page.getByTestId(`${kind}-submit`).click();
  await p.page.waitForURL(`${live.server.url}/`);
  await until(`${name} shown as logged in`, async () => (await p.page.getByTestId('account-name').textContent().catch(() => '')) === name);
}

async function shoot(p, name) {
  for (const [tag, viewport] of [['desktop', { width: 1366, height: 768 }], ['phone', { width: 390, height: 844 }]]) {
    await p.page.setViewportSize(viewport);
    await p.page.screenshot({ path: `${SHOTS}accounts-${name}-${tag}.png`, fullPage: true });
  }
  await p.page.setViewportSize({ width: 1200, height: 950 });
}

test('register and log in through the page, play a rated game, see the new rating', async () => {
  const names = ['akira', 'beni', 'chiyo'];
  const people = [await person('first'), await person('middle'), await person('last')];

  // Register through the page; the first logs out and in again.
  for (const [i, p] of people.entries()) await accountForm(p, 'register', names[i]);
  const [first, middle, last] = people;
  await first.page.goto(`${live.server.url}/account`);
  await first.page.getByTestId('logout').click();
  await first.page.getByTestId('login-form').waitFor();
  await shoot(first, 'login');
  // A wrong password is refused with the same words as an unknown name.
  await first.page.getByTestId('login-name').fill('akira');
  await first.page.getByTestId('login-password').fill('not the password');
  await first.page.getByTestId('login-submit').click();
  await until('the refusal', async () => /wrong name or password/i.test(await first.page.getByTestId('login-error').textContent()));
  await accountForm(first, 'login', 'akira');

  // A rated room from the lobby: the creator is seated under the account's name.
  await first.page.getByTestId('name').fill('Not my account name');
  await first.page.getByTestId('rated-room').check();
  await shoot(first, 'lobby');
  await first.page.getByTestId('create-room').click();
  await first.page.waitForURL(/\/rooms\/[^/]+$/);
  const roomId = decodeURIComponent(new URL(first.page.url()).pathname.split('/').pop());
  await until('the creator seated as First', () => first.lastState()?.you === 'first');
  assert.equal(first.lastState().rated, true);
  assert.equal(first.lastState().seats.first.name, 'akira');

  // The room says that it is rated, and its host is offered no computer player.
  await first.page.getByTestId('rated').waitFor();
  assert.equal(await first.page.getByTestId('rated').textContent(), 'Rated');
  await first.page.getByTestId('no-bots-rated').waitFor();
  assert.equal(await first.page.locator('[data-testid^="add-bot-"]').count(), 0);
  assert.match(await first.page.getByTestId('no-bots-rated').textContent(), /no computer players/);
  await shoot(first, 'room-rated-host');

  // A guest is asked to log in, with a link to the account page and back, in place of
  // a name to enter; the seat stays free.
  const guest = await person('guest');
  await guest.page.goto(`${live.server.url}/rooms/${roomId}`);
  await guest.page.getByTestId('rated-login').waitFor();
  assert.equal(await guest.page.getByTestId('room-name').isVisible(), false);
  assert.equal(await guest.page.getByTestId('sit-last').isVisible(), false);
  assert.equal(await guest.page.getByTestId('rated-login').textContent(), 'Log in to play rated games');
  assert.equal(await guest.page.getByTestId('rated').textContent(), 'Rated');
  await shoot(guest, 'room-rated-guest');
  await chooseLang(guest.page, 'ja');
  assert.equal(await guest.page.getByTestId('rated-login').textContent(), 'レーティング対局をするにはログイン');
  assert.equal(await guest.page.getByTestId('rated').textContent(), 'レーティング対局');
  await shoot(guest, 'room-rated-guest-ja');
  await chooseLang(guest.page, 'en');
  await guest.page.getByTestId('rated-login').click();
  await guest.page.getByTestId('login-form').waitFor();
  assert.equal(new URL(guest.page.url()).searchParams.get('next'), `/rooms/${roomId}`);
  assert.equal(guest.lastState()?.seats?.last ?? null, null);

  await joinRoom(middle, live.server, roomId, 'whatever', 'middle');
  await joinRoom(last, live.server, roomId, 'whatever', 'last');
  for (const p of people) await p.page.getByTestId('ready').click();
  for (const p of people) await until(`${p.label} playing`, () => p.lastState()?.status === 'playing');
  // Ratings next to the names (every account starts at 1000, provisional).
  await until('ratings by the names', async () => (await last.page.getByTestId('rating-first').textContent().catch(() => '')).includes('1000?'));
  await shoot(last, 'room-rated');

  // Each plays a move (a rated game in which someone made no move is not rated), then
  // First and Middle resign: Last wins.
  for (const p of [first, middle, last]) await playMove(p);
  for (const p of [first, middle]) await resign(p);
  await until('game over', () => last.lastState()?.status === 'finished');

  // The winner's profile shows the new rating, the chart and the game.
  const profile = async () => {
    await last.page.goto(`${live.server.url}/players/chiyo`);
    await last.page.getByTestId('profile-rating').waitFor();
    return Number(await last.page.getByTestId('profile-rating').textContent());
  };
  const rating = await until('the rating moved', async () => { const r = await profile(); return r > 1000 ? r : null; });
  assert.ok(rating > 1000, `the winner went up: ${rating}`);
  assert.match(await last.page.getByTestId('profile-games').textContent(), /1/);
  await last.page.getByTestId('rating-chart').locator('polyline').waitFor();
  // Placings, not won or lost: the winner is 1st of 3; the second out (beni) is 2nd of
  // 3, in no colour of a loss.
  assert.equal(await last.page.locator(`tr[data-room="${roomId}"] td.result`).textContent(), '1st of 3');
  await last.page.goto(`${live.server.url}/players/beni`);
  const second = last.page.locator(`tr[data-room="${roomId}"] td.result`);
  assert.equal(await second.textContent(), '2nd of 3');
  assert.equal(await second.getAttribute('class'), 'result place2');
  await last.page.goto(`${live.server.url}/players/chiyo`);
  await last.page.getByTestId('rating-chart').locator('polyline').waitFor();
  const replay = last.page.getByTestId(`replay-${roomId}`);
  assert.equal(await replay.getAttribute('href'), `/rooms/${roomId}`);
  await shoot(last, 'profile');

  // The first out is below 1000 now; the leaderboard lists the winner first.
  const akira = await (await fetch(`${live.server.url}/api/players/akira`)).json();
  assert.ok(akira.rating < 1000, `the first out went down: ${akira.rating}`);
  await last.page.goto(`${live.server.url}/leaderboard`);
  await last.page.getByTestId('leaderboard').waitFor();
  const firstRow = await last.page.getByTestId('leaderboard').locator('tbody tr').first().textContent();
  assert.match(firstRow, /chiyo/);
  await shoot(last, 'leaderboard');

  // The same pages in Japanese.
  await chooseLang(last.page, 'ja');
  await shoot(last, 'leaderboard-ja');
  await last.page.goto(`${live.server.url}/players/chiyo`);
  await last.page.getByTestId('profile-rating').waitFor();
  await shoot(last, 'profile-ja');
  await last.page.goto(`${live.server.url}/account`);
  await shoot(last, 'account-ja');
  await chooseLang(guest.page, 'ja');
  await guest.page.goto(`${live.server.url}/account`);
  await shoot(guest, 'login-ja');

  for (const p of [...people, guest]) assert.deepEqual(p.io.errors, [], 'no page errors');
  for (const p of [...people, guest]) await p.context.close();
});

test('register with a Japanese name in the Japanese interface; a name mixing scripts is refused in Japanese', async () => {
  const p = await personIn(await live.browser.newContext({ viewport: { width: 1200, height: 950 }, locale: 'ja-JP' }), 'kenta');
  await p.page.goto(`${live.server.url}/account?next=/`);
  // The browser's own check does not stand in the way (no pattern of a-z).
  assert.equal(await p.page.getByTestId('register-name').getAttribute('pattern'), null);
  const password = PASSWORD('kenta');
  // Latin letters with one Cyrillic а: refused by the server, said in Japanese.
  await p.page.getByTestId('register-name').fill('p\u0430ypal');
  await p.page.getByTestId('register-password').fill(password);
  await p.page.getByTestId('register-submit').click();
  await until('the refusal in Japanese', async () => (await p.page.getByTestId('register-error').textContent()).includes('1つの文字体系'));
  await p.page.getByTestId('register-name').fill('健太');
  await p.page.getByTestId('register-submit').click();
  await p.page.waitForURL(`${live.server.url}/`);
  await until('健太 shown as logged in', async () => (await p.page.getByTestId('account-name').textContent().catch(() => '')) === '健太');
  // The profile answers at the name's own address.
  await p.page.goto(`${live.server.url}/players/${encodeURIComponent('健太')}`);
  await until('the profile of 健太', async () => (await p.page.locator('h1, h2').first().textContent()).includes('健太'));
  await shoot(p, 'kenta-ja');
  assert.deepEqual(p.io.errors, []);
  await p.page.context().close();
});

test('a forgotten password: without mail the page says to ask the admin; a bad reset link says so', async () => {
  const p = await person('forgot');
  await p.page.goto(`${live.server.url}/account`);
  await p.page.getByTestId('forgot').locator('summary').click();
  await p.page.getByTestId('forgot-name').fill('akira');
  await p.page.getByTestId('forgot-submit').click();
  await until('the no-mail answer', async () => /admin/.test(await p.page.getByTestId('forgot-status').textContent()));
  await p.page.goto(`${live.server.url}/account/reset?token=${'0'.repeat(64)}`);
  await p.page.getByTestId('reset-password').fill('a brand new password');
  await p.page.getByTestId('reset-submit').click();
  await until('the bad-link answer', async () => /out of date/.test(await p.page.getByTestId('reset-status').textContent()));
  await p.page.goto(`${live.server.url}/account/verify?token=${'0'.repeat(64)}`);
  await until('the bad-link answer', async () => /out of date/.test(await p.page.getByTestId('verify-status').textContent()));
  await shoot(p, 'verify-bad');
  assert.deepEqual(p.io.errors, []);
  await p.page.context().close();
});
