"""A run's evaluations: its stored weights loaded, its task's test set built at each test length and
scored by every metric the task declares.

    python -m ablation.evaluate --settings '{"seed": 0, ...}' --run-dir results/runs/<hash> \
        --lengths 1-16 --out results/runs/<hash>/evaluations/1-16.csv

writes --out (atomically): one row per metric and test length (ablation.outputs.EVALUATION_COLUMNS):
the run's hash, the metric, the length, its value (correct / total), correct, total, and whether the
run trained at that length. ``--lengths`` is ``ablation.data.lengths_key``'s text (runs of lengths
'a-b', joined by '_'). The test set at a length comes from the run's data seed alone
(``Task.test_set``), and is scored as the training job scores its own (``ablation.train.test_counts``,
with the run's thread count): at the run's seq_len the main metric is its ``test_acc``, bit for bit.

A run folder from before the weights were kept has no ``weights.pt``: the run is trained again here
to recover them, and must end on the ``params_sha256`` its metrics.csv records. Where it does not
(a store made on a machine whose kernels round differently, such as another CPU model) nothing is
written, and one line names the run and what to do. Weights that do not hash to that
``params_sha256`` are refused the same way.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import torch

from . import io, plugins
from .architectures import build_model
from .data import parse_lengths_key, task_of
from .outputs import EVALUATION_COLUMNS
from .settings import from_json
from .train import WEIGHTS, configure_threads, params_sha256, resolve_device, test_counts, train_run, write_weights


class WeightsError(RuntimeError):
    """A run's weights that cannot be had as recorded; its message is one line."""


def recorded(run_dir: Path) -> dict:
    """The run's metrics.csv row (its params_sha256 and thread count)."""
    with open(run_dir / "metrics.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    if len(rows) != 1:
        raise WeightsError(f"run {run_dir.name}: {run_dir / 'metrics.csv'} holds {len(rows)} rows, not one")
    return rows[0]


def load_model(s, run_dir: Path, record: dict, device: torch.device) -> torch.nn.Module:
    """The run's model with its final parameters, from weights.pt; recovered by training again where
    the run folder has none."""
    path, expected = run_dir / WEIGHTS, record["params_sha256"]
    if not path.is_file():
        print(f"{run_dir}: no {WEIGHTS}; training the run again to recover them", flush=True)
        result = train_run(s, threads=int(record["threads"]))
        if result.params_sha256 != expected:
            raise WeightsError(
                f"run {run_dir.name}: training it again to recover its weights ended on params_sha256 "
                f"{result.params_sha256[:12]}, not the recorded {expected[:12]} (the store was made where torch's "
                f"kernels round differently, e.g. another CPU model): evaluate it on that machine, or delete "
                f"{run_dir} to train it anew here"
            )
        write_weights(result.weights, path)
    model = build_model(s)
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    if params_sha256(model) != expected:
        raise WeightsError(
            f"run {run_dir.name}: {path} does not hold the parameters its metrics.csv records (params_sha256 "
            f"{expected[:12]}): delete it, and evaluating the run trains it again to recover them"
        )
    return model.to(device).eval()


def evaluate(s, run_dir: Path, lengths: list[int]) -> list[dict]:
    """The rows of the run's evaluations at ``lengths``, with the run's own thread count."""
    record = recorded(run_dir)
    configure_threads(int(record["threads"]))
    device = resolve_device(s.device)
    model = load_model(s, run_dir, record, device)
    task = task_of(s)
    trained = set(task.trained_lengths(s))
    rows = []
    with torch.inference_mode():
        for n in lengths:
            X, y = task.test_set(s, n)
            counts, _ = test_counts(model, task, X.to(device), y.to(device))
            rows += [
                {"hash": run_dir.name, "metric": metric, "length": n, "value": correct / total, "correct": correct,
                 "total": total, "trained": n in trained}
                for metric, (correct, total) in counts.items()
            ]  # fmt: skip
    return rows


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ablation.evaluate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--settings", required=True, help="the run's settings as a JSON object")
    parser.add_argument("--run-dir", required=True, type=Path, help="the run's folder in the store")
    parser.add_argument("--lengths", required=True, help="the test lengths, e.g. 1-16 or 8_16_32")
    parser.add_argument("--out", required=True, type=Path, help="the evaluations CSV to write")
    args = parser.parse_args(argv)
    try:
        settings = from_json(args.settings)
        lengths = parse_lengths_key(args.lengths)
    except (ValueError, TypeError) as exc:
        parser.error(str(exc))
    try:
        plugins.ensure(settings)
        rows = evaluate(settings, args.run_dir, lengths)
    except (WeightsError, plugins.PluginError) as exc:
        parser.exit(1, f"{parser.prog}: error: {exc}\n")
    io.write_csv(args.out, rows, list(EVALUATION_COLUMNS))
    print(f"{args.run_dir.name}: {len(rows)} evaluations at lengths {args.lengths}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
