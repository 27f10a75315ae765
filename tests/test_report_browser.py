"""The HTML report in a real browser (Debian's chromium driven by Playwright): every image decodes,
the page logs no errors, the claims table is there. A full-page screenshot is kept as an artefact
in tests/artifacts/ (git-ignored)."""

import shutil

import pytest

from ablation import config as C
from conftest import REPO

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = REPO / "tests" / "artifacts"
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


def test_report_renders_in_chromium(smoke_run):
    from playwright.sync_api import sync_playwright

    work, _ = smoke_run
    report = work / C.load(REPO / "config" / "smoke.yaml").outdir / "reports" / "ablation_report.html"
    errors = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("requestfailed", lambda req: errors.append(f"request failed: {req.url}"))
            page.goto(report.as_uri(), wait_until="load")
            images = page.eval_on_selector_all(
                "img", "imgs => imgs.map(i => ({alt: i.alt, ok: i.complete && i.naturalWidth > 0}))"
            )
            claims_rows = page.locator("#claims-table tbody tr").count()
            verdicts = page.locator("#claims-table .verdict").all_inner_texts()
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "ablation_report.png"), full_page=True)
        finally:
            browser.close()
    assert len(images) >= 1 + 4 * 3, images  # the PE heatmap and four figures per study
    broken = [i["alt"] for i in images if not i["ok"]]
    assert not broken, f"images that do not decode: {broken}"
    assert not errors, errors
    assert claims_rows == sum(len(s.claims) for s in C.load(REPO / "config" / "smoke.yaml").studies.values())
    assert set(verdicts) <= {"SUPPORTED", "CONTRADICTED", "INCONCLUSIVE"}
