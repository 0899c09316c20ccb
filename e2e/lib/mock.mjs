// A page whose static files come from ../static and whose server is scripted by the
// test: HTTP routes and the room WebSocket are mocked with Playwright routing, so the
// client can be checked without the Rust server.
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from './people.mjs';

/** The start position, the client's own (static/js/position.js runs in node too). */
export { START_POSITION as START } from '../../static/js/position.js';

export const STATIC = fileURLToPath(new URL('../../static/', import.meta.url));
export const ORIGIN = 'http://sannin.test';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.wav': 'audio/wav' };

/** Serves static files for every non-API request; `api(path, method, body)` answers /api. */
export async function mockServer(page, { api = () => null, ws } = {}) {
  await page.route(`${ORIGIN}/**`, async (route) => {
    const url = new URL(route.request().url());
    if (url.pathname.startsWith('/api/')) {
      let answer = await api(url.pathname, route.request().method(), route.request().postData());
      const room = /^\/api\/rooms\/([^/]+)$/.exec(url.pathname);
      if (answer === null && room) answer = { json: { id: room[1], status: 'playing' } };
      if (answer === null) return route.fulfill({ status: 404, json: { error: { code: 'not_found', message: 'No such thing.' } } });
      return route.fulfill({ status: answer.status ?? 200, json: answer.json, body: answer.body, contentType: answer.contentType });
    }
    let path = url.pathname;
    // The pages of the site (`/`, `/games`, `/rooms/…`, `/players/…`): the client.
    if (!extname(path)) path = '/index.html';
    const file = normalize(join(STATIC, path));
    if (!file.startsWith(STATIC)) return route.fulfill({ status: 403 });
    try {
      return route.fulfill({ body: await readFile(file), contentType: TYPES[extname(file)] ?? 'application/octet-stream' });
    } catch {
      return route.fulfill({ status: 404, body: 'not found' });
    }
  });
  if (ws) await page.routeWebSocket(/\/api\/rooms\/[^/]+\/ws$/, ws);
}

/** Opens a room page (`/rooms/r1`) in `browser` on a scripted socket: `first` is what a
 * socket is sent when it opens, or `first(n, ws)` for the n-th socket (nothing when it
 * gives nothing); `token`, if given, is the seat token the page holds. Returns the page,
 * the messages the client sent, every socket, the page's errors and the server side of
 * the latest socket. */
export async function openMockRoom(browser, first, { viewport = { width: 1200, height: 900 }, deviceScaleFactor = 1, token } = {}) {
  const page = await browser.newPage({ viewport, deviceScaleFactor });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const sent = [];
  const sockets = [];
  await mockServer(page, {
    ws: (ws) => {
      sockets.push(ws);
      ws.onMessage((m) => sent.push(JSON.parse(m)));
      const msg = typeof first === 'function' ? first(sockets.length, ws) : first;
      if (msg) ws.send(JSON.stringify(msg));
    },
  });
  if (token) await page.addInitScript((t) => localStorage.setItem('sannin.token.r1', t), token);
  await page.goto(`${ORIGIN}/rooms/r1`);
  await page.waitForSelector('[data-cell="7g"] .hex');
  // The board is drawn before the socket opens; the pieces come with the first state.
  await page.waitForSelector('[data-cell] .piece');
  return { page, sent, sockets, errors, server: () => sockets.at(-1) };
}

/** A cell of the board on `page`. */
export const cell = (page, name) => page.locator(`[data-cell="${name}"]`);

/** What the page sends when `act` runs (a click, a key): a routed socket's frames reach
 * the test a moment after the page sent them, so this waits for the next one. */
export async function sends(sent, act) {
  const before = sent.length;
  await act();
  return until('the page to send', () => sent.length > before && sent.at(-1));
}
