#!/usr/bin/env node
// How long a room page takes to show its board on a slow phone (docs/performance.md,
// "First load"): Chromium through playwright-core's CDP session, with the network
// (`Network.emulateNetworkConditions`) and the CPU (`Emulation.setCPUThrottlingRate`,
// 4×) slowed down, at a 390×844 phone viewport.
//
// It starts `sannin serve` on a free port with a fresh SQLite database, opens a room,
// seats Ann, Bob and Cid (all ready: the game starts, Ann to move) and opens the room
// page as Ann: cold (a new browser context: empty cache), warm (a new tab of the same
// context) and later (once more: the modules' compiled code is cached too), once per
// network profile. Each line: the time from navigation to the first frame with the
// board's cells and pieces, the requests that went to the network, the bytes they
// transferred, and (warm, later) the requests that went out for a file that could
// have come from the cache. `--verbose` lists each visit's requests and socket frames
// with their times.
//
//   node scripts/measure-first-load.mjs [--static-dir DIR] [--bin target/debug/sannin]
//        [--runs 3] [--profiles slow,fast3g] [--lang en] [--verbose]
//
// `--static-dir`: the client to serve (default: the checkout's static/; the optimised
// build of scripts/build-static.mjs is target/static). Needs e2e/node_modules
// (`cd e2e && npm ci`) and /usr/bin/chromium.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const require = createRequire(join(REPO, 'e2e', 'package.json'));
const { chromium } = require('playwright-core');

const PROFILES = {
  // 400 kbps both ways, 400 ms round trip.
  slow: { latency: 400, downloadThroughput: 400_000 / 8, uploadThroughput: 400_000 / 8 },
  // Chromium's "Fast 3G" figures as the issue gives them: 150 ms, 1.6 Mbps down, 750 kbps up.
  fast3g: { latency: 150, downloadThroughput: 1_600_000 / 8, uploadThroughput: 750_000 / 8 },
};

