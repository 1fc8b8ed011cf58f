#!/usr/bin/env python3
"""End-to-end tests of deployment, offline use and embedding, in headless
Chromium through chromedriver (plain WebDriver over urllib, as scripts/e2e.py).
Started by scripts/e2e.sh, which builds the two sites and sets the paths.

  0. the page's link-preview tags (Open Graph, Twitter card), made absolute
     by VRAMFIT_SITE_URL, and the 1200x630 preview image.
Sub-path site (built by `scripts/build-site.sh /vramfit/`, served from a
parent folder so that it lives at http://127.0.0.1:PORT/vramfit/):
  1. loads; the service worker takes control with scope /vramfit/ and one
     cache, named after the release version inlined in sw.js; the web app
     manifest says start_url and scope /vramfit/ and its icons load;
  2. offline (the server stopped and DevTools' network emulation offline),
     a share link never opened before shows the totals of `vramfit estimate`;
  3. a new release on the server (index.html changed, the hook run again):
     the open page offers a reload once the new worker takes over;
     after one reload the new worker has replaced the old cache; the next
     reload shows the new page, still computing.
Root site (dist/, served by scripts/e2e.sh at E2E_BASE):
  4. public/embed-example.html: both iframes render their totals and are
     sized by the height they post; each "open in vramfit" link opens the full
     app with the same totals and without the embed parameters;
  5. the full app's Embed panel writes a snippet whose iframe link opens an
     embed with the app's totals and the chosen inputs.
Development build (`trunk build` without --release):
  6. it requests no sw.js (no worker registered), and its sw.js, met by a
     release's worker on the same address, deletes that worker's caches and
     unregisters it.
"""
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request

import e2e
from e2e import Browser, call, cli_totals, page_totals, wait_for, TOTALS

SITE_ROOT = os.environ["E2E_SITE_ROOT"]  # holds vramfit/ = the /vramfit/ build
SUB_PATH = "/vramfit/"
WORK = os.environ["E2E_WORK"]
PROFILE_ROOT = os.path.join(WORK, "profiles")
ROOT_BASE = os.environ["E2E_BASE"]


class Server:
    """A static file server on 127.0.0.1 that can be stopped and restarted
    on the same port with another folder (a new release, or no network)."""

    def __init__(self):
        self.port = None
        self.httpd = None

    def start(self, directory):
        handler = functools.partial(Handler, directory=directory)
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port or 0), handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class Handler(http.server.SimpleHTTPRequestHandler):
    requested = []  # paths asked for, in order (for the development build check)

    def log_message(self, *args):
        pass

    def do_GET(self):
        Handler.requested.append(self.path.split("?")[0])
        super().do_GET()


def fresh_browser(name):
    os.environ["E2E_PROFILE"] = os.path.join(PROFILE_ROOT, name)
    return Browser()


def run_async(browser, source, *args):
    """Runs `source` as the body of an async function; returns its result."""
    wrapped = ("const done = arguments[arguments.length - 1];"
               f"(async () => {{ {source} }})().then(done, e => done('error: ' + e));")
    return call("POST", f"/session/{browser.session}/execute/async",
                {"script": wrapped, "args": list(args)})


def cdp(browser, command, params):
    return call("POST", f"/session/{browser.session}/goog/cdp/execute",
                {"cmd": command, "params": params})


def set_offline(browser, offline):
    cdp(browser, "Network.enable", {})
    cdp(browser, "Network.emulateNetworkConditions",
        {"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


def release_version(site):
    with open(os.path.join(site, "sw.js"), encoding="utf-8") as f:
        found = re.search(r'"version":"([0-9a-f]+)"', f.read())
    assert found, "sw.js has no inlined release version"
    return found.group(1)


def cache_names(browser):
    return run_async(browser, "return await caches.keys();")


def fetch_json(url):
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read().decode())


def meta_tags(html):
    return dict(re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)"', html))


def check_link_preview():
    """The page carries Open Graph and Twitter card tags; built with
    VRAMFIT_SITE_URL, their URLs are absolute (chat apps need that)."""
    site = os.path.join(WORK, "preview")
    shutil.copytree(os.path.join(SITE_ROOT, "vramfit"), site)
    env = dict(os.environ, TRUNK_STAGING_DIR=site, TRUNK_PUBLIC_URL=SUB_PATH,
               VRAMFIT_SITE_URL="https://example.org/vramfit")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "precache.py")],
                   check=True, env=env, capture_output=True)
    with open(os.path.join(site, "index.html"), encoding="utf-8") as f:
        tags = meta_tags(f.read())
    for name in ["og:title", "og:description", "twitter:card", "twitter:title"]:
        assert tags.get(name), f"no {name} tag"
    image = "https://example.org/vramfit/public/og-image.png"
    assert tags.get("og:image") == image and tags.get("twitter:image") == image, tags
    assert tags.get("og:url") == "https://example.org/vramfit/", tags
    with open(os.path.join(site, "public", "og-image.png"), "rb") as f:
        png = f.read(24)
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (1200, 630), (width, height)
    print(f"0. link preview: og:title {tags['og:title']!r}, og:image {image} ({width}x{height})")


