"""Screenshots of the HTML report in headless Chromium at 1280 px, and its height.

    .venv/bin/python benchmarks/screenshots.py REPORT.html [--out DIR] [--study NAME] [--first-screen PNG]

Writes DIR/first_screen.png (the first 1280 x 900 px a reviewer sees), DIR/study_<NAME>.png (one
study's section; default: the first) and DIR/full_page.png, and prints the page's height and
whether its body overflows horizontally; --first-screen writes the first screen alone to PNG (the
picture in docs/report.md). Needs Debian's chromium and playwright (in .venv).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

WIDTH, HEIGHT = 1280, 900
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
    "--disable-component-update", "--disable-sync", "--disable-quic",
]  # fmt: skip


def measure(report: Path, out: Path | None = None, study: str | None = None, first_screen: Path | None = None) -> dict:
    """Height and horizontal overflow of ``report`` at WIDTH px; screenshots into ``out`` if given, and
    its first screen alone into ``first_screen``."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("error: Debian's chromium is not installed (apt-get install chromium)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.goto(Path(report).resolve().as_uri(), wait_until="load")
            page.wait_for_timeout(500)  # the table scripts run after load
            facts = page.evaluate(
                """() => ({height: document.documentElement.scrollHeight,
                           bodyScrollWidth: document.body.scrollWidth, bodyClientWidth: document.body.clientWidth,
                           docScrollWidth: document.documentElement.scrollWidth,
                           studies: [...document.querySelectorAll('h2[id^="study-"]')].map(h => h.id)})"""
            )
            if first_screen is not None:
                Path(first_screen).parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(first_screen))
            if out is not None:
                out.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(out / "first_screen.png"))
                page.screenshot(path=str(out / "full_page.png"), full_page=True)
                name = f"study-{study}" if study else (facts["studies"] or [None])[0]
                if name:
                    box = page.evaluate(
                        """(id) => { const h = document.getElementById(id);
                                     let end = h.nextElementSibling;
                                     while (end && !(end.tagName === 'H2')) end = end.nextElementSibling;
                                     const top = h.getBoundingClientRect().top + window.scrollY;
                                     const bottom = end ? end.getBoundingClientRect().top + window.scrollY
                                                        : document.documentElement.scrollHeight;
                                     return {top, bottom}; }""",
                        name,
                    )
                    page.screenshot(
                        path=str(out / f"{name.replace('-', '_')}.png"), full_page=True,
                        clip={"x": 0, "y": box["top"], "width": WIDTH, "height": box["bottom"] - box["top"]},
                    )  # fmt: skip
        finally:
            browser.close()
    facts["overflows"] = max(facts["bodyScrollWidth"], facts["docScrollWidth"]) > WIDTH
    return facts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", type=Path)
    ap.add_argument("--out", type=Path, default=None, help="folder for the screenshots (default: none taken)")
    ap.add_argument("--study", default=None, help="the study whose section to screenshot (default: the first)")
    ap.add_argument("--first-screen", type=Path, default=None, help="write the first screen alone to this PNG")
    args = ap.parse_args(argv)
    if not args.report.is_file():
        ap.error(f"{args.report}: no such file")
    facts = measure(args.report, args.out, args.study, args.first_screen)
    print(f"{args.report}: {facts['height']} px tall at {WIDTH} px wide; "
          f"body overflows horizontally: {'yes' if facts['overflows'] else 'no'}")  # fmt: skip
    if args.out:
        print(f"screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
