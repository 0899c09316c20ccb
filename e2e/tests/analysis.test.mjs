// The analysis board against the real server (`POST /api/replay`): a record replayed and
// stepped through, a bad token reported with its ply, a position set up by hand and
// validated by the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchNoCjk } from '../lib/nocjk.mjs';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS, PHONE, englishLeft, shot, until, visitor } from '../lib/site.mjs';

const live = serverAndBrowser({ shots: SHOTS, launchBrowser: launchNoCjk });

const pieceAt = (page, cell) => page.locator(`[data-cell="${cell}"]`).evaluate((c) => c.querySelector('.piece')?.dataset.piece ?? null);

test('replays the 1932-style opening and steps through it', async () => {
  const v = await visitor(live.browser, 'analyst');
  const { page } = v;
  await page.goto(`${live.server.url}/analysis`);
  await page.getByTestId('record').fill('[First "Akira"]\n1. P3c-4d P10k-10j P11g-10g {the opening of 1932}');
  await page.getByTestId('load').click();
  await page.getByTestId('where').filter({ hasText: 'move 3 of 3' }).waitFor();
  assert.deepEqual(await page.getByTestId('ply-list').locator('button').allTextContents(), ['P3c-4d', 'P10k-10j', 'P11g-10g']);
  // After the third ply: First's pawn on 4d, Middle's on 10j, Last's on 10g.
  assert.equal(await pieceAt(page, '4d'), 'fP');
  assert.equal(await pieceAt(page, '10j'), 'mP');
  assert.equal(await pieceAt(page, '10g'), 'lP');
  assert.match(await page.getByTestId('analysis-status').textContent(), /Last, pawn 11g to 10g · First to move/);
  await shot(page, { path: `${SHOTS}analysis-en-desktop.png`, fullPage: true });

  // Back one ply with the button, to the start with the keyboard, forward by the list.
  await page.getByTestId('step-prev').click();
  assert.equal(await page.getByTestId('where').textContent(), 'move 2 of 3');
  assert.equal(await pieceAt(page, '10g'), null);
  assert.equal(await pieceAt(page, '11g'), 'lP');
  await until('announced', async () => /Move 2: Middle, pawn 10k to 10j/.test(await page.getByTestId('announcer').textContent()));
  await page.locator('h1').click();
  await page.keyboard.press('Home');
  assert.equal(await page.getByTestId('where').textContent(), 'move 0 of 3');
  assert.equal(await pieceAt(page, '3c'), 'fP');
  assert.equal(await pieceAt(page, '4d'), null);
  await page.keyboard.press('ArrowRight');
  assert.equal(await pieceAt(page, '4d'), 'fP');
  await page.getByTestId('ply-list').locator('button', { hasText: 'P11g-10g' }).click();
  assert.equal(await page.getByTestId('where').textContent(), 'move 3 of 3');
  assert.ok(await page.getByTestId('step-next').isDisabled());
  // The position string shown is the server's position after the last ply.
  const res = await fetch(`${live.server.url}/api/replay`, { method: 'POST', body: JSON.stringify({ record: 'P3c-4d P10k-10j P11g-10g' }), headers: { 'content-type': 'application/json' } });
  const game = await res.json();
  assert.equal(await page.getByTestId('position-out').inputValue(), game.plies[2].position);
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

test('typing in the record box while the start position arrives keeps the text and the focus', async () => {
  const v = await visitor(live.browser, 'early');
  const { page } = v;
  // The start position's answer held back until the reader has typed a first action.
  let release;
  const held = new Promise((r) => { release = r; });
  let first = true;
  await page.route('**/api/replay', async (route) => {
    if (first) { first = false; await held; }
    await route.continue();
  });
  await page.goto(`${live.server.url}/analysis`);
  const box = page.getByTestId('record');
  await box.click();
  await page.keyboard.type('P3c-4d ');
  release();
  await page.getByTestId('where').waitFor();
  await page.keyboard.type('P10k-10j');
  assert.equal(await box.inputValue(), 'P3c-4d P10k-10j');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'record');
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

test('a record that fails shows the ply, the token and the reason', async () => {
  const v = await visitor(live.browser, 'typo');
  const { page } = v;
  await page.goto(`${live.server.url}/analysis`);
  await page.getByTestId('record').fill('P3c-4d P10k-10j P11g-10x');
  await page.getByTestId('load').click();
  const box = page.getByTestId('replay-error');
  await box.waitFor();
  assert.equal(await page.getByTestId('error-ply').textContent(), 'At move 3.');
  assert.equal(await page.getByTestId('error-token').locator('code').textContent(), 'P11g-10x');
  assert.ok((await page.getByTestId('error-reason').textContent()).length > 'Reason: '.length);
  await shot(page, { path: `${SHOTS}analysis-error-en.png` });
  // An illegal but readable action: the ply and token too.
  await page.getByTestId('record').fill('P3c-4d P10k-10j P11g-10g P3c-4d');
  await page.getByTestId('load').click();
  await page.getByTestId('error-ply').filter({ hasText: 'At move 4.' }).waitFor();
  assert.equal(await page.getByTestId('error-token').locator('code').textContent(), 'P3c-4d');
  // The record stays in the box to be fixed; fixed, it plays.
  assert.equal(await page.getByTestId('record').inputValue(), 'P3c-4d P10k-10j P11g-10g P3c-4d');
  await page.getByTestId('record').fill('P3c-4d P10k-10j P11g-10g');
  await page.getByTestId('load').click();
  await page.getByTestId('where').filter({ hasText: 'move 3 of 3' }).waitFor();
  assert.equal(await box.isHidden(), true);
  await v.context.close();
});

test('position strings written by the editor read back the same (RULES §13.3)', async () => {
  const v = await visitor(live.browser, 'roundtrip');
  const { page } = v;
  await page.goto(`${live.server.url}/`);
  await page.getByTestId('play-computer').waitFor();
  const positions = [];
  for (const record of ['P3c-4d P10k-10j P11g-10g S1b-2d S8m-9l S12f-10e', 'B2gx10k+']) { // RULES §4: B2gx10k+ is legal at once
    const res = await fetch(`${live.server.url}/api/replay`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ record }),
    });
    assert.equal(res.status, 200, record);
    const game = await res.json();
    positions.push(game.start, ...game.plies.map((p) => p.position));
  }
  const back = await page.evaluate(async (list) => {
    const { parsePosition } = await import('/js/position.js');
    const { writePosition } = await import('/js/editor.js');
    return list.map((text) => writePosition(parsePosition(text)));
  }, positions);
  assert.deepEqual(back, positions);
  assert.match(positions.at(-1), / M P\/-\/- FML - /, 'the capture put the pawn in First\'s hand');
  await v.context.close();
});

