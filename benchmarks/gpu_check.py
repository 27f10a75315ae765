"""The GPU check, for a machine with an NVIDIA GPU: run once there, it writes benchmarks/gpu.md.

    make venv && .venv/bin/python benchmarks/gpu_check.py [--cores 4] [--epochs 300] [--out benchmarks/gpu.md]

1. Per-run training time on the GPU against the CPU (1 thread, as the pipeline's jobs run): a few
   cells of the default config's factorial and depth studies, ``--epochs`` epochs each, fastest of
   two; and whether two GPU runs of one setting end on the same params_sha256 (and whether that is
   the CPU run's).
2. The smoke config with ``device: cuda`` (outdir smoke-cuda): the whole pipeline, then `make
   verify` on it (re-trains a sample of its runs, bit for bit; its verify.csv says which matched).

Every number in gpu.md comes from this script. Stops with a one-line error where CUDA is missing.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import yaml

from ablation import settings as S
from ablation.data import make_order_data
from ablation.train import train_run
from measured import line, stamp  # benchmarks/measured.py, beside this script

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
BIN = Path(sys.executable).parent
CELLS = (  # (study, settings it fixes beyond the study's own; the rest: defaults): the cheapest, the costliest cells
    ("factorial", {"heads": 1, "seq_len": 8, "norm": "post"}),
    ("factorial", {"heads": 8, "seq_len": 32, "norm": "pre"}),
    ("depth", {"norm": "pre", "warmup": 0}),
)


def cell_settings(study: str, extra: dict, epochs: int) -> dict:
    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    return {**cfg["defaults"], **cfg["studies"][study].get("fixed", {}), **extra, "epochs": epochs, "seed": 0}


def time_cells(epochs: int) -> list[dict]:
    torch.set_num_threads(1)
    rows = []
    for study, extra in CELLS:
        base = cell_settings(study, extra, epochs)
        data = make_order_data(S.from_dict(base))
        row = {"cell": f"{study}: " + ", ".join(f"{k} {v}" for k, v in extra.items())}
        for device in ("cpu", "cuda"):
            s = S.from_dict({**base, "device": device})
            train_run(S.from_dict({**base, "device": device, "epochs": 2}), data=data)  # warm-up
            runs = [train_run(s, data=data) for _ in range(2)]
            row[f"{device}_s"] = min(r.train_seconds for r in runs)
            row[f"{device}_sha"] = [r.params_sha256 for r in runs]
        row["gpu_repeatable"] = row["cuda_sha"][0] == row["cuda_sha"][1]
        row["gpu_equals_cpu"] = row["cuda_sha"][0] == row["cpu_sha"][0]
        rows.append(row)
        print(row, flush=True)
    return rows


def pipeline(cores: int) -> dict:
    cfg = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
    cfg["outdir"] = "smoke-cuda"
    cfg["defaults"]["device"] = "cuda"
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", dir=REPO / "config", delete=False) as fh:
        yaml.safe_dump(cfg, fh, sort_keys=False)
    config = Path(fh.name)
    try:
        snake = [str(BIN / "snakemake"), "--cores", str(cores), f"--configfile={config}"]
        run = subprocess.run(snake, cwd=REPO, capture_output=True, text=True)
        verify = subprocess.run([*snake, "--forcerun", "verify"], cwd=REPO, capture_output=True, text=True)
    finally:
        config.unlink()
    out = {"pipeline_rc": run.returncode, "verify_rc": verify.returncode, "tail": (run.stderr + verify.stderr)[-2000:]}
    verify_csv = REPO / cfg["outdir"] / "results" / "verify.csv"
    if verify_csv.is_file():
        rows = list(csv.DictReader(verify_csv.open()))
        out["verified"] = len(rows)
        out["identical"] = sum(r["identical"] == "True" for r in rows)
    return out


def render(rows: list[dict], pipe: dict, epochs: int) -> str:
    lines = [
        "# GPU check",
        "",
        line(stamp()),
        "",
        "Written by `benchmarks/gpu_check.py`: "
        f"{torch.cuda.get_device_name(0)}, torch {torch.__version__} (CUDA {torch.version.cuda}).",
        "",
        f"## Per-run training time, {epochs} epochs (fastest of two; CPU at 1 thread)",
        "",
        "| cell | CPU s | GPU s | CPU ÷ GPU | two GPU runs identical | GPU = CPU bytes |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        lines.append(f"| {r['cell']} | {r['cpu_s']:.2f} | {r['cuda_s']:.2f} | {r['cpu_s'] / r['cuda_s']:.2f} | "
                     f"{'yes' if r['gpu_repeatable'] else 'NO'} | {'yes' if r['gpu_equals_cpu'] else 'no'} |")  # fmt: skip
    lines += [
        "",
        "## The smoke config with `device: cuda`",
        "",
        f"- pipeline exit status: {pipe['pipeline_rc']}",
        f"- `make verify` (snakemake --forcerun verify) exit status: {pipe['verify_rc']}; "
        f"runs re-trained bit for bit identical: {pipe.get('identical', '?')} of {pipe.get('verified', '?')}",
        "",
    ]
    if pipe["pipeline_rc"] or pipe["verify_rc"]:
        lines += ["```", pipe["tail"], "```", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cores", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=300)
    ap.add_argument("--out", type=Path, default=HERE / "gpu.md")
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        sys.exit(f"gpu_check: CUDA is not available to this torch ({torch.__version__}); run it on a GPU machine")
    rows = time_cells(args.epochs)
    pipe = pipeline(args.cores)
    args.out.write_text(render(rows, pipe, args.epochs))
    print(args.out.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
