"""The HTML report's content (ablation.report) on the smoke run, and its helpers: the first
screen, words and units, no raw NaN, the glossary covering every column, compact tables, figures
that would show nothing left out with one line."""

import re
from markupsafe import escape  # as the report template escapes

import numpy as np
import pandas as pd
import pytest

from ablation import intervals
from ablation import config as C
from ablation import outputs, report
from conftest import REPO

SMOKE = REPO / "config" / "smoke.yaml"


@pytest.fixture(scope="module")
def smoke(smoke_run):
    work, _ = smoke_run
    cfg = C.load(SMOKE)
    results = work / cfg.outdir / "results"
    html = (work / cfg.outdir / "reports" / "ablation_report.html").read_text(encoding="utf-8")
    return cfg, results, html


def _visible(html: str) -> str:
    """The report without its scripts, styles and embedded images (the table bundle and the figures
    are base64 text, where any three letters, 'nAN' among them, may stand between two '+')."""
    html = re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S | re.I)
    return re.sub(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=]+", "", html)


def test_first_screen_comes_first_and_holds_what_a_reviewer_asks(smoke):
    cfg, _, html = smoke
    first = html[html.index('<section id="first-screen">'): html.index("</section>")]
    assert html.index('id="first-screen"') < html.index('id="claims"') < html.index('id="study-')
    n_claims = sum(len(s.claims) for s in cfg.studies.values())
    checks = [c.id for s in cfg.studies.values() for c in s.claims if c.exact]
    assert checks, "the smoke config's twin-certificate claims"
    # the tally counts findings; the construction checks stand apart, each named
    assert f"Findings: <b>{n_claims - len(checks)}</b> claims" in first
    assert f"construction checks: <b>{len(checks)} of {len(checks)}</b> hold on every run ({', '.join(checks)};" in first
    n_runs = sum(len(list(s.runs())) for s in cfg.studies.values())
    assert f"Runs: <b>{n_runs}</b> of {n_runs}; failed: <b>0</b>" in first
    assert 'id="verdict-table"' in first and 'id="effects-table"' in first and "Reproduction:" in first
    rows = re.findall(r'<tr><td class="nowrap"><a href="#claim-', first)
    assert len(rows) == n_claims
    for study in cfg.studies.values():  # every claim has its plain sentence, saying what n counts
        for claim in study.claims:
            row = first[first.index(f'href="#claim-{claim.id}"'):]
            sentence = row[row.index('class="sentence">'): row.index("</td></tr>")]
            assert " seeds" in sentence and ("%" in sentence or "percentage points" in sentence or "per layer" in sentence)


def test_each_verdict_row_is_one_sentence_with_its_tests_and_holm_steps_one_click_away(smoke):
    cfg, results, html = smoke
    first = html[html.index('<section id="first-screen">'): html.index("</section>")]
    claims = pd.concat([pd.read_csv(results / s / "tables" / "claims.csv") for s in cfg.studies])
    plain = re.findall(r'<span class="plain">([^<]*)</span>\s*<details class="steps"><summary>tests and Holm steps'
                       r'</summary>([^<]*)</details>', first)  # fmt: skip
    assert len(plain) == len(claims)
    for (sentence, steps), c in zip(plain, claims.to_dict("records")):
        assert sentence.count(". ") == 0 and sentence.endswith(".") and "Holm" not in sentence, sentence
        assert str(escape(c["evidence"])) in steps and "Holm" in steps and "Rule:" in steps
    # the claims table's own sentence, where it has one, is what the row says
    c = claims.iloc[0].to_dict()
    assert report.verdict_sentence(c | {report.PLAIN_COLUMN: "12 of 13 seeds stayed within 2 pp."}) == (
        "12 of 13 seeds stayed within 2 pp.")  # fmt: skip
    assert report.verdict_sentence(c | {report.PLAIN_COLUMN: np.nan}) == c["evidence"].split("; ")[0].rstrip(".") + "."


