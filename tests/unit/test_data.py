"""The order task's data: labels, twins, and what the data may (not) depend on."""

import dataclasses
import hashlib

import numpy as np
import pytest
import torch

from ablation.data import make_order_data
from ablation.settings import Settings

SMALL = dict(n_train=64, n_test=32)


def marker_positions(X: torch.Tensor, marker: np.ndarray) -> np.ndarray:
    """Position of the (unique) row of each sequence that equals the marker exactly."""
    hits = (X.numpy() == marker).all(axis=-1)  # [n, T]
    assert (hits.sum(axis=1) == 1).all()
    return hits.argmax(axis=1)


def test_shapes_and_dtypes():
    s = Settings(seq_len=6, d_model=8, n_train=50, n_test=20)
    d = make_order_data(s)
    assert d.X_train.shape == (50, 6, 8) and d.X_test.shape == (40, 6, 8)
    assert d.y_train.shape == (50,) and d.y_test.shape == (40,)
    for t in (d.X_train, d.y_train, d.X_test, d.y_test):
        assert t.dtype == torch.float32
    assert set(d.y_train.unique().tolist()) <= {0.0, 1.0}


@pytest.mark.parametrize("split", ["train", "test"])
def test_labels_match_marker_positions(split):
    d = make_order_data(Settings(seed=3, **SMALL))
    X, y, pos = (d.X_train, d.y_train, d.pos_train) if split == "train" else (d.X_test, d.y_test, d.pos_test)
    pos_a, pos_b = marker_positions(X, d.marker_a), marker_positions(X, d.marker_b)
    assert (pos_a != pos_b).all()
    np.testing.assert_array_equal(pos_a, pos[:, 0])
    np.testing.assert_array_equal(pos_b, pos[:, 1])
    np.testing.assert_array_equal(y.numpy(), (pos_a < pos_b).astype(np.float32))


def test_both_orders_and_all_positions_occur():
    d = make_order_data(Settings(seed=0, seq_len=8))
    assert 0.35 < d.y_train.mean().item() < 0.65
    assert set(d.pos_train[:, 0]) == set(range(8)) and set(d.pos_train[:, 1]) == set(range(8))


def test_noise_has_the_requested_std():
    d = make_order_data(Settings(seed=0, noise=0.3))
    hits = np.zeros(d.X_train.shape[:2], dtype=bool)
    rows = np.arange(len(hits))
    hits[rows, d.pos_train[:, 0]] = hits[rows, d.pos_train[:, 1]] = True
    noise = d.X_train.numpy()[~hits]
    assert abs(noise.std() - 0.3) < 0.01 and abs(noise.mean()) < 0.01


def test_twins_are_exact_swaps_with_opposite_labels():
    s = Settings(seed=1, **SMALL)
    d = make_order_data(s)
    n = s.n_test
    base, twin = d.X_test[:n], d.X_test[n:]
    rows = np.arange(n)
    pa, pb = d.pos_test[:n, 0], d.pos_test[:n, 1]
    swapped = base.clone()
    swapped[rows, pa], swapped[rows, pb] = base[rows, pb], base[rows, pa]
    assert torch.equal(twin, swapped)  # bit for bit: markers exchanged, noise untouched
    assert torch.equal(d.y_test[n:], 1 - d.y_test[:n])
    assert d.y_test.mean().item() == 0.5


def test_data_ignore_model_seed_and_model_settings():
    a = make_order_data(Settings(seed=0, data_seed=7, **SMALL))
    b = make_order_data(
        Settings(
            seed=5,
            data_seed=7,
            arch="attention_only",
            pos_enc="none",
            heads=1,
            depth=9,
            norm="pre",
            ff=8,
            head_hidden=4,
            lr=0.5,
            epochs=3,
            warmup=2,
            **SMALL,
        )
    )
    for field in ("X_train", "y_train", "X_test", "y_test"):
        assert torch.equal(getattr(a, field), getattr(b, field))


def test_data_seed_defaults_to_seed_and_changes_the_data():
    same = make_order_data(Settings(seed=4, **SMALL)), make_order_data(Settings(seed=0, data_seed=4, **SMALL))
    assert torch.equal(same[0].X_train, same[1].X_train)
    other = make_order_data(Settings(seed=5, **SMALL))
    assert not torch.equal(same[0].X_train, other.X_train)
    assert not np.array_equal(same[0].marker_a, other.marker_a)


def test_markers_and_test_set_do_not_depend_on_n_train():
    a, b = make_order_data(Settings(n_train=10, n_test=8)), make_order_data(Settings(n_train=30, n_test=8))
    assert np.array_equal(a.marker_a, b.marker_a) and torch.equal(a.X_test, b.X_test)


def test_data_depend_on_every_data_setting():
    base = Settings(**SMALL)
    ref = make_order_data(base)
    for change in (dict(seq_len=9), dict(d_model=12), dict(noise=0.2), dict(n_test=33)):
        other = make_order_data(dataclasses.replace(base, **change))
        assert other.X_test.shape != ref.X_test.shape or not torch.equal(other.X_test, ref.X_test), change


# sha256 of X_train, y_train, X_test, y_test of the default settings' data (float32 bytes, in that order)
DEFAULT_DATA_SHA256 = "bd4bfac59226e25f41f95fd2033f2a1ba5f4daa8842b8965eae2c60c3419f443"


def test_the_default_data_are_the_recorded_bits():
    d = make_order_data(Settings())
    h = hashlib.sha256()
    for t in (d.X_train, d.y_train, d.X_test, d.y_test):
        h.update(t.numpy().tobytes())
    assert h.hexdigest() == DEFAULT_DATA_SHA256


def test_two_positions_are_enough_and_one_is_refused():
    d = make_order_data(Settings(seq_len=2, n_train=40, n_test=10))
    assert d.X_train.shape == (40, 2, 16)
    assert set(d.y_train.tolist()) == {0.0, 1.0}  # both orders occur
    with pytest.raises(ValueError, match="seq_len must be at least 2 to hold both markers, got 1"):
        make_order_data(Settings(seq_len=1))


def test_make_data_builds_the_runs_task_with_its_settings_defaults_filled_in():
    from ablation import data

    s = Settings(seed=3, **SMALL)  # the order task, the default
    built, direct = data.make_data(s), make_order_data(s)
    for name in ("X_train", "y_train", "X_test", "y_test"):
        assert torch.equal(getattr(built, name), getattr(direct, name))

    @data.task("test_shift")
    class Shift(data.Task):  # a task whose one setting has a default
        settings = {"shift": {"type": "integer", "default": 2}, "scale": {"type": "number", "default": 1.0}}

        def __init__(self, shift, scale):
            self.shift, self.scale = shift, scale

        def data(self, run):
            x = torch.full((1, run.seq_len, run.d_model), float(self.shift) * self.scale)
            return data.TaskData(x, torch.ones(1), x, torch.ones(1))

    try:
        assert data.make_data(dataclasses.replace(s, task="test_shift")).X_train[0, 0, 0] == 2.0  # the defaults
        with_setting = dataclasses.replace(s, task="test_shift", task_settings={"shift": 5})
        assert data.make_data(with_setting).X_train[0, 0, 0] == 5.0  # the run's setting over the default
    finally:
        del data.TASKS["test_shift"]
