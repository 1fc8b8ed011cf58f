#!/usr/bin/env python3
"""End-to-end test of the release build in headless Chromium.

Talks WebDriver (W3C, plain HTTP via urllib: no third-party package) to a
chromedriver started by scripts/e2e.sh, against dist/ served on 127.0.0.1.

Checks, in order:
  1. a share link made by `vramfit link` opens and the three data-testid
     totals equal `vramfit estimate --json` for the same scenario;
  2. typing a new micro-batch replaces the address (no new history entry),
     recomputes, and the copied link carries it;
  3. reopening that link reproduces the exact numbers, which equal the CLI's
     for the changed scenario;
  4. a malformed link shows the notice naming each bad parameter and still
     shows a result;
  5. the importer worker (importer/, src/importer.rs) is not loaded with the
     page; a pasted config.json starts it and comes back as the link's model.
Before them, that every glue file of the build lost wasm-bindgen's hashed
names (scripts/short_names.py): the checks above then ran on renamed ones.
"""
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

DRIVER = os.environ.get("WEBDRIVER_URL", "http://127.0.0.1:9515")
BASE = os.environ["E2E_BASE"]  # e.g. http://127.0.0.1:8765/
VRAMFIT = os.environ["VRAMFIT_BIN"]
SCENARIO = os.environ["E2E_SCENARIO"]
TOTALS = ["peak-allocated-bytes", "peak-reserved-bytes", "device-used-bytes"]
JSON_KEYS = ["peak_allocated_bytes", "peak_reserved_bytes", "device_used_bytes"]
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # W3C WebDriver element key


def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(DRIVER + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read().decode())["value"]


class Browser:
    def __init__(self):
        options = {
            "binary": os.environ.get("CHROMIUM", "/usr/bin/chromium"),
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--no-first-run", "--window-size=1280,900",
                     "--user-data-dir=" + os.environ["E2E_PROFILE"]],
        }
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome",
                                                  "goog:chromeOptions": options}}}
        self.session = call("POST", "/session", caps)["sessionId"]

    def go(self, url):
        call("POST", f"/session/{self.session}/url", {"url": url})

    def script(self, source, *args):
        return call("POST", f"/session/{self.session}/execute/sync",
                    {"script": source, "args": list(args)})

    def find(self, testid, timeout=20.0):
        deadline = time.time() + timeout
        while True:
            found = self.script(
                "return document.querySelector(`[data-testid='${arguments[0]}']`)", testid)
            if found:
                return found[ELEMENT]
            if time.time() > deadline:
                raise AssertionError(f"no element with data-testid={testid}")
            time.sleep(0.1)

    def attr(self, testid, name):
        self.find(testid)
        return self.script(
            "return document.querySelector(`[data-testid='${arguments[0]}']`).getAttribute(arguments[1])",
            testid, name)

    def focus(self, testid):
        """Clicks the element (WebDriver scrolls it into view) and returns its id."""
        element = self.find(testid)
        call("POST", f"/session/{self.session}/element/{element}/click", {})
        return element

    def type_over(self, element, text):
        # Select all (Ctrl+A), then type over it: the page sees real input events.
        call("POST", f"/session/{self.session}/element/{element}/value",
             {"text": "\ue009a\ue000" + text})

    def click(self, testid):
        call("POST", f"/session/{self.session}/element/{self.find(testid)}/click", {})

    def quit(self):
        call("DELETE", f"/session/{self.session}")


def cli_totals(*extra):
    out = subprocess.run([VRAMFIT, "estimate", "--scenario", SCENARIO, "--json", *extra],
                         check=True, capture_output=True, text=True).stdout
    first_gpu = json.loads(out)["gpus"][0]
    return [first_gpu[k] for k in JSON_KEYS]


def page_totals(browser):
    return [int(browser.attr(t, "data-bytes")) for t in TOTALS]


def wait_for(predicate, what, timeout=10.0):
    deadline = time.time() + timeout
    while not predicate():
        if time.time() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.1)


