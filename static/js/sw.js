/* The service worker of the installable app (served at /sw.js by campaign.views.pwa;
   pwa.js registers it with the scope of each sheet a player opens, so it controls sheets
   and nothing else).

   It keeps a player's sheet readable offline, and nothing else: a sheet's page is asked
   of the network first and kept; when the network is gone the kept copy is shown (sheet.js
   refreshes that copy after live changes, once the sheet is quiet or at once when it hides
   or loses its network). Static files are served from the cache and refreshed behind. Every other request goes to the network as if there were no worker.
   Logging out clears all of it (Clear-Site-Data). */
"use strict";
const SHEETS = "zodiac-sheets-v1";
const STATIC = "zodiac-static-v1";
const SHEET = /^\/c\/[-\w]+\/pj\/\d+\/hoja\/$/;
const OFFLINE_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'; object-src 'none'";

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const keep = new Set([SHEETS, STATIC]);
    for (const name of await caches.keys()) {
      if (!keep.has(name)) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && SHEET.test(url.pathname)) {
    event.respondWith(sheetPage(request, url));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(staticFile(event, request));
  }
});

async function sheetPage(request, url) {
  const cache = await caches.open(SHEETS);
  try {
    const response = await fetch(request);
    // Only a sheet the server actually showed is kept (not a login page or a 404).
    if (response.ok && !response.redirected) await cache.put(url.pathname, response.clone());
    else if (response.status === 404) await cache.delete(url.pathname);
    return response;
  } catch (error) {
    const kept = await cache.match(url.pathname, { ignoreVary: true, ignoreSearch: true });
    if (!kept) throw error;
    // The copy keeps the site's strict policy: scripts and styles from this site only.
    const headers = new Headers(kept.headers);
    headers.set("Content-Security-Policy", OFFLINE_CSP);
    return new Response(kept.body, { status: 200, headers });
  }
}

async function staticFile(event, request) {
  const cache = await caches.open(STATIC);
  const kept = await cache.match(request, { ignoreVary: true });
  const fresh = fetch(request).then((response) => {
    if (response.ok) return cache.put(request, response.clone()).then(() => response);
    return response;
  });
  if (kept) {
    event.waitUntil(fresh.catch(() => undefined));
    return kept;
  }
  return fresh;
}
