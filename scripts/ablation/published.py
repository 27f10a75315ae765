"""Our numbers beside the published ones: per study with a ``published`` block (config), each level's
mean over seeds and the seeds' range of the block's metric at its lengths, beside the published number
and both ranks; whether our means order the levels as the paper does; and the figure of every such study
side by side (one panel a task).

    python -m ablation.published table --study-json JSON --evaluations EVALUATIONS.csv --out published.csv
    python -m ablation.published figure --tables A.csv B.csv ... --names A B ... --out against_published.png

The table is ``results/<study>/tables/published.csv`` (declared in ablation.outputs; header only for a
study without a block); reference/ keeps a copy, from which the README counts the rankings reproduced.
A seed's value is the mean over the block's lengths of its runs of that level (the runs of one seed
share data and initialisation: the seed is the unit); a level no run reached has no row.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import pandas as pd

from . import io
from .config import format_value

SEPARATED = 0.1
"""Two levels whose published values differ by at least this much (a tenth of the range of a share) are a
pair the paper orders; closer ones it leaves unordered, since 0.24 against 0.23 over its 3 seeds says
nothing about which is higher. A ranking is reproduced when our means order every such pair the same way."""

COLUMNS = ("level", "here_mean", "here_seed_min", "here_seed_max", "here_seeds", "published", "here_rank",
           "published_rank")  # fmt: skip


def per_seed(evaluations: pd.DataFrame, block: dict) -> pd.DataFrame:
    """[factor level, seed] -> the seed's value: the block's metric averaged over its lengths within each
    run, then over the seed's runs of that level (the block's task only, when the study's task is a factor)."""
    factor, (lo, hi) = block["factor"], block["lengths"]
    ev = evaluations.assign(**{factor: evaluations[factor].map(format_value)})  # levels as the config writes them
    length = pd.to_numeric(ev["length"], errors="coerce")
    keep = (ev["metric"] == block["metric"]) & (length >= lo) & (length <= hi)
    if block.get("task") and "task" in ev:
        keep &= ev["task"].astype(str) == block["task"]
    runs = ev[keep].groupby([factor, "seed", "run_id"])["value"].mean()
    return runs.groupby(level=[0, 1]).mean().rename("value").reset_index()


def table(evaluations: pd.DataFrame, block: dict, levels: list) -> pd.DataFrame:
    """A row per level of the block's factor (in the study's order) that has runs: our mean over seeds,
    the seeds' lowest and highest, how many, the published value (NaN: not published) and both ranks
    (1 = highest; ours among the published levels only, so the two rank the same set; ties share the
    lower rank)."""
    seeds = per_seed(evaluations, block)
    factor, rows = block["factor"], []
    for level in map(format_value, levels):
        values = seeds.loc[seeds[factor] == level, "value"]
        if len(values):
            rows.append({"level": level, "here_mean": values.mean(), "here_seed_min": values.min(),
                         "here_seed_max": values.max(), "here_seeds": len(values),
                         "published": block["values"].get(level, float("nan"))})  # fmt: skip
    out = pd.DataFrame(rows, columns=COLUMNS[:6])
    ranked = out["published"].notna()
    out["here_rank"] = out["here_mean"].where(ranked).rank(ascending=False, method="min")
    out["published_rank"] = out["published"].rank(ascending=False, method="min")
    return out


def ranking(tab: pd.DataFrame) -> dict:
    """Whether our means order the levels as the paper does: of the pairs the paper separates by at least
    ``SEPARATED``, how many we order the same way (a tie here is not the same way), and which not."""
    pub = tab[tab["published"].notna()]
    pairs, wrong = 0, []
    for a, b in itertools.combinations(pub.itertuples(), 2):
        high, low = (a, b) if a.published > b.published else (b, a)
        if high.published - low.published < SEPARATED:
            continue
        pairs += 1
        if not high.here_mean > low.here_mean:
            wrong.append(f"{high.level} {'=' if high.here_mean == low.here_mean else '<'} {low.level}")
    order = lambda col: " > ".join(pub.sort_values(col, ascending=False, kind="stable")["level"])  # noqa: E731
    return {"pairs": pairs, "agree": pairs - len(wrong), "wrong": wrong, "reproduced": pairs > 0 and not wrong,
            "here": order("here_mean"), "published": order("published")}  # fmt: skip


def words(result: dict) -> str:
    """A ranking's result in one sentence."""
    if not result["pairs"]:
        return f"the paper separates no two levels by {SEPARATED:g} or more"
    head = "reproduced" if result["reproduced"] else "not reproduced"
    text = f"{head}: {result['agree']} of {result['pairs']} pairs the paper separates by {SEPARATED:g} or more in its order"
    return text + (f"; here {', '.join(result['wrong'])}" if result["wrong"] else "")


def figure(tables: dict[str, pd.DataFrame], metric: str, path) -> None:
    """One panel per study: each level's mean over seeds (dot) and the seeds' range (bar) here, the
    published value (black diamond) beside it; the panel's title says whether the ranking is reproduced.
    ``path``: a file, or a binary buffer (the report draws it in memory)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [name for name, tab in tables.items() if len(tab)]
    fig, axes = plt.subplots(1, max(len(names), 1), figsize=(4.2 * max(len(names), 1), 3.6), sharey=True, squeeze=False)
    for ax, name in zip(axes[0], names):
        tab, x = tables[name], range(len(tables[name]))
        ax.vlines(x, tab["here_seed_min"], tab["here_seed_max"], color="tab:blue", lw=2, alpha=0.5)
        ax.plot(x, tab["here_mean"], "o", color="tab:blue", label="here: mean (seed range)")
        ax.plot([i + 0.25 for i in x], tab["published"], "D", color="black", ms=5, label="published")
        ax.set_xticks(list(x), tab["level"], rotation=30)
        result = ranking(tab)
        ax.set_title(f"{name}\nranking {'reproduced' if result['reproduced'] else 'not reproduced'}"
                     f" ({result['agree']} of {result['pairs']} pairs)", fontsize=9)  # fmt: skip
        ax.set_ylim(-0.05, 1.05)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel(f"{metric} at unseen lengths")
    if names:
        axes[0][0].legend(fontsize=7, loc="upper right")
    else:
        axes[0][0].text(0.5, 0.5, "no study has a published block", ha="center", va="center")
    fig.tight_layout()
    if isinstance(path, Path):
        path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("table", help="a study's published.csv from its evaluations.csv")
    t.add_argument("--study-json", required=True, help='{"published": block or null, "levels": [...]}')
    t.add_argument("--evaluations", required=True, type=Path)
    t.add_argument("--out", required=True, type=Path)
    f = sub.add_parser("figure", help="the studies' tables side by side")
    f.add_argument("--tables", nargs="*", type=Path, default=[])
    f.add_argument("--names", nargs="*", default=[])
    f.add_argument("--metric", default="exact_match")
    f.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    if args.command == "table":
        study = json.loads(args.study_json)
        block = study["published"]
        if block:
            evaluations = pd.read_csv(args.evaluations, dtype={"run_id": str})
            tab = table(evaluations, block, study["levels"])
        else:
            tab = pd.DataFrame(columns=COLUMNS)
        io.write_dataframe(args.out, tab)
        print(f"wrote {args.out} ({len(tab)} levels)")
        return 0
    tables = {name: pd.read_csv(path, dtype={"level": str}) for name, path in zip(args.names, args.tables)}
    figure(tables, args.metric, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
