#!/usr/bin/env python3
"""Every measured file the scripts write, the code each measures, and when it was measured.

    python3 benchmarks/measured.py            # each file: its commit and date, and whether it is current
    python3 benchmarks/measured.py --check    # exit 1 if README.md or docs/*.md cite a number out of step

MEASURED below is the one declaration: each file a script writes (benchmarks/ and tests/cluster/),
the command that writes it, and the code it measures (files or folders; the writing script is always
among them). Every such file carries its stamp, written by the script through `stamp` and `line`:

    Measured at commit 1a2b3c4 on 2026-12-03 10:00 UTC.          (Markdown: a line of its own)
    "measured": {"commit": "1a2b3c4", "date": "...", "dirty": false}   (JSON: a key)

A file is *current* while no commit after its stamp's commit changes the code it measures (a stamp
taken with uncommitted changes counts as its commit: commit the code, then measure); a commit that
changes only comment lines (`#`) or blank lines of that code changes nothing it runs, and neither does
a change of code the command never runs (a declaration's `unused`: the README's writers, for `make
reproduce`). A page cites a
measured number when one block of it (a paragraph or a list item) names a declared file and holds a
number with a unit (12.3 min, 45 s, 98 %, 1.2x). Such a block must name the commit the file's stamp
gives; and the file must be current, unless the block says in words that its number is "out of date"
(then the file must indeed be out of date). `--check` lists every block that breaks this;
tests/tooling/test_measured.py runs it on this repository and on planted stale files. README.md's
measured numbers are one generated block (`make readme`, ablation.readme): it reads the JSON files,
names each file's commit and writes "out of date" exactly while `newer_code` finds later commits,
so re-measuring and `make readme` leave no such words behind.

Standard library only: benchmarks/reproduce.py stamps its output before .venv exists.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGES = ("README.md", "docs/*.md")
"""The pages whose measured numbers are checked."""
OUT_OF_DATE = "out of date"
"""The words by which a block says that its number was measured before the code's last change."""


@dataclass(frozen=True)
class Measured:
    path: str
    """The file, relative to the repository root."""
    command: str
    """The command that writes it."""
    measures: tuple[str, ...]
    """Files and folders whose change makes its numbers out of date."""
    unused: tuple[str, ...] = ()
    """Files under ``measures`` that its command never runs: a change of them leaves its numbers as they
    were (tests/tooling/test_measured.py checks that nothing the command runs imports them)."""

    @property
    def pathspecs(self) -> tuple[str, ...]:
        """``measures`` for git, ``unused`` left out."""
        return (*self.measures, *(f":(exclude){p}" for p in self.unused))


# What a full pipeline run exercises: the package, the rules, how the venv is built and the pins.
_PIPELINE = ("scripts/ablation", "workflow", "Makefile", "requirements.txt", "pyproject.toml")
# What the harness (`make bench`) times: the training path, the fork server, the rules, and itself.
_HARNESS = ("scripts/ablation/train.py", "scripts/ablation/model.py", "scripts/ablation/data.py",
            "scripts/ablation/forkserver.py", "scripts/ablation/settings.py", "workflow", "requirements.txt",
            "benchmarks/run.py", "benchmarks/harness")  # fmt: skip
_REPRODUCE = (*_PIPELINE, "config/config.yaml", "benchmarks/reproduce.py")
# The README's writers: `make reproduce` (the config check, the plan, the workflow) never imports them.
_README_WRITERS = ("scripts/ablation/findings.py", "scripts/ablation/readme.py")
_REPRODUCE_SMOKE = (*_PIPELINE, "config/smoke.yaml", "tests", "benchmarks/reproduce.py")
_MUTATION = ("scripts/ablation", "tests/unit", "tests/simulation", "tests/conftest.py", "benchmarks/mutation.py",
             "benchmarks/mutation_harness")  # fmt: skip
_PACKING = ("workflow/profiles/slurm", "workflow/rules", "config/smoke.yaml", "tests/cluster/measure_packing.py",
            "tests/cluster/slurm.sh")  # fmt: skip
