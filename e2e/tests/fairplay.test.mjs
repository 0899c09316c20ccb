// Fair play in the browser: no engine during a game people play (no "Open in analysis",
// no computer review, and the analysis board saying why the engine is refused a live
// game's position), guests marked as guests beside their names (seat cards, chat, the
// lobby's lists) and accounts' names linking to their profiles, guest names that pose
// as an account or a bot refused in words, and /mod's pairs of accounts that finish
// first and second together, with "Keep apart", and a player's agreement with the
// computer review. With a scripted server (Playwright routing) for what the page makes
// of each answer, and with the real one (started by the first test that needs it) for
// a game of two accounts and a guest played to its end, watched by a spectator, and
// /mod of a moderator made with `sannin admin role`. Screenshots (desktop and phone,
// English and Japanese, each seat and a spectator, /mod's pairs) go to FAIRPLAY_SHOTS
// (or /tmp/shots/).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { launch } from '../lib/browser.mjs';
import { mockServer, openMockRoom, ORIGIN, START } from '../lib/mock.mjs';
import { personIn, playMove, resign, until } from '../lib/people.mjs';
import { startServer } from '../lib/sannin.mjs';
import { axe } from '../lib/site.mjs';
import { chooseLang } from '../lib/site.mjs';

const SHOTS = (process.env.FAIRPLAY_SHOTS ?? '/tmp/shots/').replace(/\/?$/, '/');
const DESKTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const LOCALES = { en: 'en-GB', ja: 'ja-JP' };

