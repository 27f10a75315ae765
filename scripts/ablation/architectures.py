"""The architectures: what each one reads and writes, the attention mask it runs under, and the
model it builds from a run's settings (the modules of ablation.model).

An architecture is a small class registered under the name the config's ``arch`` setting uses
(``@architecture("encoder")``), like the model's variants and the tasks. Its ``inputs`` and
``outputs`` must be its task's (ablation.data); ``mask``, when it names one, is the only attention
mask it takes. These declarations are checked with the config, before any job (``check_study``),
which reads them without torch: ``build`` imports the model where it makes one. A model maps a batch of
inputs to one logit per sequence (outputs ``label``) or to next-token logits [n, T, V] (``sequence``;
then it also decodes greedily, ``generate(prompt, steps)``, as ablation.train.test_counts asks). The schema lists
the built-in names as the examples of ``arch`` (tests/unit/test_variants.py keeps them equal to this
registry); plugins add theirs with the same decorator.

A run's positional encoding covers ``positions`` positions: the run's setting of that name, or by
default (null) the positions its trained lengths occupy (``trained_positions``): the order task's
seq_len, as for every run trained before the setting existed, or 2 seq_len + 1 for a copy task (its
prompt, separator and answer). A test sequence may occupy more: fixed tables are computed there, a
learned table has no rows there (ablation.model). An explicit ``positions`` must cover every
position a study evaluates, so that a learned table has a row, trained or not, for each.
"""

from __future__ import annotations

import itertools

from . import settings
from .data import evaluated_lengths, task_of
from .registry import lookup, registrar

ARCHITECTURES: dict[str, type] = {}

architecture = registrar(ARCHITECTURES, "architecture")
"""A class decorator: ``@architecture("decoder")`` registers the class under "decoder"."""

INPUTS = {"vectors": "float vectors", "tokens": "token ids"}
OUTPUTS = {"label": "one label per sequence", "sequence": "a target sequence"}


@architecture("attention_only")
class AttentionOnly:
    """The lesson's classifier (ablation.model.TinyAttnClassifier): one attention layer, no residual,
    norm or feed-forward, mean-pooled into an MLP head."""

    inputs, outputs, mask = "vectors", "label", None

    @staticmethod
    def build(s, task, positions: int):
        from .model import TinyAttnClassifier  # torch: only where a model is built

        return TinyAttnClassifier(s.d_model, s.heads, s.head_hidden, positions, s.pos_enc, s.attn_mask, s.dropout)


@architecture("encoder")
class Encoder:
    """``depth`` encoder blocks, mean-pooled into an MLP head (ablation.model.OrderClassifier)."""

    inputs, outputs, mask = "vectors", "label", None

    @staticmethod
    def build(s, task, positions: int):
        from .model import OrderClassifier  # torch: only where a model is built

        return OrderClassifier(s.d_model, s.heads, s.depth, s.ff, s.norm, s.head_hidden, positions, s.pos_enc,
                               s.attn_mask, s.dropout)  # fmt: skip


@architecture("decoder")
class Decoder:
    """A causal language model of the task's tokens (ablation.model.CausalDecoder): ``depth`` blocks,
    trained by cross-entropy on the target positions, evaluated by greedy decoding. Its task declares
    ``vocab_size``."""

    inputs, outputs, mask = "tokens", "sequence", "causal"

    @staticmethod
    def build(s, task, positions: int):
        from .model import CausalDecoder  # torch: only where a model is built

        return CausalDecoder(task.vocab_size, s.d_model, s.heads, s.depth, s.ff, s.norm, positions, s.pos_enc,
                             s.attn_mask, s.dropout)  # fmt: skip


def trained_positions(s, task=None) -> int:
    """The positions the run's longest trained sequence occupies."""
    task = task or task_of(s)
    return max(task.positions(n) for n in task.trained_lengths(s))


