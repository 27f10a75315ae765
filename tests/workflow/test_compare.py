"""The reproduction check (ablation.compare): a reference written from a results folder, and two
folders compared run by run and claim by claim."""

import json
import subprocess
import sys

import pandas as pd
import pytest

from ablation import compare
from ablation import config as C
from conftest import REPO


def _study(folder, study="s", acc=(0.5, 0.75, 1.0), sha=("a", "b", "c"), verdicts=("SUPPORTED", "INCONCLUSIVE")):
    d = folder / study
    (d / "tables").mkdir(parents=True)
    pd.DataFrame({
        "study": study, "run_id": [f"x~{i}/seed~{i}" for i in range(len(acc))], "seed": range(len(acc)),
        "test_acc": acc, "status": "ok", "params_sha256": sha, "train_seconds": 1.0,
    }).to_csv(d / "summary.csv", index=False)  # fmt: skip
    pd.DataFrame({"id": [f"C{i}" for i in range(len(verdicts))], "verdict": verdicts, "estimate": 0.5}).to_csv(
        d / "tables" / "claims.csv", index=False
    )
    return folder


def test_a_folder_against_its_own_reference_is_identical(tmp_path):
    results = _study(tmp_path / "results")
    written = compare.write_reference(results, tmp_path / "reference")
    assert {p.name for p in written} == {"summary.csv", "claims.csv", "environment.json"}
    trimmed = pd.read_csv(tmp_path / "reference" / "s" / "summary.csv")
    assert list(trimmed.columns) == ["run_id", "test_acc", "status", "params_sha256", "train_seconds"]
    [r] = compare.compare(results, tmp_path / "reference")
    assert (r["compared"], r["identical"], r["differing"], r["verdicts_differing"]) == (3, 3, [], [])
    assert r["largest_test_acc_diff"]["difference"] == 0


def test_make_reference_with_study_rewrites_those_studies_and_leaves_the_others_as_they_are(tmp_path):
    results = _study(_study(tmp_path / "results", "a"), "b", acc=(0.25, 0.5, 0.75))
    reference = tmp_path / "reference"
    (reference / "c").mkdir(parents=True)
    (reference / "c" / "summary.csv").write_text("kept\n")
    out = subprocess.run([sys.executable, "-m", "ablation.compare", "reference", str(results), "--out", str(reference),
                          "--studies", "b"], capture_output=True, text=True, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in reference.iterdir()) == ["b", "c"]
    assert pd.read_csv(reference / "b" / "summary.csv")["test_acc"].tolist() == [0.25, 0.5, 0.75]
    assert (reference / "c" / "summary.csv").read_text() == "kept\n"


def test_the_reference_keeps_evaluations_and_the_scope_runs_and_compare_checks_the_scope_runs(tmp_path):
    results = _study(tmp_path / "results")
    pd.DataFrame({"run_id": ["x~0/seed~0"], "length": [9], "metric": ["exact_match"], "value": [0.5]}).to_csv(
        results / "s" / "evaluations.csv", index=False
    )
    (results / "s" / "scope").mkdir()
    scope_runs = pd.DataFrame({"run_id": ["lr~0.003/x~0/seed~0", "lr~0.003/x~1/seed~1"], "test_acc": [0.25, 0.5],
                               "status": "ok", "params_sha256": ["s0", "s1"], "train_seconds": 1.0})  # fmt: skip
    scope_runs.to_csv(results / "s" / "scope" / "summary.csv", index=False)
    pd.DataFrame({"id": ["C0"], "universe": ["lr=0.003"], "verdict": ["SUPPORTED"]}).to_csv(
        results / "s" / "tables" / "scope.csv", index=False
    )
    written = compare.write_reference(results, tmp_path / "reference")
    kept = {p.relative_to(tmp_path / "reference" / "s").as_posix() for p in written}
    assert {"evaluations.csv", "scope/summary.csv", "scope/scope.csv"} <= kept
    assert pd.read_csv(tmp_path / "reference" / "s" / "evaluations.csv")["value"].tolist() == [0.5]
    [r] = compare.compare(results, tmp_path / "reference")
    assert (r["compared"], r["identical"]) == (5, 5)  # 3 runs of the study and 2 of its scope
    scope_runs.assign(params_sha256=["s0", "CHANGED"]).to_csv(tmp_path / "reference" / "s" / "scope" / "summary.csv", index=False)
    [r] = compare.compare(results, tmp_path / "reference")
    assert r["identical"] == 4 and r["differing"] == ["lr~0.003/x~1/seed~1"]


