"""The stand-alone HTML report (``reports/ablation_report.html``): one file, figures and table
scripts embedded, no network.

The first screen answers a reviewer's questions: every claim's verdict with its robustness and one
sentence in plain words (units, what n counts), the largest effects with their intervals over seeds,
the number of runs, failures and divergences, and the reproduction check against the committed
reference (``reference/``, ``ablation.compare``). Below it, linked from it: the claims in detail,
the implementation checks, reproducibility, every study (per-cell results as pivot tables, long
tables collapsed, sortable and filterable, figures), the column glossary and what was run.

Long tables use itables in offline mode: it sorts and filters, and embeds its JavaScript once, so
the report stays one file (great-tables makes static tables only).
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import html
import json
import math
import platform
import sys
from importlib import metadata
from io import BytesIO
from pathlib import Path

import jinja2
import pandas as pd
import yaml

from . import PACKAGE_DIR, REPO_DIR, compare, git_state, io, outputs, published, selection
from . import plan as ablation_plan
from . import store as run_store
from .outputs import ROBUST
from .reading import METRIC_WORDS, seeds_text, study_lead
from .config import format_value, validate
from .kinds import Claim
from .effects import direction_text, largest_effects, sign_test_p  # noqa: F401 (the report's names for them)

VERSION_PACKAGES = ("torch", "numpy", "pandas", "scipy", "matplotlib", "seaborn", "itables", "snakemake")
REFERENCE_DIR = REPO_DIR / "reference"
EMPTY = ""
"""What a table shows for a value that does not apply (a footnote under each table says so)."""
PLAIN_COLUMN = "sentence"
"""The claims table's column a verdict row shows: the verdict in one plain sentence. Where the
table has none, the first clause of its ``evidence`` (what the seeds show) stands in."""
SCOPE_FIGURES = ("specification_curve", "where_it_holds")  # shown in "Where it holds", not in the study's figures
SCOPE_SHOWN = ["universe", "own", "verdict", "n", "share", "p_sup", "p_con", "p_holm", "robustness"]


def _img(path: Path) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f"data:image/png;base64,{data}"


def _isnan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _fmt(v, digits: int = 4):
    """A cell as text: numbers to ``digits`` places, NaN as empty (never the text 'nan')."""
    if _isnan(v):
        return EMPTY
    if isinstance(v, float):
        return f"{v:.{digits}g}" if abs(v) < 1e-3 and v != 0 else f"{v:.{digits}f}".rstrip("0").rstrip(".") or "0"
    return v


def pct(x, digits: int = 1) -> str:
    """An accuracy or a share (0-1) as a percentage."""
    return "not applicable" if _isnan(x) else f"{100 * float(x):.{digits}f} %"


def pp(x, digits: int = 1) -> str:
    """A difference of accuracies or shares (-1..1) in percentage points."""
    return "not applicable" if _isnan(x) else f"{100 * float(x):+.{digits}f} percentage points"


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for name in VERSION_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


# ---------------------------------------------------------------- tables


def table_html(df: pd.DataFrame, classes: str = "table") -> str:
    """A short static table in its own scrolling box; NaN cells empty."""
    out = df.map(_fmt) if len(df) else df
    text = out.to_html(index=False, classes=classes, border=0, escape=True, na_rep=EMPTY)
    return f'<div class="scroll">{text}</div>'


class Interactive:
    """Long tables as itables (sortable, filterable); the DataTables bundle is embedded once."""

    def __init__(self):
        self.count = 0

    def head(self) -> str:
        from itables import options
        from itables.javascript import generate_init_offline_itables_html

        return generate_init_offline_itables_html(options.dt_bundle)

    def __call__(self, df: pd.DataFrame, name: str) -> str:
        from itables import to_html_datatable

        self.count += 1
        shown = df.map(_fmt).astype(str) if len(df) else df
        text = to_html_datatable(
            shown, connected=False, table_id=f"itable-{self.count}-{name}", classes="display compact nowrap",
            showIndex=False, maxBytes=0, lengthMenu=[10, 25, 100, -1], pageLength=25 if len(df) > 25 else -1,
            style="width:auto;margin:0", autoWidth=False,
        )  # fmt: skip
        return f'<div class="scroll">{text}</div>'


def significance_text(row, alpha: float) -> str:
    """A comparison's significance in words, saying in the row itself when it cannot be reached."""
    if _isnan(row.get("p_holm")):
        return "no test"
    if bool(row.get("significant")):
        return f"yes (Holm p {row['p_holm']:.3g})"
    min_p = row.get("min_p")
    if not _isnan(min_p) and min_p > alpha:
        return f"no: cannot reach (smallest possible p {min_p:.3g} > {alpha:g} with {int(row['n_seeds'])} seeds)"
    return f"no (Holm p {row['p_holm']:.3g})"


