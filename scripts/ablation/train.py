"""One training run: Adam on the run's task (the order task by default), full-batch unless the run sets
``batch_size``, then its test set.

    python -m ablation.train --settings '{"seed": 0, "heads": 4}' --outdir results/x/run \
        [--threads 1] [--study NAME] [--run-id ID]

writes into --outdir (each file atomically, metrics.csv last, so its presence means "complete"):
settings.json, curve.csv (one row per epoch), init_grads.csv (per-layer gradient norms at step 0),
provenance.json, weights.pt (the final parameters, torch's format) and metrics.csv (one row). A run
whose loss turns non-finite stops there and is recorded with status 'diverged'; that is a result,
not an error, and the process exits 0.

The loss and accuracy follow the task's outputs: one label per sequence, binary cross-entropy and the
share of labels right; a target sequence, cross-entropy on the target positions and the share of
sequences whose every target token is the most likely one (which is exactly the share greedy
decoding gets right). ``test_acc`` is the task's main metric on its test set at seq_len
(``test_counts``, which the evaluate stage, ablation.evaluate, also scores every test length with).

Only the standard library, numpy, torch and the ablation package are imported on this path: it
runs a few hundred times per study, so start-up time counts.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.optim.adam import adam
from torch.optim.adamw import adamw

from . import io, plugins, provenance
from .architectures import build_model
from .data import IGNORE, TaskData, make_data, task_of
from .outputs import CERTIFICATE_COLUMNS, CURVE_COLUMNS, INIT_GRAD_COLUMNS
from .settings import Settings, from_json

RESULT_FIELDS = [
    "status", "epochs_run", "final_train_loss", "final_train_acc", "test_correct", "test_total",
    "test_acc", "train_seconds", "threads", "device_used", "params_sha256", *CERTIFICATE_COLUMNS,
]  # fmt: skip


def metrics_fields(settings: Settings | None = None) -> list:
    """Columns of metrics.csv: study, run_id, every setting of ``settings`` (in Settings order; those
    left out at their defaults, ablation.settings.LEFT_OUT_AT_DEFAULT, only when they are not),
    then the results."""
    names = settings.as_dict() if settings is not None else Settings().as_dict()
    return ["study", "run_id", *names, *RESULT_FIELDS]


@dataclasses.dataclass
class RunResult:
    settings: Settings
    status: str  # 'ok' | 'diverged'
    epochs_run: int
    curve: list  # dicts with CURVE_COLUMNS; epoch counts from 0 (= the optimiser step index)
    init_grads: list  # dicts with INIT_GRAD_COLUMNS
    final_train_loss: float  # of the final parameters (after the last step)
    final_train_acc: float
    test_correct: float  # an int, or NaN when the test logits are not finite
    test_total: int
    test_acc: float
    train_seconds: float
    threads: int
    device_used: str
    params_sha256: str
    twin_logit_gap: float  # the twin certificate (twin_certificate); NaN when the test logits are not finite
    twin_pairs_differ: float  # an int, or NaN when the test logits are not finite
    started_at: str
    t_start: float = dataclasses.field(repr=False, default=0.0)  # time.perf_counter() at the start
    weights: dict = dataclasses.field(repr=False, default_factory=dict)  # the final state_dict, on the CPU

    def metrics_row(self, study: str = "", run_id: str = "") -> dict:
        settings = {k: json.dumps(v, sort_keys=True) if isinstance(v, dict) else v for k, v in self.settings.as_dict().items()}
        row = {"study": study, "run_id": run_id, **settings}
        row.update({name: getattr(self, name) for name in RESULT_FIELDS})
        return row


def configure_threads(threads: int) -> None:
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # only allowed once per process, before any inter-op work
        pass


def resolve_device(name: str) -> torch.device:
    if name == "cpu":
        return torch.device("cpu")
    if name == "cuda":
        if not torch.cuda.is_available():
            raise RuntimeError(
                "the settings ask for device 'cuda' but CUDA is not available to this torch "
                f"({torch.__version__}); set device to 'cpu' or 'auto'"
            )
        return torch.device("cuda")
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    raise ValueError(f"unknown device {name!r} (expected 'cpu', 'cuda' or 'auto')")


def params_sha256(model: torch.nn.Module) -> str:
    """sha256 over the bytes of every tensor of the state_dict, in order, on the CPU."""
    digest = hashlib.sha256()
    for tensor in model.state_dict().values():
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


def _norm(tensors: list) -> torch.Tensor:
    """Global L2 norm of a list of tensors (0 for an empty list)."""
    tensors = [t for t in tensors if t is not None]
    if not tensors:
        return torch.zeros(())
    return torch.nn.utils.get_total_norm(tensors, norm_type=2.0)


class Adam:
    """Adam (Kingma & Ba) with torch's defaults: betas (0.9, 0.999), eps 1e-8, no weight decay; with a
    ``weight_decay`` above 0, AdamW (Loshchilov & Hutter: the decay decoupled from the gradient), as
    torch.optim.AdamW(fused=True).

    torch.optim.Adam(fused=True) bit for bit (tests/unit/test_train.py), through torch's functional API
    with the same fused kernel. Not torch.optim.Adam itself: constructing one imports torch._dynamo,
    a cost every training job in its own process would pay (benchmarks/probes/adam_cost.py measures it).
    """

    def __init__(self, params: list, betas: tuple = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.0):
        self.params = list(params)
        self.beta1, self.beta2, self.eps = betas[0], betas[1], eps
        self.weight_decay = weight_decay
        self.exp_avgs = [torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.params]
        self.exp_avg_sqs = [torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.params]
        self.steps = [torch.zeros((), dtype=torch.float32, device=p.device) for p in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self, lr: float) -> None:
        if self.weight_decay:
            adamw(
                self.params, [p.grad for p in self.params], self.exp_avgs, self.exp_avg_sqs, [], self.steps,
                fused=True, amsgrad=False, beta1=self.beta1, beta2=self.beta2, lr=lr,
                weight_decay=self.weight_decay, eps=self.eps, maximize=False,
            )  # fmt: skip
            return
        adam(
            self.params, [p.grad for p in self.params], self.exp_avgs, self.exp_avg_sqs, [], self.steps,
            fused=True, amsgrad=False, beta1=self.beta1, beta2=self.beta2, lr=lr, weight_decay=0.0,
            eps=self.eps, maximize=False,
        )  # fmt: skip


def twin_certificate(test_logits: torch.Tensor) -> tuple[float, float]:
    """(largest |logit - twin logit|, twin pairs predicted differently) of the twin test set, whose
    first half holds the sequences as drawn and second half their twins, A and B swapped
    (``ablation.data``). A model blind to order gives both twins identical logits, and then its
    accuracy is exactly 0.5: a claim of chance checks this per run instead of estimating it."""
    first, twin = test_logits.reshape(2, test_logits.shape[0] // 2, -1)  # [2, n_test, logits]
    if not torch.isfinite(test_logits).all():
        return math.nan, math.nan
    gap = (first - twin).abs().max().item()
    differ = ((first > 0) != (twin > 0)).any(dim=-1).sum().item()
    return float(gap), int(differ)  # a count: written "3", not "3.0"


def loss_and_correct(outputs: str, out: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(training loss, sequences right) of the model's output ``out`` against ``y``, for a task whose
    outputs are one label per sequence (logits [n]) or a target sequence (logits [n, T, V])."""
    if outputs == "label":
        return F.binary_cross_entropy_with_logits(out, y), (out.detach() > 0).eq(y > 0.5).sum()
    loss = F.cross_entropy(out.flatten(0, 1), y.flatten(), ignore_index=IGNORE)  # the target positions only
    right = out.detach().argmax(dim=-1).eq(y) | y.eq(IGNORE)  # [n, T]
    return loss, right.all(dim=1).sum()


