"""Worker of benchmarks/run.py, section 5: in-process costs of one training job besides training.

    python benchmarks/harness/probe.py --out probe.json [--repeats 5]

Run in a fresh process, so "first call" numbers are what every training job pays. Times are the
fastest of --repeats unless they are first-call costs (which happen once per process).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

T_START = time.perf_counter()
MODULES_AT_START = set(sys.modules)

import ablation.train as train  # noqa: E402
from ablation import git_state, provenance  # noqa: E402
from ablation import settings as S  # noqa: E402

T_IMPORTED = time.perf_counter()


def best(fn, repeats: int) -> float:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    import yaml

    res = {"import_ablation_train_s": T_IMPORTED - T_START}
    text = Path(S.SCHEMA_PATH).read_text(encoding="utf-8")
    res["schema_yaml_safe_load_s"] = best(lambda: yaml.safe_load(text), args.repeats)
    if hasattr(yaml, "CSafeLoader"):
        res["schema_yaml_csafe_load_s"] = best(lambda: yaml.load(text, Loader=yaml.CSafeLoader), args.repeats)
    schema = yaml.safe_load(text)
    res["schema_json_load_s"] = best(lambda: json.loads(json.dumps(schema)), args.repeats)

    tiny = S.from_dict({"epochs": 2, "n_train": 16, "n_test": 8})
    before = set(sys.modules)
    t0 = time.perf_counter()
    result = train.train_run(tiny, threads=1)
    res["first_tiny_train_run_s"] = time.perf_counter() - t0
    lazy = sorted(set(sys.modules) - before)
    res["modules_imported_by_first_train_run"] = len(lazy)
    res["lazy_top_packages"] = sorted({m.split(".")[0] for m in lazy})
    res["second_tiny_train_run_s"] = best(lambda: train.train_run(tiny, threads=1), args.repeats)
    res["torch_dynamo_imported"] = "torch._dynamo" in sys.modules
    res["sympy_imported"] = "sympy" in sys.modules
    res["modules_total"] = len(sys.modules)
    res["modules_from_start"] = len(set(sys.modules) - MODULES_AT_START)

    res["git_state_s"] = best(git_state, args.repeats)
    res["code_sha256_s"] = best(provenance.code_sha256, args.repeats)
    res["provenance_collect_s"] = best(lambda: provenance.collect(tiny, result.started_at, 1.0, "cpu"), args.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        res["write_outputs_s"] = best(lambda: train.write_outputs(result, Path(tmp) / "run", "s", "r"), args.repeats)
        full = S.from_dict({})  # 300 epochs: the curve.csv of a real run
        big = train.RunResult(**{**result.__dict__, "settings": full,
                                 "curve": result.curve * (full.epochs // max(1, len(result.curve)))})  # fmt: skip
        res["write_outputs_300_epochs_s"] = best(
            lambda: train.write_outputs(big, Path(tmp) / "big", "s", "r"), args.repeats
        )
    args.out.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
