"""Claims about a study, checked against its results with an explicit decision rule.

A study's claims live in the config (``studies.<name>.claims``), one dict per claim, so a claim is
added without touching code. Every claim has ``id``, ``statement``, ``kind``, optionally
``source``, ``where`` and ``metric``, plus the keys of its kind:

=============  =====================================  =============================================
kind           keys                                   SUPPORTED / CONTRADICTED (else INCONCLUSIVE)
=============  =====================================  =============================================
at_value       target, tolerance                      CI of the mean inside / entirely outside
                                                      [target - tolerance, target + tolerance]
at_least       threshold                              CI lower >= threshold / CI upper < threshold
equivalent     factor, levels [a, b], margin          CI of mean paired (b - a) inside / entirely
                                                      outside [-margin, margin]
not_worse      factor, levels [baseline, other],      CI lower of (other - baseline) >= -margin /
               margin                                 CI upper < -margin
better         factor, levels [baseline, treatment]   Holm-adjusted paired p < alpha with mean > 0 /
                                                      with mean < 0
grad_trend     factor, growing, flat, flat_margin     slope CI of `growing` > 0 and `flat` CI inside
                                                      +-flat_margin / `growing` CI <= 0 or `flat` CI
                                                      entirely outside +-flat_margin
=============  =====================================  =============================================

``where`` (column -> value, or -> list of values) selects runs first; values are compared after
casting to the column's type (numbers as floats, anything else as text). ``metric`` is
``test_acc`` (default), ``converged`` (0/1: status ok and final_train_acc >= converged_threshold)
or ``final_train_acc``. Diverged runs count as chance-level runs (see ``ablation.stats``).

Intervals: the ``confidence`` of the config's ``stats``. Means of test_acc / final_train_acc use
the union of the seed bootstrap and the t-interval (``stats.honest_mean_ci``: the bootstrap alone
under-covers with 5-10 seeds); the mean of ``converged`` is a proportion and uses
Clopper-Pearson (a bootstrap of 5/5 successes would claim certainty). ``at_least`` on test_acc
uses the union of the seed-bootstrap and the pooled-test-count Wilson interval (the more
conservative bounds on both sides). ``at_value`` on test_acc uses the seed intervals only: the
test set is swap-paired, so its items are not independent Bernoulli trials (a model blind to order
scores exactly 0.5, which a Wilson interval would blur by +-0.02 at 300 items). Paired kinds
match runs on seed and every other factor (after ``where``). ``better`` p-values are
Holm-adjusted over the ``better`` claims of one study (the config's alpha is "after Holm").
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
import pandas as pd

from . import stats as S

VERDICTS = ("SUPPORTED", "CONTRADICTED", "INCONCLUSIVE")
CLAIM_COLUMNS = ["id", "statement", "source", "kind", "verdict", "estimate", "ci_lo", "ci_hi", "n", "rule", "detail"]
COMMON_KEYS = ("id", "statement", "source", "kind", "where", "metric", "note")
KINDS: dict[str, tuple[str, ...]] = {
    "at_value": ("target", "tolerance"),
    "at_least": ("threshold",),
    "equivalent": ("factor", "levels", "margin"),
    "not_worse": ("factor", "levels", "margin"),
    "better": ("factor", "levels"),
    "grad_trend": ("factor", "growing", "flat", "flat_margin"),
}
PAIRED_KINDS = ("equivalent", "not_worse", "better")
_NUMBER_KEYS = {"target": False, "threshold": False, "tolerance": True, "margin": True, "flat_margin": True}
# key -> must be >= 0


# --------------------------------------------------------------------------- validation


def _claim_id(claim) -> str:
    if isinstance(claim, dict) and isinstance(claim.get("id"), str) and claim["id"]:
        return claim["id"]
    return "<no id>"


def _fail(claim_id: str, problem: str):
    raise ValueError(f"claim {claim_id!r}: {problem}")


def _is_scalar(v) -> bool:
    return v is None or isinstance(v, (str, bool, Real))


def _same(a, b) -> bool:
    """Loose equality of a config value and a level: numbers as floats, else as text."""
    try:
        if not isinstance(a, bool) and not isinstance(b, bool):
            return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=0.0)
    except (TypeError, ValueError):
        pass
    return str(a) == str(b)


def check_claim(claim, factors, settings_columns) -> dict:
    """Validate one claim's shape without data; return it with defaults filled in.

    ``factors``: the study's factor names, or a dict name -> list of levels (then levels named by
    the claim must exist). ``settings_columns``: columns a ``where`` may name ('seed' always may).
    Raises ValueError("claim '<id>': <problem>").
    """
    cid = _claim_id(claim)
    if not isinstance(claim, dict):
        _fail(cid, f"must be a mapping, got {type(claim).__name__}")
    if cid == "<no id>":
        _fail(cid, "missing or empty 'id'")
    if not isinstance(claim.get("statement"), str) or not claim["statement"].strip():
        _fail(cid, "missing or empty 'statement'")
    kind = claim.get("kind")
    if kind not in KINDS:
        _fail(cid, f"unknown kind {kind!r} (one of {', '.join(KINDS)})")
    required = KINDS[kind]
    missing = [k for k in required if k not in claim]
    if missing:
        _fail(cid, f"kind {kind} needs key(s) {', '.join(missing)}")
    allowed = set(COMMON_KEYS) | set(required)
    if kind == "grad_trend":
        allowed.discard("metric")
    unknown = sorted(set(claim) - allowed)
    if unknown:
        _fail(cid, f"unknown key(s) {', '.join(map(str, unknown))} for kind {kind}")
    source = claim.get("source", "")
    if source is None:
        source = ""
    if not isinstance(source, str):
        _fail(cid, "'source' must be text")

    for key, nonneg in _NUMBER_KEYS.items():
        if key in required:
            v = claim[key]
            if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(v):
                _fail(cid, f"'{key}' must be a finite number, got {v!r}")
            if nonneg and v < 0:
                _fail(cid, f"'{key}' must be >= 0, got {v!r}")

    metric = claim.get("metric", "test_acc")
    if metric not in S.METRICS:
        _fail(cid, f"unknown metric {metric!r} (one of {', '.join(S.METRICS)})")

    factor_levels = dict(factors) if isinstance(factors, dict) else None
    factor_names = list(factors)
    factor = claim.get("factor")
    if "factor" in required:
        if not isinstance(factor, str) or factor not in factor_names:
            _fail(cid, f"'factor' {factor!r} is not a factor of the study ({', '.join(factor_names) or 'none'})")

    def known_level(value, what):
        if not _is_scalar(value):
            _fail(cid, f"{what} must be a single value, got {value!r}")
        if factor_levels is not None and not any(_same(value, lev) for lev in factor_levels[factor]):
            _fail(cid, f"{what} {value!r} is not a level of factor '{factor}' ({factor_levels[factor]})")

    if "levels" in required:
        levels = claim["levels"]
        if not isinstance(levels, (list, tuple)) or len(levels) != 2:
            _fail(cid, f"'levels' must be a list of two levels of '{factor}', got {levels!r}")
        if _same(levels[0], levels[1]):
            _fail(cid, f"'levels' names the same level twice ({levels[0]!r})")
        for lev in levels:
            known_level(lev, "level")
    if kind == "grad_trend":
        known_level(claim["growing"], "'growing'")
        known_level(claim["flat"], "'flat'")
        if _same(claim["growing"], claim["flat"]):
            _fail(cid, "'growing' and 'flat' name the same level")

    where = claim.get("where") or {}
    if not isinstance(where, dict):
        _fail(cid, f"'where' must be a mapping column -> value, got {where!r}")
    columns = set(settings_columns) | {"seed"}
    for col, value in where.items():
        if col not in columns:
            _fail(cid, f"'where' names column {col!r}, which does not exist")
        if "factor" in required and col == factor:
            _fail(cid, f"'where' fixes '{col}', the factor the claim compares")
        values = value if isinstance(value, (list, tuple)) else [value]
        if not values or not all(_is_scalar(v) for v in values):
            _fail(cid, f"'where' value for {col!r} must be a value or a list of values, got {value!r}")
        if factor_levels is not None and col in factor_levels:
            for v in values:
                if not any(_same(v, lev) for lev in factor_levels[col]):
                    _fail(cid, f"'where' {col}={v!r} is not a level of that factor ({factor_levels[col]})")

    out = dict(claim)
    out["source"] = source
    out["where"] = dict(where)
    if kind != "grad_trend":
        out["metric"] = metric
    return out


def check_claims(claims, factors, settings_columns) -> list[dict]:
    """``check_claim`` on every claim of a study, plus unique ids."""
    seen = set()
    out = []
    for claim in claims or []:
        c = check_claim(claim, factors, settings_columns)
        if c["id"] in seen:
            _fail(c["id"], "duplicate claim id in this study")
        seen.add(c["id"])
        out.append(c)
    return out


# --------------------------------------------------------------------------- selection


def _mask(column: pd.Series, value, cid: str, what: str) -> np.ndarray:
    """Rows of ``column`` equal to ``value`` (or to any of a list), after casting to the column's type."""
    values = value if isinstance(value, (list, tuple)) else [value]
    mask = np.zeros(len(column), dtype=bool)
    numeric = pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)
    for v in values:
        if numeric:
            try:
                fv = float(v)
            except (TypeError, ValueError):
                _fail(cid, f"{what}: {v!r} is not a number, but column '{column.name}' is numeric")
            col = column.to_numpy(dtype=float, na_value=np.nan)
            mask |= np.isclose(col, fv, rtol=1e-12, atol=0.0)
        else:
            text = "True" if v is True else "False" if v is False else str(v)
            mask |= column.astype(str).eq(text).to_numpy()
    return mask


