// What a newcomer trips over, tried as one would in Chromium: the server's refusals and
// notices said in the page's language from their codes (a seat taken up in another tab
// on a Japanese page, the server going down, a record that does not read, an unnamed
// spectator on a Chinese page), counts in their plural form and Korean particles that
// follow the name, names and words that fit their cards at 1366 px (a seat's name, the
// Russian move table's headers, the Japanese badges), a rated result with each player's
// rating change, the header's My games badge after a move, and the analysis board at
// 1366×768 (no scrolling inside its column, Analyse in sight, "Game over" once).
// Screenshots (desktop and phone, English, Japanese and Russian) go to NEWCOMER_SHOTS (or
// /tmp/newcomer-shots/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { startServer } from '../lib/sannin.mjs';
import { playMove, resign } from '../lib/people.mjs';
import { DESKTOP, PHONE, shot, until, visitor } from '../lib/site.mjs';

const SHOTS = process.env.NEWCOMER_SHOTS ?? '/tmp/newcomer-shots/';
// Every page asks for My games: no budget per minute for the one address of the tests.
const live = serverAndBrowser({ shots: SHOTS, serverArgs: ['--my-games-per-minute', '0'] });
const PASSWORD = (name) => `${name}-secret-pass`;

/** The messages of the client in `code`, read in the page. */
function messages(page, code) {
  return page.evaluate(async (c) => (await import('/js/i18n.js')).messagesOf(c), code);
}

