// The service worker of the site (scope "/"): it shows the push notifications the
// server sends (docs/correspondence.md, "Notifications") and opens their page on a
// click. It caches nothing and handles no fetch: the pages load as they always do.
//
// A push's payload is JSON `{type, room, seat, title, body, url}` (never a seat
// token). One notification per room: a newer one replaces the older (`tag`).

const ICON = '/icon-192.png';

/** The notification of a push payload: `{ title, options }`; null when it is unusable. */
function notificationOf(payload) {
  if (!payload || typeof payload !== 'object') return null;
  const title = typeof payload.title === 'string' && payload.title ? payload.title : 'Sannin';
  const url = safeUrl(payload.url, self.location.origin);
  const options = {
    body: typeof payload.body === 'string' ? payload.body : '',
    icon: ICON,
    data: { url, type: payload.type ?? null, room: payload.room ?? null },
  };
  if (typeof payload.room === 'string' && payload.room) {
    options.tag = payload.room;
    options.renotify = true;
  }
  return { title, options };
}

/** A url of this site only (a path such as "/rooms/<id>"); anything else: "/games". */
function safeUrl(url, origin) {
  try {
    const u = new URL(typeof url === 'string' && url ? url : '/games', origin);
    return u.origin === origin ? u.pathname + u.search + u.hash : '/games';
  } catch {
    return '/games';
  }
}

/** Which open tab a click goes to: one showing `url` (its path), else none (a new
 * tab is opened). `clients`: `[{ url, … }]`. */
function clientFor(clients, url, origin) {
  const want = new URL(url, origin);
  return clients.find((c) => {
    try {
      const u = new URL(c.url);
      return u.origin === want.origin && u.pathname === want.pathname;
    } catch {
      return false;
    }
  }) ?? null;
}

/** Goes to `url` (a path of this site): the open tab showing it is focused, else a
 * new tab opens. */
async function openPage(url) {
  const open = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const tab = clientFor(open, url, self.location.origin);
  if (tab) await tab.focus();
  else await self.clients.openWindow(url);
}

/** A click on a notification: it closes, and its page opens. */
function onClick(event) {
  event.notification.close();
  event.waitUntil(openPage(safeUrl(event.notification.data?.url, self.location.origin)));
}

function parse(event) {
  if (!event.data) return null;
  try {
    return event.data.json();
  } catch {
    return { title: 'Sannin', body: event.data.text() };
  }
}

if (typeof self.addEventListener === 'function' && typeof self.registration === 'object') {
  self.addEventListener('install', () => self.skipWaiting());
  self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

  self.addEventListener('push', (event) => {
    const n = notificationOf(parse(event));
    if (!n) return;
    event.waitUntil(self.registration.showNotification(n.title, n.options));
  });

  self.addEventListener('notificationclick', onClick);
}

// For the tests: the pure parts (node), and the click's handler (the browser).
self.sanninSw = { notificationOf, safeUrl, clientFor, onClick };
