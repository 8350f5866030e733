// Dicecup's service worker: the app shell (the page, its CSS, JavaScript, SDK,
// catalogs, fonts and icons) is cached, so the client opens without a network
// and installs as an app. Served at <root>/sw.js by app/web/__init__.py, which
// puts a hash of the shell's files in VERSION: a new release is a new worker
// with a new cache, and the old cache is deleted. The API (api/...) is never
// cached: rooms, games and sockets always go to the server. It also shows turn
// notifications (docs/api.md, "Turn notifications"): the server's push carries
// the title and body in the player's language and the room's page to open.
const VERSION = '__VERSION__';
const CACHE = `dicecup-shell-${VERSION}`;
const SCOPE = new URL(self.registration.scope);

const SHELL = [
  './',
  'static/css/app.css',
  'static/css/i18n.css',
  'static/css/profiles.css',
  'static/css/feel.css',
  'static/js/main.js',
  'static/js/api.js',
  'static/js/dom.js',
  'static/js/state.js',
  'static/js/views.js',
  'static/js/dice.js',
  'static/js/howto.js',
  'static/js/i18n.js',
  'static/js/lang.js',
  'static/js/pages.js',
  'static/js/profile.js',
  'static/js/stats.js',
  'static/js/replay.js',
  'static/js/fair.js',
  'static/js/notify.js',
  'static/js/feel.js',
  'static/js/attention.js',
  'static/js/quickplay.js',
  'static/js/rejoin.js',
  'static/js/storage.js',
  'static/js/account.js',
  'static/vendor/qrcode-generator/qrcode.mjs',
  'static/sdk/index.js',
  'static/sdk/codes.js',
  'static/sdk/generated/constants.js',
  'static/sdk/connection.js',
  'static/sdk/events.js',
  'static/sdk/patch.js',
  'static/sdk/rest.js',
  'static/sdk/store.js',
  'static/i18n/en.json',
  'static/manifest.webmanifest',
  'static/icons/icon.svg',
  'static/icons/icon-192.png',
].map((path) => new URL(path, SCOPE).href);

const isApi = (url) => url.origin === SCOPE.origin && url.pathname.startsWith(`${SCOPE.pathname}api/`);

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith('dicecup-shell-') && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  // Only this app's GETs; never the API (nor its sockets): the network answers those as it is.
  if (request.method !== 'GET' || url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname) || isApi(url)) return;
  if (request.mode === 'navigate') {
    // Pages (/, /r/CODE, /rules/x) are one page: the network's if it answers, else the cached shell.
    event.respondWith(fetch(request).catch(() => caches.match(SHELL[0])));
    return;
  }
  // Static files: from the cache of this version, else the network (and kept for next time).
  event.respondWith(
    caches.open(CACHE).then((cache) =>
      cache.match(request).then(
        (hit) =>
          hit ||
          fetch(request).then((response) => {
            if (response.ok && url.pathname.startsWith(`${SCOPE.pathname}static/`)) cache.put(request, response.clone());
            return response;
          }),
      ),
    ),
  );
});

// A turn notification: {type: 'turn', room, round, title, body, url}, written by the server.
self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  // only pages of this app are opened from a notification
  let target = new URL(typeof data.url === 'string' ? data.url : './', SCOPE);
  if (target.origin !== SCOPE.origin || !target.pathname.startsWith(SCOPE.pathname)) target = SCOPE;
  event.waitUntil(
    self.registration.showNotification(typeof data.title === 'string' && data.title ? data.title : 'Dicecup', {
      body: typeof data.body === 'string' ? data.body : '',
      tag: `dicecup-turn-${typeof data.room === 'string' ? data.room : ''}`, // a newer turn of the room replaces it
      renotify: true,
      icon: new URL('static/icons/icon-192.png', SCOPE).href,
      data: { url: target.href },
    }),
  );
});

// A click focuses a window already on the room's page, or opens one.
self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || SCOPE.href;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => new URL(client.url).pathname === new URL(url).pathname && 'focus' in client);
      return open ? open.focus() : self.clients.openWindow(url);
    }),
  );
});
