"""Worker of benchmarks/run.py, section 3: our training loop against the naive reference, in one
process at 1 thread, on identical settings and data.

    python benchmarks/harness/speed.py --combos combos.json --out speed.json [--repeats 2]

combos.json: a list of partial settings (the schema's defaults fill the rest). For each, both
implementations train on the same ablation.data.make_order_data data; the two are interleaved
(naive first on even repeats, ours first on odd), in rounds over all combinations (a slow spell of the
machine hits one round, not every timing of one combination), and each keeps its fastest timing, by
wall time and by CPU time (time.process_time: what the process itself used).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import naive  # noqa: E402

from ablation import settings as S  # noqa: E402
from ablation.data import make_order_data  # noqa: E402
from ablation.train import train_run  # noqa: E402


def _ours(s, data):
    t0, c0 = time.perf_counter(), time.process_time()
    r = train_run(s, threads=1, data=data)
    return time.perf_counter() - t0, time.process_time() - c0, r.test_acc


def _naive(s, data):
    t0, c0 = time.perf_counter(), time.process_time()
    acc = naive.train_eval(s, data)
    return time.perf_counter() - t0, time.process_time() - c0, acc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--combos", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--repeats", type=int, default=1, help="rounds over all combinations (fastest kept)")
    ap.add_argument("--short-repeats", type=int, default=3, help="timings in all when one run takes < 3 s")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    combos = json.loads(args.combos.read_text())
    # warm-up: first-call costs (lazy imports, kernel dispatch caches) are not per-run costs here
    warm = S.from_dict({**combos[0], "epochs": 3})
    _naive(warm, make_order_data(warm))
    _ours(warm, make_order_data(warm))
    # Rounds over all combinations, not repeats back to back: a slow spell of this VM (seconds long)
    # then hits one round, and the fastest of the rounds escapes it.
    settings = [S.from_dict(combo) for combo in combos]
    datas = [make_order_data(s) for s in settings]
    times = [{"naive": [], "ours": []} for _ in combos]
    cpus = [{"naive": [], "ours": []} for _ in combos]
    accs = [{} for _ in combos]
    for r in range(args.repeats):
        for i, (s, data) in enumerate(zip(settings, datas)):
            short = bool(times[i]["ours"]) and max(min(v) for v in times[i].values()) < 3.0
            inner = -(-args.short_repeats // args.repeats) if short else 1  # more timings of short runs
            for k in range(inner):
                order = ("naive", "ours") if (r + k) % 2 == 0 else ("ours", "naive")
                for name in order:
                    t, cpu, acc = (_naive if name == "naive" else _ours)(s, data)
                    times[i][name].append(t)
                    cpus[i][name].append(cpu)
                    accs[i][name] = acc
    rows = []
    for combo, tm, cp, acc in zip(combos, times, cpus, accs):
        row = {
            "combo": combo,
            "naive_s": min(tm["naive"]),
            "ours_s": min(tm["ours"]),
            "naive_cpu_s": min(cp["naive"]),
            "ours_cpu_s": min(cp["ours"]),
            "repeats": len(tm["ours"]),
            "rounds": args.repeats,
            "naive_acc": acc["naive"],
            "ours_acc": acc["ours"],
        }
        row["speedup"] = row["naive_s"] / row["ours_s"]
        row["speedup_cpu"] = row["naive_cpu_s"] / row["ours_cpu_s"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
