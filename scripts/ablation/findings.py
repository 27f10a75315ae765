"""The reference's claims in words: each claim of reference/<study>/claims.csv with what its seeds show,
measured again from reference/ with the verdicts' own seed units and intervals, and the README's two
views of them (``ablation.readme`` writes both).

- ``headline``: the findings the config chooses (``report: findings:``, else ``report: headline:``),
  one sentence each: the claim, its verdict, its effect in % or pp (or k of n seeds) with its interval
  over seeds (``intervals.mean_ci``: Clopper-Pearson, Tango, Anderson or the skew-corrected t, as the
  seeds call for; a mean claim its test decided: that test's interval, claims.csv's), the published rankings, and the construction checks (the estimand ``exact``) apart;
  where the share of seeds decided a claim, the count of seeds that meet it follows, with the interval
  of that share labelled as the share's (``share_interval``), never beside a mean;
- ``claims_table``: every other claim, a row each in words: the cell that decides it and why that one,
  its effect, the seeds that meet it and, when INCONCLUSIVE, why (the effect in the margin's zone of
  doubt, the seeds split or lean one way short of alpha, or a design that could not reach a verdict).

A claim is measured on reference/<study>/summary.csv (the settings its run ids name) and, for a metric
of the task, reference/<study>/evaluations.csv, in the cell that decided it there. Where reference/ does
not keep what a claim reads (final training accuracies, initial gradients, evaluations), or the
measurement does not give claims.csv's own estimate (the config's claim is not the one judged), its row
keeps claims.csv's sentence, its mean in the claim's unit and the stored interval of its share of seeds;
whatever other columns claims.csv has are read as they come.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import analyze, design, intervals, kinds, published, seed_units, verdicts
from .claims import mean_interval  # claims.csv's interval of a mean claim, which its test reads
from .seed_units import StudyRuns

METRIC_WORDS = {"test_acc": "test accuracy", "converged": "convergence", "final_train_acc": "final training accuracy"}


def table_cell(text) -> str:
    """A Markdown table cell: one line, pipes escaped; a missing value empty."""
    if text is None or (isinstance(text, float) and pd.isna(text)):
        return ""
    return " ".join(str(text).split()).replace("|", "\\|")


def run_factors(run_ids: pd.Series) -> pd.DataFrame:
    """The settings a run id names (``pos_enc~none/seed~0``), one column each, as text."""
    return pd.DataFrame([dict(part.split("~", 1) for part in str(r).split("/") if "~" in part) for r in run_ids],
                        index=run_ids.index)  # fmt: skip


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


def _stale(row: dict, claim, study: str) -> str:
    """' (judged with the estimand share; the config now asks for mean ...)' where the reference judged
    a claim with another estimand than the config's claim now states, else ''."""
    if claim is None or row.get("estimand", "") == "":
        return ""
    now = "exact" if claim.exact else claim.estimand
    if row["estimand"] == now:
        return ""
    return (f" (judged with the estimand {row['estimand']}; the config now asks for {now}: `make reproduce "
            f"STUDY={study}` judges it anew)")


@dataclass
class Measured:
    """What the seeds of a claim's deciding cell show, measured again from reference/ with the verdicts'
    own seed units (``verdicts.claim_test``) and intervals (``intervals.mean_ci``)."""

    cell: str  # the deciding cell's label
    cells: int  # the cells the claim is judged in
    n: int
    mean: float
    lo: float
    hi: float  # the interval over seeds of the mean
    met: int
    counted: int  # seeds that meet the claim, of those it counts
    signs: tuple | None  # a comparison's (better, worse, tied) seeds
    groups: list  # per level a comparison reads, or per cell of a one-sample claim: label, seeds, values, mean, lo, hi
    method: str = ""  # how lo and hi were found (``intervals.mean_ci``'s method)


@dataclass
class Row:
    """One claim of reference/: its claims.csv row, the config's claim (None when the config has no
    claim of that id) and what its seeds show measured again (None where reference/ lacks what it reads)."""

    study: str
    row: dict
    claim: object
    measured: Measured | None

    @property
    def exact(self) -> bool:
        return self.row.get("estimand") == "exact" or (self.claim is not None and self.claim.exact)


