// Russian, Simplified Chinese and Korean beside English and Japanese: the message tables
// (every English key and no other, the same placeholders, the plural forms of the
// language), the bundled fonts covering every Chinese and Korean character of them, the
// browser's language choosing the client's, no English left on the lobby and the game
// page (seated and watching) in each language, and — in a Chromium whose fontconfig
// lists only DejaVu — Chinese and Korean drawn as glyphs of the bundled fonts, not as
// boxes. Screenshots (desktop and phone) go to LOCALE_SHOTS (or /tmp/locale-shots/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launchNoCjk } from '../lib/nocjk.mjs';
import { serverAndBrowser } from '../lib/setup.mjs';
import { STATIC } from '../lib/mock.mjs';
import { DESKTOP, PHONE, englishLeft, shot, until, visitor } from '../lib/site.mjs';

const SHOTS = process.env.LOCALE_SHOTS ?? '/tmp/locale-shots/';
const live = serverAndBrowser({ shots: SHOTS, launchBrowser: launchNoCjk });

const NEW = ['ru', 'zh', 'ko'];
const TAGS = { en: 'en', ja: 'ja', ru: 'ru', zh: 'zh-Hans', ko: 'ko' };
const NAMES = { en: 'English', ja: '日本語', ru: 'Русский', zh: '中文', ko: '한국어' };
/** Characters that need a CJK font: kana, hangul, Han, full-width forms. */
const CJK = /[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff\uff01-\uff5e]/u;

async function table(code) {
  const file = (name) => new URL(`../../static/js/i18n/${name}.js`, import.meta.url);
  return {
    ...(await import(file(code))).default, ...(await import(file(`${code}-games`))).default,
    ...(await import(file(`${code}-learn`))).default,
  };
}
const placeholders = (s) => [...new Set(s.match(/\{\w+\}/g) ?? [])].sort();
const forms = (v) => (typeof v === 'string' ? [v] : Object.values(v));
const fontChars = (code) => new Set([...readFileSync(`${STATIC}fonts/sannin-${code}.chars.txt`, 'utf8').trim()]);

test('each language has every key of the English tables and no other, with the same placeholders', async () => {
  const en = await table('en');
  for (const code of ['ja', ...NEW]) {
    const loc = await table(code);
    assert.deepEqual(Object.keys(en).filter((k) => !(k in loc)), [], `${code}: keys missing`);
    assert.deepEqual(Object.keys(loc).filter((k) => !(k in en)), [], `${code}: keys English lacks`);
    const categories = new Intl.PluralRules(TAGS[code]).resolvedOptions().pluralCategories;
    for (const [key, value] of Object.entries(loc)) {
      if (typeof value !== 'string') {
        assert.deepEqual(Object.keys(value).sort(), [...categories].sort(), `${code} ${key}: one form per plural category of ${code}`);
      }
      for (const text of forms(value)) {
        assert.equal(typeof text, 'string', `${code} ${key}`);
        assert.ok(text !== '' || en[key].trim() === '', `${code} ${key}: empty`);
        assert.deepEqual(placeholders(text), placeholders(en[key]), `${code} ${key}: placeholders`);
      }
    }
    if (NEW.includes(code)) {
      // Translated, not copied: only texts without a word (placeholders, "{seat}:") may
      // equal the English.
      const copied = Object.keys(en).filter((k) => loc[k] === en[k] && /[A-Za-z]{3}/.test(en[k].replace(/\{\w+\}/g, '')));
      assert.deepEqual(copied, [], `${code}: English texts left in the table`);
    }
  }
});

test('the bundled fonts hold every Chinese and Korean character of the tables and the language names', async () => {
  for (const code of ['ja', 'zh', 'ko']) {
    const chars = fontChars(code);
    const text = Object.values(await table(code)).flatMap(forms).join('') + NAMES[code];
    const missing = [...new Set([...text].filter((c) => CJK.test(c) && !chars.has(c)))];
    assert.deepEqual(missing, [], `sannin-${code}.woff2 lacks these: run python3 static/fonts/build.py`);
  }
});

