#!/usr/bin/env python3
"""The playground end to end in headless Chromium: load the page, type a spec and read the
diagram's events, type a broken spec and see the located error, pick a gallery operator, save,
download; screenshots of the light and dark page go to the artifacts folder it prints.

Usage: e2e.py MARBLEPLAY_BINARY [--artifacts DIR] [--readme-screenshot PNG]
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

from playwright.sync_api import expect, sync_playwright

from playground_support import Playground, chromium_path, snapshot

MAP_SPEC = "input: --1--2--3--|\noperator: map(x * 10)\n"
MAP_OUTPUT = "output: 10 at frame 2, 20 at frame 5, 30 at frame 8, completes at frame 11."
BROKEN_SPEC = "input: --1--2--3--|\noperator: mapp(x * 10)\n"


def type_spec(page, text):
    page.click("#editor")
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.type(text, delay=5)


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok:", message)


def light_session(page, folder, artifacts):
    # The folder's first spec opens by itself.
    expect(page.locator("#canvas")).to_have_attribute("data-state", "ok", timeout=20_000)
    check(page.input_value("#path") == "first.marble", "the folder's first spec is opened")
    check("Operator: filter" in page.get_attribute("#diagram", "alt"), "its diagram is shown")

    type_spec(page, MAP_SPEC)
    expect(page.locator("#diagram")).to_have_attribute("alt", f"source: 1 at frame 2, 2 at frame 5, 3 at frame 8, completes at frame 11. Operator: map(x * 10). {MAP_OUTPUT}", timeout=10_000)
    check(True, "typing a spec renders the real operator's output (through the SVG's <desc>)")

    type_spec(page, BROKEN_SPEC)
    expect(page.locator("#error")).to_be_visible(timeout=10_000)
    error = page.inner_text("#error")
    check("<editor>:2:11: error: unknown operator 'mapp'" in error and error.rstrip().endswith("^"), "a broken spec shows the located error with its caret")
    check(page.inner_text("#gutter .bad").strip() == "2", "the gutter marks line 2")
    check(page.inner_text("#highlight mark") == "m", "the highlight marks column 11")
    expect(page.locator("#canvas")).to_have_class("stale")
    check(MAP_OUTPUT in page.get_attribute("#diagram", "alt") and page.is_visible("#diagram"), "the last good diagram stays, dimmed")
    page.screenshot(path=os.path.join(artifacts, "playground-light-error.png"), full_page=True)

    page.select_option("#gallery", "switchLatest")
    expect(page.locator("#canvas")).to_have_attribute("data-state", "ok", timeout=10_000)
    expect(page.locator("#diagram")).to_have_attribute("alt", re.compile("Operator: switchLatest"), timeout=10_000)
    check(page.input_value("#editor").startswith("title: switchLatest"), "picking a gallery operator loads its spec and diagram")
    check(page.is_hidden("#error"), "the error is gone with a good spec")
    page.screenshot(path=os.path.join(artifacts, "playground-light.png"), full_page=True)

    type_spec(page, MAP_SPEC)
    expect(page.locator("#diagram")).to_have_attribute("alt", re.compile("output: 10 at frame 2"), timeout=10_000)
    page.fill("#path", "saved.marble")
    page.click("#save")
    expect(page.locator("#status")).to_have_text(f"saved saved.marble ({len(MAP_SPEC.encode())} bytes)", timeout=10_000)
    with open(os.path.join(folder, "saved.marble")) as handle:
        check(handle.read() == MAP_SPEC, "save writes the editor's text to the folder")
    check("saved.marble" in page.eval_on_selector_all("#files option", "os => os.map(o => o.value)"), "the saved spec is listed")

    before = snapshot(os.path.dirname(folder))
    page.fill("#path", "../escaped.marble")
    page.click("#save")
    expect(page.locator("#status")).to_contain_text("not saved: refused", timeout=10_000)
    check(snapshot(os.path.dirname(folder)) == before, "saving outside the folder is refused and writes nothing")

    with page.expect_download() as download:
        page.click("#download-svg")
    path = download.value.path()
    with open(path, "rb") as handle:
        svg = handle.read()
    check(svg.startswith(b"<?xml") and b"output: 10 at frame 2" in svg, "Download SVG gives the rendered file")
    with page.expect_download() as download:
        page.click("#download-png")
    with open(download.value.path(), "rb") as handle:
        check(handle.read(8) == b"\x89PNG\r\n\x1a\n", "Download PNG gives a PNG")


def dark_session(page, artifacts, readme_screenshot):
    expect(page.locator("#canvas")).to_have_attribute("data-state", "ok", timeout=20_000)
    page.select_option("#gallery", "switchLatest")
    expect(page.locator("#diagram")).to_have_attribute("alt", re.compile("Operator: switchLatest"), timeout=10_000)
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    check(background == "rgb(22, 23, 28)", f"the page follows the browser's dark preference ({background})")
    page.wait_for_timeout(300)
    page.screenshot(path=os.path.join(artifacts, "playground-dark.png"), full_page=True)
    if readme_screenshot:
        page.screenshot(path=readme_screenshot)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--artifacts", default=os.path.join(".build", "playground-e2e"))
    parser.add_argument("--readme-screenshot")
    options = parser.parse_args()
    artifacts = os.path.abspath(options.artifacts)
    os.makedirs(artifacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="marbleplay-e2e-")
    folder = os.path.join(work, "specs")
    os.makedirs(folder)
    with open(os.path.join(folder, "first.marble"), "w") as handle:
        handle.write("title: filter\ninput: --1--2--3--4--|\noperator: filter(x % 2 == 0)\n")
    server = Playground(os.path.abspath(options.binary), folder)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
            light = browser.new_context(color_scheme="light", viewport={"width": 1280, "height": 760}, accept_downloads=True)
            page = light.new_page()
            page.goto(server.url)
            light_session(page, folder, artifacts)
            dark = browser.new_context(color_scheme="dark", viewport={"width": 1280, "height": 760})
            dark_page = dark.new_page()
            dark_page.goto(server.url)
            dark_session(dark_page, artifacts, options.readme_screenshot)
            browser.close()
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"playground e2e passed; screenshots in {artifacts}")


if __name__ == "__main__":
    main()