let browser;
let server = null;
before(async () => {
  browser = await launch();
  await mkdir(SHOTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** The real server, started the first time a test needs it. */
async function realServer() {
  server ??= await startServer();
  return server;
}

async function shoot(page, name, { full = false } = {}) {
  await page.evaluate(() => document.fonts.ready.then(() => true));
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: full });
}

// ---- the scripted server ---------------------------------------------------------------

const PEOPLE = {
  first: { name: 'ann', connected: true, ready: true, bot: null, taken_over: false, account: 'ann' },
  middle: { name: 'Guest', connected: true, ready: true, bot: null, taken_over: false, account: null },
  last: { name: 'Bot (Casual)', connected: true, ready: true, bot: 2, taken_over: false, account: null },
};

function state(over = {}) {
  return {
    type: 'state', seq: 3, position: START, moves: [], seats: PEOPLE, status: 'playing',
    to_move: 'first', legal: [], you: null, illumination: null, outcome: null, result: null, ...over,
  };
}

const FINISHED = {
  status: 'finished', to_move: null,
  outcome: { ranking: ['first', 'middle', 'last'], reason: 'resignation', winners: ['first'] },
  result: { ranking: ['first', 'middle', 'last'], reason: 'resignation', winners: ['first'] },
};

const visible = (page, testid) => page.getByTestId(testid).isVisible();

test('scripted: while people play, no analysis link and no review; both once the game ends; a game of bots alone keeps them', async () => {
  const { page, server: ws, errors } = await openMockRoom(browser, state({ moves: ['P3c-4d'], move_players: ['first'], to_move: 'middle' }));
  await page.getByTestId('download-record').waitFor();
  assert.equal(await visible(page, 'open-analysis'), false, 'no analysis link during the game');
  assert.equal(await visible(page, 'request-review-room'), false, 'no review during the game');
  assert.equal(await visible(page, 'analysis-later'), true, 'says when the analysis comes');
  assert.equal(await page.getByTestId('analysis-later').textContent(), 'Analysis after the game');
  assert.match(await page.getByTestId('analysis-later').getAttribute('title'), /open when it ends/);
  // A seat a bot keeps for its absent player is still a person's.
  ws().send(JSON.stringify(state({ seq: 4, seats: { ...PEOPLE, first: { ...PEOPLE.first, bot: 3, taken_over: true } } })));
  await until('the taken-over seat drawn', () => page.getByTestId('bot-first').isVisible());
  assert.equal(await visible(page, 'open-analysis'), false, 'a bot standing in for a person: still no analysis');
  // The game ends: the links are back, for a spectator as for a player.
  ws().send(JSON.stringify(state({ seq: 5, moves: ['P3c-4d'], move_players: ['first'], ...FINISHED })));
  await page.getByTestId('open-analysis').waitFor();
  assert.equal(await visible(page, 'request-review-room'), true);
  assert.equal(await visible(page, 'request-review-result'), true);
  assert.equal(await visible(page, 'analysis-later'), false);
  assert.match(await page.getByTestId('open-analysis').getAttribute('href'), /^\/analysis\?room=r1/);
  await page.close();

  // Three computer players: nobody to help, the analysis link stays.
  const bot = (n) => ({ name: `Bot (${n})`, connected: true, ready: true, bot: 2, taken_over: false, account: null });
  const bots = await openMockRoom(browser, state({ seats: { first: bot(1), middle: bot(2), last: bot(3) }, moves: ['P3c-4d'], move_players: ['first'] }));
  await bots.page.getByTestId('open-analysis').waitFor();
  assert.equal(await visible(bots.page, 'analysis-later'), false);
  assert.deepEqual([...errors, ...bots.errors], []);
  await bots.page.close();
});

test('scripted: guests tagged on seats and in both chats; accounts link to their profiles; bots are no guests', async () => {
  const history = {
    type: 'chat_history', messages: [
      { id: 1, channel: 'players', seat: 'first', name: 'ann', account: 'ann', text: 'good luck', at_ms: 1735689600000 },
      { id: 2, channel: 'players', seat: 'middle', name: 'Guest', account: null, text: 'hello', at_ms: 1735689601000 },
      { id: 3, channel: 'spectators', seat: null, name: 'Kibitz', account: null, text: 'nice opening', at_ms: 1735689602000 },
      { id: 4, channel: 'spectators', seat: null, name: 'zoe', account: 'zoe', text: 'indeed', at_ms: 1735689603000 },
    ],
  };
  const { page, errors } = await openMockRoom(browser, (n, ws) => { ws.send(JSON.stringify(state())); return history; });
  await page.getByTestId('guest-middle').waitFor();
  assert.equal(await page.getByTestId('guest-middle').textContent(), 'guest');
  assert.equal(await page.getByTestId('guest-middle').getAttribute('title'), 'Guest: plays without an account');
  assert.equal(await page.getByTestId('guest-first').count(), 0, 'an account is no guest');
  assert.equal(await page.getByTestId('guest-last').count(), 0, 'a bot is no guest');
  assert.equal(await page.getByTestId('bot-last').isVisible(), true, 'the bot keeps its mark');
  const profile = page.getByTestId('profile-first');
  assert.equal(await profile.getAttribute('href'), '/players/ann');
  assert.equal(await profile.getAttribute('target'), '_blank', 'a profile opens beside the game');
  assert.equal(await profile.textContent(), 'ann');
  // The spectators' chat first (a spectator writes there), then the players'.
  const spectators = page.getByTestId('chat-spectators');
  await until('the spectators\' lines', async () => (await spectators.locator('li').count()) === 2);
  assert.equal(await spectators.locator('li', { hasText: 'Kibitz' }).getByTestId('guest-mark').count(), 1);
  assert.equal(await spectators.locator('li', { hasText: 'zoe' }).locator('a.profile-link').getAttribute('href'), '/players/zoe');
  await page.getByTestId('chat-tab-players').click();
  const players = page.getByTestId('chat-players');
  assert.equal(await players.locator('li', { hasText: 'hello' }).getByTestId('guest-mark').count(), 1);
  assert.equal(await players.locator('li', { hasText: 'good luck' }).getByTestId('guest-mark').count(), 0);
  assert.equal(await players.locator('li', { hasText: 'good luck' }).locator('a.profile-link').getAttribute('href'), '/players/ann');
  // The tag sits right after the name on the card, inside it, not cut off.
  const card = await page.getByTestId('seat-middle').boundingBox();
  const tag = await page.getByTestId('guest-middle').boundingBox();
  assert.ok(tag.x + tag.width <= card.x + card.width && tag.width > 10, `the tag inside its card: ${JSON.stringify({ card, tag })}`);
  await shoot(page, 'fairplay-mock-spectator-en-desktop');
  assert.deepEqual(await axe(page), [], 'axe on the room with a guest and an account');
  await page.setViewportSize(PHONE);
  await page.getByTestId('seat-middle').scrollIntoViewIfNeeded();
  await shoot(page, 'fairplay-mock-spectator-en-phone', { full: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('scripted: a server that does not say `account` marks nobody', async () => {
  const old = Object.fromEntries(Object.entries(PEOPLE).map(([k, { account, ...v }]) => [k, v]));
  const { page, errors } = await openMockRoom(browser, state({ seats: old }));
  await page.getByTestId('seat-middle').waitFor();
  assert.equal(await page.locator('.guest-mark').count(), 0);
  assert.equal(await page.locator('.seat-card a.profile-link').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('scripted: the lobby\'s lists and /tv tag guests and link accounts', async () => {
  const page = await browser.newPage({ viewport: DESKTOP });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const summary = (id, status, seats) => ({ id, status, seats, moves: status === 'playing' ? 1 : 0, spectators: 0, rated: false, private: false, clock: null, created_at_ms: 1735689600000 });
  const rooms = [
    summary('w1', 'waiting', { first: PEOPLE.middle, middle: null, last: null }),
    summary('p1', 'playing', PEOPLE),
  ];
  await mockServer(page, {
    api: (p) => {
      if (p === '/api/rooms') return { json: rooms };
      if (p === '/api/rooms/p1') return { json: { ...rooms[1], position: START, moves: ['P3c-4d'] } };
      if (p === '/api/pairing' || p === '/api/session') return { json: p === '/api/session' ? null : [] };
      if (p === '/api/tv') return { json: { room: 'r1' } };
      return null;
    },
    ws: (sock) => sock.onMessage((m) => { if (JSON.parse(m).type === 'watch') sock.send(JSON.stringify(state())); }),
  });
  await page.goto(`${ORIGIN}/`);
  const waitingChip = page.getByTestId('chip-w1-first');
  await waitingChip.waitFor();
  assert.equal(await waitingChip.getByTestId('guest-mark').count(), 1, 'the waiting room\'s guest is tagged');
  const playing = page.getByTestId('rooms-playing');
  assert.equal(await playing.getByTestId('chip-p1-middle').getByTestId('guest-mark').count(), 1);
  assert.equal(await playing.getByTestId('chip-p1-first').locator('a.profile-link').getAttribute('href'), '/players/ann');
  assert.equal(await playing.getByTestId('chip-p1-last').getByTestId('guest-mark').count(), 0, 'a bot is no guest');
  await playing.scrollIntoViewIfNeeded();
  await shoot(page, 'fairplay-lobby-lists-en-desktop');
  // Sannin TV: the names above the board.
  await page.goto(`${ORIGIN}/tv`);
  const names = page.getByTestId('tv-players');
  await names.locator('[data-seat="middle"]').waitFor();
  assert.equal(await names.locator('[data-seat="middle"]').getByTestId('guest-mark').count(), 1);
  assert.equal(await names.locator('[data-seat="first"] a.profile-link').getAttribute('href'), '/players/ann');
  assert.deepEqual(errors, []);
  await page.close();

  // My games: the opponents, the guest tagged (the item is one link: no link inside).
  const mine = await browser.newPage({ viewport: DESKTOP });
  mine.on('pageerror', (e) => errors.push(e.message));
  const game = {
    room: 'r1', seat: 'first', your_turn: false, status: 'playing', to_move: 'middle', deadline_ms: null, clock: null,
    position: START, moves: 1, rated: false, paired: false, players: PEOPLE, updated_at_ms: 1735689600000, by_account: false,
  };
  await mockServer(mine, {
    api: (p) => {
      if (p === '/api/games/mine') return { json: { games: [game], your_turn: 0 } };
      if (p === '/api/session') return { json: null };
      return null;
    },
  });
  await mine.addInitScript(() => localStorage.setItem('sannin.token.r1', 'seat-token'));
  await mine.goto(`${ORIGIN}/games`);
  const title = mine.getByTestId('my-game-r1').locator('.my-game-title');
  await title.waitFor();
  assert.equal(await title.innerText(), 'vs Guest guest and Bot (Casual)');
  assert.equal(await title.getByTestId('guest-mark').count(), 1);
  assert.deepEqual(errors, []);
  await mine.close();
});

const BAD_NAME_TEXT = 'This name belongs to a registered player or a computer player, or cannot be seen: choose another.';
const REFUSAL = { type: 'error', code: 'bad_name', message: 'that name is an account\'s' };

test('scripted: a refused guest name said in words — taking a seat, watching, a quick game, a game against the computer', async () => {
  const waiting = state({ status: 'waiting', to_move: null, seats: { first: PEOPLE.first, middle: null, last: null } });
  // The room: the join refused, in the line above the board.
  const room = await openMockRoom(browser, (n, sock) => {
    sock.onMessage((m) => { if (JSON.parse(m).type === 'join') sock.send(JSON.stringify(REFUSAL)); });
    return waiting;
  });
  await room.page.getByTestId('room-name').fill('ann');
  await room.page.getByTestId('sit-middle').click();
  const line = room.page.locator('.status-strip .error');
  await until('the refusal shown', async () => (await line.textContent()) === BAD_NAME_TEXT);
  assert.deepEqual(room.errors, []);
  await room.page.close();

  // A spectator whose chat name (kept from before) is refused watches under none, and
  // is told why.
  const page = await browser.newPage({ viewport: DESKTOP });
  const watches = [];
  await mockServer(page, {
    ws: (sock) => sock.onMessage((m) => {
      const msg = JSON.parse(m);
      if (msg.type !== 'watch') return;
      watches.push(msg);
      sock.send(JSON.stringify(msg.name ? REFUSAL : state()));
    }),
  });
  await page.addInitScript(() => localStorage.setItem('sannin.name', 'Bot (Master)'));
  await page.goto(`${ORIGIN}/rooms/r1`);
  await page.waitForSelector('[data-cell] .piece');
  assert.deepEqual(watches.map((w) => w.name ?? null), ['Bot (Master)', null]);
  assert.equal(await page.locator('.status-strip .error').textContent(), BAD_NAME_TEXT);
  await page.close();

  // The lobby: a quick game's ticket refused (400), and the game against the computer
  // whose seat is refused over its socket.
  const lobby = await browser.newPage({ viewport: DESKTOP });
  const errors = [];
  lobby.on('pageerror', (e) => errors.push(e.message));
  const pool = { name: '3+2', rated: false, waiting: 0, clock: { kind: 'fischer', main_ms: 180000, increment_ms: 2000, byoyomi_ms: 0, periods: 0 } };
  await mockServer(lobby, {
    api: (path, method) => {
      if (path === '/api/rooms' && method === 'GET') return { json: [] };
      if (path === '/api/rooms' && method === 'POST') return { status: 201, json: { id: 'r1' } };
      if (path === '/api/pairing' && method === 'GET') return { json: [pool] };
      if (path === '/api/pairing' && method === 'POST') return { status: 400, json: { error: { code: 'bad_name', message: 'that name is an account\'s' } } };
      if (path === '/api/session') return { json: null };
      return null;
    },
    ws: (sock) => sock.onMessage((m) => { if (JSON.parse(m).type === 'join') sock.send(JSON.stringify(REFUSAL)); }),
  });
  await lobby.goto(`${ORIGIN}/`);
  await lobby.getByTestId('name').fill('ann');
  await lobby.getByTestId('pool-3+2/casual').click();
  await lobby.getByTestId('quick-message').filter({ hasText: BAD_NAME_TEXT }).waitFor();
  await lobby.getByTestId('play-computer').click();
  await lobby.locator('.lobby').filter({ hasText: `Could not start the game: ${BAD_NAME_TEXT}` }).waitFor();
  await shoot(lobby, 'fairplay-lobby-bad-name-en-desktop');
  assert.deepEqual(errors, []);
  await lobby.close();
});

// ---- /mod, scripted -------------------------------------------------------------------

const ROOMS = Array.from({ length: 9 }, (_, i) => `${String(i + 1).padStart(8, '0')}-aaaa-4bbb-8ccc-dddddddddddd`);
const PAIRS = {
  site: { pairs: 41, games: 230, first_second_share: 0.34, between_share: 0.31, gave_up_share: 0.04 },
  pairs: [
    {
      a: 'alice', b: 'bob', games: 12, first_second: 12, first_second_share: 1.0, expected_share: 0.333, z: 4.9,
      captures_between: 0, captures_on_third: 30, checks_between: 0, checks_on_third: 14, between_share: 0.0,
      gave_up_for_partner: 5, kept_apart: false, rooms: ROOMS,
    },
    {
      a: 'carol', b: 'dave', games: 7, first_second: 3, first_second_share: 0.43, expected_share: 0.333, z: 0.6,
      captures_between: 9, captures_on_third: 11, checks_between: 4, checks_on_third: 5, between_share: 0.45,
      gave_up_for_partner: 0, kept_apart: false, rooms: ROOMS.slice(0, 2),
    },
  ],
};
const RECORD = (name) => ({
  name, role: 'player', created_at: 1735689600000, sanctions: [], games: [], addresses: [], chat: [],
  engine: {
    games: 14, moves: 612, match_share: 0.712, average_loss: 0.018,
    site: { accounts: 57, match_p10: 0.31, match_p50: 0.42, match_p90: 0.55, loss_p50: 0.047 },
  },
});

/** /mod for a moderator on a scripted server; `posts` collects the bodies of
 * `POST /api/mod/pairs/apart`, which the next list reflects. */
async function scriptedMod({ viewport = DESKTOP, lang = 'en', path = '/mod' } = {}) {
  const context = await browser.newContext({ viewport, locale: LOCALES[lang], reducedMotion: 'reduce' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const posts = [];
  const apart = new Set();
  await mockServer(page, {
    api: (p, method, body) => {
      if (p === '/api/session') return { json: { name: 'mod1', role: 'moderator', rating: 1500, provisional: true, games: 0 } };
      if (p === '/api/mod/reports' || p === '/api/mod/log') return { json: [] };
      if (p === '/api/mod/pairs' && method === 'GET') {
        return { json: { ...PAIRS, pairs: PAIRS.pairs.map((x) => ({ ...x, kept_apart: apart.has(`${x.a}/${x.b}`) })) } };
      }
      if (p === '/api/mod/pairs/apart' && method === 'POST') {
        const b = JSON.parse(body);
        posts.push(b);
        if (b.apart) apart.add(`${b.a}/${b.b}`); else apart.delete(`${b.a}/${b.b}`);
        return { status: 204, body: '' };
      }
      const player = /^\/api\/mod\/players\/(.+)$/.exec(p);
      if (player) return { json: RECORD(decodeURIComponent(player[1])) };
      return null;
    },
  });
  await page.goto(`${ORIGIN}${path}`);
  await page.getByTestId('mod-pairs-table').waitFor();
  return { context, page, errors, posts };
}

test('scripted /mod: the pairs, most unusual first, explained; a name opens its record with its engine agreement; Keep apart asks a reason', async () => {
  const { context, page, errors, posts } = await scriptedMod();
  const explain = await page.getByTestId('mod-pairs-explain').textContent();
  assert.match(explain, /about a third of the time/);
  assert.match(explain, /standard deviations/);
  assert.equal(await page.getByTestId('mod-pairs-site').textContent(),
    'Whole site — pairs: 41 · their games together: 230 · 1st and 2nd together: 34% · captures and checks between the two: 31% · gave up with the partner ahead: 4%');
  const rows = page.getByTestId('mod-pair');
  assert.equal(await rows.count(), 2);
  const first = rows.first();
  assert.equal(await first.getAttribute('data-a'), 'alice');
  assert.match(await first.getAttribute('class'), /\bhigh\b/, 'a z of 4.9 is marked');
  assert.equal(await first.getByTestId('mod-pair-z').textContent(), '4.9');
  const cells = await first.locator('td').allInnerTexts();
  assert.deepEqual(cells.slice(1, 7).map((c) => c.split('\n').map((x) => x.trim()).filter(Boolean)), [
    ['12'], ['12 (100%)', 'expected 33%'], ['4.9'], ['captures: 0', 'checks: 0', '0% of all theirs'], ['captures: 30', 'checks: 14'], ['5'],
  ]);
  // Its games: six at once, the other three behind "3 more", each a link to its room.
  const links = first.getByTestId('mod-pair-room');
  assert.equal(await links.count(), 9);
  assert.equal(await links.first().getAttribute('href'), `/rooms/${ROOMS[0]}`);
  assert.equal(await links.first().getAttribute('aria-label'), 'Game 1 of the pair (00000001)');
  assert.equal(await first.locator('summary').textContent(), '3 more');
  assert.equal(await rows.nth(1).getAttribute('class'), null, 'an ordinary pair is not marked');
  await shoot(page, 'fairplay-mod-pairs-mock-en-desktop', { full: true });
  assert.deepEqual(await axe(page), [], 'axe on /mod with its pairs');

  // A name: its record on the same page, with the engine block beside the site's spread.
  assert.equal(await first.getByTestId('mod-pair-a').getAttribute('href'), '/mod?player=alice');
  await first.getByTestId('mod-pair-a').click();
  await page.getByTestId('mod-engine').waitFor();
  assert.equal(new URL(page.url()).search, '?player=alice');
  const facts = await page.$$eval('.mod-engine-facts dt', (dts) => dts.map((dt) => [dt.textContent, dt.nextElementSibling.textContent]));
  assert.deepEqual(facts, [
    ['Reviewed rated games', '14'], ['Moves judged', '612'],
    ['Matched the computer’s best move', '71.2% above the site’s 90th percentile'], ['Average loss (share of the game)', '1.8%'],
    ['The site: 10th percentile · median · 90th percentile', '31% · 42% · 55%'], ['The site: median loss', '4.7%'],
    ['Accounts on the site with reviewed games', '57'],
  ]);
  assert.equal(await page.getByTestId('mod-engine-above').isVisible(), true);
  assert.match(await page.getByTestId('mod-engine').textContent(), /Flags only: no sanction follows from this by itself/);
  await page.getByTestId('mod-engine').screenshot({ path: `${SHOTS}fairplay-mod-engine-mock-en.png` });
  assert.deepEqual(await axe(page), [], 'axe on a player\'s record with its engine agreement');

  // Keep apart: a reason first (none: nothing sent), then the pair is marked.
  await first.getByTestId('mod-pair-apart').click();
  await page.getByTestId('mod-pair-submit').click();
  assert.deepEqual(posts, [], 'no reason, nothing sent');
  await page.getByTestId('mod-pair-reason').fill('twelve games first and second, no capture between them');
  await page.getByTestId('mod-pair-submit').click();
  await page.getByTestId('mod-pair-kept-apart').waitFor();
  assert.deepEqual(posts, [{ a: 'alice', b: 'bob', apart: true, reason: 'twelve games first and second, no capture between them' }]);
  assert.equal(await page.getByTestId('mod-status').textContent(), 'alice and bob are now kept apart.');
  await page.getByTestId('mod-pair-together').click();
  await page.getByTestId('mod-pair-reason').fill('they are a couple on one sofa: told to play apart');
  await page.getByTestId('mod-pair-submit').click();
  await until('allowed again', async () => (await page.getByTestId('mod-pair-kept-apart').count()) === 0);
  assert.equal(posts[1].apart, false);
  assert.deepEqual(errors, []);
  await context.close();

  // `/mod?player=bob` opens with bob looked up; Japanese and the phone's cards.
  for (const [lang, viewport, size] of [['ja', DESKTOP, 'desktop'], ['en', PHONE, 'phone'], ['ja', PHONE, 'phone']]) {
    const m = await scriptedMod({ viewport, lang, path: '/mod?player=bob' });
    await m.page.getByTestId('mod-engine').waitFor();
    assert.equal(await m.page.getByTestId('mod-player-name').inputValue(), 'bob');
    if (size === 'phone') {
      // One card a pair: every cell within the window, none cut.
      const wide = await m.page.$$eval('[data-testid="mod-pair"] td', (tds) => tds.filter((td) => td.getBoundingClientRect().right > innerWidth + 0.5).length);
      assert.equal(wide, 0, 'no cell runs off the phone\'s screen');
    }
    await m.page.getByTestId('mod-pairs').scrollIntoViewIfNeeded();
    await m.page.getByTestId('mod-pairs').screenshot({ path: `${SHOTS}fairplay-mod-pairs-mock-${lang}-${size}.png` });
    await m.page.getByTestId('mod-engine').screenshot({ path: `${SHOTS}fairplay-mod-engine-mock-${lang}-${size}.png` });
    assert.deepEqual(m.errors, []);
    await m.context.close();
  }
});

test('scripted analysis board: a position of a game in play is refused the engine, and the page says why', async () => {
  const page = await browser.newPage({ viewport: DESKTOP });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await mockServer(page, {
    api: (p) => {
      if (p === '/api/replay') return { json: { start: START, plies: [], legal: ['P3c-4d', 'P3c-4c'] } };
      if (p === '/api/analyse') {
        return { status: 403, json: { error: { code: 'live_game', message: 'this position is on the board of a game in play' } } };
      }
      return null;
    },
  });
  await page.goto(`${ORIGIN}/analysis`);
  await page.getByTestId('analyse').click();
  const said = page.getByTestId('analyse-live-game');
  await said.waitFor();
  assert.equal(await said.textContent(), 'This position is on the board of a game in play: the engine opens for it when that game ends.');
  assert.equal(await page.getByTestId('analyse-error').count(), 0, 'not called a failure');
  await chooseLang(page, 'ja');
  await page.getByTestId('analyse').click();
  await page.getByTestId('analyse-live-game').filter({ hasText: 'その対局が終わるとエンジンで検討できます' }).waitFor();
  await shoot(page, 'fairplay-analysis-live-game-ja-desktop');
  assert.deepEqual(errors, []);
  await page.close();
});

// ---- the real server -----------------------------------------------------------------

const PASSWORD = (name) => `pw-${name}-e2e-Fair`;

/** A person in a context of its own. */
async function person(label, { viewport = DESKTOP, lang = 'en', name = null } = {}) {
  const context = await browser.newContext({ viewport, locale: LOCALES[lang], reducedMotion: 'reduce' });
  if (name) await context.addInitScript((n) => localStorage.setItem('sannin.name', n), name);
  return personIn(context, label);
}

/** A person logged in to a new account `name` (registering logs in). */
async function accountPerson(name, options = {}) {
  const srv = await realServer();
  const p = await person(name, options);
  const res = await p.context.request.post(`${srv.url}/api/accounts`, { data: { name, password: PASSWORD(name) } });
  assert.ok(res.ok(), `register ${name}: ${res.status()} ${await res.text()}`);
  return p;
}

async function newRoom(body = {}, p = null) {
  const srv = await realServer();
  const res = p ? await p.context.request.post(`${srv.url}/api/rooms`, { data: body })
    : await fetch(`${srv.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = p ? await res.text() : await res.text();
  assert.equal(p ? res.status() : res.status, 201, text);
  return JSON.parse(text).id;
}

/** Opens room `id` on `p`'s page and takes `seat` (under `name`: a guest's; an account
 * plays under its own whatever it types), then says ready. */
async function sitReady(p, id, name, seat) {
  const srv = await realServer();
  await p.page.goto(`${srv.url}/rooms/${id}`);
  await p.page.getByTestId('room-name').fill(name);
  await p.page.getByTestId(`sit-${seat}`).click();
  await until(`${p.label} seated`, () => p.lastState()?.you === seat);
  await p.page.getByTestId('ready').click();
}

async function setLang(p, code) {
  await chooseLang(p.page, code);
}

async function say(p, text) {
  await p.page.getByTestId('chat-input').fill(text);
  await p.page.getByTestId('chat-send').click();
}

/** The chat line of `list` (a locator) that says `text`. */
const chatLine = (list, text) => list.locator('li', { hasText: text });

test('real server: two accounts and a guest play — no engine for anyone while it lasts, guests tagged, then the analysis and the review', async () => {
  const srv = await realServer();
  const ann = await accountPerson('ann');
  const bob = await accountPerson('bob', { lang: 'ja' });
  const guest = await person('guest', { viewport: PHONE });
  const watcher = await person('watcher', { name: 'Kibitz' });
  const zoe = await accountPerson('zoe');
  const id = await newRoom();
  await sitReady(ann, id, 'whatever', 'first');
  await sitReady(bob, id, 'bob', 'middle');
  await sitReady(guest, id, 'Cho', 'last');
  const players = [ann, bob, guest];
  for (const p of players) await until(`${p.label}'s game started`, () => p.lastState()?.status === 'playing');
  // The seats say who has an account: ann plays under hers whatever she typed.
  const seats = ann.lastState().seats;
  assert.deepEqual(['first', 'middle', 'last'].map((s) => [seats[s].name, seats[s].account]), [['ann', 'ann'], ['bob', 'bob'], ['Cho', null]]);
  await watcher.page.goto(`${srv.url}/rooms/${id}`);
  await zoe.page.goto(`${srv.url}/rooms/${id}`);
  await until('the watchers\' states', () => watcher.lastState()?.status === 'playing' && zoe.lastState()?.status === 'playing');

  // Nobody is offered the engine while the game is played, players and spectators alike.
  const everyone = [...players, watcher, zoe];
  for (const p of everyone) {
    // On a phone the record's links sit behind the Moves tab.
    const phone = await p.page.getByTestId('tab-moves').isVisible();
    if (phone) await p.page.getByTestId('tab-moves').click();
    await p.page.getByTestId('analysis-later').waitFor();
    assert.equal(await p.page.getByTestId('open-analysis').isVisible(), false, `${p.label}: no analysis link`);
    assert.equal(await p.page.getByTestId('request-review-room').isVisible(), false, `${p.label}: no review`);
    if (phone) await p.page.getByTestId('tab-chat').click();
  }

  // The guest is tagged on every page; the accounts' names link to their profiles.
  for (const p of [ann, watcher]) {
    await p.page.getByTestId('guest-last').waitFor();
    assert.equal(await p.page.getByTestId('guest-first').count(), 0);
    assert.equal(await p.page.getByTestId('guest-middle').count(), 0);
    assert.equal(await p.page.getByTestId('profile-middle').getAttribute('href'), '/players/bob');
  }
  assert.equal(await bob.page.getByTestId('guest-last').textContent(), 'ゲスト');

  // The chats: the players' (read by the spectators too) and the spectators' own.
  await say(ann, 'good luck');
  await say(guest, 'hello from a guest');
  await say(watcher, 'nice opening');
  await say(zoe, 'indeed');
  const watcherPlayers = watcher.page.getByTestId('chat-players');
  const watcherSpectators = watcher.page.getByTestId('chat-spectators');
  await until('the spectators\' chat', async () => (await watcherSpectators.locator('li').count()) === 2);
  assert.equal(await chatLine(watcherSpectators, 'nice opening').getByTestId('guest-mark').count(), 1, 'a guest spectator is tagged');
  assert.equal(await chatLine(watcherSpectators, 'indeed').locator('a.profile-link').getAttribute('href'), '/players/zoe');
  await watcher.page.getByTestId('chat-tab-players').click();
  await until('the players\' chat', async () => (await watcherPlayers.locator('li').count()) === 2);
  assert.equal(await chatLine(watcherPlayers, 'hello from a guest').getByTestId('guest-mark').count(), 1);
  assert.equal(await chatLine(watcherPlayers, 'good luck').getByTestId('guest-mark').count(), 0);
  assert.equal(await chatLine(watcherPlayers, 'good luck').locator('a.profile-link').getAttribute('href'), '/players/ann');
  await until('the guest reads ann', async () => (await guest.page.getByTestId('chat-players').textContent()).includes('good luck'));

  // First moves; the engine is refused the position on the board, and the analysis
  // board opened by hand on this game says why.
  await ann.page.waitForSelector('[data-cell="3c"].source');
  await ann.page.locator('[data-cell="3c"]').click();
  await ann.page.waitForSelector('[data-cell="4d"][data-target]');
  await ann.page.locator('[data-cell="4d"]').click();
  await until('the move seen', () => bob.lastState()?.to_move === 'middle' && bob.lastState().moves.length === 1);
  const refused = await ann.page.evaluate(async (position) => {
    const res = await fetch('/api/analyse', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ position, movetime_ms: 200 }) });
    return { status: res.status, body: await res.json() };
  }, bob.lastState().position);
  assert.equal(refused.status, 403, JSON.stringify(refused));
  assert.equal(refused.body.error.code, 'live_game');
  const board = await ann.context.newPage();
  await board.goto(`${srv.url}/analysis?room=${id}`);
  // The room's move is on the board before Analyse is pressed (on a loaded machine the
  // history comes late, and the start position is no game's).
  await board.locator('[data-ply][data-node]').first().waitFor({ timeout: 60000 });
  await board.getByTestId('analyse').click();
  await board.getByTestId('analyse-live-game').waitFor({ timeout: 60000 });
  assert.equal(await board.getByTestId('analyse-live-game').textContent(),
    'This position is on the board of a game in play: the engine opens for it when that game ends.');
  await board.getByTestId('analyse-live-game').scrollIntoViewIfNeeded();
  await shoot(board, 'fairplay-analysis-live-game-en-desktop');
  await board.close();

  // Every seat and a spectator, desktop and phone, English and Japanese.
  await watcher.page.getByTestId('chat-tab-spectators').click();
  await shoot(ann.page, 'fairplay-seat-first-en-desktop');
  await shoot(bob.page, 'fairplay-seat-middle-ja-desktop');
  await shoot(guest.page, 'fairplay-seat-last-en-phone', { full: true });
  await setLang(guest, 'ja');
  await guest.page.getByTestId('guest-last').filter({ hasText: 'ゲスト' }).waitFor();
  // The tags of chat lines drawn before the change follow it too.
  const chatTags = await guest.page.locator('[data-testid="chat-players"] .guest-mark').allTextContents();
  assert.ok(chatTags.length > 0 && chatTags.every((x) => x === 'ゲスト'), JSON.stringify(chatTags));
  await shoot(guest.page, 'fairplay-seat-last-ja-phone', { full: true });
  await shoot(watcher.page, 'fairplay-spectator-en-desktop');
  await watcher.page.setViewportSize(PHONE);
  await shoot(watcher.page, 'fairplay-spectator-en-phone', { full: true });
  await setLang(watcher, 'ja');
  // Behind the Moves tab on a phone: there, translated.
  await watcher.page.getByTestId('analysis-later').filter({ hasText: '検討は終局後に' }).waitFor({ state: 'attached' });
  await shoot(watcher.page, 'fairplay-spectator-ja-phone', { full: true });
  await setLang(watcher, 'en');
  await watcher.page.setViewportSize(DESKTOP);
  await ann.page.setViewportSize(PHONE);
  await shoot(ann.page, 'fairplay-seat-first-en-phone', { full: true });
  await ann.page.setViewportSize(DESKTOP);

  // Two resign: the game is over, and everyone is offered the analysis and the review.
  await resign(bob);
  await resign(guest);
  for (const p of everyone) {
    await until(`${p.label} sees the end`, () => p.lastState()?.status === 'finished');
    if (await p.page.getByTestId('tab-moves').isVisible()) await p.page.getByTestId('tab-moves').click();
    await p.page.getByTestId('open-analysis').waitFor();
    assert.equal(await p.page.getByTestId('request-review-room').isVisible(), true, `${p.label}: the review is offered`);
    assert.equal(await p.page.getByTestId('analysis-later').isVisible(), false);
  }
  await shoot(watcher.page, 'fairplay-spectator-finished-en-desktop');
  await ann.page.getByTestId('open-analysis').click();
  await ann.page.waitForURL(/\/analysis\?room=/);
  // The game's end has nobody to move: the engine looks at its first move instead.
  await ann.page.getByTestId('step-first').click();
  await ann.page.getByTestId('step-next').click();
  await ann.page.getByTestId('analyse').click();
  await ann.page.getByTestId('analyse-best').waitFor({ timeout: 20000 });
  assert.equal(await ann.page.getByTestId('analyse-live-game').count(), 0);
  for (const p of everyone) assert.deepEqual(p.io.errors, []);
  for (const p of everyone) await p.context.close();
});

test('real server: a guest name that poses as an account or a bot is refused in words', async () => {
  const srv = await realServer();
  await accountPerson('dora');
  const id = await newRoom();
  const g = await person('poser');
  await g.page.goto(`${srv.url}/rooms/${id}`);
  for (const name of ['dora', 'DORA', 'Bot (Casual)']) {
    await g.page.getByTestId('room-name').fill(name);
    await g.page.getByTestId('sit-first').click();
    await until(`"${name}" refused`, async () => (await g.page.locator('.status-strip .error').textContent()) === BAD_NAME_TEXT);
    assert.equal(g.lastState()?.you ?? null, null, `"${name}" took no seat`);
    await g.page.locator('.status-strip .error').evaluate((n) => { n.textContent = ''; });
  }
  await setLang(g, 'ja');
  await g.page.getByTestId('room-name').fill('dora');
  await g.page.getByTestId('sit-first').click();
  await g.page.locator('.status-strip .error').filter({ hasText: '別の名前にしてください' }).waitFor();
  await shoot(g.page, 'fairplay-bad-name-ja-desktop');
  await setLang(g, 'en');
  // Another name is taken.
  await g.page.getByTestId('room-name').fill('Dorothea');
  await g.page.getByTestId('sit-first').click();
  await until('seated', () => g.lastState()?.you === 'first');
  // Quick pairing from the lobby: the ticket is refused the name.
  await g.page.goto(`${srv.url}/`);
  await g.page.getByTestId('name').fill('dora');
  await g.page.getByTestId('play-now').click();
  await g.page.getByTestId('quick-message').filter({ hasText: BAD_NAME_TEXT }).waitFor();
  assert.deepEqual(g.io.errors, []);
  await g.context.close();
});

let moderatorPromise = null;
/** mod1, made a moderator with `sannin admin role` while the server runs, logged in. */
function moderator(options) {
  moderatorPromise ??= (async () => {
    const srv = await realServer();
    const p = await accountPerson('mod1', options);
    const cli = spawnSync(srv.bin, ['admin', '--database-url', srv.databaseUrl, 'role', 'mod1', 'moderator'], { encoding: 'utf8' });
    assert.equal(cli.status, 0, `sannin admin role: ${cli.stdout}\n${cli.stderr}`);
    const res = await p.context.request.post(`${srv.url}/api/session`, { data: { name: 'mod1', password: PASSWORD('mod1') } });
    assert.ok(res.ok(), `log in mod1: ${res.status()} ${await res.text()}`);
    return p;
  })();
  return moderatorPromise;
}

test('real server: /mod lists the pairs with their explanation, keeps a pair apart, and shows an account\'s engine agreement', async () => {
  const srv = await realServer();
  // A rated game of three accounts, each of whom moves once (a game in which somebody
  // made no move is not rated): pc resigns first, then pb, so pa and pb finish first
  // and second together.
  const [pa, pb, pc] = [await accountPerson('pa'), await accountPerson('pb'), await accountPerson('pc')];
  const rated = await newRoom({ rated: true }, pa);
  await sitReady(pa, rated, 'pa', 'first');
  await sitReady(pb, rated, 'pb', 'middle');
  await sitReady(pc, rated, 'pc', 'last');
  for (const p of [pa, pb, pc]) await playMove(p);
  await until('three moves played', () => pa.lastState()?.moves?.length === 3);
  await resign(pc);
  await resign(pb);
  await until('the rated game over', () => pa.lastState()?.status === 'finished');
  for (const p of [pa, pb, pc]) await p.context.close();

  const mod = await moderator();
  const { page } = mod;
  // Its pairs are stored once the game is rated, a moment after its end.
  const pairsNow = async () => (await (await mod.context.request.get(`${srv.url}/api/mod/pairs`)).json());
  const listed = await until('the rated game\'s pairs', async () => {
    const l = await pairsNow();
    return l.pairs.length === 3 ? l : null;
  });
  const top = listed.pairs.find((x) => [x.a, x.b].sort().join() === 'pa,pb');
  assert.equal(top.games, 1);
  assert.equal(top.first_second, 1);
  assert.equal(listed.pairs[0], top, 'the pair that finished first and second comes first');
  await page.goto(`${srv.url}/mod`);
  await page.getByTestId('mod-pairs-table').waitFor();
  assert.match(await page.getByTestId('mod-pairs-explain').textContent(), /about a third of the time/);
  assert.equal(await page.getByTestId('mod-pair').count(), 3);
  assert.match(await page.getByTestId('mod-pairs-site').textContent(), /^Whole site — pairs: 3 · their games together: 3 · 1st and 2nd together: 33% · /);
  const row = page.locator(`[data-testid="mod-pair"][data-a="${top.a}"][data-b="${top.b}"]`);
  assert.equal(await row.getByTestId('mod-pair-room').getAttribute('href'), `/rooms/${rated}`);
  for (const [lang, viewport, size] of [['en', DESKTOP, 'desktop'], ['ja', DESKTOP, 'desktop'], ['en', PHONE, 'phone']]) {
    await setLang(mod, lang);
    await page.setViewportSize(viewport);
    await page.getByTestId('mod-pairs').screenshot({ path: `${SHOTS}fairplay-mod-pairs-${lang}-${size}.png` });
  }
  await setLang(mod, 'en');
  await page.setViewportSize(DESKTOP);

  // Keep apart, with a reason, and back.
  await row.getByTestId('mod-pair-apart').click();
  await row.getByTestId('mod-pair-reason').fill('e2e: first and second together');
  await row.getByTestId('mod-pair-submit').click();
  await row.getByTestId('mod-pair-kept-apart').waitFor();
  assert.equal((await pairsNow()).pairs.find((x) => x.a === top.a && x.b === top.b).kept_apart, true);
  assert.match(await page.getByTestId('mod-status').textContent(), /are now kept apart/);
  await until('the log says so', async () => (await page.getByTestId('mod-log').textContent()).includes('e2e: first and second together'));
  await row.getByTestId('mod-pair-together').click();
  await row.getByTestId('mod-pair-reason').fill('e2e: allowed again');
  await row.getByTestId('mod-pair-submit').click();
  await row.getByTestId('mod-pair-apart').waitFor();
  assert.equal((await pairsNow()).pairs.find((x) => x.a === top.a && x.b === top.b).kept_apart, false);

  // A name of the table opens its record, with its engine agreement: a flag only.
  await row.getByTestId('mod-pair-a').click();
  await page.getByTestId('mod-engine').waitFor();
  assert.equal(await page.getByTestId('mod-player-name').inputValue(), top.a);
  assert.match(await page.getByTestId('mod-engine').textContent(), /Flags only: no sanction follows from this by itself/);
  await page.getByTestId('mod-engine').screenshot({ path: `${SHOTS}fairplay-mod-engine-en-desktop.png` });
  assert.deepEqual(mod.io.errors, []);
});