def pivot(cells: pd.DataFrame, factors: list[str], value: str, fmt, label: str | None = None) -> pd.DataFrame | None:
    """Per-cell ``value`` (formatted by ``fmt``) with the last factor across the columns (one factor:
    a column headed ``label``)."""
    if not factors or value not in cells:
        return None
    shown = cells.assign(_v=cells[value].map(fmt))
    if len(factors) == 1:
        return shown[[factors[0], "_v"]].rename(columns={"_v": label or value})
    across = factors[-1]
    wide = shown.pivot_table(index=factors[:-1], columns=across, values="_v", aggfunc="first", sort=False)
    wide.columns = [f"{across} = {c}" for c in wide.columns]
    return wide.reset_index().fillna(EMPTY)


# ---------------------------------------------------------------- claims in words


def _where(claim: Claim) -> str:
    return (" where " + ", ".join(f"{k} = {v}" for k, v in claim.where.items())) if claim.where else ""


def _metric_words(claim: Claim) -> str:
    return METRIC_WORDS.get(claim.metric, claim.metric)


def estimate_unit(claim: Claim) -> str:
    """The unit of a claim's estimate, ci_lo and ci_hi as claims.csv holds them."""
    if claim.scale == "slope":
        return "slope of ln(gradient norm) per layer"
    if claim.scale == "difference":
        return f"difference of {_metric_words(claim)} (-1 to 1)"
    return f"{_metric_words(claim)} (0 to 1)"


def _in_unit(c: dict, claim: Claim, keys: tuple, missing: str, slope, difference, share) -> str:
    """The values of ``keys`` in the claim's unit: each scale's format called with them; ``missing``
    where one of them is not a number."""
    values = [c.get(k) for k in keys]
    if any(_isnan(v) for v in values):
        return missing
    return {"slope": slope, "difference": difference}.get(claim.scale, share)(*values)


def estimate_text(c: dict, claim: Claim) -> str:
    """A claim's estimate with its unit."""
    return _in_unit(c, claim, ("estimate",), "not applicable (fewer than 2 seeds)",
                    lambda e: f"{e:+.4f} per layer", pp, pct)  # fmt: skip


def interval_text(c: dict, claim: Claim) -> str:
    """A claim's interval with its unit."""
    return _in_unit(c, claim, ("ci_lo", "ci_hi"), "not applicable",
                    lambda lo, hi: f"{lo:+.4f} to {hi:+.4f} per layer",
                    lambda lo, hi: f"{100 * lo:+.1f} to {100 * hi:+.1f} percentage points",
                    lambda lo, hi: f"{100 * lo:.1f} to {100 * hi:.1f} %")  # fmt: skip


def estimate_short(c: dict, claim: Claim) -> str:
    """Estimate and interval in one short cell: 50.0 % [7.9, 92.1], -1.6 pp [-100.0, +100.0]."""
    if _isnan(c.get("estimate")):
        return "not applicable"
    lo, hi = c.get("ci_lo"), c.get("ci_hi")
    if claim.scale == "slope":
        ci = "" if _isnan(lo) or _isnan(hi) else f" [{lo:+.3f}, {hi:+.3f}]"
        return f"{c['estimate']:+.3f}/layer{ci}"
    paired = claim.scale == "difference"
    num = (lambda x: f"{100 * x:+.1f}") if paired else (lambda x: f"{100 * x:.1f}")
    ci = "" if _isnan(lo) or _isnan(hi) else f" [{num(lo)}, {num(hi)}]"
    return f"{num(c['estimate'])} {'pp' if paired else '%'}{ci}"