def _select(summary: pd.DataFrame, where: dict, cid: str) -> pd.DataFrame:
    mask = np.ones(len(summary), dtype=bool)
    for col, value in where.items():
        if col not in summary.columns:
            _fail(cid, f"'where' names column {col!r}, which is not in the results")
        m = _mask(summary[col], value, cid, f"'where' {col}")
        if not m.any():
            _fail(cid, f"'where' {col}={value!r} selects no runs")
        mask &= m
    if not mask.any():
        _fail(cid, f"'where' {_where_text(where)} selects no runs")
    return summary[mask].reset_index(drop=True)


def _where_text(where: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in where.items()) if where else "all runs"


def _level(sub: pd.DataFrame, factor: str, value, cid: str):
    """The value of ``factor`` in the data that the claim's ``value`` names."""
    m = _mask(sub[factor], value, cid, f"level of '{factor}'")
    if not m.any():
        _fail(cid, f"level {factor}={value!r} selects no runs (after 'where')")
    return sub[factor].to_numpy()[np.flatnonzero(m)[0]]


# --------------------------------------------------------------------------- evaluation helpers


def _pct(cfg) -> str:
    return f"{cfg['confidence'] * 100:g}%"


def _f(x, digits=4) -> str:
    return "nan" if x is None or not np.isfinite(x) else f"{x:.{digits}f}"


