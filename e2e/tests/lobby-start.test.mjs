// The lobby's ways into a game against the real server: the three buttons (Play now,
// Play the computer, Play with friends) in the first screen of a desktop and of a
// phone, each leading where it says; a person alone in the queue offered the computer
// and a room for friends by the waiting panel after 20 s; and a ticket whose page has
// gone out of its pool's count within 15 s, so that Play now is not drawn to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS, personIn, until } from '../lib/people.mjs';

const live = serverAndBrowser({ shots: SHOTS });

const DESKTOP = { viewport: { width: 1366, height: 768 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** A person in a context of `options`, waiting for people only. */
async function person(label, options = DESKTOP) {
  const context = await live.browser.newContext(options);
  await context.addInitScript(() => {
    if (!sessionStorage.getItem('test.bots')) {
      localStorage.setItem('sannin.pairing.bots', JSON.stringify('never'));
      sessionStorage.setItem('test.bots', '1');
    }
  });
  return personIn(context, label);
}

async function lobby(p) {
  await p.page.goto(`${live.server.url}/`);
  await p.page.getByTestId('start-play-now').waitFor();
}

/** People waiting in the casual pool of `name`, as the server counts them. */
async function waitingIn(name) {
  const pools = await (await fetch(`${live.server.url}/api/pairing`)).json();
  return pools.find((x) => x.name === name && !x.rated).waiting;
}

/** Whether the element of `testid` lies wholly in the page's first screen. */
async function inFirstScreen(page, testid) {
  const box = await page.getByTestId(testid).boundingBox();
  const { height, width } = page.viewportSize();
  return Boolean(box) && box.y >= 0 && box.x >= 0 && box.y + box.height <= height && box.x + box.width <= width;
}

const BUTTONS = ['start-play-now', 'start-computer', 'start-friends'];

for (const [size, options] of [['desktop', DESKTOP], ['phone', PHONE]]) {
  test(`the three ways into a game are in the first screen on a ${size}, in every language`, async () => {
    const p = await person(`${size}`, options);
    for (const lang of ['en', 'ru', 'zh', 'ko', 'ja']) {
      await p.page.addInitScript((l) => localStorage.setItem('sannin.lang', l), lang);
      await lobby(p);
      await p.page.waitForFunction(() => !document.querySelector('[data-testid="start-play-now"]').disabled);
      for (const b of BUTTONS) assert.ok(await inFirstScreen(p.page, b), `${b} in the first screen (${lang}, ${size})`);
      assert.equal(await p.page.evaluate(() => scrollY), 0);
      await p.page.screenshot({ path: `${SHOTS}lobby-start-${size}-${lang}.png` });
    }
    assert.deepEqual(await Promise.all(BUTTONS.map((b) => p.page.getByTestId(b).locator('.start-label').textContent())),
      ['今すぐ対局', 'コンピューターと対局', '友達と対局']);
    assert.deepEqual(p.io.errors, []);
    await p.context.close();
  });
}

test('Play the computer starts a game with two computer players; Play with friends a room to share', async () => {
  const p = await person('ann');
  await lobby(p);
  await p.page.getByTestId('start-computer').click();
  await p.page.waitForURL(/\/rooms\/[^/]+$/);
  await until('the game running', () => p.lastState()?.status === 'playing');
  const seats = p.lastState().seats;
  assert.equal(Object.values(seats).filter((s) => s?.bot).length, 2, 'two computer players');
  await lobby(p);
  await p.page.getByTestId('start-friends').click();
  await p.page.waitForURL(/\/rooms\/[^/]+$/);
  await until('seated in a room that waits', () => p.lastState()?.status === 'waiting' && p.lastState()?.you);
  assert.deepEqual(p.io.errors, []);
  await p.context.close();
});

test('alone in the queue, the waiting panel offers the computer and a room for friends after 20 s', async () => {
  const p = await person('ann');
  await lobby(p);
  await p.page.getByTestId('start-play-now').click();
  await p.page.getByTestId('waiting-title').filter({ hasText: 'Looking for two opponents…' }).waitFor();
  const since = Date.now();
  assert.ok(await p.page.getByTestId('waiting-title').isVisible(), 'the waiting panel is in view');
  assert.equal(await p.page.getByTestId('start-play-now').isDisabled(), true);
  await p.page.waitForTimeout(15000);
  assert.equal(await p.page.getByTestId('waiting-offer').isHidden(), true, 'no offer after 15 s');
  await p.page.getByTestId('waiting-offer').waitFor({ timeout: 10000 });
  const waited = Date.now() - since;
  assert.ok(waited >= 19000 && waited < 23000, `the offer came after ${waited} ms`);
  assert.match(await p.page.getByTestId('waiting-offer').textContent(), /Nobody else is waiting yet/);
  assert.ok(await inFirstScreen(p.page, 'offer-computer'), 'the offer is in view');
  await p.page.screenshot({ path: `${SHOTS}lobby-waiting-offer-en.png` });
  // The offer in the other languages, the page switched while it waits.
  for (const lang of ['ja', 'ru', 'zh', 'ko', 'en']) {
    await p.page.getByTestId('lang').selectOption(lang);
    await p.page.waitForFunction((l) => document.documentElement.lang.startsWith(l), lang);
    assert.doesNotMatch(await p.page.getByTestId('waiting-offer').textContent(), lang === 'en' ? /^$/ : /Nobody else/);
    if (lang !== 'en') await p.page.screenshot({ path: `${SHOTS}lobby-waiting-offer-${lang}.png` });
  }
  assert.equal(await waitingIn('10+5'), 1);
  await p.page.getByTestId('offer-friends').click();
  await p.page.waitForURL(/\/rooms\/[^/]+$/);
  await until('seated in a room for friends', () => p.lastState()?.status === 'waiting' && p.lastState()?.you);
  assert.equal(await waitingIn('10+5'), 0, 'the place in the queue was given up');
  assert.deepEqual(p.io.errors, []);
  await p.context.close();
});

test('a ticket whose page has gone leaves its pool\'s count within 15 s, and Play now no longer picks that pool', async () => {
  const ann = await person('ann');
  const bob = await person('bob');
  await lobby(ann);
  await lobby(bob);
  await ann.page.getByTestId('pool-3+2/casual').click();
  await ann.page.getByTestId('waiting-title').waitFor();
  const count = bob.page.getByTestId('pool-3+2/casual').locator('.pool-count');
  await until('Bob sees Ann waiting', async () => (await count.textContent()) === '1 waiting');
  // The busiest pool is Ann's.
  await until('Play now picks 3+2', async () => /^3\+2 · Casual · 1 waiting$/.test(await bob.page.getByTestId('start-play-now').locator('.start-sub').textContent()));
  await ann.context.close();
  const closed = Date.now();
  await until('Ann\'s ticket gone from the count', async () => (await count.textContent()) === '0 waiting', 15000);
  const gone = Date.now() - closed;
  assert.ok(gone < 15000, `gone after ${gone} ms`);
  assert.equal(await waitingIn('3+2'), 0);
  assert.match(await bob.page.getByTestId('start-play-now').locator('.start-sub').textContent(), /^10\+5 · Casual · 0 waiting$/);
  assert.deepEqual(bob.io.errors, []);
  await bob.context.close();
});