def claim_sentence(c: dict, claim: Claim, confidence: float, long: bool = False) -> str:
    """What the seeds show, in plain words: the claims table's evidence (how many seeds met the
    claim's per-seed condition, the test and its p; for an exact claim, the certificate), then what
    was measured with its unit and what n counts; the long form adds the rule."""
    seeds = seeds_text(c) or "no seeds"
    part = claim.parts[0]
    if part.compare:
        f, a, b = part.compare
        metric = _metric_words(claim)
        measured = f"{metric[0].upper()}{metric[1:]} with {f} = {b} minus with {f} = {a}{_where(claim)}, averaged within each of"
    elif part.reads == "slope":
        measured = f"Slope of ln(gradient norm at step 0) over the layers for {part.level[0]} = {part.level[1]}{_where(claim)}, over"
    else:
        measured = f"Mean {_metric_words(claim)}{_where(claim)}, over"
    evidence = c.get("evidence") or ""
    said = (f"{evidence}. " if evidence else "") + f"{measured} {seeds}: {estimate_text(c, claim)}."
    return f"{said} Rule: {c.get('rule', '')}." if long else said


def family_text(stats_cfg: dict, claims: list[dict]) -> str:
    """The error family in words: which claims Holm's adjustment runs over."""
    exact = sum(c.get("estimand") == "exact" for c in claims)
    tail = f" {exact} exact claim(s) belong to no family." if exact else ""
    if stats_cfg.get("family", "study") == "config":
        return f"The non-exact claims of the config are one error family (Holm over all of them).{tail}"
    return f"Each study is one conclusion and one error family: Holm runs over the non-exact claims of each study.{tail}"


def verdict_sentence(c: dict) -> str:
    """A verdict row's one sentence: the claims table's PLAIN_COLUMN, else the first clause of its
    evidence."""
    text = c.get(PLAIN_COLUMN)
    if isinstance(text, str) and text.strip():
        return text.strip()
    evidence = c.get("evidence")
    return evidence.split("; ", 1)[0].rstrip(".") + "." if isinstance(evidence, str) and evidence else EMPTY


def changed_after_runs(records: list[dict]) -> dict:
    """The claims whose test changed (or that were added) after their study's runs existed, by
    ``ablation.registration``'s columns; and how many claims a registration holds."""
    said = lambda c, key: isinstance(c.get(key), str) and bool(c[key])  # noqa: E731 (a CSV's empty cell is NaN)
    return {"ids": [c["id"] for c in records if said(c, "changed_after_runs")],
            "registered": sum(said(c, "registered") for c in records)}  # fmt: skip


def headline(claims: pd.DataFrame, ids: list[str]) -> list[dict]:
    """The claims of the config's ``report: headline:``, in that order, as report rows."""
    if not ids:
        return []
    known = set(claims["id"]) if "id" in claims else set()
    missing = [i for i in ids if i not in known]
    if missing:
        raise ValueError(f"report.headline names claims that no study has: {', '.join(missing)}")
    return [claims[claims["id"] == i].iloc[0].to_dict() for i in ids]


# ---------------------------------------------------------------- sections


def resolved_config(study) -> str:
    """The study's "Resolved configuration": every setting once, fixed (defaults applied) or as a factor."""
    return yaml.safe_dump({"fixed": study.fixed, "factors": study.factors, "seeds": study.seeds}, sort_keys=False)


def figure_entries(results: Path, name: str, only: tuple = (), skip: tuple = ()) -> list[dict]:
    from .plots import empty_reason  # matplotlib: imported only when a report lists figures

    out = []
    for fig in outputs.FIGURES:
        if (only and fig.name not in only) or fig.name in skip:
            continue
        path = results / name / fig.file
        if path.is_file():
            reason = empty_reason(path)
            out.append({"name": fig.name, "caption": fig.caption, "empty": reason, "collapsed": fig.collapsed,
                        "title": fig.title or fig.name, "src": None if reason else _img(path)})  # fmt: skip
    return out