def test_the_first_screen_says_whether_the_verdicts_reproduce_before_the_runs(smoke, smoke_run, tmp_path, monkeypatch):
    """Against a reference of the same runs said to be trained on another CPU, with one run's bits
    and one verdict changed: the verdicts first, then the runs, with the CPU of both sides."""
    import json
    import subprocess
    import sys

    cfg, results, _ = smoke
    work, _ = smoke_run
    monkeypatch.chdir(work)  # where the run store holds the runs' provenance
    ref = tmp_path / "reference"
    subprocess.run([sys.executable, "-m", "ablation.compare", "reference", str(results), "--out", str(ref)],
                   check=True, capture_output=True)  # fmt: skip
    here_cpu = json.loads((ref / "lesson" / "environment.json").read_text())["cpu_model"]
    for name in cfg.studies:
        env = json.loads((ref / name / "environment.json").read_text())
        (ref / name / "environment.json").write_text(json.dumps(env | {"cpu_model": "Other CPU"}))
    lesson = pd.read_csv(ref / "lesson" / "summary.csv", dtype=str)
    lesson.loc[0, "params_sha256"] = "0" * 64
    lesson.to_csv(ref / "lesson" / "summary.csv", index=False)
    claims = pd.read_csv(ref / "lesson" / "claims.csv")
    claims.loc[claims["id"] == "C2-pe-100", "verdict"] = "SUPPORTED"
    claims.to_csv(ref / "lesson" / "claims.csv", index=False)
    html = report.build(cfg.raw, list(cfg.studies), results, "make reproduce", reference=ref)
    line = html[html.index('id="reproduction-summary"'):]
    line = line[: line.index("</div>")]
    n_claims = sum(len(s.claims) for s in cfg.studies.values())
    n_runs = sum(len(s.runs()) for s in cfg.studies.values())  # each study compares its own runs
    verdicts = line.index(f"Verdicts: 1 of {n_claims} differ from the reference&#39;s (C2-pe-100: INCONCLUSIVE here")
    runs = line.index(f"Runs: {n_runs - 1} of {n_runs} bit-identical: bit-identity needs the same CPU")
    assert verdicts < runs and f"this run&#39;s ({escape(here_cpu)}" in line and "reference&#39;s (Other CPU" in line


def test_estimates_carry_units_and_no_raw_nan_anywhere(smoke):
    _, _, html = smoke
    text = _visible(html)
    assert not re.search(r"(?<![\w-])nan(?![\w-])", text, flags=re.I), "a raw nan in the report"
    estimates = re.findall(r'<td class="nowrap">([^<]*(?:%|pp|/layer)[^<]*)</td>', text)
    assert estimates, "no estimate with a unit in the verdict table"


def test_largest_effects_show_the_seeds_that_move_their_way_and_the_range(smoke):
    cfg, results, _ = smoke
    effects = report.largest_effects(results, list(cfg.studies))
    tables = [pd.read_csv(results / s / "tables" / "comparisons.csv").assign(study=s) for s in cfg.studies]
    rows = pd.concat(tables, ignore_index=True)
    top = rows.loc[rows["mean_diff"].abs().idxmax()]
    assert effects[0]["study"] == top["study"]
    assert effects[0]["range"] == f"{100 * top['seed_min']:+.1f} to {100 * top['seed_max']:+.1f} pp"
    up, down, n = int(top["n_up"]), int(top["n_down"]), int(top["n_seeds"])  # every seed counted, ties too
    way = "up" if up >= down else "down"
    assert effects[0]["direction"].startswith(f"{up} up, {down} down, {n - up - down} tied of {n}: {max(up, down)} of {n} move {way}")


def test_the_reports_plan_is_the_terminals_table_with_its_legend(smoke):
    from ablation import plan

    cfg, _, html = smoke
    section = html[html.index('<details id="plan">'): html.index("</details>", html.index('<details id="plan">'))]
    for header in plan.HEADERS:
        assert f"<th>{header}</th>" in section
    cells = re.findall(r"<td>([^<]*)</td>", section)
    assert cells and max(map(len, cells)) <= 60, max(cells, key=len)  # numbers and short words, no paragraph
    for line in plan.legend(plan.plan(cfg)):
        assert str(escape(line)) in section