_PROBE_TRAINING = ("scripts/ablation/model.py", "scripts/ablation/train.py", "requirements.txt")
# What the plan's time estimate rests on (its calibration and model) and the runs it is checked against.
_ESTIMATE = ("benchmarks/estimate.py", "scripts/ablation/timing.py", "scripts/ablation/plan.py", *_PROBE_TRAINING,
             "scripts/ablation/forkserver.py", "workflow", "config/smoke.yaml", "config/config.yaml")  # fmt: skip

# Snakemake's main process per step: the workflow and its profiles, the scheduling hook, the harness that times it.
_MAIN_PROCESS = ("workflow", "scripts/ablation/scheduling.py", "scripts/ablation/progress.py", "requirements.txt",
                 "benchmarks/main_process.py", "benchmarks/harness/mainproc.py", "benchmarks/harness/own_cpu.py")  # fmt: skip

# What the slow tests' wall time rests on: the tests and their shared fixtures, and what they run.
_CI_TIME = ("benchmarks/probes/ci_time.py", "tests/conftest.py", "tests/workflow", "tests/tooling/test_install.py",
            "tests/tooling/test_bench.py", "scripts/ablation", "workflow")  # fmt: skip

# What a pilot of the length studies' design rests on: the pilot script, the tasks, the config it overrides.
_TASK_PILOT = ("benchmarks/probes/length_pilot.py", "scripts/ablation/data.py", "config/config.yaml", *_PROBE_TRAINING)
# The search for the new tasks' design: the pilot over variants of the fixed settings, each on the
# config at its stamp's commit (benchmarks/probes/task_pilot_search/).
_BOTH = "--study length_reverse length_copy --jobs 2"
_PILOT_SEARCH = (
    ("vocab100_e50", f"{_BOTH} --seeds 0 1 --set 'task_settings={{\"vocab\": 100}}' epochs=50"),
    ("lr01_e50", f"{_BOTH} --seeds 0 1 --set lr=0.01 warmup=5 epochs=50"),
    ("width64_depth2_e50", f"{_BOTH} --seeds 0 1 --set d_model=64 ff=128 depth=2 epochs=50"),
    ("lr01_e75", f"{_BOTH} --seeds 0 1 --set lr=0.01 warmup=5 epochs=75 --levels pos_enc=none,alibi,t5"),
    ("n4000_b200_lr01_e75",
     f"{_BOTH} --seeds 0 1 --set lr=0.01 warmup=5 epochs=75 n_train=4000 batch_size=200 --levels pos_enc=none,alibi"),
    ("depth2_lr01_e110", f"{_BOTH} --seeds 0 1 --set lr=0.01 warmup=5 epochs=110 depth=2 --levels pos_enc=none,alibi"),
    ("n5000_b200_lr01_e30",
     f"{_BOTH} --seeds 0 1 --set lr=0.01 warmup=3 epochs=30 n_train=5000 batch_size=200 --levels pos_enc=none,alibi"),
    ("n5000_lr01_e30",
     f"{_BOTH} --seeds 0 1 --set lr=0.01 warmup=3 epochs=30 n_train=5000 batch_size=100 --levels pos_enc=none,alibi"),
    ("n8000_lr01_e20",
     f"{_BOTH} --seeds 0 1 --set lr=0.01 warmup=2 epochs=20 n_train=8000 batch_size=100 --levels pos_enc=none,alibi"),
    ("n16000_lr01_e10",
     f"{_BOTH} --seeds 0 1 --set lr=0.01 warmup=1 epochs=10 n_train=16000 batch_size=100 --levels pos_enc=none,alibi"),
    ("n5000_lr01_e25", f"{_BOTH} --seeds 0 1 2 --set lr=0.01 warmup=3 epochs=25 n_train=5000 batch_size=100"),
    ("n5000_lr01_e20", f"{_BOTH} --seeds 0 1 2 --set lr=0.01 warmup=2 epochs=20 n_train=5000 batch_size=100"),
    # one run after another, one thread: the earlier design's seconds beside a candidate's, twice each
    *((f"timing_design_{i}", "--study length_reverse --seeds 0 --levels pos_enc=none,rope") for i in (1, 2)),
    *((f"timing_n5000_lr01_e25_{i}", "--study length_reverse --seeds 0 --set lr=0.01 warmup=3 epochs=25 n_train=5000 "
       "batch_size=100 --levels pos_enc=none,rope") for i in (1, 2)),
    # the paper's protocol: its task token at position 0 (anchor), then its schedule, then its lengths
    ("anchor", f"{_BOTH} --seeds 0 1 --set 'task_settings={{\"anchor\": true}}' positions=34"),
    ("anchor_schedule", f"{_BOTH} --seeds 0 1 --set 'task_settings={{\"anchor\": true}}' positions=34 "
     "lr_decay='\"linear\"' weight_decay=0.05"),
    ("length_anchor_tr20_ts40", "--study length --seeds 0 1 --jobs 2 --set 'task_settings={\"anchor\": true}' seq_len=20 "
     "positions=82 --eval-lengths 1 40"),
    ("length_task_decoder_tr20_ts40", "--study length --seeds 0 1 --jobs 2 --set 'task_settings={\"anchor\": true}' "
     "seq_len=20 positions=82 depth=3 n_train=5000 batch_size=100 epochs=20 lr=0.01 warmup=2 'lr_decay=\"linear\"' "
     "weight_decay=0.05 --eval-lengths 1 40"),
    # within the budget of `make reproduce`: fewer epochs, each study at the design it then had (20 epochs)
    *((f"length_decoder_e{e}_tr20_ts40", f"--study length --seeds 0 1 --jobs 2 --set epochs={e} warmup=1 --eval-lengths 1 40")
      for e in (5, 7, 10)),
    *((f"{study}_decoder_e{e}", f"--study {study} --seeds 0 1 --jobs 2 --set epochs={e} warmup=1 --eval-lengths 1 16")
      for study in ("length_reverse", "length_copy") for e in (5, 10)),
    # one of the paper's settings ours leaves out, on T5's bias alone: is it why T5 stops after 20 copies?
    ("length_t5_dropout_tr20_ts40", "--study length --seeds 0 1 --jobs 1 --levels pos_enc=t5 --set dropout=0.1 --eval-lengths 1 40"),
    # the paper's attention, on T5's bias alone: its unscaled logits, its bias table's initial spread, both
    ("length_t5_unscaled_tr20_ts40", "--study length --seeds 0 1 --jobs 2 --set attn_scale='\"none\"' --levels pos_enc=t5 "
     "--eval-lengths 1 40"),
    ("length_t5_bias036_tr20_ts40", "--study length --seeds 0 1 --jobs 2 --set t5_bias_std=0.036 --levels pos_enc=t5 "
     "--eval-lengths 1 40"),
    ("length_t5_paper_attention_tr20_ts40", "--study length --seeds 0 1 --jobs 2 --set attn_scale='\"none\"' "
     "t5_bias_std=0.036 --levels pos_enc=t5 --eval-lengths 1 40"),
    # the paper's data and rate, on T5's bias alone: 100 distinct tokens, and a third of the learning rate for twice the epochs
    ("length_t5_vocab100_tr20_ts40", "--study length --seeds 0 1 --jobs 2 --set 'task_settings={\"anchor\": true, "
     "\"vocab\": 100}' --levels pos_enc=t5 --eval-lengths 1 40"),
    ("length_t5_lr003_e40_tr20_ts40", "--study length --seeds 0 1 --jobs 2 --set lr=0.003 epochs=40 warmup=4 "
     "--levels pos_enc=t5 --eval-lengths 1 40"),
    # a step toward the paper's scale, on T5's bias alone: twice the width, twice the depth
    ("length_t5_d64_depth6_tr20_ts40", "--study length --seeds 0 1 --jobs 2 --set d_model=64 ff=256 depth=6 "
     "--levels pos_enc=t5 --eval-lengths 1 40"),
    ("length_t5_d128_depth6_tr20_ts40", "--study length --seeds 0 1 --jobs 2 --set d_model=128 heads=8 ff=512 depth=6 "
     "--levels pos_enc=t5 --eval-lengths 1 40"),
    # T5's buckets, on T5's bias alone: the model's 128, then every distance past the trained span pooled
    ("length_t5_maxdist128_tr20_ts40", "--study length --seeds 0 1 --jobs 2 --levels pos_enc=t5"),
    ("length_t5_maxdist41_tr20_ts40", "--study length --seeds 0 1 --jobs 2 --levels pos_enc=t5 --t5-max-distance 41"),
    ("length_t5_maxdist17_tr20_ts40", "--study length --seeds 0 1 --jobs 2 --levels pos_enc=t5 --t5-max-distance 17"),
    ("copy_reverse_t5_maxdist17", "--study length_reverse length_copy --seeds 0 1 --jobs 2 --levels pos_enc=t5 "
     "--t5-max-distance 17"),
)  # fmt: skip

