// The tutorial (/learn) against the real server: a lesson completed by clicking pieces
// and cells (each move judged by `POST /api/replay`), a wrong move refused with the
// reason, the progress still on the list after a reload, the last link making a game
// against two Beginner computer players; and the lobby's "Play the computer" with a
// seat and a clock chosen. Screenshots (list, a lesson before and after a right move,
// the computer card; desktop and phone, English and Japanese) go to LEARN_SHOTS (or
// /tmp/learn-shots/); run with FONTCONFIG_FILE naming a fonts.conf of DejaVu alone to
// see the Japanese drawn by the bundled font.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { DESKTOP, PHONE, axe, shot, until, visitor } from '../lib/site.mjs';
import { EXERCISE_COUNT, LESSONS } from '../../static/js/lessons.js';

const SHOTS = process.env.LEARN_SHOTS ?? '/tmp/learn-shots/';
// Every lesson is walked through below: more replays than a reader makes in a minute.
const live = serverAndBrowser({ shots: SHOTS, serverArgs: ['--replays-per-minute', '600'] });

/** The clicks that solve each exercise: cells, `hand-X` (a piece in hand), `promote`,
 * `illuminate`. */
const SOLUTIONS = {
  king: [['9j', '9i'], ['7i', '6g']],
  silver: [['8j', '9i'], ['7i', '5h']],
  lance: [['9l', '9g'], ['4i', '8i']],
  bishop: [['7k', '5g']],
  pawn: [['7h', '6g']],
  promotion: [['4e', '3d', 'promote'], ['8f', '9e', 'promote']],
  drops: [['hand-G', '7g'], ['hand-P', '6h']],
  mate: [['6f', '6d'], ['hand-G', '2b']],
  garden: [['7h', '7g']],
  illumination: [['illuminate']],
  alliance: [['5c', '4b'], ['12k', '12i']],
};

/** A reader of the tutorial. A server built before /learn was one of its pages answers
 * it 404: the test then asks for / instead (the same index.html), and says so. */
