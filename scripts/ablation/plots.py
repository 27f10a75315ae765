"""Figures of a study (seaborn/matplotlib, PNG), generic over whatever factors the study varies.

- accuracy_by_factor: test accuracy against each factor, every run a dot, means with intervals at
  the configured confidence (stats.confidence);
- interactions: mean test accuracy for every pair of factors (heatmaps);
- learning_curves: training loss and accuracy per epoch, each run thin (above THIN_MAX_RUNS runs
  in a group: the band of the middle 90 % of its runs), each group's mean bold;
- grad_norms_init: per-layer gradient norms at step 0, drawn the same way;
- length_generalization: each metric of the study's evaluations against the test length, a thin
  line per run (so per seed, in each cell), each level's mean bold, the trained lengths shaded;
- where_it_holds and specification_curve: a scoped claim's seeds in each universe, and each
  universe's mean over seeds with its interval, sorted, over the panel of its settings;
and, for the whole project, a heatmap of the model's reference positional encoding.

Colours and facets come from the study's factors: the colour (``hue``) is the study's first
factor, the rows of the learning curves (``facet``) its second, unless the study's optional
``plot:`` hint names others; ``plot: where:`` restricts the interaction heatmaps to some runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402

from . import io, outputs  # noqa: E402
from .specification import pairs, scope_title, specifications  # noqa: E402
from .data import TASKS  # noqa: E402
from .settings import sorted_levels  # noqa: E402

DPI = 110
PALETTE = "colorblind"
THIN_MAX_RUNS = 100
"""Up to this many runs in a group, learning curves and gradient norms show each run as a thin
line; above, the band from the 5th to the 95th percentile of the runs (10,000 thin lines take
seconds to draw and bury the means)."""
BAND = (0.05, 0.95)
EMPTY_KEY = "Ablation-Empty"
"""PNG text key of a figure that would show nothing: its value says why, in one line. The file is
still written (it is a declared output), and the HTML report prints that line instead of the image."""


def _save(fig, path: Path, empty: str | None = None) -> None:
    metadata = {EMPTY_KEY: empty} if empty else None
    with io.atomic_open(path, "wb") as fh:  # "tight": a long suptitle is not cut
        fig.savefig(fh, format="png", dpi=DPI, bbox_inches="tight", metadata=metadata)
    plt.close(fig)


def _note(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, fontsize=10, wrap=True)
    ax.set_axis_off()


def _save_empty(path: Path, reason: str) -> None:
    """A small figure that says ``reason``, marked empty (``EMPTY_KEY``)."""
    fig, ax = plt.subplots(figsize=(5, 1.2), layout="constrained")
    _note(ax, reason)
    _save(fig, path, empty=reason)


def empty_reason(path: Path) -> str | None:
    """Why the figure at ``path`` shows nothing, or None when it shows something."""
    from PIL import Image

    with Image.open(path) as image:
        return getattr(image, "text", {}).get(EMPTY_KEY)


def _text(col: pd.Series) -> pd.Series:
    """``col`` as text; a categorical column stays categorical, with text categories (cheap)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.cat.rename_categories(str)
    return col.astype(str)


@dataclasses.dataclass
class StudyData:
    """What a study's figures draw, and how: ``hue`` colours, ``facet`` splits into rows."""

    summary: pd.DataFrame  # one row per run
    curves: pd.DataFrame  # one row per run and epoch
    init_grads: pd.DataFrame  # one row per run and layer
    factors: list
    evaluations: pd.DataFrame | None = None  # one row per run, metric and test length
    scope_seeds: pd.DataFrame | None = None  # tables/scope_seeds.csv: a scoped claim's seeds in each universe
    scope: pd.DataFrame | None = None  # tables/scope.csv: a scoped claim's verdict in each universe
    claims: pd.DataFrame | None = None  # tables/claims.csv: each claim's verdict at the study's settings
    hue: str | None = None
    facet: str | None = None
    where: dict | None = None  # the interaction heatmaps' runs: factor -> level
    confidence: float = 0.95


