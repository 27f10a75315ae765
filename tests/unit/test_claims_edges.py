"""Edges of ablation.claims: the command line on a real results folder with scope runs, the scope
and seed tables it writes, and the words of a row (exact claims, cells, ties, one seed)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ablation import claims as C
from ablation import plugins, scope
from test_claims import CFG, FACTORS, _certified, claim, study

# --------------------------------------------------------------------------- a results folder with scope runs

RO = {"lr": [0.003, 0.01, 0.03]}
SCOPED = [
    {"id": "c", "statement": "x", "kind": "at_least", "threshold": 0.5, "where": {"norm": "pre"}, "robust_over": RO},
    {"id": "e", "statement": "x", "kind": "at_least", "threshold": 0.5, "metric": "exact_match", "lengths": 16,
     "where": {"norm": "pre"}, "robust_over": RO},
    {"id": "g", "statement": "x", "kind": "grad_trend", "factor": "norm", "growing": "post", "flat": "pre",
     "flat_margin": 0.1, "robust_over": RO},
    {"id": "d", "statement": "y", "kind": "at_least", "threshold": 0.5, "where": {"norm": "pre"}},
]  # fmt: skip


def _summary(acc, lr, prefix="") -> pd.DataFrame:
    """Runs of norm post and pre, eight seeds, at one learning rate; test_acc = acc(norm, seed)."""
    return pd.DataFrame([dict(run_id=f"{prefix}lr{lr}/{norm}/{s}", seed=s, norm=norm, lr=lr, status="ok",
                              test_acc=round(acc(norm, s) * 300) / 300, test_correct=round(acc(norm, s) * 300),
                              test_total=300, final_train_acc=1.0)
                         for norm in ("post", "pre") for s in range(8)])  # fmt: skip


def _grads(summary, slope) -> pd.DataFrame:
    return pd.DataFrame([dict(run_id=r.run_id, seed=r.seed, norm=r.norm, layer=layer,
                              grad_norm=float(np.exp(slope(r) * layer - 2)))
                         for r in summary.itertuples() for layer in range(4)])  # fmt: skip


def _evals(summary, value) -> pd.DataFrame:
    return pd.DataFrame([dict(run_id=r.run_id, seed=r.seed, norm=r.norm, metric="exact_match", length=length,
                              trained=length == 8, value=value(r), correct=round(value(r) * 100), total=100)
                         for r in summary.itertuples() for length in (8, 16)])  # fmt: skip


def _write_study(folder: Path, name: str, other_acc: float) -> dict:
    """A study at lr 0.01 (every seed 0.9) and its scope runs at lr 0.003 (``other_acc``) and 0.03
    (0.1, exact_match 0.2), in a folder whose name holds '='."""
    folder.mkdir(parents=True)
    growing = lambda r: 0.5 if r.norm == "post" else 0.0  # noqa: E731
    own = _summary(lambda n, s: 0.9, 0.01, name)
    other = pd.concat([_summary(lambda n, s: other_acc, 0.003, name), _summary(lambda n, s: 0.1, 0.03, name)],
                      ignore_index=True)  # fmt: skip
    own.to_csv(folder / "summary.csv", index=False)
    _grads(own, growing).to_csv(folder / "init_grads.csv", index=False)
    _evals(own, lambda r: 0.9).to_csv(folder / "evaluations.csv", index=False)
    scoped = folder / "scope=runs"
    scoped.mkdir()
    other.to_csv(scoped / "summary.csv", index=False)
    _grads(other, growing).to_csv(scoped / "init_grads.csv", index=False)
    _evals(other, lambda r: other_acc if r.lr == 0.003 else 0.2).to_csv(scoped / "evaluations.csv", index=False)
    return {"summary": folder / "summary.csv", "grads": folder / "init_grads.csv", "evals": folder / "evaluations.csv",
            "scope": scoped}  # fmt: skip


@pytest.fixture
def results(tmp_path):
    """Two studies with scope runs: s1 (lr 0.003 at 0.9) and s2 (lr 0.003 at 0.1); the arguments of
    the claims rule for s1 and the paths it writes."""
    s1, s2 = _write_study(tmp_path / "s1", "a/", 0.9), _write_study(tmp_path / "s2", "b/", 0.1)
    spec = {"stats": {"alpha": 0.05}, "studies": {"s1": {"factors": ["norm"], "claims": SCOPED},
                                                  "s2": {"factors": ["norm"], "claims": SCOPED[:1]}}}  # fmt: skip
    out = {"claims": tmp_path / "claims.csv", "scope": tmp_path / "scope.csv", "seeds": tmp_path / "seeds.csv"}
    argv = ["--family-json", json.dumps(spec), "--summaries", str(s1["summary"]), str(s2["summary"]),
            "--init-grads", str(s1["grads"]), str(s2["grads"]), "--evaluations", str(s1["evals"]), str(s2["evals"]),
            "--scope", f"s1={s1['scope']}", "--scope", f"s2={s2['scope']}", "--study", "s1",
            "--out", str(out["claims"]), "--scope-out", str(out["scope"]), "--scope-seeds-out", str(out["seeds"])]  # fmt: skip
    return spec, argv, out


def _run(argv, capsys):
    assert C.main(argv) == 0
    return capsys.readouterr().out


def test_the_command_line_judges_each_scoped_claim_in_every_universe_of_its_scope_runs(results, capsys):
    spec, argv, out = results
    said = _run(argv, capsys)
    assert said == ("claim c: SUPPORTED, scope LIMITED\nclaim e: SUPPORTED, scope LIMITED\n"
                    "claim g: SUPPORTED, scope ROBUST\nclaim d: SUPPORTED\n")  # fmt: skip
    table = pd.read_csv(out["claims"], keep_default_na=False).set_index("id")
    assert list(table.columns) == C.CLAIM_COLUMNS[1:] and list(table.index) == ["c", "e", "g", "d"]
    assert list(table["scope"]) == ["LIMITED", "LIMITED", "ROBUST", ""] and table.loc["d", "scope_p"] == ""
    assert [float(p) for p in table["scope_p"][:3]] == [1 / 64] * 3
    assert table.loc["c", "scope_detail"].startswith("holds at lr 0.01; fails at lr 0.03; not yet at lr=0.003 (p_sup 0.00391)")
    assert table.loc["g", "scope_detail"].startswith("SUPPORTED in every universe (holds at lr 0.003, 0.01 and 0.03)")
    assert "one step-down over the 4 claim(s) of its family and their scopes' 3 hypotheses (graphical procedure)" in table.loc["c", "evidence"]


def test_the_scope_table_holds_the_written_study_s_universes_only(results, capsys):
    spec, argv, out = results
    _run(argv, capsys)
    rows = pd.read_csv(out["scope"])
    assert list(rows.columns) == scope.SCOPE_COLUMNS
    assert list(rows["id"]) == ["c"] * 3 + ["e"] * 3 + ["g"] * 3
    assert list(rows["universe"]) == ["lr=0.003", "lr=0.01", "lr=0.03"] * 3
    assert list(rows["own"]) == [False, True, False] * 3 and set(rows["n"]) == {8}
    # lr 0.03: test_acc 0.1 and exact_match 0.2 fail the claim; the gradients grow there too
    assert list(rows["verdict"]) == ["INCONCLUSIVE", "SUPPORTED", "CONTRADICTED"] * 2 + ["SUPPORTED"] * 3
    assert list(rows["share"]) == [1.0, 1.0, 0.0] * 2 + [1.0] * 3
    seeds = pd.read_csv(out["seeds"])
    assert list(seeds.columns) == scope.SEED_COLUMNS and len(seeds) == 9 * 8
    assert list(seeds["seed"][:8]) == list(range(8)) and set(seeds["id"]) == {"c", "e", "g"}
    assert list(seeds[seeds["universe"] == "lr=0.03"].groupby("id")["met"].all()) == [False, False, True]
    # the other study (lr 0.003 at 0.1) writes its own: claim c fails at lr 0.003 there
    _run([*argv[:-7], "s2", "--out", str(out["claims"]), "--scope-out", str(out["scope"]), "--scope-seeds-out",
          str(out["seeds"])], capsys)  # fmt: skip
    rows = pd.read_csv(out["scope"])
    assert list(rows["id"]) == ["c"] * 3 and list(rows["verdict"]) == ["CONTRADICTED", "SUPPORTED", "CONTRADICTED"]
    assert len(pd.read_csv(out["seeds"])) == 24 and list(pd.read_csv(out["claims"])["scope"]) == ["LIMITED"]


def test_evaluate_all_prefixes_each_scope_row_and_seed_row_with_its_study(results, capsys):
    spec, argv, out = results
    _run(argv, capsys)
    table, rows, seeds = C.evaluate_all(_studies(spec, argv), {"alpha": 0.05})
    assert list(rows.columns) == ["study"] + scope.SCOPE_COLUMNS and list(seeds.columns) == ["study"] + scope.SEED_COLUMNS
    assert list(rows["study"]) == ["s1"] * 9 + ["s2"] * 3 and list(seeds["study"]) == ["s1"] * 72 + ["s2"] * 24
    written = pd.read_csv(out["scope"])
    assert list(rows["verdict"][:9]) == list(written["verdict"]) and list(rows["universe"][:9]) == list(written["universe"])
    # a claim without a scope: empty words and no p, as written
    d = table.set_index("id").loc["d"]
    assert d.loc["scope"] == "" and d.loc["scope_detail"] == "" and np.isnan(d.loc["scope_p"])
    assert table.set_index(["study", "id"]).loc[("s2", "c"), "scope_p"] > 0


def _studies(spec, argv):
    """The StudyRuns main builds, built here from the same folder."""
    from ablation import analyze, seed_units

    out = []
    for name, base in (("s1", Path(argv[3]).parent), ("s2", Path(argv[4]).parent)):
        own = spec["studies"][name]
        read = lambda p: analyze.read_table(p, own["factors"])  # noqa: E731
        table = read(base / "summary.csv")
        claims = tuple(C.check_claims(own["claims"], own["factors"], list(table.columns)))
        sc = base / "scope=runs"
        scope_runs = seed_units.StudyRuns(name, read(sc / "summary.csv"), ("norm",), read(sc / "init_grads.csv"),
                                          None, claims, read(sc / "evaluations.csv"))  # fmt: skip
        out.append(seed_units.StudyRuns(name, table, ("norm",), read(base / "init_grads.csv"), None, claims,
                                        read(base / "evaluations.csv"), scope_runs))  # fmt: skip
    return out


def test_a_scoped_claim_without_scope_runs_names_the_universe_it_lacks(results, capsys):
    spec, argv, out = results
    i = argv.index("--scope")  # --scope s1=DIR --scope s2=DIR
    without = argv[:i] + argv[i + 4:]
    with pytest.raises(ValueError, match=r"claim 'c': robust_over: no runs of universe lr=0.003 \(the scope's summary is empty\)"):
        C.main(without)


def test_without_evaluations_a_claim_on_an_evaluated_metric_names_what_it_lacks(results, capsys):
    spec, argv, out = results
    i = argv.index("--evaluations")
    with pytest.raises(ValueError, match="claim 'e': metric 'exact_match' is read from the study's evaluations"):
        C.main(argv[:i] + argv[i + 3:])


def test_a_plugin_the_spec_names_is_imported_before_the_claims_are_read(results):
    spec, argv, out = results
    named = json.dumps(spec | {"plugins": ["no_such_ablation_plugin"]})
    with pytest.raises(plugins.PluginError, match="plugins: 'no_such_ablation_plugin' failed to import"):
        C.main(["--family-json", named, *argv[2:]])


def test_the_help_describes_the_output_options_and_the_evaluations(capsys):
    with pytest.raises(SystemExit):
        C.main(["--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "--evaluations [EVALUATIONS ...] evaluations.csv of each study (or none)" in said
    assert "--scope-out SCOPE_OUT the study's scope table (scope.SCOPE_COLUMNS)" in said
    assert "--scope-seeds-out SCOPE_SEEDS_OUT its seeds' values in each universe (scope.SEED_COLUMNS)" in said


# --------------------------------------------------------------------------- the words of a row

EXACT = claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.0034, exact=True)


def test_an_exact_claim_s_sentence_is_the_certificate_s_first_words_and_its_verdict():
    summary = _certified(study(lambda cell, s: 0.5, seeds=range(5)))
    row = C.evaluate_claims([EXACT], summary, None, FACTORS, CFG).iloc[0]
    assert row["sentence"] == "all 10 runs hold the twin certificate; SUPPORTED, exact (checked on every run)."
    # a run id holding ': ' does not cut the sentence short
    summary["run_id"] = [f"run: {i}" for i in range(len(summary))]
    summary.loc[summary["pos_enc"] == "none", "twin_pairs_differ"] = 2
    row = C.evaluate_claims([EXACT], summary, None, FACTORS, CFG).iloc[0]
    assert row["sentence"] == "10 of 10 runs break the twin certificate; CONTRADICTED, exact (checked on every run)."
    assert row["scope"] == "" and row["scope_detail"] == "" and np.isnan(row["scope_p"])


def test_seeds_of_mixed_types_are_left_out_one_at_a_time_for_robustness():
    summary = _certified(study(lambda cell, s: 0.5, seeds=range(4)))
    summary["seed"] = summary["seed"].astype(object).where(summary["seed"] != 3, "three")
    row = C.evaluate_claims([EXACT], summary, None, FACTORS, CFG).iloc[0]
    assert (row["verdict"], row["n"], row["robustness"]) == ("SUPPORTED", 4, 1.0)


def test_one_seed_has_no_robustness():
    for c in (EXACT, claim("at_least", threshold=0.9)):
        row = C.evaluate_claims([c], _certified(study(lambda cell, s: 0.95, seeds=[0])), None, FACTORS, CFG).iloc[0]
        assert row["n"] == 1 and np.isnan(row["robustness"])


def test_the_sentence_names_the_deciding_cell_only_when_the_claim_has_several():
    one = claim("at_least", threshold=0.9, where={"pos_enc": "none", "norm": "pre"})
    row = C.evaluate_claims([one], study(lambda cell, s: 0.95), None, FACTORS, CFG).iloc[0]
    assert row["sentence"] == "8 of 8 seeds reached 90 %; SUPPORTED."
    two = claim("at_least", threshold=0.9, where={"pos_enc": "none"})
    row = C.evaluate_claims([two], study(lambda cell, s: 0.95), None, FACTORS, CFG).iloc[0]
    assert row["sentence"] == "8 of 8 seeds reached 90 % (norm=post); SUPPORTED."


def test_a_sentence_joins_the_words_of_each_part():
    from test_claims import GRAD, grads

    df = study(lambda cell, s: 0.9)
    g = grads(df, lambda run: 0.5 if run["norm"] == "post" else 0.0)
    row = C.evaluate_claims([GRAD], df, g, FACTORS, CFG).set_index("id").iloc[0]
    assert row["sentence"] == ("8 of 8 seeds grew by more than 0 per layer; 8 of 8 seeds stayed within ±0.1 per layer "
                               "(pos_enc=none); SUPPORTED.")  # fmt: skip


def test_an_undecided_comparison_whose_seeds_all_tie_says_so_in_its_evidence():
    tied = study(lambda cell, s: 0.8)
    c = claim("better", factor="norm", levels=["post", "pre"], where={"pos_enc": "sinusoidal"}, ties="exclude")
    row = C.evaluate_claims([c], tied, None, FACTORS, CFG).iloc[0]
    assert row["verdict"] == "INCONCLUSIVE"
    assert row["evidence"].endswith(" (no seed differed in 8: norm post and pre give the same test_acc in every seed)")


def test_a_study_without_scoped_claims_writes_empty_scope_tables_with_their_headers(tmp_path, capsys):
    files = _write_study(tmp_path / "s", "a/", 0.9)
    spec = {"stats": {"alpha": 0.05}, "studies": {"s": {"factors": ["norm"], "claims": SCOPED[3:]}}}
    out = {"scope": tmp_path / "scope.csv", "seeds": tmp_path / "seeds.csv"}
    assert _run(["--family-json", json.dumps(spec), "--summaries", str(files["summary"]), "--init-grads",
                 str(files["grads"]), "--study", "s", "--out", str(tmp_path / "claims.csv"), "--scope-out",
                 str(out["scope"]), "--scope-seeds-out", str(out["seeds"])], capsys) == "claim d: SUPPORTED\n"  # fmt: skip
    for path, columns in ((out["scope"], scope.SCOPE_COLUMNS), (out["seeds"], scope.SEED_COLUMNS)):
        written = pd.read_csv(path)
        assert list(written.columns) == columns and written.empty