def check_sub_path():
    site_a = os.path.join(SITE_ROOT, "vramfit")
    server = Server()
    server.start(SITE_ROOT)
    base = f"http://127.0.0.1:{server.port}{SUB_PATH}"
    browser = fresh_browser("subpath")
    try:
        browser.go(base)
        page_totals(browser)
        wait_for(lambda: browser.script("return !!navigator.serviceWorker.controller"),
                 "the service worker to control the page", timeout=30)
        scope = run_async(browser, "return (await navigator.serviceWorker.getRegistration()).scope;")
        assert scope == base, f"worker scope {scope} != {base}"
        version_a = release_version(site_a)
        wait_for(lambda: cache_names(browser) == ["vramfit-" + version_a],
                 f"the one cache vramfit-{version_a}", timeout=30)
        manifest = fetch_json(base + "manifest.webmanifest")
        assert manifest["start_url"] == SUB_PATH and manifest["scope"] == SUB_PATH, manifest
        for icon in manifest["icons"]:
            with urllib.request.urlopen(base + icon["src"], timeout=10) as resp:
                assert resp.headers["Content-Type"] == "image/png", icon
        print(f"1. {base}: worker scope {scope}, cache vramfit-{version_a}, manifest start_url {SUB_PATH}")

        link = subprocess.run([e2e.VRAMFIT, "link", "--scenario", e2e.SCENARIO, "--base", base],
                              check=True, capture_output=True, text=True).stdout.strip()
        server.stop()
        set_offline(browser, True)
        # A link this browser never opened: any query is answered by the cached page.
        browser.go(link + "&seq=1024")
        offline = page_totals(browser)
        expected = cli_totals("--seq-len", "1024")
        assert offline == expected, f"offline {offline} != vramfit estimate {expected}"
        assert browser.script("return navigator.onLine") is False, "the page was not offline"
        print("2. offline, share link opened: totals equal vramfit estimate --json:", offline)

        # Release B: another index.html, the post-build hook run again on it.
        site_b = os.path.join(WORK, "release-b")
        shutil.copytree(site_a, os.path.join(site_b, "vramfit"))
        index_b = os.path.join(site_b, "vramfit", "index.html")
        with open(index_b, encoding="utf-8") as f:
            html = f.read()
        with open(index_b, "w", encoding="utf-8") as f:
            f.write(html.replace("<head>", '<head><meta name="vramfit-release" content="B">', 1))
        env = dict(os.environ, TRUNK_STAGING_DIR=os.path.join(site_b, "vramfit"),
                   TRUNK_PUBLIC_URL=SUB_PATH)
        subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "precache.py")],
                       check=True, env=env, capture_output=True)
        version_b = release_version(os.path.join(site_b, "vramfit"))
        assert version_b != version_a
        set_offline(browser, False)
        server.start(site_b)
        browser.go(link)
        wait_for(lambda: cache_names(browser) == ["vramfit-" + version_b],
                 f"cache vramfit-{version_b} alone", timeout=30)
        # The page still runs release A; the new worker's takeover offers a reload.
        wait_for(lambda: browser.script(
            "return !!document.querySelector('[data-testid=update-ready]')"),
            "the old release's page offers the reload", timeout=15)
        browser.go(link)
        wait_for(lambda: browser.script(
            "return document.querySelector('meta[name=vramfit-release]')?.content") == "B",
            "the new release's page")
        assert page_totals(browser) == cli_totals(), "release B computes other totals"
        print(f"3. new release picked up: cache vramfit-{version_a} replaced by vramfit-{version_b}")
    finally:
        browser.quit()
        try:
            server.stop()
        except Exception:
            pass


def frame_totals(browser, testid):
    return browser.script(
        "const doc = document.querySelector(`[data-testid='${arguments[0]}']`).contentDocument;"
        "if (!doc) return null;"
        "const cells = arguments[1].map(t => doc.querySelector(`[data-testid='${t}']`));"
        "return cells.every(c => c) ? cells.map(c => Number(c.getAttribute('data-bytes'))) : null;",
        testid, TOTALS)


