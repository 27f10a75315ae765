"""A claim's seed units (ablation.seed_units) at their edges: the grid step of seed means (one run per
seed, several, an odd number), the cells' order and labels, a diverged run's interval, the words of a
part (its where, its lengths, a comparison's other factors and runs without a partner), slopes at
their guards (layers at one index, a spread at 1e-12, indices too large for int64 squares), a task
metric read from the evaluations (trained lengths, a range of lengths, values and lengths that are
not numbers, the grid of its means and that grid's limits, no evaluations at all), the range of a
metric, and a grown cell."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ablation import data, kinds, seed_units

CFG = {"converged_threshold": 0.95}


def claim(kind="at_least", cid="c", **fields) -> kinds.Claim:
    """A claim of ``kind`` (at_least 0.5 unless ``keys`` say otherwise), as the config builds it."""
    keys = fields.pop("keys", {"threshold": 0.5})
    return kinds.Claim(cid, "a claim", kinds.CLAIM_KINDS[kind](), keys=keys, **fields)


def better(**fields) -> kinds.Claim:
    return claim("better", keys={"factor": "norm", "levels": ["post", "pre"]}, **fields)


def run(run_id, seed, norm="pre", acc=0.5, status="ok", total=300, **settings) -> dict:
    return {"run_id": run_id, "seed": seed, "norm": norm, **settings, "status": status, "test_acc": acc,
            "test_total": total, "final_train_acc": 1.0}  # fmt: skip


def study(rows, factors=("norm",), **keys) -> seed_units.StudyRuns:
    return seed_units.StudyRuns("s", pd.DataFrame(rows), tuple(factors), **keys)


def cells(c: kinds.Claim, runs: seed_units.StudyRuns):
    """(the first part's cells, its words)."""
    units, desc = seed_units.claim_cells(c, runs, CFG)
    return [cell[0] for cell in units], desc


# --------------------------------------------------------------------------- the grid of seed means


def test_one_run_per_seed_keeps_the_metric_s_own_step():
    runs = study([run(f"r{s}{n}", s, n, acc=0.5 + s / 100) for s in range(3) for n in ("post", "pre")])
    got, _ = cells(claim(), runs)
    assert [c.label for c in got] == ["norm=post", "norm=pre"]
    for c in got:
        assert c.step == pytest.approx(1 / 300, rel=1e-12)  # 1 / test_total: one run per seed
        np.testing.assert_array_equal(c.seeds, [0, 1, 2])
        np.testing.assert_allclose(c.lo, [0.5, 0.51, 0.52], rtol=1e-12)


def test_a_seed_mean_over_three_runs_lies_on_a_third_of_the_step():
    runs = study([run(f"r{s}{n}", s, n) for s in range(2) for n in ("none", "post", "pre")])
    [cell], _ = cells(claim(cells="average"), runs)
    assert cell.label == "mean over 3 cell(s)"
    assert cell.step == pytest.approx(1 / 900, rel=1e-12)


def test_a_converged_claim_s_units_lie_on_a_step_of_1():
    runs = study([run(f"r{s}", s) for s in range(3)])
    [cell], _ = cells(claim(metric="converged", cells="average"), runs)
    assert cell.label == "mean over 1 cell(s)" and cell.step == 1.0
    np.testing.assert_array_equal(cell.lo, [1.0, 1.0, 1.0])


def test_cells_come_in_the_sorted_order_of_their_levels_whatever_the_order_of_the_rows():
    rows = [run(f"r{s}{n}{p}", s, n, pos_enc=p) for n in ("pre", "post") for p in ("rope", "none") for s in range(2)]
    got, _ = cells(claim(), study(rows, ("norm", "pos_enc")))
    assert [c.label for c in got] == ["norm=post, pos_enc=none", "norm=post, pos_enc=rope",
                                      "norm=pre, pos_enc=none", "norm=pre, pos_enc=rope"]  # fmt: skip
    got, _ = cells(claim(), study(rows[:4]))  # norm=pre alone: no stratum
    assert [c.label for c in got] == ["mean over 1 cell(s)"]


# --------------------------------------------------------------------------- a run's interval


def test_an_accuracy_a_run_leaves_unknown_lies_anywhere_in_0_to_1():
    sub = pd.DataFrame([run("a", 0, acc=0.8), run("b", 1, acc=np.nan, status="diverged"), run("c", 2, acc=np.nan)])
    lo, hi = seed_units.run_values(sub, "test_acc", CFG)
    np.testing.assert_array_equal(lo, [0.8, 0.0, 0.0])
    np.testing.assert_array_equal(hi, [0.8, 1.0, 1.0])
    [cell], _ = cells(claim(), study(sub))
    np.testing.assert_array_equal(cell.hi, [0.8, 1.0, 1.0])
    assert cell.known().tolist() == [True, False, False]


def test_a_grown_cell_keeps_its_label_and_step_and_numbers_its_seeds_afresh():
    cell = seed_units.Cell("norm=pre", np.array([3, 7]), np.array([0.25, 0.0]), np.array([0.25, 1.0]), 0.01)
    grown = cell.grown(3, 0.5)
    assert grown.label == "norm=pre" and grown.step == 0.01 and grown.n == 5
    np.testing.assert_array_equal(grown.seeds, np.arange(5))
    np.testing.assert_array_equal(grown.lo, [0.25, 0.0, 0.5, 0.5, 0.5])
    np.testing.assert_array_equal(grown.hi, [0.25, 1.0, 0.5, 0.5, 0.5])


# --------------------------------------------------------------------------- a part in words


def test_where_text_names_every_column_of_the_where_or_all_runs():
    assert seed_units.where_text({}) == "all runs"
    assert seed_units.where_text({"norm": "pre", "lr": 0.01}) == "norm=pre, lr=0.01"


def test_a_metric_part_s_words_name_its_where():
    rows = [run(f"r{s}{p}", s, pos_enc=p) for p in ("none", "rope") for s in range(2)]
    _, desc = cells(claim(where={"pos_enc": "none"}), study(rows, ("norm", "pos_enc")))
    assert desc == "test_acc per seed (pos_enc=none)"
    _, desc = cells(claim(), study(rows, ("norm", "pos_enc")))
    assert desc == "test_acc per seed (all runs)"


def paired_rows(seeds=range(2), **settings):
    return [run(f"r{n}{s}", s, n, acc=0.5 + 0.1 * (n == "pre"), **settings) for n in ("post", "pre") for s in seeds]


def test_a_comparison_s_words_name_every_other_factor_and_its_where():
    rows = [r for p in ("none", "rope") for r in paired_rows(pos_enc=p, lr=0.01)]
    got, desc = cells(better(), study(rows, ("norm", "pos_enc", "lr")))
    assert desc == ("test_acc norm=pre minus norm=post, 4 runs paired on seed and pos_enc, lr, averaged within "
                    "seed (all runs)")  # fmt: skip
    assert [c.label for c in got] == ["pos_enc=none", "pos_enc=rope"]
    _, desc = cells(better(where={"pos_enc": "none"}), study(rows, ("norm",)))
    assert desc == "test_acc norm=pre minus norm=post, 2 runs paired on seed and no other factor, averaged within seed (pos_enc=none)"


def test_a_comparison_s_words_count_the_runs_without_a_partner():
    rows = paired_rows() + [run("lone", 5, "pre")]
    _, desc = cells(better(), study(rows))
    assert desc == ("test_acc norm=pre minus norm=post, 2 runs paired on seed and no other factor, averaged within "
                    "seed (all runs); 1 runs without a partner")  # fmt: skip


def test_a_comparison_averaged_over_cells_is_one_cell_of_the_mean_difference_per_seed():
    rows = paired_rows(pos_enc="none") + [dict(r, run_id=r["run_id"] + "x", pos_enc="rope", test_acc=r["test_acc"] / 2)
                                          for r in paired_rows()]  # fmt: skip
    runs = study(rows, ("norm", "pos_enc"))
    [cell], _ = cells(better(cells="average"), runs)
    assert cell.label == "mean over 2 cell(s)"
    np.testing.assert_allclose(cell.lo, [0.075, 0.075], rtol=1e-9)  # (0.1 + 0.05) / 2
    got, _ = cells(better(), runs)
    assert [c.label for c in got] == ["pos_enc=none", "pos_enc=rope"]


def test_a_task_metric_s_words_name_its_lengths():
    rows, ev = scored_runs({0: {1: 0.5, 2: 0.5, 3: 0.5, 5: 0.5}})
    words = {None: "its trained lengths", 3: "length 3", (2, 5): "lengths 2-5"}
    for lengths, at in words.items():
        _, desc = cells(claim(metric="exact_match", lengths=lengths), study(rows, evaluations=ev))
        assert desc == f"exact_match (mean over {at} per run) per seed (all runs)"


# --------------------------------------------------------------------------- slopes


def gradients(layers: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, their initial gradients): run id -> [(layer, ln grad_norm), ...]."""
    runs = pd.DataFrame({"run_id": list(layers)})
    grads = pd.DataFrame([{"run_id": r, "layer": x, "grad_norm": float(np.exp(y))} for r, xy in layers.items() for x, y in xy])
    return runs, grads


def test_a_run_whose_layers_share_one_index_gets_no_slope():
    runs, grads = gradients({"flat": [(2, 0.0), (2, 1.0)], "ok": [(0, 0.0), (1, 0.5)]})
    got = seed_units.slopes(runs, grads)
    assert list(got.index) == ["ok"] and got["ok"] == pytest.approx(0.5)


def test_layer_indices_spread_by_exactly_the_guard_get_no_slope():
    """n * sum(x^2) - sum(x)^2 is exactly 1e-12 for layers 0 and 1e-6: not above the guard."""
    runs, grads = gradients({"at": [(0.0, 0.0), (1e-6, 1.0)], "above": [(0.0, 0.0), (2e-6, 1.0)]})
    got = seed_units.slopes(runs, grads)
    assert list(got.index) == ["above"] and got["above"] == pytest.approx(5e5)


def test_layer_indices_too_large_for_int64_squares_still_give_their_slope():
    runs, grads = gradients({"big": [(0, 0.0), (2**32, 1.0)]})
    assert pd.api.types.is_integer_dtype(grads["layer"])
    assert seed_units.slopes(runs, grads)["big"] == pytest.approx(2.0**-32, rel=1e-12)


def grad_claim(**fields) -> kinds.Claim:
    return claim("grad_trend", cid="g", metric=None, keys={"factor": "norm", "growing": "pre", "flat": "post",
                                                             "flat_margin": 0.1, "min_slope": 0.0}, **fields)  # fmt: skip


def test_a_slope_part_s_words_name_its_where_and_the_runs_without_a_slope():
    rows = [run(f"r{n}{p}{s}", s, n, pos_enc=p) for n in ("post", "pre") for p in ("none", "rope") for s in range(2)]
    runs, grads = gradients({r["run_id"]: [(0, 0.0), (1, 0.3)] for r in rows if r["run_id"] != "rprenone1"})
    _, desc = cells(grad_claim(where={"pos_enc": "none"}), study(rows, ("norm", "pos_enc"), init_grads=grads))
    assert desc == ("per seed, least-squares slope of ln(grad_norm at step 0) on layer index (pos_enc=none); 1 run(s) "
                    "without a usable slope (< 2 numeric layer indices with a positive, finite norm) left out")  # fmt: skip


def test_a_level_the_where_leaves_out_is_refused_in_the_claim_s_name():
    rows = [run(f"r{n}{s}", s, n) for n in ("post", "pre") for s in range(2)]
    _, grads = gradients({r["run_id"]: [(0, 0.0), (1, 0.3)] for r in rows})
    with pytest.raises(ValueError, match=r"^claim 'g': level norm='pre' selects no runs \(after 'where'\)$"):
        cells(grad_claim(where={"norm": "post"}), study(rows, init_grads=grads))


# --------------------------------------------------------------------------- a task's metric, from the evaluations


def evaluation(run_id, length, value, total=4, metric="exact_match", trained=True) -> dict:
    return {"run_id": run_id, "metric": metric, "length": length, "value": value, "total": total, "trained": trained}


def scored_runs(values: dict, total=4, **run_keys):
    """(runs, their evaluations): seed -> {length: value} of exact_match, every length trained."""
    rows = [run(f"r{s}", s, **run_keys) for s in values]
    ev = pd.DataFrame([evaluation(f"r{s}", n, v, total) for s, by_length in values.items() for n, v in by_length.items()])
    return rows, ev


def test_a_task_metric_is_the_mean_over_the_trained_lengths_of_that_metric_alone():
    c = claim(metric="exact_match")
    ev = pd.DataFrame([evaluation("r0", 1, 1 / 3, 3), evaluation("r0", 2, 2 / 3, 3), evaluation("r0", 3, 1.0, 5),
                       evaluation("r0", 4, 0.0, 7, trained=False), evaluation("r0", 1, 0.2, 11, metric="token_accuracy"),
                       evaluation("r1", 1, 0.4, 5)])  # fmt: skip
    sub = pd.DataFrame([run("r0", 0), run("r1", 1), run("r2", 2)])
    means, step = seed_units.length_means(c, sub, ev)
    np.testing.assert_allclose(means, [2 / 3, 0.4, np.nan], rtol=1e-12)
    assert step == pytest.approx(1 / 45, rel=1e-12)  # the totals 3 and 5, over 1 and 3 lengths
    ev["trained"] = ev["trained"].astype(str)  # as a CSV gives it back: True, False
    np.testing.assert_allclose(seed_units.length_means(c, sub, ev)[0], means, rtol=1e-12)


def test_a_range_of_lengths_includes_both_its_ends_and_no_length_that_is_not_a_number():
    ev = pd.DataFrame([evaluation("r0", n, v) for n, v in ((1, 0.0), (2, 0.25), (3, 0.75), (4, 1.0), ("n/a", 1.0))])
    sub = pd.DataFrame([run("r0", 0)])
    for lengths, want in (((2, 3), 0.5), ((1, 1), 0.0), (4, 1.0)):
        means, step = seed_units.length_means(claim(metric="exact_match", lengths=lengths), sub, ev)
        assert means.tolist() == [want]
    assert step == 0.25  # total 4, one length


def test_a_run_with_a_value_that_is_not_a_number_has_no_mean():
    ev = pd.DataFrame([evaluation("r0", 1, 0.5), evaluation("r0", 2, "-"), evaluation("r1", 1, 0.75)])
    means, _ = seed_units.length_means(claim(metric="exact_match"), pd.DataFrame([run("r0", 0), run("r1", 1)]), ev)
    assert np.isnan(means[0]) and means[1] == 0.75


def test_a_total_that_is_not_a_number_leaves_the_means_as_they_are():
    ev = pd.DataFrame([evaluation("r0", 1, 0.5, 4), evaluation("r1", 1, 0.75, "-")])
    means, _ = seed_units.length_means(claim(metric="exact_match"), pd.DataFrame([run("r0", 0), run("r1", 1)]), ev)
    assert means.tolist() == [0.5, 0.75]


@pytest.mark.parametrize("total, step", [(1, 1.0), (0, 0.0), (999_983, 1 / 999_983), (10**12, 0.0), (10**13, 0.0)])
def test_the_grid_of_task_metric_means_is_known_between_1_and_10_to_the_12(total, step):
    """A grid of lcm(totals) x lcm(lengths per run): 1 is a grid, 0 (a total of 0) and 1e12 or more are not."""
    ev = pd.DataFrame([evaluation("r0", 1, 0.0, total)])
    assert seed_units.length_means(claim(metric="exact_match"), pd.DataFrame([run("r0", 0)]), ev)[1] == step


@pytest.mark.parametrize("evaluations", [None, pd.DataFrame(columns=["run_id", "metric", "length", "value", "total", "trained"])])
def test_a_task_metric_without_evaluations_is_refused(evaluations):
    with pytest.raises(ValueError, match=r"^claim 'c': metric 'exact_match' is read from the study's evaluations, and it has none$"):
        seed_units.length_means(claim(metric="exact_match"), pd.DataFrame([run("r0", 0)]), evaluations)


class Scored(data.Task):
    """A task whose metric is a score out of 10 (a plugin's)."""

    metrics = {"score": data.Metric("points", range=(0.0, 10.0))}


@pytest.fixture
def scored_task(monkeypatch):
    monkeypatch.setitem(data.TASKS, "scored", Scored)


def test_a_metric_s_range_is_a_run_metric_s_or_its_task_s_or_0_to_1(scored_task):
    assert seed_units.metric_range("converged") == (0.0, 1.0)
    assert seed_units.metric_range("exact_match") == (0.0, 1.0)
    assert seed_units.metric_range("score") == (0.0, 10.0)
    assert seed_units.metric_range("no_such_metric") == (0.0, 1.0)


def test_a_task_metric_a_run_leaves_unknown_lies_anywhere_in_its_task_s_range(scored_task):
    """Seed 0 scored, seed 1 diverged (its scores do not count), seed 2 has none, seed 3 one that is not finite."""
    rows = [run("r0", 0), run("r1", 1, status="diverged"), run("r2", 2), run("r3", 3)]
    ev = pd.DataFrame([evaluation(r, n, v, 10, metric="score")
                       for r, n, v in (("r0", 1, 6.0), ("r0", 2, 8.0), ("r1", 1, 9.0), ("r3", 1, np.inf))])  # fmt: skip
    [cell], desc = cells(claim(metric="score", keys={"threshold": 5.0}), study(rows, evaluations=ev))
    np.testing.assert_array_equal(cell.seeds, [0, 1, 2, 3])
    np.testing.assert_array_equal(cell.lo, [7.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(cell.hi, [7.0, 10.0, 10.0, 10.0])
    assert cell.step == pytest.approx(1 / 20, rel=1e-12)  # total 10, two lengths
    assert desc == "score (mean over its trained lengths per run) per seed (all runs)"


# --------------------------------------------------------------------------- nothing missing is hidden


def test_a_run_whose_level_is_missing_stands_in_a_cell_of_its_own_rather_than_dropping_out():
    """Seed 2's run has no heads level: it is its own cell (every seed counted), not left out of every cell."""
    rows = [run("r0", 0, heads=1), run("r1", 1, heads=1), run("r2", 2, heads=np.nan)]
    units, _ = cells(claim(), study(rows, factors=("norm", "heads")))
    assert [c.label for c in units] == ["heads=1.0", "heads=nan"]
    assert [c.seeds.tolist() for c in units] == [[0, 1], [2]]
    [mean], _ = cells(claim(cells="average"), study(rows, factors=("norm", "heads")))
    assert mean.label == "mean over 2 cell(s)" and mean.n == 3


def test_a_run_whose_total_is_unknown_leaves_every_value_off_the_grid():
    """r1's total is unknown: the grid of r0's total (thirds) would round its 0.5 to a third; there is none."""
    ev = pd.DataFrame([evaluation("r0", 1, 1 / 3, 3), evaluation("r1", 1, 0.5, "-")])
    rows = [run("r0", 0), run("r1", 1)]
    assert seed_units.length_means(claim(metric="exact_match"), pd.DataFrame(rows), ev)[1] == 0.0
    [cell], _ = cells(claim(metric="exact_match"), study(rows, evaluations=ev))
    assert cell.lo.tolist() == [1 / 3, 0.5] and cell.step == 0.0


def test_the_grid_reads_the_totals_of_the_claim_s_runs_alone():
    """r2 is not among the claim's runs, and r1's value is not a number: neither total refines the grid."""
    ev = pd.DataFrame([evaluation("r0", 1, 0.25, 4), evaluation("r1", 1, "-", 7), evaluation("r2", 1, 0.2, 5)])
    assert seed_units.length_means(claim(metric="exact_match"), pd.DataFrame([run("r0", 0), run("r1", 1)]), ev)[1] == 0.25
