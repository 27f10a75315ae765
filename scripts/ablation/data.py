"""The tasks: what each one feeds a model, what it asks back and how the answers are scored; the
order task (does marker A come before marker B?) and the copy tasks of the length studies.

A task is a small class derived from ``Task`` and registered under the name the config's ``task``
setting uses (``@task("order")``). It declares

- its own settings (``settings``: name -> JSON schema with a default and a description; the config
  gives them under ``task_settings``) and whether its test set holds swap twins (``twins``);
- its ``inputs`` (``"vectors"``: float vectors [n, T, d_model]; ``"tokens"``: token ids [n, T]) and
  its ``outputs`` (``"label"``: one label per sequence; ``"sequence"``: a target token at some
  positions, ``IGNORE`` elsewhere), which the architecture (``ablation.architectures``) must match;
- its ``metrics`` (name -> ``Metric``; the first is its main one, the run's ``test_acc``) and
  ``score``, which counts them on a test set's predictions;
- the lengths it can build (``min_length`` and up), the positions a sequence of length n occupies
  (``positions(n)``) and the lengths a run trains on (``trained_lengths(s)``);
- its data: ``data(s)`` builds a run's training and test tensors, ``test_set(s, n)`` a test set at
  any length n from the run's data seed.

Plugins (ablation.plugins) register theirs with the same decorator. The declarations are read when
the config is checked, before any job: this module imports numpy only, and torch where tensors are
made.

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
changing n_train leaves the markers and the test set unchanged. Its test set at length n is the
test set of the same run with seq_len n.

The copy tasks (Kazemnejad et al. 2023, "Copy" and "Reverse"):

A sequence of length n is a prompt of n content tokens, a separator, the answer (the same n tokens
again, or for ``reverse`` the n tokens in reverse order) and an end-of-sequence token; the model reads it left to right and is scored on the answer
and the end token only. ``repeat_copy`` repeats one token n times, ``copy`` draws every token. To
end on time the model must count, which is what a positional encoding has to carry to lengths it
never saw. A run trains on lengths drawn uniformly from 1 to seq_len, its sequences padded to the
longest; its test set at length n holds n_test sequences of exactly that length. With the task
setting ``anchor`` (the paper's prompts open with a task word, "Copy:"), a constant token stands at
position 0, before the prompt, and is never scored: a fixed point from which to count.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .registry import registrar

DATA_SETTINGS = ("seq_len", "d_model", "n_train", "n_test", "noise")
IGNORE = -100
"""A target position that is not scored (cross-entropy's ignore_index): the prompt and the padding."""

TASKS: dict[str, type] = {}
_register = registrar(TASKS, "task")


def task(name: str):
    """A class decorator: ``@task("order")`` registers a ``Task`` subclass under "order"."""

    def register(cls):
        if not (isinstance(cls, type) and issubclass(cls, Task)):
            raise TypeError(f"task {name!r}: {getattr(cls, '__name__', cls)} must derive from ablation.data.Task")
        return _register(name)(cls)

    return register


@dataclasses.dataclass(frozen=True)
class TaskData:
    X_train: "torch.Tensor"  # noqa: F821  [n_train, T, d_model] float32, or token ids [n_train, T] int64
    y_train: "torch.Tensor"  # noqa: F821  [n_train] float32 in {0, 1}, or target ids [n_train, T] (IGNORE: not scored)
    X_test: "torch.Tensor"  # noqa: F821  at seq_len; with twins: the drawn half, then its twins
    y_test: "torch.Tensor"  # noqa: F821


@dataclasses.dataclass(frozen=True)
class Metric:
    """A metric a task reports on a test set: value = correct / total, so it lies in ``range`` and
    moves in steps of one ``counts`` (its resolution, 1 / total)."""

    counts: str  # what total counts, in words: "test sequences", "answer tokens"
    range: tuple = (0.0, 1.0)
    higher_is_better: bool = True

    def resolution(self, total: int) -> float:
        return 1.0 / total


class Task:
    """What every task declares, with the defaults of a classifier of float vectors: one label per
    sequence, scored by its accuracy, trained and tested at the run's seq_len."""

    settings: dict = {}
    twins = False
    inputs, outputs = "vectors", "label"
    metrics = {"accuracy": Metric("test sequences")}
    min_length = 1

    @property
    def main_metric(self) -> str:
        """The metric the run's test_acc reports (at seq_len): the first declared."""
        return next(iter(self.metrics))

    def positions(self, n: int) -> int:
        """Positions a sequence of length n occupies in the model."""
        return n

    def trained_lengths(self, s) -> list[int]:
        return [s.seq_len]

    def data(self, s) -> TaskData:
        raise NotImplementedError(f"{type(self).__name__} builds no data")

    def test_set(self, s, n: int) -> tuple:
        """(inputs, targets) of the test set at length n: that of the same run with seq_len n."""
        d = self.data(dataclasses.replace(s, seq_len=n))
        return d.X_test, d.y_test

    def score(self, predicted, y) -> dict[str, tuple[int, int]]:
        """metric -> (correct, total) of predicted labels (bool [n]) against the labels y [n]."""
        return {"accuracy": (int(predicted.eq(y > 0.5).sum()), int(y.shape[0]))}


def task_of(s) -> Task:
    """The task of the run ``s``, built with its task settings (defaults filled in)."""
    task_class = TASKS[s.task]
    return task_class(**{k: spec["default"] for k, spec in task_class.settings.items()} | s.task_settings)


def make_data(s) -> TaskData:
    """The data of the run ``s``: its task's."""
    return task_of(s).data(s)


def evaluated_lengths(s, eval_lengths: list[int]) -> list[int]:
    """The test lengths of a run of a study with ``eval_lengths``: those and the run's trained
    lengths, sorted; none when the study evaluates nothing."""
    if not eval_lengths:
        return []
    return sorted(set(eval_lengths) | set(task_of(s).trained_lengths(s)))


def lengths_key(lengths) -> str:
    """Test lengths as a file name: runs of consecutive lengths as 'a-b', joined by '_' (1-16, 8_16_32)."""
    out, values = [], sorted(set(lengths))
    start = prev = values[0]
    for n in [*values[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = n
    return "_".join(out)


def parse_lengths_key(key: str) -> list[int]:
    """The lengths of ``lengths_key``'s text."""
    lengths = []
    for part in key.split("_"):
        low, _, high = part.partition("-")
        lengths += range(int(low), int(high or low) + 1)
    return lengths


# --- the order task ----------------------------------------------------------------------------


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
    import torch  # tensors are made here, not where the config reads the tasks' declarations

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
class Order(Task):
    """Does marker A come before marker B (this module's docstring)? Its settings are the run's own
    (seq_len, d_model, n_train, n_test, noise); its test set ends with the twins of its first half."""

    twins = True
    min_length = 2  # both markers

    def data(self, s) -> OrderData:
        return make_order_data(s)


# --- the copy tasks ----------------------------------------------------------------------------


class CopyTask(Task):
    """Token ids in, the prompt's tokens back (this module's docstring): exact match of the answer
    and its end token, and the share of those tokens right, under greedy decoding."""

    settings = {
        "vocab": {"type": "integer", "minimum": 1, "default": 10, "description": "content tokens to draw from"},
        # the paper's prompts open with a constant task word ("Copy:", "Reverse:"): a fixed first token
        # from which an encoding without absolute positions (none, alibi, t5) can count
        "anchor": {"type": "boolean", "default": False, "left_out_at_default": True,
                   "description": "a constant, unscored task token at position 0, before the prompt"},
    }  # fmt: skip
    inputs, outputs = "tokens", "sequence"
    metrics = {
        "exact_match": Metric("test sequences"),  # every answer token and the end token right
        "token_accuracy": Metric("answer tokens"),  # of the answer and end tokens, the share right
    }
    PAD, SEP, EOS = 0, 1, 2  # then the content tokens 3 .. 3 + vocab - 1, then the anchor (when used)

    def __init__(self, vocab: int, anchor: bool = False):
        self.vocab = vocab
        self.anchor = int(anchor)  # positions before the prompt: 0 or 1
        self.ANCHOR = vocab + 3  # after the content tokens: their draws stay those of a run without it
        self.vocab_size = vocab + 3 + self.anchor

    def positions(self, n: int) -> int:
        # anchor, prompt, separator, answer: the end token is predicted, never read
        return self.anchor + 2 * n + 1

    def trained_lengths(self, s) -> list[int]:
        return list(range(1, s.seq_len + 1))

    def prompts(self, rng: np.random.Generator, lengths: np.ndarray) -> np.ndarray:
        """The content tokens to copy, [len(lengths), max(lengths)] (row i uses its first lengths[i])."""
        raise NotImplementedError

    def answer(self, prompt: np.ndarray) -> np.ndarray:
        """The tokens the model must write back for ``prompt`` [n]: the prompt itself (a copy)."""
        return prompt

    def sequences(self, rng: np.random.Generator, lengths: np.ndarray, width: int):
        """(inputs, targets) [len(lengths), width] int64 for prompts of ``lengths``, padded to ``width``:
        input i holds token i of (anchor,) prompt, separator, answer, end; target i is token i + 1
        where that is an answer or the end token, else IGNORE."""
        import torch  # tensors are made here, not where the config reads the tasks' declarations

        count, a = len(lengths), self.anchor
        tokens = np.full((count, width + 1), self.PAD, dtype=np.int64)
        scored = np.zeros((count, width + 1), dtype=bool)
        prompts = self.prompts(rng, lengths)
        if a:
            tokens[:, 0] = self.ANCHOR
        for i, n in enumerate(lengths):
            tokens[i, a : a + n], tokens[i, a + n + 1 : a + 2 * n + 1] = prompts[i, :n], self.answer(prompts[i, :n])
            tokens[i, a + n], tokens[i, a + 2 * n + 1] = self.SEP, self.EOS
            scored[i, a + n + 1 : a + 2 * n + 2] = True
        targets = np.where(scored[:, 1:], tokens[:, 1:], IGNORE)
        return torch.from_numpy(tokens[:, :-1].copy()), torch.from_numpy(targets)

    def data(self, s) -> TaskData:
        rng = np.random.default_rng(np.random.SeedSequence(s.effective_data_seed, spawn_key=(0,)))
        lengths = rng.integers(1, s.seq_len + 1, size=s.n_train)
        X_train, y_train = self.sequences(rng, lengths, self.positions(s.seq_len))
        return TaskData(X_train, y_train, *self.test_set(s, s.seq_len))

    def test_set(self, s, n: int) -> tuple:
        """n_test sequences of length n, from the data seed's own stream for that length."""
        rng = np.random.default_rng(np.random.SeedSequence(s.effective_data_seed, spawn_key=(1, n)))
        return self.sequences(rng, np.full(s.n_test, n), self.positions(n))

    def score(self, predicted, y) -> dict[str, tuple[int, int]]:
        """Generated tokens [n, m] against the answer and end tokens y [n, m]."""
        right = predicted.eq(y)
        return {"exact_match": (int(right.all(dim=1).sum()), int(y.shape[0])),
                "token_accuracy": (int(right.sum()), int(y.numel()))}  # fmt: skip


@task("repeat_copy")
class RepeatCopy(CopyTask):
    """One token repeated n times, copied (Kazemnejad et al. 2023, "Copy, one token repeated")."""

    def prompts(self, rng, lengths):
        token = rng.integers(3, 3 + self.vocab, size=len(lengths))
        return np.repeat(token[:, None], max(lengths), axis=1)


@task("copy")
class Copy(CopyTask):
    """n tokens drawn independently, copied."""

    def prompts(self, rng, lengths):
        return rng.integers(3, 3 + self.vocab, size=(len(lengths), max(lengths)))


@task("reverse")
class Reverse(Copy):
    """n tokens drawn independently, written back in reverse order (Kazemnejad et al. 2023, "Reverse"):
    answer token i is prompt token n - 1 - i, so the model must find a position counted from the end."""

    def answer(self, prompt):
        return prompt[::-1]
