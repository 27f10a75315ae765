"""The README's front door, generated: what the reference run finds, what each study runs, what it
costs, and the picture, each from the one source that holds it.

README.md carries three blocks between marker comments (``<!-- BEGIN name ... -->`` and
``<!-- END name -->``) that only this module writes:

- ``findings``: every claim of the committed reference run (``reference/<study>/claims.csv``), one row
  each: study, claim, verdict, scope and its one sentence; whatever columns the files have (a missing
  ``sentence`` falls back to the first clause of ``evidence``, a missing ``scope`` to none);
- ``runs``: per study of the default config, its design, seeds and runs as the plan counts them
  (``ablation.plan.cost``: the first round, then every adaptive round at its most; a run two studies
  share counts once in the total);
- ``costs``: the times and disk of the measured reproductions (``benchmarks/reproduce*.json``), each
  row naming the file and the commit it was measured at, and saying "out of date" exactly while a
  later commit changes the code it measures (``benchmarks/measured.py``), so that re-measuring and
  ``make readme`` remove the words.

and ``docs/img/findings.png``, the picture the README opens with, drawn from ``reference/``. Two
pages carry blocks the same way: config/README.md every key a claim may have (``claim-keys``, from
the schema's ``definitions.claim``: the config check refuses any other) and every claim kind with its
keys (``claim-kinds``, from ``ablation.kinds``' registry), docs/cluster.md the
rules that run on the submitting host (``localrules``, from the workflow's ``localrules:``).

    python -m ablation.readme             # rewrite README.md's blocks and docs/img/findings.png
    python -m ablation.readme --check     # exit 1 when findings or runs differ from reference/ and the plan

tests/tooling/test_readme.py runs the check on this repository and on a planted disagreement.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path

import pandas as pd

from . import REPO_DIR
from . import config as ablation_config
from . import design, published
from . import plan as ablation_plan

README = "README.md"
PICTURE = "docs/img/findings.png"
DEFAULT_CONFIG = "config/config.yaml"
CHECKED = ("findings", "runs")
"""The README's blocks ``--check`` compares; ``costs`` is benchmarks/measured.py --check's (it depends on git history)."""
PAGES = {"config/README.md": ("claim-keys", "claim-kinds"), "docs/cluster.md": ("localrules",)}
"""The other pages with generated blocks (all checked)."""
SMOKE, FULL = "benchmarks/reproduce-smoke", "benchmarks/reproduce"


def begin(name: str) -> str:
    return f"<!-- BEGIN {name}: written by `make readme`; edit {Path(__file__).name} or its sources, not this block -->"


def end(name: str) -> str:
    return f"<!-- END {name} -->"


def _cell(text) -> str:
    """A Markdown table cell: one line, pipes escaped; a missing value empty."""
    if text is None or (isinstance(text, float) and pd.isna(text)):
        return ""
    return " ".join(str(text).split()).replace("|", "\\|")


# ---------------------------------------------------------------- findings: reference/


def study_order(reference: Path, cfg=None) -> list[str]:
    """The reference's studies: the config's order first, then any others alphabetically."""
    present = sorted(p.name for p in Path(reference).iterdir() if (p / "claims.csv").is_file())
    first = [n for n in (cfg.studies if cfg else []) if n in present]
    return first + [n for n in present if n not in first]


def sentence(row: dict) -> str:
    """A claim's one sentence: its ``sentence`` column, else the first clause of its ``evidence``."""
    text = row.get("sentence")
    if isinstance(text, str) and text.strip():
        return text.strip()
    evidence = row.get("evidence")
    return evidence.split("; ", 1)[0].rstrip(".") + "." if isinstance(evidence, str) and evidence.strip() else ""


def _stale(row: dict, cfg, study: str) -> str:
    """' (judged with the estimand share; the config now asks for mean ...)' where the reference judged
    a claim with another estimand than the config's claim now states, else ''."""
    if cfg is None or study not in cfg.studies or "estimand" not in row:
        return ""
    claim = next((c for c in cfg.studies[study].claims if c.id == row.get("id")), None)
    if claim is None:
        return ""
    now = "exact" if claim.exact else claim.estimand
    if row["estimand"] in ("", now):
        return ""
    return (f" (judged with the estimand {row['estimand']}; the config now asks for {now}: `make reproduce "
            f"STUDY={study}` judges it anew)")


