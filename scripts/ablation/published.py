"""Our numbers beside the published ones: per study with a ``published`` block (config), each level's
mean over seeds and the seeds' range of the block's metric at its lengths, beside the published number
and both ranks; whether our means order the levels as the paper does; the same per test length beside
the paper's own per-length means; and the figures of every such study side by side (one panel a task).

    python -m ablation.published table --study-json JSON --evaluations EVALUATIONS.csv --out published.csv \
        [--lengths-out published_lengths.csv] [--figure published_lengths.png]
    python -m ablation.published figure --tables A.csv B.csv ... --names A B ... --out against_published.png

The table is ``results/<study>/tables/published.csv`` (declared in ablation.outputs; header only for a
study without a block); reference/ keeps a copy, from which the README counts the rankings reproduced.
A seed's value is the mean over the block's lengths of its runs of that level (the runs of one seed
share data and initialisation: the seed is the unit); a level no run reached has no row. Beside it,
``tables/published_lengths.csv`` holds a row per level and test length: ours at each length the study
evaluates, the paper's at each of its own test lengths (``PAPER``, the paper's per-length means, found by
the dataset and split the block's source names), and ``figures/published_lengths.png`` draws it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
import sys
from pathlib import Path

import pandas as pd

from . import REPO_DIR, io
from .config import format_value

SEPARATED = 0.1
"""Two levels whose published values differ by at least this much (a tenth of the range of a share) are a
pair the paper orders; closer ones it leaves unordered, since 0.24 against 0.23 over its 3 seeds says
nothing about which is higher. A ranking is reproduced when every such pair is ordered its way here:
our means separated by at least ``HERE_SEPARATED`` in the paper's order, or a SUPPORTED ``better`` claim."""

HERE_SEPARATED = 0.05
"""How far apart our means must lie, in the paper's order, for a pair to count as ordered here without a
claim (half of SEPARATED): 0.013 against 0.009 here, a few test sequences of a seed or two, says no more
about which is higher than the paper's 0.24 against 0.23."""

PAPER = REPO_DIR / "benchmarks" / "probes" / "published_values.json"
"""The paper's per-length means (benchmarks/probes/published_values.py, from its own result file): the one
home of those numbers; a block finds its entry by the dataset and split its source names."""

SOURCE = re.compile(r"dataset\s+(\S+),\s+split\s+(\S+)")
"""How a block's source names the paper's dataset and split ("dataset s2s_copy, split rsc_tr20_ts40")."""

COLUMNS = ("level", "here_mean", "here_seed_min", "here_seed_max", "here_seeds", "published", "here_rank",
           "published_rank")  # fmt: skip
LENGTH_COLUMNS = ("level", "length", "trained", "here_mean", "here_seed_min", "here_seed_max", "here_seeds",
                  "published")  # fmt: skip


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


def paper_entry(block: dict, paper: Path = PAPER) -> dict:
    """The paper's encodings -> {mean, seeds, values, per_length, trained_lengths} for the dataset and split
    the block's source names ({}: it names none, or ``paper`` has no such entry or is missing)."""
    found = SOURCE.search(block.get("source", ""))
    if not found or not Path(paper).is_file():
        return {}
    return json.loads(Path(paper).read_text(encoding="utf-8"))["published"].get(" ".join(found.groups()), {})


def paper_lengths(block: dict, paper: Path = PAPER) -> pd.DataFrame:
    """[level, length, published]: the paper's mean over its seeds at each of its test lengths, for the
    block's levels (empty where the paper has no per-length numbers)."""
    entry = paper_entry(block, paper)
    rows = [{"level": level, "length": int(n), "published": value}
            for level in block["values"] for n, value in entry.get(level, {}).get("per_length", {}).items()]  # fmt: skip
    return pd.DataFrame(rows, columns=["level", "length", "published"])


def paper_trained(block: dict, paper: Path = PAPER) -> tuple[int, int] | None:
    """The lengths the paper trains at, (from, to), as its validation fields cover them; None: unknown."""
    spans = [e["trained_lengths"] for e in paper_entry(block, paper).values() if e.get("trained_lengths")]
    return (min(lo for lo, _ in spans), max(hi for _, hi in spans)) if spans else None