def test_the_largest_effects_significance_is_the_claims_sign_test_and_says_so(smoke):
    """7 of 7 seeds up: the exact binomial test over seeds the claims use, on both sides: 2 / 2**7,
    not a Holm-adjusted p over every comparison that 7 seeds cannot bring below alpha."""
    from scipy.stats import binomtest

    assert report.sign_test_p({"n_up": 7, "n_down": 0, "n_seeds": 7}) == pytest.approx(2 / 2**7)
    assert report.sign_test_p({"n_up": 2, "n_down": 6, "n_seeds": 8}) == pytest.approx(binomtest(6, 8, 0.5).pvalue)
    # a tie moves neither way: 1 up of 10 with 9 tied is no evidence of an effect, not "1 of 1 up"
    assert report.sign_test_p({"n_up": 1, "n_down": 0, "n_seeds": 10}) == 1.0
    assert np.isnan(report.sign_test_p({"n_up": 0, "n_down": 0, "n_seeds": 0}))
    _, _, html = smoke
    table = html[html.index('id="effects-table"'): html.index("</table>", html.index('id="effects-table"'))]
    assert "sign test over seeds: p (exact, two-sided)" in table and "Holm" not in table


def test_an_effect_every_seed_shows_gets_the_exact_interval_of_its_share():
    # the lesson's effect: +50 pp in each of 5 seeds; the share of seeds moving up is 5 of 5, with
    # the Clopper-Pearson interval of 5 of 5, whatever an interval of the mean would say
    lo, hi = intervals.direction_share_ci(5, 0, 0.95)
    assert (lo, hi) == pytest.approx((0.025 ** (1 / 5), 1.0))
    row = {"n_up": 5, "n_down": 0, "n_seeds": 5}
    assert report.direction_text(row) == "5 up, 0 down, 0 tied of 5: 5 of 5 move up (48-100 %)"
    # ties count: 9 of 10 seeds tied at the bound is one seed of ten moving up
    assert report.direction_text({"n_up": 1, "n_down": 0, "n_seeds": 10}) == "1 up, 0 down, 9 tied of 10: 1 of 10 move up (0-45 %)"
    assert report.direction_text({"n_up": 0, "n_down": 0, "n_seeds": np.nan}) == "no seed counted"


def test_the_glossary_explains_every_column_of_every_table(smoke):
    cfg, results, html = smoke
    glossary = outputs.full_glossary()
    files = [results / "checks.csv", results / outputs.VERIFY.file]
    files += [p for s in cfg.studies for p in (results / s).glob("**/*.csv") if "logs" not in p.parts]
    missing = {c: f.name for f in files for c in pd.read_csv(f, nrows=1).columns if c not in glossary}
    assert not missing, f"columns without a glossary entry: {missing}"
    for name in glossary:
        assert f"<code>{name}</code>" in html


def test_results_readme_carries_the_glossary():
    text = (REPO / "results" / "README.md").read_text(encoding="utf-8")
    assert outputs.glossary_markdown() in text, "run: python -m ablation.outputs --update results/README.md"


def test_each_declared_output_has_its_own_name_and_a_snakemake_caption():
    declared = (*outputs.TABLES, *outputs.FIGURES, *outputs.ADAPTIVE_TABLES, outputs.VERIFY)
    names = [out.name for out in declared]
    assert len(names) == len(set(names)), "the rules look outputs up by name"
    for table in outputs.TABLES:
        caption = REPO / "workflow" / "report" / f"{table.name}.rst"
        assert f"captions.{table.name}" in caption.read_text(encoding="utf-8"), caption


def test_the_folded_tables_are_in_the_report_under_their_declared_titles(smoke):
    cfg, results, html = smoke
    folded = [table for table in outputs.TABLES if table.collapsed]
    assert folded
    for table in folded:
        assert html.count(f"<summary>{escape(table.title)}</summary>") == len(cfg.studies), table.name


def test_a_comparison_that_cannot_reach_significance_says_so_in_its_row():
    row = {"p_holm": 0.25, "significant": False, "min_p": 0.0625, "n_seeds": 5}
    assert report.significance_text(row, 0.05) == "no: cannot reach (smallest possible p 0.0625 > 0.05 with 5 seeds)"
    assert report.significance_text(row | {"min_p": 0.002}, 0.05) == "no (Holm p 0.25)"
    assert report.significance_text(row | {"significant": True, "p_holm": 0.01}, 0.05).startswith("yes")
    assert report.significance_text(row | {"p_holm": np.nan}, 0.05) == "no test"


