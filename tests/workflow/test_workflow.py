"""Integration tests: the real Snakemake DAG on config/smoke.yaml in a temporary copy of the project."""

import csv
import itertools
import json
import re
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from ablation import config as C
from ablation import design
from ablation import outputs
from ablation.store import LOG, RUN_FILES, STORE
from conftest import REPO, copy_project, snakemake, snakemake_log

SMOKE = C.load(REPO / "config" / "smoke.yaml")
RESULTS, REPORTS = Path(SMOKE.outdir, "results"), Path(SMOKE.outdir, "reports")
# every declared table and figure (ablation.outputs), and the files the rules write beside them
STUDY_FILES = (
    "runs.csv",
    "curves.csv",
    "init_grads.csv",
    "tables/cells.md",
    "tables/cells.html",
    *(out.file for out in (*outputs.TABLES, *outputs.FIGURES)),
)


def job_counts(dry_run_output: str) -> dict[str, int]:
    """The 'Job stats' table of a Snakemake dry run, as {rule: count}."""
    counts = {}
    table = dry_run_output.split("Job stats:", 1)[1]
    for line in table.splitlines()[3:]:
        m = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if not m:
            break
        counts[m.group(1)] = int(m.group(2))
    return counts


def test_dry_run_fans_out_one_training_job_per_combination_and_seed(tmp_path):
    work = copy_project(tmp_path)
    out = snakemake(work, "-n", "--configfile", "config/smoke.yaml").stdout
    counts = job_counts(out)
    expected = sum(
        len(s.seeds) * len(list(itertools.product(*s.factors.values()))) for s in SMOKE.studies.values()
    )
    distinct = {run.hash for s in SMOKE.studies.values() for run in s.runs()}
    assert expected == 60 and len(distinct) < expected  # studies share runs of the same settings
    assert counts["train"] == len(distinct)  # one training job per distinct settings
    assert counts["summarize"] == counts["analyze"] == counts["figures"] == counts["evaluations"] == len(SMOKE.studies)
    # one evaluate job per run of a study with eval_lengths (the position and length studies)
    assert counts["evaluate"] == sum(s.n_runs() for s in SMOKE.studies.values() if s.eval_lengths) == 16
    assert counts["report"] == 1


def test_default_config_fans_out_the_full_factorial(tmp_path):
    work = copy_project(tmp_path)
    counts = job_counts(snakemake(work, "-n").stdout)
    default = C.load(REPO / "config" / "config.yaml")
    assert default.studies["factorial"].n_runs() == 4 * 3 * 2 * 17  # heads x seq_len x norm x seeds
    # and the runs the scopes of its claims (robust_over) train in their other universes, at the same seeds (none
    # in the default config)
    scoped = {run.hash for s in default.studies.values() for run in design.scope_runs(s, s.seeds)}
    assert counts["train"] == len({run.hash for s in default.studies.values() for run in s.runs()} | scoped)


def test_smoke_run_produces_every_file(smoke_run):
    work, _ = smoke_run
    missing = []
    for name, study in SMOKE.studies.items():
        for run in study.runs():
            for f in RUN_FILES:
                if not (work / STORE / run.hash / f).is_file():
                    missing.append(f"{name}/{run.run_id}/{f}")
        for f in STUDY_FILES:
            path = work / RESULTS / name / f
            if not path.is_file() or path.stat().st_size == 0:
                missing.append(f"{name}/{f}")
        assert (work / RESULTS / name / "benchmarks" / "summarize.tsv").is_file()
    for f in (RESULTS / "checks.csv", RESULTS / "figures/positional_encoding.png", REPORTS / "ablation_report.html"):
        if not (work / f).is_file():
            missing.append(f)
    assert not missing, missing