def lengths_table(evaluations: pd.DataFrame, block: dict, levels: list | None = None, paper: Path = PAPER) -> pd.DataFrame:
    """A row per level and test length: ours (mean over seeds of each seed's runs at that length, the seeds'
    lowest and highest, how many, and whether the runs trained there) at every length the study evaluates,
    and the paper's per-length mean at each of its own test lengths (``paper_lengths``); levels in the
    study's order (``levels``; None: the block's, then the others as the evaluations hold them)."""
    factor = block["factor"]
    ev = evaluations.assign(**{factor: evaluations[factor].map(format_value)})
    keep = ev["metric"] == block["metric"]
    if block.get("task") and "task" in ev:
        keep &= ev["task"].astype(str) == block["task"]
    trained = ev["trained"].astype(str) == "True" if "trained" in ev else False  # read back as bool or as text
    ev = ev.assign(trained=trained)[keep].assign(length=lambda d: pd.to_numeric(d["length"]).astype(int))
    runs = ev.groupby([factor, "seed", "length"]).agg(value=("value", "mean"), trained=("trained", "max")).reset_index()
    ours = runs.groupby([factor, "length"]).agg(trained=("trained", "max"), here_mean=("value", "mean"),
                                                here_seed_min=("value", "min"), here_seed_max=("value", "max"),
                                                here_seeds=("value", "size")).reset_index()  # fmt: skip
    ours = ours.rename(columns={factor: "level"})
    out = ours.merge(paper_lengths(block, paper), on=["level", "length"], how="outer")
    order = list(dict.fromkeys([*map(format_value, levels or block["values"]), *ours["level"]]))
    out = out[out["level"].isin(order)].assign(rank=out["level"].map(order.index))
    out = out.sort_values(["rank", "length"], kind="stable")
    out = out.reindex(columns=list(LENGTH_COLUMNS)).reset_index(drop=True)
    return out.astype({"here_seeds": "Int64"})  # a count, empty at the paper's lengths


def lengths(study, block: dict, to: str = "–") -> tuple[str, str]:
    """(trained, compared): the study's trained lengths and the test lengths its published block compares,
    each as 'a–b' (``to`` between the ends; ``study``: a config.Study)."""
    from . import settings
    from .data import task_of

    s = settings.Settings(**(settings.defaults() | study.fixed | {"seed": study.seeds[0]}))
    trained = task_of(s).trained_lengths(s)
    return (f"{trained[0]}{to}{trained[-1]}" if len(trained) > 1 else f"{trained[0]}"), f"{block['lengths'][0]}{to}{block['lengths'][1]}"


def scale(study, block: dict) -> str:
    """At what scale the study runs, in words, from its settings (``study``: a config.Study): the model
    (blocks, width, heads, feed-forward, and its parameters counted on the model the settings build, per
    level of the block's factor), the training data and steps, the trained and the compared test lengths,
    the seeds. The published protocol stands beside it as the block's ``protocol`` says it."""
    import torch

    from . import settings
    from .architectures import build_model

    base = settings.defaults() | study.fixed | {"seed": study.seeds[0]}
    levels = study.factors.get(block["factor"], [base.get(block["factor"])])
    counts = {}
    with torch.random.fork_rng(devices=[]):  # building a model draws its initial weights
        for level in levels:
            s = settings.Settings(**(base | {block["factor"]: level}))
            counts[format_value(level)] = sum(p.numel() for p in build_model(s).parameters())
    s = settings.Settings(**base)
    trained, compared = lengths(study, block, " to ")
    steps = s.epochs * (math.ceil(s.n_train / s.batch_size) if s.batch_size else 1)
    low, high = min(counts.values()), max(counts.values())
    params = f"{low:,} parameters" if low == high else (
        f"{low:,} ({min(counts, key=counts.get)}) to {high:,} ({max(counts, key=counts.get)}) parameters by {block['factor']}")  # fmt: skip
    batches = f"batches of {s.batch_size}" if s.batch_size else "one full batch"
    return (f"a {s.depth}-block {s.arch} of d_model {s.d_model}, {s.heads} heads, feed-forward {s.ff} ({params}), "
            f"trained on {s.n_train:,} sequences of lengths {trained} for {steps:,} steps ({s.epochs} epochs in {batches}, "
            f"lr {s.lr:g}), tested at lengths {compared}, {len(study.seeds)} seeds")  # fmt: skip


def decided_pairs(claims: pd.DataFrame, study: dict) -> dict[tuple[str, str], str]:
    """(higher, lower) -> claim id: each ``better`` claim of the study (its config body: ``claims`` and
    ``published``) on the block's factor, metric and lengths whose verdict in the claims table is
    SUPPORTED. A better claim's levels are [baseline, other]: other is the higher."""
    block = study.get("published") or {}
    verdicts = dict(zip(claims["id"].astype(str), claims["verdict"].astype(str)))
    out = {}
    for claim in study.get("claims") or []:
        lengths = claim.get("lengths")
        lengths = [lengths, lengths] if isinstance(lengths, int) else list(lengths or [])
        if (claim.get("kind") == "better" and verdicts.get(claim["id"]) == "SUPPORTED"
                and claim.get("factor") == block.get("factor") and claim.get("metric") == block.get("metric")
                and lengths == list(block.get("lengths") or [])):  # fmt: skip
            lower, higher = map(format_value, claim["levels"])
            out[(higher, lower)] = claim["id"]
    return out


