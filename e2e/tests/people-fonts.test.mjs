// People's own text in Japanese, Chinese and Korean — their names and their chat — in a
// Chromium whose fontconfig lists only DejaVu: three players named 健太, 李明 and 김민준
// sit at a table, each says a line in their language, and a spectator watches. Their
// names on the seat cards and their chat lines are drawn as glyphs of the "Sannin People"
// slices (static/fonts/people/), not as boxes, and the spectator's page fetches only the
// few slices that hold those characters; a browser with Noto Sans CJK installed fetches
// none. Screenshots (desktop and phone, English and Japanese, chat open) go to
// PEOPLE_SHOTS (or /tmp/fonts-shots/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch } from '../lib/browser.mjs';
import { DEJAVU, launchNoCjk } from '../lib/nocjk.mjs';
import { serverAndBrowser } from '../lib/setup.mjs';
import { STATIC } from '../lib/mock.mjs';
import { fontChars, lacking, measure, peopleChars } from '../lib/glyphs.mjs';
import { joinRoom } from '../lib/people.mjs';
import { DESKTOP, PHONE, shot, until, visitor } from '../lib/site.mjs';

const SHOTS = process.env.PEOPLE_SHOTS ?? '/tmp/fonts-shots/';
const live = serverAndBrowser({ shots: SHOTS, launchBrowser: launchNoCjk });

const PLAYERS = [
  { seat: 'first', name: '健太', line: 'よろしくお願いします' },
  { seat: 'middle', name: '李明', line: '你好，我们开始吧' },
  { seat: 'last', name: '김민준', line: '안녕하세요, 잘 부탁해요' },
];
const SLICES = readdirSync(`${STATIC}fonts/people`).filter((f) => f.endsWith('.woff2'));
const NOTO_CJK = '/usr/share/fonts/opentype/noto';