def plot_roles(factors: list[str], hint: dict | None = None) -> tuple[str | None, str | None]:
    """(hue, facet): the factors that colour grouped plots and split them into rows; the study's
    ``plot:`` hint where it names them, else its first and second factor."""
    hint = hint or {}
    for role in ("hue", "facet"):
        if hint.get(role) and hint[role] not in factors:
            raise ValueError(f"plot.{role} {hint[role]!r} is not a factor of the study ({', '.join(factors)})")
    hue = hint.get("hue") or (factors[0] if factors else None)
    rest = [f for f in factors if f != hue]
    facet = hint.get("facet") or (rest[0] if rest else None)
    return hue, (facet if facet != hue else None)


def accuracy_by_factor(d: StudyData, path: Path) -> None:
    factors, hue, confidence = d.factors, d.hue, d.confidence
    df = d.summary.copy()
    # 50 % is chance where every run's test set holds swap twins (the order task's); not for a copy task
    tasks = set(df["task"].astype(str)) if "task" in df else {"order"}
    chance = all(getattr(TASKS.get(t), "twins", False) for t in tasks)
    df["test_acc"] = pd.to_numeric(df["test_acc"], errors="coerce")
    panels = factors or [None]
    ncol = min(len(panels), 4)
    nrow = int(np.ceil(len(panels) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.6 * nrow), squeeze=False, sharey=True, layout="constrained")
    legend_panel = next((f for f in panels if hue and f not in (None, hue)), None)  # the first with colours
    for ax, factor in zip(axes.flat, panels):
        if factor is None:
            df["_all"] = "all runs"
            factor = "_all"
        order = sorted_levels(df[factor].astype(str))
        this_hue = hue if hue and factor != hue else None
        hue_order = sorted_levels(df[this_hue].astype(str)) if this_hue else None
        plot = df.assign(**{factor: df[factor].astype(str)})
        if this_hue:
            plot[this_hue] = plot[this_hue].astype(str)
        # seaborn jitters the dots with numpy's global generator: seeded, one summary draws one figure
        np.random.seed(0)
        sns.stripplot(
            data=plot, x=factor, y="test_acc", hue=this_hue, order=order, hue_order=hue_order,
            dodge=bool(this_hue), alpha=0.45, size=3.5, jitter=0.25, palette=PALETTE if this_hue else None,
            color=None if this_hue else "0.35", ax=ax, legend=False,
        )
        sns.pointplot(
            data=plot, x=factor, y="test_acc", hue=this_hue, order=order, hue_order=hue_order,
            dodge=0.4 if this_hue else False, errorbar=("ci", 100 * confidence), seed=0, linestyle="none",
            markers="D", palette=PALETTE if this_hue else None, color=None if this_hue else "black",
            capsize=0.12, ax=ax, legend=factor == legend_panel, zorder=4,  # over the dots (zorder 3)
            markeredgecolor="black", markeredgewidth=0.8,
        )
        if chance:
            ax.axhline(0.5, color="0.6", lw=0.8, ls="--")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(factor if factor != "_all" else "")
        ax.set_ylabel("test accuracy")
    for ax in list(axes.flat)[len(panels):]:
        ax.set_axis_off()
    fig.suptitle(
        f"Test accuracy by factor (dots: runs; diamonds: mean with {100 * confidence:g} % bootstrap CI"
        + ("; dashed: chance)" if chance else ")")
    )
    _save(fig, path)


