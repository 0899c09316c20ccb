// What a first and a second visit of a page cost, and what they show (docs/performance.md,
// "First load"): the room's tab title names the players and whose move it is, a second
// visit asks nothing that the cache could answer, a page loads only its reader's
// language, and an unknown address gets the site's 404 page with the way home; and the
// optional build (scripts/build-static.mjs, what the Docker image serves) works alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverAndBrowser } from '../lib/setup.mjs';
import { REPO, startServer } from '../lib/sannin.mjs';
import { DESKTOP, PHONE, SHOTS, shot, until, visitor } from '../lib/site.mjs';

const live = serverAndBrowser({ shots: SHOTS });

/** A room with Ann, Bob and Cid seated and ready (the game on, Ann to move), seated
 * from a page of the site's own origin: `{ id, tokens: { first, middle, last } }`. */
async function startedRoom(url = live.server.url) {
  const v = await visitor(live.browser, 'host');
  await v.page.goto(`${url}/healthz`);
  const room = await v.page.evaluate(async () => {
    const res = await fetch('/api/rooms', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const { id } = await res.json();
    const seat = (seat, name) => new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://${location.host}/api/rooms/${id}/ws`);
      ws.onopen = () => ws.send(JSON.stringify({ type: 'join', seat, name }));
      ws.onerror = reject;
      ws.onmessage = (m) => {
        const msg = JSON.parse(m.data);
        if (msg.type === 'seated') {
          ws.send(JSON.stringify({ type: 'ready' }));
          // The seat is the page's once this socket closes (its reconnect grace).
          setTimeout(() => ws.close(), 300);
          resolve(msg.token);
        }
      };
    });
    const first = await seat('first', 'Ann');
    const middle = await seat('middle', 'Bob');
    const last = await seat('last', 'Cid');
    return { id, tokens: { first, middle, last } };
  });
  await v.context.close();
  return room;
}

/** A visitor holding `token` for room `id` (that seat's player on a fresh browser). */
async function player(id, token, options = {}) {
  const v = await visitor(live.browser, options.label ?? 'player', options);
  await v.context.addInitScript(([room, t]) => localStorage.setItem(`sannin.token.${room}`, t), [id, token]);
  return v;
}

/** Every request of `page` from now on: path, whether the cache answered it, status. */
async function recordRequests(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const seen = new Map();
  cdp.on('Network.requestWillBeSent', (e) => seen.set(e.requestId, { url: e.request.url, cached: false, status: 0 }));
  cdp.on('Network.requestServedFromCache', (e) => { const r = seen.get(e.requestId); if (r) r.cached = true; });
  cdp.on('Network.responseReceived', (e) => {
    const r = seen.get(e.requestId);
    if (r) {
      r.status = e.response.status;
      r.cached ||= e.response.fromDiskCache;
    }
  });
  return () => [...seen.values()].filter((r) => r.url.startsWith('http')).map((r) => ({ ...r, path: new URL(r.url).pathname }));
}

const boardShown = (page) => page.waitForSelector('[data-cell] .piece');

test('the room\'s title names the players and says whose move it is, in the reader\'s language', async () => {
  const { id, tokens } = await startedRoom();
  const ann = await player(id, tokens.first, { label: 'ann' });
  await ann.page.goto(`${live.server.url}/rooms/${id}`);
  await boardShown(ann.page);
  // "(1) " before it: the reader's move in one game (mine.js).
  await until('Ann\'s title', async () => /^(\(1\) )?Ann vs Bob vs Cid · your move$/.test(await ann.page.title()))
    .catch(async (e) => { throw new Error(`${e.message}: "${await ann.page.title()}"`); });
  await shot(ann.page, { path: `${SHOTS}first-load-room-en-desktop.png` });
  const bob = await player(id, tokens.middle, { label: 'bob', lang: 'ja', viewport: PHONE });
  await bob.page.goto(`${live.server.url}/rooms/${id}`);
  await boardShown(bob.page);
  await until('Bob\'s title, in Japanese', async () => (await bob.page.title()) === 'Ann 対 Bob 対 Cid · Annの手番');
  await shot(bob.page, { path: `${SHOTS}first-load-room-ja-phone.png` });
  // A spectator is told who is to move, by name.
  const fan = await visitor(live.browser, 'fan');
  await fan.page.goto(`${live.server.url}/rooms/${id}`);
  await boardShown(fan.page);
  await until('the spectator\'s title', async () => (await fan.page.title()) === 'Ann vs Bob vs Cid · Ann to move');
  assert.deepEqual([...ann.io.errors, ...bob.io.errors, ...fan.io.errors], []);
  for (const v of [ann, bob, fan]) await v.context.close();
});