def reference_runs(reference: Path, name: str, cfg) -> StudyRuns:
    """One study of ``reference`` as its claims read it: summary.csv with the settings its run ids name
    (numbers as numbers, as ``analyze.read_table`` reads a factor), evaluations.csv where reference/
    keeps it, and the config's design (an adaptive study's seeds and rounds)."""
    study, folder = cfg.studies[name], Path(reference) / name
    summary = pd.read_csv(folder / "summary.csv", dtype={"run_id": str})
    named = run_factors(summary["run_id"])
    for col in named.columns.difference(summary.columns):
        number = pd.to_numeric(named[col], errors="coerce")
        summary[col] = number if number.notna().all() else named[col]
    path = folder / "evaluations.csv"
    evaluations = analyze.read_table(path, study.factor_names) if path.is_file() else None
    block = design.adaptive_block(cfg.raw["studies"][name])
    return StudyRuns(name, summary, tuple(study.factor_names), None, {"seeds": study.seeds} | block if block else None,
                     tuple(study.claims), evaluations)  # fmt: skip


def _group(label: str, seeds, values, bounds, step: float, confidence: float) -> dict:
    lo, hi, _ = intervals.mean_ci(values, confidence, bounds, step)
    values = np.asarray(values, dtype=float)
    return {"label": label, "seeds": np.asarray(seeds), "values": values, "mean": float(np.mean(values)), "lo": lo,
            "hi": hi, "binary": step == 1 and bool(np.isin(values, (0.0, 1.0)).all())}  # a 0/1 metric: k of n seeds


def measure(claim, runs: StudyRuns, judge: verdicts.Judge, label: str = "") -> Measured | None:
    """The cell of ``claim`` named ``label`` (the one that decided its verdict in reference/; else the one
    that decides it here) measured on ``runs``; None for an exact claim, and where the runs lack what the
    claim reads (a study's evaluations, initial gradients, the final training accuracy)."""
    if claim.exact or (not claim.evaluated and claim.metric != "test_acc" and "final_train_acc" not in runs.summary):
        return None
    if runs.design is not None and not claim.sequential:
        runs = runs.first_round()  # what claim_test reads
    try:
        result = verdicts.claim_test(claim, runs, judge)
    except ValueError:  # reference/ without the evaluations or gradients it reads
        return None
    labels = [cells[0].label for cells in result.cells]
    at = labels.index(label) if label in labels else result.deciding
    part, cell = claim.parts[0], result.cells[at][0]
    evidence, conf = result.evidence[at][0], judge.confidence
    seeds, values = cell.seeds[cell.known()], cell.lo[cell.known()]
    lo, hi, method = intervals.mean_ci(values, conf, verdicts.bounds(claim, part), cell.step)
    tested = mean_interval(claim, result, evidence, cell, conf)  # a mean claim decided by its test: that test's
    if np.isfinite(tested).all():
        (lo, hi), method = tested, "its test's own"
    signs, groups, metric = None, [], seed_units.metric_range(claim.metric)
    if part.compare:
        signs = verdicts.tally(cell)[:3]
        factor, a, b = part.compare
        sub = seed_units.select(runs.summary, claim.where, claim.id)
        for level in (b, a):
            found, _ = seed_units.part_cells(claim, kinds.Part(part.condition, level=(factor, level)), sub, runs, judge.cfg)
            same = [c for c in found if c.label == cell.label or len(found) == 1]
            if not same:
                return None
            keep = np.isin(same[0].seeds, seeds) & same[0].known()  # the seeds the difference pairs
            groups.append(_group(f"{factor}={level}", same[0].seeds[keep], same[0].lo[keep], metric, same[0].step, conf))
    elif part.reads == "metric":
        named = lambda c: seed_units.where_text(claim.where) if c.label.startswith("mean over") else c.label  # noqa: E731
        groups = [_group(named(c), c.seeds[c.known()], c.lo[c.known()], metric, c.step, conf)
                  for c in (cells[0] for cells in result.cells)]  # fmt: skip
    return Measured(cell.label, len(result.cells), cell.n, float(np.mean(values)), lo, hi, evidence.met, evidence.n,
                    signs, groups, method)  # fmt: skip


def claim_rows(reference: Path, cfg=None) -> list[Row]:
    """Every claim of ``reference``, in the config's order of studies, with what its seeds show measured
    again; a measurement that does not give the reference's own estimate is dropped (the config's claim
    is then not the one reference/ judged)."""
    judge, out = verdicts.Judge.of(cfg.stats if cfg else None), []
    for name in study_order(reference, cfg):
        table = pd.read_csv(Path(reference) / name / "claims.csv", dtype=str, keep_default_na=False)
        known = cfg is not None and name in cfg.studies
        claims = {c.id: c for c in cfg.studies[name].claims} if known else {}
        runs = reference_runs(reference, name, cfg) if known else None
        for r in table.to_dict("records"):
            claim = claims.get(r.get("id"))
            decided_in = str(r.get("evidence", "")).split(": ", 1)[0]
            m = measure(claim, runs, judge, decided_in) if claim is not None and r.get("estimand") != "exact" else None
            estimate = pd.to_numeric(r.get("estimate"), errors="coerce")
            if m is not None and not (np.isfinite(estimate) and abs(m.mean - estimate) < 1e-9):
                m = None
            out.append(Row(name, r, claim, m))
    return out