async function reader(label, options = {}, t = null) {
  const v = await visitor(live.browser, label, options);
  const res = await fetch(`${live.server.url}/learn`);
  if (res.status === 404) {
    t?.diagnostic('this server binary does not serve /learn yet: the test sends its requests to / (index.html)');
    await v.context.route(/\/learn(#.*)?$/, (route) => route.continue({ url: `${live.server.url}/` }));
  }
  return v;
}

/** Clicks cell `name` on the lesson's board. */
async function click(page, name) {
  await page.locator(`[data-testid="learn-board"] [data-cell="${name}"]`).click();
}

async function feedback(page, kind) {
  const el = page.locator(`[data-testid="learn-feedback"].${kind}`);
  await el.waitFor();
  return el.textContent();
}

test('a lesson done by clicking, a wrong move refused with its reason, progress kept across a reload', async (t) => {
  const v = await reader('learner', {}, t);
  const { page } = v;
  await page.goto(`${live.server.url}/`);
  // The header and the lobby's hero lead to the tutorial.
  await page.getByTestId('nav-learn').waitFor();
  await page.getByTestId('learn-link').click();
  await page.getByTestId('lesson-list').waitFor();
  assert.match(await page.getByTestId('learn-progress').textContent(), /^0 of \d+ exercises done$/);
  await shot(page, { path: `${SHOTS}learn-list-en-desktop.png`, fullPage: true });

  await page.getByTestId('lesson-king').click();
  await page.getByTestId('learn-lesson').waitFor();
  assert.equal(await page.getByTestId('learn-step').textContent(), 'Exercise 1 of 2');
  await shot(page, { path: `${SHOTS}learn-lesson-en-desktop-before.png` });

  // The king steps only through the sides of its cell: a diagonal step is refused,
  // with the reason, and the learner may try again.
  await click(page, '9j');
  assert.equal(await page.locator('[data-cell="9j"]').getAttribute('aria-pressed'), 'true');
  await click(page, '8k');
  const refused = await feedback(page, 'wrong');
  assert.match(refused, /K9jx8k is not allowed\. The king cannot move there/);

  // A legal move that is not the one asked for gets the lesson's hint.
  await click(page, '9j');
  await click(page, '8j');
  assert.match(await feedback(page, 'wrong'), /K9j-8j is a legal move, but not the one asked for\. Take the pawn on 9i\./);

  // The right one: the board shows the position after it, and the next exercise waits.
  await click(page, '9j');
  await click(page, '9i');
  assert.match(await feedback(page, 'right'), /^Right! The king stepped/);
  await page.locator('[data-cell="9i"].last').waitFor();
  assert.equal(await page.locator('[data-cell="9j"] .content *').count(), 0, 'the king left 9j');
  await shot(page, { path: `${SHOTS}learn-lesson-en-desktop-after.png` });
  await page.getByTestId('learn-next').click();
  assert.equal(await page.getByTestId('learn-step').textContent(), 'Exercise 2 of 2');
  await click(page, '7i');
  await click(page, '6g');
  await feedback(page, 'right');
  // The last exercise of a lesson leads to the next lesson.
  assert.match(await page.getByTestId('learn-next').textContent(), /Next lesson: The silver and the knight/);

  // The progress is kept in the browser: still there after a reload.
  await page.goto(`${live.server.url}/learn`);
  await page.reload();
  await page.getByTestId('lesson-list').waitFor();
  assert.match(await page.getByTestId('lesson-state-king').textContent(), /done/);
  assert.match(await page.getByTestId('lesson-state-silver').textContent(), /0 of 2 done/);
  assert.match(await page.getByTestId('learn-progress').textContent(), /^2 of /);
  const saved = JSON.parse(await page.evaluate(() => localStorage.getItem('sannin.learn')));
  assert.deepEqual(saved, { king: [0, 1] });
  await v.context.close();
});

test('drops, promotion and illumination lessons are played on the board', async (t) => {
  const v = await reader('learner 2', {}, t);
  const { page } = v;
  await page.goto(`${live.server.url}/learn#promotion`);
  await page.getByTestId('learn-lesson').waitFor();
  await click(page, '4e');
  await click(page, '3d');
  // Promotion is possible and optional here: the learner is asked.
  await page.getByTestId('learn-promote').waitFor();
  await shot(page, { path: `${SHOTS}learn-promotion-choice-en-desktop.png` });
  await page.getByTestId('learn-promote').click();
  await feedback(page, 'right');
  await page.goto(`${live.server.url}/learn#drops`);
  await page.getByTestId('learn-hand-G').click();
  await shot(page, { path: `${SHOTS}learn-drop-en-desktop.png` });
  await click(page, '7g');
  await feedback(page, 'right');
  await page.goto(`${live.server.url}/learn#illumination`);
  await page.getByTestId('learn-illuminate').click();
  assert.match(await feedback(page, 'right'), /undefended/);
  assert.equal(await page.locator('[data-cell="7g"] .content *').count(), 0, 'the pawn on 7g killed by light');
  await v.context.close();
});

test('the tutorial passes axe-core (WCAG 2.1 AA): the list, a lesson, a refused move, a right one', async (t) => {
  const v = await reader('axe', {}, t);
  const { page } = v;
  await page.goto(`${live.server.url}/learn`);
  await page.getByTestId('lesson-list').waitFor();
  assert.deepEqual(await axe(page), [], 'the lesson list');
  await page.getByTestId('lesson-drops').click();
  await page.getByTestId('learn-hand-G').click();
  assert.deepEqual(await axe(page), [], 'a lesson, a piece in hand picked');
  await page.getByTestId('learn-hand-G').click();
  await click(page, '10m');
  await click(page, '10l');
  await feedback(page, 'wrong');
  assert.deepEqual(await axe(page), [], 'a move that is not the one asked for');
  await page.getByTestId('learn-hand-G').click();
  await click(page, '7g');
  await feedback(page, 'right');
  assert.deepEqual(await axe(page), [], 'the right move');
  await v.context.close();
});

test('every lesson can be done by clicks, one after the other, to the first game', async (t) => {
  const v = await reader('every lesson', {}, t);
  const { page } = v;
  assert.deepEqual(Object.keys(SOLUTIONS), LESSONS.map((l) => l.id));
  await page.goto(`${live.server.url}/learn#${LESSONS[0].id}`);
  for (const lesson of LESSONS) {
    await page.locator(`[data-testid="learn-lesson"][data-lesson="${lesson.id}"]`).waitFor();
    for (const [i, clicks] of SOLUTIONS[lesson.id].entries()) {
      assert.equal(await page.getByTestId('learn-step').textContent(), `Exercise ${i + 1} of ${lesson.exercises.length}`);
      if (lesson.exercises[i].prelude) {
        // First's move before Middle's is on the board, marked as the last move.
        const [, from, to] = /([0-9]+[a-m])-([0-9]+[a-m])/.exec(lesson.exercises[i].prelude);
        await page.locator(`[data-cell="${to}"].last`).waitFor();
        assert.equal(await page.locator(`[data-cell="${from}"] .content *`).count(), 0);
        await shot(page, { path: `${SHOTS}learn-${lesson.id}-${i + 1}-en-desktop.png` });
      }
      // Only this exercise's cells are marked (the board is the same for the lesson).
      const marked = await page.locator('[data-testid="learn-board"] .cell.goal').evaluateAll((gs) => gs.map((g) => g.dataset.cell).sort());
      assert.deepEqual(marked, [...(lesson.exercises[i].mark ?? [])].sort(), `${lesson.id} ${i + 1}: marked cells`);
      for (const c of clicks) {
        if (c === 'promote') await page.getByTestId('learn-promote').click();
        else if (c === 'illuminate') await page.getByTestId('learn-illuminate').click();
        else if (c.startsWith('hand-')) await page.getByTestId(`learn-${c}`).click();
        else await click(page, c);
      }
      await feedback(page, 'right');
      await page.getByTestId('learn-next').click();
    }
  }
  // The last lesson's button leads back to the list: all done, the first game offered.
  await page.getByTestId('lesson-list').waitFor();
  assert.equal(await page.getByTestId('learn-progress').textContent(), `${EXERCISE_COUNT} of ${EXERCISE_COUNT} exercises done`);
  assert.match(await page.locator('.first-game').textContent(), /You have done every lesson/);
  await v.context.close();
});

test('the first game: the tutorial\'s last link makes a game against two Beginner computer players', async (t) => {
  const v = await reader('first game', {}, t);
  const { page } = v;
  await page.goto(`${live.server.url}/learn`);
  await page.getByTestId('learn-play').click();
  await Promise.race([
    page.waitForURL(/\/rooms\//),
    page.getByTestId('learn-first-game-error').filter({ hasText: /./ }).waitFor().then(async () => {
      assert.fail(await page.getByTestId('learn-first-game-error').textContent());
    }),
  ]);
  await page.waitForURL(/\/rooms\/[^/]+$/);
  await until('seated in a running game', () => v.lastState()?.you === 'first' && v.lastState()?.status === 'playing');
  const s = v.lastState();
  assert.equal(s.seats.middle.bot, 1, 'a Beginner (level 1) as Middle');
  assert.equal(s.seats.last.bot, 1, 'a Beginner (level 1) as Last');
  assert.ok(!s.seats.first.bot);
  await v.context.close();
});

test('"Play the computer" with a seat and a clock: the reader as Middle, bots as First and Last, the clock chosen', async () => {
  const v = await visitor(live.browser, 'computer seat');
  const { page } = v;
  await page.goto(`${live.server.url}/`);
  await page.getByTestId('name').fill('Mika');
  await page.getByTestId('computer-seat').selectOption('middle');
  // The clocks offered: no clock and four clocks, named as the lobby names room clocks.
  const clocks = await page.getByTestId('computer-clock').locator('option').allTextContents();
  assert.deepEqual(clocks, ['No clock', '5 min', '10 min', '10 min + 5 s', '10 min + 3×30 s']);
  await page.getByTestId('computer-clock').selectOption({ label: '10 min + 5 s' });
  await page.getByTestId('computer-level').selectOption('1');
  await page.getByTestId('play-computer').click();
  await page.waitForURL(/\/rooms\/[^/]+$/);
  await until('seated as Middle in a running game', () => v.lastState()?.you === 'middle' && v.lastState()?.status === 'playing');
  const s = v.lastState();
  assert.equal(s.seats.middle.name, 'Mika');
  assert.ok(!s.seats.middle.bot && s.seats.middle.bot !== 0, 'a person in the Middle seat');
  assert.equal(s.seats.first.bot, 1);
  assert.equal(s.seats.last.bot, 1);
  assert.equal(s.clocks?.kind, 'fischer');
  assert.equal(s.clocks?.main_ms, 600000);
  assert.equal(s.clocks?.increment_ms, 5000);
  await v.context.close();
});

test('"Play the computer" with a random seat seats the reader in one of the three, bots in the others', async () => {
  const v = await visitor(live.browser, 'computer random');
  const { page } = v;
  await page.goto(`${live.server.url}/`);
  await page.getByTestId('computer-seat').selectOption('random');
  await page.getByTestId('play-computer').click();
  await page.waitForURL(/\/rooms\/[^/]+$/);
  await until('seated', () => v.lastState()?.you && v.lastState()?.status === 'playing');
  const s = v.lastState();
  const others = ['first', 'middle', 'last'].filter((seat) => seat !== s.you);
  for (const seat of others) assert.equal(typeof s.seats[seat].bot, 'number', `a bot as ${seat}`);
  assert.equal(s.clocks, null, 'no clock by default');
  await v.context.close();
});

test('screenshots of the tutorial: desktop and phone, English and Japanese', async (t) => {
  for (const lang of ['en', 'ja']) {
    for (const [vp, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
      const v = await reader(`shots ${lang} ${vp}`, { viewport, lang }, t);
      const { page } = v;
      await page.goto(`${live.server.url}/learn`);
      await page.getByTestId('lesson-list').waitFor();
      if (!(lang === 'en' && vp === 'desktop')) await shot(page, { path: `${SHOTS}learn-list-${lang}-${vp}.png`, fullPage: true });
      await page.getByTestId('lesson-silver').click();
      await page.getByTestId('learn-lesson').waitFor();
      await click(page, '8j');
      await shot(page, { path: `${SHOTS}learn-lesson-${lang}-${vp}-before.png`, fullPage: true });
      await click(page, '9i');
      await feedback(page, 'right');
      await shot(page, { path: `${SHOTS}learn-lesson-${lang}-${vp}-after.png`, fullPage: true });
      await page.goto(`${live.server.url}/`);
      await page.getByTestId('play-computer').waitFor();
      await page.evaluate(() => document.fonts.ready.then(() => true));
      await page.locator('section:has(#path-computer)').screenshot({ path: `${SHOTS}computer-card-${lang}-${vp}.png` });
      await v.context.close();
    }
  }
  assert.ok(LESSONS.length >= 10);
});