def test_counts(model: torch.nn.Module, task, X: torch.Tensor, y: torch.Tensor) -> tuple[dict, torch.Tensor]:
    """({metric: (correct, total)}, the model's output on X) of the test set (X, y): a label is
    predicted by the sign of its logit; a target sequence by greedy decoding from its first target
    position on. Counts are NaN when the output is not finite."""
    out = model(X)
    if task.outputs == "label":
        predicted, targets = out > 0, y
    else:
        first = y.ne(IGNORE).int().argmax(dim=1)  # [n]: the prompt ends here, every answer token follows
        if not first.eq(first[0]).all():
            raise ValueError("a test set of sequences needs one prompt length")
        start = int(first[0])
        predicted, targets = model.generate(X[:, : start + 1], X.shape[1] - start), y[:, start:]
    counts = task.score(predicted, targets)
    if not torch.isfinite(out).all():
        counts = {metric: (math.nan, total) for metric, (_, total) in counts.items()}
    return counts, out


def learning_rate(s: Settings, epoch: int) -> float:
    """The rate of ``epoch``'s steps: a linear warm-up over ``warmup`` epochs, then constant, or with
    ``lr_decay: linear`` falling linearly to 0 over the epochs after the warm-up (the rate of the last
    epoch is lr / (epochs - warmup), its step count's share of the decay)."""
    lr = s.lr * min(1.0, (epoch + 1) / s.warmup) if s.warmup else s.lr
    if s.lr_decay == "linear" and epoch >= s.warmup:
        lr = s.lr * (s.epochs - epoch) / (s.epochs - s.warmup)
    return lr