# Qwen2-VL-2B's architecture fields (`vramfit link --config` of its config.json).
QWEN2_VL = ("v=1&s.arch=qwen2&s.name=qwen2_vl&s.h=1536&s.l=28&s.heads=12&s.kv=2&s.ff=8960"
            "&s.vocab=151936&s.pos=32768&s.tied=1&s.qkvb=1"
            "&s.vis=1280,32,16,5120,448,14,34087936,0&s.vp=631183360&s.vb=qwen2_vl"
            "&s.ir=qwen_vl:14,2,3136,1003520&s.vid=qwen2:2"
            "&t=train&meth=lora&mb=4&seq=512&img=1&gpu=rtx-4090")


def check_image_mix(browser):
    """A batch of mixed image sizes typed as words: the link carries them,
    the totals equal the CLI's, and a wrong size keeps the last good list."""
    browser.go(BASE + "?" + QWEN2_VL)
    uniform = page_totals(browser)
    field = browser.focus("image-mix")
    browser.type_over(field, "phone, 336x336")
    wait_for(lambda: "imix=4032x3024,336x336" in browser.script("return location.search"),
             "imix in the address")
    wait_for(lambda: page_totals(browser) != uniform, "the totals to change")
    out = subprocess.run([VRAMFIT, "estimate", "--url", browser.script("return location.href"),
                          "--json"], check=True, capture_output=True, text=True).stdout
    cli = [json.loads(out)["gpus"][0][k] for k in JSON_KEYS]
    assert page_totals(browser) == cli, f"page {page_totals(browser)} != CLI {cli}"
    mixed = page_totals(browser)
    # Each size's tokens beside the inputs, as `vramfit tokens` counts them.
    config = os.path.join(os.path.dirname(__file__), "..", "crates", "core", "tests", "data",
                          "configs", "vlm", "Qwen__Qwen2-VL-2B-Instruct.json")
    counted = json.loads(subprocess.run(
        [VRAMFIT, "tokens", "--config", config, "--image", "4032x3024", "--image", "336x336",
         "--json"], check=True, capture_output=True, text=True).stdout)["images"]
    shown = browser.script(
        "return document.querySelector(`[data-testid='image-tokens']`).textContent")
    for image in counted:
        line = (f"{image['width']}×{image['height']}: {image['language_model_tokens']} image "
                f"tokens in the language model, {image['tower_tokens']} in the vision tower")
        assert line in shown, f"{line!r} not in {shown!r}"
    # Every prefix of "zz" is refused too: the last good list stays in force,
    # and the typed text stays in the field beside the message.
    browser.type_over(field, "zz")
    wait_for(lambda: browser.script(
        "return document.activeElement.getAttribute('aria-invalid')") == "true", "the error")
    assert "imix=4032x3024,336x336" in browser.script("return location.search"), \
        browser.script("return location.search")
    assert page_totals(browser) == mixed, "a refused list changed the totals"
    assert browser.script("return document.activeElement.value") == "zz", "the text was lost"
    print("6. typed a mixed batch (phone, 336x336): link imix=4032x3024,336x336, totals equal "
          "the CLI's:", mixed, "; each size's tokens equal vramfit tokens; 'zz' refused in place,"
          " kept in the field")


def check_short_names(dist="dist"):
    """No glue file beside its module still names a hashed import or shim."""
    hashed = re.compile(r"\b(?:__wbg_|__wbindgen_|wasm_bindgen__)\w*_h?[0-9a-f]{16}\b")
    glues = []
    for folder, _, names in os.walk(dist):
        for name in names:
            if name.endswith(".js") and name[:-3] + "_bg.wasm" in names:
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    left = hashed.findall(f.read())
                assert not left, f"{name} keeps {len(left)} hashed names, e.g. {left[0]}"
                glues.append(name)
    assert len(glues) >= 2, f"glue files found: {glues}"
    print(f"0. {len(glues)} glue files with short names:", ", ".join(sorted(glues)))