async function newRoom(body = {}, p = null, server = live.server) {
  const res = p ? await p.context.request.post(`${server.url}/api/rooms`, { data: body })
    : await fetch(`${server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  assert.equal(p ? res.status() : res.status, 201, text);
  return JSON.parse(text).id;
}

/** `p` opens room `id` and takes `seat` as `name`, then (unless told) says ready. */
async function sit(p, id, name, seat, { ready = true, server = live.server } = {}) {
  await p.page.goto(`${server.url}/rooms/${id}`);
  await p.page.getByTestId('room-name').fill(name);
  await p.page.getByTestId(`sit-${seat}`).click();
  await until(`${p.label} seated`, () => p.lastState()?.you === seat);
  if (ready) await p.page.getByTestId('ready').click();
}

/** Three people seated and ready in room `id`, in `langs`; their game under way. */
async function table(id, names, { langs = ['en', 'en', 'en'], people = null } = {}) {
  const seats = ['first', 'middle', 'last'];
  const ps = people ?? await Promise.all(seats.map((seat, i) => visitor(live.browser, seat, { lang: langs[i] })));
  for (const [i, p] of ps.entries()) await sit(p, id, names[i], seats[i]);
  await until('the game under way', () => ps[0].lastState()?.status === 'playing');
  return ps;
}

const mover = (ps) => ps.find((p) => p.lastState()?.to_move && p.lastState()?.to_move === p.lastState()?.you);

/** `n` moves, each by the player to move once every page has heard of the one before. */
async function moves(ps, n) {
  for (let i = 0; i < n; i++) {
    const played = ps[0].lastState()?.moves?.length ?? 0;
    await playMove(await until('the player to move', () => mover(ps)));
    await until('the move heard', () => ps.every((p) => (p.lastState()?.moves?.length ?? 0) > played));
  }
}

test('the server\'s refusals and notices in the page\'s language: a seat taken up in another tab, the server going down', async () => {
  const server = await startServer();
  try {
    const id = await newRoom({}, null, server);
    const p = await visitor(live.browser, 'kenta', { lang: 'ja' });
    await sit(p, id, '健太', 'first', { ready: false, server });
    const ja = await messages(p.page, 'ja');
    // The same seat opened in a second tab: the first one lets it go, in Japanese.
    const second = await p.context.newPage();
    await second.goto(`${server.url}/rooms/${id}`);
    await p.page.getByTestId('error').filter({ hasText: ja['error.ws.replaced'] }).waitFor();
    await p.page.getByTestId('offline').filter({ hasText: ja['room.offline.replaced'] }).waitFor();
    assert.doesNotMatch(await p.page.getByTestId('error').textContent(), /[A-Za-z]{3}/, 'no English left');
    await shot(p.page, { path: `${SHOTS}replaced-ja-desktop.png` });
    // The server goes down: said from its code, not in its lowercase English.
    await second.getByTestId('ready').waitFor();
    const stopping = server.stop();
    await second.getByTestId('error').filter({ hasText: ja['error.ws.shutting_down'] }).waitFor();
    await second.getByTestId('offline').filter({ hasText: ja['error.close.shutting_down'] }).waitFor();
    assert.doesNotMatch(await second.getByTestId('error').textContent(), /shutting|[A-Za-z]{3}/);
    await shot(second, { path: `${SHOTS}shutdown-ja-desktop.png` });
    await stopping;
    assert.deepEqual(p.io.errors, []);
    await p.context.close();
  } finally {
    await server.stop();
  }
});

test('a record that does not read, and an unnamed spectator on a Chinese page, are said in the reader\'s words', async () => {
  const v = await visitor(live.browser, 'record', { lang: 'ja' });
  await v.page.goto(`${live.server.url}/analysis`);
  const ja = await messages(v.page, 'ja');
  for (const [record, code] of [['[Sannin "1"\n1. ]]] `x`', 'bad_record'], ['1. P3c-4d Q99z-1a', 'illegal_action']]) {
    await v.page.getByTestId('record').fill(record);
    await v.page.getByTestId('load').click();
    const reason = v.page.getByTestId('error-reason');
    await reason.filter({ hasText: ja[`error.api.${code}`] }).waitFor();
    const text = await reason.textContent();
    assert.doesNotMatch(text, /null|`|[A-Za-z]{3}/, `${code}: no English, null or backticks: ${text}`);
    assert.doesNotMatch(await v.page.getByTestId('replay-error').textContent(), /null|undefined/);
  }
  await shot(v.page, { path: `${SHOTS}bad-record-ja-desktop.png` });
  await v.context.close();

  // A spectator who gave no name writes in the spectators' chat: 观众 to a Chinese reader.
  const id = await newRoom();
  const writer = await visitor(live.browser, 'fan', { lang: 'en' });
  await writer.page.goto(`${live.server.url}/rooms/${id}`);
  await writer.page.getByTestId('chat-input').fill('hello');
  await writer.page.getByTestId('chat-send').click();
  const zh = await visitor(live.browser, 'zh', { lang: 'zh' });
  await zh.page.goto(`${live.server.url}/rooms/${id}`);
  await zh.page.getByTestId('chat-spectators').filter({ hasText: 'hello' }).waitFor();
  const line = await zh.page.getByTestId('chat-spectators').textContent();
  assert.match(line, /观众/);
  assert.doesNotMatch(line, /Spectator/);
  for (const p of [writer, zh]) await p.context.close();
});

test('counts take the plural form of the language; Korean particles follow the name', async () => {
  const v = await visitor(live.browser, 'plurals', { lang: 'en' });
  await v.page.goto(`${live.server.url}/`);
  await v.page.getByTestId('play-computer').waitFor();
  const said = await v.page.evaluate(async () => {
    const { t, setLang } = await import('/js/i18n.js');
    const out = {};
    for (const code of ['en', 'ru', 'ja']) {
      await setLang(code);
      out[code] = [1, 2, 5, 21].map((n) => t('profile.games', { n }));
      out[`${code}-line`] = t('account.ratingLine', { rating: 1500, n: 1 });
    }
    await setLang('ko');
    out.ko = ['김민준', '철수', 'Paul', 'Anna', 'Kim', '3'].map((who) => t('room.note.back', { who }));
    out.koWith = t('mod.pairs.keptApart', { a: '철수', b: '김민준' });
    await setLang('en');
    return out;
  });
  assert.deepEqual(said.en, ['1 rated game', '2 rated games', '5 rated games', '21 rated games']);
  assert.equal(said['en-line'], 'Rating 1500 · 1 rated game');
  assert.deepEqual(said.ru, ['1 рейтинговая партия', '2 рейтинговые партии', '5 рейтинговых партий', '21 рейтинговая партия']);
  assert.ok(said.ja.every((s) => !/games/.test(s)));
  assert.deepEqual(said.ko, ['김민준이 돌아왔습니다.', '철수가 돌아왔습니다.', 'Paul이 돌아왔습니다.', 'Anna가 돌아왔습니다.',
    'Kim이 돌아왔습니다.', '3이 돌아왔습니다.']);
  assert.equal(said.koWith, '이제 철수와 김민준을 떼어 놓았습니다.');
  await v.context.close();
});

