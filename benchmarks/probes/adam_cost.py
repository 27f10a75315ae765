"""What the optimiser costs a training job: torch's fused Adam kernel called directly (``kernel``), through
torch's functional API as ``ablation.train.Adam`` does (``functional``: ``torch.optim.adam.adam(...,
fused=True)``) and through ``torch.optim.Adam(fused=True)`` (``module``).

    python benchmarks/probes/adam_cost.py [--jobs 5] [--steps 300] [--out adam_cost.json]

Each job builds the default model (``ablation.architectures.build_model`` of the default settings), gives its
parameters fixed gradients, and times the optimiser's construction plus its first step (what every job
pays once: lazy imports, first calls) and then ``--steps`` further steps (the per-step cost; the default
run has 300). The jobs run three ways: forked from the fork server (``ablation.forkserver serve`` with
this module as its target: the server imports torch and ``ablation.train`` once, as the workflow's
does), forked from a fork server that also imported ``torch._dynamo``, and each in a process of its own
(a cluster job, ``ABLATION_FORK_SERVER=0``). Prints a table (fastest job of each) and writes the JSON;
every implementation must leave the parameters bit-identical.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

import ablation.train  # noqa: F401  (what the fork server imports before it forks)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: measured.py
from measured import stamp  # noqa: E402

if os.environ.get("ADAM_COST_PRELOAD_DYNAMO") == "1":  # set for the server that also imports torch._dynamo
    import torch._dynamo  # noqa: F401

HERE = Path(__file__).resolve().parent
IMPLS = ("kernel", "functional", "module")
LAUNCHERS = ("fork server", "fork server, torch._dynamo imported", "own process")


def _kernel(params: list):
    """torch._fused_adam_ (a private torch function) on the parameters' state."""
    m = [torch.zeros_like(p) for p in params]
    v = [torch.zeros_like(p) for p in params]
    steps = [torch.zeros((), dtype=torch.float32) for _ in params]

    def step(lr):
        torch._foreach_add_(steps, 1)
        torch._fused_adam_(params, [p.grad for p in params], m, v, [], steps, lr=lr, beta1=0.9, beta2=0.999,
                           weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False, grad_scale=None,
                           found_inf=None)  # fmt: skip

    return step


def _functional(params: list):
    """ablation.train.Adam: torch.optim.adam.adam(..., fused=True)."""
    return ablation.train.Adam(params).step


def _module(params: list):
    opt = torch.optim.Adam(params, lr=0.0, fused=True)

    def step(lr):
        opt.param_groups[0]["lr"] = lr
        opt.step()

    return step


def job(impl: str, steps: int) -> dict:
    """One job's optimiser: construction + first step, then ``steps`` steps."""
    from ablation import settings as S
    from ablation.architectures import build_model

    dynamo_before = "torch._dynamo" in sys.modules
    torch.set_num_threads(1)
    torch.manual_seed(0)
    params = list(build_model(S.from_dict({})).parameters())
    with torch.no_grad():
        for p in params:
            p.grad = torch.randn_like(p) * 1e-2
    with torch.no_grad():
        t0 = time.perf_counter()
        step = {"kernel": _kernel, "functional": _functional, "module": _module}[impl](params)
        step(1e-3)
        t1 = time.perf_counter()
        for _ in range(steps):
            step(1e-3)
        t2 = time.perf_counter()
    digest = hashlib.sha256(b"".join(p.detach().numpy().tobytes() for p in params)).hexdigest()
    return {
        "impl": impl,
        "launcher": os.environ.get("ABLATION_LAUNCHER", "process"),
        "first_step_s": t1 - t0,
        "per_step_s": (t2 - t1) / steps,
        "torch_dynamo_before": dynamo_before,
        "torch_dynamo_after": "torch._dynamo" in sys.modules,
        "params_sha256": digest,
    }


def main(argv=None) -> int:
    """The fork server's target: ``--impl I --steps N --out FILE`` runs one job into FILE."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--impl", choices=IMPLS, required=True)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    args.out.write_text(json.dumps(job(args.impl, args.steps)))
    return 0


def _start_server(sock: Path, preload_dynamo: bool) -> subprocess.Popen:
    env = {**os.environ, "ADAM_COST_PRELOAD_DYNAMO": "1" if preload_dynamo else "0"}
    cmd = [sys.executable, "-m", "ablation.forkserver", "serve", "--socket", str(sock), "--target", "adam_cost"]
    proc = subprocess.Popen(cmd, cwd=HERE, env=env, stdin=subprocess.DEVNULL)
    t0 = time.monotonic()
    while not sock.exists():
        if proc.poll() is not None or time.monotonic() - t0 > 120:
            raise RuntimeError("the fork server did not start")
        time.sleep(0.02)
    return proc


def bench(jobs: int, steps: int) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for launcher in LAUNCHERS:
            server, env = None, {**os.environ, "ABLATION_FORK_SERVER": "0"}
            if launcher != "own process":
                sock = Path(tmp) / f"{len(rows)}.sock"
                server = _start_server(sock, preload_dynamo="_dynamo" in launcher)
                env["ABLATION_FORK_SERVER"] = str(sock)
            try:
                for i in range(jobs + 1):  # the first round warms the server (its children: import of this module)
                    for impl in IMPLS:
                        out = Path(tmp) / f"{launcher}-{impl}-{i}.json"
                        args = ["--impl", impl, "--steps", str(steps), "--out", str(out)]
                        if server is None:
                            cmd = [sys.executable, str(HERE / "adam_cost.py"), "job", *args]
                        else:
                            cmd = [sys.executable, "-m", "ablation.forkserver", "train", *args]
                        subprocess.run(cmd, cwd=HERE, env=env, check=True)
                        row = json.loads(out.read_text()) | {"setup": launcher, "round": i}
                        expected = "process" if server is None else "fork-server"
                        if row["launcher"] != expected:
                            raise RuntimeError(f"{launcher}: job ran as {row['launcher']!r}, not {expected!r}")
                        rows.append(row)
            finally:
                if server is not None:
                    server.terminate()
                    server.wait()
    return [r for r in rows if r["round"] > 0]


def cli(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=5, help="jobs per implementation and launcher (fastest shown)")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--out", type=Path, default=None, help="the JSON of every job")
    args = ap.parse_args(argv)
    rows = bench(args.jobs, args.steps)
    print(f"torch {torch.__version__}; fastest of {args.jobs} jobs; default model, {args.steps} steps\n")
    print("| launcher | optimiser | construction + first step | per step | torch._dynamo at start / end |")
    print("| --- | --- | --- | --- | --- |")
    for launcher in LAUNCHERS:
        for impl in IMPLS:
            mine = [r for r in rows if r["setup"] == launcher and r["impl"] == impl]
            first = min(r["first_step_s"] for r in mine)
            per = min(r["per_step_s"] for r in mine)
            print(f"| {launcher} | {impl} | {first * 1e3:.1f} ms | {per * 1e6:.0f} µs | "
                  f"{mine[0]['torch_dynamo_before']} / {mine[0]['torch_dynamo_after']} |")  # fmt: skip
    hashes = {r["params_sha256"] for r in rows}
    print(f"\nparameters after {args.steps + 1} steps: {'bit-identical' if len(hashes) == 1 else 'DIFFER'} "
          f"across every implementation and launcher")  # fmt: skip
    if args.out:
        args.out.write_text(json.dumps({"measured": stamp(), "rows": rows}, indent=1))
    return 0 if len(hashes) == 1 else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["job"]:
        sys.exit(main(sys.argv[2:]))
    sys.exit(cli())
