"""Figures of a study (seaborn/matplotlib, PNG), generic over whatever factors the study varies.

- accuracy_by_factor: test accuracy against each factor, every run a dot, means with 95 % intervals;
- interactions: mean test accuracy for every pair of factors (heatmaps);
- learning_curves: training loss and accuracy per epoch, each run thin, each group's mean bold;
- grad_norms_init: per-layer gradient norms at step 0, each run thin, each group's mean bold;
and, for the whole project, the sinusoidal positional-encoding heatmap.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402

from . import io  # noqa: E402

DPI = 110
PALETTE = "colorblind"


def _save(fig, path: Path) -> None:
    import io as _io

    buf = _io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    io.write_bytes(path, buf.getvalue())


def _note(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, fontsize=10, wrap=True)
    ax.set_axis_off()


def _ordered(values) -> list:
    """Levels in a natural order: numbers numerically, strings as they come (none before sinusoidal)."""
    vals = list(dict.fromkeys(values))
    try:
        return sorted(vals, key=float)
    except (TypeError, ValueError):
        return vals


def _group_factor(factors: list[str]) -> str | None:
    """The factor that colours grouped plots: norm placement if varied, else the first non-PE factor."""
    for preferred in ("norm", "warmup", "heads"):
        if preferred in factors:
            return preferred
    rest = [f for f in factors if f != "pos_enc"]
    return rest[0] if rest else (factors[0] if factors else None)


def accuracy_by_factor(summary: pd.DataFrame, factors: list[str], path: Path) -> None:
    df = summary.copy()
    df["test_acc"] = pd.to_numeric(df["test_acc"], errors="coerce")
    panels = factors or [None]
    ncol = min(len(panels), 4)
    nrow = int(np.ceil(len(panels) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.6 * nrow), squeeze=False, sharey=True, layout="constrained")
    hue = "pos_enc" if "pos_enc" in factors else None
    for ax, factor in zip(axes.flat, panels):
        if factor is None:
            df["_all"] = "all runs"
            factor = "_all"
        order = _ordered(df[factor].astype(str))
        this_hue = hue if hue and factor != hue else None
        hue_order = _ordered(df[this_hue].astype(str)) if this_hue else None
        plot = df.assign(**{factor: df[factor].astype(str)})
        if this_hue:
            plot[this_hue] = plot[this_hue].astype(str)
        sns.stripplot(
            data=plot, x=factor, y="test_acc", hue=this_hue, order=order, hue_order=hue_order,
            dodge=bool(this_hue), alpha=0.45, size=3.5, jitter=0.25, palette=PALETTE if this_hue else None,
            color=None if this_hue else "0.35", ax=ax, legend=False,
        )
        sns.pointplot(
            data=plot, x=factor, y="test_acc", hue=this_hue, order=order, hue_order=hue_order,
            dodge=0.4 if this_hue else False, errorbar=("ci", 95), seed=0, linestyle="none",
            markers="D", palette=PALETTE if this_hue else None, color=None if this_hue else "black",
            capsize=0.12, ax=ax, legend=bool(this_hue) and ax is axes.flat[0],
        )
        ax.axhline(0.5, color="0.6", lw=0.8, ls="--")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(factor if factor != "_all" else "")
        ax.set_ylabel("test accuracy")
    for ax in list(axes.flat)[len(panels):]:
        ax.set_axis_off()
    fig.suptitle("Test accuracy by factor (dots: runs; diamonds: mean with 95 % bootstrap CI; dashed: chance)")
    _save(fig, path)


def interactions(summary: pd.DataFrame, factors: list[str], path: Path) -> None:
    df = summary.copy()
    df["test_acc"] = pd.to_numeric(df["test_acc"], errors="coerce")
    title = "Mean test accuracy for each pair of factors"
    if "pos_enc" in factors and (df["pos_enc"] == "sinusoidal").any():
        df = df[df["pos_enc"] == "sinusoidal"]
        rest = [f for f in factors if f != "pos_enc"]
        title += " (with sinusoidal positional encoding)"
    else:
        rest = list(factors)
    pairs = list(itertools.combinations(rest, 2))
    if not pairs:
        fig, ax = plt.subplots(figsize=(5, 2.5), layout="constrained")
        _note(ax, "This study varies fewer than two factors\n(besides positional encoding): no interactions to show.")
        _save(fig, path)
        return
    ncol = min(len(pairs), 3)
    nrow = int(np.ceil(len(pairs) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.4 * ncol, 3.6 * nrow), squeeze=False, layout="constrained")
    for ax, (a, b) in zip(axes.flat, pairs):
        table = df.pivot_table(index=a, columns=b, values="test_acc", aggfunc="mean")
        table = table.reindex(index=_ordered(table.index), columns=_ordered(table.columns))
        sns.heatmap(table, annot=True, fmt=".3f", vmin=0.5, vmax=1.0, cmap="viridis", cbar=False, ax=ax)
        ax.set_title(f"{a} x {b}")
    for ax in list(axes.flat)[len(pairs):]:
        ax.set_axis_off()
    fig.suptitle(title)
    _save(fig, path)


def _thin_and_bold(ax, data: pd.DataFrame, x: str, y: str, group: str | None, log: bool = False) -> None:
    groups = _ordered(data[group].astype(str)) if group else ["all runs"]
    colors = sns.color_palette(PALETTE, len(groups))
    for color, level in zip(colors, groups):
        sub = data if group is None else data[data[group].astype(str) == level]
        segments = [g[[x, y]].to_numpy(float) for _, g in sub.groupby("run_id", sort=False)]
        ax.add_collection(LineCollection(segments, colors=[color], linewidths=0.6, alpha=0.25))
        mean = sub.groupby(x)[y].mean()
        ax.plot(mean.index, mean.to_numpy(), color=color, lw=2.2, label=f"{group}={level}" if group else level)
    ax.autoscale()
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(y)


def _facet_factor(factors: list[str], group: str | None) -> str | None:
    """A second factor to split grouped plots into rows (warm-up, positional encoding, ...)."""
    for candidate in ("warmup", "pos_enc", "depth", "lr"):
        if candidate in factors and candidate != group:
            return candidate
    return None


def learning_curves(curves: pd.DataFrame, factors: list[str], path: Path) -> None:
    group = _group_factor(factors)
    facet = _facet_factor(factors, group)
    levels = _ordered(curves[facet].astype(str)) if facet and not curves.empty else [None]
    fig, axes = plt.subplots(len(levels), 2, figsize=(11, 3.6 * len(levels)), squeeze=False, layout="constrained")
    if curves.empty:
        for ax in axes.flat:
            _note(ax, "no epochs recorded")
    else:
        curves = curves.copy()
        for col in ("epoch", "train_loss", "train_acc"):
            curves[col] = pd.to_numeric(curves[col], errors="coerce")
        finite = curves[np.isfinite(curves["train_loss"])]
        for row, level in zip(axes, levels):
            sub = finite if level is None else finite[finite[facet].astype(str) == level]
            _thin_and_bold(row[0], sub, "epoch", "train_loss", group, log=True)
            _thin_and_bold(row[1], sub, "epoch", "train_acc", group)
            row[1].set_ylim(0.3, 1.02)
            row[1].legend(loc="lower right", fontsize=8)
            if level is not None:
                row[0].set_title(f"{facet}={level}: training loss")
                row[1].set_title(f"{facet}={level}: training accuracy")
    fig.suptitle("Learning curves (thin: each run; bold: mean of the group)")
    _save(fig, path)


def grad_norms_init(init_grads: pd.DataFrame, factors: list[str], path: Path) -> None:
    group = _group_factor(factors)
    fig, ax = plt.subplots(figsize=(6, 3.8), layout="constrained")
    if init_grads.empty:
        _note(ax, "no per-layer gradient norms recorded")
    else:
        data = init_grads.copy()
        data["layer"] = pd.to_numeric(data["layer"])
        data["grad_norm"] = pd.to_numeric(data["grad_norm"], errors="coerce")
        _thin_and_bold(ax, data, "layer", "grad_norm", group, log=True)
        ax.set_xlabel("layer (0 = next to the input)")
        ax.set_ylabel("gradient norm at step 0")
        ax.legend(fontsize=8)
    ax.set_title("Per-layer gradient norms at initialisation")
    _save(fig, path)


def positional_encoding_figure(seq_len: int, d_model: int, path: Path) -> None:
    from .model import sinusoidal_encoding

    pe = sinusoidal_encoding(seq_len, d_model).numpy()
    fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
    im = ax.imshow(pe.T, cmap="RdBu", aspect="auto", vmin=-1, vmax=1)
    ax.set_xlabel("position")
    ax.set_ylabel("encoding dimension")
    ax.set_title(f"Sinusoidal positional encoding (T={seq_len}, D={d_model})")
    fig.colorbar(im, ax=ax, fraction=0.046)
    _save(fig, path)


def study_figures(summary, curves, init_grads, factors, outdir: Path) -> list[Path]:
    sns.set_theme(style="whitegrid", context="notebook")
    outdir = Path(outdir)
    paths = {
        "accuracy_by_factor": outdir / "accuracy_by_factor.png",
        "interactions": outdir / "interactions.png",
        "learning_curves": outdir / "learning_curves.png",
        "grad_norms_init": outdir / "grad_norms_init.png",
    }
    accuracy_by_factor(summary, factors, paths["accuracy_by_factor"])
    interactions(summary, factors, paths["interactions"])
    learning_curves(curves, factors, paths["learning_curves"])
    grad_norms_init(init_grads, factors, paths["grad_norms_init"])
    return list(paths.values())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--factors", help="the study's factor names as a JSON list")
    ap.add_argument("--summary", type=Path)
    ap.add_argument("--curves", type=Path)
    ap.add_argument("--init-grads", type=Path)
    ap.add_argument("--cells", type=Path, help="the cell table (read to check it exists)")
    ap.add_argument("--outdir", type=Path)
    ap.add_argument("--pe-figure", type=Path, help="draw only the positional-encoding heatmap here")
    ap.add_argument("--seq-len", type=int, default=32)
    ap.add_argument("--d-model", type=int, default=16)
    args = ap.parse_args(argv)
    if args.pe_figure:
        positional_encoding_figure(args.seq_len, args.d_model, args.pe_figure)
        return 0
    factors = json.loads(args.factors)
    keep = {f: str for f in factors}
    summary = pd.read_csv(args.summary, dtype=keep | {"run_id": str})
    curves = pd.read_csv(args.curves, dtype=keep | {"run_id": str})
    grads = pd.read_csv(args.init_grads, dtype=keep | {"run_id": str})
    for path in study_figures(summary, curves, grads, factors, args.outdir):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