def _number(x: float, scale: str, sign: bool = False) -> str:
    """A value in % (a difference in pp, a slope per layer), one decimal, a trailing .0 dropped."""
    if scale == "slope":
        return (f"{x:+.3f}" if sign else f"{x:.3f}").replace("-", "−") + " per layer"
    text = (f"{100 * x:+.1f}" if sign else f"{100 * x:.1f}").removesuffix(".0").replace("-", "−")
    return text + (" pp" if scale == "difference" else " %")


def _interval(lo: float, hi: float, scale: str, confidence: float) -> str:
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "no interval: fewer than 2 seeds"
    sign = scale != "value"
    return f"{100 * confidence:g} % interval {_number(lo, scale, sign)} to {_number(hi, scale, sign)}"


def metric_words(claim) -> str:
    """What a claim's seeds are measured on, in words: the metric (at its test lengths)."""
    words = METRIC_WORDS.get(claim.metric, str(claim.metric).replace("_", " "))
    if claim.evaluated:
        lo, hi = claim.lengths or (None, None)
        words += " at the trained lengths" if lo is None else f" at length {lo}" if lo == hi else f" at lengths {lo}–{hi}"
    return words


def share_decided(row: dict) -> bool:
    """Whether the share of seeds that meet a claim decided it: the estimand ``share``, or a mean claim whose
    t-test's assumption failed on its deciding cell's seeds (``assumption_failed``)."""
    return row.get("estimand") == "share" or assumption_failed(row.get("evidence", "")) is not None


def share_interval(row: dict, confidence: float) -> str:
    """'95 % interval of the share 69.2 % to 100 %' for a claim the share of seeds decided (``share_decided``):
    claims.csv's share_lo and share_hi, the exact interval of the share its test rests on; '' otherwise.
    It belongs beside the count of seeds that meet the claim, never beside a mean."""
    lo, hi = (pd.to_numeric(row.get(k), errors="coerce") for k in ("share_lo", "share_hi"))
    if not share_decided(row) or not (np.isfinite(lo) and np.isfinite(hi)):
        return ""
    return f"{100 * confidence:g} % interval of the share {_number(lo, 'value')} to {_number(hi, 'value')}"


def effect(claim, m: Measured, confidence: float, share: str = "") -> str:
    """A measured claim's effect in words: per level (a comparison) its mean or k of n seeds, then the
    difference's mean over seeds with its interval; a one-sample claim's mean with its interval.

    ``share``: the interval of the share of seeds that decided the claim (``share_interval``), which
    ``seed_words`` prints beside that share. A one-sample mean whose interval is then Clopper-Pearson's
    (every seed at 0 or 100 %: the exact interval of a count of seeds, the share's own numbers when every
    seed meets the claim) is printed without it, so that a share's interval never stands beside a mean."""
    scale = claim.scale
    if scale != "difference":
        counted = bool(share) and m.method.startswith("Clopper-Pearson")
        interval = "" if counted else f" ({_interval(m.lo, m.hi, scale, confidence)})"
        return f"{metric_words(claim)} {_number(m.mean, scale)}{interval} over {m.n} seeds"
    levels = []
    for g in m.groups:
        if g["binary"]:
            levels.append(f"`{g['label']}` in {int(g['values'].sum())} of {len(g['values'])} seeds")
        else:
            levels.append(f"`{g['label']}` {_number(g['mean'], 'value')} ({_interval(g['lo'], g['hi'], 'value', confidence)})")
    return (f"{metric_words(claim)}: {', '.join(levels)}; difference {_number(m.mean, scale, True)} "
            f"({_interval(m.lo, m.hi, scale, confidence)}) over {m.n} seeds")  # fmt: skip


