"""Your own ablation: docs/own-ablation.md's block, run as written in a fresh
folder (``ABLATION`` set to this checkout, the module's source: no network), deploys the pipeline
as a Snakemake module beside a plugin that registers a positional encoding and a task of its own;
the real Snakemake run trains, aggregates and writes the report there, whose tables name both.

It writes the layout ``snakedeploy deploy-workflow`` writes (workflow/Snakefile with the module
declaration, config/) itself: snakedeploy's local provider declares the module's Snakefile by a
path relative to the destination (the destination's own Snakefile), so it cannot deploy from a
checkout offline.

Then the plugin's failures, each one line before any job with nothing written, and the plugin's
identity: editing its source plans its runs anew and leaves the built-in runs alone.
"""

import os
import re
import shutil
import subprocess

import pandas as pd
import pytest

from ablation import outputs
from conftest import BIN, REPO, snakemake

SECTION = re.search(r"^## Step by step\n(.*?)^## ", (REPO / "docs" / "own-ablation.md").read_text(), re.S | re.M)[1]
BLOCK = re.search(r"```bash\n(.*?)```", SECTION, re.S)[1]
ABLATION_LINE = BLOCK.splitlines()[0]
RUN_LINE = "$ABLATION/.venv/bin/snakemake --cores all"


def _follow(folder, upto_run: bool = True) -> subprocess.CompletedProcess:
    """The page's block in ``folder`` as written, but for its first line (``ABLATION=<this
    checkout>``) and, when Snakemake is not this venv's, the path of the snakemake it calls."""
    assert ABLATION_LINE.startswith("ABLATION=") and BLOCK.rstrip().endswith(RUN_LINE)
    script = BLOCK.replace(ABLATION_LINE, f"ABLATION={REPO}", 1)
    if (REPO / ".venv" / "bin") != BIN:
        script = script.replace("$ABLATION/.venv/bin/snakemake", str(BIN / "snakemake"))
    if not upto_run:
        script = script.replace(RUN_LINE, "")
    env = {k: v for k, v in os.environ.items() if k != "ABLATION_FORK_SERVER"}
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=folder, capture_output=True, text=True,
                          timeout=900, env=env)  # fmt: skip


@pytest.fixture(scope="module")
def own(tmp_path_factory):
    folder = tmp_path_factory.mktemp("own")
    proc = _follow(folder)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    return folder / "my-ablation"


@pytest.mark.slow  # a Snakemake run of its own, a minute or more on 2 cores
def test_the_docs_block_runs_the_pipeline_as_a_module_on_a_plugin_variant_and_task(own):
    written = {p.name for p in own.iterdir()} - {".snakemake", "__pycache__"}  # Snakemake's and Python's own
    assert written == {"config", "my_plugin.py", "reports", "results", "workflow"}
    summary = pd.read_csv(own / "results" / "mine" / "summary.csv")
    assert len(summary) == 20 and set(summary["status"]) == {"ok"}
    assert sorted(summary["pos_enc"].unique()) == ["none", "ramp"]
    assert sorted(summary["task"].unique()) == ["order", "sign_at"]
    # a task without twins is judged on its own test set: n_test sequences, no certificate
    sign = summary[summary["task"] == "sign_at"]
    assert (sign["test_total"] == 8).all() and sign["twin_logit_gap"].isna().all()
    assert (summary[summary["task"] == "order"]["test_total"] == 16).all()
    # the study's eval_lengths: every run at 12 and at its own length, by the metric its task declares
    evaluations = pd.read_csv(own / "results" / "mine" / "evaluations.csv")
    assert sorted(evaluations["length"].unique()) == [8, 12] and len(evaluations) == 40
    metric = dict(zip(evaluations["task"], evaluations["metric"]))
    assert metric == {"order": "accuracy", "sign_at": "sign_accuracy"}
    at_8 = evaluations[evaluations["length"] == 8].merge(summary[["run_id", "test_acc"]], on="run_id")
    assert (at_8["value"] == at_8["test_acc"]).all() and at_8["trained"].all()
    for table in (t for t in outputs.TABLES if t.by_level):
        text = (own / "results" / "mine" / table.file).read_text(encoding="utf-8")
        assert "ramp" in text and "sign_at" in text, table.name
    html = (own / "reports" / "ablation_report.html").read_text(encoding="utf-8")
    tables = re.findall(r"<table.*?</table>", html, re.S)
    assert sum("ramp" in table and "sign_at" in table for table in tables) >= 3  # cells, stability, comparisons
    assert len(list((own / "results" / "runs").iterdir())) == 20  # the run store is the user's
    # the claim on the plugin task's own metric at a test length: per seed, sign_accuracy at 12 averaged
    # over both encodings' runs, five seeds, a verdict with its p
    [claim] = pd.read_csv(own / "results" / "mine" / "tables" / "claims.csv").to_dict("records")
    at_12 = evaluations[(evaluations["task"] == "sign_at") & (evaluations["length"] == 12)]
    per_seed = at_12.groupby("seed")["value"].mean()
    assert claim["id"] == "sign-read-at-12" and claim["n"] == 5 and 0 < claim["p_value"] <= 1
    assert claim["share"] == pytest.approx((per_seed >= 0.5).mean())
    assert claim["verdict"] in ("SUPPORTED", "CONTRADICTED", "INCONCLUSIVE") and "sign-read-at-12" in html


