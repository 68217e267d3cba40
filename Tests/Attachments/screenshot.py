#!/usr/bin/env python3
"""A failing test's attached SVG, as a person opens it: headless Chromium draws it in the light
and the dark colour scheme, and each screenshot is compared, pixel by pixel, with marblegen's
Cairo PNG of the attached spec in that theme (the docs' drawing of the same timelines). Fails
when more than 2% of the pixels differ clearly; prints the figures and leaves the screenshots in
the artifacts folder for a look.

Usage: screenshot.py ATTACHMENTS_DIR MARBLEGEN [--artifacts DIR]
"""
import argparse
import base64
import glob
import os
import re
import shutil
import subprocess
import sys

from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Playground"))
from playground_support import chromium_path  # noqa: E402  (the browser tests share how to find Chromium)

# Chromium's and Cairo's anti-aliasing differ along every edge: a pixel counts as different
# only when a channel differs by more than this.
CHANNEL_TOLERANCE = 64
MAX_DIFFERENT = 0.02

COMPARE = """
async ([a, b, tolerance]) => {
  const load = (src) => new Promise((resolve, reject) => {
    const image = new Image(); image.onload = () => resolve(image); image.onerror = reject; image.src = src;
  });
  const [x, y] = [await load(a), await load(b)];
  if (x.width !== y.width || x.height !== y.height) return {size: [x.width, x.height, y.width, y.height]};
  const pixels = (image) => {
    const canvas = document.createElement('canvas');
    canvas.width = image.width; canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    return context.getImageData(0, 0, image.width, image.height).data;
  };
  const [p, q] = [pixels(x), pixels(y)];
  let different = 0;
  for (let i = 0; i < p.length; i += 4) {
    if (Math.abs(p[i] - q[i]) > tolerance || Math.abs(p[i + 1] - q[i + 1]) > tolerance || Math.abs(p[i + 2] - q[i + 2]) > tolerance) different++;
  }
  return {different: different / (p.length / 4), width: x.width, height: x.height};
}
"""


def data_url(path):
    with open(path, "rb") as f:
        return "data:image/png;base64," + base64.b64encode(f.read()).decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("attachments")
    parser.add_argument("marblegen")
    parser.add_argument("--artifacts", default=".build/attachment-screenshots")
    args = parser.parse_args()
    svgs = sorted(glob.glob(os.path.join(args.attachments, "*.svg")))
    if not svgs:
        sys.exit(f"no attached SVG in {args.attachments}: run make consumer-check first")
    os.makedirs(args.artifacts, exist_ok=True)
    failures = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        for svg in svgs:
            spec = re.sub(r"\.svg$", ".marble", svg)
            if not os.path.exists(spec):
                # Swift Testing may prefix the names it writes; the spec is the SVG's twin.
                sys.exit(f"no spec beside {svg}")
            with open(svg) as f:
                text = f.read()
            width = int(float(re.search(r'width="([0-9.]+)"', text).group(1)))
            height = int(float(re.search(r'height="([0-9.]+)"', text).group(1)))
            name = os.path.splitext(os.path.basename(svg))[0]
            for scheme in ("light", "dark"):
                cairo_dir = os.path.join(args.artifacts, "cairo-" + scheme)
                os.makedirs(cairo_dir, exist_ok=True)
                shutil.copy(spec, os.path.join(cairo_dir, name + ".marble"))
                subprocess.run(
                    [args.marblegen, "render", os.path.join(cairo_dir, name + ".marble"), "--format", "png", "--theme", scheme],
                    check=True, stdout=subprocess.DEVNULL)
                cairo_png = os.path.join(cairo_dir, name + ".png")
                shot = os.path.join(args.artifacts, f"{name}-{scheme}.png")
                page = browser.new_page(viewport={"width": width, "height": height}, device_scale_factor=2, color_scheme=scheme)
                page.goto("file://" + os.path.abspath(svg))
                page.screenshot(path=shot)
                page.close()
                blank = browser.new_page()
                result = blank.evaluate(COMPARE, [data_url(shot), data_url(cairo_png), CHANNEL_TOLERANCE])
                blank.close()
                if "size" in result:
                    print(f"FAIL {name} ({scheme}): screenshot and Cairo PNG differ in size {result['size']}")
                    failures += 1
                    continue
                share = result["different"]
                verdict = "ok" if share <= MAX_DIFFERENT else "FAIL"
                print(f"{verdict} {name} ({scheme}): {share * 100:.2f}% of {result['width']}x{result['height']} pixels differ from Cairo's drawing")
                if share > MAX_DIFFERENT:
                    failures += 1
        browser.close()
    print(f"screenshots in {args.artifacts}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