def seed_words(claim, m: Measured, share: str = "") -> str:
    """How many seeds meet the claim, and a comparison's seeds by the sign of their difference; ``share``
    (``share_interval``) beside the count it is the interval of."""
    cond = claim.parts[0].condition
    if m.signs is None:
        return f"{m.met} of {m.counted} seeds {cond.words}" + (f" ({share})" if share else "")
    better, worse, tied = m.signs
    if m.groups and all(g["binary"] for g in m.groups) and -1 < cond.low < 0 and cond.high == np.inf:
        # a 0/1 metric: a seed's difference is -100, 0 or +100 pp, so a margin under 100 pp admits no loss
        why = f"on a 0/1 metric a seed loses 100 pp or nothing, so the {kinds.pp(-cond.low)} margin admits no loss"
        return (f"{m.met} of {m.counted} seeds did not lose ({share + '; ' if share else ''}{better} better, {worse} worse, "
                f"{tied} tied; {why})")  # fmt: skip
    if cond.ties:
        return (f"{better} better, {worse} worse, {tied} tied; {m.met} of the {m.counted} that changed {cond.words}"
                + (f" ({share})" if share else ""))  # fmt: skip
    if cond.strict and cond.low == 0:
        return f"{better} of {m.n} seeds better" + (f" ({share})" if share else "") + f", {worse} worse, {tied} tied"
    return f"{m.met} of {m.counted} seeds {cond.words} ({share + '; ' if share else ''}{better} better, {worse} worse, {tied} tied)"


def where_words(label: str, cells: int, verdict: str = "") -> str:
    """The deciding cell, and why it is the one shown: a claim that must hold in every cell is
    contradicted by its clearest failing cell, and otherwise decided by the cell closest to the boundary."""
    if cells < 2:
        return ""
    why = "the one that contradicts it most clearly" if verdict == "CONTRADICTED" else "the one closest to the boundary"
    return f"in {label} (of its {cells} cells, {why}, which decides the verdict): "


def stored_words(r: Row, confidence: float) -> str:
    """A claim reference/ cannot measure again (it keeps no evaluations, gradients or final training
    accuracy of it): its stored mean in the claim's unit, its own sentence's counts of seeds (up to its
    verdict: what follows, a change after its runs, ``registered_words`` says), and the stored interval
    of the share of seeds that meet its first part (``claims``: share and estimate read the first part,
    the growing level of a slope claim)."""
    row, claim = r.row, r.claim
    cell = str(row.get("evidence", "")).split(": ", 1)[0]
    said = re.split(r"; (?:SUPPORTED|CONTRADICTED|INCONCLUSIVE)(?:;|\.$)", sentence(row))[0]
    words = said.replace(f" ({cell})", "").removeprefix(f"{cell}: ").rstrip(".")
    words = re.sub(r"^mean [^ ]+ over \d+ seeds; ", "", words)
    signs = r"(\d+) improved, (\d+) worsened, (\d+) tied of (\d+) seeds"  # the words of verdicts.tally_words
    words = re.sub(rf" \({signs}[^)]*\)", r" (\1 better, \2 worse, \3 tied)", words)
    words = re.sub(rf"{signs}( \([^)]*\))?", r"\1 of \4 seeds better, \2 worse, \3 tied", words)
    lo, hi = (pd.to_numeric(row.get(k), errors="coerce") for k in ("share_lo", "share_hi"))
    share = (f" ({100 * confidence:g} % interval of that share {_number(lo, 'value')} to {_number(hi, 'value')})"
             if np.isfinite(lo) and np.isfinite(hi) else "")  # fmt: skip
    scale = claim.scale if claim is not None else "value"
    levels = [p.level[1] for p in claim.parts if p.level] if claim is not None and scale == "slope" else []
    pieces = words.split("; ")
    if levels and len(pieces) == len(levels):  # a part per level: each named, the share beside the first's count
        words = "; ".join(f"`{claim.factor}={lev}` {p}{share if i == 0 else ''}"
                          for i, (lev, p) in enumerate(zip(levels, pieces)))  # fmt: skip
    else:
        words += share
    estimate, n = (pd.to_numeric(row.get(k), errors="coerce") for k in ("estimate", "n"))
    if claim is not None and np.isfinite(estimate):
        what = (f"slope of ln(gradient norm at initialisation) over the layers at `{claim.factor}={levels[0]}`"
                if levels else f"{metric_words(claim)}{', difference' if scale == 'difference' else ''}")  # fmt: skip
        lo, hi = (pd.to_numeric(row.get(k), errors="coerce") for k in ("ci_lo", "ci_hi"))
        stored = f" (anytime-valid {_interval(lo, hi, scale, confidence)})" if np.isfinite(lo) and np.isfinite(hi) else ""
        words = f"{what}: mean {_number(estimate, scale, scale != 'value')}{stored} over {n:g} seeds; {words}"
    cells = str(row.get("detail", "")).count(" | ") + 1
    return ("" if cell.startswith("mean over") else where_words(cell, cells, row.get("verdict", ""))) + words


