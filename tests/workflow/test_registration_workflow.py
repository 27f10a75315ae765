"""Claims registered before their runs, through real Snakemake runs of a tiny config (the smoke config's
lesson study alone: 4 runs of 15 epochs; alpha 0.5, so that its 2 seeds decide a claim).

The registration is written before any job runs; a claim edited after its runs says so in its row,
naming what it was registered as and the registered claim's verdict, and a claim added after its runs
says that; the report counts them on its first screen; `make register`'s command registers the edit,
and the row no longer says so (it says instead that the registration came after the runs).
"""

import copy
import json
import shutil
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from ablation import registration
from conftest import REPO, copy_project, snakemake

SMOKE = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
CLAIMS = "results/lesson/tables/claims.csv"


def tiny() -> dict:
    cfg = {k: copy.deepcopy(v) for k, v in SMOKE.items() if k not in ("studies", "report")}
    cfg["outdir"] = "."
    cfg["stats"]["alpha"] = 0.5  # 2 seeds that agree give p = 1/4: decided at Holm over 2 claims
    cfg["studies"] = {"lesson": copy.deepcopy(SMOKE["studies"]["lesson"])}
    return cfg


def run(work, cfg: dict, *targets) -> pd.DataFrame:
    (work / "config" / "tiny.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    snakemake(work, "--cores", "2", "--configfile=config/tiny.yaml", *(targets or [CLAIMS]))
    return pd.read_csv(work / CLAIMS, keep_default_na=False).set_index("id")


@pytest.fixture(scope="module")
def first(tmp_path_factory):
    work = copy_project(tmp_path_factory.mktemp("registration"))
    return work, run(work, tiny())


def edit(cfg: dict) -> dict:
    """C2-pe-100's threshold 0.97 -> 0 (every seed reaches it) and a claim added, C3-late."""
    c2 = cfg["studies"]["lesson"]["claims"][1]
    assert c2["id"] == "C2-pe-100" and c2["threshold"] == 0.97
    c2["threshold"] = 0.0
    cfg["studies"]["lesson"]["claims"].append(c2 | {"id": "C3-late", "threshold": 0.5})
    return cfg


@pytest.fixture(scope="module")
def edited(first):
    work, before = first
    return work, before, run(work, edit(tiny()))


def test_the_registration_is_written_before_any_run_and_the_rows_say_nothing(first):
    work, rows = first
    reg = registration.load(work / "results" / "lesson" / registration.FILE)
    assert (reg["when"], reg["runs_existed"], reg["runs"], reg["seeds"]) == (registration.BEFORE, 0, 4, [0, 1])
    assert rows["registered"].tolist() == [e["sha256"] for e in reg["claims"]]
    assert (rows["changed_after_runs"] == "").all() and (rows["verdict_registered"] == rows["verdict"]).all()
    assert not rows["sentence"].str.contains("registered|changed after", case=False).any()


def test_a_claim_edited_after_its_runs_names_what_it_was_registered_as_and_its_verdict_then(edited):
    work, before, rows = edited
    row, was = rows.loc["C2-pe-100"], before.loc["C2-pe-100"]
    assert row["changed_after_runs"] == "threshold 0.97 → 0" and row["registered"] == was["registered"]
    assert (row["verdict"], row["verdict_registered"], was["verdict"]) == ("SUPPORTED", "CONTRADICTED", "CONTRADICTED")
    assert row["sentence"].endswith(f"; changed after its runs: threshold 0.97 → 0; under the registered claim: "
                                    f"{was['verdict']}.")  # fmt: skip
    late = rows.loc["C3-late"]
    assert (late["registered"], late["changed_after_runs"], late["verdict_registered"]) == ("", "added after its runs", "")
    assert late["sentence"].endswith("; added after its runs.")
    assert rows.loc["C1-chance", "changed_after_runs"] == "" and rows.loc["C1-chance", "sentence"] == before.loc[
        "C1-chance", "sentence"]  # fmt: skip


def test_the_reports_first_screen_counts_the_claims_changed_after_their_runs(edited):
    work, _, _ = edited
    run(work, edit(tiny()), "reports/ablation_report.html")
    html = (work / "reports" / "ablation_report.html").read_text(encoding="utf-8")
    first_screen = html[html.index('<section id="first-screen">'): html.index("</section>")]
    assert ('id="registration-summary">Changed after their runs: <b>2 of 3</b> claims (C2-pe-100, C3-late'
            in first_screen)  # fmt: skip
    assert first_screen.count('<strong class="changed" title="threshold 0.97 → 0">changed after its runs</strong>') == 1


def test_make_register_registers_the_edit_and_the_row_no_longer_says_so(edited, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(edited[0], work, symlinks=True)
    before = edited[1]
    made = subprocess.run(["make", "-n", "register", "STUDY=lesson", "CONFIG=config/tiny.yaml"], cwd=REPO,
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "-m ablation.registration register config/tiny.yaml --studies lesson" in made  # what make register runs
    subprocess.run([sys.executable, "-m", "ablation.registration", "register", "config/tiny.yaml", "--studies", "lesson"],
                   cwd=work, check=True, capture_output=True)  # fmt: skip
    reg = json.loads((work / "results" / "lesson" / registration.FILE).read_text())
    assert (reg["when"], reg["runs_existed"]) == (registration.AFTER, 4)
    rows = run(work, edit(tiny()))
    assert (rows["changed_after_runs"] == "").all() and (rows["verdict_registered"] == rows["verdict"]).all()
    assert rows.loc["C2-pe-100", "registered"] == reg["claims"][1]["sha256"] != before.loc["C2-pe-100", "registered"]
    assert rows["sentence"].str.endswith("; registered after 4 of its 4 runs existed.").all()
    assert "changed after its runs" not in " ".join(rows["sentence"])