def _planned_trainings(folder) -> set[str]:
    """The run hashes a dry run would train."""
    proc = snakemake(folder, "-n", "--cores", "2")
    return set(re.findall(r"(?:local)?rule train:\s+output: results/runs/([0-9a-f]{16})/metrics\.csv", proc.stdout))


@pytest.mark.slow  # a Snakemake run of its own, a minute or more on 2 cores
def test_editing_the_plugin_plans_its_runs_anew_and_leaves_the_built_in_runs_alone(own, tmp_path):
    folder = tmp_path / "my-ablation"
    shutil.copytree(own, folder, symlinks=True)
    assert _planned_trainings(folder) == set()
    index = pd.read_csv(folder / "results" / "mine" / "runs.csv")
    built_in = (index["pos_enc"] == "none") & (index["task"] == "order")
    plugin = folder / "my_plugin.py"
    plugin.write_text(plugin.read_text(encoding="utf-8") + "\n# a comment is a change of the plugin's source\n")
    planned = _planned_trainings(folder)
    assert len(planned) == int((~built_in).sum()) == 15  # every run that uses ramp or sign_at
    assert not planned & set(index["hash"])  # under new hashes: the old runs stay in the store
    snakemake(folder, "--cores", "2", "results/mine/runs.csv")
    again = pd.read_csv(folder / "results" / "mine" / "runs.csv")
    assert list(again.loc[built_in, "hash"]) == list(index.loc[built_in, "hash"])


BAD = [
    ("misspelt-variant", "config/config.yaml", ("[none, ramp]", "[none, rampp]"),
     "config error: study 'mine': factors.pos_enc[1]: 'rampp' is not one of none, sinusoidal, learned, rope, alibi, t5; "
     "plugins: ramp (my_plugin) (did you mean 'ramp'?)"),
    ("task-setting-type", "config/config.yaml",
     ("      task: [order, sign_at]", "      task: [sign_at]\n    fixed: {task_settings: {position: two}}"),
     "config error: study 'mine': fixed.task_settings: task sign_at: position: got a string 'two', expected an integer"),
    ("plugin-raises", "my_plugin.py", ('"""My own positional encoding and task."""', 'raise RuntimeError("not ready")'),
     "config error: plugins: 'my_plugin' failed to import: RuntimeError: not ready"),
]  # fmt: skip


@pytest.mark.parametrize("name,path,edit,message", BAD, ids=[case[0] for case in BAD])
def test_a_bad_plugin_or_name_is_one_line_before_any_job_and_nothing_is_written(tmp_path, name, path, edit, message):
    assert _follow(tmp_path, upto_run=False).returncode == 0
    folder = tmp_path / "my-ablation"
    text = (folder / path).read_text(encoding="utf-8")
    assert text.count(edit[0]) == 1
    (folder / path).write_text(text.replace(*edit), encoding="utf-8")
    proc = snakemake(folder, "--cores", "1", check=False, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert [line for line in out.splitlines() if line.startswith("config error:")] == [message], out
    assert not (folder / "results").exists() and not (folder / "reports").exists()
    assert "Job stats" not in out and "rule train" not in out
