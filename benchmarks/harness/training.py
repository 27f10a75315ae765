"""Section 3: our training loop against the naive reference (worker: harness/speed.py)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from .common import HARNESS, Meter, PY, REPO, log, must, run

SPEED_EPOCHS = 60
SPEED_REPEATS = 3  # rounds over all combinations: single timings on this VM are noisy (see speed.py)


def speed_combos(quick: bool) -> list[dict]:
    base = {"seed": 0}  # every setting not given: the schema's default
    if quick:
        base["epochs"] = 20
        return [
            base | {"arch": "attention_only", "heads": 4, "seq_len": 8},
            base | {"arch": "encoder", "depth": 2, "heads": 8, "seq_len": 32, "norm": "pre"},
            base | {"arch": "encoder", "depth": 3, "heads": 4, "seq_len": 8, "norm": "post"},
        ]
    # SPEED_EPOCHS (not 300) to fit the time budget: the cost per epoch is what differs, and both sides
    # run the same epochs; the fixed costs (data, model, evaluation) are a few ms.
    base["epochs"] = SPEED_EPOCHS
    combos = [base | {"arch": "attention_only", "heads": 4, "seq_len": 8}]
    # the 2-block encoder: the extremes of heads x seq_len, both norms, plus two middle combinations
    for heads, seq_len, norm in ((1, 8, "post"), (1, 32, "post"), (8, 8, "pre"), (8, 32, "pre"), (2, 16, "post"),
                                 (4, 16, "pre")):  # fmt: skip
        combos.append(base | {"arch": "encoder", "depth": 2, "heads": heads, "seq_len": seq_len, "norm": norm})
    for norm in ("post", "pre"):
        combos.append(base | {"arch": "encoder", "depth": 10, "heads": 4, "seq_len": 8, "norm": norm})
    return combos


def speed_summary(sp: dict) -> dict:
    """Speed-ups by wall and CPU time; the goal is judged on CPU time if the machine was busy."""
    out = {}
    for basis, key in (("wall", "speedup"), ("cpu", "speedup_cpu")):
        vals = [r[key] for r in sp["rows"]]
        out[basis] = {"min": min(vals), "max": max(vals), "median": statistics.median(vals)}
    out["basis"] = "cpu" if sp["meter"]["busy"] else "wall"
    out["repeats"] = sorted({r["repeats"] for r in sp["rows"]})
    out["rounds"] = max(r["rounds"] for r in sp["rows"])
    return out


def section_speed(tmp: Path, quick: bool) -> dict:
    combos = speed_combos(quick)
    log(f"3. training speed: {len(combos)} combinations, ours vs naive at 1 thread")
    (tmp / "combos.json").write_text(json.dumps(combos))
    with Meter() as m:
        p = run([PY, str(HARNESS / "speed.py"), "--combos", str(tmp / "combos.json"), "--out", str(tmp / "speed.json"),
                 "--repeats", "1" if quick else str(SPEED_REPEATS), "--short-repeats", "2" if quick else "5"], cwd=REPO)  # fmt: skip
    must(p, "speed worker")
    rows = json.loads((tmp / "speed.json").read_text())
    speedups = [r["speedup"] for r in rows]
    return {
        "meter": m.record(),
        "rows": rows,
        "min_speedup": min(speedups),
        "max_speedup": max(speedups),
        "median_speedup": statistics.median(speedups),
        "sum_naive_s": sum(r["naive_s"] for r in rows),
        "sum_ours_s": sum(r["ours_s"] for r in rows),
    }
