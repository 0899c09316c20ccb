// Russian, Simplified Chinese and Korean beside English and Japanese: the message tables
// (every English key and no other, the same placeholders, the plural forms of the
// language), the bundled fonts covering every Chinese and Korean character of them, the
// browser's language choosing the client's, no English left on the lobby and the game
// page (seated and watching) in each language, and — in a Chromium whose fontconfig
// lists only DejaVu — Chinese and Korean drawn as glyphs of the bundled fonts, not as
// boxes. Screenshots (desktop and phone) go to LOCALE_SHOTS (or /tmp/locale-shots/).
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchNoCjk } from '../lib/nocjk.mjs';
import { fontChars, lacking, measure, peopleChars } from '../lib/glyphs.mjs';
import { serverAndBrowser } from '../lib/setup.mjs';
import { DESKTOP, PHONE, englishLeft, shot, until, visitor } from '../lib/site.mjs';
import { chooseLang } from '../lib/site.mjs';

const SHOTS = process.env.LOCALE_SHOTS ?? '/tmp/locale-shots/';
// Every language makes a room of bots and one against the computer from one address.
const live = serverAndBrowser({ shots: SHOTS, launchBrowser: launchNoCjk, serverArgs: ['--max-bot-only-rooms-per-address', '0'] });

const NEW = ['ru', 'zh', 'ko'];
const TAGS = { en: 'en', ja: 'ja', ru: 'ru', zh: 'zh-Hans', ko: 'ko' };
const NAMES = { en: 'English', ja: '日本語', ru: 'Русский', zh: '中文', ko: '한국어' };
/** Characters that need a CJK font: kana, hangul, Han, full-width forms. */
const CJK = /[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff\uff01-\uff5e]/u;

/** Every message of a language: its table and the tables beside it (`<code>-*.js`). */
async function table(code) {
  const dir = new URL('../../static/js/i18n/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f === `${code}.js` || f.startsWith(`${code}-`)).sort();
  const parts = await Promise.all(files.map(async (f) => (await import(new URL(f, dir))).default));
  return Object.assign({}, ...parts);
}
const placeholders = (s) => [...new Set(s.match(/\{\w+\}/g) ?? [])].sort();
const forms = (v) => (typeof v === 'string' ? [v] : Object.values(v));

test('each language has every key of the English tables and no other, with the same placeholders', async () => {
  const en = await table('en');
  const enCategories = new Intl.PluralRules('en').resolvedOptions().pluralCategories;
  for (const [key, value] of Object.entries(en)) {
    if (typeof value !== 'string') assert.deepEqual(Object.keys(value).sort(), [...enCategories].sort(), `en ${key}: one form per plural category of en`);
  }
  const enText = (key) => forms(en[key]).join('\n');
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
        assert.ok(text !== '' || enText(key).trim() === '', `${code} ${key}: empty`);
        assert.deepEqual(placeholders(text), placeholders(enText(key)), `${code} ${key}: placeholders`);
      }
    }
    if (NEW.includes(code)) {
      // Translated, not copied: only texts without a word (placeholders, "{seat}:") may
      // equal the English.
      const copied = Object.keys(en).filter((k) => typeof en[k] === 'string' && loc[k] === en[k] && /[A-Za-z]{3}/.test(en[k].replace(/\{\w+\}/g, '')));
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
      await setLang(code);
      out[code] = [1, 2, 5, 21, 22, 111].map((n) => t(n === 1 ? 'lobby.ply' : 'lobby.plies', { n }));
      out[`${code}-days`] = [1, 3, 5, 21].map((n) => t(n === 1 ? 'dur.day' : 'dur.days', { n }));
    }
    await setLang('ru');
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
    await chooseLang(page, code);
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

test('with only DejaVu installed, Chinese and Korean show as glyphs of the bundled fonts, not boxes, on the lobby and the game page', async () => {
  const families = { zh: 'Sannin ZH', ko: 'Sannin KO' };
  // A character of the language that no bundled font holds.
  const bundled = new Set([...fontChars('ja'), ...fontChars('zh'), ...fontChars('ko'), ...peopleChars()]);
  const controls = { zh: lacking(0x9f98, bundled), ko: lacking(0xb620, bundled) };
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
