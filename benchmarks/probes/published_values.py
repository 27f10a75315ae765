#!/usr/bin/env python3
"""The published numbers the length studies stand beside, recomputed from the paper's own result file.

    python benchmarks/probes/published_values.py RESULTS_JSONL [--out benchmarks/probes/published_values.md]

RESULTS_JSONL is ``results/sanity_check.jsonl`` of github.com/McGill-NLP/length-generalization at
40f8a44 (Kazemnejad et al. 2023), e.g. ``git -C <mirror> show 40f8a44:results/sanity_check.jsonl``. Of its
rows with ``job_type`` best_run_seed_exp (the best hyper-parameters, rerun with 3 seeds), the mean of
``sum__pred/test_acc_overall`` (exact match at the test lengths 21 to 40) per dataset, split and
positional encoding. Writes a Markdown table and a JSON file beside it; tests/unit/test_published.py
holds every ``published`` block of config/config.yaml to the JSON (the block names its dataset and
split in its source).
"""

from __future__ import annotations

import argparse
import json
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


def published(path: Path) -> dict:
    """'dataset split' -> pos_enc -> {mean, seeds, values}."""
    values = defaultdict(lambda: defaultdict(list))
    for text in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(text)
        if row.get("job_type") != "best_run_seed_exp" or row.get(FIELD) is None:
            continue
        encoding = ENCODINGS.get(row["cfg__model.position_encoding_type"])
        if encoding:
            values[f"{row['cfg__dataset.name']} {row['cfg__dataset.split']}"][encoding].append(row[FIELD])
    return {task: {enc: {"mean": round(statistics.fmean(v), 4), "seeds": len(v), "values": v} for enc, v in sorted(encs.items())}
            for task, encs in sorted(values.items())}  # fmt: skip


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
        f"at 40f8a44; rows with job_type best_run_seed_exp, field `{FIELD}`, rounded to 4 places).",
        "",
        "| dataset split | " + " | ".join(encodings) + " | seeds |",
        "| --- |" + " ---: |" * (len(encodings) + 1),
    ]
    for task, encs in table.items():
        cells = [f"{encs[e]['mean']:.4f}" if e in encs else "" for e in encodings]
        text.append(f"| {task} | " + " | ".join(cells) + f" | {max(v['seeds'] for v in encs.values())} |")
    args.out.write_text("\n".join(text) + "\n", encoding="utf-8")
    print(f"wrote {args.out} and {args.out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