MEASURED: tuple[Measured, ...] = (
    Measured("benchmarks/results.md", "python benchmarks/run.py", _HARNESS),
    Measured("benchmarks/results.json", "python benchmarks/run.py", _HARNESS),
    Measured("benchmarks/reproduce.md", "python3 benchmarks/reproduce.py", _REPRODUCE, _README_WRITERS),
    Measured("benchmarks/reproduce.json", "python3 benchmarks/reproduce.py", _REPRODUCE, _README_WRITERS),
    # the training seconds of the design against the earlier one's, from one full run's store
    Measured("benchmarks/cost.md",
             "python benchmarks/cost.py --config config/config.yaml --old-runs OLD/results --results RESULTS "
             "--store RESULTS/runs --out benchmarks/cost.md",
             ("benchmarks/cost.py", "config/config.yaml", "scripts/ablation/data.py", "scripts/ablation/settings.py",
              *_PROBE_TRAINING)),  # fmt: skip
    Measured("benchmarks/reproduce-smoke.md", "python3 benchmarks/reproduce.py --config config/smoke.yaml --test",
             _REPRODUCE_SMOKE),  # fmt: skip
    Measured("benchmarks/reproduce-smoke.json", "python3 benchmarks/reproduce.py --config config/smoke.yaml --test",
             _REPRODUCE_SMOKE),  # fmt: skip
    Measured("benchmarks/reproduce-ci.md", "python3 benchmarks/reproduce.py --ci", _REPRODUCE_SMOKE),
    Measured("benchmarks/reproduce-ci.json", "python3 benchmarks/reproduce.py --ci", _REPRODUCE_SMOKE),
    Measured("benchmarks/reproduce-lesson.md", "python3 benchmarks/reproduce.py --study lesson", _REPRODUCE, _README_WRITERS),
    Measured("benchmarks/reproduce-lesson.json", "python3 benchmarks/reproduce.py --study lesson", _REPRODUCE, _README_WRITERS),
    Measured("benchmarks/estimate.md", "python benchmarks/estimate.py --cores 2 --shapes", _ESTIMATE),
    Measured("benchmarks/estimate.json", "python benchmarks/estimate.py --cores 2 --shapes", _ESTIMATE),
    Measured("benchmarks/main_process.md", "python benchmarks/main_process.py", _MAIN_PROCESS),
    Measured("benchmarks/main_process.json", "python benchmarks/main_process.py", _MAIN_PROCESS),
    Measured("benchmarks/mutation.md", "make mutation", _MUTATION),
    Measured("benchmarks/mutation.json", "make mutation", _MUTATION),
    Measured("benchmarks/probes/attention_kernels.md", "python benchmarks/probes/attention_kernels.py",
             ("benchmarks/probes/attention_kernels.py", "scripts/ablation/model.py", "requirements.txt")),  # fmt: skip
    Measured("benchmarks/probes/batched_probe.md", "python benchmarks/probes/batched_probe.py",
             ("benchmarks/probes/batched_probe.py", *_PROBE_TRAINING)),  # fmt: skip
    Measured("benchmarks/probes/profile.md", "python benchmarks/probes/profile_step.py",
             ("benchmarks/probes/profile_step.py", *_PROBE_TRAINING)),  # fmt: skip
    Measured("benchmarks/probes/profile.json", "python benchmarks/probes/profile_step.py",
             ("benchmarks/probes/profile_step.py", *_PROBE_TRAINING)),  # fmt: skip
    Measured("benchmarks/probes/bets.md", "python benchmarks/probes/bets.py",
             ("benchmarks/probes/bets.py", "scripts/ablation/sequential.py")),  # fmt: skip
    Measured("benchmarks/probes/naive_rounds.md", "python benchmarks/probes/naive_rounds.py --out benchmarks/probes/naive_rounds.md",
             ("benchmarks/probes/naive_rounds.py", "scripts/ablation/claims.py", "scripts/ablation/seedtests.py",
              "scripts/ablation/sequential.py", "scripts/ablation/intervals.py")),  # fmt: skip
    Measured("benchmarks/probes/library_intervals.md", "python benchmarks/probes/library_intervals.py",
             ("benchmarks/probes/library_intervals.py", "scripts/ablation/intervals.py", "requirements.txt")),  # fmt: skip
    Measured("benchmarks/probes/decoder_cost.md", "python benchmarks/probes/decoder_cost.py --repeats 1",
             ("benchmarks/probes/decoder_cost.py", "scripts/ablation/settings.py", *_PROBE_TRAINING)),  # fmt: skip
    Measured("benchmarks/probes/decoder_cost_minibatch.md",
             "python benchmarks/probes/decoder_cost.py --decoder length_copy --repeats 1 --out benchmarks/probes/decoder_cost_minibatch.md",
             ("benchmarks/probes/decoder_cost.py", "scripts/ablation/settings.py", "config/config.yaml", *_PROBE_TRAINING)),  # fmt: skip
    Measured("benchmarks/probes/length_pilot.md", "python benchmarks/probes/length_pilot.py --seeds 0 1 2",
             _TASK_PILOT),  # fmt: skip
    Measured("benchmarks/probes/task_pilot.md",
             "python benchmarks/probes/length_pilot.py --study length_reverse length_copy length --seeds 0 1 --jobs 2 "
             "--out benchmarks/probes/task_pilot.md",
             _TASK_PILOT),  # fmt: skip
    Measured("benchmarks/probes/task_pilot_budget.md",
             "python benchmarks/probes/length_pilot.py --study length_reverse length_copy --seeds 0 1 --jobs 2 "
             "--set depth=2 n_train=400 batch_size=null epochs=300 --out benchmarks/probes/task_pilot_budget.md",
             _TASK_PILOT),  # fmt: skip
    Measured("benchmarks/probes/task_pilot_larger.md",
             "python benchmarks/probes/length_pilot.py --study length_reverse length_copy --seeds 0 --jobs 2 "
             "--levels pos_enc=none,alibi,t5 --set depth=4 n_train=2000 epochs=100 --out benchmarks/probes/task_pilot_larger.md",
             _TASK_PILOT),  # fmt: skip
    *(Measured(f"benchmarks/probes/length_failures{suffix}.md",
               f".venv/bin/python benchmarks/probes/length_failures.py --study {study} --seeds 0 1 --jobs 2"
               + (f" --out benchmarks/probes/length_failures{suffix}.md" if suffix else ""),
               ("benchmarks/probes/length_failures.py", *_TASK_PILOT))
      for study, suffix in (("length", ""), ("length_reverse", "_reverse"), ("length_copy", "_copy"))),  # fmt: skip
    Measured("benchmarks/probes/published_values.md", "python benchmarks/probes/published_values.py RESULTS_JSONL",
             ("benchmarks/probes/published_values.py",)),
    Measured("benchmarks/probes/published_values.json", "python benchmarks/probes/published_values.py RESULTS_JSONL",
             ("benchmarks/probes/published_values.py",)),
    Measured("benchmarks/probes/verdicts.md", "python benchmarks/probes/verdicts.py",
             ("benchmarks/probes/verdicts.py", "scripts/ablation/claims.py", "config/config.yaml")),  # fmt: skip
    Measured("benchmarks/probes/edges.md", "python benchmarks/probes/edges.py --before REV --results RESULTS --rounds",
             ("benchmarks/probes/edges.py", "scripts/ablation/verdicts.py", "scripts/ablation/scope.py",
              "scripts/ablation/seedtests.py", "scripts/ablation/kinds.py", "scripts/ablation/claims.py",
              "config/config.yaml")),  # fmt: skip
    Measured("benchmarks/probes/suite_time.md", "python benchmarks/probes/suite_time.py",
             ("benchmarks/probes/suite_time.py", "tests", "scripts/ablation", "workflow")),  # fmt: skip
    Measured("benchmarks/probes/ci_time.md", "python benchmarks/probes/ci_time.py", _CI_TIME),
    Measured("benchmarks/probes/ci_time.json", "python benchmarks/probes/ci_time.py", _CI_TIME),
    Measured("benchmarks/gpu.md", "python benchmarks/gpu_check.py",
             ("benchmarks/gpu_check.py", *_PROBE_TRAINING, "workflow")),  # fmt: skip
    *(Measured(f"benchmarks/probes/task_pilot_search/{name}.md",
               f"python benchmarks/probes/length_pilot.py {args} --out benchmarks/probes/task_pilot_search/{name}.md",
               _TASK_PILOT) for name, args in _PILOT_SEARCH),  # fmt: skip
    Measured("tests/cluster/packing.md", "python tests/cluster/measure_packing.py", _PACKING),
    Measured("tests/cluster/packing.json", "python tests/cluster/measure_packing.py", _PACKING),
)

