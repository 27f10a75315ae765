"""ablation.measures: a run's values as every statistic reads them (the diverged rule, converged, counts),
their resolution and the seed as the unit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ablation import measures


def test_run_accuracy_takes_the_counts_only_where_test_acc_is_missing():
    df = pd.DataFrame({"test_acc": [0.7, np.nan, np.nan, np.nan, np.nan, np.nan],
                       "test_correct": [1, 90, 1, np.nan, 5, 3],
                       "test_total": [2, 300, 1, 300, 0, -6]})  # fmt: skip
    acc, imputed = measures.run_accuracy(df)
    # a recorded test_acc stands (even beside counts that disagree); counts fill the missing ones,
    # a single test sequence too; no usable counts (a total that is not positive): chance
    assert list(acc) == [0.7, 0.3, 1.0, 0.5, 0.5, 0.5] and list(imputed) == [False] + [True] * 5


def test_resolution_takes_the_largest_positive_test_set():
    df = pd.DataFrame({"test_total": [1, 1]})
    assert measures.resolution(df) == 1.0
    assert measures.resolution(pd.DataFrame({"test_total": [0, 0]})) == 0.0
    assert measures.resolution(pd.DataFrame({"test_total": [-4, np.nan]})) == 0.0


def test_non_numeric_accuracies_count_as_missing():
    df = pd.DataFrame({"test_acc": ["0.7", "n/a"], "test_correct": [210, "?"], "test_total": [300, 300]})
    acc, imputed = measures.run_accuracy(df)
    assert list(acc) == [0.7, 0.5] and list(imputed) == [False, True]


def test_accuracies_come_back_as_floats_whatever_the_columns_dtype():
    df = pd.DataFrame({"test_acc": [1, 0, 1], "test_total": [2, 2, 2]})
    acc, _ = measures.run_accuracy(df)
    assert acc.dtype == np.float64 and list(acc) == [1.0, 0.0, 1.0]


def test_resolution_of_accuracies_over_unequal_test_sets_is_one_over_their_lcm():
    # 181/200 - 2/300 is a multiple of 1/600, not of 1/300: every accuracy stays on the grid
    summary = pd.DataFrame({"test_total": [200, 300, 300], "test_correct": [181, 150, 2]})
    step = measures.resolution(summary, "test_acc")
    assert step == pytest.approx(1 / 600)
    accuracies = np.array([181 / 200, 150 / 300, 2 / 300])
    assert measures.quantize(accuracies, step).tolist() == pytest.approx(accuracies.tolist(), abs=1e-15)


def test_metric_values_and_resolution():
    df = pd.DataFrame({"status": ["ok", "ok", "diverged", "OK", "ok"], "final_train_acc": [0.95, 0.949, np.nan, 1.0, np.nan],
                       "test_acc": [0.7, np.nan, np.nan, 0.9, 0.6], "test_correct": [210, 150, np.nan, 270, 180],
                       "test_total": [300, 300, 300, 300, 300]})  # fmt: skip
    assert list(measures.metric_values(df, "converged")) == [1.0, 0.0, 0.0, 1.0, 0.0]
    assert list(measures.metric_values(df, "converged", {"converged_threshold": 0.949})) == [1.0, 1.0, 0.0, 1.0, 0.0]
    assert list(measures.metric_values(df, "test_acc")) == [0.7, 0.5, 0.5, 0.9, 0.6]
    assert list(measures.metric_values(df, "final_train_acc")) == [0.95, 0.949, 0.5, 1.0, 0.5]
    assert measures.metric_values(df, "converged").dtype == float
    with pytest.raises(ValueError, match="unknown metric 'loss' \\(one of test_acc, converged, final_train_acc\\)"):
        measures.metric_values(df, "loss")
    assert measures.resolution(df, "test_acc") == 1 / 300 and measures.resolution(df, "converged") == 1.0
    assert measures.resolution(df, "final_train_acc") == 0.0
    assert measures.resolution(df.assign(test_total=[300, 600, np.nan, 0, 300])) == 1 / 600
    assert measures.resolution(df.drop(columns="test_total")) == 0.0
    assert measures.resolution(df.assign(test_total=np.nan)) == 0.0
    no_status = df.drop(columns="status")
    assert list(measures.converged_mask(no_status, 0.95)) == [True, False, False, True, False]
    assert not measures.is_diverged(no_status).any() and list(measures.is_diverged(df)) == [False, False, True, False, False]
    assert list(measures.quantize([0.1234, -0.0049], 0.01)) == pytest.approx([0.12, -0.0]) and measures.quantize([0.1234], 0)[0] == 0.1234
    ids, means, counts = measures.seed_means([2, 1, 2, 1, 3], [0.5, 0.1, 0.7, np.nan, 0.2])
    assert list(ids) == [1, 2, 3] and list(means) == pytest.approx([0.1, 0.6, 0.2]) and list(counts) == [1, 2, 1]


def test_run_counts_fill_missing_totals_and_counts():
    df = pd.DataFrame({"test_acc": [0.5, 0.75, np.nan, np.nan], "test_correct": [150, np.nan, np.nan, 90],
                       "test_total": [300, 200, np.nan, np.nan], "n_test": [150, 100, 50, 60]})  # fmt: skip
    correct, total = measures.run_counts(df)
    assert list(total) == [300, 200, 100, 120] and list(correct) == [150, 150, 50, 90]
    assert list(measures.run_counts(df.drop(columns=["test_correct"]))[0]) == [150, 150, 50, 60]  # NaN accuracy: chance


def test_run_counts_without_n_test_take_the_recorded_totals():
    df = pd.DataFrame({"test_acc": [0.5, np.nan], "test_correct": [150, 30], "test_total": [300, 60]})
    correct, total = measures.run_counts(df)
    assert list(total) == [300, 60] and list(correct) == [150, 30]
