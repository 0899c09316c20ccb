// The analysis board as a board to play on, against the real server: moves made by
// clicking for all three sides (a promotion chosen, a drop from the hand, a drag), each
// played out by `POST /api/replay` and its `legal` list; a variation started from an earlier
// ply with the main line kept, promoted and deleted; the tree through Copy record and
// the import box, and through a reload (localStorage); Analyse's evaluation bar and
// arrows; "Open in analysis" from a finished game of three bots at the ply shown; a
// record with `First:resign` showing First's pieces gone. Screenshots (desktop and
// phone, English and Japanese, one with DejaVu fonts alone) go to /tmp/shots-analysis/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { launchNoCjk } from '../lib/nocjk.mjs';
import { serverAndBrowser } from '../lib/setup.mjs';
import { startServer } from '../lib/sannin.mjs';
import { DESKTOP, PHONE, axe, englishLeft, shot, until, visitor } from '../lib/site.mjs';

// Bots answer at once: a game of three random bots ends in seconds.
process.env.SANNIN_BOT_MIN_MOVE_MS = '0';
process.env.SANNIN_BOT_ONLY_MIN_MOVE_MS = '0';
const SHOTS = process.env.ANALYSIS_SHOTS ?? '/tmp/shots-analysis/';
// Every move is a replay: a budget that the tests of this file never spend.
const live = serverAndBrowser({ shots: SHOTS, serverArgs: ['--replays-per-minute', '600'] });

const pieceAt = (page, cell) => page.locator(`[data-cell="${cell}"]`).evaluate((c) => c.querySelector('.piece')?.dataset.piece ?? null);
const click = (page, cell) => page.locator(`[data-cell="${cell}"]`).click();

