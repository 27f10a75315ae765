"""Tests of ablation.claims at the edges its decision rules draw: ties at a band's boundary, ties
between the two verdicts' p-values, cells without seeds, and gradient rows without a layer index."""

from __future__ import annotations

import numpy as np
import pytest
from test_claims import CFG, FACTORS, GRAD, _grad_study, _slope, claim, grads, study, verdict

from ablation import claims as C

# --------------------------------------------------------------------------- slopes


@pytest.mark.parametrize("bad_layer", ["n/a", None, np.nan])
def test_a_gradient_row_without_a_numeric_layer_is_left_out(bad_layer):
    # one run's first layer has no usable index: its slope comes from its other three layers, as a row
    # with an unusable norm does, instead of a NaN slope (which would drop the whole run)
    df, g = _grad_study()
    spoilt = g.astype({"layer": object})
    run = df["run_id"][0]
    first = spoilt.index[spoilt["run_id"] == run][0]
    spoilt.loc[first, "layer"] = bad_layer
    slopes = C._slopes(df, spoilt)
    assert np.isfinite(slopes).all() and len(slopes) == len(df)
    kept = g[(g["run_id"] == run) & (g.index != first)]
    assert slopes[run] == pytest.approx(_slope(kept), abs=1e-12)
    others = C._slopes(df, g).drop(run)
    assert slopes.drop(run).to_numpy() == pytest.approx(others.to_numpy(), abs=1e-12)
    v, row = verdict(GRAD, df, spoilt)
    assert v == "SUPPORTED" and row["n"] == 8 and "without a usable slope" not in row["detail"]