def train_run(settings: Settings, threads: int = 1, data: TaskData | None = None) -> RunResult:
    """Train one model as ``settings`` say and evaluate it; ``data`` overrides the task's data."""
    s = settings
    if s.epochs < 1:
        raise ValueError(f"epochs must be at least 1, got {s.epochs}")
    plugins.ensure(s)  # the plugins whose names the run uses, at the source the run was planned with
    t_start = time.perf_counter()
    started_at = provenance.utc_now_iso()
    configure_threads(threads)
    device = resolve_device(s.device)

    task = task_of(s)
    if data is None:
        data = make_data(s)
    X, y = data.X_train.to(device), data.y_train.to(device)
    torch.manual_seed(s.seed)
    model = build_model(s).to(device)
    model.train()
    params = list(model.parameters())
    blocks = list(model.blocks)
    opt = Adam(params, weight_decay=s.weight_decay)

    # Per-epoch values stay tensors until the end (no host sync per step), except the loss check,
    # which is free on the CPU; on CUDA it is batched every `check_every` steps.
    check_every = 1 if device.type == "cpu" else 25
    losses, corrects, grad_norms, lrs = [], [], [], []
    init_grads: list = []
    status, checked = "ok", 0
    # the order of the training set in each epoch: its own stream, so model and data draws stay as they are
    shuffle = torch.Generator().manual_seed(s.seed) if s.batch_size else None
    for epoch in range(s.epochs):
        lr = learning_rate(s, epoch)
        if shuffle is None:  # one full-batch step
            batches = [slice(None)]
        else:
            batches = torch.randperm(len(y), generator=shuffle).to(device).split(s.batch_size)
        epoch_loss, correct = 0.0, 0
        for step, rows in enumerate(batches):
            out = model(X[rows])
            loss, right = loss_and_correct(task.outputs, out, y[rows])
            opt.zero_grad()
            loss.backward()
            if epoch == 0 and step == 0:
                init_grads = [
                    {"layer": i, "grad_norm": _norm([p.grad for p in block.parameters()]).item()}
                    for i, block in enumerate(blocks)
                ]
            epoch_loss = epoch_loss + loss.detach() * (out.shape[0] / len(y))  # mean over the epoch's sequences
            correct = correct + right
            if step + 1 < len(batches):
                opt.step(lr)
        grad_norm = _norm([p.grad for p in params])  # at the epoch's last step
        losses.append(epoch_loss)
        corrects.append(correct)
        grad_norms.append(grad_norm)
        lrs.append(lr)
        if (epoch + 1 - checked) >= check_every or epoch + 1 == s.epochs:
            finite = torch.isfinite(torch.stack(losses[checked:])).tolist()
            if not all(finite):
                stop = checked + finite.index(False) + 1  # keep the first non-finite epoch
                del losses[stop:], corrects[stop:], grad_norms[stop:], lrs[stop:]
                status = "diverged"
                break
            checked = epoch + 1
        opt.step(lr)

    epochs_run = len(losses)
    n_train = y.shape[0]
    loss_list = torch.stack(losses).cpu().tolist()
    acc_list = (torch.stack(corrects).cpu().double() / n_train).tolist()
    gn_list = torch.stack(grad_norms).cpu().tolist()
    curve = [
        {"epoch": e, "lr": lrs[e], "train_loss": loss_list[e], "train_acc": acc_list[e], "grad_norm": gn_list[e]}
        for e in range(epochs_run)
    ]

    model.eval()
    with torch.inference_mode():
        train_out = model(X)
        final_loss, final_correct = loss_and_correct(task.outputs, train_out, y)
        final_loss = final_loss.item()
        final_acc = final_correct.double().div(n_train).item() if torch.isfinite(train_out).all() else math.nan
        counts, test_out = test_counts(model, task, data.X_test.to(device), data.y_test.to(device))
        test_correct, test_total = counts[task.main_metric]
        test_acc = test_correct / test_total
        gap, differ = twin_certificate(test_out) if task.twins else (math.nan, math.nan)
    sha = params_sha256(model)
    weights = {name: tensor.detach().cpu() for name, tensor in model.state_dict().items()}
    train_seconds = time.perf_counter() - t_start

    return RunResult(
        settings=s, status=status, epochs_run=epochs_run, curve=curve, init_grads=init_grads,
        final_train_loss=final_loss, final_train_acc=final_acc, test_correct=test_correct,
        test_total=test_total, test_acc=test_acc, train_seconds=train_seconds, threads=threads,
        device_used=str(device), params_sha256=sha, twin_logit_gap=gap, twin_pairs_differ=differ,
        started_at=started_at, t_start=t_start, weights=weights,
    )  # fmt: skip