def assumption_failed(evidence) -> str | None:
    """Why a mean claim's t-test assumption failed on its deciding cell's seeds, where the share of seeds
    decided instead (the claims table's evidence says so); None otherwise."""
    failed = re.search(r"checked on the \d+ seeds: fails: (.+?); share of seeds instead", str(evidence))
    return failed[1] if failed else None


def why_open(r: Row, alpha: float) -> str:
    """Why an INCONCLUSIVE claim is open, in a few words: its effect in the margin's zone of doubt (the
    interval its test rests on straddles the boundary), its seeds split or lean one way short of alpha, or a
    design that cannot decide it."""
    row, claim, m = r.row, r.claim, r.measured
    evidence, num = str(row.get("evidence", "")), lambda k: pd.to_numeric(row.get(k), errors="coerce")
    scale = claim.scale if claim is not None else "value"
    more = " Even the design's most seeds could not decide it." if "No more seeds" in evidence else ""
    lo, hi, anytime, valid = num("ci_lo"), num("ci_hi"), "anytime-valid ", ", valid after every round of seeds, so wider"
    if not np.isfinite(lo) and m is not None:
        lo, hi, anytime, valid = m.lo, m.hi, "", ""
    band = claim.parts[0].condition.band if claim is not None else ()
    crossed = [b for b in dict.fromkeys(band) if np.isfinite(b) and np.isfinite(lo) and lo < b < hi]
    if row.get("estimand") == "mean" and crossed:
        fmt = lambda x: _number(x, scale, scale != "value")  # noqa: E731
        return (f"Open: the effect lies in the margin's zone of doubt: the {anytime}interval its test rests on "
                f"({fmt(lo)} to {fmt(hi)}{valid}) straddles {' and '.join(map(fmt, crossed))}.{more}")  # fmt: skip
    if not np.isfinite(num("p_value")):
        return f"Open: no test: too few seeds.{more}"
    failed = assumption_failed(evidence)
    fallback = f"its t-test's assumption fails on these seeds ({failed}), and on the share of seeds instead: " if failed else ""
    toward = re.search(r"for (SUPPORTED|CONTRADICTED)", evidence)
    if not num("p_value") <= alpha:
        # the seeds' own counts stand in the row: say which way they lean and how far, not more
        lean = (f"the seeds lean toward {toward[1]}, short of it: p = {num('p_value'):.3g} > alpha {alpha:g}" if toward else
                f"the seeds split: neither verdict has evidence at alpha {alpha:g} (p = {num('p_value'):.3g} both ways)")  # fmt: skip
        return f"Open: {fallback}{lean}.{more}"
    return (f"Open: the design could not reach a verdict: p = {num('p_value'):.3g} toward "
            f"{toward[1] if toward else 'a verdict'}, {num('p_holm'):.3g} after the correction over its family, "
            f"above alpha {alpha:g}.{more}")  # fmt: skip


def registered_words(row: dict) -> str:
    """'; changed after its runs: ...; the claim as registered reads V' where the claim's test changed after
    the reference's runs existed (claims.csv's changed_after_runs and verdict_registered), else ''."""
    changed = str(row.get("changed_after_runs", "") or "").strip()
    if not changed or changed.lower() == "nan":
        return ""
    registered = str(row.get("verdict_registered", "") or "").strip()
    if registered and registered.lower() != "nan":
        return f"; changed after its runs: {changed}; the claim as registered reads {registered}"
    # no registered verdict: the claims table's sentence says why (its registered family cannot be judged),
    # in a reader's words where a claim of that family selects no runs of these
    why = str(row.get("sentence", "")).partition("under the registered claim: ")[2].rstrip(".")
    dropped = re.search(r"claim '([^']+)': (.+?)\)?$", why)
    why = f"its registered family holds `{dropped[1]}`, whose {dropped[2].replace('no runs', 'none of these runs')}" if dropped else why
    return f"; changed after its runs: {changed}; the claim as registered has no verdict on these runs" + (f": {why}" if why else "")