def _mean_ci(values: np.ndarray, metric: str, cfg: dict, seed: int) -> tuple[float, float, str]:
    if metric == "converged":
        k, n = float(values.sum()), float(len(values))
        lo, hi = S.clopper_pearson_ci(k, n, cfg["confidence"])
        return float(lo), float(hi), "Clopper-Pearson"
    lo, hi, method = S.honest_mean_ci([values], cfg["confidence"], cfg["n_resamples"], seed, max_n=cfg["bootstrap_max_n"])
    return float(lo[0]), float(hi[0]), f"over seeds: {method[0]}"


def _band_verdict(lo, hi, band_lo, band_hi) -> str:
    if lo >= band_lo and hi <= band_hi:
        return "SUPPORTED"
    if hi < band_lo or lo > band_hi:
        return "CONTRADICTED"
    return "INCONCLUSIVE"


def _run_note(sub: pd.DataFrame, metric: str) -> str:
    n_div = int(S.is_diverged(sub).sum())
    if not n_div:
        return ""
    as_what = "as not converged" if metric == "converged" else "at chance (0.5) when their value is missing"
    return f"; {n_div} diverged run(s) counted {as_what}"


def _eval_at_value(c, summary, init_grads, factors, cfg, seed):
    sub = _select(summary, c["where"], c["id"])
    metric = c["metric"]
    v = S.metric_values(sub, metric, cfg)
    lo, hi, how = _mean_ci(v, metric, cfg, seed)
    t, tol = float(c["target"]), float(c["tolerance"])
    mean = float(v.mean())
    return dict(
        verdict=_band_verdict(lo, hi, t - tol, t + tol), estimate=mean, ci_lo=lo, ci_hi=hi, n=len(v),
        rule=(f"{_pct(cfg)} CI of mean {metric} within {t:g} ± {tol:g} ([{t - tol:g}, {t + tol:g}]) -> SUPPORTED; "
              f"entirely outside -> CONTRADICTED; else INCONCLUSIVE ({how})"),
        detail=(f"mean {metric} {_f(mean)} over {len(v)} runs ({_where_text(c['where'])}), "
                f"{_pct(cfg)} CI [{_f(lo)}, {_f(hi)}]" + _run_note(sub, metric)),
    )  # fmt: skip