def interactions(d: StudyData, path: Path) -> None:
    factors, where = d.factors, d.where
    df = d.summary.copy()
    df["test_acc"] = pd.to_numeric(df["test_acc"], errors="coerce")
    title = "Mean test accuracy for each pair of factors"
    rest = list(factors)
    if where:  # the study's plot hint: only these runs, and their fixed factors are no pairs
        for factor, level in where.items():
            if factor not in factors:
                raise ValueError(f"plot.where {factor!r} is not a factor of the study ({', '.join(factors)})")
            df = df[df[factor].astype(str) == str(level)]
        rest = [f for f in factors if f not in where]
        title += " (" + ", ".join(f"{k}={v}" for k, v in where.items()) + ")"
    pairs = list(itertools.combinations(rest, 2))
    if not pairs:
        _save_empty(path, "No interaction figure: the study varies fewer than two factors (besides plot.where).")
        return
    tables = []
    for a, b in pairs:
        table = df.pivot_table(index=a, columns=b, values="test_acc", aggfunc="mean")
        tables.append(table.reindex(index=sorted_levels(table.index), columns=sorted_levels(table.columns)))
    vmin, vmax = colour_range(np.concatenate([t.to_numpy(float).ravel() for t in tables]))
    ncol = min(len(pairs), 3)
    nrow = int(np.ceil(len(pairs) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.6 * ncol, 3.6 * nrow), squeeze=False, layout="constrained")
    for ax, (a, b), table in zip(axes.flat, pairs, tables):
        # one colour scale for every panel, spanning the means shown (not 0-1: 0.987-1.000 would be one shade)
        sns.heatmap(table, vmin=vmin, vmax=vmax, cmap="viridis", annot=True, fmt=".3f", cbar=False, ax=ax)
        ax.set_title(f"{a} x {b}")
    for ax in list(axes.flat)[len(pairs):]:
        ax.set_axis_off()
    mappable = plt.cm.ScalarMappable(norm=plt.Normalize(vmin, vmax), cmap="viridis")
    fig.colorbar(mappable, ax=axes, shrink=0.8, label="mean test accuracy")
    fig.suptitle(title)
    _save(fig, path)


def colour_range(values) -> tuple[float, float]:
    """(vmin, vmax) of a colour scale that resolves ``values``: their finite range, widened to at
    least one test-set step's worth (1e-3) when they are (nearly) all equal."""
    finite = np.asarray(values, float)
    finite = finite[np.isfinite(finite)]
    if not len(finite):
        return 0.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    if hi - lo < 1e-3:
        mid = (lo + hi) / 2
        lo, hi = mid - 5e-4, mid + 5e-4
    return lo, hi


def _per_run(data: pd.DataFrame, x: str, y: str) -> list[np.ndarray]:
    """One (points x 2) array of (x, y) per run, runs in order of appearance (a groupby over
    10,000 runs would take seconds)."""
    codes, _ = pd.factorize(data["run_id"])
    order = np.argsort(codes, kind="stable")
    xy = data[[x, y]].to_numpy(float)[order]
    return np.split(xy, np.flatnonzero(np.diff(codes[order])) + 1) if len(xy) else []


def _many_runs(data: pd.DataFrame, by: list[str | None]) -> bool:
    """More than THIN_MAX_RUNS runs in some group of ``by`` (None entries ignored)."""
    by = [b for b in by if b]
    runs = data.drop_duplicates("run_id")
    return bool((runs.groupby(by).size().max() if by else len(runs)) > THIN_MAX_RUNS)


def _spread_text(band: bool, x: str) -> str:
    if band:
        return f"band: 5th to 95th percentile of the runs at each {x}; bold: mean of the group"
    return "thin: each run; bold: mean of the group"


def _runs_and_means(ax, data: pd.DataFrame, x: str, y: str, group: str | None, band: bool, log: bool = False):
    """Each group's runs, as thin lines or (``band``) the band from the 5th to the 95th percentile
    of its runs at each ``x``; then each group's mean, bold, over all of them."""
    labels = _text(data[group]) if group else None
    groups = sorted_levels(labels) if group else ["all runs"]
    colors = sns.color_palette(PALETTE, len(groups))
    subs = [data if group is None else data[labels == level] for level in groups]
    for color, sub in zip(colors, subs):
        if band:
            q = sub.groupby(x)[y].quantile(BAND).unstack()
            ax.fill_between(q.index, q[BAND[0]], q[BAND[1]], color=color, alpha=0.25, linewidth=0)
        else:
            ax.add_collection(LineCollection(_per_run(sub, x, y), colors=[color], linewidths=0.6, alpha=0.25))
    for color, level, sub in zip(colors, groups, subs):
        mean = sub.groupby(x)[y].mean()
        ax.plot(mean.index, mean.to_numpy(), color=color, lw=2.2, label=f"{group}={level}" if group else level)
    ax.autoscale()
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(y)


