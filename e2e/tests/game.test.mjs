// End to end against the real server: three browser contexts take the three seats from
// the lobby and the room page, get ready and play by clicking cells (a capture with
// promotion, a recapture, a drop); a fourth context spectates and sees the same game;
// a reload resumes a seat; illegal clicks show nothing and send nothing; a pre-game
// alliance reseats the players. Screenshots of every seat's view go to e2e/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser } from '../lib/setup.mjs';
import { SHOTS, boardPieces, joinRoom, person as newPerson, resign, until } from '../lib/people.mjs';

const live = serverAndBrowser({ shots: SHOTS });
const person = (label) => newPerson(live.browser, label);

const cell = (page, name) => page.locator(`[data-cell="${name}"]`);

async function movesShown(page) {
  return page.$$eval('[data-testid="moves"] [data-ply]', (ns) => ns.map((n) => n.textContent.trim()));
}

/** Waits until it is `p`'s move number `ply` (0-based), and returns its `legal` list. */
async function myTurn(p, ply) {
  const s = await until(`${p.label} to move at ply ${ply}`, () => {
    const s = p.lastState();
    return s && s.moves.length === ply && s.to_move === s.you && s.legal.length ? s : null;
  });
  await p.page.waitForSelector('[data-testid="turn"].mine');
  return s.legal;
}

const MOVE = /^(\+?)([KRBGSNLP])(\d{1,2}[a-m])([-x])(\d{1,2}[a-m])([+=]?)$/;
const DROP = /^([RBGSNLP])\*(\d{1,2}[a-m])$/;

/** Plays a canonical action by clicking, the way a person would. */
async function play(p, action) {
  const { page } = p;
  let m = MOVE.exec(action);
  if (m) {
    const [, , , from, , to, suffix] = m;
    await cell(page, from).click();
    await page.waitForSelector(`[data-cell="${to}"][data-target]`);
    await cell(page, to).click();
    const dialog = page.getByTestId('promotion-dialog');
    if (await dialog.isVisible()) {
      await page.getByTestId(suffix === '+' ? 'promote-yes' : 'promote-no').click();
    }
  } else if ((m = DROP.exec(action))) {
    const [, kind, to] = m;
    await page.getByTestId(`drop-${kind}`).click();
    await page.waitForSelector(`[data-cell="${to}"][data-target]`);
    await cell(page, to).click();
  } else {
    throw new Error(`cannot click ${action}`);
  }
  await until(`${action} to be sent`, () => p.io.sent.some((x) => x.type === 'act' && x.action === action));
}

async function allSee(people, ply, action) {
  for (const q of people) {
    await until(`${q.label} to see ${ply} moves`, async () => (await movesShown(q.page)).length === ply);
    assert.equal((await movesShown(q.page)).at(-1), action, `${q.label} sees ${action}`);
  }
}

/** Takes the seat and waits until the page marks it as the reader's own. */
async function sitIn(p, roomId, name, seat) {
  await joinRoom(p, live.server, roomId, name, seat);
  await p.page.waitForSelector(`[data-testid="seat-${seat}"] .badge.you`);
}