def ranking(tab: pd.DataFrame, claims: pd.DataFrame | None = None, study: dict | None = None) -> dict:
    """Whether the paper's ranking holds here: of the pairs the paper separates by at least
    ``SEPARATED``, how many are ordered its way here (our means in its order by at least
    ``HERE_SEPARATED``, or a SUPPORTED ``better`` claim of the study's claims table ``claims`` on that
    pair; ``study``, the study's config body, names each claim's levels), and which differ and why."""
    decided = decided_pairs(claims, study) if claims is not None and study else {}
    pub = tab[tab["published"].notna()]
    pairs, differs, by_claim = 0, [], []
    for a, b in itertools.combinations(pub.itertuples(), 2):
        high, low = (a, b) if a.published > b.published else (b, a)
        if round(high.published - low.published, 9) < SEPARATED:
            continue
        pairs += 1
        gap = round(high.here_mean - low.here_mean, 9)
        if gap >= HERE_SEPARATED:
            continue
        if (high.level, low.level) in decided:  # our means alone do not order it: a decided claim does
            by_claim.append(f"{high.level} > {low.level} ({decided[(high.level, low.level)]})")
        else:
            differs.append({"high": high.level, "low": low.level, "paper": (high.published, low.published),
                            "here": (high.here_mean, low.here_mean), "gap": gap})  # fmt: skip
    order = lambda col: " > ".join(pub.sort_values(col, ascending=False, kind="stable")["level"])  # noqa: E731
    return {"pairs": pairs, "agree": pairs - len(differs), "differs": differs, "wrong": [_pair_words(d) for d in differs],
            "by_claim": by_claim, "reproduced": pairs > 0 and not differs, "here": order("here_mean"),
            "published": order("published")}  # fmt: skip


def _pair_words(pair: dict) -> str:
    """A pair ordered otherwise here by HERE_SEPARATED or more, in words: 'alibi < rope here (paper 0.29 vs
    0.00; ours 0.050 vs 0.100)'; tied: 'alibi = rope here (...)'; closer than HERE_SEPARATED, in either order
    (a '<' there would call 0.004 against 0.005 a reversal): 't5 vs sinusoidal (...; ..., separated by less
    than 0.05)'."""
    (ph, pl), (hh, hl) = pair["paper"], pair["here"]
    numbers = f"paper {ph:.2f} vs {pl:.2f}; ours {hh:.3f} vs {hl:.3f}"
    if pair["gap"] == 0 or pair["gap"] <= -HERE_SEPARATED:
        return f"{pair['high']} {'=' if pair['gap'] == 0 else '<'} {pair['low']} here ({numbers})"
    return f"{pair['high']} vs {pair['low']} ({numbers}, separated by less than {HERE_SEPARATED:g})"


def words(result: dict) -> str:
    """A ranking's result in one sentence: how many of the pairs the paper orders are ordered its way here,
    the pairs a claim orders, and each pair that differs with both sides' numbers."""
    if not result["pairs"]:
        return f"the paper separates no two levels by {SEPARATED:g} or more"
    head = "reproduced" if result["reproduced"] else "not reproduced"
    text = (f"{head}: {result['agree']} of {result['pairs']} pairs the paper separates by {SEPARATED:g} or more "
            f"ordered its way here (our means by {HERE_SEPARATED:g} or more, or a SUPPORTED claim)")  # fmt: skip
    if result.get("by_claim"):
        text += f"; ordered by a claim where our means lie closer: {', '.join(result['by_claim'])}"
    return text + (f"; differs: {', '.join(result['wrong'])}" if result["wrong"] else "")