def study_section(results: Path, name: str, study, stats_cfg: dict, interactive: Interactive) -> dict:
    summary = pd.read_csv(results / name / outputs.table("summary").file, dtype={"run_id": str})
    keep = {f: str for f in study.factor_names}
    tables = {t.name: pd.read_csv(results / name / t.file, dtype=keep) for t in outputs.TABLES
              if t.name not in ("summary", "claims") and (results / name / t.file).is_file()}  # fmt: skip
    cells, stability = tables["cells"], tables["stability"]
    factors = study.factor_names
    lead = study_lead(study)
    diverged = int((summary["status"] == "diverged").sum())
    expected = len(list(study.runs()))
    comparisons = tables["comparisons"].copy()
    if len(comparisons):
        comparisons.insert(comparisons.columns.get_loc("significant"), "significant_in_words",
                           [significance_text(r, stats_cfg["alpha"]) for r in comparisons.to_dict("records")])  # fmt: skip
        comparisons = comparisons.drop(columns="significant")
    all_converged = bool(len(stability)) and int(stability["converged"].sum()) == int(stability["n"].sum())
    conv_pivot = None
    if not all_converged and len(stability):
        st = stability.assign(_c=[f"{int(c)} of {int(n)}" for c, n in zip(stability["converged"], stability["n"])])
        conv_pivot = pivot(st, factors, "_c", str, "runs converged")
    return {
        "name": name,
        "description": study.description,
        "config_yaml": resolved_config(study),
        "n_runs": len(summary),
        "n_expected": expected,
        "n_diverged": diverged,
        "n_seeds": len(study.seeds),
        "factors": factors,
        "train_seconds": float(pd.to_numeric(summary.get("train_seconds"), errors="coerce").sum()),
        "cells_pivot": table_html(pivot(cells, factors, "mean", pct, "mean test accuracy")) if factors else None,
        "across": factors[-1] if factors else None,
        "cells": interactive(cells, f"{name}-cells"),
        "main_effects": table_html(tables["main_effects"], "table words"),  # long marginal means wrap in their box
        "all_converged": all_converged,
        "n_converged": int(stability["converged"].sum()) if len(stability) else 0,
        "conv_pivot": table_html(conv_pivot) if conv_pivot is not None else None,
        "stability": interactive(stability, f"{name}-stability"),
        "comparisons": interactive(comparisons, f"{name}-comparisons"),
        "folded_tables": [{"title": t.title, "caption": t.caption, "html": table_html(tables[t.name])}
                          for t in outputs.TABLES if t.collapsed and t.name in tables],  # fmt: skip
        **lead,
        "lead_figures": figure_entries(results, name, only=lead["lead_figures"], skip=SCOPE_FIGURES) if lead["lead_figures"] else [],
        "figures": figure_entries(results, name, skip=SCOPE_FIGURES + lead["lead_figures"]),
    }


def scope_text(c: dict) -> str:
    """A claims row's scope label ('' without robust_over; a CSV's empty cell reads as NaN)."""
    label = c.get("scope")
    return label if isinstance(label, str) else ""


def where_it_holds(results: Path, records: list[dict], specs: dict) -> list[dict]:
    """Per claim with robust_over: its scope, where it holds and fails in words, its universes' rows of
    the study's scope table and the study's where_it_holds figure (once per study)."""
    out, shown = [], set()
    for c in records:
        if not c["scope_label"]:
            continue
        path = results / c["study"] / outputs.table("scope").file
        table = pd.read_csv(path) if path.is_file() else pd.DataFrame(columns=["id", *SCOPE_SHOWN])
        rows = table[table["id"] == c["id"]][[k for k in SCOPE_SHOWN if k in table]]
        figures = [] if c["study"] in shown else figure_entries(results, c["study"], only=SCOPE_FIGURES)
        shown.add(c["study"])
        over = ", ".join(specs[c["id"]].robust_over)
        out.append({"id": c["id"], "study": c["study"], "label": c["scope_label"], "over": over,
                    "detail": c.get("scope_detail") if isinstance(c.get("scope_detail"), str) else EMPTY,
                    "p": c.get("scope_p"), "table": table_html(rows), "figures": figures})  # fmt: skip
    return out