def learning_curves(d: StudyData, path: Path) -> None:
    curves, group, facet = d.curves, d.hue, d.facet
    levels = sorted_levels(_text(curves[facet])) if facet and not curves.empty else [None]
    band = False
    fig, axes = plt.subplots(len(levels), 2, figsize=(11, 3.6 * len(levels)), squeeze=False, layout="constrained")
    if curves.empty:
        plt.close(fig)
        _save_empty(path, "No learning curves: no epochs were recorded.")
        return
    else:
        curves = curves.copy()
        for col in ("epoch", "train_loss", "train_acc"):
            curves[col] = pd.to_numeric(curves[col], errors="coerce")
        finite = curves[np.isfinite(curves["train_loss"])]
        band = _many_runs(finite, [facet, group])
        for row, level in zip(axes, levels):
            sub = finite if level is None else finite[_text(finite[facet]) == level]
            _runs_and_means(row[0], sub, "epoch", "train_loss", group, band, log=True)
            _runs_and_means(row[1], sub, "epoch", "train_acc", group, band)
            row[1].set_ylim(0.3, 1.02)
            row[1].legend(loc="lower right", fontsize=8)
            if level is not None:
                row[0].set_title(f"{facet}={level}: training loss")
                row[1].set_title(f"{facet}={level}: training accuracy")
    fig.suptitle(f"Learning curves ({_spread_text(band, 'epoch')})")
    _save(fig, path)


def grad_norms_init(d: StudyData, path: Path) -> None:
    init_grads, group = d.init_grads, d.hue
    if init_grads.empty:
        _save_empty(path, "No gradient-norm figure: no per-layer gradient norms were recorded.")
        return
    data = init_grads.copy()
    data["layer"] = pd.to_numeric(data["layer"])
    data["grad_norm"] = pd.to_numeric(data["grad_norm"], errors="coerce")
    if data["layer"].nunique() < 2:
        _save_empty(path, "No gradient-norm figure: the model has one layer, so there is no trend across layers.")
        return
    fig, ax = plt.subplots(figsize=(6, 3.8), layout="constrained")
    band = _many_runs(data, [group])
    _runs_and_means(ax, data, "layer", "grad_norm", group, band, log=True)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # layers are whole numbers
    ax.set_xlabel("layer (0 = next to the input)")
    ax.set_ylabel("gradient norm at step 0")
    ax.legend(fontsize=8)
    ax.set_title(f"Per-layer gradient norms at initialisation\n({_spread_text(band, 'layer')})", fontsize=10)
    _save(fig, path)


def _spans(lengths) -> list[tuple[int, int]]:
    """Runs of consecutive lengths as (first, last)."""
    spans = []
    for n in sorted(set(lengths)):
        if spans and n == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], n)
        else:
            spans.append((n, n))
    return spans


