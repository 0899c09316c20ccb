// The computer review of a finished game against the real server (started with a small
// search budget, `--review-nodes 3000`): three people play a game in which First hangs
// a rook or bishop that Middle takes, then First and Last resign; First opens the
// review from the game page, sees it wait or run, then the evaluation graph, the
// judged moves in the move list, the table per player and the list of judged moves (the
// planted blunder among them), goes to the position of the blunder from the list, along
// the graph by click and by keys, and tries the position again in "Learn from your
// mistakes". A spectator of another game (in Japanese, on a desktop and a phone) finds
// the button on the analysis board and asks from the game page. Refusals (the day's
// budget, a busy or reviewless server) in words. Screenshots go to REVIEW_SHOTS (or
// /tmp/shots-site/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchNoCjk } from '../lib/nocjk.mjs';
import { serverAndBrowser } from '../lib/setup.mjs';
import { boardPieces, joinRoom, playMove, positionPieces, resign } from '../lib/people.mjs';
import { DESKTOP, PHONE, SHOTS as SITE_SHOTS, axe, englishLeft, shot, until, visitor } from '../lib/site.mjs';

const SHOTS = process.env.REVIEW_SHOTS ?? SITE_SHOTS;
const live = serverAndBrowser({ shots: SHOTS, launchBrowser: launchNoCjk, serverArgs: ['--review-nodes', '3000'] });
const SEATS = ['first', 'middle', 'last'];
const NAMES = ['Akira', 'Beni', 'Chiyo'];

async function api(path, init) {
  const res = await fetch(`${live.server.url}${path}`, init);
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function createRoom() {
  const { status, body } = await api('/api/rooms', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(status, 201);
  return body.id;
}

/** Three people seated and ready: their game has begun. */
async function table(id, lang = 'en') {
  const people = [];
  for (const [i, seat] of SEATS.entries()) {
    const p = await visitor(live.browser, seat, { lang });
    await joinRoom(p, live.server, id, NAMES[i], seat);
    people.push(p);
  }
  for (const p of people) await p.page.getByTestId('ready').click();
  await until('playing', () => people[0].lastState()?.status === 'playing');
  return people;
}

/** Plays `action` on `p`'s board by clicking its cells (the promotion question
 * answered as the action says: `+` promotes, `=` or nothing does not). */
async function playAction(p, action) {
  await until(`${p.label} to move with ${action}`, () => {
    const s = p.lastState();
    return s?.status === 'playing' && s.to_move === s.you && s.legal.includes(action);
  });
  const [, from, to, plus] = /^\+?[A-Z](\d+[a-m])[-x](\d+[a-m])([+=]?)$/.exec(action);
  await p.page.waitForSelector(`[data-cell="${from}"].source`);
  await p.page.locator(`[data-cell="${from}"]`).click();
  await p.page.waitForSelector(`[data-cell="${to}"][data-target]`);
  await p.page.locator(`[data-cell="${to}"]`).click();
  const dialog = p.page.getByTestId('promotion-dialog');
  if (await dialog.isVisible()) await p.page.getByTestId(plus === '+' ? 'promote-yes' : 'promote-no').click();
  await until(`${action} sent`, () => p.io.sent.some((m) => m.type === 'act' && m.action === action));
}

/** A move of First's rook or bishop to an empty cell that Middle can take it on at
 * once, found by asking the server for Middle's answers (`POST /api/replay`). */
async function hangingMove(moves, legal) {
  for (const action of legal.filter((a) => /^[RB]\d+[a-m]-\d+[a-m]$/.test(a) && !legal.includes(`${a}+`))) {
    const to = action.split('-')[1];
    const { status, body } = await api('/api/replay', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ record: [...moves, action].join(' ') }),
    });
    assert.equal(status, 200);
    const takes = body.legal.filter((a) => new RegExp(`^[A-Z]\\d+[a-m]x${to}[+=]?$`).test(a));
    const capture = takes.find((a) => !a.endsWith('+')) ?? takes[0];
    if (capture) return { action, capture };
  }
  return null;
}

async function reviewOf(id) {
  const { status, body } = await api(`/api/rooms/${id}/review`);
  assert.equal(status, 200);
  return body;
}

