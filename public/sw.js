// vramfit service worker: the app works offline after the first visit.
//
// This file is a template: the Trunk post-build hook (scripts/precache.py)
// writes the built copy to the root of dist/ with PRECACHE filled in (every
// file of the build with its SHA-256, and a version hashed from that list),
// so each release is a byte-different sw.js and the browser installs it.
//
// One cache per release ("vramfit-<version>"), filled completely on install
// or not at all: every file must match the hash listed for this release, so a
// deploy half-uploaded, or replaced again mid-install, never mixes old and
// new files. Activation deletes the other releases' caches.
"use strict";

const PRECACHE = /*PRECACHE*/ { version: "unbuilt", files: [] } /*END PRECACHE*/;
const CACHE_PREFIX = "vramfit-";
const CACHE_NAME = CACHE_PREFIX + PRECACHE.version;
// The site's pages: every navigation to the scope or to tools/ (any query,
// i.e. any share link or embed) is answered with that folder's index.html.
const APP_PAGE = "index.html";
const PAGE_FOLDERS = ["", "tools/"];

const scoped = (path) => new URL(path, self.registration.scope).href;

async function sha256Hex(buffer) {
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function precache() {
  const cache = await caches.open(CACHE_NAME);
  await Promise.all(
    PRECACHE.files.map(async ({ path, sha256 }) => {
      // "no-cache": revalidated with the server, so the files the page has just
      // loaded come from the HTTP cache after a 304 instead of downloading twice.
      const response = await fetch(scoped(path), { cache: "no-cache" });
      if (!response.ok) {
        throw new Error(`${path}: HTTP ${response.status}`);
      }
      const body = await response.arrayBuffer();
      // The list holds each file's first hex digits of SHA-256 (precache.py).
      const actual = await sha256Hex(body);
      if (!actual.startsWith(sha256)) {
        // The server already holds another release: this one must not install.
        throw new Error(`${path}: content is not this release's`);
      }
      // The body is stored decoded: the network's encoding and length no longer apply.
      const headers = new Headers(response.headers);
      headers.delete("Content-Encoding");
      headers.delete("Content-Length");
      await cache.put(scoped(path), new Response(body, { status: 200, headers }));
    }),
  );
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    precache()
      .then(() => self.skipWaiting())
      .catch(async (error) => {
        await caches.delete(CACHE_NAME);
        throw error;
      }),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names
            .filter((name) => name.startsWith(CACHE_PREFIX) && name !== CACHE_NAME)
            .map((name) => caches.delete(name)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(self.registration.scope)) {
    return;
  }
  const path = request.url.slice(self.registration.scope.length).split(/[?#]/)[0];
  const folder = PAGE_FOLDERS.find((f) => path === f || path === f + APP_PAGE);
  const page = request.mode === "navigate" && folder !== undefined ? folder + APP_PAGE : null;
  event.respondWith(
    caches.open(CACHE_NAME).then(async (cache) => {
      const cached = await cache.match(page ? scoped(page) : request, { ignoreSearch: true });
      return cached || fetch(request);
    }),
  );
});