def _eval_at_least(c, summary, init_grads, factors, cfg, seed):
    sub = _select(summary, c["where"], c["id"])
    metric = c["metric"]
    v = S.metric_values(sub, metric, cfg)
    lo, hi, how = _mean_ci(v, metric, cfg, seed)
    extra = ""
    if metric == "test_acc":
        k, n = S.run_counts(sub)
        wlo, whi = (float(x) for x in S.wilson_ci(k.sum(), n.sum(), cfg["confidence"]))
        extra = (f"; seed bootstrap [{_f(lo)}, {_f(hi)}], pooled Wilson on {int(k.sum())}/{int(n.sum())} "
                 f"[{_f(wlo)}, {_f(whi)}]")  # fmt: skip
        lo, hi = min(lo, wlo), max(hi, whi)
        how = "union of the seed-bootstrap CI and the pooled Wilson CI, the more conservative bound on each side"
    thr = float(c["threshold"])
    verdict = "SUPPORTED" if lo >= thr else "CONTRADICTED" if hi < thr else "INCONCLUSIVE"
    mean = float(v.mean())
    return dict(
        verdict=verdict, estimate=mean, ci_lo=lo, ci_hi=hi, n=len(v),
        rule=(f"{_pct(cfg)} CI lower bound of mean {metric} >= {thr:g} -> SUPPORTED; upper bound < {thr:g} "
              f"-> CONTRADICTED; else INCONCLUSIVE ({how})"),
        detail=(f"mean {metric} {_f(mean)} over {len(v)} runs ({_where_text(c['where'])}), "
                f"{_pct(cfg)} CI [{_f(lo)}, {_f(hi)}]" + extra + _run_note(sub, metric)),
    )  # fmt: skip


def _paired(c, summary, factors, cfg):
    """Matched differences (b - a) of the claim's metric; plus a description."""
    sub = _select(summary, c["where"], c["id"])
    factor = c["factor"]
    la, lb = (_level(sub, factor, lev, c["id"]) for lev in c["levels"])
    values = S.metric_values(sub, c["metric"], cfg)
    _, va, vb, unmatched = S._pair_frame(sub, values, factor, la, lb, list(factors))
    d = vb - va
    desc = (f"{c['metric']} {factor}={lb} minus {factor}={la}, {len(d)} pairs matched on seed and "
            f"{', '.join(f for f in factors if f != factor) or 'no other factor'} "
            f"({_where_text(c['where'])})")  # fmt: skip
    if unmatched:
        desc += f"; {unmatched} runs without a partner"
    return d, la, lb, desc + _run_note(sub, c["metric"])


def _diff_ci(d, cfg, seed):
    lo, hi, _ = S.honest_mean_ci([d], cfg["confidence"], cfg["n_resamples"], seed, bounds=(-1.0, 1.0), max_n=cfg["bootstrap_max_n"])
    return float(lo[0]), float(hi[0])


def _no_pairs(desc, rule):
    return dict(verdict="INCONCLUSIVE", estimate=np.nan, ci_lo=np.nan, ci_hi=np.nan, n=0, rule=rule,
                detail=desc + "; no matched pairs")  # fmt: skip


def _eval_equivalent(c, summary, init_grads, factors, cfg, seed):
    d, la, lb, desc = _paired(c, summary, factors, cfg)
    m = float(c["margin"])
    rule = (f"{_pct(cfg)} bootstrap CI of the mean paired difference ({lb} - {la}) within ±{m:g} -> SUPPORTED; "
            f"entirely outside ±{m:g} -> CONTRADICTED; else INCONCLUSIVE")  # fmt: skip
    if len(d) == 0:
        return _no_pairs(desc, rule)
    lo, hi = _diff_ci(d, cfg, seed)
    mean = float(d.mean())
    return dict(verdict=_band_verdict(lo, hi, -m, m), estimate=mean, ci_lo=lo, ci_hi=hi, n=len(d), rule=rule,
                detail=f"mean difference {_f(mean)}, {_pct(cfg)} CI [{_f(lo)}, {_f(hi)}]; {desc}")  # fmt: skip