test('three players and a spectator play a game by clicking', async () => {
  const first = await person('first');
  const middle = await person('middle');
  const last = await person('last');
  const watcher = await person('spectator');
  const players = [first, middle, last];
  const everyone = [...players, watcher];

  // First creates the room from the lobby and sits down there.
  await first.page.goto(`${live.server.url}/`);
  await first.page.getByTestId('name').fill('Akira');
  await first.page.getByTestId('create-room').click();
  await first.page.waitForURL(/\/rooms\/[^/]+$/);
  const roomId = decodeURIComponent(new URL(first.page.url()).pathname.split('/').pop());
  // The lobby seats the room's creator in the first free seat.
  await until('first seated', () => first.lastState()?.you === 'first');

  // Middle joins from the lobby's seat button, Last by the shared link.
  await middle.page.goto(`${live.server.url}/`);
  await middle.page.getByTestId('name').fill('Beni');
  await middle.page.getByTestId(`join-${roomId}-middle`).click();
  await until('middle seated', () => middle.lastState()?.you === 'middle');
  await sitIn(last, roomId, 'Chiyo <i>', 'last');
  await watcher.page.goto(`${live.server.url}/rooms/${roomId}`);
  await until('spectator state', () => watcher.lastState());
  assert.equal(watcher.lastState().you, null);

  // The waiting room shows who sits where.
  for (const q of everyone) {
    await q.page.waitForSelector('[data-testid="seat-last"] .name');
    assert.match(await q.page.getByTestId('seat-last').textContent(), /Chiyo <i>/);
  }
  await first.page.getByTestId('pregame').screenshot({ path: `${SHOTS}real-pregame-first.png` });

  for (const p of players) await p.page.getByTestId('ready').click();
  for (const q of everyone) await until(`${q.label}: game started`, () => q.lastState()?.status === 'playing');

  // Ply 1, First: the bishop takes Middle's pawn on 10k and promotes (RULES §4).
  let legal = await myTurn(first, 0);
  assert.ok(legal.includes('B2gx10k+') && legal.includes('B2gx10k='), 'promotion optional on B2gx10k');
  // Illegal clicks: opponents' pieces and an empty cell. No target, nothing sent: the
  // next frame the page sends is the bishop's move below (frames are recorded in order).
  const sentBefore = first.io.sent.length;
  for (const c of ['10m', '7g', '10d']) {
    await cell(first.page, c).click();
    assert.equal(await first.page.locator('[data-target]').count(), 0, `no target after clicking ${c}`);
  }
  // Targets shown for the bishop are exactly its legal destinations.
  await cell(first.page, '2g').click();
  const shown = await first.page.$$eval('[data-target]', (ns) => ns.map((n) => n.dataset.cell).sort());
  const expected = [...new Set(legal.filter((a) => a.startsWith('B2g')).map((a) => MOVE.exec(a)[5]))].sort();
  assert.deepEqual(shown, expected);
  await first.page.keyboard.press('Escape');
  // Those who asked for it ("Announce moves" in the preferences) hear every move.
  for (const q of [middle, watcher]) await q.page.evaluate(() => import(document.querySelector('script[type=module]').src.replace(/main\.js$/, 'prefs.js')).then((m) => m.setPref('announceMoves', true)));
  await play(first, 'B2gx10k+');
  assert.deepEqual(first.io.sent[sentBefore], { type: 'act', action: 'B2gx10k+' }, 'illegal clicks send nothing');
  await allSee(everyone, 1, 'B2gx10k+');
  assert.equal(await cell(watcher.page, '10k').locator('.piece').getAttribute('data-piece'), 'f+B');
  // Their screen readers hear the move in words (a polite live region).
  for (const q of [middle, watcher]) {
    await until(`${q.label}: the move announced`, async () =>
      /^First: bishop from 2g takes on 10k, promotes/.test(await q.page.getByTestId('announcer').textContent()));
    assert.equal(await q.page.getByTestId('announcer').getAttribute('aria-live'), 'polite');
  }

  // Ply 2, Middle recaptures on 10k (a capture; the bishop goes to Middle's hand).
  legal = await myTurn(middle, 1);
  const recapture = legal.find((a) => /x10k$/.test(a));
  assert.ok(recapture, `Middle can take back on 10k: ${legal.join(' ')}`);
  await play(middle, recapture);
  await allSee(everyone, 2, recapture);
  await until('bishop in Middle\'s hand', () => watcher.lastState().position.split(' ')[2].split('/')[1].includes('B'));
  assert.equal(await watcher.page.getByTestId('hand-middle').locator('[data-kind="B"]').count(), 1);

  // Ply 3, Last: a pawn step.
  legal = await myTurn(last, 2);
  const lastMove = legal.find((a) => /^P\d+[a-m]-/.test(a));
  await play(last, lastMove);
  await allSee(everyone, 3, lastMove);

  // Ply 4, First: a pawn step.
  legal = await myTurn(first, 3);
  const firstMove = legal.find((a) => /^P3c-/.test(a)) ?? legal.find((a) => /^P\d+[a-m]-/.test(a));
  await play(first, firstMove);
  await allSee(everyone, 4, firstMove);

  // Middle reloads: the stored token resumes the seat, and play goes on.
  await middle.page.reload();
  await until('middle resumed', () => middle.io.sent.some((m) => m.type === 'resume'));
  legal = await myTurn(middle, 4);
  await middle.page.waitForSelector('[data-testid="seat-middle"] .badge.you');

  // Ply 5, Middle drops the bishop from hand.
  const drop = legal.find((a) => /^B\*/.test(a) && !/\*7g$/.test(a));
  assert.ok(drop, 'a bishop drop is legal');
  await play(middle, drop);
  await allSee(everyone, 5, drop);
  assert.equal(await cell(watcher.page, drop.slice(2)).locator('.piece').getAttribute('data-piece'), 'mB');

  // Everyone sees the same board and the same moves as the spectator.
  const reference = await boardPieces(watcher.page);
  assert.equal(Object.values(reference).filter(Boolean).length, 53, '54 pieces minus the captured pawn');
  for (const p of players) {
    assert.deepEqual(await boardPieces(p.page), reference, `${p.label} sees the spectator's board`);
    assert.deepEqual(await movesShown(p.page), await movesShown(watcher.page));
  }
  // The last action is highlighted.
  assert.ok(await cell(watcher.page, drop.slice(2)).evaluate((n) => n.classList.contains('last')));

  // Each seat's own view (its home edge at the bottom), and the spectator's choice.
  legal = await myTurn(last, 5);
  await last.page.locator('[data-cell]').filter({ has: last.page.locator('.piece[data-piece="lR"]') }).click();
  for (const p of players) {
    assert.equal(await p.page.getByTestId('board').getAttribute('data-view'), p.label);
    await p.page.screenshot({ path: `${SHOTS}real-${p.label}.png`, fullPage: true });
  }
  await watcher.page.getByTestId('view-last').click();
  await watcher.page.screenshot({ path: `${SHOTS}real-spectator-as-last.png`, fullPage: true });
  await last.page.keyboard.press('Escape');

  // The record downloads as text with the moves in order.
  const record = await (await fetch(`${live.server.url}/api/rooms/${roomId}/record`)).text();
  for (const a of ['B2gx10k+', recapture, lastMove, firstMove, drop]) assert.ok(record.includes(a), `record has ${a}`);
  assert.equal(await watcher.page.getByTestId('download-record').getAttribute('href'), `/api/rooms/${roomId}/record`);

  // Last resigns: eliminated, greyed out for everyone, and play goes on between two.
  await resign(last);
  for (const q of everyone) {
    await q.page.waitForSelector('[data-testid="seat-last"][data-eliminated="true"]');
  }
  assert.match(await watcher.page.getByTestId('log').textContent(), /Chiyo <i> \(Last\) is eliminated/);
  await watcher.page.screenshot({ path: `${SHOTS}real-spectator-after-resign.png`, fullPage: true });

  // Middle resigns too: First wins; the result is shown with its reason.
  await resign(middle);
  for (const q of everyone) await q.page.getByTestId('result').waitFor();
  assert.match(await watcher.page.getByTestId('result').textContent(), /Akira \(First\) wins/);
  assert.match(await first.page.getByTestId('result').textContent(), /You win/);
  await first.page.screenshot({ path: `${SHOTS}real-first-result.png`, fullPage: true });

  for (const q of everyone) assert.deepEqual(q.io.errors, []);
  for (const q of everyone) await q.context.close();
});