def build_model(s):
    """The model of one run's settings (initialised from torch's current random state)."""
    from .model import MultiHeadSelfAttention, check_heads  # torch: only where a model is built

    check_heads(s.d_model, s.heads)
    arch = lookup(ARCHITECTURES, s.arch, "arch")
    task = task_of(s)
    problem = interface_problem(arch, s.arch, task, s.task, s.attn_mask)
    if problem:
        raise ValueError(f"{problem[0]}: {problem[1]}")
    model = arch.build(s, task, s.positions if s.positions is not None else trained_positions(s, task))
    if s.rope_fraction != 1.0 and hasattr(getattr(model, "pos_enc", None), "rotate_fraction"):  # others rotate nothing
        model.pos_enc.rotate_fraction(s.rope_fraction)
    if s.t5_bias_std is not None and hasattr(getattr(model, "pos_enc", None), "rescale_bias"):  # t5's table only
        model.pos_enc.rescale_bias(s.t5_bias_std)
    if s.attn_scale == "none":
        for attention in (m for m in model.modules() if isinstance(m, MultiHeadSelfAttention)):
            attention.unscale()
    return model


def interface_problem(arch, arch_name: str, task, task_name: str, attn_mask: str) -> tuple[str, str] | None:
    """(the setting, why) the architecture cannot run the task under the mask; None when it can."""
    if (arch.inputs, arch.outputs) != (task.inputs, task.outputs):
        return "task", (f"task {task_name} gives {INPUTS.get(task.inputs, task.inputs)} and asks for "
                        f"{OUTPUTS.get(task.outputs, task.outputs)}; arch {arch_name} reads "
                        f"{INPUTS.get(arch.inputs, arch.inputs)} and writes {OUTPUTS.get(arch.outputs, arch.outputs)}")  # fmt: skip
    if arch.mask is not None and attn_mask != arch.mask:
        return "attn_mask", f"arch {arch_name} runs under the {arch.mask} mask only; got {attn_mask!r}"
    return None


# The settings that decide whether a study's runs can be built and evaluated (check_study).
_CHECKED = ("arch", "task", "task_settings", "attn_mask", "seq_len", "positions")


def check_study(study: str, base: dict, factors: dict, eval_lengths: list[int], origin) -> None:
    """Every combination of a study's settings can be built, trained and evaluated at
    ``eval_lengths``: the architecture runs the task under its mask, the task builds its trained and
    evaluated lengths, and an explicit ``positions`` covers every position an evaluated sequence
    occupies. Raises ValueError, one line naming the study and the key. ``base``: the defaults and
    the study's fixed settings; ``origin(key)``: the config key a fixed setting comes from."""
    names = [name for name in _CHECKED if name in factors]
    for picks in itertools.product(*(range(len(factors[name])) for name in names)):
        s = settings.Settings(**(base | {name: factors[name][i] for name, i in zip(names, picks)}))
        at = dict(zip(names, picks))

        def where(key: str) -> str:
            return f"factors.{key}[{at[key]}]" if key in at else origin(key)

        arch, task = ARCHITECTURES[s.arch], task_of(s)
        problem = interface_problem(arch, s.arch, task, s.task, s.attn_mask)
        if problem:
            raise ValueError(f"study {study!r}: {where(problem[0])}: {problem[1]}")
        if s.seq_len < task.min_length:
            raise ValueError(f"study {study!r}: {where('seq_len')}: {s.seq_len} is out of range for task {s.task}: "
                             f"must be >= {task.min_length}")  # fmt: skip
        short = [n for n in eval_lengths if n < task.min_length]
        if short:
            raise ValueError(f"study {study!r}: eval_lengths: {short[0]} is out of range for task {s.task}: "
                             f"must be >= {task.min_length}")  # fmt: skip
        longest = max(evaluated_lengths(s, eval_lengths) or task.trained_lengths(s))
        need = task.positions(longest)
        if s.positions is not None and s.positions < need:
            raise ValueError(f"study {study!r}: {where('positions')}: {s.positions} is fewer than the {need} positions a "
                             f"sequence of length {longest} occupies in task {s.task}; set at least {need}")  # fmt: skip
