// The site's service worker (docs/offline.md), served by games.offline.service_worker at
// /sw.js so that its scope is the whole site. Build __BUILD__: the hash of this file with
// its precache list, which names the hashed static files, so a deploy that changes any of
// them installs a new worker, whose activation deletes the old caches.
const VERSION = "__BUILD__";
const CACHE = `gin-${VERSION}`;
const OFFLINE_PAGE = "{% url 'games:offline' %}";
const STATIC = "{{ static_url }}";
const PRECACHE = {{ precache_json|safe }};

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(PRECACHE.map((u) => new Request(u, { cache: "reload", credentials: "same-origin" })))),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith("gin-") && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "skip-waiting") self.skipWaiting();
  if (event.data && event.data.type === "version" && event.source) event.source.postMessage({ type: "version", version: VERSION });
});

async function fromNetworkOr(request, fallback) {
  try {
    const resp = await fetch(request);
    const url = new URL(request.url);
    if (resp.ok && url.pathname === OFFLINE_PAGE) {
      const cache = await caches.open(CACHE);
      await cache.put(OFFLINE_PAGE, resp.clone());
    }
    return resp;
  } catch (err) {
    return fallback();
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    // the network first (pages are live); with no network, the cached copy of the page, or
    // the offline game for any other page
    event.respondWith(fromNetworkOr(request, async () => {
      const cache = await caches.open(CACHE);
      return (await cache.match(request, { ignoreSearch: url.pathname === OFFLINE_PAGE }))
        || (await cache.match(OFFLINE_PAGE))
        || new Response("You are offline.", { status: 503, headers: { "Content-Type": "text/plain" } });
    }));
    return;
  }
  if (url.pathname.startsWith(STATIC) || url.pathname === "/manifest.webmanifest") {
    // static files never change under their name here: the cache first
    event.respondWith((async () => {
      const cache = await caches.open(CACHE);
      const hit = await cache.match(request);
      if (hit) return hit;
      const resp = await fetch(request);
      if (resp.ok && url.pathname.startsWith(STATIC)) await cache.put(request, resp.clone());
      return resp;
    })());
  }
});