test('a position set up by hand is validated by the server and its string copied', async () => {
  const v = await visitor(live.browser, 'editor');
  const { page, context } = v;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: live.server.url });
  await page.goto(`${live.server.url}/analysis`);
  await page.getByTestId('edit-position').click();
  await page.getByTestId('edit-clear').click();
  assert.equal(await page.locator('[data-cell] .piece').count(), 0);
  // Three kings and a pawn, Middle to move, a bishop in First's hand.
  const place = async (owner, kind, cell) => {
    await page.getByTestId('editor-owner').selectOption(owner);
    await page.getByTestId(`tool-${kind}`).click();
    await page.locator(`[data-cell="${cell}"]`).click();
  };
  await place('first', 'K', '1d');
  await place('middle', 'K', '10m');
  await place('last', 'K', '10d');
  await place('middle', 'P', '7i');
  await page.getByTestId('hand-first-B').fill('1');
  await page.getByTestId('hand-first-B').dispatchEvent('change');
  await page.getByTestId('editor-to-move').selectOption('middle');
  for (const s of ['first', 'middle', 'last']) await page.getByTestId(`editor-castling-${s}`).uncheck();
  assert.equal(await pieceAt(page, '7i'), 'mP');
  // Clicking the same piece again takes it away; placing it again puts it back.
  await page.locator('[data-cell="7i"]').click();
  assert.equal(await pieceAt(page, '7i'), null);
  await page.locator('[data-cell="7i"]').click();
  await page.getByTestId('edit-validate').click();
  await page.getByTestId('edit-ok').waitFor();
  const text = await page.getByTestId('position-out').inputValue();
  assert.equal(text, '7/8/9/lK8fK/11/12/13/12/6mP4/10/9/8/3mK3 M B/-/- FML - -');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), text);
  const res = await fetch(`${live.server.url}/api/replay`, { method: 'POST', body: JSON.stringify({ record: '', position: text }), headers: { 'content-type': 'application/json' } });
  assert.equal(res.status, 200, 'the server accepts it');
  await shot(page, { path: `${SHOTS}analysis-editor-en.png`, fullPage: true });

  // A pawn on Middle's last rank (no move from there, RULES §6.4) is refused by the server,
  // said in the page's words for its code.
  await place('middle', 'P', '4a');
  await page.getByTestId('edit-validate').click();
  const err = page.getByTestId('edit-error');
  await err.waitFor();
  assert.equal(await err.textContent(), 'Not a valid position: That position is not valid.');
  assert.equal(await page.getByTestId('edit-ok').count(), 0);
  // Taken away again, the position is accepted once more.
  await page.locator('[data-cell="4a"]').click();
  await page.getByTestId('edit-validate').click();
  await page.getByTestId('edit-ok').waitFor();
  // Analyse from the set-up position: the board keeps it.
  await page.getByTestId('edit-start').click();
  await page.getByTestId('edit-analyse').click();
  await page.getByTestId('where').filter({ hasText: 'move 0 of 0' }).waitFor();
  assert.equal(await page.locator('[data-cell] .piece').count(), 54);
  await page.setViewportSize(PHONE);
  await shot(page, { path: `${SHOTS}analysis-en-phone.png`, fullPage: true });
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