def test_differences_are_named(tmp_path):
    here = _study(tmp_path / "here")
    ref = _study(tmp_path / "ref", acc=(0.5, 0.7, 1.0), sha=("a", "B", "c"), verdicts=("SUPPORTED", "CONTRADICTED"))
    [r] = compare.compare(here, ref)
    assert r["identical"] == 2 and r["differing"] == ["x~1/seed~1"]
    assert r["largest_test_acc_diff"]["run_id"] == "x~1/seed~1"
    assert r["largest_test_acc_diff"]["difference"] == pytest.approx(0.05)
    assert r["verdicts_differing"] == [{"id": "C1", "here": "INCONCLUSIVE", "reference": "CONTRADICTED"}]
    text = "\n".join(compare.lines(r))
    assert "2 of 3 runs bit-identical" in text and "5.00 percentage points" in text
    assert "C1: INCONCLUSIVE here, CONTRADICTED in the reference" in text


def test_runs_match_on_the_hash_of_their_settings_when_both_sides_have_it(tmp_path):
    here, ref = _study(tmp_path / "here"), _study(tmp_path / "ref")
    for folder, hashes in ((here, ["h0", "h1", "h2"]), (ref, ["h9", "h1", "h2"])):  # run 0: other settings
        pd.DataFrame({"run_id": [f"x~{i}/seed~{i}" for i in range(3)], "hash": hashes}).to_csv(
            folder / "s" / "runs.csv", index=False
        )
    [r] = compare.compare(here, ref)
    assert (r["compared"], r["only_here"], r["only_ref"]) == (2, 1, 1)


def _environment(folder, study="s", **values):
    env = {"cpu_model": "Intel(R) Xeon(R) Processor", "cpu_capability": "AVX512", "torch": "2.13.0+cpu"} | values
    (folder / study / "environment.json").write_text(json.dumps(env))


def test_the_overview_says_first_whether_the_verdicts_are_equal_then_why_runs_differ(tmp_path):
    here = _study(tmp_path / "here", sha=("x", "y", "z"))
    ref = _study(tmp_path / "ref")
    _environment(here, cpu_model="AMD EPYC", cpu_capability="AVX2")
    _environment(ref)
    first, runs = compare.overview(compare.compare(here, ref))["sentences"]
    assert first == "Verdicts: all 2 equal to the reference's."
    assert runs == ("Runs: 0 of 3 bit-identical: bit-identity needs the same CPU, and this run's (AMD EPYC, AVX2) "
                    "differs from the reference's (Intel(R) Xeon(R) Processor, AVX512), so their last bits can differ.")  # fmt: skip


def test_on_the_same_cpu_the_overview_names_what_else_differs(tmp_path):
    here = _study(tmp_path / "here", sha=("a", "b", "Z"), verdicts=("SUPPORTED", "CONTRADICTED"))
    ref = _study(tmp_path / "ref")
    _environment(here, torch="2.14.0+cpu")
    _environment(ref)
    overview = compare.overview(compare.compare(here, ref))
    first, runs = overview["sentences"]
    assert first == "Verdicts: 1 of 2 differ from the reference's (C1: CONTRADICTED here, INCONCLUSIVE there)."
    assert runs == "Runs: 2 of 3 bit-identical on the same CPU (Intel(R) Xeon(R) Processor, AVX512): torch differ."
    _environment(here)
    _, runs = compare.overview(compare.compare(here, ref))["sentences"]
    assert runs.endswith("nothing recorded differs, so look at the runs that differ.")


def test_studies_without_a_run_in_common_compare_no_verdict(tmp_path):
    here, ref = _study(tmp_path / "here"), _study(tmp_path / "ref")
    for folder, hashes in ((here, ["h0", "h1", "h2"]), (ref, ["h7", "h8", "h9"])):
        pd.DataFrame({"run_id": [f"x~{i}/seed~{i}" for i in range(3)], "hash": hashes}).to_csv(
            folder / "s" / "runs.csv", index=False
        )
    overview = compare.overview(compare.compare(here, ref))
    assert overview["sentences"] == ["No run in common with the reference: its runs have other settings, so no "
                                     "verdict and no run is compared."]  # fmt: skip
    assert overview["no_run_in_common"] == ["s"]


def _provenance(store, run_hash, cpu_model):
    (store / run_hash).mkdir(parents=True)
    (store / run_hash / "provenance.json").write_text(json.dumps({"cpu_model": cpu_model, "torch": "2.13.0+cpu"}))


@pytest.mark.parametrize("outdir", [".", "smoke"])
def test_a_reference_reads_the_run_store_of_the_results_it_is_given(tmp_path, monkeypatch, outdir):
    """The results of <work>/<outdir>/results are trained in <work>/results/runs; a store of the same
    runs in the folder this process runs in (another machine's) is not theirs."""
    results = _study(tmp_path / "work" / outdir / "results")
    pd.DataFrame({"run_id": [f"x~{i}/seed~{i}" for i in range(3)], "hash": ["h0", "h1", "h2"]}).to_csv(
        results / "s" / "runs.csv", index=False
    )
    here = tmp_path / "elsewhere"
    for h in ("h0", "h1", "h2"):
        _provenance(tmp_path / "work" / "results" / "runs", h, "the results' machine")
        _provenance(here / "results" / "runs", h, "this folder's machine")
    monkeypatch.chdir(here)
    compare.write_reference(results, tmp_path / "reference")
    env = json.loads((tmp_path / "reference" / "s" / "environment.json").read_text())
    assert env["cpu_model"] == "the results' machine"


