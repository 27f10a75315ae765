"""The report's figures (ablation.plots): integer layer ticks, colour scales that resolve the range
shown (with the scale drawn), figures that would show nothing marked so, seaborn heatmaps."""

import numpy as np
import pandas as pd
import pytest

from ablation import plots


@pytest.fixture
def drawn(monkeypatch):
    """The figures plots draws, kept open instead of saved (with the empty-reason they carry)."""
    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, path, empty=None: figures.append((fig, empty)))
    return figures


def _grads(layers: int) -> pd.DataFrame:
    rows = [{"run_id": f"r{r}", "norm": n, "layer": layer, "grad_norm": 1.0 + layer + r}
            for r, n in enumerate(["post", "pre"] * 2) for layer in range(layers)]  # fmt: skip
    return pd.DataFrame(rows)


def _data(**kw) -> plots.StudyData:
    summary = pd.DataFrame({"run_id": ["r0", "r1", "r2", "r3"], "norm": ["post", "pre"] * 2, "warmup": ["0", "0", "5", "5"],
                            "test_acc": [0.987, 0.99, 1.0, 0.995]})  # fmt: skip
    base = dict(summary=summary, curves=pd.DataFrame(), init_grads=_grads(3), factors=["norm", "warmup"], hue="norm")
    return plots.StudyData(**(base | kw))


def test_layer_ticks_are_whole_numbers(drawn, tmp_path):
    plots.grad_norms_init(_data(), tmp_path / "g.png")
    fig, empty = drawn[0]
    assert empty is None
    ticks = [t for t in fig.axes[0].get_xticks() if -0.5 <= t <= 2.5]
    assert ticks and all(float(t).is_integer() for t in ticks), ticks


def test_a_one_layer_model_has_no_gradient_norm_figure(tmp_path):
    path = tmp_path / "g.png"
    plots.grad_norms_init(_data(init_grads=_grads(1)), path)
    assert "one layer" in plots.empty_reason(path)


def test_a_single_factor_has_no_interaction_figure(tmp_path):
    path = tmp_path / "i.png"
    plots.interactions(_data(factors=["norm"]), path)
    assert "fewer than two factors" in plots.empty_reason(path)
    plots.interactions(_data(), tmp_path / "j.png")
    assert plots.empty_reason(tmp_path / "j.png") is None


def test_the_interaction_colour_scale_spans_the_means_shown_and_is_drawn(drawn, tmp_path):
    plots.interactions(_data(), tmp_path / "i.png")
    fig, _ = drawn[0]
    heat = fig.axes[0].collections[0]
    means = _data().summary.pivot_table(index="norm", columns="warmup", values="test_acc").to_numpy()
    assert heat.norm.vmin == pytest.approx(means.min()) and heat.norm.vmax == pytest.approx(means.max())
    assert any(ax.get_label() == "<colorbar>" for ax in fig.axes), "no colour scale drawn"


@pytest.mark.parametrize(("values", "expected"), [([0.987, 1.0, np.nan], (0.987, 1.0)), ([0.5, 0.5], (0.4995, 0.5005)),
                                                  ([np.nan], (0.0, 1.0))])  # fmt: skip
def test_colour_range(values, expected):
    assert plots.colour_range(values) == pytest.approx(expected)


def test_the_positional_encoding_is_a_seaborn_heatmap_with_its_scale(drawn, tmp_path):
    plots.positional_encoding_figure(8, 16, tmp_path / "pe.png")
    fig, _ = drawn[0]
    assert any(ax.get_label() == "<colorbar>" for ax in fig.axes)
    assert fig.axes[0].collections, "no heatmap mesh"


