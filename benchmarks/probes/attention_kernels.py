"""Is F.scaled_dot_product_attention (what the model calls) the fastest way to compute the
factorial's attention on a CPU core?

    python benchmarks/probes/attention_kernels.py [--batch 400] [--d-model 16] [--seq-lens 8 32] [--heads 1 8]
        [--repeats 7] [--out benchmarks/probes/attention_kernels.md]

Forward and backward of softmax(Q K^T / sqrt(d_head)) V over [batch, heads, seq_len, d_head]
(one attention layer of one training step: the model's shapes, d_head = d_model / heads), at 1
thread, by each formulation in KERNELS. Each time is the fastest of --repeats, the kernels
interleaved within each repeat.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: measured.py

from measured import line, stamp  # noqa: E402


def sdpa(q, k, v):  # [B, H, T, dh] -> [B, H, T, dh]: the model's kernel
    return F.scaled_dot_product_attention(q, k, v)


def explicit_bmm(q, k, v):  # the lesson's matmuls, heads folded into one batch of small products
    B, H, T, dh = q.shape
    scores = torch.bmm(q.reshape(B * H, T, dh) / math.sqrt(dh), k.reshape(B * H, T, dh).transpose(1, 2))
    return torch.bmm(scores.softmax(dim=-1), v.reshape(B * H, T, dh)).view(B, H, T, dh)


def outer_products(q, k, v):  # for a tiny d_head: the scores as a sum of d_head outer products
    dh = q.shape[-1]
    scores = sum(q[..., i, None] * k[..., None, :, i] for i in range(dh)) / math.sqrt(dh)  # [B, H, T, T]
    weights = scores.softmax(dim=-1)
    return torch.stack([(weights * v[..., None, :, i]).sum(dim=-1) for i in range(dh)], dim=-1)


KERNELS = {"scaled_dot_product_attention": sdpa, "explicit bmm": explicit_bmm, "outer products": outer_products}


def inputs(batch: int, heads: int, seq_len: int, d_model: int, seed: int = 0) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    shape = (batch, heads, seq_len, d_model // heads)
    return [torch.randn(shape, generator=g).requires_grad_(True) for _ in range(3)]


def step_seconds(kernel, qkv: list, repeats_inner: int = 3) -> float:
    t0 = time.perf_counter()
    for _ in range(repeats_inner):
        kernel(*qkv).sum().backward()
    return (time.perf_counter() - t0) / repeats_inner


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=400)
    ap.add_argument("--d-model", type=int, default=16)
    ap.add_argument("--seq-lens", type=int, nargs="+", default=[8, 32])
    ap.add_argument("--heads", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("attention_kernels.md"))
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    load0 = os.getloadavg()[0]
    rows = []
    for seq_len in args.seq_lens:
        for heads in args.heads:
            qkv = inputs(args.batch, heads, seq_len, args.d_model)
            best = {name: math.inf for name in KERNELS}
            for _ in range(args.repeats):
                for name, kernel in KERNELS.items():
                    best[name] = min(best[name], step_seconds(kernel, qkv))
            rows.append((seq_len, heads, best))
            print(rows[-1], flush=True)
    load1 = os.getloadavg()[0]
    names = list(KERNELS)
    lines = [
        "# One attention layer on a CPU core: scaled_dot_product_attention against the explicit and outer-product forms",
        "",
        line(stamp()),
        "",
        f"Written by `python benchmarks/probes/attention_kernels.py --batch {args.batch} --d-model {args.d_model} "
        f"--seq-lens {' '.join(map(str, args.seq_lens))} --heads {' '.join(map(str, args.heads))} "
        f"--repeats {args.repeats}`: torch {torch.__version__}, 1 thread; load average {load0:.1f} "
        f"before and {load1:.1f} after. Forward + backward of one attention layer, fastest of {args.repeats}, "
        "kernels interleaved; in brackets each time divided by scaled_dot_product_attention's.",
        "",
        "| seq_len | heads | " + " | ".join(names) + " |",
        "| ---: | ---: | " + " | ".join("---:" for _ in names) + " |",
    ]
    for seq_len, heads, best in rows:
        base = best[names[0]]
        cells = [f"{best[n] * 1e3:.2f} ms ({best[n] / base:.2f})" for n in names]
        lines.append(f"| {seq_len} | {heads} | " + " | ".join(cells) + " |")
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