def fallback_words(row: dict) -> str:
    """' Decided on the share of seeds: ...' where a mean claim's t-test assumption failed on its deciding
    cell's seeds and the share of seeds decided instead, else ''."""
    failed = assumption_failed(row.get("evidence", ""))
    if not failed or row.get("verdict") == "INCONCLUSIVE":
        return ""
    return f" Decided on the share of seeds, not the mean: its t-test's assumption fails on these seeds ({failed})."


def shows(r: Row, confidence: float, alpha: float, brief: bool = False) -> str:
    """A claim's row in words: the deciding cell and why it is shown, the effect with its interval, the
    seeds that meet it (with the interval of their share where the share decided it); why it is open, when
    INCONCLUSIVE. ``brief``: the deciding cell and why, and a measured effect without its count of seeds (a
    finding's sentence), unless the share of seeds decided it: then the count and its interval follow."""
    m, claim = r.measured, r.claim
    share = share_interval(r.row, confidence)
    if m is None:
        text = stored_words(r, confidence)
    elif brief:
        text = where_words(m.cell, m.cells, r.row.get("verdict", "")) + effect(claim, m, confidence, share)
        text += f"; {seed_words(claim, m, share)}" if share else ""
    else:
        text = (where_words(m.cell, m.cells, r.row.get("verdict", ""))
                + f"{effect(claim, m, confidence, share)}; {seed_words(claim, m, share)}")  # fmt: skip
    text += _stale(r.row, claim, r.study)
    text += ("" if "changed after its runs" in text else registered_words(r.row)) + "."
    fell_back = fallback_words(r.row).strip()  # first: the statement speaks of the mean, the verdict of the share
    text = f"{fell_back} {text[:1].upper()}{text[1:]}" if fell_back else text
    return text + (" " + why_open(r, alpha) if r.row.get("verdict") == "INCONCLUSIVE" else "")


def kept_summary(reference: Path, name: str) -> pd.DataFrame:
    """The runs reference/ keeps of a study: its summary.csv's, and its scope's (scope/summary.csv) where kept."""
    files = [Path(reference) / name / "summary.csv", Path(reference) / name / "scope" / "summary.csv"]
    return pd.concat([pd.read_csv(f) for f in files if f.is_file()] or [pd.DataFrame(columns=["hash"])])


def kept_runs(reference: Path, name: str) -> int:
    return len(kept_summary(reference, name))


SCOPE_WORDS = {"ROBUST": "the same verdict in every universe of its scope",
               "LIMITED": "the opposite verdict in some universe of its scope",
               "UNSETTLED": "its verdict neither holds in every universe of its scope nor is reversed in one"}
"""A scope in words beside its verdict: 'CONTRADICTED, scope ROBUST' reads as 'the claim is robust'."""


def verdict_text(row: dict) -> str:
    """The verdict, with a decided one's p after Holm (how sure: 0.049 and 0.0001 are not alike), and its
    scope in words; an UNSETTLED scope says where it holds and why its weakest universe is open
    (claims.csv's scope_detail: "holds at ...; ...; weakest <universe>: <why>; ...")."""
    verdict, scope = row.get("verdict", ""), row.get("scope")
    p = pd.to_numeric(row.get("p_holm"), errors="coerce")
    sure = [f"p = {p:.2g} after Holm"] if verdict in ("SUPPORTED", "CONTRADICTED") and np.isfinite(p) else []
    if not scope:
        return f"**{verdict}**" + (f" ({sure[0]})" if sure else "")
    words = "; ".join([*sure, f"{SCOPE_WORDS.get(scope, 'scope')}: {scope}"])
    detail = str(row.get("scope_detail", "") or "")
    weakest = re.search(r"weakest ([^:;]+): (.+?)(?:; it has max_seeds \((\d+)\))?(?:; ROBUST needs|$)", detail)
    if scope == "UNSETTLED" and weakest:
        held = detail.split("; ", 1)[0] if detail.startswith("holds at ") else ""
        most = f" ({weakest[3]} seeds, the most its design gives)" if weakest[3] else ""
        words += f"; {held + ', but ' if held else ''}at {weakest[1]} {weakest[2]}{most}"
    return f"**{verdict}** ({words})"