async function createRoom() {
  const res = await fetch(`${live.server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(res.status, 201);
  return (await res.json()).id;
}

/** A person in a context of their own of `browser` (the DejaVu-only one unless told),
 * in `lang` (English unless told), whose requests for the people's slices are recorded
 * in `slices`. */
async function person(label, { viewport = DESKTOP, lang = 'en', browser = live.browser } = {}) {
  const p = await visitor(browser, label, { viewport, lang });
  p.slices = [];
  p.page.on('request', (r) => {
    const m = /\/fonts\/people\/([^/?]+\.woff2)/.exec(r.url());
    if (m) p.slices.push(m[1]);
  });
  return p;
}

/** The three players seated in a new room, each having said their line. */
async function table() {
  const id = await createRoom();
  const players = [];
  for (const { seat, name } of PLAYERS) {
    const p = await person(seat);
    await joinRoom(p, live.server, id, name, seat);
    players.push(p);
  }
  for (const [i, p] of players.entries()) {
    await p.page.getByTestId('chat-input').fill(PLAYERS[i].line);
    await p.page.getByTestId('chat-send').click();
  }
  await until('every line said', async () => {
    const text = await players[0].page.getByTestId('chat-players').textContent();
    return PLAYERS.every((x) => text.includes(x.line));
  });
  return { id, players };
}

/** A spectator who opens room `id` and reads the players' chat. */
async function watch(id, options) {
  const fan = await person('fan', options);
  await fan.page.goto(`${live.server.url}/rooms/${id}`);
  await until('fan watching', () => fan.lastState());
  await fan.page.getByTestId('chat-tab-players').click();
  await until('fan reads the players', async () => {
    const text = await fan.page.getByTestId('chat-players').textContent();
    return PLAYERS.every((x) => text.includes(x.line));
  });
  return fan;
}

test('names and chat in Japanese, Chinese and Korean show as glyphs from a few slices, not boxes, with only DejaVu installed', async (t) => {
  const { id, players } = await table();
  const fan = await watch(id);
  const { page } = fan;
  // The names on the seat cards.
  const cards = await page.locator('.seat-card').allTextContents();
  for (const { name } of PLAYERS) assert.ok(cards.some((c) => c.includes(name)), `${name} on a seat card`);
  // Controls: a character of each script that no bundled font holds is drawn as a box.
  const held = new Set([...fontChars('ja'), ...fontChars('zh'), ...fontChars('ko'), ...peopleChars()]);
  const controls = [lacking(0x9fa6, held), lacking(0xd7a4, held)];
  for (const { name, line } of PLAYERS) {
    for (const c of name + line) {
      if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(c)) assert.ok(held.has(c), `${c} is in a bundled font`);
    }
  }
  for (const control of controls) {
    const r = await page.evaluate(measure, control);
    const text = PLAYERS.map((x) => x.name + x.line).join('');
    const distinct = new Set([...text].filter((c) => /[\p{L}]/u.test(c) && c.codePointAt(0) > 0x2000));
    assert.ok(r.count >= distinct.size, `the page shows the names and lines (${r.count} CJK characters, ${distinct.size} wanted)`);
    assert.deepEqual(r.boxes, [], 'characters drawn as boxes (char, weight, font)');
    assert.deepEqual(r.misdrawn, [], 'characters laid out in another font (char, width, width in its font, weight, element)');
  }
  // Only the slices that hold those characters came: a few, not all of them.
  const fetched = [...new Set(fan.slices)];
  t.diagnostic(`slices fetched: ${fetched.length} of ${SLICES.length} (${fetched.join(' ')})`);
  assert.ok(fetched.length > 0, 'the people\'s slices are used');
  assert.ok(fetched.length < 10, `a few slices fetched, not ${fetched.length}: ${fetched.join(' ')}`);
  assert.ok(fetched.length < SLICES.length / 3, `${fetched.length} of ${SLICES.length} slices fetched`);
  for (const p of [...players, fan]) assert.deepEqual(p.io.errors, []);
  for (const p of [...players, fan]) await p.context.close();
});

test('a browser with Noto Sans CJK installed draws the names and chat with it and fetches no slice', { skip: !existsSync(`${NOTO_CJK}/NotoSansCJK-Regular.ttc`) && 'no Noto Sans CJK here' }, async () => {
  // A fontconfig that knows DejaVu and the system's Noto CJK (fonts-noto-cjk).
  const dir = mkdtempSync(join(tmpdir(), 'sannin-fonts-'));
  const conf = join(dir, 'fonts.conf');
  writeFileSync(conf, `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>${DEJAVU}</dir>
  <dir>${NOTO_CJK}</dir>
  <cachedir>${join(dir, 'cache')}</cachedir>
  <alias><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
</fontconfig>
`);
  const browser = await launch({ env: { ...process.env, FONTCONFIG_FILE: conf } });
  try {
    const { id, players } = await table();
    const fan = await watch(id, { browser });
    await fan.page.evaluate(() => document.fonts.ready);
    assert.deepEqual([...new Set(fan.slices)], [], 'no slice fetched');
    assert.deepEqual(fan.io.errors, []);
    for (const p of [...players, fan]) await p.context.close();
  } finally {
    await browser.close();
  }
});

test('the slices are served as woff2 and the stylesheet as CSS', async () => {
  const css = await fetch(`${live.server.url}/fonts/people/people.css`);
  assert.equal(css.status, 200);
  assert.match(css.headers.get('content-type'), /^text\/css/);
  const text = await css.text();
  // Relative to the stylesheet: under its versioned path, the slices are too.
  for (const file of SLICES) assert.ok(text.includes(`url("${file}")`), `${file} declared`);
  const font = await fetch(`${live.server.url}/fonts/people/${SLICES[0]}`);
  assert.equal(font.status, 200);
  assert.equal(font.headers.get('content-type'), 'font/woff2');
  assert.equal(Buffer.from(await font.arrayBuffer()).subarray(0, 4).toString('latin1'), 'wOF2');
});

test('screenshots: the game page with the three seated and the chat open, in English and Japanese, desktop and phone', async () => {
  const { id, players } = await table();
  for (const lang of ['en', 'ja']) {
    for (const [kind, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
      // A player's page, and a spectator's.
      const p = await person(`${lang}-${kind}`, { viewport, lang });
      await p.page.goto(`${live.server.url}/rooms/${id}`);
      await until('watching', () => p.lastState());
      await p.page.getByTestId('chat-tab-players').click();
      await until('chat read', async () => (await p.page.getByTestId('chat-players').textContent()).includes(PLAYERS[2].line));
      const tab = p.page.getByTestId('tab-chat');
      if (await tab.isVisible()) await tab.click();
      await p.page.evaluate(() => document.fonts.ready);
      await shot(p.page, { path: `${SHOTS}room-${lang}-${kind}.png`, fullPage: kind === 'phone' });
      assert.deepEqual(p.io.errors, []);
      await p.context.close();
    }
  }
  // A player's own page (sending the line scrolled the chat into view).
  const first = players[0];
  await first.page.evaluate(() => window.scrollTo(0, 0));
  await shot(first.page, { path: `${SHOTS}room-en-player-desktop.png` });
  for (const p of players) await p.context.close();
});
