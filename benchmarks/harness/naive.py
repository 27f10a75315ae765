"""The NAIVE reference: the lesson's code, run one run after another in one Python process.

Written the way Lesson 45 writes it: nn.MultiheadAttention for the attention-only classifier,
nn.TransformerEncoderLayer(norm_first=...) blocks for the encoder (stacked in a plain ModuleList,
one freshly initialised layer per block, as the lesson's "stack 10 blocks" exercise does), default
Adam, the lesson's four-line loop, no logging, no files. Only the data come from the project
(ablation.data.make_order_data) so that both sides train on exactly the same sequences.

Parameters are created in the same order as ablation.model's, so under the same
torch.manual_seed the two start from the same weights.

    python benchmarks/harness/naive.py --config benchmarks/harness/bench.yaml --out naive.json [--threads N]

trains every run of every study of the config (torch's default thread count unless --threads)
and writes [{study, run_id, test_acc, seconds}, ...] to --out. It implements the lesson's variants
only (benchmarks/harness/naive.yaml) and refuses a config that asks for any other, before training anything.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml


IMPLEMENTED = yaml.safe_load((Path(__file__).resolve().parent / "naive.yaml").read_text())
"""{setting: {level: the arguments of the lesson-style model it gives}}: the variants this baseline
implements (ablation.model registers more)."""


def variants(s) -> dict:
    """The model arguments (pe, causal, norm_first) of a run's settings, or a one-line error for a
    level this baseline does not implement."""
    out = {}
    for setting, levels in IMPLEMENTED.items():
        value = getattr(s, setting)
        if value not in levels:
            raise ValueError(
                f"benchmarks/harness/naive.py implements {setting} {', '.join(map(str, levels))} only; "
                f"the config asks for {value!r}"
            )
        out |= levels[value]
    return out


def positional_encoding(T, D):
    """The lesson's table of sines and cosines (float32, as in the lesson)."""
    pos = torch.arange(T).unsqueeze(1).float()
    i = torch.arange(D).unsqueeze(0).float()
    angle_rates = 1.0 / (10000 ** (2 * (i // 2) / D))
    angles = pos * angle_rates
    pe = torch.zeros(T, D)
    pe[:, 0::2] = torch.sin(angles[:, 0::2])
    pe[:, 1::2] = torch.cos(angles[:, 1::2])
    return pe


class TinyAttnClassifier(nn.Module):
    """The lesson's classifier (heads and sequence length as arguments)."""

    def __init__(self, use_pe, D=16, H=4, T=8, hidden=16, causal=False):
        super().__init__()
        self.use_pe = use_pe
        self.mask = nn.Transformer.generate_square_subsequent_mask(T) if causal else None
        self.mha = nn.MultiheadAttention(D, H, batch_first=True)
        self.fc = nn.Sequential(nn.Linear(D, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        if use_pe:
            self.register_buffer("pe", positional_encoding(T, D))

    def forward(self, x):
        if self.use_pe:
            x = x + self.pe
        attn_out, _ = self.mha(x, x, x, need_weights=False, attn_mask=self.mask)
        return self.fc(attn_out.mean(dim=1)).squeeze(-1)


class EncoderClassifier(nn.Module):
    """The lesson's exercise: PE, `depth` nn.TransformerEncoderLayer blocks, mean-pool, the same head.

    Pre-norm ends with a final LayerNorm (as nn.TransformerEncoder(norm=...) users do, and as ours).
    """

    def __init__(self, use_pe, D=16, H=4, T=8, depth=2, FF=32, norm_first=False, hidden=16, causal=False):
        super().__init__()
        self.use_pe = use_pe
        self.mask = nn.Transformer.generate_square_subsequent_mask(T) if causal else None
        if use_pe:
            self.register_buffer("pe", positional_encoding(T, D))
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(
                d_model=D, nhead=H, dim_feedforward=FF, dropout=0.0, batch_first=True, norm_first=norm_first
            )
            for _ in range(depth)
        )
        self.final_norm = nn.LayerNorm(D) if norm_first else None
        self.fc = nn.Sequential(nn.Linear(D, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        if self.use_pe:
            x = x + self.pe
        for layer in self.layers:
            x = layer(x, src_mask=self.mask)
        if self.final_norm is not None:
            x = self.final_norm(x)
        return self.fc(x.mean(dim=1)).squeeze(-1)


def build(s):
    """The lesson-style model for a run's settings (an ablation.settings.Settings)."""
    v = variants(s)
    pe, causal, norm_first = v["pe"], v["causal"], v["norm_first"]
    if s.arch == "attention_only":
        return TinyAttnClassifier(pe, s.d_model, s.heads, s.seq_len, s.head_hidden, causal)
    return EncoderClassifier(pe, s.d_model, s.heads, s.seq_len, s.depth, s.ff, norm_first, s.head_hidden, causal)


def train_eval(s, data):
    """The lesson's train_eval: full-batch Adam, then test accuracy. Returns test accuracy."""
    torch.manual_seed(s.seed)
    model = build(s)
    opt = torch.optim.Adam(model.parameters(), lr=s.lr)
    for epoch in range(s.epochs):
        if s.warmup:  # linear warm-up, as the ablation's depth study uses it
            for group in opt.param_groups:
                group["lr"] = s.lr * min(1.0, (epoch + 1) / s.warmup)
        opt.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(data.X_train), data.y_train)
        loss.backward()
        opt.step()
    with torch.no_grad():
        return ((model(data.X_test) > 0).float() == data.y_test).float().mean().item()


def run_one(s):
    """Data + training of one run; (test accuracy, seconds)."""
    from ablation.data import make_order_data

    t0 = time.perf_counter()
    data = make_order_data(s)
    acc = train_eval(s, data)
    return acc, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    from ablation import config as C

    cfg = C.load(args.config)
    try:
        for study in cfg.studies.values():
            for run in study.runs():
                variants(run.settings)
    except ValueError as exc:
        sys.exit(f"error: {exc}")
    rows = []
    for name, study in cfg.studies.items():
        for run in study.runs():
            acc, seconds = run_one(run.settings)
            rows.append({"study": name, "run_id": run.run_id, "test_acc": acc, "seconds": seconds})
            print(f"{name}/{run.run_id}: acc {acc:.4f} in {seconds:.2f} s", flush=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump({"threads": torch.get_num_threads(), "runs": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