def main():
    check_short_names()
    link = subprocess.run([VRAMFIT, "link", "--scenario", SCENARIO, "--base", BASE],
                          check=True, capture_output=True, text=True).stdout.strip()
    print("share link:", link)
    browser = Browser()
    try:
        browser.go(link)
        opened = page_totals(browser)
        expected = cli_totals()
        assert opened == expected, f"page {opened} != vramfit estimate {expected}"
        print("1. opened link: totals equal vramfit estimate --json:", opened)

        history_before = browser.script("return history.length")
        field = browser.focus("micro-batch")
        scroll_before = browser.script("return window.scrollY")
        browser.type_over(field, "8")
        wait_for(lambda: "mb=8" in browser.script("return location.search"), "mb=8 in the address")
        wait_for(lambda: page_totals(browser) != opened, "the totals to change")
        changed = page_totals(browser)
        assert browser.script("return history.length") == history_before, "typing added history entries"
        assert browser.script("return window.scrollY") == scroll_before, "typing scrolled the page"
        browser.click("copy-link")
        copied = browser.script(
            "return document.querySelector(`[data-testid='share-link']`).value")
        assert copied == browser.script("return location.href"), (copied, "!= address bar")
        print("2. typed micro-batch 8: address replaced in place, link", copied)

        browser.go(copied)
        reopened = page_totals(browser)
        assert reopened == changed, f"reopened {reopened} != before {changed}"
        cli_changed = cli_totals("--micro-batch", "8")
        assert reopened == cli_changed, f"reopened {reopened} != vramfit estimate {cli_changed}"
        print("3. reopened the copied link: same totals, equal to the CLI:", reopened)

        browser.go(BASE + "?v=1&mb=zero&bogus=1&gpu=no-such-card")
        browser.find("link-notices")
        notice = browser.script(
            "return document.querySelector(`[data-testid='link-notices']`).textContent")
        for param in ["mb", "bogus", "gpu"]:
            assert param in notice, f"notice does not name {param}: {notice}"
        page_totals(browser)  # a result is still shown
        print("4. malformed link: notice names mb, bogus, gpu; defaults computed")

        browser.go(BASE + "?v=1")
        browser.find("model-summary")
        loaded = "return performance.getEntriesByType('resource').map(e => e.name)"
        assert not any("importer/" in r for r in browser.script(loaded)), "importer in the first load"
        browser.script("document.querySelectorAll('input[name=model-mode]')[1].click()")
        box = "[data-testid='config-json']"
        wait_for(lambda: browser.script(f"return !!document.querySelector(`{box}`)"), "the config box")
        with open(os.path.join(os.path.dirname(__file__), "..", "crates", "core", "tests", "data",
                               "configs", "HuggingFaceTB__SmolLM2-135M.json"), encoding="utf-8") as f:
            config = f.read()
        browser.script(f"const box = document.querySelector(`{box}`); box.value = arguments[0];"
                       "box.dispatchEvent(new Event('input', {bubbles: true}))", config)
        said = "return document.querySelector(`[data-testid='config-message']`).textContent"
        wait_for(lambda: browser.script(said).startswith("Imported"), "the import", 30)
        assert "s.arch=llama&s.name=HuggingFaceTB/SmolLM2-135M" in browser.script(
            "return location.search"), browser.script("return location.search")
        assert any(r.endswith("importer/worker.js") for r in browser.script(loaded))
        print("5. pasted config.json: imported by the importer worker, loaded then:",
              browser.script(said))
        # a quantized checkpoint's config sets the weights it loads in
        with open(os.path.join(os.path.dirname(__file__), "..", "crates", "core", "tests", "data",
                               "configs", "openai__gpt-oss-20b.json"), encoding="utf-8") as f:
            quantized = f.read()
        browser.script(f"const box = document.querySelector(`{box}`); box.value = arguments[0];"
                       "box.dispatchEvent(new Event('input', {bubbles: true}))", quantized)
        wait_for(lambda: "mxfp4" in browser.script(said), "the checkpoint's format", 30)
        assert "w=mxfp4" in browser.script("return location.search"), browser.script("return location.search")
        print("5b. pasted gpt-oss-20b's config.json: weights set to its MXFP4:", browser.script(said))

        check_image_mix(browser)
    finally:
        browser.quit()
    print("e2e: all checks passed")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print("e2e FAILED:", failure, file=sys.stderr)
        sys.exit(1)