def length_generalization(d: StudyData, path: Path) -> None:
    if d.evaluations is None or d.evaluations.empty:
        _save_empty(path, "No evaluations by test length: the study has no eval_lengths.")
        return
    ev = d.evaluations.copy()
    ev["length"] = pd.to_numeric(ev["length"])
    ev["value"] = pd.to_numeric(ev["value"], errors="coerce")
    ev["trained"] = ev["trained"].astype(str).str.lower().eq("true")
    hue, others = d.hue, [f for f in d.factors if f != d.hue]
    for column in [hue, *others]:
        if column:
            ev[column] = _text(ev[column])
    cells = [()]
    if others:
        combos = ev[others].drop_duplicates().to_numpy().tolist()
        order = [sorted_levels(ev[f]) for f in others]
        cells = sorted(map(tuple, combos), key=lambda c: [order[i].index(v) for i, v in enumerate(c)])
    panels = [(metric, cell) for metric in dict.fromkeys(ev["metric"]) for cell in cells]
    ncol = min(len(panels), 4)
    nrow = int(np.ceil(len(panels) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.6 * ncol, 3.6 * nrow), squeeze=False, layout="constrained")
    levels = sorted_levels(ev[hue]) if hue else ["all runs"]
    colors = dict(zip(levels, sns.color_palette(PALETTE, len(levels))))
    for ax, (metric, cell) in zip(axes.flat, panels):
        sub = ev[ev["metric"] == metric]
        for factor, value in zip(others, cell):
            sub = sub[sub[factor] == value]
        for first, last in _spans(sub.loc[sub["trained"], "length"]):
            ax.axvspan(first - 0.5, last + 0.5, color="0.88", zorder=0)
        for level in levels:
            runs = sub if not hue else sub[sub[hue] == level]
            for _, run in runs.groupby("run_id", sort=False):
                run = run.sort_values("length")
                ax.plot(run["length"], run["value"], color=colors[level], lw=0.7, alpha=0.35)
            mean = runs.groupby("length")["value"].mean()
            ax.plot(mean.index, mean.to_numpy(), color=colors[level], lw=2.2, marker="o", ms=3,
                    label=f"{hue}={level}" if hue else level)  # fmt: skip
        ax.set_ylim(-0.02, 1.02)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("test length")
        ax.set_ylabel(metric)
        ax.set_title(", ".join(f"{f}={v}" for f, v in zip(others, cell)) or metric, fontsize=10)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_axis_off()
    axes.flat[0].legend(fontsize=8, loc="best")
    fig.suptitle("Metrics by test length (thin: each seed's run; bold: mean over seeds; shaded: trained lengths)")
    _save(fig, path)


def where_it_holds(d: StudyData, path: Path) -> None:
    """Per claim with robust_over: each seed's value in each universe (a diverged run's interval as a
    bar), met or not, beside the claim's band; the universe's verdict (the family's procedure's) in its
    label, when the scope table beside it gives it."""
    seeds = d.scope_seeds
    if seeds is None or seeds.empty:
        _save_empty(path, "No claim of the study has robust_over: no universes to show.")
        return
    claims = list(dict.fromkeys(seeds["id"]))
    fig, axes = plt.subplots(1, len(claims), figsize=(max(4.2, 1.6 * seeds["universe"].nunique()) * len(claims), 3.8),
                             squeeze=False, layout="constrained")  # fmt: skip
    met_colors = {True: sns.color_palette(PALETTE)[2], False: sns.color_palette(PALETTE)[3]}
    for ax, claim in zip(axes.flat, claims):
        rows = seeds[seeds["id"] == claim]
        universes = list(dict.fromkeys(rows["universe"]))
        band_lo, band_hi = float(rows["band_lo"].iloc[0]), float(rows["band_hi"].iloc[0])
        ax.axhspan(band_lo, band_hi if np.isfinite(band_hi) else max(1.0, rows["hi"].max()), color="0.9", zorder=0)
        rng = np.random.default_rng(0)  # jitter: seeds of equal value side by side, the same each time
        for x, universe in enumerate(universes):
            u = rows[rows["universe"] == universe]
            jitter = x + rng.uniform(-0.18, 0.18, len(u))
            lo, hi = u["lo"].to_numpy(float), u["hi"].to_numpy(float)
            met = u["met"].astype(str).str.lower().eq("true").to_numpy()
            for value in (True, False):
                pick = met == value
                ax.scatter(jitter[pick], lo[pick], s=18, color=met_colors[value], zorder=3,
                           label=("meets the claim" if value else "does not") if x == 0 else None)  # fmt: skip
            unsure = hi > lo
            ax.vlines(jitter[unsure], lo[unsure], hi[unsure], color="0.4", lw=1)
        ax.set_xticks(range(len(universes)))
        own = rows.drop_duplicates("universe").set_index("universe")["own"].astype(str).str.lower().eq("true")
        ax.set_xticklabels([f"{u}\n(the study's)" if own.get(u) else u for u in universes], fontsize=8)
        ax.set_title(claim, fontsize=10)
        ax.set_ylabel("a seed's value (shaded: what the claim asks)")
    axes.flat[0].legend(fontsize=8, loc="best")
    fig.suptitle("Where it holds: each seed in each universe of the claim's robust_over")
    _save(fig, path)


