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
  - in Chinese no field label is left in English among those the issue named;
and, in both languages at both widths, the remaining gaps of issue 10
(screenshots kept too):
  - a decimal typed into the custom capacity stays as typed ("23.9");
  - the GPU menu shows the card in the link while a search leaves it out,
    and every select shows the value the link holds;
  - a stale result is marked on the answer bar, the plans, chart and table;
  - the plans show their headline and fold their details (short on a phone),
    and a plan that changes the workload says so instead of "0.0 pp";
  - several serving GPUs at tp = pp = 1: the note at the GPU count, and its
    button sets tensor parallel;
  - in Chinese, no space beside CJK text and none of the English terms left;
and, in both languages at both widths, the doctor reading a llama.cpp load
log (issue 13): the reconcile table shows at least 3 rows, the model
buffer's difference is 0.00 %, the table scrolls inside its own box (the
page does not scroll sideways), axe finds nothing serious, and its button
opens the log's setup in the calculator; a screenshot of it is kept.

Talks WebDriver like scripts/e2e.py (plain HTTP); started by scripts/e2e.sh.
"""
import base64
import json
import os
import sys
import time

from e2e import ELEMENT, Browser, call, wait_for

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
                check_issue_10(browser, lang, width_name, failures)
                check_reconcile(browser, lang, width_name, failures)
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
    if lang == "en":
        # The page carries no Chinese until it switches: zh.ftl is fetched then.
        browser.script("document.querySelector(`[data-testid='lang-zh']`).click()")
        tagline = ""
        for _ in range(50):
            tagline = browser.script(
                "const t = document.querySelector('.tagline'); return t ? t.textContent : ''")
            if "放得下" in tagline:
                break
            time.sleep(0.1)
        if "放得下" not in tagline:
            failures.append(f"en -> zh: the tagline stayed {tagline!r} after switching to Chinese")
        print(f"  en -> zh: tagline {tagline!r}")
    if lang == "zh":
        labels = browser.script(
            "return [...document.querySelectorAll('label')].map(l => l.textContent.trim())")
        english = [l for l in labels if l in ("batch", "micro-batch", "dropout", "rank")]
        if english:
            failures.append(f"zh: labels still in English: {english}")


# Serving 16 prompts of 16k tokens on 24 GB over two GPUs at tp = pp = 1:
# plans that shorten the prompt, and the replicas note.
SERVE = "v=1&m=meta-llama/Llama-3.1-8B&bs=16&pl=16384&n=2&gpu=rtx-4090"
# A space beside CJK punctuation or between two CJK characters.
CJK_SPACE = r"[\u3000-\u303f\uff00-\uffef] | [\u3000-\u303f\uff00-\uffef]|[\u4e00-\u9fff] [\u4e00-\u9fff]"
# English left in the Chinese page (the glossed labels keep theirs in brackets).
ZH_ENGLISH = r"KV cache|(?<!（)micro-batch|(?<![（-])batch(?!）)|strategy|\bnone\b|\bpp\b"


def element(browser, selector):
    found = browser.script("return document.querySelector(arguments[0])", selector)
    if not found:
        raise AssertionError(f"no element {selector}")
    return found[ELEMENT]


def query_param(browser, key):
    return browser.script(
        "return new URLSearchParams(location.search).get(arguments[0])", key)


SELECTS = ("return Object.fromEntries([...document.querySelectorAll('select[data-testid]')]"
           ".map(s => [s.dataset.testid, s.value]))")


def choose(browser, testid, value):
    browser.script(
        "const s = document.querySelector(`[data-testid='${arguments[0]}']`);"
        "s.value = arguments[1]; s.dispatchEvent(new Event('change', {bubbles: true}))",
        testid, value)
    time.sleep(0.3)


def check_selects_follow_the_link(browser, fail):
    """Switches every method, then every engine, through the menus; after
    each, every select shows what the same link shows when opened afresh
    (a select whose options changed under it shows the browser's fallback)."""
    def compare(when):
        live = browser.script(SELECTS)
        browser.go(browser.script("return location.href"))
        settle(browser)
        fresh = browser.script(SELECTS)
        if live != fresh:
            diff = {k: (live.get(k), fresh.get(k)) for k in set(live) | set(fresh)
                    if live.get(k) != fresh.get(k)}
            fail(f"after {when}, selects differ from the link (shown, link): {diff}")

    options = "return [...document.querySelector(`[data-testid='${arguments[0]}']`).options].map(o => o.value)"
    for method in browser.script(options, "method"):
        choose(browser, "method", method)
        compare(f"method {method}")
    browser.click("task-infer")
    time.sleep(0.3)
    for engine in browser.script(options, "engine"):
        choose(browser, "engine", engine)
        compare(f"engine {engine}")


def check_issue_10(browser, lang, width, failures):
    """The remaining gaps of issue 10, as a person meets them."""
    tag = f"{lang} {width}"

    def fail(what):
        failures.append(f"{tag}: {what}")

    browser.go(BASE + "?" + LINK + f"&lang={lang}")
    settle(browser)
    # 1. A decimal stays as typed (23.9 GiB is stored in whole bytes).
    field = browser.focus("custom-capacity-gib-or-gb-0-card-s")
    browser.type_over(field, "23.9")
    time.sleep(0.5)
    typed = browser.script(
        "return document.querySelector(`[data-testid='custom-capacity-gib-or-gb-0-card-s']`).value")
    if typed != "23.9":
        fail(f"the custom capacity reads {typed!r} after typing 23.9")
    if query_param(browser, "mem") is None:
        fail("the custom capacity is not in the link")
    # 2. A GPU search that leaves the chosen card out of its matches.
    browser.go(BASE + "?" + LINK + f"&lang={lang}")
    settle(browser)
    browser.type_over(element(browser, ".gpu-picker input[type='search']"), "a100")
    time.sleep(0.5)
    shown = browser.script(
        "const s = document.querySelector(`[data-testid='gpu-select']`);"
        "return [s.value, s.selectedOptions[0] ? s.selectedOptions[0].textContent : '']")
    if shown[0] != query_param(browser, "gpu") or "4090" not in shown[1]:
        fail(f"the GPU menu shows {shown} while the link has gpu={query_param(browser, 'gpu')}")
    check_selects_follow_the_link(browser, fail)
    # 3. A stale result is marked wherever it shows.
    browser.go(BASE + "?" + LINK + f"&lang={lang}")
    settle(browser)
    browser.type_over(browser.find("model-search"), "acme/no-such-model-9b")
    time.sleep(0.8)
    places = ["[data-testid='verdict-bar']", ".plans h2", ".sweep-chart h2", ".fit-table h2"]
    marks = browser.script(
        "return arguments[0].map(p => getComputedStyle(document.querySelector(p), '::before').content)",
        places)
    for place, mark in zip(places, marks):
        if mark in (None, "none", "normal", '""'):
            fail(f"{place} shows the previous model's result unmarked ({mark})")
    if width == "phone":
        shown = browser.script(
            "const b = document.querySelector(`[data-testid='verdict-bar']`);"
            "return getComputedStyle(b).display !== 'none' && b.getBoundingClientRect().top < innerHeight")
        if not shown:
            fail("the answer bar with its stale mark is not on the first screen")
    screenshot(browser, f"stale-{lang}-{width}")
    # 4, 5. Plans: headline visible, details folded; the workload named.
    browser.go(BASE + "?" + SERVE + f"&lang={lang}")
    settle(browser)
    browser.find("plan-list", timeout=30)
    plans = browser.script(
        "return [...document.querySelectorAll(`[data-testid='plan']`)].map(p => ({"
        " open: [...p.querySelectorAll('details')].some(d => d.open),"
        " summary: p.querySelector(`[data-testid='plan-summary']`).innerText"
        "   + ' ' + p.querySelector('.plan-memory').innerText,"
        " workload: [...p.querySelectorAll('.plan-changes .change')].some(c =>"
        "   /prompt length|提示长度|batch|批大小/.test(c.textContent))}))")
    if not plans:
        fail("no plans for the serving link")
    for i, plan in enumerate(plans):
        if plan["open"]:
            fail(f"plan {i + 1}'s details are unfolded")
        says = "changes your workload" in plan["summary"] or "改变了你的工作负载" in plan["summary"]
        if plan["workload"] and not says:
            fail(f"plan {i + 1} changes the workload but says: {plan['summary']!r}")
        if not plan["summary"].strip():
            fail(f"plan {i + 1} has no headline")
    height = browser.script(
        "return document.querySelector(`[data-testid='plans']`).getBoundingClientRect().height")
    if width == "phone" and height > 1500:
        fail(f"the plans take {height:.0f}px at phone width")
    browser.script("document.querySelector(`[data-testid='plans']`).scrollIntoView()")
    screenshot(browser, f"plans-{lang}-{width}")
    # 6. Chinese: no space beside CJK text, no English term left (details unfolded).
    if lang == "zh":
        for link in [SERVE, LINK, "v=1&p=7e9&t=train&gpu=rtx-4090"]:
            browser.go(BASE + "?" + link + "&lang=zh")
            settle(browser)
            # Formulas stay as written (symbols and PyTorch names) and sources
            # quote their documents: not scanned.
            browser.script("document.querySelectorAll('details').forEach(d => d.open = true);"
                           "document.querySelectorAll('main code, .change-sources')"
                           ".forEach(c => c.style.display = 'none')")
            text = browser.script("return document.querySelector('main').innerText")
            found = browser.script(
                "const t = arguments[0]; return [new RegExp(arguments[1]), new RegExp(arguments[2])]"
                ".map(r => { const m = t.match(r); return m ? t.slice(Math.max(0, m.index - 15), m.index + 15) : null; })",
                text, CJK_SPACE, ZH_ENGLISH)
            if found[0]:
                fail(f"a space beside Chinese text ({link}): {found[0]!r}")
            if found[1]:
                fail(f"English left in Chinese ({link}): {found[1]!r}")
    # 7. The replicas note at the GPU count, with its button.
    browser.go(BASE + "?" + SERVE + f"&lang={lang}")
    settle(browser)
    note = browser.script(
        "const n = document.querySelector(`.gpu-picker [data-testid='replica-note']`);"
        "return n ? n.innerText : null")
    if not note:
        fail("no note at the GPU count for two serving GPUs at tp = 1")
    else:
        browser.script("document.querySelector(`[data-testid='replica-note']`).scrollIntoView()")
        screenshot(browser, f"replicas-{lang}-{width}")
        browser.click("set-tp")
        try:
            wait_for(lambda: query_param(browser, "tp") == "2", "tp=2 in the link", timeout=5)
        except AssertionError as e:
            fail(str(e))
    print(f"  issue 10 {tag}: checked")


# A llama.cpp load log whose model the catalog lacks (a fine-tune of
# Llama-3-8B): compared with the calculator's model, every buffer agrees.
LLAMA_LOG = os.path.join(os.path.dirname(__file__), "..", "crates", "core", "tests", "data",
                         "llama_cpp", "logs", "01_llama3-8b-korean-q4km-rtx3070-full.txt")


def check_reconcile(browser, lang, width, failures):
    """The doctor puts a runtime's load log beside the estimate, line by line."""
    tag = f"{lang} {width}"
    with open(LLAMA_LOG, encoding="utf-8") as f:
        log = f.read()
    browser.go(BASE + f"?v=1&m=meta-llama/Meta-Llama-3-8B&view=doctor&lang={lang}")
    settle(browser)
    browser.script(
        "const t = document.querySelector(`[data-testid='doctor-paste']`);"
        "t.value = arguments[0]; t.dispatchEvent(new Event('input', {bubbles: true}))", log)
    try:
        browser.find("reconcile-rows", timeout=10)
    except AssertionError:
        failures.append(f"{tag}: no reconcile table for the llama.cpp load log")
        return
    time.sleep(0.3)
    rows = browser.script(
        "return [...document.querySelectorAll(`[data-testid='reconcile-row']`)].map(r => ({"
        " figure: r.dataset.figure,"
        " difference: (r.querySelector(`[data-testid='reconcile-difference']`) || {}).textContent}))")
    model = [r for r in rows if r["figure"] == "model_buffer_gpu"]
    if len(rows) < 3:
        failures.append(f"{tag}: the reconcile table has {len(rows)} rows: {rows}")
    if not model or model[0]["difference"] != "0.00 %":
        failures.append(f"{tag}: the model buffer's difference is not 0.00 %: {model}")
    wide = browser.script("return document.documentElement.scrollWidth - window.innerWidth")
    if wide > 1:
        failures.append(f"{tag}: the doctor with the reconcile table scrolls {wide}px sideways")
    with open(AXE, encoding="utf-8") as f:
        bad = [v for v in axe_violations(browser, f.read()) if v.get("impact") in BLOCKING]
    if bad:
        failures.append(f"{tag}: the reconcile table: {json.dumps(bad)}")
    browser.script("document.querySelector(`[data-testid='reconcile']`).scrollIntoView()")
    shot = screenshot(browser, f"reconcile-{lang}-{width}")
    # The button opens the setup the log implies in the calculator.
    browser.click("reconcile-open")
    try:
        wait_for(lambda: browser.script("return location.search").find("eng=") >= 0
                 and query_param(browser, "view") is None
                 and query_param(browser, "m") == "meta-llama/Meta-Llama-3-8B",
                 "the calculator with the log's setup", timeout=10)
    except AssertionError as e:
        failures.append(f"{tag}: {e} ({browser.script('return location.href')})")
    print(f"  reconcile {tag}: {len(rows)} rows, model buffer {model[0]['difference'] if model else None};"
          f" sideways overflow {wide}px; opened {browser.script('return location.search')}; {shot}")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print("e2e_a11y FAILED:", failure, file=sys.stderr)
        sys.exit(1)