def _eval_not_worse(c, summary, init_grads, factors, cfg, seed):
    d, la, lb, desc = _paired(c, summary, factors, cfg)
    m = float(c["margin"])
    rule = (f"{_pct(cfg)} bootstrap CI lower bound of the mean paired difference ({lb} - {la}) >= -{m:g} -> SUPPORTED; "
            f"upper bound < -{m:g} -> CONTRADICTED; else INCONCLUSIVE")  # fmt: skip
    if len(d) == 0:
        return _no_pairs(desc, rule)
    lo, hi = _diff_ci(d, cfg, seed)
    verdict = "SUPPORTED" if lo >= -m else "CONTRADICTED" if hi < -m else "INCONCLUSIVE"
    mean = float(d.mean())
    return dict(verdict=verdict, estimate=mean, ci_lo=lo, ci_hi=hi, n=len(d), rule=rule,
                detail=f"mean difference {_f(mean)}, {_pct(cfg)} CI [{_f(lo)}, {_f(hi)}]; {desc}")  # fmt: skip


def _eval_better(c, summary, init_grads, factors, cfg, seed):
    """Partial result; the verdict needs the Holm adjustment over the study's better claims."""
    d, la, lb, desc = _paired(c, summary, factors, cfg)
    rule_base = (f"paired test of {lb} - {la} (Wilcoxon exact or sign-flip permutation), p Holm-adjusted over "
                 f"the study's 'better' claims: p < {cfg['alpha']:g} and mean > 0 -> SUPPORTED; p < {cfg['alpha']:g} "
                 f"and mean < 0 -> CONTRADICTED; else INCONCLUSIVE")  # fmt: skip
    if len(d) == 0:
        out = _no_pairs(desc, rule_base)
        out["_p"] = np.nan
        return out
    p, test = S.paired_test(d, cfg, seed)
    lo, hi = _diff_ci(d, cfg, seed)
    min_p = S.min_two_sided_p(len(d))
    note = ""
    if min_p > cfg["alpha"]:
        note = f"; cannot reach significance with {len(d)} pairs (min p {min_p:.4g} > alpha {cfg['alpha']:g})"
    return dict(
        verdict=None, estimate=float(d.mean()), ci_lo=lo, ci_hi=hi, n=len(d), rule=rule_base,
        detail=(f"mean difference {_f(d.mean())}, {_pct(cfg)} CI [{_f(lo)}, {_f(hi)}], {test} p = {p:.4g}"
                f"{{holm}}; d_z {_f(S.cohen_dz(d), 2)}; {desc}{note}"),
        _p=p,
    )  # fmt: skip


def _slopes(runs: pd.DataFrame, grads: pd.DataFrame) -> np.ndarray:
    """Least-squares slope of ln(grad_norm) on layer index, one per run (runs with < 2 usable layers
    -- positive, finite norms -- are dropped)."""
    g = grads[grads["run_id"].isin(runs["run_id"])]
    norm = pd.to_numeric(g["grad_norm"], errors="coerce").to_numpy(dtype=float)
    ok = np.isfinite(norm) & (norm > 0)
    x = pd.to_numeric(g["layer"], errors="coerce").to_numpy(dtype=float)[ok]
    with np.errstate(divide="ignore"):
        y = np.log(norm[ok])
    frame = pd.DataFrame({"r": g["run_id"].to_numpy()[ok], "x": x, "y": y, "xx": x * x, "xy": x * y})
    s = frame.groupby("r").agg(n=("x", "size"), sx=("x", "sum"), sy=("y", "sum"), sxx=("xx", "sum"), sxy=("xy", "sum"))
    den = s["n"] * s["sxx"] - s["sx"] ** 2
    good = (s["n"] >= 2) & (den > 1e-12)
    return ((s["n"] * s["sxy"] - s["sx"] * s["sy"])[good] / den[good]).to_numpy(dtype=float)


