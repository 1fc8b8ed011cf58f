#!/usr/bin/env python3
"""Trunk post-build hook (Trunk.toml): makes the build an installable,
offline-capable site for the path it is built for.

In Trunk's staging directory (TRUNK_STAGING_DIR, the next dist/) it writes:
  manifest.webmanifest  name, icons, colours, and start_url/scope equal to
                        TRUNK_PUBLIC_URL when that is a path ("/vramfit/"),
                        else "./" (relative: the build works at any path);
  sw.js                 public/sw.js with the precache list inlined: every
                        file of the build with its SHA-256, and the release
                        version (a hash of that list); in a development
                        build (TRUNK_PROFILE=debug), a worker that removes
                        any earlier one and its caches instead;
index.html  with the stylesheets Trunk linked (each component's own CSS,
            minified in a release) inlined, in order, as one <style>: one
            request instead of seventeen, compressed as one stream;
and, when VRAMFIT_SITE_URL is set (https://vramfit.github.io/vramfit/), turns
the link-preview URLs in index.html (og:image, og:url, twitter:image) into
absolute ones, which chat apps need.

Run again on a finished dist/ (TRUNK_STAGING_DIR=dist) it rewrites the same
files: the tests use that to make a "new release" without a second compile.
"""
import hashlib
import json
import os
import re
import sys

import short_names

MANIFEST = "manifest.webmanifest"
SERVICE_WORKER = "sw.js"
TEMPLATE = os.path.join("public", SERVICE_WORKER)
PLACEHOLDER = re.compile(r"/\*PRECACHE\*/.*?/\*END PRECACHE\*/", re.S)
# From style/main.css: --accent (theme, the browser's title bar) and --bg.
THEME_COLOUR = "#2f6fde"
BACKGROUND_COLOUR = "#ffffff"
# Length of the release version: 16 hex digits (64 bits) of SHA-256.
VERSION_HEX_DIGITS = 16
# Each file's check in the precache list: its first 16 hex digits (64 bits)
# of SHA-256. The worker refuses a file the server changed under the release
# (a half-finished deploy, a stale CDN copy); 64 bits make a chance match
# negligible, and the full 256 cost 0.4 KB of the gzipped first load.
CONTENT_HEX_DIGITS = 16
# The sw.js of a development build (`trunk serve` without --release): the app
# does not register a worker then, but a release's worker registered earlier
# on the same address would keep serving its cached files; the browser's
# update check fetches this one, which deletes those caches and unregisters.
RETIRING_WORKER = """// Development build: no offline copy (scripts/precache.py).
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("vramfit-")).map((n) => caches.delete(n))))
      .then(() => self.registration.unregister()),
  );
});
"""


def app_path(public_url):
    """start_url and scope: the deploy path when known, else relative."""
    return public_url if public_url.startswith("/") else "./"


def web_manifest(public_url):
    path = app_path(public_url)
    return {
        "name": "vramfit: will it fit on the GPU?",
        "short_name": "vramfit",
        "description": "GPU memory calculator for training and serving LLMs: every byte with its formula.",
        "start_url": path,
        "scope": path,
        "id": path,
        "display": "standalone",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "icons": [
            {"src": "public/icons/icon-192.png", "sizes": "192x192", "type": "image/png"},
            {"src": "public/icons/icon-512.png", "sizes": "512x512", "type": "image/png"},
            {"src": "public/icons/maskable-512.png", "sizes": "512x512", "type": "image/png",
             "purpose": "maskable"},
        ],
    }


def absolute_previews(html, site_url):
    """Makes og:image, og:url and twitter:image absolute under site_url."""
    site_url = site_url if site_url.endswith("/") else site_url + "/"

    def absolute(match):
        value = match.group(2)
        if re.match(r"^[a-z]+://", value):
            return match.group(0)
        return match.group(1) + site_url + value.removeprefix("./") + match.group(3)

    pattern = r'(<meta (?:property|name)="(?:og:image|og:url|twitter:image)" content=")([^"]*)(")'
    return re.sub(pattern, absolute, html)


STYLESHEET_LINK = re.compile(r'<link rel="stylesheet" href="([^"]+\.css)"[^>]*>')


def inline_stylesheets(html, staging):
    """Replaces the stylesheet links with one <style> holding their rules in
    link order (the cascade is unchanged) and removes the linked files. A
    page already inlined has no links left: running again changes nothing."""
    rules = []

    def take(match):
        name = match.group(1).rsplit("/", 1)[-1]
        path = os.path.join(staging, name)
        with open(path, encoding="utf-8") as f:
            rules.append(minify_css(f.read()))
        os.remove(path)
        return "\0" if len(rules) == 1 else ""

    html = STYLESHEET_LINK.sub(take, html)
    if not rules:
        return html
    return html.replace("\0", "<style>" + "\n".join(rules) + "</style>", 1)


