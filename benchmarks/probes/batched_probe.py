"""The hand-batched layout: is training a cell's seeds in one process, the seed
dimension folded into the batch and per-member weights through bmm, worth its complexity?

    python benchmarks/probes/batched_probe.py [--members 5] [--epochs 40] [--repeats 3] [--seq-lens 8 32] [--heads 1 8]
        [--out benchmarks/probes/batched_probe.md]

A prototype, not the pipeline's model: a post-norm 2-block encoder with sinusoidal encoding (the
factorial grid's shape) written twice, once as ablation.model builds it (one run per model) and once
with every weight stacked over S members ([S, ...] parameters, torch.baddbmm for the linear layers,
F.scaled_dot_product_attention over [S * B, H, T, dh], LayerNorm without affine then a per-member
scale and shift). Both train the same steps as ablation.train (full-batch forward, BCE loss,
backward, global gradient norm, fused Adam), 1 thread, on each member's own data.

It measures, per factorial cell shape (seq_len x heads): the wall time of S runs one after another
against one batched run of S members (fastest of --repeats, interleaved), and whether a member's
final weights depend on how many members share the batch (S = 1 against S = members, bit for bit).
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

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: measured.py

from measured import line, stamp  # noqa: E402

from ablation.data import make_order_data  # noqa: E402
from ablation.architectures import build_model  # noqa: E402
from ablation.model import sinusoidal_encoding  # noqa: E402
from ablation.settings import Settings  # noqa: E402
from ablation.train import Adam, _norm  # noqa: E402


def member_settings(seq_len: int, heads: int, seed: int) -> Settings:
    return Settings(arch="encoder", depth=2, heads=heads, seq_len=seq_len, norm="post",
                    pos_enc="sinusoidal", seed=seed)  # fmt: skip


# --- one run per model: what ablation.train does today -------------------------------------------


def train_alone(s: Settings, data, epochs: int) -> torch.nn.Module:
    X, y = data.X_train, data.y_train
    torch.manual_seed(s.seed)
    model = build_model(s)
    params = list(model.parameters())
    opt = Adam(params)
    for _ in range(epochs):
        loss = F.binary_cross_entropy_with_logits(model(X), y)
        opt.zero_grad()
        loss.backward()
        _norm([p.grad for p in params])
        opt.step(s.lr)
    return model


# --- S members in one model: every weight stacked over a leading member dimension -----------------


def stack_members(models: list) -> dict:
    """{name: [S, ...] leaf tensor} from S models of one architecture (their initial weights)."""
    states = [m.state_dict() for m in models]
    return {k: torch.stack([st[k] for st in states]).clone().requires_grad_(True)
            for k in states[0] if not k.endswith("pe")}  # fmt: skip


def linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # x: [S, N, in], w: [S, out, in], b: [S, out] -> [S, N, out]
    return torch.baddbmm(b.unsqueeze(1), x, w.transpose(1, 2))


def layer_norm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # x: [S, N, D]; per-member affine after a shared normalisation
    return torch.addcmul(b.unsqueeze(1), F.layer_norm(x, x.shape[-1:]), w.unsqueeze(1))


def batched_forward(P: dict, X: torch.Tensor, pe: torch.Tensor, heads: int, depth: int) -> torch.Tensor:
    S, B, T, D = X.shape
    H, dh = heads, D // heads
    x = (X + pe).reshape(S, B * T, D)  # [S, B*T, D]
    for i in range(depth):
        p = f"blocks.{i}."
        qkv = linear(x, P[p + "self_attn.in_proj_weight"], P[p + "self_attn.in_proj_bias"])  # [S, B*T, 3D]
        q, k, v = (t.reshape(S * B, T, H, dh).transpose(1, 2) for t in qkv.chunk(3, dim=-1))
        a = F.scaled_dot_product_attention(q, k, v)  # [S*B, H, T, dh]
        a = a.transpose(1, 2).reshape(S, B * T, D)
        a = linear(a, P[p + "self_attn.out_proj.weight"], P[p + "self_attn.out_proj.bias"])
        x = layer_norm(x + a, P[p + "norm1.weight"], P[p + "norm1.bias"])
        f = linear(F.relu(linear(x, P[p + "linear1.weight"], P[p + "linear1.bias"])),
                   P[p + "linear2.weight"], P[p + "linear2.bias"])  # fmt: skip
        x = layer_norm(x + f, P[p + "norm2.weight"], P[p + "norm2.bias"])
    pooled = x.reshape(S, B, T, D).mean(dim=2)  # [S, B, D]
    h = F.relu(linear(pooled, P["head.0.weight"], P["head.0.bias"]))
    return linear(h, P["head.2.weight"], P["head.2.bias"]).squeeze(-1)  # [S, B]


def train_batched(settings: list, datas: list, epochs: int) -> dict:
    models = []
    for s in settings:
        torch.manual_seed(s.seed)
        models.append(build_model(s))
    P = stack_members(models)
    s0 = settings[0]
    pe = sinusoidal_encoding(s0.seq_len, s0.d_model)
    X = torch.stack([d.X_train for d in datas])  # [S, B, T, D]
    y = torch.stack([d.y_train for d in datas])  # [S, B]
    params = list(P.values())
    opt = Adam(params)
    for _ in range(epochs):
        logits = batched_forward(P, X, pe, s0.heads, s0.depth)
        loss = F.binary_cross_entropy_with_logits(logits, y, reduction="none").mean(dim=1)  # [S]
        opt.zero_grad()
        loss.sum().backward()  # members' losses are independent: each gets gradient 1
        member_sq = torch.stack([p.grad.flatten(1).pow(2).sum(dim=1) for p in params]).sum(dim=0)
        member_sq.sqrt()  # [S]: each member's global gradient norm, as train_run records
        opt.step(s0.lr)
    return P


def best_of(fn, repeats: int) -> float:
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--members", type=int, default=5)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seq-lens", type=int, nargs="+", default=[8, 32])
    ap.add_argument("--heads", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("batched_probe.md"))
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    load0 = os.getloadavg()[0]
    rows = []
    for seq_len in args.seq_lens:
        for heads in args.heads:
            settings = [member_settings(seq_len, heads, seed) for seed in range(args.members)]
            datas = [make_order_data(s) for s in settings]
            alone = best_of(lambda: [train_alone(s, d, args.epochs) for s, d in zip(settings, datas)], args.repeats)
            batched = best_of(lambda: train_batched(settings, datas, args.epochs), args.repeats)
            one = train_batched(settings[:1], datas[:1], args.epochs)
            many = train_batched(settings, datas, args.epochs)
            same = all(torch.equal(one[k][0], many[k][0]) for k in one)
            rows.append((seq_len, heads, alone, batched, same))
            print(rows[-1], flush=True)
    load1 = os.getloadavg()[0]
    total_alone, total_batched = sum(r[2] for r in rows), sum(r[3] for r in rows)
    lines = [
        "# The hand-batched layout: a cell's seeds in one batched run against one run after another",
        "",
        line(stamp()),
        "",
        f"Written by `python benchmarks/probes/batched_probe.py --members {args.members} --epochs {args.epochs} "
        f"--repeats {args.repeats} --seq-lens {' '.join(map(str, args.seq_lens))} "
        f"--heads {' '.join(map(str, args.heads))}`: torch {torch.__version__}, 1 thread; load average "
        f"{load0:.1f} before and {load1:.1f} after. Fastest of {args.repeats}, alone and batched interleaved.",
        "",
        f"{args.members} seeds of one cell (2-block post-norm encoder, sinusoidal, d_model 16, n_train 400), "
        f"{args.epochs} full-batch epochs each: one run after another as ablation.train trains them, "
        "against one batched run of all of them.",
        "",
        "| seq_len | heads | one after another | batched | speed-up | member 0 alone = in the batch (bit for bit) |",
        "| ---: | ---: | ---: | ---: | ---: | --- |",
        *(f"| {t} | {h} | {a:.2f} s | {b:.2f} s | {a / b:.2f}x | {'yes' if same else 'no'} |" for t, h, a, b, same in rows),
        f"| all | | {total_alone:.2f} s | {total_batched:.2f} s | {total_alone / total_batched:.2f}x | |",
        "",
    ]
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