def figure(tables: dict[str, pd.DataFrame], metric: str, path, rankings: dict | None = None) -> None:
    """One panel per study: each level's mean over seeds (dot) and the seeds' range (bar) here, the
    published value (black diamond) beside it; the panel's title says whether the ranking is reproduced
    (``rankings``: study -> its ``ranking``, with its claims; by default our means alone).
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
        result = (rankings or {}).get(name) or ranking(tab)
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


def length_figure(evaluations_by_study: dict, blocks: dict, path) -> None:
    """One panel per study with a block: each level's metric by test length here, the mean over seeds (line)
    with the seeds' range (band), the lengths our runs trained at shaded grey; beside it, dashed in the
    level's colour, the paper's per-length means at its own test lengths, the lengths it trained at in wheat.
    A study's value: its evaluations (evaluations.csv) or its per-length table (``lengths_table``, as
    published_lengths.csv holds it). ``path``: a file, or a binary buffer (the report draws it in memory)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from .plots import EMPTY_KEY

    tables = {}
    for name, frame in evaluations_by_study.items():
        block = blocks.get(name)
        if block and frame is not None and len(frame):
            tables[name] = frame if "here_mean" in frame else lengths_table(frame, block)
    levels = list(dict.fromkeys(level for tab in tables.values() for level in tab["level"]))
    colour = {level: plt.get_cmap("tab10")(i % 10) for i, level in enumerate(levels)}
    n = max(len(tables), 1)
    fig, axes = plt.subplots(1, n, figsize=(5.2 * n, 3.8), sharey=True, squeeze=False)
    for ax, (name, tab) in zip(axes[0], tables.items()):
        block = blocks[name]
        here = tab[tab["here_mean"].notna()]
        trained = here.loc[here["trained"].astype(str) == "True", "length"]
        if len(trained):
            ax.axvspan(trained.min() - 0.5, trained.max() + 0.5, color="0.8", zorder=0.5)
        span = paper_trained(block)
        if span:  # from length 1: what the paper's training set held below its validation lengths is not in its results
            ax.axvspan(0.5, span[1] + 0.5, color="wheat", alpha=0.5, lw=0, zorder=0)
        for level, rows in tab.groupby("level", sort=False):
            ours, theirs = rows[rows["here_mean"].notna()], rows[rows["published"].notna()]
            ax.fill_between(ours["length"], ours["here_seed_min"], ours["here_seed_max"], color=colour[level], alpha=0.2, lw=0)
            ax.plot(ours["length"], ours["here_mean"], "-", color=colour[level], lw=1.8)
            ax.plot(theirs["length"], theirs["published"], "--", color=colour[level], lw=1.4)
        ax.set_title(f"{name}: {block['metric']} by test length", fontsize=9)
        ax.set_xlabel("test length", fontsize=8)
        ax.set_ylim(-0.03, 1.03)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("mean over seeds (band: the seeds' range)", fontsize=8)
    if tables:
        handles = [Line2D([], [], color=colour[level], lw=1.8, label=level) for level in levels]
        handles += [Line2D([], [], color="black", ls="--", label="the paper (mean over its seeds)"),
                    Patch(color="0.8", label="trained here"), Patch(color="wheat", alpha=0.5, label="trained in the paper")]  # fmt: skip
        fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 5), fontsize=7, frameon=False)
        fig.tight_layout(rect=(0, 0.12, 1, 1))
    else:
        why = "no evaluations of a study with a published block" if any(blocks.values()) else "no published block"
        axes[0][0].text(0.5, 0.5, why, ha="center", va="center")
        axes[0][0].set_axis_off()
    metadata = None if tables else {EMPTY_KEY: why}
    if isinstance(path, (str, Path)):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with io.atomic_open(path, "wb") as fh:
            fig.savefig(fh, dpi=110, format="png", metadata=metadata)
    else:
        fig.savefig(path, dpi=110, format="png", metadata=metadata)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("table", help="a study's published.csv from its evaluations.csv")
    t.add_argument("--study-json", required=True, help='{"published": block or null, "levels": [...]}')
    t.add_argument("--evaluations", required=True, type=Path)
    t.add_argument("--out", required=True, type=Path)
    t.add_argument("--lengths-out", type=Path, help="the per-length table beside the paper's (published_lengths.csv)")
    t.add_argument("--figure", type=Path, help="the per-length figure (published_lengths.png)")
    t.add_argument("--study", default="", help="the study's name, the figure's title")
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
            tab, lengths = table(evaluations, block, study["levels"]), lengths_table(evaluations, block, study["levels"])
        else:
            tab, lengths = pd.DataFrame(columns=COLUMNS), pd.DataFrame(columns=LENGTH_COLUMNS)
        io.write_dataframe(args.out, tab)
        print(f"wrote {args.out} ({len(tab)} levels)")
        if args.lengths_out:
            io.write_dataframe(args.lengths_out, lengths)
            print(f"wrote {args.lengths_out} ({len(lengths)} rows)")
        if args.figure:
            length_figure({args.study: lengths}, {args.study: block}, args.figure)
            print(f"wrote {args.figure}")
        return 0
    tables = {name: pd.read_csv(path, dtype={"level": str}) for name, path in zip(args.names, args.tables)}
    figure(tables, args.metric, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
