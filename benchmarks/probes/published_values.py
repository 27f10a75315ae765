#!/usr/bin/env python3
"""The published numbers the length studies stand beside, recomputed from the paper's own result file.

    python benchmarks/probes/published_values.py RESULTS_JSONL [--out benchmarks/probes/published_values.md]

RESULTS_JSONL is ``results/sanity_check.jsonl`` of github.com/McGill-NLP/length-generalization at
40f8a44 (Kazemnejad et al. 2023), e.g. ``git -C <mirror> show 40f8a44:results/sanity_check.jsonl``. Of its
rows with ``job_type`` best_run_seed_exp (the best hyper-parameters, rerun with 3 seeds), per dataset,
split and positional encoding: the mean over seeds of ``sum__pred/test_acc_overall`` (exact match at the
test lengths 21 to 40), and of ``sum__pred/test_acc_<n>`` at each test length n (``per_length``), with the
lengths its ``sum__pred/valid_acc_<n>`` fields cover (``trained_lengths``: the training distribution's,
up to 20). Writes a Markdown table and a JSON file beside it; tests/unit/test_published.py holds every
``published`` block of config/config.yaml to the JSON (the block names its dataset and split in its
source), and ablation.published reads the per-length means from it.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))  # measured.py

from measured import line, stamp  # noqa: E402

# the paper's names of the encodings -> this repository's pos_enc
ENCODINGS = {"none": "none", "t5_relative_bias": "t5", "alibi": "alibi", "rotary": "rope", "abs_sinusoid": "sinusoidal"}
FIELD = "sum__pred/test_acc_overall"
PER_LENGTH = re.compile(r"sum__pred/test_acc_(\d+)")
TRAINED = re.compile(r"sum__pred/valid_acc_(\d+)")


def published(path: Path) -> dict:
    """'dataset split' -> pos_enc -> {mean, seeds, values, per_length: {length: mean}, trained_lengths: [lo, hi]}."""
    rows = defaultdict(lambda: defaultdict(list))
    for text in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(text)
        if row.get("job_type") != "best_run_seed_exp" or row.get(FIELD) is None:
            continue
        encoding = ENCODINGS.get(row["cfg__model.position_encoding_type"])
        if encoding:
            rows[f"{row['cfg__dataset.name']} {row['cfg__dataset.split']}"][encoding].append(row)
    return {task: {enc: summary(seeds) for enc, seeds in sorted(encs.items())} for task, encs in sorted(rows.items())}


def summary(seeds: list[dict]) -> dict:
    """One encoding's seeds (result rows): the overall mean, each test length's mean over the seeds that
    report it (keys as strings: JSON's), and the range of the validation lengths, the trained ones."""
    values = [row[FIELD] for row in seeds]
    lengths = defaultdict(list)
    trained = set()
    for row in seeds:
        for key, value in row.items():
            if (m := PER_LENGTH.fullmatch(key)) and value is not None:
                lengths[int(m.group(1))].append(value)
            elif TRAINED.fullmatch(key):
                trained.add(int(TRAINED.fullmatch(key).group(1)))
    return {"mean": round(statistics.fmean(values), 4), "seeds": len(values), "values": values,
            "per_length": {str(n): round(statistics.fmean(v), 4) for n, v in sorted(lengths.items())},
            "trained_lengths": [min(trained), max(trained)] if trained else []}  # fmt: skip


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", type=Path, help="results/sanity_check.jsonl of the paper's repository")
    ap.add_argument("--out", type=Path, default=Path(__file__).with_suffix(".md"))
    args = ap.parse_args(argv)
    table = published(args.results)
    st = stamp()
    args.out.with_suffix(".json").write_text(json.dumps({"measured": st, "published": table}, indent=1) + "\n",
                                             encoding="utf-8")  # fmt: skip
    encodings = list(ENCODINGS.values())
    text = [
        "# The paper's numbers: exact match at unseen lengths 21-40, mean over seeds",
        "",
        line(st),
        "",
        "`python benchmarks/probes/published_values.py results/sanity_check.jsonl` (McGill-NLP/length-generalization "
        f"at 40f8a44; rows with job_type best_run_seed_exp, field `{FIELD}`, and `sum__pred/test_acc_<n>` per test length "
        "below, rounded to 4 places).",
        "",
        "| dataset split | " + " | ".join(encodings) + " | seeds |",
        "| --- |" + " ---: |" * (len(encodings) + 1),
    ]
    for task, encs in table.items():
        cells = [f"{encs[e]['mean']:.4f}" if e in encs else "" for e in encodings]
        text.append(f"| {task} | " + " | ".join(cells) + f" | {max(v['seeds'] for v in encs.values())} |")
    text += ["", "## Per test length", "",
             "The mean over seeds of `sum__pred/test_acc_<n>` at each test length n (the JSON's `per_length`); the "
             "overall mean above is their mean up to rounding. The paper trains at lengths up to 20 (its `valid_acc_<n>` fields "
             "cover the JSON's `trained_lengths`)."]  # fmt: skip
    for task, encs in table.items():
        lengths = sorted({int(n) for e in encs.values() for n in e["per_length"]})
        text += ["", f"### {task}", "", "| length | " + " | ".join(encodings) + " |", "| ---: |" + " ---: |" * len(encodings)]
        for n in lengths:
            cells = [f"{encs[e]['per_length'][str(n)]:.4f}" if str(n) in encs.get(e, {}).get("per_length", {}) else ""
                     for e in encodings]  # fmt: skip
            text.append(f"| {n} | " + " | ".join(cells) + " |")
    args.out.write_text("\n".join(text) + "\n", encoding="utf-8")
    print(f"wrote {args.out} and {args.out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