def against_published(results: Path, studies: list[str], cfg) -> dict:
    """The studies with a ``published`` block, from their tables/published.csv: per study each level's
    mean over seeds and seed range beside the published number, the two orders and whether ours
    reproduces the paper's (ablation.published.ranking, with the study's claims table), our scale from
    the study's settings; the figure of all of them side by side, and of each by test length beside the
    paper's per-length means (tables/published_lengths.csv); how many rankings are reproduced."""
    sections, tables, lengths, blocks, rankings = [], {}, {}, {}, {}
    for name in studies:
        pub, path = cfg.raw["studies"][name].get("published"), results / name / outputs.table("published").file
        if not pub or not path.is_file():
            continue
        tab = tables[name] = pd.read_csv(path, dtype={"level": str})
        claims = results / name / outputs.table("claims").file
        result = rankings[name] = published.ranking(tab, pd.read_csv(claims) if claims.is_file() else None,
                                                    cfg.raw["studies"][name])  # fmt: skip
        if (by_length := path.with_name("published_lengths.csv")).is_file():
            lengths[name], blocks[name] = pd.read_csv(by_length, dtype={"level": str}), pub
        rows = [{"level": r.level, "ours": f"{r.here_mean:.2f} (seeds {r.here_seed_min:.2f} to {r.here_seed_max:.2f}, "
                 f"n = {r.here_seeds})", "published": "not published" if _isnan(r.published) else f"{r.published:.2f}"}
                for r in tab.itertuples()]  # fmt: skip
        sections.append({"study": name, "task": cfg.study(name).fixed.get("task", ""), "factor": pub["factor"],
                         "metric": pub["metric"], "lengths": "{} to {}".format(*pub["lengths"]), "rows": rows,
                         "ranking": published.words(result), "reproduced": result["reproduced"], "pairs": result["pairs"],
                         "ranks": {r.level: _ranks(r.here_rank, r.published_rank) for r in tab.itertuples()},
                         "here_order": result["here"], "published_order": result["published"],
                         "scale": published.scale(cfg.study(name), pub),
                         "source": pub["source"], "protocol": pub["protocol"], "note": pub.get("note", "")})  # fmt: skip
    ordered = [s for s in sections if s["pairs"]]  # a block that orders no pair has no ranking to reproduce
    levels = list(dict.fromkeys(level for s in sections for level in s["ranks"]))
    return {"sections": sections, "figure": _png(published.figure, tables, tables and sections[0]["metric"], rankings=rankings),
            "length_figure": _png(published.length_figure, lengths, blocks), "reproduced": sum(s["reproduced"] for s in ordered),
            "rankings": len(ordered), "separated": published.SEPARATED, "here_separated": published.HERE_SEPARATED,
            "levels": levels}  # fmt: skip


def _png(draw, tables: dict, *args, **kwargs) -> str | None:
    """``draw(tables, *args, buffer, **kwargs)`` in memory (the report writes one file, its own, atomically),
    as a data URI; None without tables."""
    if not tables:
        return None
    png = BytesIO()
    draw(tables, *args, png, **kwargs)
    return "data:image/png;base64," + base64.b64encode(png.getvalue()).decode("ascii")


def _ranks(here, theirs) -> str:
    """A level's rank here and the paper's, as the ranks table shows them ("2 (1)"); unranked: not published."""
    return "not published" if _isnan(theirs) else f"{here:.0f} ({theirs:.0f})"