def test_summary_has_one_row_per_combination(smoke_run):
    work, _ = smoke_run
    for name, study in SMOKE.studies.items():
        summary = pd.read_csv(work / RESULTS / name / "summary.csv", dtype={"run_id": str})
        assert len(summary) == study.n_runs()
        keys = summary[[*study.factor_names, "seed"]].astype(str).agg("/".join, axis=1)
        assert keys.is_unique
        expected = {
            "/".join([*(str(v) for v in combo.values()), str(seed)])
            for combo in study.combinations()
            for seed in study.seeds
        }
        assert set(keys) == expected
        assert set(summary["status"]) <= {"ok", "diverged"}


def test_no_positional_encoding_is_exactly_at_chance(smoke_run):
    work, _ = smoke_run
    for name in ("lesson", "factorial"):
        summary = pd.read_csv(work / RESULTS / name / "summary.csv")
        blind = summary[(summary["pos_enc"] == "none") & (summary["status"] == "ok")]
        assert len(blind) > 0
        # twins get the same logit: one right and one wrong prediction per pair, exactly half
        assert (blind["test_correct"] * 2 == blind["test_total"]).all(), blind[["run_id", "test_correct"]]
        assert (blind["test_acc"] == 0.5).all(), blind[["run_id", "test_acc"]]


def test_local_training_jobs_ran_in_the_fork_server_which_is_gone(smoke_run):
    work, proc = smoke_run
    launchers = {
        json.loads(path.read_text())["launcher"] for path in (work / STORE).glob("*/provenance.json")
    }
    assert launchers == {"fork-server"}
    address = re.search(r"ablation\.forkserver, (\S+)\)", proc.stdout + proc.stderr).group(1)
    assert not Path(address).parent.exists()  # onsuccess removed the socket's folder ...
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):  # ... and stopped the server
        try:
            assert address not in cmdline.read_bytes().decode(errors="replace"), cmdline
        except OSError:
            continue


def test_costliest_training_jobs_start_first(smoke_run):
    """The train rule's priority (ablation.settings.cost_estimate): all training jobs are ready at
    once, so Snakemake starts them in order of decreasing estimated cost (ties in any order)."""
    from ablation.settings import cost_estimate

    _, proc = smoke_run
    log = snakemake_log(proc)
    started = re.findall(r"rule train:\n(?:.*\n)*?\s+wildcards: hash=(\S+)", log)
    runs = {r.hash: r for study in SMOKE.studies.values() for r in study.runs()}
    assert len(started) == len(runs), len(started)
    costs = [cost_estimate(runs[key].settings) for key in started]
    assert len(set(costs)) > 3  # the smoke config has runs of different cost
    assert costs == sorted(costs, reverse=True), list(zip(started, costs))


def test_second_run_has_nothing_to_do(smoke_run):
    work, _ = smoke_run
    out = snakemake(work, "-n", "--configfile", "config/smoke.yaml")
    assert "Nothing to be done" in out.stdout + out.stderr


def test_report_is_self_contained(smoke_run):
    work, _ = smoke_run
    html = (work / REPORTS / "ablation_report.html").read_text()
    assert 'id="claims-table"' in html and 'id="claims-family"' in html and 'id="plan"' in html
    assert "src=\"data:image/png;base64," in html
    assert not re.search(r'src="(?!data:)', html), "every image is embedded"
    for name in SMOKE.studies:
        assert f'id="study-{name}"' in html


def test_snakemake_report_zip(smoke_run):
    work, _ = smoke_run
    snakemake(work, "--configfile", "config/smoke.yaml", "--report", "reports/snakemake-report.zip")
    with zipfile.ZipFile(work / "reports" / "snakemake-report.zip") as zf:
        names = zf.namelist()
    assert any(n.endswith("accuracy_by_factor.png") for n in names)
    assert any(n.endswith("claims.csv") for n in names)


def test_every_job_has_a_log_and_a_benchmark(smoke_run):
    work, _ = smoke_run
    study = SMOKE.studies["lesson"]
    for run in study.runs():
        assert (work / STORE / run.hash / LOG).is_file()
        bench = work / STORE / run.hash / "benchmark.tsv"
        with open(bench) as fh:
            assert "max_rss" in next(csv.reader(fh, delimiter="\t"))