def findings(reference: Path, cfg=None) -> str:
    """Every claim of ``reference`` as a Markdown table, and the tally of its verdicts and scopes."""
    rows, verdicts, scopes = [], {}, {}
    for name in study_order(reference, cfg):
        claims = pd.read_csv(Path(reference) / name / "claims.csv", dtype=str, keep_default_na=False)
        for r in claims.to_dict("records"):
            verdict, scope = r.get("verdict", ""), r.get("scope", "")
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
            if scope:
                scopes[scope] = scopes.get(scope, 0) + 1
            claim = f"`{r.get('id', '')}` {r.get('statement', '')}".strip()
            said = sentence(r) + _stale(r, cfg, name)
            rows.append(f"| {name} | {_cell(claim)} | **{_cell(verdict)}** | {_cell(scope)} | {_cell(said)} |")
    known = ("SUPPORTED", "CONTRADICTED", "INCONCLUSIVE")  # in this order; any other verdict after them
    tally = ", ".join(f"{k} {verdicts[k]}" for k in [*known, *sorted(set(verdicts) - set(known))] if k in verdicts)
    scoped = "; scope: " + ", ".join(f"{k} {v}" for k, v in scopes.items()) if scopes else ""
    head = ["| study | claim | verdict | scope | what the seeds show |", "| --- | --- | --- | --- | --- |"]
    lines = [*head, *rows, "", f"{len(rows)} claims: {tally}{scoped} (`{Path(reference).name}/*/claims.csv`)."]
    return "\n".join([*lines, *rankings(reference, cfg)])


def rankings(reference: Path, cfg=None) -> list[str]:
    """How many published rankings the reference reproduces and each one's result, one paragraph from the
    studies' published tables (``reference/<study>/published.csv``); nothing when none orders a pair."""
    found = {}
    for name in study_order(reference, cfg):
        path = Path(reference) / name / "published.csv"
        if path.is_file() and len(tab := pd.read_csv(path, dtype={"level": str})):
            found[name] = published.ranking(tab)
    ordered = [r for r in found.values() if r["pairs"]]  # a block that orders no pair has no ranking to reproduce
    if not ordered:
        return []
    done = sum(r["reproduced"] for r in ordered)
    each = "; ".join(f"`{name}` {published.words(r)} (published {r['published']}; here {r['here']})"
                     for name, r in found.items() if r["pairs"])  # fmt: skip
    lines = ["", f"Published rankings reproduced: **{done} of {len(ordered)}**, a ranking reproduced when our means order "
             f"every pair of encodings the paper separates by {published.SEPARATED:g} or more the same way "
             f"(`{Path(reference).name}/*/published.csv`): {each}."]  # fmt: skip
    return lines


# ---------------------------------------------------------------- runs: the config and the plan


def _seeds_text(study, block: dict | None) -> str:
    seeds = sorted(study.seeds)
    contiguous = seeds == list(range(seeds[0], seeds[-1] + 1))
    text = f"{seeds[0]}–{seeds[-1]}" if contiguous and len(seeds) > 2 else ", ".join(map(str, seeds))
    if block:
        text += f", then {block['batch']} more a round in the cells of open claims, up to {block['max_seeds']}"
    return text


def _scope_text(study) -> str:
    scoped = [c for c in study.claims if c.robust_over]
    return "".join(f"; {c.id} also at " + ", ".join(f"{k} {' / '.join(map(str, v))}" for k, v in c.robust_over.items())
                   for c in scoped)  # fmt: skip


def runs(cfg) -> str:
    """Per study its design in words (the config's description), its seeds and its runs as the plan
    counts them, and the total with shared runs once."""
    cost = ablation_plan.cost(cfg, None).set_index("study")["runs"]
    lines = ["| study | design (its `description`) | seeds | runs |", "| --- | --- | --- | --- |"]
    for name, study in cfg.studies.items():
        block = design.adaptive_block(cfg.raw["studies"][name])
        seeds = _seeds_text(study, block) + _scope_text(study)
        lines.append(f"| `{name}` | {_cell(study.description)} | {_cell(seeds)} | {cost[name].replace('-', '–')} |")
    lines.append(f"| all | a run two studies share counts once | | {cost['all'].replace('-', '–')} |")
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