_STAMP = re.compile(r"^Measured at commit ([0-9a-f]{7,40})( with uncommitted changes)? on ([0-9-]+ [0-9:]+ UTC)", re.M)
_MEASURED_PATH = re.compile(r"(?<![\w.-])(?:\.\./)*((?:benchmarks|tests/cluster)/[\w./-]+?\.(?:md|json))(?![\w-])")
_NUMBER = re.compile(r"\d(?:[\d,]*\d)?(?:\.\d+)?\s?(?:%|×|(?:min|minutes|s|seconds|ms|h|hours|MB|GB|pp|x)\b)")


def _git(root: Path, *args: str) -> str | None:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else None


def stamp(root: Path = REPO) -> dict:
    """The commit checked out in ``root``, whether its tree has uncommitted changes, and the time now."""
    return {"commit": _git(root, "rev-parse", "--short", "HEAD"),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "dirty": bool(_git(root, "status", "--porcelain", "--untracked-files=no"))}  # fmt: skip


def line(st: dict) -> str:
    """A Markdown file's stamp line (with the stamp's note, if any: how a backfilled stamp was found)."""
    text = f"Measured at commit {st['commit']}{' with uncommitted changes' if st['dirty'] else ''} on {st['date']}."
    return f"{text} {st['note']}" if st.get("note") else text


