#!/usr/bin/env python3
"""Accessibility, phone width and both languages, end to end.

For every view (calculator, wizard, doctor, logs), in English and Chinese, at
desktop (1280 px) and phone (390 px) width, against the release build:
  - axe-core finds no serious or critical violation;
  - a screenshot is kept under $E2E_SHOTS (looked at by people, kept as a
    test artifact);
and on the calculator:
  - at phone width the answer bar is on the first screen and the page does
    not scroll sideways (nothing hidden off-screen);
  - the language toggle's Chinese name is marked lang="zh";
  - in Chinese no field label is left in English among those the issue named.

Talks WebDriver like scripts/e2e.py (plain HTTP); started by scripts/e2e.sh.
"""
import base64
import json
import os
import sys
import time

from e2e import Browser, call

BASE = os.environ["E2E_BASE"]
SHOTS = os.environ["E2E_SHOTS"]
AXE = os.path.join(os.path.dirname(__file__), "..", "node_modules", "axe-core", "axe.min.js")
VIEWS = ["calculator", "wizard", "doctor", "logs"]
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
# A training link with a GPU: every panel of the calculator is shown.
LINK = "v=1&t=train&m=meta-llama/Llama-3.1-8B&meth=lora&mb=2&seq=4096&gpu=rtx-4090"
BLOCKING = {"serious", "critical"}


def resize(browser, width, height):
    call("POST", f"/session/{browser.session}/window/rect", {"width": width, "height": height})


def screenshot(browser, name):
    png = call("GET", f"/session/{browser.session}/screenshot")
    path = os.path.join(SHOTS, name + ".png")
    with open(path, "wb") as f:
        f.write(base64.b64decode(png))
    return path


def axe_violations(browser, source):
    browser.script(source)
    result = call("POST", f"/session/{browser.session}/execute/async", {
        "script": """
            const done = arguments[arguments.length - 1];
            axe.run(document, {resultTypes: ['violations']})
              .then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact,
                                                     nodes: v.nodes.length, help: v.help}))))
              .catch(e => done({error: String(e)}));""",
        "args": []})
    if isinstance(result, dict) and "error" in result:
        raise AssertionError(f"axe failed: {result['error']}")
    return result


def settle(browser):
    """The app has mounted (its tabs exist in every view) and its views have
    caught up with the settle timer."""
    browser.find("tab-calculator")
    time.sleep(0.8)


def main():
    os.makedirs(SHOTS, exist_ok=True)
    with open(AXE, encoding="utf-8") as f:
        axe_source = f.read()
    browser = Browser()
    failures = []
    try:
        for lang in ["en", "zh"]:
            for width_name, (width, height) in WIDTHS.items():
                resize(browser, width, height)
                for view in VIEWS:
                    query = LINK + f"&lang={lang}" + ("" if view == "calculator" else f"&view={view}")
                    browser.go(BASE + "?" + query)
                    settle(browser)
                    shot = screenshot(browser, f"{view}-{lang}-{width_name}")
                    bad = [v for v in axe_violations(browser, axe_source)
                           if v.get("impact") in BLOCKING]
                    if bad:
                        failures.append(f"{view} {lang} {width_name}: {json.dumps(bad)}")
                    print(f"  {view:<10} {lang} {width_name:<7} axe: {len(bad)} serious/critical; {shot}")
                if width_name == "phone":
                    check_phone(browser, lang, failures)
            check_language(browser, lang, failures)
    finally:
        browser.quit()
    if failures:
        raise AssertionError("\n".join(failures))
    print("e2e_a11y: all checks passed")


def check_phone(browser, lang, failures):
    browser.go(BASE + "?" + LINK + f"&lang={lang}")
    settle(browser)
    top = browser.script(
        "const b = document.querySelector(`[data-testid='verdict-bar']`);"
        "return b ? b.getBoundingClientRect().top : null")
    viewport = browser.script("return window.innerHeight")
    if top is None or top > viewport:
        failures.append(f"phone {lang}: the answer bar is not on the first screen (top {top})")
    wide = browser.script("return document.documentElement.scrollWidth - window.innerWidth")
    if wide > 1:
        failures.append(f"phone {lang}: the page scrolls {wide}px sideways")
    print(f"  phone {lang}: answer bar at {top}px of {viewport}, sideways overflow {wide}px")


def check_language(browser, lang, failures):
    browser.go(BASE + "?" + LINK + f"&lang={lang}")
    settle(browser)
    zh_toggle = browser.script(
        "const b = document.querySelector(`[data-testid='lang-zh']`); return b && b.lang")
    if zh_toggle != "zh":
        failures.append(f"{lang}: the 中文 toggle is lang={zh_toggle!r}, not zh")
    if lang == "zh":
        labels = browser.script(
            "return [...document.querySelectorAll('label')].map(l => l.textContent.trim())")
        english = [l for l in labels if l in ("batch", "micro-batch", "dropout", "rank")]
        if english:
            failures.append(f"zh: labels still in English: {english}")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print("e2e_a11y FAILED:", failure, file=sys.stderr)
        sys.exit(1)