test('names and words fit their cards at 1366 px: a seat\'s name whole, the Russian move table\'s headers, the Japanese badges', async () => {
  const id = await newRoom({ clock: { kind: 'fischer', main_seconds: 600, increment_seconds: 5 } });
  const names = ['Reviewer', 'Марина Иванова', '健太郎'];
  const seats = ['first', 'middle', 'last'];
  const ps = await Promise.all(seats.map((seat, i) => visitor(live.browser, seat, { lang: ['ja', 'ru', 'en'][i] })));
  // The Japanese reader's badges before the game: 準備中 beside a button stays a pill.
  for (const [i, p] of ps.entries()) await sit(p, id, names[i], seats[i], { ready: false });
  const badges = await ps[0].page.evaluate(() => [...document.querySelectorAll('.seat-card .badge')]
    .map((b) => ({ text: b.textContent, w: b.getBoundingClientRect().width, h: b.getBoundingClientRect().height })));
  assert.ok(badges.some((b) => b.text === '準備中'), JSON.stringify(badges));
  for (const b of badges) assert.ok(b.h <= 19 && b.w > 2 * b.h, `a pill, not an oval: ${JSON.stringify(b)}`);
  await shot(ps[0].page, { path: `${SHOTS}badges-ja-desktop.png` });
  for (const p of ps) await p.page.getByTestId('ready').click();
  await until('the game under way', () => ps[0].lastState()?.status === 'playing');
  await moves(ps, 3);
  for (const p of ps) {
    for (const viewport of [DESKTOP, PHONE]) {
      await p.page.setViewportSize(viewport);
      await p.page.waitForTimeout(100);
      const cut = await p.page.evaluate(() => [
        ...[...document.querySelectorAll('.seat-card .seat-head .name')].filter((e) => e.getClientRects().length),
        ...document.querySelectorAll('table.moves thead th'),
      ].filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent));
      if (viewport === DESKTOP) assert.deepEqual(cut, [], `${p.label}: cut at 1366 px`);
    }
    await p.page.setViewportSize(DESKTOP);
  }
  await shot(ps[1].page, { path: `${SHOTS}game-ru-desktop.png` });
  await shot(ps[0].page, { path: `${SHOTS}game-ja-desktop.png` });
  await ps[0].page.setViewportSize(PHONE);
  await shot(ps[0].page, { path: `${SHOTS}game-ja-phone.png`, fullPage: true });
  for (const p of ps) assert.deepEqual(p.io.errors, []);
  for (const p of ps) await p.context.close();
});

test('the header\'s My games badge follows a move at once', async () => {
  const id = await newRoom({ clock: { kind: 'correspondence', seconds_per_move: 86400 } });
  const ps = await table(id, ['Ann', 'Bob', 'Cid']);
  const first = mover(ps);
  await first.page.getByTestId('games-badge').filter({ hasText: '1' }).waitFor({ timeout: 10000 });
  const moved = Date.now();
  await playMove(first);
  // Not at the next minute's refresh: within a few seconds of the move.
  await until('the badge gone', () => first.page.getByTestId('games-badge').isHidden(), 5000);
  const next = mover(ps) ?? await until('the next to move', () => mover(ps));
  await next.page.getByTestId('games-badge').filter({ hasText: '1' }).waitFor({ timeout: 5000 });
  assert.ok(Date.now() - moved < 8000);
  for (const p of ps) assert.deepEqual(p.io.errors, []);
  for (const p of ps) await p.context.close();
});

