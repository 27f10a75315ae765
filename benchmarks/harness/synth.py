"""Worker of benchmarks/run.py, section 4: synthetic finished runs, in the format train.py writes.

    python benchmarks/harness/synth.py --config grid.yaml --store WORK/results/runs

For every run of every study of the config, writes its folder of the run store, <store>/<hash>/, with
metrics.csv, curve.csv, init_grads.csv, settings.json and provenance.json: the columns, field
order and number formatting of ablation.train.write_outputs (its header lists are imported from
there), with made-up but plausible values (a model that cannot see order, by ablation.model's
``sees_order``, exactly at chance; one that can, a few errors). Learning curves are drawn from a
pool of pre-rendered ones, so 10,000 runs take seconds.
"""

from __future__ import annotations

import argparse
import csv
import io as _io
import json
import sys
import time
from pathlib import Path

import numpy as np

from ablation import config as C
from ablation import model as M
from ablation import provenance
from ablation import settings as S
from ablation.outputs import CURVE_COLUMNS, INIT_GRAD_COLUMNS
from ablation.train import metrics_fields


def _csv_text(rows: list[list], header: list[str]) -> str:
    buf = _io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _curve_pool(rng, epochs: int, lr: float, n: int) -> list[str]:
    pool = []
    e = np.arange(epochs)
    for _ in range(n):
        tau = rng.uniform(10, 80)
        loss = 0.69 * np.exp(-e / tau) + rng.uniform(0.001, 0.35) + rng.normal(0, 0.005, epochs).cumsum() * 0.01
        loss = np.abs(loss)
        acc = np.clip(1.0 - loss / 0.69 * 0.5 + rng.normal(0, 0.01, epochs), 0, 1)
        acc = np.round(acc * 400) / 400
        gn = np.abs(rng.lognormal(-1.0, 0.5, epochs))
        rows = [[int(i), lr, float(a), float(b), float(c)] for i, a, b, c in zip(e, loss, acc, gn)]
        pool.append(_csv_text(rows, CURVE_COLUMNS))
    return pool


def order_variants() -> dict[str, dict]:
    """{setting: registry} for the model's variant registries whose classes say whether a model sees
    the order of its input (``sees_order``); a registry's keys are its setting's enum in the schema."""
    registries = [r for r in (M.POSITIONAL_ENCODINGS, M.ATTENTION_MASKS, M.NORMS)
                  if all(hasattr(c, "sees_order") for c in r.values())]  # fmt: skip
    return {name: r for name in S.setting_specs() for r in registries if S.choices(name) == tuple(r)}


def sees_order(s, variants: dict[str, dict]) -> bool:
    return any(registry[getattr(s, name)].sees_order for name, registry in variants.items())


def write_study(study, store_dir: Path, rng, pool_size: int = 40) -> int:
    fields = metrics_fields()
    runs = study.runs()
    s0 = runs[0].settings
    pools = {}
    prov_template = provenance.collect(s0, provenance.utc_now_iso(), 1.0, "cpu")
    variants = order_variants()
    n = 0
    for run in runs:
        s = run.settings
        key = (s.epochs, s.lr)
        if key not in pools:
            pools[key] = _curve_pool(rng, s.epochs, s.lr, pool_size)
        d = store_dir / run.hash
        if d.is_dir():  # shared with a study written before
            continue
        d.mkdir(parents=True)
        total = 2 * s.n_test
        if not sees_order(s, variants):
            correct = total // 2
        else:
            correct = total - int(rng.binomial(total, min(0.5, 0.003 * s.seq_len / 8 + 0.02 * (s.lr < 0.001))))
        row = {"study": "", "run_id": run.hash, **s.as_dict()}
        row.update(
            status="ok", epochs_run=s.epochs, final_train_loss=float(rng.uniform(0.001, 0.7)),
            final_train_acc=float(rng.integers(200, 401) / 400), test_correct=correct, test_total=total,
            test_acc=correct / total, train_seconds=float(rng.uniform(2, 15)), threads=1, device_used="cpu",
            params_sha256=f"{rng.integers(0, 2**63):064x}",
        )  # fmt: skip
        (d / "settings.json").write_text(json.dumps(s.as_dict(), indent=2, sort_keys=True) + "\n")
        (d / "curve.csv").write_text(pools[key][int(rng.integers(len(pools[key])))])
        layers = max(1, s.depth if s.arch == "encoder" else 1)
        grads = [[i, float(v)] for i, v in enumerate(rng.lognormal(-2, 0.6, layers))]
        (d / "init_grads.csv").write_text(_csv_text(grads, INIT_GRAD_COLUMNS))
        prov = {**prov_template, "settings": s.as_dict(), "seed": s.seed, "data_seed": s.effective_data_seed,
                "study": "", "run_id": run.hash, "threads": 1}  # fmt: skip
        (d / "provenance.json").write_text(json.dumps(prov, indent=2, sort_keys=True, default=str) + "\n")
        (d / "metrics.csv").write_text(
            _csv_text([[row.get(f, "") if row.get(f) is not None else "" for f in fields]], fields)
        )
        n += 1
    return n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", required=True, type=Path)
    ap.add_argument("--store", required=True, type=Path, help="the run store (WORK/results/runs)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    cfg = C.load(args.config)
    rng = np.random.default_rng(args.seed)
    n = sum(write_study(study, args.store, rng) for study in cfg.studies.values())
    print(f"wrote {n} synthetic runs in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