def costs(root: Path = REPO_DIR) -> str:
    """The measured reproductions as a table: per step its wall time, what else ran, and the file and
    commit it was measured at (out of date while later code changes what it measures)."""
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
        for key, words in steps:
            step = data.get(key)
            if not isinstance(step, dict):
                continue
            rows.append(f"| {words} | {_minutes(step['wall_s'])} on {cores} cores | {step['cpu_s']:.0f} s | "
                        f"{100 * step['other_share']:.0f} % of the CPU | {base}.md, measured at {st['commit']}{stale} |")  # fmt: skip
        disk = data.get("disk_mb") or {}
        if disk:
            parts = ", ".join(f"{k} {v:.0f} MB" for k, v in disk.items())
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


# ---------------------------------------------------------------- the picture: reference/


def run_factors(run_ids: pd.Series) -> pd.DataFrame:
    """The settings a run id names (``pos_enc~none/seed~0``), one column each, as text."""
    return pd.DataFrame([dict(part.split("~", 1) for part in str(r).split("/") if "~" in part) for r in run_ids],
                        index=run_ids.index)  # fmt: skip


def findings_figure(summaries: dict[str, pd.DataFrame], cfg, path: Path) -> None:
    """The README's picture: on the order task, every run's test accuracy by positional encoding, a
    panel per study that varies it (the attention mask colours, where the study varies it), chance dashed. ``summaries``:
    study -> its summary (reference/<study>/summary.csv); studies of another task are left out."""
    import matplotlib.pyplot as plt
    import numpy as np
    import seaborn as sns

    from .data import TASKS
    from . import io
    from .plots import DPI, PALETTE

    sns.set_theme(style="whitegrid", context="notebook")
    panels = []
    for name, summary in summaries.items():
        study = cfg.studies.get(name)
        if study is None or "pos_enc" not in study.factor_names:
            continue
        if not getattr(TASKS.get(study.runs()[0].settings.task), "twins", False):
            continue  # the picture is about order: 50 % is chance only on a test set of swap twins
        data = summary.join(run_factors(summary["run_id"]))
        data["test_acc"] = pd.to_numeric(data["test_acc"], errors="coerce")
        hue = "attn_mask" if "attn_mask" in study.factor_names else None  # a causal mask tells positions apart
        panels.append((name, data, [str(v) for v in study.factors["pos_enc"]], hue))
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 + 1.1 * sum(len(p[2]) for p in panels), 3.6), squeeze=False,
                             sharey=True, layout="constrained", width_ratios=[len(p[2]) for p in panels])  # fmt: skip
    for ax, (name, data, order, hue) in zip(axes.flat, panels):
        np.random.seed(0)  # seaborn's jitter: the same picture from the same reference
        sns.stripplot(data=data, x="pos_enc", y="test_acc", order=order, hue=hue, dodge=bool(hue), jitter=0.3, size=3.5,
                      alpha=0.6, palette=PALETTE if hue else None, color=None if hue else "0.3", ax=ax)  # fmt: skip
        ax.axhline(0.5, color="0.5", lw=0.9, ls="--")
        ax.set_ylim(0.3, 1.03)
        ax.set_title(f"{name} ({len(data)} runs)", fontsize=10)
        ax.set_xlabel("positional encoding")
        ax.set_ylabel("test accuracy (order task)")
        ax.tick_params(axis="x", labelsize=8)
        if hue:
            ax.legend(title=hue, fontsize=7, title_fontsize=7, loc="lower center", ncol=2)
    fig.suptitle("Every run of the reference by positional encoding: without it, a model without a causal mask "
                 "sits exactly at chance (dashed)", fontsize=10)  # fmt: skip
    with io.atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(fig)


# ---------------------------------------------------------------- the README


def blocks(cfg, reference: Path, root: Path = REPO_DIR) -> dict[str, str]:
    return {"findings": findings(reference, cfg), "runs": runs(cfg), "costs": costs(root)}


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


def differences(readme: str, cfg, reference: Path) -> list[str]:
    """The CHECKED blocks of ``readme`` that differ from what ``reference`` and the plan give, each
    with its first differing line."""
    out = []
    wanted = {"findings": findings(reference, cfg), "runs": runs(cfg)}
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
    return out


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
        print("\n".join(found) or f"{args.readme.name}: findings and runs are those of reference/ and the plan")
        return 1 if found else 0
    new = text
    for name, body in blocks(cfg, args.reference).items():
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
    findings_figure({n: pd.read_csv(args.reference / n / "summary.csv", dtype={"run_id": str})
                     for n in study_order(args.reference, cfg)}, cfg, REPO_DIR / PICTURE)  # fmt: skip
    print(f"{args.readme.name}: {'rewritten' if new != text else 'already in step'}; drew {PICTURE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