async function shots(page, name) {
  await shot(page, { path: `${SHOTS}${name}-desktop.png` });
  await page.setViewportSize(PHONE);
  await shot(page, { path: `${SHOTS}${name}-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
}

test('a player asks from the game page: progress, then the graph, the judged moves, the planted blunder, and learning from it', async () => {
  const id = await createRoom();
  const people = await table(id);
  const [first, middle, last] = people;
  for (const p of people) await playMove(p);
  assert.ok(await first.page.getByTestId('request-review-room').isHidden(), 'no review while the game is played');
  assert.equal((await api(`/api/rooms/${id}/review`, { method: 'POST' })).body?.error?.code, 'game_not_finished');
  // First hangs a rook or bishop (a later round if none can be taken yet); Middle takes it.
  let hang = null;
  for (let round = 0; round < 4 && !hang; round++) {
    const s = await until('First to move', () => { const st = first.lastState(); return st.to_move === 'first' && st.legal.length ? st : null; });
    hang = await hangingMove(s.moves, s.legal);
    if (!hang) for (const p of people) await playMove(p);
  }
  assert.ok(hang, 'First can hang a rook or bishop');
  await playAction(first, hang.action);
  await playAction(middle, hang.capture);
  await playMove(last);
  // First resigns; Middle moves; Last resigns: Middle wins.
  await resign(first);
  await playMove(middle);
  await until('Last to move', () => last.lastState()?.to_move === 'last');
  await resign(last);
  for (const p of people) await p.page.getByTestId('result').waitFor();
  const history = (await api(`/api/rooms/${id}/history`)).body;
  const blunderPly = history.plies.findIndex((p) => p.action === hang.action) + 1;
  const n = history.plies.length;

  // The review from the game page: the analysis board asks for it at once. The result
  // card offers it too.
  const { page } = first;
  const fromResult = page.getByTestId('request-review-result');
  await fromResult.waitFor();
  assert.equal(await fromResult.textContent(), 'Computer review');
  assert.equal(await fromResult.getAttribute('href'), `/analysis?room=${id}&review=1&seat=first`);
  await shots(page, 'review-result-card-en');
  const link = page.getByTestId('request-review-room');
  await link.waitFor();
  assert.equal(await link.textContent(), 'Computer review');
  assert.equal(await link.getAttribute('href'), `/analysis?room=${id}&review=1&seat=first`);
  assert.ok(await page.getByTestId('open-analysis').isVisible(), 'the analysis link stays');
  await shots(page, 'review-room-link-en');
  const posted = page.waitForResponse((r) => r.url().endsWith(`/api/rooms/${id}/review`) && r.request().method() === 'POST');
  await link.click();
  await page.waitForURL(/\/analysis\?room=/);
  const asked = await (await posted).json();
  assert.ok(['queued', 'running'].includes(asked.state), `asked: ${asked.state}`);
  assert.equal(asked.plies_total, n + 1);
  await page.getByTestId('review-progress').waitFor();
  // A player's link shows the board from their own side.
  assert.equal(await page.getByTestId('view-first').getAttribute('aria-pressed'), 'true', 'seen from First');
  assert.match(await page.getByTestId('review-status').textContent(), /^(Waiting: .*|Reviewing… \d+ \/ \d+ positions)$/);
  await shot(page, { path: `${SHOTS}review-progress-en.png` });
  await page.getByTestId('review-graph').waitFor({ timeout: 120000 });
  const review = await reviewOf(id);
  assert.equal(review.state, 'done');
  assert.equal(review.positions.length, n + 1);
  assert.equal(review.moves.length, n);

  // The planted blunder is judged, and marked in the move list.
  const planted = review.moves[blunderPly - 1];
  assert.equal(planted.action, hang.action);
  assert.ok(['blunder', 'mistake'].includes(planted.judgement), `the hung piece: ${planted.judgement} (loss ${planted.loss})`);
  const judged = review.moves.filter((m) => m.judgement);
  const listed = await page.locator('[data-testid="ply-list"] button[data-judgement]').evaluateAll((bs) => bs.map((b) => [Number(b.dataset.ply), b.dataset.judgement, b.querySelector('.mark')?.textContent]));
  const MARKS = { inaccuracy: '?!', mistake: '?', blunder: '??' };
  assert.deepEqual(listed, judged.map((m) => [m.ply, m.judgement, MARKS[m.judgement]]));
  // The graph: a line per seat; the table: the review's counts.
  assert.equal(await page.locator('[data-testid="review-graph"] path.share').count(), 3);
  const rows = await page.getByTestId('review-summary').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.seat, ...[...tr.querySelectorAll('td')].map((td) => Number(td.textContent))]));
  assert.deepEqual(rows, SEATS.map((s) => [s, review.counts[s].inaccuracy, review.counts[s].mistake, review.counts[s].blunder]));
  assert.equal(await page.getByTestId('review-nodes').textContent(), 'Searched 3,000 positions for each move of the game.');
  assert.equal(await page.getByTestId('review-learn').locator('h3').textContent(), 'Learn from your mistakes');
  await shots(page, 'review-done-en');
  assert.deepEqual(await axe(page), [], 'accessibility of the page with its review');

  // The planted blunder's mark goes to the position it was played in, with the engine's move.
  const mark = page.getByTestId('review-marks').locator(`button[data-ply="${blunderPly}"]`);
  const better = planted.best ? ` (better: ${planted.best})` : '';
  // Numbered as the move list numbers the move's round.
  const round = await page.locator(`[data-testid="ply-list"] > button[data-ply="${blunderPly}"]`).evaluate((b) => {
    let e = b.previousElementSibling;
    while (e && !e.classList.contains('round-no')) e = e.previousElementSibling;
    return e.textContent;
  });
  assert.equal(await mark.evaluate((b) => b.firstChild.textContent), `${round} ${hang.action} ${MARKS[planted.judgement]} · First${better}`);
  await mark.click();
  await page.getByTestId('where').filter({ hasText: `move ${blunderPly - 1} of ${n}` }).waitFor();
  assert.deepEqual(await boardPieces(page), await positionPieces(page, history.plies[blunderPly - 2].position));
  const best = review.positions[blunderPly - 1].best;
  assert.equal(best, planted.best);
  assert.match(await page.getByTestId('review-best').textContent(), new RegExp(`^Engine prefers: ${best.replace(/[+*]/g, '\\$&')} — First`));
  await page.waitForSelector(`g.arrows [data-action="${best}"]`);
  assert.equal(await mark.getAttribute('aria-current'), 'true');
  await shot(page, { path: `${SHOTS}review-mark-en-desktop.png` });
  // On a phone the board stands far above the panel: a marked move brings it into sight.
  await page.setViewportSize(PHONE);
  await mark.scrollIntoViewIfNeeded();
  await mark.click();
  assert.ok(await page.locator('.board-line').evaluate((e) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight / 2; }), 'the board in sight on a phone');
  await shot(page, { path: `${SHOTS}review-mark-en-phone.png` });
  await page.setViewportSize(DESKTOP);
  // The move after it says what it was.
  await page.getByTestId('step-next').click();
  assert.match(await page.getByTestId('review-judged').textContent(), new RegExp(`^First played ${hang.action} here, a (blunder|mistake)`));

  // The graph: a click goes to the ply under it, the keys walk along it.
  const graph = page.getByTestId('review-graph');
  const box = await graph.boundingBox();
  await graph.click({ position: { x: box.width - 2, y: box.height / 2 } });
  await page.getByTestId('where').filter({ hasText: `move ${n} of ${n}` }).waitFor();
  await graph.click({ position: { x: 2, y: box.height / 2 } });
  await page.getByTestId('where').filter({ hasText: `move 0 of ${n}` }).waitFor();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.getByTestId('where').filter({ hasText: `move 2 of ${n}` }).waitFor();
  assert.equal(await graph.getAttribute('aria-valuenow'), '2');
  assert.match(await graph.getAttribute('aria-valuetext'), /^Move 2: First \d+%, Middle \d+%, Last \d+%$/);
  await page.keyboard.press('End');
  await page.getByTestId('where').filter({ hasText: `move ${n} of ${n}` }).waitFor();

  // Learn from your mistakes: First's (the seat this browser played), the hung piece among them.
  assert.equal(await page.getByTestId('learn-seat-first').getAttribute('aria-pressed'), 'true');
  await page.getByTestId('learn-start').click();
  const exercises = review.moves.filter((m) => m.player === 'first' && ['mistake', 'blunder'].includes(m.judgement) && m.best && m.best !== m.action);
  const at = exercises.findIndex((m) => m.ply === blunderPly);
  assert.ok(at >= 0, 'the hung piece is to be learnt from');
  for (let i = 0; i < at; i++) await page.getByTestId('learn-next').click();
  await page.getByTestId('where').filter({ hasText: `move ${blunderPly - 1} of ${n}` }).waitFor();
  assert.match(await page.getByTestId('learn-prompt').textContent(), new RegExp(`You played ${hang.action} here, a (blunder|mistake)\\. Find a better move\\.`));
  assert.equal(await page.locator('g.arrows').count(), 0, 'the answer is not shown before the try');
  assert.equal(await page.getByTestId('review-best').count(), 0);
  await shot(page, { path: `${SHOTS}review-learn-en.png` });
  // A move of its own that is not the engine's: not quite, try again; back to the
  // position, the try gone from the tree, the answer still hidden.
  const other = (await page.evaluate(async (record) => {
    const res = await fetch('/api/replay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ record }) });
    return (await res.json()).legal ?? [];
  }, history.plies.slice(0, blunderPly - 1).map((p) => p.action).join(' ')))
    .find((a) => a !== best && a !== hang.action && /^[A-Z]\d+[a-m]-\d+[a-m]$/.test(a)) ?? hang.action;
  const variations = await page.getByTestId('variation').count();
  for (const action of [other, hang.action]) {
    const [, from, to] = /^[A-Z](\d+[a-m])-(\d+[a-m])$/.exec(action);
    await page.waitForSelector(`[data-cell="${from}"].source`);
    await page.locator(`[data-cell="${from}"]`).click();
    await page.waitForSelector(`[data-cell="${to}"][data-target]`);
    await page.locator(`[data-cell="${to}"]`).click();
    await page.getByTestId('learn-verdict').filter({ hasText: 'Not quite — try again.' }).waitFor();
    await page.getByTestId('where').filter({ hasText: `move ${blunderPly - 1} of ${n}` }).waitFor();
    assert.equal(await page.locator(`g.arrows [data-action="${best}"]`).count(), 0, 'no solution after a miss');
    assert.equal(await page.getByTestId('variation').count(), variations, 'the try is not kept in the tree');
    assert.ok(await page.getByTestId('learn-solution').isVisible(), 'the solution is there to ask for');
  }
  // The board in sight with the verdict (the page scrolled to it on a jump).
  assert.ok(await page.getByTestId('learn-verdict').evaluate((e) => { const r = e.getBoundingClientRect(); return r.bottom <= innerHeight && r.top >= 0; }), 'the verdict in sight');
  await shots(page, 'review-learn-verdict-en');
  await page.getByTestId('learn-solution').click();
  await page.getByTestId('learn-verdict').filter({ hasText: `The engine prefers ${best}.` }).waitFor();
  await page.waitForSelector(`g.arrows [data-action="${best}"]`);
  await page.getByTestId('learn-next').click();
  if (at === exercises.length - 1) {
    await page.getByTestId('learn-count').filter({ hasText: `That was the last one: 0 of ${exercises.length} found.` }).waitFor();
  }
  for (const p of people) assert.deepEqual(p.io.errors, []);
  for (const p of people) await p.context.close();

  // The same in Japanese, on a desktop and a phone: the result card, a marked move, a miss.
  for (const viewport of [DESKTOP, PHONE]) {
    const size = viewport === DESKTOP ? 'desktop' : 'phone';
    const ja = await visitor(live.browser, `ja-${size}`, { lang: 'ja', viewport });
    await ja.page.goto(`${live.server.url}/rooms/${id}`);
    await ja.page.getByTestId('request-review-result').waitFor();
    await shot(ja.page, { path: `${SHOTS}review-result-card-ja-${size}.png` });
    await ja.page.goto(`${live.server.url}/analysis?room=${id}&seat=first`);
    const jaMark = ja.page.getByTestId('review-marks').locator(`button[data-ply="${blunderPly}"]`);
    await jaMark.scrollIntoViewIfNeeded();
    await jaMark.click();
    await ja.page.getByTestId('review-best').waitFor();
    await shot(ja.page, { path: `${SHOTS}review-mark-ja-${size}.png` });
    await ja.page.getByTestId('learn-start').scrollIntoViewIfNeeded();
    await ja.page.getByTestId('learn-start').click();
    for (let i = 0; i < at; i++) await ja.page.getByTestId('learn-next').click();
    const [, from, to] = /^[A-Z](\d+[a-m])-(\d+[a-m])$/.exec(hang.action);
    await ja.page.waitForSelector(`[data-cell="${from}"].source`);
    await ja.page.locator(`[data-cell="${from}"]`).click();
    await ja.page.waitForSelector(`[data-cell="${to}"][data-target]`);
    await ja.page.locator(`[data-cell="${to}"]`).click();
    await ja.page.getByTestId('learn-verdict').filter({ hasText: 'もう一度' }).waitFor();
    assert.ok(await ja.page.getByTestId('learn-verdict').evaluate((e) => { const r = e.getBoundingClientRect(); return r.bottom <= innerHeight && r.top >= 0; }), `the verdict in sight (${size})`);
    await shot(ja.page, { path: `${SHOTS}review-learn-miss-ja-${size}.png` });
    assert.deepEqual(ja.io.errors, []);
    await ja.context.close();
  }
});

test('a spectator, in Japanese: the button on the analysis board, and the review asked for from the game page', async () => {
  const id = await createRoom();
  const people = await table(id);
  for (const p of people) await playMove(p);
  await resign(people[0]);
  await until('Middle to move', () => people[1].lastState()?.to_move === 'middle');
  await resign(people[1]);
  await people[2].page.getByTestId('result').waitFor();
  for (const p of people) await p.context.close();

  const fan = await visitor(live.browser, 'fan', { lang: 'ja' });
  const { page } = fan;
  await page.goto(`${live.server.url}/rooms/${id}`);
  const link = page.getByTestId('request-review-room');
  await link.waitFor();
  assert.equal(await link.textContent(), 'コンピューター解析');
  assert.equal(await link.getAttribute('href'), `/analysis?room=${id}&review=1`);
  assert.equal(await page.getByTestId('request-review-result').getAttribute('href'), `/analysis?room=${id}&review=1`, 'in the result card too');
  // The analysis board alone offers the button.
  await page.getByTestId('open-analysis').click();
  const button = page.getByTestId('request-review');
  await button.waitFor();
  assert.equal(await button.textContent(), 'コンピューター解析を依頼する');
  const left = await englishLeft(page, [], 'ja');
  assert.deepEqual(left.messages, []);
  await shots(page, 'review-button-ja');
  // From the game page: asked at once.
  await page.goto(`${live.server.url}/rooms/${id}`);
  await link.click();
  await page.waitForURL(/review=1/);
  await page.getByTestId('review-graph').waitFor({ timeout: 60000 });
  assert.equal((await reviewOf(id)).state, 'done');
  assert.equal(await page.getByTestId('learn-seat-first').getAttribute('aria-pressed'), 'true', 'First, for a spectator');
  assert.equal(await page.getByTestId('view-middle').getAttribute('aria-pressed'), 'true', 'the usual side, for a spectator');
  assert.equal(await page.getByTestId('review-learn').locator('h3').textContent(), '悪手から学ぶ');
  assert.match(await page.getByTestId('review-summary').locator('caption').textContent(), /疑問手（\?!）・悪手（\?）・大悪手（\?\?）/);
  const after = await englishLeft(page, [], 'ja');
  assert.deepEqual(after.messages, []);
  await shots(page, 'review-done-ja');
  assert.deepEqual(fan.io.errors, []);
  await fan.context.close();
});

test('refusals in words: the day\'s budget with its wait, a busy server, a server that reviews nothing', async () => {
  const id = await createRoom();
  const people = await table(id);
  await resign(people[0]);
  await until('Middle to move', () => people[1].lastState()?.to_move === 'middle');
  await resign(people[1]);
  await people[2].page.getByTestId('result').waitFor();
  for (const p of people) await p.context.close();
  const cases = [
    [429, 'rate_limited', 'You have asked for as many reviews as a day allows: try again in 2 hours.'],
    [503, 'review_busy', 'Too many games are waiting for their review: try again in a few minutes.'],
    [503, 'reviews_off', 'This server does not review games.'],
  ];
  for (const [status, code, words] of cases) {
    const v = await visitor(live.browser, code);
    await v.page.route(`**/api/rooms/${id}/review`, (route) => (route.request().method() === 'POST'
      ? route.fulfill({ status, headers: { 'retry-after': '7200' }, json: { error: { code, message: code } } })
      : route.fulfill({ status: 404, json: { error: { code: 'review_not_found', message: 'none' } } })));
    await v.page.goto(`${live.server.url}/analysis?room=${id}`);
    await v.page.getByTestId('request-review').click();
    await v.page.getByTestId('review-error').filter({ hasText: words }).waitFor();
    assert.equal(await v.page.getByTestId('request-review').count(), code === 'review_busy' ? 1 : 0, `${code}: try again`);
    assert.deepEqual(v.io.errors, []);
    await v.context.close();
  }
  // A game in play has no review panel.
  const playing = await createRoom();
  const three = await table(playing);
  const v = await visitor(live.browser, 'early');
  await v.page.goto(`${live.server.url}/analysis?room=${playing}`);
  await v.page.getByTestId('where').waitFor();
  assert.equal(await v.page.getByTestId('review-panel').count(), 0);
  await v.context.close();
  for (const p of three) await p.context.close();
});
