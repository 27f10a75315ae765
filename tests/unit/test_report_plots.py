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