test('a pre-game alliance reseats the players and starts with the alliance', async () => {
  const a = await person('a');
  const b = await person('b');
  const c = await person('c');
  const { id } = await (await fetch(`${live.server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
  await sitIn(a, id, 'Ann', 'first');
  await sitIn(b, id, 'Bob', 'middle');
  await sitIn(c, id, 'Cat', 'last');
  // Ann (First) proposes to Bob (Middle); Bob accepts. Cat becomes First.
  await a.page.getByTestId('propose-middle').click();
  await b.page.getByTestId('accept-alliance').click();
  for (const p of [a, b, c]) {
    await p.page.locator('[data-testid="notice-line"][data-kind="alliance"]').waitFor();
    // Cat reads it about itself: "you play First".
    assert.match(await p.page.getByTestId('notice-line').textContent(), p === c ? /you play First/ : /Cat plays First/);
  }
  await until('Cat reseated as First', () => c.lastState()?.you === 'first');
  for (const p of [a, b, c]) await p.page.getByTestId('ready').click();
  await until('game started', () => c.lastState()?.status === 'playing');
  await c.page.waitForSelector('[data-testid="seat-middle"] .badge.ally');
  // First's king starts promoted (RULES §12.8).
  assert.equal(await cell(c.page, '1d').locator('.piece').getAttribute('data-piece'), 'f+K');
  await c.page.screenshot({ path: `${SHOTS}real-voluntary-alliance-first.png`, fullPage: true });
  for (const p of [a, b, c]) await p.context.close();
});

test('when the server goes away, pages show it, reconnect and resume their seats', async () => {
  const people = [await person('first'), await person('middle'), await person('last')];
  const seats = ['first', 'middle', 'last'];
  const { id } = await (await fetch(`${live.server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
  for (const [i, p] of people.entries()) await sitIn(p, id, `P${i}`, seats[i]);
  for (const p of people) await p.page.getByTestId('ready').click();
  const legal = await myTurn(people[0], 0);
  await play(people[0], legal.find((a) => /^P/.test(a)));
  await allSee(people, 1, people[0].io.sent.at(-1).action);

  // What each page shows while the server is away is recorded as it happens: the
  // restart may take less time than it takes to look at three pages in turn.
  for (const p of people) {
    await p.page.evaluate(() => {
      const seen = { phases: [], offline: false };
      window.connSeen = seen;
      const status = document.querySelector('[data-testid="conn-status"]');
      const offline = document.querySelector('[data-testid="offline"]');
      new MutationObserver(() => {
        seen.phases.push(status.dataset.phase);
        if (!offline.hidden) seen.offline = true;
      }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ['data-phase', 'hidden'] });
    });
  }
  await live.server.restart();
  for (const p of people) {
    await until(`${p.label} shows the server away`, () => p.page.evaluate(() => window.connSeen.phases.includes('reconnecting')));
  }
  await until('Middle shows it is offline', () => people[1].page.evaluate(() => window.connSeen.offline));
  if (await people[1].page.getByTestId('offline').isVisible()) {
    await people[1].page.screenshot({ path: `${SHOTS}real-reconnecting.png` });
  }
  for (const p of people) {
    await p.page.waitForSelector('[data-testid="conn-status"][data-phase="open"]', { timeout: 20000 });
    await until(`${p.label} resumed`, () => p.lastState()?.you === p.label);
  }
  // Play goes on: Middle moves after the restart.
  const next = await myTurn(people[1], 1);
  const action = next.find((a) => /^P/.test(a));
  await play(people[1], action);
  await allSee(people, 2, action);
  for (const p of people) assert.deepEqual(p.io.errors, []);
  for (const p of people) await p.context.close();
});
