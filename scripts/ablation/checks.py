"""The lesson's implementation checks, run on our code.

Each check copies the weights of a torch reference module into ours and compares the outputs on
the same input (and, for the encoder blocks, the parameter gradients too, since training relies on
them; as a difference relative to the largest gradient):

- our MultiHeadSelfAttention vs nn.MultiheadAttention (D=16, H=4 as in the lesson, and H=1);
- our post-norm EncoderBlock vs nn.TransformerEncoderLayer(norm_first=False);
- our pre-norm EncoderBlock vs nn.TransformerEncoderLayer(norm_first=True).

    python -m ablation.checks --out results/checks.csv
"""

from __future__ import annotations

import argparse
import sys

import torch
import torch.nn as nn

from . import io
from .model import EncoderBlock, MultiHeadSelfAttention

FIELDS = ["check", "max_abs_diff", "tolerance", "status", "lesson_value"]
D, FF = 16, 32


def _row(check: str, diff: float, tol: float, lesson_value) -> dict:
    return {
        "check": check,
        "max_abs_diff": diff,
        "tolerance": tol,
        "status": "PASS" if diff <= tol else "FAIL",  # a NaN difference fails
        "lesson_value": lesson_value,
    }


def _max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a - b).abs().max().item()


def attention_diff(heads: int, seed: int = 0) -> float:
    """max |ours - nn.MultiheadAttention| on a (2, 5, D) input, torch's weights copied into ours."""
    torch.manual_seed(seed)
    ref = nn.MultiheadAttention(D, heads, batch_first=True)
    ours = MultiHeadSelfAttention(D, heads)
    ours.load_state_dict(ref.state_dict())
    x = torch.randn(2, 5, D)
    # with gradients enabled torch takes its ordinary path (not the fused inference kernel), as in the lesson
    expected, _ = ref(x, x, x, need_weights=False)
    return _max_diff(ours(x).detach(), expected.detach())


def block_diffs(norm: str, heads: int = 4, seed: int = 0) -> tuple[float, float]:
    """Our EncoderBlock vs nn.TransformerEncoderLayer: (max abs output difference, max abs
    parameter-gradient difference relative to the largest reference gradient)."""
    torch.manual_seed(seed)
    ref = nn.TransformerEncoderLayer(
        d_model=D, nhead=heads, dim_feedforward=FF, dropout=0.0, batch_first=True, norm_first=norm == "pre"
    )
    ours = EncoderBlock(D, heads, FF, norm)
    ours.load_state_dict(ref.state_dict())
    x = torch.randn(2, 6, D)
    out_ref, out_ours = ref(x), ours(x)
    target = torch.randn_like(out_ref)
    (out_ref * target).sum().backward()
    (out_ours * target).sum().backward()
    grads_ref = dict(ref.named_parameters())
    grad_diff = max(_max_diff(p.grad, grads_ref[name].grad) for name, p in ours.named_parameters())
    grad_scale = max(p.grad.abs().max().item() for p in ref.parameters())
    return _max_diff(out_ours.detach(), out_ref.detach()), grad_diff / grad_scale


def run_checks(tol: float = 1e-6) -> list[dict]:
    """Every check as a row: check, max_abs_diff, tolerance, status ('PASS'|'FAIL'), lesson_value."""
    post_out, post_grad = block_diffs("post")
    pre_out, pre_grad = block_diffs("pre")
    return [
        _row("attention_vs_nn.MultiheadAttention_H4", attention_diff(4), tol, 6.3e-08),
        _row("attention_vs_nn.MultiheadAttention_H1", attention_diff(1), tol, None),
        _row("encoder_block_post_vs_nn.TransformerEncoderLayer", post_out, tol, 0.0),
        _row("encoder_block_post_grads_vs_nn.TransformerEncoderLayer_relative", post_grad, tol, None),
        _row("encoder_block_pre_vs_nn.TransformerEncoderLayer_norm_first", pre_out, tol, None),
        _row("encoder_block_pre_grads_vs_nn.TransformerEncoderLayer_norm_first_relative", pre_grad, tol, None),
    ]


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ablation.checks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="CSV file of the checks")
    parser.add_argument("--tol", type=float, default=1e-6, help="largest allowed max abs difference")
    args = parser.parse_args(argv)
    rows = run_checks(args.tol)
    io.write_csv(args.out, rows, FIELDS)
    for row in rows:
        print(f"{row['status']}  {row['check']}: max abs diff {row['max_abs_diff']:.2e}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