def _eval_grad_trend(c, summary, init_grads, factors, cfg, seed):
    cid = c["id"]
    if init_grads is None or not {"run_id", "layer", "grad_norm"} <= set(init_grads.columns):
        _fail(cid, "kind grad_trend needs the initial-gradient table (run_id, layer, grad_norm)")
    sub = _select(summary, c["where"], cid)
    factor, fm = c["factor"], float(c["flat_margin"])
    lg, lf = _level(sub, factor, c["growing"], cid), _level(sub, factor, c["flat"], cid)
    sl_g = _slopes(sub[_mask(sub[factor], lg, cid, "growing")], init_grads)
    sl_f = _slopes(sub[_mask(sub[factor], lf, cid, "flat")], init_grads)
    rule = (f"per run, least-squares slope of ln(grad_norm at step 0) on layer index (0 = input side); "
            f"{_pct(cfg)} bootstrap CI of the mean slope at {factor}={lg} > 0 and at {factor}={lf} within "
            f"±{fm:g} -> SUPPORTED; {lg} CI entirely <= 0 or {lf} CI entirely outside ±{fm:g} -> CONTRADICTED; "
            f"else INCONCLUSIVE")  # fmt: skip
    if len(sl_g) == 0 or len(sl_f) == 0:
        return dict(verdict="INCONCLUSIVE", estimate=np.nan, ci_lo=np.nan, ci_hi=np.nan, n=0, rule=rule,
                    detail=(f"runs with a slope (>= 2 layers with a positive gradient norm): {factor}={lg}: "
                            f"{len(sl_g)}, {factor}={lf}: {len(sl_f)} ({_where_text(c['where'])})"))  # fmt: skip
    inf = (-np.inf, np.inf)
    (glo,), (ghi,), _ = S.honest_mean_ci([sl_g], cfg["confidence"], cfg["n_resamples"], seed, bounds=inf, max_n=cfg["bootstrap_max_n"])
    (flo,), (fhi,), _ = S.honest_mean_ci([sl_f], cfg["confidence"], cfg["n_resamples"], seed, bounds=inf, max_n=cfg["bootstrap_max_n"])
    if glo > 0 and flo >= -fm and fhi <= fm:
        verdict = "SUPPORTED"
    elif ghi <= 0 or flo > fm or fhi < -fm:
        verdict = "CONTRADICTED"
    else:
        verdict = "INCONCLUSIVE"
    return dict(
        verdict=verdict, estimate=float(sl_g.mean()), ci_lo=float(glo), ci_hi=float(ghi), n=len(sl_g), rule=rule,
        detail=(f"mean slope {factor}={lg}: {_f(sl_g.mean())} [{_f(glo)}, {_f(ghi)}] over {len(sl_g)} runs; "
                f"{factor}={lf}: {_f(sl_f.mean())} [{_f(flo)}, {_f(fhi)}] over {len(sl_f)} runs "
                f"({_where_text(c['where'])}); estimate / CI are the {lg} level's"),
    )  # fmt: skip


_EVALUATORS = {
    "at_value": _eval_at_value,
    "at_least": _eval_at_least,
    "equivalent": _eval_equivalent,
    "not_worse": _eval_not_worse,
    "better": _eval_better,
    "grad_trend": _eval_grad_trend,
}
assert set(_EVALUATORS) == set(KINDS)


def evaluate_claims(claims, summary: pd.DataFrame, init_grads: pd.DataFrame | None, factors, cfg: dict | None = None,
                    seed: int = 0) -> pd.DataFrame:  # fmt: skip
    """One row per claim: id, statement, source, kind, verdict, estimate (the number the verdict
    rests on), ci_lo, ci_hi, n (runs, pairs, or runs of the growing level), rule, detail.

    Raises ValueError naming the claim for a malformed claim, a ``where`` naming a column not in
    the results or selecting no runs, or a level selecting no runs.
    """
    cfg = S.resolve_cfg(cfg)
    factors = list(factors)
    checked = check_claims(claims, factors, list(summary.columns))
    rows = []
    for c in checked:
        res = _EVALUATORS[c["kind"]](c, summary, init_grads, factors, cfg, seed)
        rows.append({"id": c["id"], "statement": c["statement"], "source": c["source"], "kind": c["kind"], **res})
    better = [r for r in rows if "_p" in r]
    adjusted = S.holm([r["_p"] for r in better])
    for r, p_adj in zip(better, adjusted):
        if r["verdict"] is None:
            significant = bool(np.isfinite(p_adj) and p_adj < cfg["alpha"])
            r["verdict"] = ("SUPPORTED" if significant and r["estimate"] > 0
                            else "CONTRADICTED" if significant and r["estimate"] < 0 else "INCONCLUSIVE")  # fmt: skip
            r["detail"] = r["detail"].replace("{holm}", f", Holm-adjusted p = {p_adj:.4g} over {len(better)} claim(s)")
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)