def specification_curve(d: StudyData, path: Path) -> None:
    """Per claim with robust_over, a specification curve (Simonsohn et al. 2020): every universe's (and
    cell's) mean over seeds with its interval, sorted, the claim's band shaded; under it the settings
    panel, a row per setting and a mark at each specification's level."""
    seeds = d.scope_seeds
    if seeds is None or seeds.empty:
        _save_empty(path, "No claim of the study has robust_over: no universes to show.")
        return
    claims = list(dict.fromkeys(seeds["id"]))
    specs = {c: specifications(seeds[seeds["id"] == c], d.confidence) for c in claims}
    settings = {}
    for c, s in specs.items():
        per = [{**pairs(u), **(pairs(cell) if s["cell"].nunique() > 1 else {})} for u, cell in zip(s["universe"], s["cell"])]
        settings[c] = (per, list(dict.fromkeys(k for p in per for k in p)))
    widths = [max(3.0, 0.55 * len(s)) + 1.6 for s in specs.values()]
    tallest = max(len(names) for _, names in settings.values())
    fig, axes = plt.subplots(2, len(claims), figsize=(sum(widths) + 1, 4.2 + 0.45 * tallest), squeeze=False,
                             sharex="col", layout="constrained", width_ratios=widths,
                             height_ratios=[3, 0.5 + 0.45 * tallest])  # fmt: skip
    colors = {True: sns.color_palette(PALETTE)[2], False: sns.color_palette(PALETTE)[3]}
    verdicts = {} if d.claims is None else dict(zip(d.claims["id"], d.claims["verdict"]))
    for col, claim in enumerate(claims):
        top, panel, s = axes[0, col], axes[1, col], specs[claim]
        rows = seeds[seeds["id"] == claim]
        band_lo, band_hi = float(rows["band_lo"].iloc[0]), float(pd.to_numeric(rows["band_hi"]).iloc[0])
        x = np.arange(len(s))
        inside = ((s["mean"] >= band_lo) & (s["mean"] <= (band_hi if np.isfinite(band_hi) else np.inf))).to_numpy()
        top.axhspan(band_lo, band_hi if np.isfinite(band_hi) else max(1.0, s["hi"].max()), color="0.9", zorder=0)
        for ax in (top, panel):
            for i in x[s["own"].to_numpy()]:
                ax.axvspan(i - 0.45, i + 0.45, color="#fff3bf", zorder=0)
        top.vlines(x, s["lo"], s["hi"], color="0.35", lw=1.4, zorder=2)
        for value in (True, False):
            top.scatter(x[inside == value], s["mean"][inside == value], s=36, color=colors[value], zorder=3,
                        edgecolor="black", linewidth=0.5)  # fmt: skip
        top.set_ylabel(f"mean over seeds ({100 * d.confidence:g} % interval)", fontsize=8)
        title = scope_title(claim, d.scope, verdicts.get(claim))
        top.set_title("\n".join(textwrap.fill(t, int(13 * widths[col])) for t in title.split("\n")), fontsize=9)
        top.set_xlim(-0.6, len(s) - 0.4)
        per, names = settings[claim]
        for row, name in enumerate(names):
            levels = sorted_levels([p[name] for p in per if name in p])
            for i, p in enumerate(per):
                if name in p:
                    panel.scatter(i, row, marker="s", s=40, color=sns.color_palette(PALETTE)[levels.index(p[name]) % 10])
                    panel.annotate(p[name], (i, row), xytext=(0, -9), textcoords="offset points", ha="center", fontsize=6)
        panel.set_yticks(range(len(names)), names, fontsize=8)
        panel.set_ylim(len(names) - 0.4, -0.6)
        panel.set_xticks(x, [str(i + 1) for i in x], fontsize=7)
        panel.set_xlabel("specifications, sorted by their mean", fontsize=8)
        panel.grid(False)
    from matplotlib.patches import Patch  # the legend's swatches

    handles = [Patch(color="0.9", label="what the claim asks of a seed"), Patch(color="#fff3bf", label="the study's own settings"),
               *[plt.Line2D([], [], marker="o", ls="", color=colors[v], markeredgecolor="black",
                            label="mean inside the band" if v else "mean outside the band") for v in (True, False)]]  # fmt: skip
    fig.legend(handles=handles, loc="outside lower center", ncol=4, fontsize=8, frameon=False)
    fig.suptitle("Specification curve of each claim with robust_over: every universe's mean over seeds, sorted, "
                 "and its settings below", fontsize=10)  # fmt: skip
    _save(fig, path)