def minify_css(css):
    """A stylesheet without comments and without the whitespace a browser
    ignores: runs of spaces and newlines become one space, and none is kept
    around braces, semicolons and commas (the sources quote nothing but
    attribute values, which hold none of these). Colons keep their spaces:
    in a selector (`.a :hover`) one is a combinator."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\s+", " ", css)
    css = re.sub(r" ?([{};,]) ?", r"\1", css)
    return css.replace(";}", "}").strip()


def precache_list(staging):
    files = []
    for folder, _, names in os.walk(staging):
        for name in names:
            full = os.path.join(folder, name)
            path = os.path.relpath(full, staging).replace(os.sep, "/")
            if path == SERVICE_WORKER:
                continue
            with open(full, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()[:CONTENT_HEX_DIGITS]
                files.append({"path": path, "sha256": digest})
    files.sort(key=lambda f: f["path"])
    listing = "".join(f"{f['path']} {f['sha256']}\n" for f in files)
    version = hashlib.sha256(listing.encode()).hexdigest()[:VERSION_HEX_DIGITS]
    return {"version": version, "files": files}


def strip_comments(js):
    """The shipped worker without its whole-line comments and indentation:
    the template keeps the explanations, the site only the code."""
    lines = (line.strip() for line in js.splitlines())
    return "\n".join(l for l in lines if l and not l.startswith("//")) + "\n"


def strip_glue_comments(js):
    """wasm-bindgen's JS glue without its comment lines (JSDoc blocks, `//`
    lines) and indentation: 1 KB of the gzipped first load. Line-based, so
    it changes nothing when a line could hold the inside of a string or
    template literal, or a comment after code (the glue has neither)."""
    lines = js.splitlines()
    if any(l.count("`") % 2 or re.search(r"\S\s*/[*/]", l.replace("://", "")) for l in lines):
        return js
    kept, in_block = [], False
    for line in lines:
        text = line.strip()
        if in_block:
            in_block = "*/" not in text
        elif text.startswith("/*"):
            in_block = "*/" not in text
        elif text and not text.startswith("//"):
            kept.append(text)
    return "\n".join(kept) + "\n"


def strip_glue(staging):
    """Every wasm-bindgen glue file of the build (`NAME.js` beside
    `NAME_bg.wasm`), rewritten by strip_glue_comments, then the names
    between it and its module shortened (short_names.py)."""
    for folder, _, names in os.walk(staging):
        for name in names:
            stem = name.removesuffix(".js")
            if stem == name or stem + "_bg.wasm" not in names:
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                js = f.read()
            stripped = strip_glue_comments(js)
            if stripped != js:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(stripped)
            short_names.shorten_files(os.path.join(folder, stem + "_bg.wasm"), path)


def main():
    staging = os.environ.get("TRUNK_STAGING_DIR")
    if not staging or not os.path.isfile(os.path.join(staging, "index.html")):
        sys.exit("precache: TRUNK_STAGING_DIR must be a build holding index.html")
    source = os.environ.get("TRUNK_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..")
    public_url = os.environ.get("TRUNK_PUBLIC_URL", "./")

    # The template itself is not part of the site (copy-dir brought it along).
    stray = os.path.join(staging, TEMPLATE)
    if os.path.exists(stray):
        os.remove(stray)

    # The page ships without the source's HTML comments (they explain the
    # build to readers of index.html, not to browsers).
    site_url = os.environ.get("VRAMFIT_SITE_URL", "")
    index = os.path.join(staging, "index.html")
    with open(index, encoding="utf-8") as f:
        html = re.sub(r"\s*<!--.*?-->", "", f.read(), flags=re.S)
    html = inline_stylesheets(html, staging)
    if site_url:
        html = absolute_previews(html, site_url)
    with open(index, "w", encoding="utf-8") as f:
        f.write(html)

    with open(os.path.join(staging, MANIFEST), "w", encoding="utf-8") as f:
        json.dump(web_manifest(public_url), f, separators=(",", ":"))
        f.write("\n")

    if os.environ.get("TRUNK_PROFILE") == "debug":
        with open(os.path.join(staging, SERVICE_WORKER), "w", encoding="utf-8") as f:
            f.write(RETIRING_WORKER)
        print("precache: development build, sw.js retires any earlier worker")
        return

    strip_glue(staging)
    precache = precache_list(staging)
    with open(os.path.join(source, TEMPLATE), encoding="utf-8") as f:
        template = f.read()
    if not PLACEHOLDER.search(template):
        sys.exit(f"precache: {TEMPLATE} has no /*PRECACHE*/ ... /*END PRECACHE*/ placeholder")
    inlined = json.dumps(precache, separators=(",", ":"))
    worker = PLACEHOLDER.sub(lambda _: inlined, strip_comments(template), count=1)
    with open(os.path.join(staging, SERVICE_WORKER), "w", encoding="utf-8") as f:
        f.write(worker)
    print(f"precache: release {precache['version']}, {len(precache['files'])} files, "
          f"start_url {app_path(public_url)}")


if __name__ == "__main__":
    main()