async function api(path, body) {
  const res = await fetch(`${live.server.url}${path}`, body === undefined ? {} : {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** The ply shown and the length of the line: "move 2 of 3". */
async function at(page, n, of) {
  await page.getByTestId('where').filter({ hasText: new RegExp(`^move ${n} of ${of}$`) }).waitFor();
}

/** Moves `from` → `to` by two clicks and waits for the ply to be shown. */
async function move(page, from, to, n, of = n) {
  await click(page, from);
  await click(page, to);
  await at(page, n, of);
}

/** The move list as shown: one line per line of moves, variations indented. */
function outline(page) {
  return page.getByTestId('ply-list').evaluate((list) => {
    const rows = [];
    const walk = (box, depth) => {
      let row = [];
      const flush = () => { if (row.length) rows.push(`${'  '.repeat(depth)}${row.join(' ')}`); row = []; };
      for (const el of box.children) {
        if (el.classList.contains('variation')) { flush(); walk(el, depth + 1); } else if (el.tagName === 'BUTTON') row.push(el.textContent);
      }
      flush();
    };
    walk(list, 0);
    return rows.join('\n');
  });
}

/** The main line's moves (buttons outside variations). */
const mainLine = (page) => page.$$eval('[data-testid="ply-list"] > button', (bs) => bs.map((b) => b.textContent));

test('moves for all three sides by clicking (and a drag): a promotion chosen, a drop from the hand', async () => {
  const v = await visitor(live.browser, 'player');
  const { page } = v;
  await page.goto(`${live.server.url}/analysis`);
  await at(page, 0, 0);
  // First's bishop takes on 10k: both promoting and not are legal, so the page asks.
  await click(page, '2g');
  assert.equal(await page.locator('[data-cell="10k"]').getAttribute('data-target'), 'capture');
  await click(page, '10k');
  await page.getByTestId('promote-yes').click();
  await at(page, 1, 1);
  assert.equal(await pieceAt(page, '10k'), 'f+B');
  // Middle takes it back with the knight; Last pushes a pawn.
  await move(page, '9k', '10k', 2);
  assert.equal(await pieceAt(page, '10k'), 'mN');
  // Last's pawn dragged with the mouse.
  const centre = async (cell) => {
    const b = await page.locator(`[data-cell="${cell}"] .hex`).boundingBox();
    return [b.x + b.width / 2, b.y + b.height / 2];
  };
  await page.mouse.move(...await centre('11g'));
  await page.mouse.down();
  await page.mouse.move(...await centre('10g'), { steps: 5 });
  await page.mouse.up();
  await at(page, 3, 3);
  assert.equal(await pieceAt(page, '10g'), 'lP');
  assert.match(await page.getByTestId('analysis-status').textContent(), /First to move/);
  // First drops the pawn it took: where the server's legal list allows.
  const { body } = await api('/api/replay', { record: 'B2gx10k+ N9kx10k P11g-10g' });
  const drop = body.legal.find((a) => a.startsWith('P*'));
  assert.ok(drop, 'a pawn drop is legal');
  await page.getByTestId('drop-P').click();
  assert.equal(await page.locator(`[data-cell="${drop.slice(2)}"]`).getAttribute('data-target'), 'drop');
  await click(page, drop.slice(2));
  await at(page, 4, 4);
  assert.equal(await pieceAt(page, drop.slice(2)), 'fP');
  assert.deepEqual(await mainLine(page), ['B2gx10k+', 'N9kx10k', 'P11g-10g', drop]);
  assert.equal(await page.getByTestId('position-out').inputValue(),
    (await api('/api/replay', { record: `B2gx10k+ N9kx10k P11g-10g ${drop}` })).body.plies[3].position);
  // A piece of a player not to move is not selectable: nothing marked.
  await click(page, '10j');
  assert.equal(await page.locator('[data-target]').count(), 0);
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

test('a variation from an earlier ply keeps the main line; promoted, deleted; the tree round-trips', async () => {
  const v = await visitor(live.browser, 'brancher');
  const { page, context } = v;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: live.server.url });
  await page.goto(`${live.server.url}/analysis`);
  await at(page, 0, 0);
  await move(page, '3c', '4d', 1);
  await move(page, '10k', '10j', 2);
  await move(page, '11g', '10g', 3);
  // Back to ply 1 (the list), then Middle plays another move: a variation.
  await page.getByTestId('ply-list').locator('button', { hasText: 'P3c-4d' }).click();
  await at(page, 1, 3);
  await move(page, '11k', '11j', 2, 2);
  await move(page, '11g', '10g', 3, 3);
  assert.deepEqual(await mainLine(page), ['P3c-4d', 'P10k-10j', 'P11g-10g'], 'the main line is kept');
  assert.equal(await outline(page), 'P3c-4d P10k-10j\n  P11k-11j P11g-10g\nP11g-10g');
  assert.equal(await pieceAt(page, '11j'), 'mP');
  assert.equal(await pieceAt(page, '10j'), null);
  // ← → walk the line shown (the variation), ↑ ↓ to its start and end.
  await page.locator('h1').click();
  await page.keyboard.press('ArrowLeft');
  await at(page, 2, 3);
  assert.equal(await pieceAt(page, '10g'), null);
  await page.keyboard.press('ArrowUp');
  await at(page, 0, 3);
  await page.keyboard.press('ArrowDown');
  await at(page, 3, 3);
  assert.equal(await pieceAt(page, '11j'), 'mP', 'the end of the variation, not of the main line');
  // A sub-variation from the variation: Last plays another move there.
  await page.keyboard.press('ArrowLeft');
  await move(page, '11g', '11h', 3, 3);
  assert.equal(await outline(page), 'P3c-4d P10k-10j\n  P11k-11j P11g-10g\n    P11g-11h\nP11g-10g');
  assert.equal(await page.getByTestId('promote-line').isVisible(), true);
  await shot(page, { path: `${SHOTS}tree-en-desktop.png`, fullPage: true });

  // Copy record: the main line with the variations in parentheses.
  await page.getByTestId('copy-record').click();
  const text = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(text, '1. P3c-4d P10k-10j (P11k-11j P11g-10g (P11g-11h)) P11g-10g');
  const before = await outline(page);
  // Pasted into a fresh page's import box, it rebuilds the same tree.
  const w = await visitor(live.browser, 'paster');
  await w.page.goto(`${live.server.url}/analysis`);
  await at(w.page, 0, 0);
  await w.page.getByTestId('record').fill(text);
  await w.page.getByTestId('load').click();
  await at(w.page, 3, 3);
  assert.equal(await outline(w.page), before);
  assert.deepEqual(await mainLine(w.page), ['P3c-4d', 'P10k-10j', 'P11g-10g']);
  assert.deepEqual(w.io.errors, []);
  await w.context.close();

  // A reload keeps the tree and the move shown.
  await page.reload();
  await at(page, 3, 3);
  assert.equal(await outline(page), before);
  assert.equal(await pieceAt(page, '11h'), 'lP');
  assert.equal(await page.locator('[data-testid="ply-list"] [aria-current="step"]').textContent(), 'P11g-11h');

  // Promote the sub-variation: its line becomes the main line, the old one a variation.
  await page.getByTestId('promote-line').click();
  assert.deepEqual(await mainLine(page), ['P3c-4d', 'P11k-11j', 'P11g-11h']);
  assert.equal(await outline(page), 'P3c-4d P11k-11j\n  P10k-10j P11g-10g\nP11g-11h\n  P11g-10g');
  assert.equal(await page.getByTestId('promote-line').isVisible(), false);
  // Delete from here (the variation's P11g-10g): gone, the rest stays.
  await page.locator('[data-testid="variation"] button', { hasText: 'P11g-10g' }).last().click();
  await page.getByTestId('delete-from-here').click();
  await at(page, 2, 3);
  assert.equal(await outline(page), 'P3c-4d P11k-11j\n  P10k-10j P11g-10g\nP11g-11h');
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

test('Analyse shows the three players\' evaluation bar and the best line as arrows', async () => {
  const v = await visitor(live.browser, 'analyst');
  const { page } = v;
  await page.goto(`${live.server.url}/analysis`);
  await at(page, 0, 0);
  await move(page, '3c', '4d', 1);
  await page.getByTestId('analyse').click();
  await page.getByTestId('evalbar').waitFor();
  for (const s of ['first', 'middle', 'last']) {
    assert.match(await page.getByTestId(`evalbar-${s}`).textContent(), /^(First|Middle|Last)([+-]?\d+|won|lost)$/);
  }
  const shares = await page.$$eval('.evalbar-seg', (ns) => ns.map((n) => Number(n.dataset.share)));
  assert.ok(Math.abs(shares.reduce((a, b) => a + b, 0) - 1) < 0.01, `shares add up: ${shares}`);
  assert.ok(await page.locator('[data-testid="board"] .arrow').count() >= 1, 'an arrow on the board');
  const first = await page.locator('[data-testid="board"] .arrow').first().getAttribute('data-action');
  assert.equal(first, (await page.getByTestId('analyse-best').locator('code').textContent()));
  assert.match(await page.locator('[data-testid="board"] .arrow').first().getAttribute('class'), /seat-middle/);
  // Another position: the arrows and the bar go.
  await page.getByTestId('step-prev').click();
  assert.equal(await page.locator('[data-testid="board"] .arrow').count(), 0);
  assert.equal(await page.getByTestId('evalbar').count(), 0);
  // Auto-analyse: each position shown is analysed.
  await page.getByTestId('auto-analyse').check();
  await page.getByTestId('evalbar').waitFor();
  await page.getByTestId('step-next').click();
  await page.getByTestId('analyse-best').filter({ hasText: 'Best move for Middle' }).waitFor();
  assert.ok(await page.locator('[data-testid="board"] .arrow').count() >= 1);
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

test('a record with First:resign: the ending in words, First\'s pieces gone, written back as a token', async () => {
  const v = await visitor(live.browser, 'ender');
  const { page, context } = v;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: live.server.url });
  await page.goto(`${live.server.url}/analysis`);
  await at(page, 0, 0);
  await page.getByTestId('record').fill('1. P3c-4d First:resign P10k-10j');
  await page.getByTestId('load').click();
  await at(page, 3, 3);
  assert.deepEqual(await mainLine(page), ['P3c-4d', 'First resigns', 'P10k-10j']);
  const firstPieces = () => page.locator('[data-cell] .piece[data-piece^="f"]').count();
  assert.equal(await firstPieces(), 0);
  await page.getByTestId('ply-list').locator('button', { hasText: 'P3c-4d' }).click();
  assert.equal(await firstPieces(), 18);
  await page.getByTestId('ply-list').locator('button', { hasText: 'First resigns' }).click();
  await at(page, 2, 3);
  assert.equal(await firstPieces(), 0);
  assert.match(await page.getByTestId('analysis-status').textContent(), /^First resigns · First is out · Middle to move$/);
  await page.getByTestId('copy-record').click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), '1. P3c-4d First:resign P10k-10j');
  // A loss on time and an agreed draw: in words, and back as tokens.
  await page.getByTestId('record').fill('1. P3c-4d Middle:timeout P11g-10g draw');
  await page.getByTestId('load').click();
  await at(page, 4, 4);
  assert.deepEqual(await mainLine(page), ['P3c-4d', 'Middle: lost on time', 'P11g-10g', 'Draw agreed']);
  assert.match(await page.getByTestId('analysis-status').textContent(), /^Draw agreed · Game over: a draw$/);
  assert.equal(await page.locator('[data-cell] .piece[data-piece^="m"]').count(), 0);
  await page.getByTestId('copy-record').click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), '1. P3c-4d Middle:timeout P11g-10g draw');
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

test('Open in analysis from a finished game of three bots lands at the ply shown', async () => {
  const created = await api('/api/rooms', { bots: { first: 0, middle: 0, last: 0 } });
  assert.equal(created.status, 201);
  const id = created.body.id;
  await until('the bots\' game is over', async () => (await api(`/api/rooms/${id}`)).body.status === 'finished', 120000);
  const game = (await api(`/api/rooms/${id}/history`)).body;
  const v = await visitor(live.browser, 'watcher');
  const { page } = v;
  await page.goto(`${live.server.url}/rooms/${id}`);
  const link = page.getByTestId('open-analysis');
  await until('the link to the end', async () => (await link.getAttribute('href')) === `/analysis?room=${id}&ply=${game.plies.length}`);
  // Move 5 clicked in the move table: the link follows.
  await page.locator('[data-testid="moves"] [data-ply="5"]').click();
  await until('the link to move 5', async () => (await link.getAttribute('href')) === `/analysis?room=${id}&ply=5`);
  await link.click();
  await page.waitForURL(/\/analysis\?room=/);
  const total = game.plies.length;
  await at(page, 5, total);
  assert.equal(await page.getByTestId('position-out').inputValue(), game.plies[4].position);
  assert.deepEqual(await mainLine(page), game.plies.map((p) => (/^(resign|timeout|abandon|draw)$/.test(p.action) ? (
    p.action === 'resign' ? `${p.player} resigns` : p.action === 'draw' ? 'Draw agreed' : `${p.player}: ${p.action === 'timeout' ? 'lost on time' : 'abandoned the game'}`) : p.action)));
  // Ready to branch: a move of the player to move at ply 5 starts a variation.
  const legal = (await api('/api/replay', { record: game.plies.slice(0, 5).map((p) => p.action).join(' ') })).body.legal;
  const other = legal.find((a) => /^[A-Z]\d+[a-m]-\d+[a-m]$/.test(a) && a !== game.plies[5]?.action);
  const [from, to] = other.slice(1).split('-');
  await move(page, from, to, 6, 6);
  assert.equal(await page.locator('[data-testid="variation"] button').first().textContent(), other);
  assert.equal((await mainLine(page)).length, total);
  assert.deepEqual(v.io.errors, []);
  await v.context.close();
});

test('a spent replay budget is said plainly, and the move is not played', async () => {
  const server = await startServer({ args: ['--replays-per-minute', '4'] });
  try {
    const v = await visitor(live.browser, 'hasty');
    const { page } = v;
    await page.goto(`${server.url}/analysis`);
    await at(page, 0, 0);
    await move(page, '3c', '4d', 1);
    await move(page, '10k', '10j', 2);
    await move(page, '11g', '10g', 3);
    await click(page, '3d');
    await click(page, '4e');
    const notice = page.getByTestId('analysis-notice');
    await notice.waitFor();
    assert.match(await notice.textContent(), /^Too many requests from your address: wait \d+ s, then try again\.$/);
    assert.equal(await page.getByTestId('where').textContent(), 'move 3 of 3');
    assert.equal(await pieceAt(page, '4e'), null);
    assert.deepEqual(v.io.errors, []);
    await v.context.close();
  } finally {
    await server.stop();
  }
});

test('screenshots: a tree, the bar and arrows, desktop and phone, English and Japanese, DejaVu alone', async () => {
  await mkdir(SHOTS, { recursive: true });
  const record = '1. P3c-4d P10k-10j (P11k-11j P11g-10g (P11g-11h)) P11g-10g 2. S1b-2d (P3d-4e) S8m-9l';
  const setUp = async (browser, label, lang, viewport) => {
    const v = await visitor(browser, label, { lang, viewport });
    await v.page.goto(`${live.server.url}/analysis?record=${encodeURIComponent(record)}`);
    await v.page.getByTestId('evalbar').or(v.page.getByTestId('ply-list').locator('[data-testid="variation"]').first()).first().waitFor();
    await v.page.getByTestId('analyse').click();
    await v.page.getByTestId('evalbar').waitFor();
    return v;
  };
  const checkPhone = async (page, name) => {
    const small = await page.$$eval('.analysis button:not([hidden]), .analysis .move-tree button', (bs) => bs
      .filter((b) => b.getClientRects().length)
      .map((b) => ({ text: b.textContent.trim() || b.getAttribute('aria-label'), ...b.getBoundingClientRect().toJSON() }))
      .filter((r) => r.width < 43.5 || r.height < 43.5)
      .map((r) => `${r.text} ${Math.round(r.width)}×${Math.round(r.height)}`));
    assert.deepEqual(small, [], `${name}: touch targets of 44 px`);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 0, `${name}: nothing wider than the phone (${wide} px)`);
  };
  for (const lang of ['en', 'ja']) {
    const v = await setUp(live.browser, `shots-${lang}`, lang, DESKTOP);
    await shot(v.page, { path: `${SHOTS}analysis-${lang}-desktop.png`, fullPage: true });
    await v.page.setViewportSize(PHONE);
    await shot(v.page, { path: `${SHOTS}analysis-${lang}-phone.png`, fullPage: true });
    await checkPhone(v.page, lang);
    const found = await axe(v.page);
    assert.deepEqual(found, [], `axe on the tree, the bar and the arrows (${lang}, phone)`);
    if (lang === 'ja') {
      const left = await englishLeft(v.page, [record, 'P3c-4d', 'P10k-10j', 'P11k-11j', 'P11g-10g', 'P11g-11h', 'S1b-2d', 'P3d-4e', 'S8m-9l']);
      assert.deepEqual(left.messages, []);
    }
    assert.deepEqual(v.io.errors, []);
    await v.context.close();
  }
  const dejavu = await launchNoCjk();
  try {
    const v = await setUp(dejavu, 'shots-dejavu', 'ja', DESKTOP);
    await shot(v.page, { path: `${SHOTS}analysis-ja-dejavu-desktop.png`, fullPage: true });
    await v.page.setViewportSize(PHONE);
    await shot(v.page, { path: `${SHOTS}analysis-ja-dejavu-phone.png`, fullPage: true });
    await v.context.close();
  } finally {
    await dejavu.close();
  }
});