/** Three accounts, each logged in in a context of its own. */
async function accounts(names, langs) {
  return Promise.all(names.map(async (name, i) => {
    const p = await visitor(live.browser, name, { lang: langs[i] });
    const res = await p.context.request.post(`${live.server.url}/api/accounts`, { data: { name, password: PASSWORD(name) } });
    assert.ok(res.ok(), `register ${name}: ${res.status()}`);
    return p;
  }));
}

test('a rated result shows each player\'s rating change; the analysis board of the game fits 1366×768', async () => {
  const ps = await accounts(['rina', 'sota', 'yuki'], ['en', 'ja', 'en']);
  const id = await newRoom({ rated: true }, ps[0]);
  await table(id, ['rina', 'sota', 'yuki'], { people: ps });
  await moves(ps, 3);
  await resign(ps[2]);
  await resign(ps[1]);
  await until('the rated game over', () => ps[0].lastState()?.status === 'finished');
  for (const seat of ['first', 'middle', 'last']) {
    const change = ps[0].page.getByTestId(`rating-change-${seat}`);
    await change.waitFor({ timeout: 20000 });
    assert.match(await change.textContent(), /^\d+ → \d+ \((\+\d+|−\d+|±0)\)$/);
  }
  assert.doesNotMatch(await ps[0].page.getByTestId('result').textContent(), /null|undefined/);
  const winner = await ps[0].page.getByTestId('rating-change-first').textContent();
  const [before, after] = winner.match(/\d+/g).map(Number);
  assert.ok(after > before, `the winner's rating rose: ${winner}`);
  // The seat cards show the ratings after the game.
  await until('the new rating on the card', async () => (await ps[0].page.getByTestId('rating-first').textContent()).startsWith(String(after)));
  await shot(ps[0].page, { path: `${SHOTS}rated-result-en-desktop.png` });
  await ps[1].page.getByTestId('rating-change-middle').waitFor({ timeout: 20000 });
  await shot(ps[1].page, { path: `${SHOTS}rated-result-ja-desktop.png` });
  await ps[1].page.setViewportSize(PHONE);
  await shot(ps[1].page, { path: `${SHOTS}rated-result-ja-phone.png`, fullPage: true });
  for (const p of ps) assert.deepEqual(p.io.errors, []);
  for (const p of ps) await p.context.close();

  // The analysis board of the finished game at 1366×768: its board's column does not
  // scroll on its own, Analyse is in sight, and the last move says the game is over once.
  for (const lang of ['en', 'ja']) {
    const v = await visitor(live.browser, `analysis-${lang}`, { lang });
    await v.page.goto(`${live.server.url}/analysis?room=${id}`);
    const over = (await messages(v.page, lang))['analysis.over'];
    await v.page.getByTestId('analysis-status').filter({ hasText: /\S/ }).waitFor();
    await v.page.waitForTimeout(300);
    const m = await v.page.evaluate(() => {
      const column = document.querySelector('.board-column');
      const analyse = document.querySelector('[data-testid="analyse"]').getBoundingClientRect();
      return {
        scrolls: column.scrollHeight > column.clientHeight + 1,
        analyseInSight: analyse.top >= 0 && analyse.bottom <= innerHeight,
        status: document.querySelector('[data-testid="analysis-status"]').textContent,
      };
    });
    assert.equal(m.scrolls, false, `${lang}: the board's column scrolls on its own`);
    assert.equal(m.analyseInSight, true, `${lang}: Analyse below the fold`);
    assert.equal(m.status.split(over).length - 1, 1, `${lang}: "${over}" once in "${m.status}"`);
    await shot(v.page, { path: `${SHOTS}analysis-over-${lang}-desktop.png` });
    await v.page.setViewportSize(PHONE);
    await shot(v.page, { path: `${SHOTS}analysis-over-${lang}-phone.png`, fullPage: true });
    assert.deepEqual(v.io.errors, []);
    await v.context.close();
  }
});