def read(path: Path) -> dict | None:
    """The stamp a measured file carries; None without one."""
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        st = json.loads(text).get("measured")
        return st if isinstance(st, dict) and st.get("commit") else None
    m = _STAMP.search(text)
    return {"commit": m[1], "dirty": bool(m[2]), "date": m[3]} if m else None


def newer_code(root: Path, m: Measured, commit: str) -> list[str] | None:
    """The commits after ``commit`` that change the code ``m`` measures, newest first; None when
    ``commit`` is not in this clone's history."""
    if _git(root, "cat-file", "-e", f"{commit}^{{commit}}") is None:
        return None
    commits = (_git(root, "log", "--format=%h", f"{commit}..HEAD", "--", *m.pathspecs) or "").split()
    return [c for c in commits if _changes_more_than_comments(root, c, m.pathspecs)]


COMMENT_LINE = r"^[[:space:]]*#|^[[:space:]]+$"  # git matches it with REG_NEWLINE: no empty match
"""A line that only comments (Python, YAML, Snakemake, Makefile), or a blank one: it runs nothing, so
a commit that changes such lines alone leaves every measurement of the file as it was."""


def _changes_more_than_comments(root: Path, commit: str, paths: tuple[str, ...]) -> bool:
    """Whether ``commit`` changes ``paths`` in a line that is not a comment (a root commit: yes)."""
    proc = subprocess.run(["git", "-C", str(root), "diff", "--quiet", f"--ignore-matching-lines={COMMENT_LINE}",
                           f"{commit}^", commit, "--", *paths], capture_output=True, check=False)  # fmt: skip
    return proc.returncode != 0