test('a second visit asks for no file the cache holds; a page loads its reader\'s language only', async () => {
  const { id, tokens } = await startedRoom();
  for (const [lang, other] of [['en', 'ja'], ['ja', 'en']]) {
    const v = await player(id, tokens.first, { label: `reader-${lang}`, lang, viewport: PHONE });
    const cold = await recordRequests(v.page);
    await v.page.goto(`${live.server.url}/rooms/${id}`);
    await boardShown(v.page);
    await v.page.waitForLoadState('networkidle');
    const first = cold();
    const files = first.filter((r) => r.path.startsWith('/v/'));
    assert.ok(files.length >= 3, `the files come from the versioned path: ${first.map((r) => r.path).join(' ')}`);
    // Only the reader's language: its table, none of another's.
    const langs = first.filter((r) => /\/js\/(lang|i18n)\//.test(r.path)).map((r) => r.path.replace(/^\/v\/\w+/, ''));
    assert.ok(langs.includes(`/js/lang/${lang}.js`), `${lang}: ${langs.join(' ')}`);
    for (const p of langs) assert.match(p, new RegExp(`/${lang}(-\\w+)?\\.js$`), `${lang} page loads ${p}`);
    assert.ok(!langs.some((p) => p.includes(`/${other}`)));

    // The same page again, in a new tab: the page itself is asked again (its files'
    // version may have changed), the API is asked, and nothing else goes out.
    const tab = await v.context.newPage();
    const warm = await recordRequests(tab);
    await tab.goto(`${live.server.url}/rooms/${id}`);
    await boardShown(tab);
    await tab.waitForLoadState('networkidle');
    const second = warm();
    const asked = second.filter((r) => !r.cached && !r.path.startsWith('/api/') && r.path !== `/rooms/${id}`);
    assert.deepEqual(asked.map((r) => r.path), [], `${lang}: asked again on the second visit`);
    assert.ok(second.filter((r) => r.cached).length >= files.length, `${lang}: the files came from the cache`);
    assert.deepEqual(v.io.errors, []);
    await v.context.close();
  }
});

test('an unknown address gets the site\'s 404 page, with the way home', async () => {
  const res = await fetch(`${live.server.url}/no/such/page`);
  assert.equal(res.status, 404);
  assert.match(res.headers.get('content-type'), /^text\/html/);
  const api = await fetch(`${live.server.url}/api/no/such/thing`);
  assert.equal(api.status, 404);
  assert.equal((await api.json()).error.code, 'not_found');

  for (const lang of ['en', 'ja']) {
    for (const [kind, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
      const v = await visitor(live.browser, `lost-${lang}`, { lang, viewport });
      const answer = await v.page.goto(`${live.server.url}/games/old-link`);
      assert.equal(answer.status(), 404);
      const missing = v.page.getByTestId('missing');
      await missing.waitFor();
      assert.match(await missing.textContent(), lang === 'en' ? /This page does not exist/ : /このページはありません/);
      assert.match(await missing.textContent(), /\/games\/old-link/);
      assert.equal(await v.page.title(), lang === 'en' ? 'Page not found · Sannin' : 'ページが見つかりません · 三人将棋');
      // The header of every page, and the icon of the tab.
      await v.page.getByTestId('home').waitFor();
      assert.match(await v.page.locator('link[rel="icon"]').getAttribute('href'), /^\/v\/[0-9a-f]{16}\/icon\.svg$/);
      await shot(v.page, { path: `${SHOTS}first-load-404-${lang}-${kind}.png` });
      if (lang === 'en' && kind === 'desktop') {
        await v.page.getByTestId('missing-home').click();
        await v.page.waitForURL(`${live.server.url}/`);
        await v.page.getByTestId('play-computer').waitFor();
      }
      assert.deepEqual(v.io.errors, []);
      await v.context.close();
    }
  }
});

const ESBUILD = join(REPO, 'scripts', 'build', 'node_modules', 'esbuild');

test('the optional build shows the same room page from a few bundled files, and the same 404 page', {
  skip: !existsSync(ESBUILD) && 'esbuild is not installed: (cd scripts/build && npm ci)',
}, async () => {
  const out = await mkdtemp(join(tmpdir(), 'sannin-built-'));
  const built = spawnSync(process.execPath, [join(REPO, 'scripts', 'build-static.mjs'), '--out', out], { encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  const server = await startServer({ staticDir: out });
  try {
    const { id, tokens } = await startedRoom(server.url);
    const v = await player(id, tokens.first, { label: 'built', lang: 'ja', viewport: PHONE });
    const requests = await recordRequests(v.page);
    await v.page.goto(`${server.url}/rooms/${id}`);
    await boardShown(v.page);
    await until('the title', async () => /^(\(1\) )?Ann 対 Bob 対 Cid · あなたの手番$/.test(await v.page.title()));
    await v.page.waitForLoadState('networkidle');
    const files = requests().filter((r) => r.path.startsWith('/v/'));
    const modules = files.filter((r) => r.path.endsWith('.js'));
    assert.ok(modules.length > 3 && modules.length < 30, `bundled: ${modules.map((r) => r.path).join(' ')}`);
    assert.deepEqual(modules.filter((r) => /\/i18n\/|\/lang\/(?!ja)/.test(r.path)).map((r) => r.path), [], 'one language, bundled');
    assert.equal(files.filter((r) => r.path.endsWith('.css')).length, 2, 'one stylesheet, and the people\'s fonts\' one');
    // The page's modules sent as the build compressed them.
    const res = await fetch(`${server.url}${modules[0].path}`, { headers: { 'accept-encoding': 'br' } });
    assert.equal(res.headers.get('content-encoding'), 'br');
    await v.page.goto(`${server.url}/no/such/page`);
    await v.page.getByTestId('missing').waitFor();
    assert.deepEqual(v.io.errors, []);
    await v.context.close();
  } finally {
    await server.stop();
    await rm(out, { recursive: true, force: true });
  }
});
