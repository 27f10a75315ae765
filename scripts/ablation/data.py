"""The tasks, and the built-in one: the order task (does marker A come before marker B?).

A task is a small class registered under the name the config's ``task`` setting uses
(``@task("order")``): it declares its own settings (``settings``: name -> JSON schema with a
default and a description; the config gives them under ``task_settings``), says whether its test set
holds swap twins (``twins``), and builds the train and test tensors of one run from its settings
(``data(s)``). Every task feeds the same models: X [n, seq_len, d_model] float32, y [n] in {0, 1}.
Plugins (ablation.plugins) register theirs with the same decorator.

The order task:

Two fixed marker vectors A and B (drawn once per data seed) are written at two distinct random
positions of a sequence of Gaussian noise; the label is 1.0 when A comes first. Content alone
cannot solve it: only a model that sees position can.

The test set holds every test sequence twice: as drawn, and as its *twin* with the two marker
rows exchanged (noise untouched, opposite label). A model blind to order gives both twins the same
prediction, so it scores exactly half of the 2 * n_test test sequences.

The data depend only on the data seed (``settings.effective_data_seed``) and the data settings
(seq_len, d_model, n_train, n_test, noise): never on the model's seed or settings. The markers,
the training set and the test set come from three independent child streams of that seed, so e.g.
changing n_train leaves the markers and the test set unchanged.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from .registry import registrar

DATA_SETTINGS = ("seq_len", "d_model", "n_train", "n_test", "noise")

TASKS: dict[str, type] = {}


task = registrar(TASKS, "task")
"""A class decorator: ``@task("order")`` registers the class under "order"."""


@dataclasses.dataclass(frozen=True)
class TaskData:
    X_train: torch.Tensor  # [n_train, seq_len, d_model] float32
    y_train: torch.Tensor  # [n_train] float32 in {0, 1}
    X_test: torch.Tensor  # [n_test_total, seq_len, d_model]; with twins: the drawn half, then its twins
    y_test: torch.Tensor  # [n_test_total]


@dataclasses.dataclass(frozen=True)
class OrderData(TaskData):
    pos_train: np.ndarray  # [n_train, 2] int: positions of A and B
    pos_test: np.ndarray  # [2 * n_test, 2]
    marker_a: np.ndarray  # [d_model] float32
    marker_b: np.ndarray  # [d_model] float32


def _sequences(rng: np.random.Generator, n: int, seq_len: int, noise: float, a, b):
    """n noisy sequences with A and B at two distinct uniform random positions."""
    pos_a = rng.integers(0, seq_len, size=n)
    # an offset in 1..seq_len-1 makes pos_b uniform over the other seq_len - 1 positions
    pos_b = (pos_a + rng.integers(1, seq_len, size=n)) % seq_len
    X = (rng.standard_normal((n, seq_len, a.shape[0])) * noise).astype(np.float32)
    rows = np.arange(n)
    X[rows, pos_a] = a
    X[rows, pos_b] = b
    return X, np.stack([pos_a, pos_b], axis=1)


def _labels(pos: np.ndarray) -> np.ndarray:
    return (pos[:, 0] < pos[:, 1]).astype(np.float32)


def make_order_data(settings) -> OrderData:
    s = settings
    if s.seq_len < 2:
        raise ValueError(f"seq_len must be at least 2 to hold both markers, got {s.seq_len}")
    marker_rng, train_rng, test_rng = np.random.default_rng(s.effective_data_seed).spawn(3)
    a, b = marker_rng.standard_normal((2, s.d_model)).astype(np.float32)

    X_train, pos_train = _sequences(train_rng, s.n_train, s.seq_len, s.noise, a, b)
    X_base, pos_base = _sequences(test_rng, s.n_test, s.seq_len, s.noise, a, b)

    # the twins: the same noise, the two marker rows exchanged
    rows = np.arange(s.n_test)
    X_twin = X_base.copy()
    X_twin[rows, pos_base[:, 0]] = b
    X_twin[rows, pos_base[:, 1]] = a
    pos_twin = pos_base[:, ::-1]
    X_test = np.concatenate([X_base, X_twin])
    pos_test = np.ascontiguousarray(np.concatenate([pos_base, pos_twin]))

    return OrderData(
        X_train=torch.from_numpy(X_train),
        y_train=torch.from_numpy(_labels(pos_train)),
        X_test=torch.from_numpy(X_test),
        y_test=torch.from_numpy(_labels(pos_test)),
        pos_train=pos_train,
        pos_test=pos_test,
        marker_a=a,
        marker_b=b,
    )


@task("order")
class Order:
    """Does marker A come before marker B (this module's docstring)? Its settings are the run's own
    (seq_len, d_model, n_train, n_test, noise); its test set ends with the twins of its first half."""

    settings: dict = {}
    twins = True

    def data(self, s) -> OrderData:
        return make_order_data(s)


def make_data(s) -> TaskData:
    """The data of the run ``s``: its task, built with its task settings (defaults filled in by
    the config's validation)."""
    task_class = TASKS[s.task]
    return task_class(**{k: spec["default"] for k, spec in task_class.settings.items()} | s.task_settings).data(s)