WEIGHTS = "weights.pt"


def write_weights(weights: dict, path) -> None:
    """A run's final parameters (its state_dict), in torch's format, atomically."""
    with io.atomic_open(path, "wb") as fh:
        torch.save(weights, fh)


def write_outputs(result: RunResult, outdir, study: str = "", run_id: str = "") -> None:
    """Every output file of one run, atomically; metrics.csv last."""
    outdir = Path(outdir)
    io.write_json(outdir / "settings.json", result.settings.as_dict())
    io.write_csv(outdir / "curve.csv", result.curve, CURVE_COLUMNS)
    io.write_csv(outdir / "init_grads.csv", result.init_grads, INIT_GRAD_COLUMNS)
    record = provenance.collect(
        result.settings, result.started_at, time.perf_counter() - result.t_start, result.device_used, result.threads
    )
    record.update(study=study, run_id=run_id, threads=result.threads)
    io.write_json(outdir / "provenance.json", record)
    write_weights(result.weights, outdir / WEIGHTS)
    io.write_csv(outdir / "metrics.csv", [result.metrics_row(study, run_id)], metrics_fields(result.settings))


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ablation.train", description=__doc__.split("\n\n")[0])
    parser.add_argument("--settings", required=True, help="the run's settings as a JSON object (missing = default)")
    parser.add_argument("--outdir", required=True, help="folder of the run's output files")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1)")
    parser.add_argument("--study", default="", help="study name, copied into metrics.csv")
    parser.add_argument("--run-id", default=None, help="run id, copied into metrics.csv (default: outdir's name)")
    args = parser.parse_args(argv)
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    try:
        settings = from_json(args.settings)
    except (ValueError, TypeError) as exc:
        parser.error(f"--settings: {exc}")
    try:
        resolve_device(settings.device)  # before any output: a missing GPU is a one-line error
        plugins.ensure(settings)  # and so is a plugin that fails to import or changed since planning
    except (RuntimeError, plugins.PluginError) as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    outdir = Path(args.outdir)
    (outdir / "metrics.csv").unlink(missing_ok=True)  # a stale one would claim completeness
    result = train_run(settings, threads=args.threads)
    run_id = args.run_id if args.run_id is not None else outdir.resolve().name
    write_outputs(result, outdir, args.study, run_id)
    print(
        f"{args.study}/{run_id}: {result.status} after {result.epochs_run} epochs, test accuracy "
        f"{result.test_acc:.3f}, {result.train_seconds:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
