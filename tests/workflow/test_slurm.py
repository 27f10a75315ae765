"""The pipeline on a real SLURM scheduler, through the cluster profile workflow/profiles/slurm.

tests/cluster/slurm.sh starts a throwaway single-node SLURM cluster (root, Debian packages); the
smoke config then runs in a temp copy of the project with

    timeout --foreground -s INT -k 30 <N> snakemake --workflow-profile workflow/profiles/slurm \
        --configfile config/smoke.yaml

(partition from $SBATCH_PARTITION, as a user would set it), and the tests check SLURM's own record
of the run (squeue, watched while it runs), the kept SLURM logs, and the results against the local
run of the same config (conftest's `smoke_run`). A second, tiny config checks the GPU request and
what a failing cluster job does. The cluster is stopped at the end, also when a test fails.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml

from ablation import config as C
from ablation.store import LOG, STORE
from conftest import REPO, copy_project, skip_outside_ci, snakemake_log

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cluster"))
import slurm_records as sr  # noqa: E402

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

SMOKE = C.load(REPO / "config" / "smoke.yaml")
N_TRAIN = len({run.hash for s in SMOKE.studies.values() for run in s.runs()})  # studies share runs in the store
# Seconds allowed to one Snakemake run (the smoke config takes about 6-7 min on 2 idle cores).
RUN_TIMEOUT = int(os.environ.get("SLURM_TEST_RUN_TIMEOUT", "1800"))
LOCAL_RULES = {
    "index",
    "summarize",
    "analyze",
    "figures",
    "positional_encoding_figure",
    "implementation_checks",
    "report",
}
SLURM_BINARIES = ("/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd")


def _slurm_installed() -> bool:
    return all(Path(b).exists() for b in SLURM_BINARIES) and all(
        shutil.which(b) for b in ("sbatch", "squeue", "scontrol", "sinfo")
    )


def _cannot_run() -> str | None:
    if not sys.platform.startswith("linux"):
        return f"needs Linux (a local SLURM cluster from Debian packages), not {sys.platform}"
    if os.geteuid() != 0:
        return "needs root: tests/cluster/slurm.sh installs SLURM and starts munged/slurmctld/slurmd"
    if shutil.which("timeout") is None:
        return "needs coreutils' timeout"
    if not _slurm_installed() and not (shutil.which("apt-get") and shutil.which("dpkg-query")):
        return "SLURM is not installed and there is no apt-get to install it (tests/cluster/slurm.sh install)"
    return None


def _tail(text: str, n: int = 6000) -> str:
    return text[-n:]


@pytest.fixture(scope="module")
def slurm_partition():
    """A running SLURM cluster (its partition name); stopped again when the module is done."""
    reason = _cannot_run()
    if reason:
        pytest.skip(reason)
    if not _slurm_installed():
        inst = sr.slurm_sh("install", timeout_s=900)
        if inst.returncode != 0:
            skip_outside_ci(f"could not install SLURM (tests/cluster/slurm.sh install): {_tail(inst.stderr, 2000)}")
    try:
        up = sr.slurm_sh("up", timeout_s=300)
        assert up.returncode == 0, f"tests/cluster/slurm.sh up failed:\n{_tail(up.stderr)}"
        yield up.stdout.strip().splitlines()[-1]
    finally:
        down = sr.slurm_sh("down", timeout_s=300)
        if down.returncode != 0:
            print(f"tests/cluster/slurm.sh down failed:\n{down.stderr}", file=sys.stderr)


@pytest.mark.parametrize("ci, outcome", [("true", pytest.fail.Exception), ("", pytest.skip.Exception)])
def test_a_failed_install_fails_in_ci_and_skips_elsewhere(monkeypatch, ci, outcome):
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="could not install SLURM"):
        skip_outside_ci("could not install SLURM (tests/cluster/slurm.sh install): E: Unable to locate package")


def _env(partition: str) -> dict:
    env = os.environ.copy()
    env["SBATCH_PARTITION"] = partition  # read by the profile (and by sbatch itself)
    env.pop("SBATCH_ACCOUNT", None)  # the test cluster has no accounts
    return env


@pytest.fixture(scope="module")
def slurm_smoke(slurm_partition, tmp_path_factory):
    """config/smoke.yaml through the SLURM profile, watched with squeue."""
    work = copy_project(tmp_path_factory.mktemp("slurm_smoke"))
    args = [
        "--workflow-profile",
        sr.PROFILE,
        "--configfile",
        "config/smoke.yaml",
        # test-only: quicker first status check than the profile's, and keep the SLURM logs of
        # successful jobs (they say which run each array task trained)
        "--slurm-init-seconds-before-status-checks",
        "2",
        "--slurm-keep-successful-logs",
    ]
    with sr.SqueueWatcher() as watch:
        proc, wall = sr.run_snakemake(work, args, RUN_TIMEOUT, env=_env(slurm_partition))
    log = sr.parse_log(snakemake_log(proc))  # every job's block: the log file (the screen has a line per run)
    jobs = watch.of_run(log.run_uuid) if log.run_uuid else []
    print(f"\nSLURM smoke run: {wall:.0f} s, rc {proc.returncode}, {len(sr.submissions(jobs))} sbatch submissions")
    return SimpleNamespace(work=work, proc=proc, wall=wall, log=log, jobs=jobs)


def test_smoke_config_runs_through_the_slurm_profile(slurm_smoke):
    out = slurm_smoke.proc.stdout
    assert slurm_smoke.proc.returncode == 0, _tail(out)
    assert "Using workflow specific profile workflow/profiles/slurm" in out
    assert slurm_smoke.log.run_uuid, "no 'SLURM run ID' line: not the SLURM executor?"
    assert (slurm_smoke.work / SMOKE.outdir / "reports" / "ablation_report.html").is_file()


def _trained_run(task_log: Path) -> str | None:
    """The run (its hash) an array task trained: the last --target-jobs of its log (task 1's own
    command comes first in every task's log; the job step then runs the task's own command)."""
    found = re.findall(r"--target-jobs train:hash=(\w+)", task_log.read_text(errors="replace"))
    return found[-1] if found else None


def test_every_training_job_went_through_sbatch(slurm_smoke):
    assert slurm_smoke.proc.returncode == 0, _tail(slurm_smoke.proc.stdout)
    jobs, log = slurm_smoke.jobs, slurm_smoke.log
    train = [j for j in jobs if j.rule == "train"]
    # SLURM's record: one completed job or array task per training job ...
    assert len(train) == N_TRAIN, sorted(j.key for j in train)
    assert all(j.state == "COMPLETED" for j in train), [(j.key, j.states) for j in train if j.state != "COMPLETED"]
    # ... submitted by Snakemake (the ids in its log are exactly the submissions squeue saw) ...
    assert log.slurm_ids == sr.submissions(jobs), (log.slurm_ids, sr.submissions(jobs))
    # ... and each one trained a different run of the config (the task's kept SLURM log says which).
    expected = {run.hash for study in SMOKE.studies.values() for run in study.runs()}
    logdir = slurm_smoke.work / ".snakemake" / "slurm_logs"
    trained = {}
    for j in train:
        path = logdir / "rule_train" / f"{j.key}.log"
        if not path.is_file():  # a plain (non-array) job logs under its wildcards
            path = next(logdir.glob(f"*/**/{j.job_id}.log"))
        trained[j.key] = _trained_run(path)
    assert set(trained.values()) == expected
    assert len(set(trained.values())) == len(trained)
    # Packing: at least 4 times fewer sbatch submissions than training jobs (the bar).
    n_sub = len(sr.submissions(train))
    print(f"\n{N_TRAIN} training jobs in {n_sub} SLURM submission(s); {len(sr.submissions(jobs))} in total")
    assert N_TRAIN / n_sub >= 4, (
        f"{N_TRAIN} training jobs needed {n_sub} sbatch submissions (no job array: is rule train in a"
        " `group:`? The plugin never puts group jobs in an array)"
    )


def test_aggregation_and_report_ran_locally(slurm_smoke):
    assert slurm_smoke.proc.returncode == 0, _tail(slurm_smoke.proc.stdout)
    log = slurm_smoke.log
    n_studies = len(SMOKE.studies)
    for rule in LOCAL_RULES:
        expected = n_studies if rule in ("index", "summarize", "analyze", "figures") else 1
        assert log.local_rules.count(rule) == expected, (rule, log.local_rules)
    assert LOCAL_RULES.isdisjoint(log.remote_rules)
    # SLURM saw only the jobs that run a model: training, evaluation at test lengths (it may train a
    # run without weights again) and the verification (it re-trains a sample of runs)
    assert {j.rule for j in slurm_smoke.jobs} == {"train", "evaluate", "verify"}
    verify = [j for j in slurm_smoke.jobs if j.rule == "verify"]
    assert len(verify) == 1 and verify[0].state == "COMPLETED"
    checked = pd.read_csv(slurm_smoke.work / SMOKE.outdir / "results" / "verify.csv")
    assert len(checked) > 0 and checked["identical"].astype(str).eq("True").all(), checked


def test_metrics_identical_to_a_local_run(slurm_smoke, smoke_run):
    assert slurm_smoke.proc.returncode == 0, _tail(slurm_smoke.proc.stdout)
    local_work, _ = smoke_run
    compared = set()
    for run in (run for study in SMOKE.studies.values() for run in study.runs()):
        rel = STORE / run.hash / "metrics.csv"
        on_slurm = pd.read_csv(slurm_smoke.work / rel).iloc[0]
        local = pd.read_csv(local_work / rel).iloc[0]
        assert on_slurm["threads"] == local["threads"], rel
        for col in ("params_sha256", "test_correct"):
            assert on_slurm[col] == local[col], (str(rel), col, on_slurm[col], local[col])
        compared.add(run.hash)
    assert len(compared) == N_TRAIN  # every training job's run, once (studies share runs)


def _tiny_config(work: Path) -> str:
    """One study, two runs: device cpu and device cuda (this machine has no CUDA)."""
    cfg = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
    cfg["defaults"]["epochs"] = 3
    cfg.pop("report", None)  # its headline names smoke claims that this config does not have
    cfg["studies"] = {
        "tiny": {
            "description": "SLURM test: a CPU run and a CUDA run.",
            "fixed": {"arch": "attention_only", "heads": 4, "seq_len": 8},
            "factors": {"device": ["cpu", "cuda"]},
            "seeds": [0],
        }
    }
    (work / "config" / "tiny.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return "config/tiny.yaml", {r.settings.device: r.hash for r in C.validate(cfg).studies["tiny"].runs()}


def test_gpu_request_and_a_failing_job(slurm_partition, tmp_path):
    work = copy_project(tmp_path)
    tiny, run_hash = _tiny_config(work)
    base = [
        "--workflow-profile",
        sr.PROFILE,
        "--configfile",
        tiny,
        "--slurm-init-seconds-before-status-checks",
        "2",
        "--retries",
        "0",  # the profile's retry would only repeat the same failure
    ]
    # 1. One sbatch per job (no array, which would give both jobs the first one's resources):
    #    the CPU run's sbatch has no --gpus and completes; the CUDA run's asks for --gpus=1, which
    #    sbatch refuses on this GPU-less cluster: a failed job, a non-zero exit.
    with sr.SqueueWatcher() as watch:
        proc, _ = sr.run_snakemake(
            work, [*base, "--slurm-array-jobs", "none", "--verbose"], RUN_TIMEOUT, env=_env(slurm_partition)
        )
    out = proc.stdout
    assert proc.returncode != 0, _tail(out)
    calls = re.findall(r"sbatch call: (sbatch .*)", out)
    assert len(calls) == 2, calls
    cpu_calls = [c for c in calls if run_hash["cpu"] in c]
    gpu_calls = [c for c in calls if run_hash["cuda"] in c]
    assert len(cpu_calls) == len(gpu_calls) == 1, calls
    assert "--gpus" not in cpu_calls[0] and "--gres" not in cpu_calls[0]
    assert re.search(r" --gpus=1\b", gpu_calls[0]), gpu_calls[0]
    assert re.search(r"Error in (rule|group) train", out), _tail(out)
    # sbatch refused the GPU request: only the CPU run became a SLURM job. (For a plain job the
    # plugin's error shows sbatch's "Invalid generic resource (gres) specification"; for a group
    # job Snakemake prints only "Error in group train".)
    run_jobs = watch.of_run(sr.parse_log(out).run_uuid)
    assert [j.state for j in run_jobs] == ["COMPLETED"], run_jobs
    assert (work / STORE / run_hash["cpu"] / "metrics.csv").is_file()

    # 2. The CUDA run again, now without a GPU request (--set-resources): SLURM runs it, train.py
    #    fails (no CUDA), and Snakemake reports the failed job and exits non-zero.
    with sr.SqueueWatcher() as watch:
        proc, _ = sr.run_snakemake(
            work,
            [*base, "--set-resources", "train:gpu=0", "train:mem_mb=1000", "train:runtime=5"],
            RUN_TIMEOUT,
            env=_env(slurm_partition),
        )
    out = proc.stdout
    assert proc.returncode != 0, _tail(out)
    log = sr.parse_log(out)
    run_jobs = watch.of_run(log.run_uuid)
    assert len(run_jobs) == 1 and run_jobs[0].state == "FAILED", [(j.key, j.states) for j in run_jobs]
    assert log.slurm_ids == {run_jobs[0].array_job_id}
    assert re.search(r"Error in (rule|group) train", out), _tail(out)
    assert "CUDA is not available" in (work / STORE / run_hash["cuda"] / LOG).read_text()
    assert not (work / STORE / run_hash["cuda"] / "metrics.csv").exists()
    assert not (work / SMOKE.outdir / "results/tiny/summary.csv").exists()
