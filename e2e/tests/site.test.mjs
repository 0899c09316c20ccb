// The site around the games, in a Chromium that has NO CJK font (fontconfig lists only
// DejaVu): the bundled piece outlines and Japanese web font; the language switch (no
// English left on the Japanese lobby and room); "Play the computer" in one click; the
// lobby's lists (names, moves, winner, date, pages); preferences; screenshots.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { launchNoCjk, noCjkFontsConf } from '../lib/nocjk.mjs';
import { serverAndBrowser } from '../lib/setup.mjs';
import { mockServer, ORIGIN, STATIC } from '../lib/mock.mjs';
import { DESKTOP, PHONE, SHOTS, englishLeft, shot, until, visitor } from '../lib/site.mjs';
import { playMove } from '../lib/people.mjs';
import { chooseLang } from '../lib/site.mjs';

const live = serverAndBrowser({ shots: SHOTS, launchBrowser: launchNoCjk });

const BUNDLED = new Set([...'玉王飛角金銀桂香歩帝龍馬全杏と']);

test('the browser under test has no CJK font at all', () => {
  const res = spawnSync('fc-list', [':lang=ja'], { env: { ...process.env, FONTCONFIG_FILE: noCjkFontsConf() }, encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  assert.equal(res.stdout.trim(), '', `fontconfig should know no Japanese font, got:\n${res.stdout}`);
});

test('the server serves the client at /rules and /analysis', async () => {
  for (const path of ['/rules', '/analysis']) {
    const res = await fetch(`${live.server.url}${path}`);
    assert.equal(res.status, 200, `GET ${path} must serve index.html (as /rooms/{id} does)`);
    assert.match(await res.text(), /<script type="module" src="\/v\/[0-9a-f]{16}\/js\/main.js">/);
  }
});

test('the Japanese web font covers every character of the Japanese messages', () => {
  const chars = new Set([...readFileSync(`${STATIC}fonts/sannin-ja.chars.txt`, 'utf8').trim()]);
  const ja = ['ja.js', 'ja-games.js', 'ja-play.js'].map((f) => readFileSync(`${STATIC}js/i18n/${f}`, 'utf8')).join('');
  const missing = [...new Set([...ja].filter((c) => c.codePointAt(0) > 0x3000 && !chars.has(c)))];
  assert.deepEqual(missing, [], 'run python3 static/fonts/build.py after changing ja.js');
});

test('pieces show their kanji from the bundled outlines; Japanese text from the bundled font', async () => {
  const v = await visitor(live.browser, 'reader');
  const { page } = v;
  await page.goto(`${live.server.url}/`);
  await page.locator('.hero-board .piece').first().waitFor();
  // The start position on the lobby: 54 pieces, each a kanji drawn as an SVG path.
  const glyphs = await page.$$eval('.hero-board .piece', (ps) => ps.map((p) => p.querySelector('path.kanji-glyph')?.dataset.char ?? null));
  assert.equal(glyphs.length, 54);
  for (const ch of glyphs) assert.ok(BUNDLED.has(ch), `piece drawn from a bundled outline (${ch})`);
  const pathLength = await page.$eval('.hero-board path.kanji-glyph', (p) => p.getAttribute('d').length);
  assert.ok(pathLength > 100, 'a real outline, not a placeholder');
  await shot(page, { path: `${SHOTS}lobby-en-desktop.png`, fullPage: true });

  await chooseLang(page, 'ja');
  await page.getByRole('heading', { level: 1 }).filter({ hasText: '三人将棋' }).waitFor();
  await until('the Japanese web font', () => page.evaluate(async () => {
    await document.fonts.ready;
    return [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'Sannin JP' && f.status === 'loaded');
  }));
  // Rendered with it: a line of Japanese is as wide as the bundled font makes it, not
  // as wide as fallback boxes of a missing font.
  const widths = await page.evaluate(() => {
    const probe = (family) => {
      const s = document.createElement('span');
      s.style.font = `20px ${family}`;
      s.textContent = '三人将棋の遊び方';
      document.body.append(s);
      const w = s.getBoundingClientRect().width;
      s.remove();
      return w;
    };
    return { bundled: probe('"Sannin JP"'), page: probe(getComputedStyle(document.body).fontFamily) };
  });
  assert.ok(Math.abs(widths.bundled - widths.page) < 1, `page font uses the bundled face (${JSON.stringify(widths)})`);
  await shot(page, { path: `${SHOTS}lobby-ja-desktop.png`, fullPage: true });
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

test('one click on "Play the computer" seats the reader in a running game against two bots', async () => {
  const v = await visitor(live.browser, 'player');
  const { page } = v;
  await page.goto(`${live.server.url}/`);
  await page.getByTestId('name').fill('Akira'); // optional: typing is not a click
  let clicks = 0;
  await page.getByTestId('play-computer').click();
  clicks += 1;
  await page.waitForURL(/\/rooms\/[^/]+$/);
  const s = await until('a running game with the reader seated', () => {
    const st = v.lastState();
    return st?.status === 'playing' && st.you === 'first' ? st : null;
  });
  assert.equal(s.seats.first.name, 'Akira');
  assert.equal(s.seats.middle.bot, 2);
  assert.equal(s.seats.last.bot, 2);
  assert.ok(clicks <= 2);
  await page.locator('[data-cell] .piece').first().waitFor();
  await shot(page, { path: `${SHOTS}room-vs-computer-en.png` });
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

test('a mangled room link says "no such room" instead of a blank page', async () => {
  const v = await visitor(live.browser, 'mangled');
  const { page } = v;
  for (const path of ['/rooms/%E0%A4%A', '/rooms/%', '/rooms/no-such-room']) {
    await page.goto(`${live.server.url}${path}`);
    await page.getByTestId('no-room').waitFor();
    assert.match(await page.getByTestId('no-room').innerText(), /No such room/);
  }
  assert.deepEqual(v.io.errors, [], 'no script error on a bad link');
  await v.context.close();
});

test('no Content Security Policy violation while playing, on the rules or the analysis board', async () => {
  const v = await visitor(live.browser, 'csp');
  const { page } = v;
  const violations = [];
  await page.exposeFunction('reportCspViolation', (what) => violations.push(what));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      window.reportCspViolation(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  const res = await page.goto(`${live.server.url}/`);
  assert.match(res.headers()['content-security-policy'] ?? '', /default-src 'self'/, 'the page is served with a CSP');
  await page.getByTestId('play-computer').click();
  await page.waitForURL(/\/rooms\/[^/]+$/);
  await playMove(v);
  await until('the bots answered', () => (v.io.events.filter((e) => e.type === 'action').length >= 3 ? true : null));
  await page.goto(`${live.server.url}/rules`);
  await page.locator('.piece').first().waitFor();
  await page.goto(`${live.server.url}/analysis`);
  await page.locator('[data-cell]').first().waitFor();
  assert.deepEqual(violations, []);
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

/** Names of players are data, not messages (bots and nameless players are named by the
 * server). */
function playerNames(page) {
  return page.evaluate(async () => (await (await fetch('/api/rooms')).json())
    .flatMap((r) => Object.values(r.seats ?? {}).filter(Boolean).map((s) => s.name)));
}

test('in Japanese no English is left on the lobby and the room page', async () => {
  // A game of three bots, so that the lobby lists a running game.
  const res = await fetch(`${live.server.url}/api/rooms`, { method: 'POST', body: JSON.stringify({ bots: { first: 0, middle: 0, last: 0 } }), headers: { 'content-type': 'application/json' } });
  assert.equal(res.status, 201);
  const v = await visitor(live.browser, 'ja', { lang: 'ja' });
  const { page } = v;
  await page.goto(`${live.server.url}/`);
  await page.getByTestId('play-computer').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'ja', 'the browser language is the default');
  await until('rooms listed', () => page.getByTestId('rooms-playing').count());
  const names = await playerNames(page);
  const lobby = await englishLeft(page, [...names, 'English']);
  assert.deepEqual(lobby.messages, [], 'English messages left on the Japanese lobby');
  assert.deepEqual(lobby.words, [], 'English words left on the Japanese lobby');
  await shot(page, { path: `${SHOTS}lobby-ja-with-games.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await shot(page, { path: `${SHOTS}lobby-ja-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);

  await page.getByTestId('play-computer').click();
  await page.waitForURL(/\/rooms\/[^/]+$/);
  await until('playing', () => v.lastState()?.status === 'playing');
  await page.locator('[data-cell] .piece').first().waitFor();
  const st = v.lastState();
  const room = await englishLeft(page, [...Object.values(st.seats).map((s) => s.name), 'English', ...st.moves]);
  await shot(page, { path: `${SHOTS}room-ja-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await shot(page, { path: `${SHOTS}room-ja-phone.png`, fullPage: true });
  assert.deepEqual(room.messages, [], 'English messages left on the Japanese room page');
  await v.context.close();
});

test('the language switch changes every visible string of the lobby, both ways', async () => {
  const v = await visitor(live.browser, 'switcher');
  const { page } = v;
  await page.goto(`${live.server.url}/`);
  await page.getByTestId('play-computer').waitFor();
  // The lists change as games go on: compare the rest of the page, once the pools'
  // waiting counts have come (their numbers may change between the two looks).
  const fixedText = async () => {
    await page.getByTestId('play-now-pool').filter({ hasText: 'waiting' }).waitFor();
    const texts = await page.locator('header, .hero, .paths, section > h2').allInnerTexts();
    return texts.map((text) => text.replace(/\b\d+ waiting\b/g, '# waiting'));
  };
  const before = await fixedText();
  await chooseLang(page, 'ja');
  await page.getByTestId('play-computer').filter({ hasText: 'コンピューター' }).waitFor();
  const left = await englishLeft(page, [...await playerNames(page), 'English']);
  assert.deepEqual(left.messages, []);
  // Remembered: a reload stays Japanese; switching back restores the English page.
  await page.reload();
  await page.getByTestId('play-computer').filter({ hasText: 'コンピューター' }).waitFor();
  await chooseLang(page, 'en');
  await page.getByTestId('play-computer').filter({ hasText: 'Play the computer' }).waitFor();
  assert.deepEqual(await fixedText(), before);
  await v.context.close();
});

function mockRooms(n) {
  const rooms = [
    { id: 'w1', status: 'waiting', seats: { first: { name: 'Akira', bot: null }, middle: null, last: null }, spectators: 0 },
    { id: 'p1', status: 'playing', seats: { first: { name: 'Akira' }, middle: { name: 'Beni' }, last: { name: 'Chiyo' } }, spectators: 2, moves: 3 },
    // An older server: no move count, no dates.
    { id: 'p2', status: 'playing', seats: { first: { name: 'Dai' }, middle: { name: 'Eri' }, last: { name: 'Fumi' } }, spectators: 0 },
  ];
  for (let i = 0; i < n; i++) {
    rooms.push({
      id: `f${i}`, status: 'finished', spectators: 0, moves: 40 + i,
      seats: { first: { name: `Ann${i}` }, middle: { name: `Bob${i}` }, last: { name: `Cid${i}` } },
      result: { winners: [['First', 'Middle', 'Last'][i % 3]], reason: 'last_player' },
      created_at_ms: Date.UTC(2026, 0, 1 + i, 9), updated_at_ms: Date.UTC(2026, 0, 1 + i, 10),
    });
  }
  return rooms;
}

test('lobby lists: rooms named by players, moves, alliance and mini-boards, winners, dates, pages', async () => {
  const context = await live.browser.newContext({ viewport: DESKTOP, locale: 'en-GB' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const ALLIED = 'lL1lP1fP1fL/lSlBlP2fPfRfS/lG1lP3fP1fG/lK1lP4fP1f+K/lG1lN5fN1fG/lS1lP6fP1fS/lLlRlP7fPfBfL/1lP8fP1/lP9fP/10/mPmPmPmPmNmPmPmPmP/1mB4mR1/mLmSmGmKmGmSmL F -/-/- FML ML -';
  await mockServer(page, {
    api: (path) => {
      if (path === '/api/rooms') return { json: mockRooms(19) };
      if (path === '/api/rooms/p1') return { json: { id: 'p1', status: 'playing', position: ALLIED, moves: ['P3c-4d', 'P10k-10j', 'P11g-10g'] } };
      return null;
    },
  });
  await page.goto(`${ORIGIN}/`);
  const p1 = page.locator('[data-room="p1"]');
  await p1.locator('svg.mini-board').waitFor();
  assert.match(await p1.textContent(), /Akira · Beni · Chiyo/);
  assert.match(await p1.textContent(), /3 moves/);
  assert.match(await p1.textContent(), /Alliance: Middle and Last/);
  assert.equal(await p1.locator('.piece').count(), 54);
  // Without the new summary fields the card still shows, without a move count.
  const p2 = page.locator('[data-room="p2"]');
  assert.match(await p2.textContent(), /Dai · Eri · Fumi/);
  assert.doesNotMatch(await p2.textContent(), /moves/);
  assert.match(await page.locator('[data-room="w1"]').textContent(), /Akira/);
  await page.getByTestId('join-w1-middle').waitFor();

  // Finished: newest first, 8 a page, winner with name and seat, date, length.
  const finished = page.getByTestId('rooms-finished');
  assert.equal(await finished.locator('li').count(), 8);
  const first = finished.locator('li').first();
  assert.match(await first.textContent(), /Ann18 · Bob18 · Cid18/);
  assert.match(await first.textContent(), /Winner: Ann18 \(First\)/);
  assert.match(await first.textContent(), /19 Jan 2026/);
  assert.match(await first.textContent(), /58 moves/);
  assert.equal(await page.getByTestId('finished-page').textContent(), 'Page 1 of 3');
  await page.getByTestId('finished-next').click();
  await page.getByTestId('finished-next').click();
  assert.equal(await page.getByTestId('finished-page').textContent(), 'Page 3 of 3');
  assert.equal(await finished.locator('li').count(), 3);
  assert.match(await finished.locator('li').last().textContent(), /Winner: Ann0 \(First\)/);
  assert.ok(await page.getByTestId('finished-next').isDisabled());
  await shot(page, { path: `${SHOTS}lobby-lists-en.png`, fullPage: true });
  await chooseLang(page, 'ja');
  await page.locator('[data-room="p1"]').filter({ hasText: '同盟：中手と後手' }).waitFor();
  await shot(page, { path: `${SHOTS}lobby-lists-ja.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await shot(page, { path: `${SHOTS}lobby-lists-ja-phone.png`, fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, 'no horizontal scrolling on a phone');
  assert.deepEqual(errors, []);
  await context.close();
});

test('finished games follow the server\'s Link cursor page by page', async () => {
  const context = await live.browser.newContext({ viewport: DESKTOP, locale: 'en-GB' });
  const page = await context.newPage();
  const asked = [];
  const room = (i) => ({
    id: `g${i}`, status: 'finished', spectators: 0, moves: 10 + i,
    seats: { first: { name: `Ann${i}` }, middle: { name: `Bob${i}` }, last: { name: `Cid${i}` } },
    result: { winners: ['Middle', 'Last'], reason: 'alliance_defeated' },
    created_at_ms: Date.UTC(2026, 1, 1), updated_at_ms: Date.UTC(2026, 1, 1, 12) - i * 60000,
  });
  await mockServer(page, { api: (path) => (path === '/api/rooms' ? { json: [] } : null) });
  await page.route((url) => url.pathname === '/api/rooms' && url.searchParams.get('status') === 'finished', (route) => {
    const url = new URL(route.request().url());
    asked.push(url.search);
    assert.equal(url.searchParams.get('limit'), '8');
    const cursor = url.searchParams.get('cursor');
    if (!cursor) {
      return route.fulfill({ json: [...Array(8).keys()].map(room), headers: { link: '</api/rooms?status=finished&limit=8&cursor=c8>; rel="next"' } });
    }
    assert.equal(cursor, 'c8');
    return route.fulfill({ json: [8, 9, 10].map(room) });
  });
  await page.goto(`${ORIGIN}/`);
  const list = page.getByTestId('rooms-finished');
  await list.locator('li').nth(7).waitFor();
  assert.equal(await page.getByTestId('finished-page').textContent(), 'Page 1');
  assert.match(await list.locator('li').first().textContent(), /Ann0 · Bob0 · Cid0\s*Winners: Bob0 \(Middle\) and Cid0 \(Last\)\s*1 Feb 2026, 12:00 · 10 moves/);
  await page.getByTestId('finished-next').click();
  await page.getByTestId('finished-page').filter({ hasText: 'Page 2' }).waitFor();
  assert.deepEqual(await list.locator('li').evaluateAll((ls) => ls.map((l) => l.dataset.room)), ['g8', 'g9', 'g10']);
  assert.ok(await page.getByTestId('finished-next').isDisabled());
  await page.getByTestId('finished-prev').click();
  await page.getByTestId('finished-page').filter({ hasText: 'Page 1' }).waitFor();
  assert.ok(asked.includes('?status=finished&limit=8&cursor=c8'));
  await context.close();
});

/** RULES §11 step 2: First's king one step from the Pleasure Garden, First to move. */
const NEAR_GARDEN = '7/8/9/lK9/11/12/7fK5/12/11/10/9/8/3mK3 F -/-/- FML - -';

test('finished games from the server: winner, date, length, and pages by the Link cursor', async () => {
  const v = await visitor(live.browser, 'finisher');
  const { page } = v;
  await page.goto(`${live.server.url}/`);
  // Ten games won at once by a player named Akira stepping into the garden.
  const ids = await page.evaluate(async (position) => {
    const play = async () => {
      const res = await fetch('/api/rooms', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ position, bots: { middle: 0, last: 0 } }) });
      const { id } = await res.json();
      await new Promise((resolve, reject) => {
        const ws = new WebSocket(`ws://${location.host}/api/rooms/${id}/ws`);
        let acted = false;
        ws.onopen = () => ws.send(JSON.stringify({ type: 'join', seat: 'first', name: 'Akira' }));
        ws.onmessage = (e) => {
          const m = JSON.parse(e.data);
          if (m.type === 'seated') ws.send(JSON.stringify({ type: 'ready' }));
          if (m.type === 'state' && m.status === 'playing' && m.to_move === 'first' && !acted) {
            acted = true;
            ws.send(JSON.stringify({ type: 'act', action: 'K6g-7g' }));
          }
          if (m.type === 'state' && m.status === 'finished') { ws.close(); resolve(); }
          if (m.type === 'error') reject(new Error(m.message));
        };
      });
      return id;
    };
    const out = [];
    for (let i = 0; i < 10; i++) out.push(await play());
    return out;
  }, NEAR_GARDEN);
  await page.reload();
  const list = page.getByTestId('rooms-finished');
  await until('eight finished games on the first page', async () => (await list.locator('li').count()) === 8);
  const shownIds = () => list.locator('li').evaluateAll((ls) => ls.map((l) => l.dataset.room));
  const page1 = await shownIds();
  assert.equal(new Set(page1).size, 8);
  for (const id of page1) assert.ok(ids.includes(id));
  const first = list.locator('li').first();
  const firstId = page1[0];
  assert.match(await first.textContent(), /Akira · Bot \(random moves\) · Bot \(random moves\)/);
  // The winner, the date and the length come from the summary's `result`,
  // `updated_at_ms` and `moves`; without them: "Finished", no date, no length.
  const summary = (await (await fetch(`${live.server.url}/api/rooms?status=finished`)).json()).find((r) => r.id === firstId);
  assert.equal(/1 move$/.test(await first.textContent()), summary.moves === 1);
  const winner = await first.getByTestId(`winner-${firstId}`).textContent();
  if (summary.result) assert.equal(winner, 'Winner: Akira (First)');
  else assert.equal(winner, 'Finished');
  const today = new Date().toLocaleString('en-GB', { dateStyle: 'medium' });
  assert.equal((await first.textContent()).includes(today), Boolean(summary.updated_at_ms), `dated ${today}`);
  // Pages: by the server's Link cursor ("Page 1"), or cut here from a server that
  // lists every room at once ("Page 1 of 2").
  assert.match(await page.getByTestId('finished-page').textContent(), /^Page 1( of 2)?$/);
  assert.ok(await page.getByTestId('finished-prev').isDisabled());
  await page.getByTestId('finished-next').click();
  await page.getByTestId('finished-page').filter({ hasText: /^Page 2/ }).waitFor();
  const rest = ids.filter((id) => !page1.includes(id));
  assert.deepEqual(new Set(await shownIds()), new Set(rest));
  assert.equal(rest.length, 2);
  assert.ok(await page.getByTestId('finished-next').isDisabled());
  await shot(page, { path: `${SHOTS}lobby-finished-page2-en.png`, fullPage: true });
  await page.getByTestId('finished-prev').click();
  await page.getByTestId('finished-page').filter({ hasText: 'Page 1' }).waitFor();
  assert.equal(await list.locator('li').count(), 8);
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

test('preferences: piece style, theme and switches are kept in the browser and applied', async () => {
  const v = await visitor(live.browser, 'prefs');
  const { page } = v;
  await page.goto(`${live.server.url}/rules`);
  await page.getByTestId('piece-diagrams').waitFor();
  assert.ok(await page.locator('.piece-card path.kanji-glyph').count() >= 14);
  await page.getByTestId('open-prefs').click();
  await page.getByTestId('pref-pieceStyle-international').check();
  await page.getByTestId('pref-theme-dark').check();
  await page.getByTestId('pref-coordinates').uncheck();
  await page.getByTestId('pref-confirmMoves').check();
  assert.equal(await page.getByTestId('pref-announceMoves').isChecked(), false, 'moves are not read out unless asked for');
  await page.getByTestId('pref-announceMoves').check();
  await page.getByTestId('prefs-close').click();
  // International pieces: an upright letter instead of the kanji.
  assert.equal(await page.locator('.piece-card path.kanji-glyph').count(), 0);
  assert.equal(await page.locator('.piece-card[data-piece="R"] .piece .letter').textContent(), 'R');
  assert.equal(await page.locator('.piece-card[data-piece="+R"] .piece .letter').textContent(), '+R');
  await page.reload();
  await page.getByTestId('piece-diagrams').waitFor();
  const root = await page.evaluate(() => ({ ...document.documentElement.dataset }));
  assert.deepEqual(root, { theme: 'dark', pieceStyle: 'international', coords: 'off', targets: 'on', moveInput: 'both', typedMoves: 'on', boardSize: 'm' });
  const prefs = await page.evaluate(async () => (await import(document.querySelector('script[type=module]').src.replace(/main\.js$/, 'prefs.js'))).allPrefs());
  assert.deepEqual(prefs, { pieceStyle: 'international', theme: 'dark', sound: true, legalTargets: true, confirmMoves: true, coordinates: false, announceMoves: true, moveInput: 'both', typedMoves: true, boardSize: 'm' });
  // Bad values are refused, not stored.
  const err = await page.evaluate(async () => {
    try { (await import(document.querySelector('script[type=module]').src.replace(/main\.js$/, 'prefs.js'))).setPref('theme', 'neon'); return null; } catch (e) { return e.message; }
  });
  assert.match(err, /bad value for theme/);
  await v.context.close();
});

test('screenshots: rules, each piece style and theme, both languages, desktop and phone', async () => {
  const record = 'P3c-4d P10k-10j P11g-10g S1b-2d S8m-9l S12f-10e';
  for (const lang of ['en', 'ja']) {
    for (const [vpName, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
      const v = await visitor(live.browser, `shots-${lang}-${vpName}`, { lang, viewport });
      await v.page.goto(`${live.server.url}/rules`);
      await v.page.getByTestId('piece-diagrams').waitFor();
      await shot(v.page, { path: `${SHOTS}rules-${lang}-${vpName}.png`, fullPage: true });
      await v.page.goto(`${live.server.url}/`);
      await v.page.getByTestId('play-computer').waitFor();
      await shot(v.page, { path: `${SHOTS}lobby-${lang}-${vpName}.png`, fullPage: true });
      assert.deepEqual(v.io.errors, []);
      await v.context.close();
    }
  }
  for (const pieceStyle of ['kanji', 'international']) {
    for (const theme of ['light', 'dark', 'wood']) {
      for (const [vpName, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
        const lang = theme === 'wood' ? 'ja' : 'en';
        const v = await visitor(live.browser, 'styles', { viewport, lang, prefs: { pieceStyle, theme } });
        await v.page.goto(`${live.server.url}/analysis?record=${encodeURIComponent(record)}`);
        await v.page.getByTestId('where').waitFor();
        await v.page.getByTestId('step-prev').click();
        const style = await v.page.locator('[data-cell="4d"] .piece').getAttribute('class');
        assert.match(style, new RegExp(`style-${pieceStyle}`));
        await shot(v.page, { path: `${SHOTS}analysis-${pieceStyle}-${theme}-${lang}-${vpName}.png`, fullPage: vpName === 'phone' });
        assert.deepEqual(v.io.errors, []);
        await v.context.close();
      }
    }
  }
});