def check_embeds():
    browser = fresh_browser("embed")
    try:
        browser.go(ROOT_BASE + "public/embed-example.html")
        for testid in ["embed-lora", "embed-vllm"]:
            browser.script(  # lazy frames load once in view
                "document.querySelector(`[data-testid='${arguments[0]}']`).scrollIntoView()", testid)
            wait_for(lambda: frame_totals(browser, testid), f"totals in {testid}", timeout=30)
            totals = frame_totals(browser, testid)
            assert all(t > 0 for t in totals), totals
            verdict, notices = browser.script(
                "const doc = document.querySelector(`[data-testid='${arguments[0]}']`).contentDocument;"
                "const notices = doc.querySelector('[data-testid=link-notices]');"
                "return [doc.querySelector('[data-testid=headroom]').textContent,"
                "        notices && notices.textContent];", testid)
            assert notices is None, f"{testid} link has unusable parameters: {notices}"
            assert verdict.startswith("fits"), f"{testid}: no fit against its GPU: {verdict!r}"
            wait_for(lambda: browser.script(
                "const f = document.querySelector(`[data-testid='${arguments[0]}']`);"
                "const content = f.contentDocument.querySelector('[data-testid=embed]').offsetHeight;"
                "return f.style.height === content + 'px';", testid),
                f"{testid} sized to its content by its height message")
            height = browser.script(
                "return document.querySelector(`[data-testid='${arguments[0]}']`).style.height", testid)
            full = browser.script(
                "return document.querySelector(`[data-testid='${arguments[0]}']`)"
                ".contentDocument.querySelector('[data-testid=open-in-vramfit]').href", testid)
            assert "embed=" not in full and "show=" not in full, full
            print(f"4. {testid}: totals {totals}, {verdict}, iframe height {height}")
            browser.go(full)
            assert page_totals(browser) == totals, f"full app differs from {testid}"
            browser.script("return history.back()")
            browser.find("embed-lora")
        print("4. embed example: both calculators render; 'open in vramfit' shows the same totals")

        browser.go(ROOT_BASE + "?v=1&m=meta-llama/Llama-2-7b-hf&t=train&meth=lora&mb=2&seq=1024")
        app_totals = page_totals(browser)
        browser.click("embed-toggle")
        browser.click("embed-show-ga")
        snippet = browser.script(
            "return document.querySelector(`[data-testid='embed-snippet']`).value")
        src = re.search(r'src="([^"]+)"', snippet).group(1).replace("&amp;", "&")
        assert src.endswith("&embed=1&show=mb,ga,seq"), src
        browser.go(src)
        assert page_totals(browser) == app_totals, "the snippet's embed shows other totals"
        for testid in ["micro-batch", "gradient-accumulation", "sequence-length"]:
            browser.find(testid)
        print("5. Embed panel: the snippet's iframe link shows the same totals and inputs mb, ga, seq")
    finally:
        browser.quit()


def check_development_build():
    """A development build registers no worker, and its sw.js retires a
    release's worker met on the same address (with its caches)."""
    server = Server()
    server.start(os.environ["E2E_RELEASE_DIST"])
    base = f"http://127.0.0.1:{server.port}/"
    browser = fresh_browser("development")
    try:
        browser.go(base)
        page_totals(browser)
        wait_for(lambda: len(cache_names(browser)) == 1, "the release's cache", timeout=30)
        server.stop()
        server.start(os.environ["E2E_DEV_DIST"])
        browser.go(base)
        wait_for(lambda: cache_names(browser) == [], "the release's caches deleted", timeout=30)
        wait_for(lambda: run_async(browser, "return String(await navigator.serviceWorker.getRegistration());")
                 == "undefined", "the release's worker unregistered")
    finally:
        browser.quit()
    browser = fresh_browser("development-fresh")
    try:
        Handler.requested.clear()
        browser.go(base)
        page_totals(browser)
        time.sleep(1)  # registration would follow the first render at once
        assert "/sw.js" not in Handler.requested, "the development build registered a worker"
    finally:
        browser.quit()
        server.stop()
    print("6. development build: registers no worker; its sw.js removed a release's worker and caches")


def main():
    os.makedirs(PROFILE_ROOT, exist_ok=True)
    started = time.time()
    check_link_preview()
    check_sub_path()
    check_embeds()
    check_development_build()
    print(f"e2e_pwa: all checks passed in {time.time() - started:.0f} s")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print("e2e_pwa FAILED:", failure, file=sys.stderr)
        sys.exit(1)
