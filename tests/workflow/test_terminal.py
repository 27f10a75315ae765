"""What a person sees while the workflow runs (the default profile's logger, ablation.progress): one
line per finished run, named by study and readable run id, a running line of runs done and left, no
per-job blocks on screen, those blocks kept in Snakemake's log file, and a failure shown in full."""

import re

import yaml

from ablation import config as C
from conftest import REPO, copy_project, snakemake, snakemake_log

SMOKE = C.load(REPO / "config" / "smoke.yaml")
BLOCK_LINE = re.compile(r"^(?:local)?(?:rule|checkpoint) \w+:$|^\s+(?:output|log|jobid|benchmark|reason|wildcards|priority|resources): ")


RUN_LINE = re.compile(r"\] (?P<study>\S+) +(?P<id>\S+): \w+, test accuracy [01]\.\d{3}, \d+\.\d s$")


def shows(shown: str, run_id: str) -> bool:
    """Whether a line's id is the run's: whole, or its start and end around an ellipsis (a long id gives
    up its middle to keep the line within 100 columns)."""
    if "…" not in shown:
        return shown == run_id
    start, end = shown.split("…", 1)
    return run_id.startswith(start) and run_id.endswith(end) and len(start) + len(end) < len(run_id)


def test_the_screen_shows_one_line_per_finished_run_by_its_readable_id_and_no_job_blocks(smoke_run):
    _, proc = smoke_run
    screen = (proc.stdout + proc.stderr).splitlines()
    runs = {run.hash: run for study in SMOKE.studies.values() for run in study.runs()}
    finished = [m for line in screen if (m := RUN_LINE.search(line))]
    assert len(finished) == len(runs) and all(len(m.string) <= 100 for m in finished)
    for run in runs.values():
        lines = [m.string for m in finished if m["study"] == run.study and shows(m["id"], run.run_id)]
        assert len(lines) >= 1, (run.study, run.run_id, lines)
    assert not [line for line in screen if BLOCK_LINE.search(line)], [line for line in screen if BLOCK_LINE.search(line)][:5]
    assert not any(h in line for h in runs for line in screen), "a run is named by its hash on screen"
    progress = [line for line in screen if line.startswith("-- runs: ")]
    assert progress and progress[-1].startswith(f"-- runs: {len(runs)} done, 0 left"), progress[-3:]


def test_the_log_file_keeps_every_jobs_block(smoke_run):
    _, proc = smoke_run
    log = snakemake_log(proc)
    runs = {run.hash for study in SMOKE.studies.values() for run in study.runs()}
    trained = set(re.findall(r"^(?:local)?rule train:\n(?:\s+\w+: .*\n)*?\s+wildcards: hash=(\w+)", log, re.M))
    assert trained == runs
    assert re.search(r"^\s+reason: ", log, re.M) and re.search(r"^\s+resources: ", log, re.M)


def test_a_failed_job_is_shown_in_full_with_its_log(tmp_path):
    work = copy_project(tmp_path / "w")
    cfg = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
    cfg["studies"] = {"lesson": cfg["studies"]["lesson"] | {"seeds": [0], "claims": []}}
    cfg["report"] = {}
    (work / "config" / "one.yaml").write_text(yaml.safe_dump(cfg))
    train = work / "workflow" / "rules" / "train.smk"
    text = train.read_text()
    shell = text.index("    shell:", text.index("rule train:"))
    train.write_text(text[:shell] + '    shell:\n        "echo the-reason-it-failed > {log:q}; exit 3"\n')
    target = f"{cfg['outdir']}/results/lesson/summary.csv"
    proc = snakemake(work, target, "--cores", "2", "--configfile", "config/one.yaml", check=False)
    screen = proc.stdout + proc.stderr
    assert proc.returncode == 1
    assert screen.count("Error in rule train:") == 2, screen[-3000:]  # both runs, each in full:
    assert screen.count("the-reason-it-failed") >= 2 and "exited with non-zero exit code" in screen