const { values: opts } = parseArgs({
  options: {
    'static-dir': { type: 'string', default: join(REPO, 'static') },
    bin: { type: 'string', default: join(REPO, 'target', 'debug', 'sannin') },
    runs: { type: 'string', default: '3' },
    profiles: { type: 'string', default: 'slow,fast3g' },
    lang: { type: 'string', default: 'en' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    verbose: { type: 'boolean', default: false },
  },
});

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function startServer() {
  const dir = await mkdtemp(join(tmpdir(), 'sannin-measure-'));
  const port = await freePort();
  const child = spawn(opts.bin, ['serve', '--addr', `127.0.0.1:${port}`,
    '--database-url', `sqlite://${dir}/m.db`, '--static-dir', opts['static-dir']], {
    env: { ...process.env, RUST_LOG: 'warn' }, stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i += 1) {
    try { if ((await fetch(`${url}/healthz`)).ok) break; } catch { /* not up yet */ }
    if (i > 300) throw new Error('sannin serve did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: async () => { child.kill('SIGTERM'); await new Promise((r) => child.on('exit', r)); await rm(dir, { recursive: true, force: true }); } };
}

/** A room with Ann, Bob and Cid seated and ready (Ann to move); Ann's seat token. */
async function startedRoom(browser, url) {
  const page = await browser.newPage();
  await page.goto(`${url}/healthz`);
  const seated = await page.evaluate(async () => {
    const res = await fetch('/api/rooms', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const { id } = await res.json();
    const seat = (name, seat) => new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://${location.host}/api/rooms/${id}/ws`);
      ws.onopen = () => ws.send(JSON.stringify({ type: 'join', seat, name }));
      ws.onerror = reject;
      ws.onmessage = (m) => {
        const msg = JSON.parse(m.data);
        if (msg.type === 'seated') { ws.send(JSON.stringify({ type: 'ready' })); resolve({ ws, token: msg.token }); }
      };
    });
    const ann = await seat('Ann', 'first');
    const bob = await seat('Bob', 'middle');
    const cid = await seat('Cid', 'last');
    window.kept = [ann.ws, bob.ws, cid.ws];
    return { id, token: ann.token };
  });
  return { ...seated, page };
}

/** One visit of `roomUrl` on `page`: ms to the board with its pieces, and the requests. */
async function visit(page, cdp, roomUrl) {
  const requests = new Map();
  const onSent = (e) => requests.set(e.requestId, { url: e.request.url, bytes: 0, cached: false, status: 0, sent: e.timestamp, done: 0 });
  const onResponse = (e) => {
    const r = requests.get(e.requestId);
    if (r) { r.status = e.response.status; r.cached = e.response.fromDiskCache || e.response.fromPrefetchCache || e.response.fromServiceWorker; r.cacheControl = e.response.headers['cache-control'] ?? e.response.headers['Cache-Control'] ?? ''; }
  };
  const onCache = (e) => { const r = requests.get(e.requestId); if (r) r.cached = true; };
  const onDone = (e) => { const r = requests.get(e.requestId); if (r) { r.bytes = e.encodedDataLength; r.done = e.timestamp; } };
  cdp.on('Network.requestWillBeSent', onSent);
  cdp.on('Network.responseReceived', onResponse);
  cdp.on('Network.requestServedFromCache', onCache);
  cdp.on('Network.loadingFinished', onDone);
  const sockets = [];
  const onWs = (name) => (e) => sockets.push([name, e.timestamp]);
  if (opts.verbose) {
    cdp.on('Network.webSocketHandshakeResponseReceived', onWs('socket open'));
    cdp.on('Network.webSocketFrameReceived', onWs('socket frame'));
  }
  await page.goto(roomUrl, { waitUntil: 'commit' });
  const ms = await page.waitForFunction(
    () => document.querySelectorAll('[data-cell]').length > 0 && document.querySelector('[data-cell] .piece') && performance.now(),
    null, { polling: 'raf', timeout: 120_000 });
  const shown = await ms.jsonValue();
  // What was still on its way when the board showed is counted too: wait for quiet.
  await page.waitForLoadState('networkidle').catch(() => {});
  cdp.off('Network.requestWillBeSent', onSent);
  cdp.off('Network.responseReceived', onResponse);
  cdp.off('Network.requestServedFromCache', onCache);
  cdp.off('Network.loadingFinished', onDone);
  const all = [...requests.values()].filter((r) => r.url.startsWith('http'));
  if (opts.verbose) {
    const t0 = Math.min(...all.map((r) => r.sent));
    const at = (t) => String(Math.round((t - t0) * 1000)).padStart(6);
    for (const r of [...all].sort((a, b) => a.sent - b.sent)) {
      console.log(`  ${at(r.sent)} ${r.done ? at(r.done) : '     -'} ms ${String(r.bytes).padStart(7)} B ${r.cached ? 'cache' : String(r.status).padStart(5)} ${new URL(r.url).pathname}`);
    }
    for (const [name, t] of sockets.slice(0, 4)) console.log(`  ${at(t)} ms ${name}`);
    console.log(`  board at ${Math.round(shown)} ms after navigation start`);
  }
  const network = all.filter((r) => !r.cached);
  const api = (r) => new URL(r.url).pathname.startsWith('/api/');
  // A request that could have been cached: a static file (not the page, not the API)
  // that went to the network.
  const cacheable = network.filter((r) => !api(r) && !/no-cache|no-store/.test(r.cacheControl ?? '') && r.status !== 0);
  return {
    ms: Math.round(shown),
    requests: all.length,
    network: network.length,
    kb: Math.round(network.reduce((s, r) => s + r.bytes, 0) / 100) / 10,
    cacheable: cacheable.map((r) => new URL(r.url).pathname),
  };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const server = await startServer();
const browser = await chromium.launch({ executablePath: opts.chromium, args: ['--no-sandbox', '--headless', '--disable-quic'] });
try {
  console.log(`static dir: ${opts['static-dir']}`);
  for (const name of opts.profiles.split(',')) {
    const profile = PROFILES[name];
    if (!profile) throw new Error(`no profile ${name} (${Object.keys(PROFILES).join(', ')})`);
    const cold = [];
    const warm = [];
    const later = [];
    for (let run = 0; run < Number(opts.runs); run += 1) {
      const room = await startedRoom(browser, server.url);
      const locale = { en: 'en-GB', ja: 'ja-JP', ru: 'ru-RU', zh: 'zh-CN', ko: 'ko-KR' }[opts.lang] ?? opts.lang;
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true, locale });
      await context.addInitScript(([id, token]) => localStorage.setItem(`sannin.token.${id}`, token), [room.id, room.token]);
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, ...profile });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      const roomUrl = `${server.url}/rooms/${room.id}`;
      cold.push(await visit(page, cdp, roomUrl));
      // The warm visit: the same browser a moment later, a new tab on the same page.
      const again = await context.newPage();
      const cdp2 = await context.newCDPSession(again);
      await cdp2.send('Network.enable');
      await cdp2.send('Network.emulateNetworkConditions', { offline: false, ...profile });
      await cdp2.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      await page.close();
      warm.push(await visit(again, cdp2, roomUrl));
      // And once more: the browser has then kept the modules' compiled code too (V8's
      // code cache is made on a script's second run), as on any later visit.
      const third = await context.newPage();
      const cdp3 = await context.newCDPSession(third);
      await cdp3.send('Network.enable');
      await cdp3.send('Network.emulateNetworkConditions', { offline: false, ...profile });
      await cdp3.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      await again.close();
      later.push(await visit(third, cdp3, roomUrl));
      await context.close();
      await room.page.close();
    }
    for (const [label, runs] of [['cold', cold], ['warm', warm], ['later', later]]) {
      const last = runs.at(-1);
      console.log(`${name.padEnd(6)} ${label}: ${median(runs.map((r) => r.ms))} ms to the board (runs: ${runs.map((r) => r.ms).join(', ')}), `
        + `${last.requests} requests, ${last.network} to the network, ${median(runs.map((r) => r.kb))} kB transferred`
        + (label !== 'cold' ? `, ${last.cacheable.length} that could have been cached${last.cacheable.length ? `: ${last.cacheable.slice(0, 8).join(' ')}` : ''}` : ''));
    }
  }
} finally {
  await browser.close();
  await server.stop();
}
