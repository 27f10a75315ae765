"""The HTML report in a real browser (Debian's chromium driven by Playwright), at 1280 px wide: the
page body does not overflow horizontally (wide tables scroll in their own box), every image decodes,
the page logs no errors and requests nothing from the network, the first screen holds the verdict
table, and the sortable tables come alive. A screenshot is kept in the test's temporary folder."""

import shutil

import pytest

from ablation import config as C
from conftest import REPO

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WIDTH, HEIGHT = 1280, 900
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)"),
]


def test_report_renders_in_chromium(smoke_run, tmp_path):
    from playwright.sync_api import sync_playwright

    work, _ = smoke_run
    cfg = C.load(REPO / "config" / "smoke.yaml")
    report = work / cfg.outdir / "reports" / "ablation_report.html"
    errors, requests = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("requestfailed", lambda req: errors.append(f"request failed: {req.url}"))
            page.on("request", lambda req: req.url.startswith(("http:", "https:")) and requests.append(req.url))
            page.goto(report.as_uri(), wait_until="load")
            page.wait_for_selector("table.dataTable", state="attached", timeout=15_000)  # itables ran, offline
            images = page.eval_on_selector_all(
                "img", "imgs => imgs.map(i => ({alt: i.alt, ok: i.complete && i.naturalWidth > 0}))"
            )
            widths = page.evaluate(
                "() => ({body: document.body.scrollWidth, doc: document.documentElement.scrollWidth,"
                " view: window.innerWidth})"
            )
            verdict_top = page.locator("#verdict-table").bounding_box()["y"]
            verdict_rows = page.locator("#verdict-table tbody tr").count()
            verdicts = page.locator("#verdict-table .verdict").all_inner_texts()
            page.screenshot(path=str(tmp_path / "first_screen.png"))
            page.screenshot(path=str(tmp_path / "ablation_report.png"), full_page=True)
        finally:
            browser.close()
    assert (tmp_path / "first_screen.png").stat().st_size > 0
    n_claims = sum(len(s.claims) for s in cfg.studies.values())
    assert verdict_top < HEIGHT, f"the verdict table starts at {verdict_top} px, below the first screen"
    assert verdict_rows == n_claims
    assert set(verdicts) <= {"SUPPORTED", "CONTRADICTED", "INCONCLUSIVE"} and verdicts
    assert widths["body"] <= widths["view"] and widths["doc"] <= widths["view"], widths
    assert images, "no image in the report"
    broken = [i["alt"] for i in images if not i["ok"]]
    assert not broken, f"images that do not decode: {broken}"
    assert not errors, errors
    assert not requests, f"the report fetched from the network: {requests}"


def test_the_first_screen_holds_the_reproduction_line_and_one_sentence_a_verdict(smoke_run, tmp_path):
    """At 1280 x 900: the reproduction line and the verdict table start on the first screen; each
    verdict row is its sentence (the tests and Holm steps folded), and a click unfolds them."""
    from playwright.sync_api import sync_playwright

    work, _ = smoke_run
    cfg = C.load(REPO / "config" / "smoke.yaml")
    report = work / cfg.outdir / "reports" / "ablation_report.html"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.goto(report.as_uri(), wait_until="load")
            line = page.locator("#reproduction-summary")
            line_box, line_text = line.bounding_box(), line.inner_text()
            rows = page.locator("#verdict-table tbody tr")
            line_height = float(page.evaluate(
                "() => parseFloat(getComputedStyle(document.querySelector('#verdict-table td.sentence')).lineHeight)"))  # fmt: skip
            heights = [rows.nth(i).bounding_box()["height"] for i in range(rows.count())]
            steps = page.locator("#verdict-table details.steps").first
            folded = steps.evaluate("d => d.open")
            steps.locator("summary").click()
            unfolded = steps.evaluate("d => d.open") and "Holm" in steps.inner_text()
            page.screenshot(path=str(tmp_path / "first_screen.png"))
        finally:
            browser.close()
    assert line_box["y"] + line_box["height"] < HEIGHT and line_text.startswith("Reproduction:")
    assert max(heights) <= 3.5 * line_height, heights  # a sentence: at most three lines at 1280 px
    assert not folded and unfolded