def _blocks(text: str) -> list[str]:
    """A page's paragraphs, list items and table rows (a list item ends where the next one starts);
    fenced code is left out."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    out, cur = [], []
    for raw in text.splitlines():
        starts_item = bool(re.match(r"\s*(?:[-*]|\d+\.|\|) ", raw))
        if not raw.strip() or starts_item:
            if cur:
                out.append(" ".join(cur))
            cur = [raw.strip()] if raw.strip() else []
        else:
            cur.append(raw.strip())
    if cur:
        out.append(" ".join(cur))
    return out


def problems(root: Path = REPO, declared: tuple[Measured, ...] = MEASURED) -> list[str]:
    """Every block of README.md and docs/*.md that cites a measured number out of step with its file."""
    by_path = {m.path: m for m in declared}
    out = []
    pages = sorted({p for pattern in PAGES for p in root.glob(pattern)})
    for page in pages:
        for block in _blocks(page.read_text(encoding="utf-8")):
            if not _NUMBER.search(block):
                continue
            where = f"{page.relative_to(root)}: «{block[:90]}…»"
            for cited in dict.fromkeys(_MEASURED_PATH.findall(block)):
                if cited.endswith("README.md"):
                    continue
                m = by_path.get(cited)
                if m is None:
                    out.append(f"{where} cites {cited}, which benchmarks/measured.py does not declare")
                    continue
                st = read(root / cited)
                if st is None:
                    out.append(f"{where} cites {cited}, which carries no stamp (Measured at commit ...)")
                    continue
                if not re.search(rf"\b{st['commit'][:7]}", block):
                    out.append(f"{where} cites {cited} without the commit it was measured at ({st['commit']})")
                newer = newer_code(root, m, st["commit"])
                if newer is None:
                    out.append(f"{where} cites {cited}, measured at {st['commit']}, a commit not in this history")
                elif newer and OUT_OF_DATE not in block:
                    out.append(f"{where} cites {cited}, measured at {st['commit']} on {st['date']}, older than the code "
                               f"it measures (changed since by {', '.join(newer[:3])}{' ...' if len(newer) > 3 else ''}): "
                               f"re-run `{m.command}`, or say the number is {OUT_OF_DATE}")  # fmt: skip
                elif not newer and OUT_OF_DATE in block:
                    out.append(f"{where} says {cited} is {OUT_OF_DATE}, but no code it measures changed since "
                               f"{st['commit']}")  # fmt: skip
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a page cites a number out of step")
    args = ap.parse_args(argv)
    if args.check:
        found = problems()
        print("\n".join(found) or "every measured number the README and docs cite is current, or marked out of date")
        return 1 if found else 0
    for m in MEASURED:
        st = read(REPO / m.path)
        if st is None:
            state = "no stamp" if (REPO / m.path).is_file() else "not written"
            print(f"{m.path}: {state}")
            continue
        newer = newer_code(REPO, m, st["commit"])
        state = ("commit unknown here" if newer is None else
                 f"out of date ({len(newer)} later commits change its code)" if newer else "current")  # fmt: skip
        print(f"{m.path}: {st['commit']} on {st['date']}: {state}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
