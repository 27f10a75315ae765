"""Holm's correction where results are decided: the paired-comparisons table of a study.

A study of three levels (three comparisons) built so that one comparison is significant on its raw
p-value but not after Holm: the table must report Holm's step-down p and decide `significant` from it.
"""

import numpy as np
import pandas as pd

from ablation import stats

SEEDS = range(8)
TOTAL = 300  # test sequences per run: accuracies on a grid of 1/300
# per seed, in test sequences: b - a all positive (exact Wilcoxon p = 2/2**8), c - a with the two
# smallest negative (p = 0.039: under alpha alone, not once doubled by Holm)
B_MINUS_A = [1, 2, 3, 4, 5, 6, 7, 8]
C_MINUS_A = [-1, -2, 3, 4, 5, 6, 7, 8]


def summary() -> pd.DataFrame:
    rows = []
    for seed in SEEDS:
        base = 180 + seed
        for level, correct in (("a", base), ("b", base + B_MINUS_A[seed]), ("c", base + C_MINUS_A[seed])):
            rows.append(dict(run_id=f"f~{level}/seed~{seed}", seed=seed, f=level, status="ok", final_train_acc=1.0,
                             test_correct=correct, test_total=TOTAL, test_acc=correct / TOTAL, n_test=TOTAL // 2))  # fmt: skip
    return pd.DataFrame(rows)


def holm_by_hand(p: list[float]) -> list[float]:
    """Holm's step-down: the i-th smallest of m p-values times (m - i), running maximum, capped at 1."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, (len(p) - rank) * p[i])
        adjusted[i] = min(1.0, running)
    return adjusted


def test_comparisons_table_reports_holm_and_decides_on_it():
    cfg = {"alpha": 0.05, "n_resamples": 999}
    table = stats.paired_comparisons(summary(), ["f"], cfg).set_index(["level_a", "level_b"])
    assert table.loc[("a", "b"), "p_value"] == 2 / 2**8
    assert abs(table.loc[("a", "c"), "p_value"] - 10 / 256) < 1e-12
    expected = holm_by_hand(table["p_value"].tolist())
    np.testing.assert_allclose(table["p_holm"], expected, rtol=1e-12)
    assert (table["significant"] == (table["p_holm"] < cfg["alpha"])).all()
    # the case the correction exists for: significant alone, not among three
    assert table.loc[("a", "c"), "p_value"] < cfg["alpha"] <= table.loc[("a", "c"), "p_holm"]
    assert not table.loc[("a", "c"), "significant"] and table.loc[("a", "b"), "significant"]