test('the analysis board in Japanese', async () => {
  const v = await visitor(live.browser, 'ja', { lang: 'ja' });
  const { page } = v;
  await page.goto(`${live.server.url}/analysis?record=${encodeURIComponent('P3c-4d P10k-10j P11g-10x')}`);
  await page.getByTestId('error-ply').filter({ hasText: '3手目で止まりました。' }).waitFor();
  await page.getByTestId('record').fill('P3c-4d P10k-10j P11g-10g');
  await page.getByTestId('load').click();
  await page.getByTestId('where').filter({ hasText: '3手中3手目' }).waitFor();
  assert.match(await page.getByTestId('analysis-status').textContent(), /後手、歩兵 11gから10gへ/);
  await shot(page, { path: `${SHOTS}analysis-ja-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await shot(page, { path: `${SHOTS}analysis-ja-phone.png`, fullPage: true });
  await v.context.close();
});

// Middle to move against First alone: only the gold drop on 3d mates, and wins.
const MATE_IN_ONE = 'm+L2fP1fS1/1f+P2fP3/m+P2fPfR2fK1/mP4fP4/2f+L3fP1m+R2/9fS1m+L/5fP3mGm+S2/3mP3fP1fSfG1/mNm+PmP3f+LmP1fP1/1mPmP2mP4/7mN1/mL3mK3/3fG3 M -/BG/- FM - -';
const KEPT = new URL('../screenshots/', import.meta.url).pathname;

test('Analyse asks the server for the best move and each player\'s evaluation', async () => {
  const v = await visitor(live.browser, 'analyse');
  const { page } = v;
  await page.goto(`${live.server.url}/analysis?position=${encodeURIComponent(MATE_IN_ONE)}`);
  await page.getByTestId('analysis-status').filter({ hasText: 'Middle to move' }).waitFor();
  await page.getByTestId('analyse').click();
  await page.getByTestId('analyse-best').filter({ hasText: 'G*3d' }).waitFor();
  assert.equal(await page.getByTestId('analyse-best').textContent(), 'Best move for Middle: G*3d');
  assert.equal(await page.getByTestId('analyse-mate').textContent(), 'Forced win for Middle: a 1-ply line');
  assert.equal(await page.getByTestId('analyse-line').textContent(), 'Expected line: G*3d');
  assert.equal(await page.getByTestId('analyse-evals').textContent(), 'Evaluation (a pawn is 100): First lost · Middle won · Last lost');
  await until('announced', async () => /Best move for Middle/.test(await page.getByTestId('announcer').textContent()));
  await shot(page, { path: `${KEPT}analyse-en-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await shot(page, { path: `${KEPT}analyse-en-phone.png`, fullPage: true });

  // A record: the analysis is of the move shown, and goes when another is shown.
  await page.getByTestId('record').fill('P3c-4d P10k-10j P11g-10g');
  await page.getByTestId('start-position').fill('');
  await page.getByTestId('load').click();
  await page.getByTestId('where').filter({ hasText: 'move 3 of 3' }).waitFor();
  assert.equal(await page.getByTestId('analyse-result').textContent(), '');
  await page.getByTestId('step-prev').click();
  await page.getByTestId('analyse').click();
  await page.getByTestId('analyse-best').filter({ hasText: 'Best move for Last' }).waitFor();
  assert.match(await page.getByTestId('analyse-evals').textContent(), /First [+-]?\d+ · Middle [+-]?\d+ · Last [+-]?\d+/);
  await page.getByTestId('step-next').click();
  assert.equal(await page.getByTestId('analyse-result').textContent(), '');
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

test('Analyse in Japanese', async () => {
  const v = await visitor(live.browser, 'ja-analyse', { lang: 'ja' });
  const { page } = v;
  await page.goto(`${live.server.url}/analysis?position=${encodeURIComponent(MATE_IN_ONE)}`);
  await page.getByTestId('analysis-status').filter({ hasText: '中手の手番' }).waitFor();
  await page.getByTestId('analyse').click();
  await page.getByTestId('analyse-best').filter({ hasText: 'G*3d' }).waitFor();
  assert.equal(await page.getByTestId('analyse-mate').textContent(), '中手の必勝（1手）');
  assert.equal(await page.getByTestId('analyse-evals').textContent(), '評価値（歩＝100）： 先手 負け · 中手 勝ち · 後手 負け');
  const left = await englishLeft(page, ['G*3d', MATE_IN_ONE]);
  assert.deepEqual(left.messages, []);
  await shot(page, { path: `${KEPT}analyse-ja-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await shot(page, { path: `${KEPT}analyse-ja-phone.png`, fullPage: true });
  await v.context.close();
});