def claims_table(reference: Path, cfg=None, rows: list[Row] | None = None) -> str:
    """Every claim of ``reference`` but the construction checks as a Markdown table in words, and the
    tally of their verdicts and scopes."""
    rows = claim_rows(reference, cfg) if rows is None else rows
    judge = verdicts.Judge.of(cfg.stats if cfg else None)
    lines = [f"| study | claim | verdict | what the seeds show ({100 * judge.confidence:g} % interval over seeds) |",
             "| --- | --- | --- | --- |"]  # fmt: skip
    verdicts_, scopes = {}, {}
    for r in (r for r in rows if not r.exact):
        verdicts_[r.row.get("verdict", "")] = verdicts_.get(r.row.get("verdict", ""), 0) + 1
        if r.row.get("scope"):
            scopes[r.row["scope"]] = scopes.get(r.row["scope"], 0) + 1
        claim = f"`{r.row.get('id', '')}` {r.row.get('statement', '')}".strip()
        said = shows(r, judge.confidence, judge.alpha)
        lines.append(f"| {r.study} | {table_cell(claim)} | {verdict_text(r.row)} | {table_cell(said)} |")
    known = ("SUPPORTED", "CONTRADICTED", "INCONCLUSIVE")  # in this order; any other verdict after them
    tally = ", ".join(f"{k} {verdicts_[k]}" for k in [*known, *sorted(set(verdicts_) - set(known))] if k in verdicts_)
    scoped = "; scope: " + ", ".join(f"{k} {v}" for k, v in scopes.items()) if scopes else ""
    checks = sum(r.exact for r in rows)
    ranked = rankings_long(reference, cfg)
    return "\n".join([*lines, "", f"{len(lines) - 2} claims besides the {checks} construction checks: {tally}{scoped} "
                      f"(`{Path(reference).name}/*/claims.csv`).", *(["", ranked] if ranked else [])])  # fmt: skip


def finding_ids(cfg) -> list[str]:
    """The claims the config makes the README's findings: ``report: findings:``, else its headline."""
    report = cfg.raw.get("report", {}) if cfg else {}
    return list(report.get("findings") or report.get("headline") or [])


def checks_line(rows: list[Row]) -> str:
    """The construction checks (estimand ``exact``) in one line: how many hold on every run, and which."""
    exact = [r for r in rows if r.exact]
    if not exact:
        return ""
    held = [r for r in exact if r.row.get("verdict") == "SUPPORTED"]
    runs = lambda r: re.search(r"all (\d+) runs", sentence(r.row))  # noqa: E731
    named = ", ".join(f"`{r.row['id']}`" + (f" ({runs(r)[1]} runs)" if runs(r) else "") for r in held)
    text = (f"Checks, not findings: {len(held)} of {len(exact)} construction checks hold on every run ({named}): "
            "without positional encoding and without a causal mask a model cannot see order, so it gives every "
            "test sequence and its A/B-swapped twin the same answer (the twin certificate) and scores exactly "
            "50 %, by construction; each run's certificate is checked, not estimated.")  # fmt: skip
    failed = [r for r in exact if r.row.get("verdict") != "SUPPORTED"]
    return text + "".join(f" `{r.row['id']}` is **{r.row.get('verdict')}**: {sentence(r.row)}" for r in failed)


def headline(reference: Path, cfg, rows: list[Row] | None = None, pictures: tuple = ()) -> str:
    """The findings the config chooses, one sentence each with its effect and interval, then the
    published rankings, the construction checks and the pictures (``pictures``: (path, alt) each)."""
    rows = claim_rows(reference, cfg) if rows is None else rows
    judge, by_id = verdicts.Judge.of(cfg.stats if cfg else None), {r.row.get("id"): r for r in rows}
    studies = study_order(reference, cfg)
    runs = pd.concat([kept_summary(reference, n) for n in studies])["hash"].nunique()  # a shared run once
    key = "findings" if (cfg.raw.get("report", {}) if cfg else {}).get("findings") else "headline"
    out = [f"What the committed reference run finds (`{Path(reference).name}/`: {runs} runs of "
           f"{len(studies)} studies) on the claims the config's `report: {key}:` names, each effect measured "
           f"again from its runs with its {100 * judge.confidence:g} % interval over seeds (of the mean; where the share "
           f"of seeds decided, of that share):", ""]  # fmt: skip
    for cid in finding_ids(cfg):
        r = by_id.get(cid)
        if r is None or r.exact:
            continue
        statement, said = r.row.get("statement", "").strip().rstrip("."), shows(r, judge.confidence, judge.alpha, brief=True)
        out.append(f"{len(out) - 1}. {statement}: {verdict_text(r.row)}. {said[:1].upper()}{said[1:]} (`{cid}`, {r.study})")
    ranked = rankings_short(reference, cfg)
    if ranked:
        out.append(f"{len(out) - 1}. {ranked}")
    out += ["", checks_line(rows)] if checks_line(rows) else []
    changed = [r.row for r in rows if registered_words(r.row)]
    if changed:
        # how many verdicts the edits made: the registered claim read otherwise, or no verdict at all
        other = [c["id"] for c in changed if str(c.get("verdict_registered", "") or "") != str(c.get("verdict", ""))]
        named = lambda ids: ", ".join(f"`{c}`" for c in ids)  # noqa: E731
        out += ["", (f"Changed after their runs: **{len(changed)} of {len(rows)} claims** had their test edited after "
                    f"the reference's runs existed ({named(c['id'] for c in changed)}); as registered, "
                    f"**{len(other)} of them** read another verdict or none on the same runs"
                    f"{f' ({named(other)})' if other else ''}. Each row names the change "
                    f"and what the claim as registered reads ([docs/registration.md](docs/registration.md); "
                    f"the history of each change: [{Path(reference).name}/REGISTRATION.md]({Path(reference).name}/REGISTRATION.md)).")]  # fmt: skip
    for path, alt in pictures:
        out += ["", f"![{alt}]({path})"]
    return "\n".join(out)