def test_cells_pivot_puts_the_last_factor_across_the_columns():
    cells = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["1", "2", "1", "2"], "mean": [0.5, 0.75, 1.0, np.nan]})
    wide = report.pivot(cells, ["a", "b"], "mean", report.pct)
    assert list(wide.columns) == ["a", "b = 1", "b = 2"]
    assert wide.loc[wide["a"] == "x", "b = 2"].item() == "75.0 %"
    assert wide.loc[wide["a"] == "y", "b = 2"].item() == "not applicable"


def built(claim: dict):
    """A claim mapping built as the config builds it."""
    from ablation import config

    factors = {"norm": ["post", "pre"], "warmup": [0, 100]}
    return config.check_claims([{"id": "c", "statement": "s", **claim}], factors, list(factors))[0]


def test_claim_sentences_name_units_and_seeds():
    c = {"estimate": -0.0177, "ci_lo": -0.03, "ci_hi": -0.005, "n": 5, "verdict": "SUPPORTED",
         "evidence": "mean over 1 cell(s): 5 of 5 seeds lost at most 2 pp; share > 0.5, exact binomial test over seeds: p = 0.0312"}
    spec = built({"kind": "not_worse", "factor": "norm", "levels": ["post", "pre"], "where": {"warmup": 0}, "margin": 0.02})
    text = report.claim_sentence(c, spec, 0.95)
    assert text.startswith(c["evidence"]) and "norm = pre minus with norm = post" in text
    assert "5 seeds" in text and "-1.8 percentage points" in text and "Rule:" not in text
    assert "Rule: r." in report.claim_sentence(c | {"rule": "r"}, spec, 0.95, long=True)
    assert report.estimate_short(c, spec) == "-1.8 pp [-3.0, -0.5]"
    one = built({"kind": "at_least", "where": {}, "threshold": 0.97, "metric": "converged"})
    assert "share of runs that converged" in report.claim_sentence(c | {"estimate": 0.9}, one, 0.95)
    assert report.estimate_text({"estimate": np.nan}, one) == "not applicable (fewer than 2 seeds)"


def test_figures_that_would_show_nothing_are_one_line_of_text(smoke):
    cfg, results, html = smoke
    from ablation.plots import empty_reason

    # (a scope's figure is shown only under "Where it holds", for a study with robust_over)
    empty = [(s, f.name) for s in cfg.studies for f in outputs.FIGURES
             if f.name not in report.SCOPE_FIGURES and empty_reason(results / s / f.file)]  # fmt: skip
    assert empty, "the smoke config has a one-layer, one-factor study: its interactions and gradient norms are empty"
    for study, name in empty:
        assert f'alt="{study}: {name}"' not in html
    assert html.count('class="empty-figure"') == len(empty)


def test_no_reference_committed_is_said_plainly(smoke, tmp_path):
    cfg, results, _ = smoke
    text = report.build(cfg.raw, list(cfg.studies), results, "make reproduce", reference=tmp_path / "absent")
    assert "No reference is committed" in text and "no reference committed" in text


def test_snakemake_report_labels_each_file_with_its_study_and_has_summaries_and_verify(smoke_run):
    import zipfile

    from conftest import snakemake

    work, _ = smoke_run
    cfg = C.load(SMOKE)
    snakemake(work, "--configfile", "config/smoke.yaml", "--report", "snakemake-report.zip")
    with zipfile.ZipFile(work / "snakemake-report.zip") as zf:
        names = zf.namelist()
        html = zf.read(next(n for n in names if n.endswith("snakemake-report/report.html"))).decode("utf-8")
    assert sum(n.endswith("/summary.csv") for n in names) == len(cfg.studies)
    assert sum(n.endswith("/verify.csv") for n in names) == 1
    for study in cfg.studies:
        for table in ("summary.csv", "tables/cells.csv", "tables/claims.csv"):
            assert f'"study": "{study}", "file": "{table}"' in html, (study, table)