def positional_encoding_figure(seq_len: int, d_model: int, path: Path) -> None:
    from .model import reference_encoding  # torch: imported only for this one figure

    name, pe = reference_encoding(seq_len, d_model)
    fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
    sns.heatmap(pe.numpy().T, cmap="RdBu", vmin=-1, vmax=1, ax=ax, cbar_kws={"label": "value", "fraction": 0.046},
                xticklabels=max(1, seq_len // 8), yticklabels=max(1, d_model // 8))  # fmt: skip
    ax.invert_yaxis()  # dimension 0 at the bottom, as imshow's origin="lower" would
    ax.set_xlabel("position")
    ax.set_ylabel("encoding dimension")
    ax.set_title(f"{name.capitalize()} positional encoding (T={seq_len}, D={d_model})")
    _save(fig, path)


def study_figures(d: StudyData, outdir: Path) -> list[Path]:
    """Every figure of ablation.outputs.FIGURES, each drawn by the function of its name."""
    sns.set_theme(style="whitegrid", context="notebook")
    paths = []
    for figure in outputs.FIGURES:
        path = Path(outdir) / Path(figure.file).name
        globals()[figure.name](d, path)
        paths.append(path)
    return paths


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--factors", help="the study's factor names as a JSON list")
    ap.add_argument("--plot", default="{}", help="the study's plot hint as a JSON object (hue, facet, where)")
    ap.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals")
    ap.add_argument("--summary", type=Path)
    ap.add_argument("--curves", type=Path)
    ap.add_argument("--init-grads", type=Path)
    ap.add_argument("--evaluations", type=Path, help="the study's evaluations.csv")
    ap.add_argument("--scope-seeds", type=Path, help="the study's tables/scope_seeds.csv")
    ap.add_argument("--scope", type=Path, help="the study's tables/scope.csv")
    ap.add_argument("--claims", type=Path, help="the study's tables/claims.csv (a scoped study's)")
    ap.add_argument("--outdir", type=Path)
    ap.add_argument("--pe-figure", type=Path, help="draw only the positional-encoding heatmap here")
    ap.add_argument("--seq-len", type=int, default=32)
    ap.add_argument("--d-model", type=int, default=16)
    args = ap.parse_args(argv)
    if args.pe_figure:
        positional_encoding_figure(args.seq_len, args.d_model, args.pe_figure)
        return 0
    factors = json.loads(args.factors)
    hint = json.loads(args.plot)
    try:
        hue, facet = plot_roles(factors, hint)
    except ValueError as exc:
        ap.error(str(exc))
    keep = {f: str for f in factors}
    summary = pd.read_csv(args.summary, dtype=keep | {"run_id": str})
    # a million curve rows: only the columns drawn, labels as categories (a tenth of the memory; a
    # category of numbers prints as the text it was read from, which str() of the setting wrote)
    labels = {c: "category" for c in ["run_id", hue, facet] if c}
    curves = pd.read_csv(args.curves, dtype=labels, usecols=[*labels, "epoch", "train_loss", "train_acc"])
    grads = pd.read_csv(args.init_grads, dtype=labels, usecols=[*labels, "layer", "grad_norm"])
    evaluations = pd.read_csv(args.evaluations, dtype=keep | {"run_id": str}) if args.evaluations else None
    scope_seeds = pd.read_csv(args.scope_seeds, dtype={"universe": str, "cell": str}) if args.scope_seeds else None
    scope = pd.read_csv(args.scope, dtype={"universe": str}) if args.scope else None
    claims = pd.read_csv(args.claims, usecols=["id", "verdict"]) if args.claims else None
    d = StudyData(summary, curves, grads, factors, evaluations, scope_seeds, scope, claims, hue, facet,
                  hint.get("where"), args.confidence)  # fmt: skip
    for path in study_figures(d, args.outdir):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