def run_counts(results: Path, studies: list[str], cfg) -> dict:
    """Every run the report rests on: the studies' runs, planned (the config's seeds) and added by
    adaptive rounds, and the runs of scoped claims' other universes (``<study>/scope/summary.csv``);
    failures (runs of the config without a result, or with a status other than ok or diverged) and
    divergences over all of them."""
    n = failed = diverged = expected = added = scope = 0
    for name in studies:
        summary = pd.read_csv(results / name / outputs.table("summary").file, dtype={"run_id": str})
        planned = len(list(cfg.study(name).runs()))
        n += len(summary)
        expected += planned
        added += max(0, len(summary) - planned)  # the seeds an adaptive study's rounds added
        failed += max(0, planned - len(summary))
        path = results / name / "scope" / "summary.csv"
        if path.is_file():
            universes = pd.read_csv(path, dtype={"run_id": str})
            scope += len(universes)
            summary = pd.concat([summary, universes], ignore_index=True)
        diverged += int((summary["status"] == "diverged").sum())
        failed += int((~summary["status"].isin(["ok", "diverged"])).sum())
    return {"n": n + scope, "expected": expected, "added": added, "scope": scope, "failed": failed, "diverged": diverged}


def reproduction(results: Path, studies: list[str], reference: Path) -> dict:
    """The reproduction check against ``reference`` (ablation.compare), for the report."""
    if not reference.is_dir() or not compare.studies_of(reference):
        return {"reference": str(reference), "present": False, "studies": []}
    rows = []
    for name in studies:
        if not (reference / name / "summary.csv").is_file():
            rows.append({"study": name, "missing": True})
            continue
        r = compare.compare_study(results, reference, name)
        big = r["largest_test_acc_diff"]
        env_keys = [k for k in compare.ENVIRONMENT_KEYS if k != "code_sha256"]
        rows.append({
            "study": name, "missing": False, "result": r,
            "lines": compare.lines(r),
            "largest": (f"{100 * big['difference']:.2f} percentage points ({big['run_id']})" if big else EMPTY),
            "env": [(k, r["environment_here"].get(k, "unknown"), r["environment_ref"].get(k, "unknown"))
                    for k in env_keys],
        })  # fmt: skip
    overview = compare.overview([r["result"] for r in rows if not r["missing"]])
    missing = [r["study"] for r in rows if r["missing"]]
    if missing:
        overview["sentences"].append(f"The reference has no study {', '.join(missing)}.")
    return {"reference": str(reference), "present": True, "studies": rows, "overview": overview}


def coverage(cfg, studies: list[str], command: str) -> str:
    """The studies a report of some studies leaves out, in a sentence ('' for every study), with the
    command (``command`` without its STUDY=) that reports every study."""
    left = selection.left_out(cfg, studies)
    if not left:
        return ""
    every = html.escape(command.split(" STUDY=")[0])
    return (f"This report covers the {'study' if len(studies) == 1 else 'studies'} {', '.join(studies)} of the "
            f"config; it leaves out {', '.join(left)} (<code>{every}</code> reports every study).")  # fmt: skip


def training_code(cfg, studies: list[str], command: str) -> dict:
    """The training code of the runs the studies' verdicts read (``store.check_code``): ``lines``, a
    sentence per class of runs, and ``stale``, the one on runs trained by other training code (with
    the command that retrains them; None when there are none)."""
    hashes = run_store.config_hashes(cfg, selection.judged_with(cfg, studies))
    checked = run_store.check_code(hashes, cfg.train_threads)
    lines = run_store.code_lines(checked, command.replace("make reproduce", "make retrain-stale", 1))
    return {"lines": lines, "stale": lines[0] if checked.other_code else None}