def test_lint_and_format_are_clean(tmp_path):
    work = copy_project(tmp_path)
    lint = snakemake(work, "--lint", check=False)
    assert "Congratulations, your workflow is in a good condition" in lint.stdout + lint.stderr, lint.stdout
    import subprocess

    from conftest import BIN

    fmt = subprocess.run([str(BIN / "snakefmt"), "--check", "workflow"], cwd=work, capture_output=True, text=True)
    assert fmt.returncode == 0, fmt.stderr


@pytest.mark.parametrize("bad", ["haeds"])
def test_bad_config_fails_before_any_job(tmp_path, bad):
    import yaml

    work = copy_project(tmp_path)
    cfg = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
    cfg["studies"]["factorial"]["factors"][bad] = cfg["studies"]["factorial"]["factors"].pop("heads")
    (work / "config" / "bad.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "--cores", "1", "--configfile", "config/bad.yaml", check=False)
    assert proc.returncode != 0
    assert "study 'factorial': factors.haeds: unknown setting (did you mean 'heads'?)" in proc.stderr
    assert not any((work / "results").iterdir())


def test_claims_are_holm_adjusted_within_each_study(smoke_run):
    # each study's claims.csv holds its own claims, Holm-adjusted over the study's non-exact claims
    work, _ = smoke_run
    tables = {name: pd.read_csv(work / RESULTS / name / "tables" / "claims.csv") for name in SMOKE.studies}
    assert [list(t["id"]) for t in tables.values()] == [[c.id for c in study.claims] for study in SMOKE.studies.values()]
    for name, table in tables.items():
        exact = table["estimand"] == "exact"
        assert table.loc[exact, "p_value"].isna().all() and table.loc[exact, "family"].isna().all()
        family = table[~exact].reset_index(drop=True)
        m = len(family)
        assert (family["family"] == f"study {name}").all()
        order = family["p_value"].sort_values(kind="stable")
        expected = (order * (m - pd.Series(range(m), index=order.index))).cummax().clip(upper=1.0)
        assert family["p_holm"].to_numpy() == pytest.approx(expected.reindex(family.index).to_numpy())
    family = pd.concat(tables.values(), ignore_index=True)
    assert (family["n"] <= 2).all()


def test_every_evaluated_run_scores_its_test_acc_at_its_trained_length_and_the_others_evaluate_nothing(smoke_run):
    """The evaluate stage reads each run's weights: at seq_len its main metric is the training job's
    test_acc, as written (the order task's accuracy in the position study, the copy task's exact match
    in the length study); a study without eval_lengths has an empty evaluations.csv and says so in
    its figure."""
    from ablation.plots import empty_reason

    work, _ = smoke_run
    for name, study in SMOKE.studies.items():
        evaluations = pd.read_csv(work / RESULTS / name / "evaluations.csv", dtype={"value": str})
        if not study.eval_lengths:
            assert evaluations.empty and empty_reason(work / RESULTS / name / "figures/length_generalization.png")
            continue
        summary = pd.read_csv(work / RESULTS / name / "summary.csv", dtype={"test_acc": str})
        main = evaluations[evaluations["metric"] == evaluations["metric"].iloc[0]]
        at_seq_len = main.merge(summary[["run_id", "seq_len", "test_acc"]], on="run_id")
        at_seq_len = at_seq_len[at_seq_len["length"] == at_seq_len["seq_len"]]
        assert len(at_seq_len) == len(summary) and (at_seq_len["value"] == at_seq_len["test_acc"]).all(), name
        lengths = {len(set(g)) for _, g in main.groupby("run_id")["length"]}
        assert lengths == {len(set(study.eval_lengths) | ({8} if name == "position" else {1, 2, 3}))}, name
        assert not empty_reason(work / RESULTS / name / "figures/length_generalization.png")