def rankings(reference: Path, cfg=None) -> dict[str, dict]:
    """Per study with a published table in ``reference`` (``reference/<study>/published.csv``) whether our
    means order its levels as the paper does (``published.ranking``, with the study's SUPPORTED claims)."""
    found = {}
    for name in study_order(reference, cfg):
        path = Path(reference) / name / "published.csv"
        if path.is_file() and len(tab := pd.read_csv(path, dtype={"level": str})):
            claims = pd.read_csv(Path(reference) / name / "claims.csv", dtype=str, keep_default_na=False)
            body = cfg.raw["studies"].get(name) if cfg is not None else None
            found[name] = published.ranking(tab, claims, body)
    return {name: r for name, r in found.items() if r["pairs"]}  # a table that orders no pair has no ranking


def rankings_short(reference: Path, cfg=None) -> str:
    """The published rankings in one plain sentence: how many hold, and per table its pairs in the paper's order."""
    ranked = rankings(reference, cfg)
    if not ranked:
        return ""
    done = sum(r["reproduced"] for r in ranked.values())
    def at(name: str) -> str:  # the lengths each table is compared at here, which differ from the paper's
        if cfg is None or name not in cfg.studies or not (block := cfg.raw["studies"][name].get("published")):
            return ""
        trained, compared = published.lengths(cfg.studies[name], block)
        theirs, tested = published.paper_trained(block), published.paper_lengths(block)["length"]
        if theirs is None or tested.empty:
            return f" (trained at lengths {trained}, compared at {compared})"
        return (f" (ours trained at lengths {trained} and compared at {compared}; the paper's trained at "
                f"{theirs[0]}–{theirs[1]} and tested at {tested.min()}–{tested.max()})")  # fmt: skip

    each = ", ".join(f"`{name}` {r['agree']} of {r['pairs']}{at(name)}" for name, r in ranked.items())
    sources = dict.fromkeys(re.match(r"[^,(\"]*", (cfg.raw["studies"][n].get("published") or {}).get("source", ""))[0].strip()
                            for n in ranked if cfg is not None and n in cfg.studies)  # fmt: skip
    paper = f" of {', '.join(s for s in sources if s)}" if any(sources) else ""
    return (f"Against the published tables{paper}, our means over seeds order the encodings as the paper does in "
            f"**{done} of {len(ranked)}**; of the pairs the paper separates by {published.SEPARATED:g} or more (exact "
            f"match as a fraction), ordered its way here (our means {published.HERE_SEPARATED:g} apart, or a SUPPORTED "
            f"claim on the pair): {each}; at our scale, far below the paper's (each study's protocol and scale, and every pair: below the "
            "table of every claim).")  # fmt: skip


def rankings_long(reference: Path, cfg=None) -> str:
    """The published rankings, each table's result in words (``published.words``); "" when none orders a pair."""
    ranked = rankings(reference, cfg)
    if not ranked:
        return ""
    done = sum(r["reproduced"] for r in ranked.values())
    each = "; ".join(f"`{name}` {published.words(r)} (published {r['published']}; here {r['here']})"
                     for name, r in ranked.items())  # fmt: skip
    return (f"Published rankings reproduced: **{done} of {len(ranked)}**, a ranking reproduced when every pair of encodings "
            f"the paper separates by {published.SEPARATED:g} or more is ordered its way here "
            f"(`{Path(reference).name}/*/published.csv`): {each}.")  # fmt: skip
