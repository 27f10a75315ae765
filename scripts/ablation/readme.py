"""The README's front door, generated: what the reference run finds, what each study runs, what it
costs, and the pictures, each from the one source that holds it.

README.md carries blocks between marker comments (``<!-- BEGIN name ... -->`` and ``<!-- END name -->``)
that only this module writes:

- ``headline``: the findings the config chooses (``report: findings:``, else ``report: headline:``),
  each in one sentence with its effect in % or pp (or k of n seeds) and its interval over seeds,
  measured again from reference/<study>/summary.csv and evaluations.csv with the verdicts' own seed
  units and intervals (``verdicts.claim_test``, ``intervals.mean_ci``); the published rankings; the
  construction checks (claims with the estimand ``exact``) in a line of their own; the pictures;
- ``findings``: every other claim of reference/<study>/claims.csv, one row each in words: its verdict
  and scope, the cell that decides it and why that one, its effect with its interval, and, when
  INCONCLUSIVE, why (whatever columns claims.csv has: a claim reference/ cannot measure again keeps
  its own sentence and its stored interval);
- ``runs``: per study of the default config its design, seeds, the runs the plan counts
  (``ablation.plan.cost``: first round, then every adaptive round at its most, the runs of scoped
  claims' other universes included), the runs reference/ keeps and the training time of the full
  reproduction (``benchmarks/reproduce.json``), which must count the same runs;
- ``costs``: the times and disk of the measured reproductions (``benchmarks/reproduce*.json``), each
  row naming the file and the commit it was measured at, and saying "out of date" exactly while a
  later commit changes the code it measures (``benchmarks/measured.py``).

and the pictures under docs/img/: ``findings.png`` (the seeds of each finding the config chooses) and
``lengths.png`` (``published.length_figure``: exact match by test length beside the paper's). Two pages
carry blocks the same way: config/README.md every key a claim may have (``claim-keys``, from the
schema's ``definitions.claim``) and every claim kind with its keys (``claim-kinds``, from
``ablation.kinds``' registry), docs/cluster.md the rules that run on the submitting host
(``localrules``, from the workflow's ``localrules:``).

    python -m ablation.readme             # rewrite README.md's blocks and the pictures
    python -m ablation.readme --check     # exit 1 when a block differs from reference/, the plan and the
                                          # measured reproduction, or reference/ and the reproduction disagree

tests/tooling/test_readme.py runs the check on this repository and on planted disagreements.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from . import REPO_DIR
from . import design, findings, published, seed_units
from . import config as ablation_config
from . import plan as ablation_plan

README = "README.md"
PICTURE, LENGTHS = "docs/img/findings.png", "docs/img/lengths.png"
DEFAULT_CONFIG = "config/config.yaml"
CHECKED = ("headline", "findings", "runs")
"""The README's blocks ``--check`` compares; ``costs`` is benchmarks/measured.py --check's (it depends on git history)."""
PAGES = {"config/README.md": ("claim-keys", "claim-kinds"), "docs/cluster.md": ("localrules",)}
"""The other pages with generated blocks (all checked)."""
SMOKE, FULL = "benchmarks/reproduce-smoke", "benchmarks/reproduce"


def begin(name: str) -> str:
    return f"<!-- BEGIN {name}: written by `make readme`; edit {Path(__file__).resolve().relative_to(REPO_DIR.resolve())} or the sources it reads, not this block -->"


def end(name: str) -> str:
    return f"<!-- END {name} -->"


_cell = findings.table_cell


# ---------------------------------------------------------------- runs: the config and the plan


def _seeds_text(study, block: dict | None) -> str:
    seeds = sorted(study.seeds)
    contiguous = seeds == list(range(seeds[0], seeds[-1] + 1))
    text = f"{seeds[0]}–{seeds[-1]}" if contiguous and len(seeds) > 2 else ", ".join(map(str, seeds))
    if block:
        text += f", then {block['batch']} more a round in the cells of open claims, up to {block['max_seeds']}"
    return text


def _scope_text(study) -> str:
    """'; C5b also at lr 0.003 (its scope: lr 0.003 / 0.01, 0.01 the study's own)': the settings a scoped
    claim's runs add; a universe at the study's own setting is its runs, not more."""

    def at(k, levels) -> str:
        own, more = study.fixed.get(k), [v for v in levels if v != study.fixed.get(k)]
        said = f"{k} {' / '.join(map(str, more))}"
        return said + (f" (its scope: {k} {' / '.join(map(str, levels))}, {own} the study's own)" if len(more) < len(levels) else "")

    return "".join(f"; {c.id} also at " + ", ".join(at(k, v) for k, v in c.robust_over.items())
                   for c in study.claims if c.robust_over)  # fmt: skip


kept = findings.kept_runs


def reproduced(root: Path = REPO_DIR) -> tuple[dict, dict]:
    """The full reproduction (benchmarks/reproduce.json): per study (runs, training seconds), its own
    and its scope's where recorded; and the file's machine and commit."""
    data = json.loads((Path(root) / f"{FULL}.json").read_text(encoding="utf-8"))
    studies = {name: (s["runs"] + s.get("scope_runs", 0), s["sum_train_seconds"] + s.get("scope_train_seconds", 0.0))
               for name, s in data.get("studies", {}).items()}  # fmt: skip
    return studies, {"cores": data["machine"].get("cores", 1), "commit": data.get("commit", "?")}


def out_of_step(cfg, reference: Path, root: Path = REPO_DIR) -> dict[str, tuple]:
    """The studies whose runs reference/ and benchmarks/reproduce.md count differently: name -> (kept,
    counted). Both come from one full run (`make reproduce`, then `make reference`); a study whose design
    changed since, re-run and written alone (`make reference STUDY=...`), is out of step until the next."""
    studies, _ = reproduced(root)
    out = {}
    for name in findings.study_order(reference, cfg):
        here, there = kept(reference, name), studies.get(name, (None,))[0]
        if here != there:
            out[name] = (here, there)
    return out


def agreement(cfg, reference: Path, root: Path = REPO_DIR) -> list[str]:
    """Where reference/ and benchmarks/reproduce.md count a study's runs differently, in words: the runs
    table says each (``runs``), so that the README never shows a reproduction's time as the reference's."""
    return [f"reference/{name} keeps {here} runs, {FULL}.md counts {there}: its time in the runs table is marked out "
            "of date; re-measure both from one full run" for name, (here, there) in out_of_step(cfg, reference, root).items()]


def _training(seconds: float, cores: int) -> str:
    if not np.isfinite(seconds):
        return "not measured"
    # train_seconds is each run's wall time on one thread: their sum is not the CPU time of make reproduce
    return f"{seconds / 60 / cores:.1f} min on {cores} cores ({seconds / 60:.1f} min of one-thread runs)"


def runs(cfg, reference: Path = REPO_DIR / "reference", root: Path = REPO_DIR) -> str:
    """Per study its design in words (the config's description), its seeds, its runs as the plan counts
    them, the runs reference/ keeps and their training time in the full reproduction (what
    `make reproduce STUDY=<study>` trains on a fresh clone), and the totals with shared runs once."""
    cost = ablation_plan.cost(cfg, None).set_index("study")["runs"]
    studies, machine = reproduced(root)
    cores = machine["cores"]
    lines = [f"| study | design (its `description`) | seeds | runs planned | runs in `reference/` | training, `make "
             f"reproduce STUDY=<study>` (the runs {FULL}.md trained at {machine['commit']}) |", "| --- | --- | --- | --- | --- | --- |"]  # fmt: skip
    total_kept, total_seconds = 0, 0.0
    stale = out_of_step(cfg, reference, root)
    for name, study in cfg.studies.items():
        block = design.adaptive_block(cfg.raw["studies"][name])
        seeds = _seeds_text(study, block) + _scope_text(study)
        here = kept(reference, name) if (Path(reference) / name / "summary.csv").is_file() else 0
        seconds = studies.get(name, (0, float("nan")))[1]
        total_kept, total_seconds = total_kept + here, total_seconds + seconds
        timed = _training(seconds, cores)
        if name in stale:  # the reproduction trained another design of this study than reference/ keeps
            timed = f"out of date: {FULL}.md, measured at {machine['commit']}, timed {stale[name][1]} runs of an earlier design ({timed})"
        lines.append(f"| `{name}` | {_cell(study.description)} | {_cell(seeds)} | {cost[name].replace('-', '–')} | "
                     f"{here} | {timed} |")  # fmt: skip
    # A run two studies share is trained once: the total counts each distinct run (its hash) once.
    kept_all = pd.concat([findings.kept_summary(reference, name) for name in cfg.studies]).drop_duplicates("hash")
    once = kept_all["train_seconds"].sum() if "train_seconds" in kept_all else float("nan")
    timed = f"{_training(once, cores)} ({_training(total_seconds, cores)} counted in each study)"
    if stale:  # the total adds times of designs reference/ no longer keeps
        timed = f"out of date: {FULL}.md, measured at {machine['commit']}, timed another design of {len(stale)} studies ({timed})"
    lines.append(f"| all | a run two studies share counts once | | {cost['all'].replace('-', '–')} | {len(kept_all)} "
                 f"({total_kept} counted in each study) | {timed} |")  # fmt: skip
    return "\n".join(lines)


# ---------------------------------------------------------------- costs: the measured files


def _measured():
    """benchmarks/measured.py (standard library only; not part of the package)."""
    spec = importlib.util.spec_from_file_location("measured", REPO_DIR / "benchmarks" / "measured.py")
    module = sys.modules.setdefault("measured", importlib.util.module_from_spec(spec))
    if not hasattr(module, "MEASURED"):
        spec.loader.exec_module(module)
    return module


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def torch_build(data, root: Path = REPO_DIR) -> str:
    """The torch a measured venv held: the measurement's own record (``torch``), else the one the
    reference's runs record (reference/*/environment.json: the full reproduction trained them)."""
    if isinstance(data.get("torch"), str):
        return data["torch"]
    found = {json.loads(p.read_text(encoding="utf-8")).get("torch") for p in Path(root).glob("reference/*/environment.json")}
    return found.pop() if len(found) == 1 and None not in found else ""


def costs(root: Path = REPO_DIR) -> str:
    """The measured reproductions as a table: per step its wall time, what else ran, and the file and
    commit it was measured at (out of date while later code changes what it measures); the venv's rows
    say which torch they were measured with (its CPU build is a fraction of the default CUDA build)."""
    measured = _measured()
    rows = ["| step | wall time | CPU time | while other processes used | measured in |", "| --- | --- | --- | --- | --- |"]
    for base, steps in ((SMOKE, (("venv", "`make venv`: .venv from the pins"),
                                 ("pipeline", "`make reproduce CONFIG=config/smoke.yaml`: the quick look"),
                                 ("test", "`make test`: the default suite"))),
                        (FULL, (("pipeline", "`make reproduce`: every study of the default config"),))):  # fmt: skip
        data = pd.read_json(root / f"{base}.json", typ="series")
        st = measured.read(root / f"{base}.md")
        decl = next(m for m in measured.MEASURED if m.path == f"{base}.md")
        newer = measured.newer_code(root, decl, st["commit"])
        stale = f"; {measured.OUT_OF_DATE}: code it measures changed since" if newer else ""
        cores = data["machine"].get("cores", "?")
        torch = torch_build(data, root)
        cpu = f", torch {torch}" + (" (the CPU build, which this machine's pip index serves; from PyPI, the CUDA build is several GB more)"
                                      if "+cpu" in torch else "")
        for key, words in steps:
            step = data.get(key)
            if not isinstance(step, dict):
                continue
            words += cpu if key == "venv" and torch else ""
            rows.append(f"| {words} | {_minutes(step['wall_s'])} on {cores} cores | {step['cpu_s']:.0f} s | "
                        f"{100 * step['other_share']:.0f} % of the CPU | {base}.md, measured at {st['commit']}{stale} |")  # fmt: skip
        disk = data.get("disk_mb") or {}
        if disk:
            parts = ", ".join(f"{k} {v:.0f} MB" + (f" (torch {torch})" if k == "venv" and torch else "") for k, v in disk.items())
            rows.append(f"| disk afterwards | {parts} | | | {base}.md, measured at {st['commit']}{stale} |")
    return "\n".join(rows)


# ---------------------------------------------------------------- the other pages: the schema, the workflow


def claim_keys() -> str:
    """Every key a claim may have besides its kind's own: the schema's ``definitions.claim``."""
    from .settings import schema

    props = schema()["definitions"]["claim"]["properties"]
    required = set(schema()["definitions"]["claim"].get("required", ()))
    lines = ["| key | | meaning |", "| --- | --- | --- |"]
    for key, spec in props.items():
        lines.append(f"| `{key}` | {'required' if key in required else ''} | {_cell(spec.get('description', ''))} |")
    return "\n".join(lines)


def claim_kinds() -> str:
    """Every registered claim kind: its keys with their meaning (the kind's schema, a shared key's from
    the schema's definitions) and what one seed must show (its docstring's first line). A key the kind
    refuses (``not``) is left out."""
    from .kinds import CLAIM_KINDS
    from .settings import schema

    definitions = schema()["definitions"]

    def spec_of(spec: dict) -> dict:
        ref = spec.get("$ref", "")
        own = {k: v for k, v in spec.items() if k != "$ref"}  # a description beside the $ref is the kind's own
        return {**definitions[ref.rsplit("/", 1)[1]], **own} if ref.startswith("#/definitions/") else spec

    lines = ["| kind | its keys | a seed meets the claim when |", "| --- | --- | --- |"]
    for name, kind in CLAIM_KINDS.items():
        specs = {k: spec_of(v) for k, v in kind.keys.items() if "not" not in v}
        keys = "; ".join(f"`{k}`: {spec.get('description', '').rstrip('.')}" + (f" (default {spec['default']})" if "default" in spec else "")
                         for k, spec in specs.items())  # fmt: skip
        lines.append(f"| `{name}` | {_cell(keys)} | {_cell((kind.__doc__ or '').strip().splitlines()[0])} |")
    return "\n".join(lines)


def local_rules(root: Path = REPO_DIR) -> str:
    """The rules the workflow runs on the submitting host: every name under a ``localrules:`` of its
    rule files, in their order."""
    names = []
    for path in sorted((Path(root) / "workflow").rglob("*.smk")) + [Path(root) / "workflow" / "Snakefile"]:
        for m in re.finditer(r"^localrules:\s*\n((?:[ \t]+\w+,?[ \t]*\n?)+)", path.read_text(encoding="utf-8"), re.M):
            names += re.findall(r"\w+", m[1])
    return f"{len(names)} local rules: " + ", ".join(f"`{n}`" for n in names) + "."


def page_blocks(page: str, root: Path = REPO_DIR) -> dict[str, str]:
    """The generated blocks of ``page`` (a key of PAGES), by name."""
    makers = {"claim-keys": claim_keys, "claim-kinds": claim_kinds, "localrules": lambda: local_rules(root)}
    return {name: makers[name]() for name in PAGES[page]}


# ---------------------------------------------------------------- the pictures: reference/


def shown(rows: list, cfg) -> list:
    """The findings the config chooses that reference/ can measure again: the first picture's panels."""
    by_id = {r.row.get("id"): r for r in rows}
    return [by_id[i] for i in findings.finding_ids(cfg) if i in by_id and by_id[i].measured is not None]


def length_inputs(cfg, reference: Path) -> tuple[dict, dict]:
    """Per study with a ``published`` block whose evaluations reference/ keeps: its evaluations, and its block."""
    evaluations, blocks_ = {}, {}
    for name in findings.study_order(reference, cfg):
        block_ = cfg.raw["studies"].get(name, {}).get("published")
        path = Path(reference) / name / "evaluations.csv"
        if block_ and path.is_file():
            evaluations[name] = pd.read_csv(path, dtype={"run_id": str})
            blocks_[name] = block_
    return evaluations, blocks_


def pictures(rows: list, cfg, reference: Path) -> list[tuple[str, str]]:
    """The README's pictures its sources can draw, as (path, alt text): the seeds of each finding the
    config chooses; exact match by test length beside the paper's (``published.length_figure``)."""
    out = []
    if panels := shown(rows, cfg):
        out.append((PICTURE, "Per seed, what each finding reads in the cell that decides it, with the mean and its "
                             "interval: " + "; ".join(f"{r.row['id']}, {findings.metric_words(r.claim)}" for r in panels)))
    if length_inputs(cfg, reference)[0] and hasattr(published, "length_figure"):
        out.append((LENGTHS, "Exact match by test length per positional encoding in each study with a published "
                             "table, the trained lengths shaded, the paper's values beside ours"))  # fmt: skip
    return out


def findings_figure(panels: list, path: Path) -> None:
    """The README's first picture: a panel per finding (``shown``), its seeds in the cell that decides it
    (a comparison's two levels, a line joining each seed's pair; a one-sample claim's cells, its band
    shaded), and beside them each level's or cell's mean with its interval over seeds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from . import io
    from .plots import DPI

    fig, axes = plt.subplots(1, len(panels), figsize=(3.1 * len(panels), 3.7), squeeze=False, layout="constrained")
    for ax, r in zip(axes[0], panels):
        claim, groups = r.claim, r.measured.groups
        seeds = sorted({s for g in groups for s in g["seeds"].tolist()}, key=str)
        jitter = dict(zip(seeds, np.random.default_rng(0).uniform(-0.12, 0.12, len(seeds))))  # a seed's place, each time
        ys = [100 * v for g in groups for v in (*g["values"], g["lo"], g["hi"]) if np.isfinite(v)]
        for i, g in enumerate(groups):
            where = [i + jitter[s] for s in g["seeds"].tolist()]
            ax.scatter(where, 100 * g["values"], s=14, alpha=0.55, color="tab:blue", zorder=2)
            ax.errorbar(i + 0.3, 100 * g["mean"], yerr=[[100 * (g["mean"] - g["lo"])], [100 * (g["hi"] - g["mean"])]],
                        fmt="D", color="black", ms=4, capsize=3, zorder=3)  # fmt: skip
        if claim.scale == "difference" and len(groups) == 2:
            first = dict(zip(groups[0]["seeds"].tolist(), groups[0]["values"]))
            for seed, value in zip(groups[1]["seeds"].tolist(), groups[1]["values"]):
                if seed in first:
                    ax.plot([jitter[seed], 1 + jitter[seed]], [100 * first[seed], 100 * value], color="0.6", lw=0.6,
                            alpha=0.5, zorder=1)  # fmt: skip
        else:
            lo, hi = claim.parts[0].condition.band
            ys += [100 * b for b in (lo, hi) if np.isfinite(b)]
            if hi == lo or not np.isfinite(hi):
                ax.axhline(100 * lo, color="tab:red", ls="--", lw=0.9)
            else:
                ax.axhspan(100 * lo, 100 * hi, color="tab:red", alpha=0.15)
        pad = max(2.0, 0.1 * (max(ys) - min(ys)))
        ax.set_ylim(max(-5, min(ys) - pad), min(105, max(ys) + pad))
        ax.set_xticks(range(len(groups)), [g["label"] for g in groups], fontsize=7, rotation=15)
        ax.set_xlim(-0.5, len(groups) - 0.3)
        ax.set_ylabel(f"{findings.metric_words(claim)} (%)", fontsize=8)
        cell = seed_units.where_text(claim.where) if r.measured.cell.startswith("mean over") else r.measured.cell
        ax.set_title(f"{claim.id}: {r.row.get('verdict', '')}\n{r.study}, {cell}", fontsize=8)
    fig.suptitle("The findings' seeds (dots; paired seeds joined), mean and 95 % interval over seeds (black)", fontsize=9)
    with io.atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(fig)


def draw(rows: list, cfg, reference: Path, root: Path = REPO_DIR) -> list[str]:
    """Draw the pictures ``pictures`` names; their paths."""
    drawn = []
    for path, _ in pictures(rows, cfg, reference):
        if path == PICTURE:
            findings_figure(shown(rows, cfg), Path(root) / path)
        else:
            published.length_figure(*length_inputs(cfg, reference), Path(root) / path)
        drawn.append(path)
    return drawn


# ---------------------------------------------------------------- the README


def blocks(cfg, reference: Path, root: Path = REPO_DIR, rows: list | None = None) -> dict[str, str]:
    """Every block of the README, by name."""
    rows = findings.claim_rows(reference, cfg) if rows is None else rows
    return {"headline": findings.headline(reference, cfg, rows, pictures(rows, cfg, reference)),
            "findings": findings.claims_table(reference, cfg, rows), "runs": runs(cfg, reference, root),
            "costs": costs(root)}  # fmt: skip


def _pattern(name: str) -> re.Pattern:
    return re.compile(rf"<!-- BEGIN {re.escape(name)}[:\s][^\n]*-->\n(.*?)<!-- END {re.escape(name)} -->", re.S)


def replace(text: str, name: str, body: str) -> str:
    """``text`` with block ``name`` replaced by ``body``; an error naming the block when its markers are missing."""
    if not _pattern(name).search(text):
        raise ValueError(f"no block {name!r} ({begin(name)} ... {end(name)})")
    return _pattern(name).sub(lambda _: f"{begin(name)}\n{body}\n{end(name)}", text, count=1)


def block(text: str, name: str) -> str | None:
    """The body of block ``name`` in ``text``; None when it has none."""
    m = _pattern(name).search(text)
    return m[1].removesuffix("\n") if m else None


def differences(readme: str, cfg, reference: Path, root: Path = REPO_DIR) -> list[str]:
    """The CHECKED blocks of ``readme`` that differ from what ``reference``, the plan and the measured
    reproduction give, each with its first differing line (the runs block names each study whose runs
    reference/ and the reproduction count differently)."""
    out = []
    rows = findings.claim_rows(reference, cfg)
    wanted = {"headline": findings.headline(reference, cfg, rows, pictures(rows, cfg, reference)),
              "findings": findings.claims_table(reference, cfg, rows), "runs": runs(cfg, reference, root)}  # fmt: skip
    for name in CHECKED:
        have = block(readme, name)
        if have is None:
            out.append(f"README.md has no block {name!r}")
        elif have != wanted[name]:
            pairs = zip(have.splitlines() + [""] * 999, wanted[name].splitlines())
            h, w = next(((h, w) for h, w in pairs if h != w), ("", ""))
            at = next((i for i, (a, b) in enumerate(zip(h, w)) if a != b), min(len(h), len(w)))
            start = max(0, at - 40)  # where the two lines part, with some context
            out.append(f"README.md's {name} block differs from its source in the line «{(h or w)[:40]}…»: "
                       f"README «…{h[start:at + 60]}…», generated «…{w[start:at + 60]}…» (run `make readme`)")  # fmt: skip
    return out  # a study whose runs reference/ and the reproduction count differently: the runs block says so


def page_differences(root: Path = REPO_DIR) -> list[str]:
    """The generated blocks of PAGES that differ from the schema and the workflow."""
    out = []
    for page in PAGES:
        text = (Path(root) / page).read_text(encoding="utf-8")
        for name, body in page_blocks(page, root).items():
            have = block(text, name)
            if have != body:
                out.append(f"{page}'s {name} block differs from its source (run `make readme`)")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ablation.readme", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a block differs from its source")
    ap.add_argument("--config", default=str(REPO_DIR / DEFAULT_CONFIG))
    ap.add_argument("--reference", type=Path, default=REPO_DIR / "reference")
    ap.add_argument("--readme", type=Path, default=REPO_DIR / README)
    args = ap.parse_args(argv)
    cfg = ablation_config.load(args.config)
    text = args.readme.read_text(encoding="utf-8")
    if args.check:
        found = differences(text, cfg, args.reference) + page_differences()
        print("\n".join(found) or f"{args.readme.name}: its findings, runs and pictures are those of reference/, the plan "
                                  "and the measured reproduction")
        return 1 if found else 0
    rows = findings.claim_rows(args.reference, cfg)
    new = text
    for name, body in blocks(cfg, args.reference, rows=rows).items():
        new = replace(new, name, body)
    if new != text:
        args.readme.write_text(new, encoding="utf-8")
    for page in PAGES:
        path = REPO_DIR / page
        old = path.read_text(encoding="utf-8")
        rewritten = old
        for name, body in page_blocks(page).items():
            rewritten = replace(rewritten, name, body)
        if rewritten != old:
            path.write_text(rewritten, encoding="utf-8")
    drawn = draw(rows, cfg, args.reference)
    print(f"{args.readme.name}: {'rewritten' if new != text else 'already in step'}; drew {', '.join(drawn) or 'no picture'}")
    for line in agreement(cfg, args.reference):
        print(f"warning: {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