def test_one_summary_draws_one_accuracy_figure_byte_for_byte(tmp_path):
    """The dots' jitter is seeded: re-drawing a study's figure from the same summary gives the same
    file, so a refactor that changes no result changes no figure either."""
    np.random.seed(12345)  # whatever state the process is in
    plots.accuracy_by_factor(_data(), tmp_path / "a.png")
    np.random.seed(54321)
    plots.accuracy_by_factor(_data(), tmp_path / "b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


def _scope_seeds(values: dict[str, list[float]], own: str, band=(0.97, np.nan), cell: str = "mean over 1 cell(s)"):
    rows = [{"id": "c", "universe": u, "own": u == own, "cell": cell, "seed": s, "lo": v, "hi": v, "met": v >= band[0],
             "band_lo": band[0], "band_hi": band[1]} for u, vs in values.items() for s, v in enumerate(vs)]  # fmt: skip
    return pd.DataFrame(rows)


def test_the_specification_curve_sorts_every_universe_by_its_mean_with_an_interval_that_holds_it():
    """The mean's interval (``intervals.mean_ci``): seeds that all sit at the bound, 0/1 values, get
    Clopper-Pearson's, where a t or a bootstrap interval would shrink to a point; it always holds the mean."""
    seeds = _scope_seeds({"lr=0.01": [1.0] * 6, "lr=0.001": [0.8, 0.9, 0.95, 0.85, 0.9, 1.0], "lr=0.003": [1.0] * 5 + [0.97]},
                         own="lr=0.01")  # fmt: skip
    specs = plots.specifications(seeds, 0.95)
    assert list(specs["universe"]) == ["lr=0.001", "lr=0.003", "lr=0.01"]
    assert (specs["lo"] <= specs["mean"]).all() and (specs["mean"] <= specs["hi"]).all() and (specs["hi"] <= 1).all()
    at_bound = specs.set_index("universe").loc["lr=0.01"]
    assert at_bound["mean"] == 1.0 and at_bound["lo"] < 0.6 and at_bound["own"]  # six seeds at 1.0 do not rule out 0.5
    assert list(specs["n"]) == [6, 6, 6]


def test_paired_differences_get_the_bounds_of_a_difference():
    seeds = _scope_seeds({"noise=0.1": [0.5] * 6, "noise=0.3": [0.4, 0.5, 0.6, 0.5, 0.5, 0.5]}, own="noise=0.1",
                         band=(0.0, np.nan))  # fmt: skip
    specs = plots.specifications(seeds, 0.95)
    assert (specs["lo"] < 0).all()  # a difference's interval may reach below 0, an accuracy's not


def test_the_title_counts_the_universes_that_keep_the_verdict_and_names_the_setting_that_changes_it():
    table = pd.DataFrame({"id": "c", "universe": ["lr=0.001", "lr=0.003", "lr=0.01"], "own": [False, False, True],
                          "verdict": ["CONTRADICTED", "SUPPORTED", "SUPPORTED"]})  # fmt: skip
    title = plots.scope_title("c", table, "SUPPORTED")
    assert title.startswith("c: 2 of 3 universes keep SUPPORTED") and "lr 0.01→0.001: CONTRADICTED" in title
    assert plots.scope_title("c", table.assign(verdict="SUPPORTED")).startswith("c: 3 of 3 universes keep SUPPORTED")


def test_the_specification_curve_draws_a_settings_row_per_setting_and_says_when_there_is_nothing(drawn, tmp_path):
    seeds = _scope_seeds({"epochs=100, lr=0.01": [1.0] * 3, "epochs=300, lr=0.01": [0.9] * 3,
                          "epochs=100, lr=0.003": [0.95] * 3, "epochs=300, lr=0.003": [1.0] * 3}, own="epochs=300, lr=0.01")  # fmt: skip
    plots.specification_curve(_data(scope_seeds=seeds), tmp_path / "s.png")
    fig, empty = drawn[-1]
    assert empty is None
    panel = fig.axes[1]
    assert [t.get_text() for t in panel.get_yticklabels()] == ["epochs", "lr"]
    assert "keep" not in fig.axes[0].get_title()  # without the scope table the title names the claim alone
    plots.specification_curve(_data(), tmp_path / "e.png")
    assert drawn[-1][1] and "robust_over" in drawn[-1][1]
