// What the real-server browser tests share: a browser context per person with its
// WebSocket traffic recorded, and polling until something holds.

/** A browser context of its own (own localStorage), with every WebSocket frame the page
 * sends and receives recorded, so a test can read `legal` from the server's state. */
export async function person(browser, label) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 950 } });
  const page = await context.newPage();
  const io = { sent: [], states: [], events: [], errors: [] };
  page.on('pageerror', (e) => io.errors.push(`${label}: ${e.message}`));
  page.on('websocket', (ws) => {
    ws.on('framesent', (f) => io.sent.push(JSON.parse(f.payload)));
    ws.on('framereceived', (f) => {
      const msg = JSON.parse(f.payload);
      if (msg.type === 'state') io.states.push(msg);
      if (msg.type === 'event') io.events.push(msg.event);
    });
  });
  return { label, context, page, io, lastState: () => io.states.at(-1) };
}

/** Polls `fn` every 50 ms until it returns something truthy, which it returns. */
export async function until(what, fn, timeout = 20000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