test('the browser language picks the client language; the switch offers all five, each named in itself', async () => {
  const cases = [['ru-RU', 'ru'], ['ru', 'ru'], ['zh-CN', 'zh'], ['zh-Hans', 'zh'], ['zh', 'zh'], ['ko-KR', 'ko'],
    ['ja-JP', 'ja'], ['en-US', 'en'], ['fr-FR', 'en']];
  for (const [locale, code] of cases) {
    const context = await live.browser.newContext({ locale, viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${live.server.url}/`);
    const loc = await table(code);
    await page.getByTestId('play-computer').filter({ hasText: loc['lobby.computerButton'] }).waitFor();
    const got = await page.evaluate(() => ({
      tag: document.documentElement.lang,
      chosen: document.querySelector('[data-testid="lang"]').value,
      options: [...document.querySelectorAll('[data-testid="lang"] option')].map((o) => [o.value, o.lang, o.textContent]),
      h1: document.querySelector('h1').textContent,
    }));
    assert.equal(got.tag, TAGS[code], `${locale}: <html lang>`);
    assert.equal(got.chosen, code, `${locale}: the switch shows the language`);
    assert.equal(got.h1, loc['lobby.title'], `${locale}: the lobby's heading`);
    assert.deepEqual(got.options, Object.keys(NAMES).map((c) => [c, TAGS[c], NAMES[c]]));
    await context.close();
  }
});

test('counts take the plural form of the language', async () => {
  const v = await visitor(live.browser, 'plurals', { lang: 'ru' });
  await v.page.goto(`${live.server.url}/`);
  await v.page.getByTestId('play-computer').waitFor();
  const said = await v.page.evaluate(async () => {
    const { t, setLang } = await import('/js/i18n.js');
    const out = {};
    for (const code of ['ru', 'en', 'zh', 'ko']) {
      setLang(code);
      out[code] = [1, 2, 5, 21, 22, 111].map((n) => t(n === 1 ? 'lobby.ply' : 'lobby.plies', { n }));
      out[`${code}-days`] = [1, 3, 5, 21].map((n) => t(n === 1 ? 'dur.day' : 'dur.days', { n }));
    }
    setLang('ru');
    return out;
  });
  assert.deepEqual(said.ru, ['1 ход', '2 хода', '5 ходов', '21 ход', '22 хода', '111 ходов']);
  assert.deepEqual(said['ru-days'], ['1 день', '3 дня', '5 дней', '21 день']);
  assert.deepEqual(said.en, ['1 move', '2 moves', '5 moves', '21 moves', '22 moves', '111 moves']);
  assert.deepEqual(said.zh, ['1 手', '2 手', '5 手', '21 手', '22 手', '111 手']);
  assert.deepEqual(said['ko-days'], ['1일', '3일', '5일', '21일']);
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

/** Names of players are data, not messages. */
function playerNames(page) {
  return page.evaluate(async () => (await (await fetch('/api/rooms')).json())
    .flatMap((r) => Object.values(r.seats ?? {}).filter(Boolean).map((s) => s.name)));
}

async function botsRoom() {
  const res = await fetch(`${live.server.url}/api/rooms`, {
    method: 'POST', body: JSON.stringify({ bots: { first: 0, middle: 0, last: 0 } }), headers: { 'content-type': 'application/json' },
  });
  assert.equal(res.status, 201);
  return (await res.json()).id;
}

async function shots(page, name) {
  await shot(page, { path: `${SHOTS}${name}-desktop.png` });
  await page.setViewportSize(PHONE);
  await shot(page, { path: `${SHOTS}${name}-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
}

for (const code of NEW) {
  test(`in ${NAMES[code]} no English is left on the lobby and the game page, seated or watching`, async () => {
    const loc = await table(code);
    const watched = await botsRoom();
    // An English reader who switches in the header.
    const v = await visitor(live.browser, code);
    const { page } = v;
    await page.goto(`${live.server.url}/`);
    await page.getByTestId('play-computer').waitFor();
    await page.getByTestId('lang').selectOption(code);
    await page.getByTestId('play-computer').filter({ hasText: loc['lobby.computerButton'] }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), TAGS[code]);
    await until('rooms listed', () => page.getByTestId('rooms-playing').count());
    const names = await playerNames(page);
    const lobby = await englishLeft(page, [...names, 'English'], code);
    assert.deepEqual(lobby.messages, [], `English messages left on the ${code} lobby`);
    assert.deepEqual(lobby.words, [], `English words left on the ${code} lobby`);
    await shots(page, `lobby-${code}`);

    // Seated, against the computer.
    await page.getByTestId('play-computer').click();
    await page.waitForURL(/\/rooms\/[^/]+$/);
    await until('playing', () => v.lastState()?.status === 'playing');
    await page.locator('[data-cell] .piece').first().waitFor();
    const st = v.lastState();
    const seated = await englishLeft(page, [...Object.values(st.seats).map((s) => s.name), 'English', ...st.moves], code);
    assert.deepEqual(seated.messages, [], `English messages left on the ${code} game page (seated)`);
    await shots(page, `room-${code}-seated`);

    // Watching three computer players.
    await page.goto(`${live.server.url}/rooms/${watched}`);
    await page.locator('[data-cell] .piece').first().waitFor();
    await until('moves played', () => (v.lastState()?.moves?.length ?? 0) >= 3);
    const w = v.lastState();
    const watching = await englishLeft(page, [...Object.values(w.seats).map((s) => s.name), 'English', watched, ...w.moves], code);
    assert.deepEqual(watching.messages, [], `English messages left on the ${code} game page (watching)`);
    await shots(page, `room-${code}-watching`);
    assert.deepEqual(v.io.errors, []);
    await v.context.close();
  });
}

/** In the page: every distinct CJK character of the visible text and of the language
 * switch's options, drawn on a canvas at 100 px in the font family and weight of the
 * element that shows it, compared with `lacking`, a character that no bundled font
 * holds, drawn the same way: a missing glyph is drawn as the same box (.notdef) as
 * `lacking`, a real glyph is not. Returns the characters drawn as boxes (or not at all),
 * with their element's font; and the characters of the page whose width as laid out
 * differs from their width in that font (text laid out with a fallback font and never
 * again once the web font came). */
async function measure(lacking) {
  const cjk = /[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff\uff01-\uff5e]/u;
  const seen = new Map();
  const placed = [];
  const add = (text, el, node = null) => {
    const cs = getComputedStyle(el);
    const font = { family: cs.fontFamily, weight: cs.fontWeight, style: cs.fontStyle, size: parseFloat(cs.fontSize) };
    [...text].forEach((c, i) => {
      if (!cjk.test(c)) return;
      const key = `${c}|${font.family}|${font.weight}|${font.style}`;
      if (!seen.has(key)) seen.set(key, [c, font]);
      if (node && cs.letterSpacing === 'normal') placed.push([node, i, c, font]);
    });
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (el && el.getClientRects().length > 0 && !el.closest('[hidden]') && !/[\ud800-\udfff]/.test(n.data)) add(n.data, el, n);
  }
  const options = [...document.querySelectorAll('[data-testid="lang"] option')];
  for (const o of options) add(o.textContent, o);
  // A canvas draws with the web fonts already loaded only: show every character in its
  // font first (the closed switch's options are not drawn, so their fonts may be
  // unloaded), then wait for the fonts.
  const holder = document.createElement('div');
  holder.style.cssText = 'position: absolute; top: 0; left: 0; opacity: 0';
  for (const [c, f] of seen.values()) {
    const span = document.createElement('span');
    Object.assign(span.style, { fontFamily: f.family, fontWeight: f.weight, fontStyle: f.style });
    span.textContent = c + lacking;
    holder.append(span);
  }
  document.body.append(holder);
  await document.fonts.ready;
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  holder.remove();
  const canvas = document.createElement('canvas');
  canvas.width = 130;
  canvas.height = 130;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const ink = (ch, f) => {
    ctx.clearRect(0, 0, 130, 130);
    ctx.font = `${f.style} ${f.weight} 100px ${f.family}`;
    ctx.fillText(ch, 10, 105);
    const a = ctx.getImageData(0, 0, 130, 130).data;
    let sum = 0;
    for (let i = 3; i < a.length; i += 4) sum = (sum * 31 + a[i] * (i + 1)) % 2147483647;
    return sum;
  };
  const boxes = [...seen.values()]
    .filter(([c, f]) => { const mine = ink(c, f); return mine === 0 || mine === ink(lacking, f); })
    .map(([c, f]) => [c, f.weight, f.family.slice(0, 40)]);
  const range = document.createRange();
  const misdrawn = [];
  for (const [node, i, c, f] of placed) {
    if (!node.isConnected) continue; // re-rendered (the live lists) meanwhile
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const laid = range.getBoundingClientRect().width;
    ctx.font = `${f.style} ${f.weight} ${f.size}px ${f.family}`;
    const wanted = ctx.measureText(c).width;
    if (Math.abs(laid - wanted) > 0.15 * f.size) misdrawn.push([c, Math.round(laid * 10) / 10, Math.round(wanted * 10) / 10, f.weight, node.parentElement.dataset.testid ?? node.parentElement.tagName]);
  }
  return { count: new Set([...seen.values()].map(([c]) => c)).size, options: options.map((o) => o.textContent).join(''), boxes, misdrawn: misdrawn.slice(0, 20) };
}

test('with only DejaVu installed, Chinese and Korean show as glyphs of the bundled fonts, not boxes, on the lobby and the game page', async () => {
  const families = { zh: 'Sannin ZH', ko: 'Sannin KO' };
  // A character of the language that no bundled font holds.
  const bundled = new Set([...fontChars('ja'), ...fontChars('zh'), ...fontChars('ko')]);
  const lacking = (from) => { let c = from; while (bundled.has(String.fromCodePoint(c))) c += 1; return String.fromCodePoint(c); };
  const controls = { zh: lacking(0x9f98), ko: lacking(0xb620) };
  for (const code of ['zh', 'ko']) {
    const loc = await table(code);
    const v = await visitor(live.browser, `${code}-glyphs`, { lang: code });
    const { page } = v;
    await page.goto(`${live.server.url}/`);
    await page.getByTestId('play-computer').filter({ hasText: loc['lobby.computerButton'] }).waitFor();
    await until(`the ${families[code]} web font`, () => page.evaluate(async (family) => {
      await document.fonts.ready;
      return [...document.fonts].some((f) => f.family.replace(/"/g, '') === family && f.status === 'loaded');
    }, families[code]));
    const r = await page.evaluate(measure, controls[code]);
    assert.ok(r.count > 30, `the ${code} lobby shows CJK text (${r.count} characters)`);
    assert.equal(r.options, Object.values(NAMES).join(''), 'the switch names each language in itself');
    assert.deepEqual(r.boxes, [], `${code}: characters drawn as boxes (char, weight, font)`);
    assert.deepEqual(r.misdrawn, [], `${code}: characters laid out in another font (char, width, width in its font, weight, element)`);
    await shot(page, { path: `${SHOTS}glyphs-${code}.png` });
    // And on the game page, seated against the computer.
    await page.getByTestId('play-computer').click();
    await page.waitForURL(/\/rooms\/[^/]+$/);
    await until('playing', () => v.lastState()?.status === 'playing');
    await page.locator('[data-cell] .piece').first().waitFor();
    const room = await page.evaluate(measure, controls[code]);
    assert.ok(room.count > 20, `the ${code} game page shows CJK text (${room.count} characters)`);
    assert.deepEqual(room.boxes, [], `${code} game page: characters drawn as boxes`);
    assert.deepEqual(room.misdrawn, [], `${code} game page: characters laid out in another font`);
    assert.deepEqual(v.io.errors, []);
    await v.context.close();
  }
});