def build(raw_config: dict, studies: list[str], results: Path, command: str, reference: Path = REFERENCE_DIR) -> str:
    cfg = validate(raw_config)
    results = Path(results)
    specs = {c.id: c for name in studies for c in cfg.study(name).claims}
    claims = []
    for name in studies:
        path = results / name / outputs.table("claims").file
        if path.is_file():
            df = pd.read_csv(path)
            df.insert(0, "study", name)
            claims.append(df)
    claims_df = pd.concat(claims, ignore_index=True) if claims else pd.DataFrame()
    records = claims_df.to_dict("records")
    for c in records:
        spec = specs[c["id"]]
        c["fragile"] = not _isnan(c.get("robustness")) and c["robustness"] < ROBUST
        c["estimate_text"] = estimate_text(c, spec)
        c["interval_text"] = interval_text(c, spec)
        c["estimate_short"] = estimate_short(c, spec)
        c["plain"] = verdict_sentence(c)
        c["said"] = claim_sentence(c, spec, cfg.stats["confidence"], long=True)
        c["n_text"] = seeds_text(c)
        c["scope_label"] = scope_text(c)
        c["changed"] = c.get("changed_after_runs") if isinstance(c.get("changed_after_runs"), str) else ""
    checks = pd.read_csv(results / "checks.csv") if (results / "checks.csv").is_file() else pd.DataFrame()
    verify = None
    vpath = results / outputs.VERIFY.file
    if vpath.is_file():
        vdf = pd.read_csv(vpath, dtype={"study": str})
        vdf = vdf[vdf["study"].isin(studies)]  # a report of some studies: their runs of the sample, if any
        if len(vdf) or not selection.left_out(cfg, studies):
            verify = {"k": int(vdf["identical"].sum()), "n": len(vdf), "table": table_html(vdf)}
    plan_table = ablation_plan.plan(cfg)
    plan_table = plan_table[plan_table["study"].isin(studies)]
    interactive = Interactive()
    study_sections = [study_section(results, n, cfg.study(n), cfg.stats, interactive) for n in studies]
    if len(claims_df):
        claims_df.insert(claims_df.columns.get_loc("estimate"), "estimate_unit",
                         [estimate_unit(specs[i]) for i in claims_df["id"]])  # fmt: skip
    claims_detail = interactive(
        claims_df.drop(columns=[c for c in ("statement", "source") if c in claims_df]), "claims"
    ) if len(claims_df) else None  # fmt: skip
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(PACKAGE_DIR / "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
    )
    template = env.get_template("report.html.j2")
    state = git_state()
    commit, dirty = state["git_commit"], bool(state["git_dirty"])
    return template.render(
        generated=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        headline=headline(claims_df, [i for i in cfg.raw.get("report", {}).get("headline", []) if i in specs]),
        coverage=coverage(cfg, studies, command),
        training_code=training_code(cfg, studies, command),
        claims=records,
        scopes=where_it_holds(results, records, specs),
        family_text=family_text(cfg.stats, records),
        claims_detail=claims_detail,
        registration=changed_after_runs(records),
        robust=ROBUST,
        effects=largest_effects(results, studies),
        runs=run_counts(results, studies, cfg),
        published=against_published(results, studies, cfg),
        reproduction=reproduction(results, studies, Path(reference)),
        plan=table_html(ablation_plan.display(plan_table)),
        plan_legend=ablation_plan.legend(plan_table),
        checks=checks.to_dict("records"),
        verify=verify,
        studies=study_sections,
        pe_figure=_img(results / "figures" / "positional_encoding.png")
        if (results / "figures" / "positional_encoding.png").is_file()
        else None,
        glossary=outputs.full_glossary(),
        itables_head=interactive.head() if interactive.count else "",
        config_yaml=yaml.safe_dump(raw_config, sort_keys=False),
        stats=cfg.stats,
        command=command,
        versions=_versions(),
        commit=(commit or "unknown") + (" (with uncommitted changes)" if dirty else ""),
        host=platform.node(),
        fmt=_fmt,
        pct=pct,
        isnan=_isnan,
        escape=html.escape,
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config-json", required=True)
    ap.add_argument("--studies", required=True, help="JSON list of study names, in config order")
    ap.add_argument("--results", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--command", default="make reproduce", help="the command that reproduces this report")
    ap.add_argument("--reference", type=Path, default=REFERENCE_DIR, help="the committed reference (reference/)")
    args = ap.parse_args(argv)
    text = build(json.loads(args.config_json), json.loads(args.studies), args.results, args.command, args.reference)
    io.write_text(args.out, text)
    print(f"wrote {args.out} ({len(text) / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