def test_run_counts_tell_planned_runs_from_adaptive_ones_and_count_the_scopes_runs(tmp_path):
    """A study whose adaptive rounds trained more runs than its seeds plan: the first screen counts
    them as added, not as 'N of fewer'; a planned run without a result is a failure. The runs of a
    scoped claim's other universes (the study's scope/summary.csv) are runs the report rests on too."""
    cfg = C.load(SMOKE)
    names = list(cfg.studies)
    for i, name in enumerate(names):
        planned = len(list(cfg.study(name).runs()))
        rows = planned + 3 if i == 0 else planned - 1
        (tmp_path / name).mkdir()
        pd.DataFrame({"run_id": [f"r{k}" for k in range(rows)], "status": "ok"}).to_csv(tmp_path / name / "summary.csv")
    (tmp_path / names[1] / "scope").mkdir()
    pd.DataFrame({"run_id": [f"lr~0.003/r{k}" for k in range(4)], "status": ["ok", "ok", "ok", "diverged"]}).to_csv(
        tmp_path / names[1] / "scope" / "summary.csv")
    expected = sum(len(list(cfg.study(name).runs())) for name in names)
    counts = report.run_counts(tmp_path, names, cfg)
    assert counts == {"n": expected + 3 - (len(names) - 1) + 4, "expected": expected, "added": 3, "scope": 4,
                      "failed": len(names) - 1, "diverged": 1}  # fmt: skip


def test_a_claims_n_is_the_range_of_its_cells_seeds_where_they_differ():
    detail = "heads=1, norm=post: 12 of 13 seeds lost at most 2 pp | heads=2, norm=post: 7 of 7 seeds lost at most 2 pp"
    assert report.seeds_text({"n": 7, "detail": detail}) == "7-13 seeds (by cell)"
    assert report.seeds_text({"n": 10, "detail": "mean over 1 cell(s): 10 of 10 seeds improved"}) == "10 seeds"
    assert report.seeds_text({"n": float("nan"), "detail": ""}) == ""


def test_the_published_numbers_stand_beside_ours_with_their_source_and_protocol(smoke):
    """The smoke length study's `published` block: per encoding, the mean over seeds of each seed's
    exact match averaged over lengths 4-5 (and the seeds' range) beside the published number; an
    encoding the source has no number for says so; the source and protocol are in words."""
    cfg, results, html = smoke
    pub = cfg.raw["studies"]["length"]["published"]
    section = html[html.index('id="published-length"'):]
    section = section[: section.index("<h2", 1)]
    ev = pd.read_csv(results / "length" / "evaluations.csv")
    ev = ev[(ev["metric"] == "exact_match") & ev["length"].between(4, 5)]
    for level in ("none", "learned"):
        seeds = ev[ev["pos_enc"] == level].groupby("seed")["value"].mean()
        ours = f"{seeds.mean():.2f} (seeds {seeds.min():.2f} to {seeds.max():.2f}, n = {len(seeds)})"
        theirs = f"{pub['values'][level]:.2f}" if level in pub["values"] else "not published"
        assert f"<tr><td>{level}</td><td>{ours}</td><td>{escape(theirs)}</td></tr>" in section, (level, section)
    assert str(escape(pub["source"])) in section and str(escape(pub["protocol"])) in section
    whole = html[html.index('<h2 id="published">'):]
    assert "not a target" in whole and 'id="figure-against-published"><img src="data:image/png;base64,' in whole
    ranks = whole[whole.index('id="published-ranks"'):whole.index("</table>", whole.index('id="published-ranks"'))]
    # one published level orders no pair: the row says so, and the first screen counts no ranking
    assert '<a href="#published-length">length</a> (repeat_copy)</td><td>1 (1)</td><td>not published</td>' in ranks
    assert "separates no two levels" in ranks
    assert 'id="published-summary"' not in html
    table = pd.read_csv(results / "length" / "tables" / "published.csv", dtype={"level": str})
    assert table["level"].tolist() == ["none", "learned"] and table["published"].isna().tolist() == [False, True]