def test_a_study_whose_results_lost_their_scope_leaves_no_scope_in_its_reference(tmp_path):
    """A claim that no longer asks where it holds: the study's reference is rewritten without the
    scope runs an earlier reference kept, so the reference never holds runs its config does not ask for."""
    results = _study(tmp_path / "results")
    stale = tmp_path / "reference" / "s" / "scope"
    stale.mkdir(parents=True)
    (stale / "summary.csv").write_text("run_id,params_sha256\nlr~0.003/x~0/seed~0,s0\n")
    (tmp_path / "reference" / "s" / "published.csv").write_text("level\nnone\n")
    compare.write_reference(results, tmp_path / "reference")
    assert sorted(p.name for p in (tmp_path / "reference" / "s").iterdir()) == ["claims.csv", "environment.json", "summary.csv"]
    [r] = compare.compare(results, tmp_path / "reference")
    assert (r["compared"], r["identical"]) == (3, 3)


def test_the_reference_keeps_the_registration_and_compare_names_a_differing_one(tmp_path):
    from ablation import registration

    claim = {"id": "C2", "statement": "s", "kind": "at_least", "where": {"x": "a"}, "threshold": 0.97}
    study = C.Study("s", "", {}, {"x": ["a", "b"]}, [0, 1, 2], C.check_claims([claim], ["x"], ["x", "test_acc"]))
    results = _study(tmp_path / "results")
    (results / "s" / registration.FILE).write_text(json.dumps(registration.register(study, commit="abc", runs=6)))
    written = compare.write_reference(results, tmp_path / "reference")
    assert tmp_path / "reference" / "s" / registration.FILE in written
    [r] = compare.compare(results, tmp_path / "reference")
    assert "  registration: the same claims registered" in compare.lines(r)
    study.claims = C.check_claims([claim | {"threshold": 0.6}], ["x"], ["x", "test_acc"])
    (results / "s" / registration.FILE).write_text(json.dumps(registration.register(study, commit="def", runs=6)))
    proc = subprocess.run([sys.executable, "-m", "ablation.compare", "diff", str(results), str(tmp_path / "reference")],
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "  registration differs: C2: threshold 0.97 → 0.6 (the reference's → this one's)" in proc.stdout
    (tmp_path / "reference" / "s" / registration.FILE).unlink()
    [r] = compare.compare(results, tmp_path / "reference")
    assert "  registration: none in the reference" in compare.lines(r)


def test_the_cli_reports_a_missing_folder_in_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ablation.compare", "diff", str(tmp_path / "nope"), str(tmp_path)],
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 2 and proc.stderr.strip().count("\n") == 0 and "no such results folder" in proc.stderr


def test_verified_line_counts_identical_runs_and_fails_on_a_mismatch(tmp_path):
    path = tmp_path / "verify.csv"
    pd.DataFrame({"study": ["s", "s"], "run_id": ["a", "b"], "identical": [True, True]}).to_csv(path, index=False)
    assert compare.verified_line(path) == ("2 of 2 runs reproduced bit-identically", True)
    pd.DataFrame({"study": ["s", "s"], "run_id": ["a", "b"], "identical": [True, False]}).to_csv(path, index=False)
    line, ok = compare.verified_line(path)
    assert not ok and line == "1 of 2 runs reproduced bit-identically; differ: s/b"


def test_reference_of_a_real_smoke_run_and_the_report_section(smoke_run, tmp_path):
    """`make reference` on the smoke run's results, then the reproduction check against it: every
    run identical, with the machine and software of both sides; and the report says so."""
    from ablation.report import build

    work, _ = smoke_run
    cfg = C.load(REPO / "config" / "smoke.yaml")
    results = work / cfg.outdir / "results"
    ref = tmp_path / "reference"
    proc = subprocess.run([sys.executable, "-m", "ablation.compare", "reference", str(results), "--out", str(ref)],
                          cwd=work, capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in ref.iterdir()) == sorted(cfg.studies)
    env = json.loads((ref / "lesson" / "environment.json").read_text())
    assert {"cpu_capability", "torch", "numpy", "python"} <= set(env)
    proc = subprocess.run([sys.executable, "-m", "ablation.compare", "diff", str(results), str(ref)],
                          cwd=work, capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    for name, study in cfg.studies.items():
        n = len(list(study.runs()))
        assert f"{name}: {n} of {n} runs bit-identical" in proc.stdout
    html = build(cfg.raw, list(cfg.studies), results, "make reproduce", reference=ref)
    assert 'id="reproduction"' in html and "No reference is committed" not in html
    assert html.count("runs bit-identical to the reference") == len(cfg.studies)
    missing = build(cfg.raw, list(cfg.studies), results, "make reproduce", reference=tmp_path / "none")
    assert "No reference is committed" in missing
