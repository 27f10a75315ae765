"""Training runs: learning, divergence, determinism and the command line's output files."""

import csv
import dataclasses
import json
import math
import subprocess
import sys

import pytest
import torch

from ablation import provenance, train
from ablation.data import make_order_data
from ablation.architectures import build_model
from ablation.settings import Settings

FAST = dict(n_train=96, n_test=24, epochs=25)
FILES = ["settings.json", "curve.csv", "init_grads.csv", "provenance.json", "weights.pt", "metrics.csv"]
METRICS_COLUMNS = [
    "study", "run_id", "seed", "arch", "pos_enc", "attn_mask", "heads", "depth", "norm", "d_model", "ff",
    "head_hidden", "dropout", "seq_len", "n_train", "n_test", "noise", "data_seed", "lr", "epochs", "warmup", "device",
    "status", "epochs_run", "final_train_loss", "final_train_acc", "test_correct", "test_total", "test_acc",
    "train_seconds", "threads", "device_used", "params_sha256", "twin_logit_gap", "twin_pairs_differ",
]  # fmt: skip


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_training_lowers_the_loss_and_records_every_epoch():
    s = Settings(seed=1, **FAST)
    r = train.train_run(s)
    assert r.status == "ok" and r.epochs_run == s.epochs == len(r.curve)
    losses = [row["train_loss"] for row in r.curve]
    assert losses[-1] < 0.9 * losses[0]
    assert r.final_train_loss < losses[0]
    assert [row["epoch"] for row in r.curve] == list(range(s.epochs))
    assert all(row["lr"] == s.lr and row["grad_norm"] > 0 and 0 <= row["train_acc"] <= 1 for row in r.curve)
    assert r.test_total == 2 * s.n_test and r.test_acc == r.test_correct / r.test_total
    assert r.train_seconds > 0 and r.device_used == "cpu"


@pytest.mark.parametrize("pos_enc", ["sinusoidal", "t5"])
def test_the_lesson_task_is_learned_with_positional_encoding(pos_enc):
    """The lesson's attention-only model: with sinusoidal encoding on the input, or with T5's relative bias
    alone (bidirectional buckets tell a key ahead from one behind), it learns which marker comes first."""
    r = train.train_run(Settings(arch="attention_only", pos_enc=pos_enc, seed=0, epochs=150))
    assert r.final_train_acc >= 0.95 and r.test_acc >= 0.9 and r.twin_pairs_differ > 0


def test_without_positional_encoding_a_trained_model_scores_exactly_half(monkeypatch):
    built = []
    monkeypatch.setattr(train, "build_model", lambda s: built.append(build_model(s)) or built[-1])
    s = Settings(pos_enc="none", seed=3, **FAST)
    r = train.train_run(s)
    # the trained model gives the twins (A and B swapped) the same logit, up to float32 rounding of
    # sums taken in another order: one right and one wrong prediction per pair
    d = make_order_data(s)
    with torch.no_grad():
        logits = built[0](d.X_test)
    torch.testing.assert_close(logits[: s.n_test], logits[s.n_test :], rtol=1e-5, atol=1e-6)
    assert r.test_correct == s.n_test and r.test_acc == 0.5


def test_warmup_ramps_the_learning_rate_linearly():
    r = train.train_run(Settings(lr=0.02, warmup=4, **dict(FAST, epochs=6)))
    assert [row["lr"] for row in r.curve] == pytest.approx([0.005, 0.01, 0.015, 0.02, 0.02, 0.02])


@pytest.mark.parametrize(
    "arch,norm,depth", [("encoder", "post", 3), ("encoder", "pre", 2), ("attention_only", "post", 4)]
)
def test_init_grads_one_norm_per_layer(arch, norm, depth):
    r = train.train_run(Settings(arch=arch, norm=norm, depth=depth, **dict(FAST, epochs=1)))
    expected_layers = 1 if arch == "attention_only" else depth
    assert [row["layer"] for row in r.init_grads] == list(range(expected_layers))
    assert all(row["grad_norm"] > 0 for row in r.init_grads)


def test_our_adam_is_torch_adam():
    torch.manual_seed(0)
    ours_params = [torch.randn(5, 3, requires_grad=True), torch.randn(4, requires_grad=True)]
    ref_params = [p.detach().clone().requires_grad_() for p in ours_params]
    plain_params = [p.detach().clone().requires_grad_() for p in ours_params]
    ours = train.Adam(ours_params)
    fused = torch.optim.Adam(ref_params, lr=0.0, fused=True)
    plain = torch.optim.Adam(plain_params, lr=0.0)
    for step, lr in enumerate([0.01, 0.03, 0.02, 0.05, 0.01]):
        target = torch.randn(5, 3)
        for params, opt in ((ours_params, ours), (ref_params, fused), (plain_params, plain)):
            opt.zero_grad()
            ((params[0] - target).square().sum() + params[1].abs().sum()).backward()
            if opt is ours:
                opt.step(lr)
            else:
                opt.param_groups[0]["lr"] = lr
                opt.step()
        for a, b, c in zip(ours_params, ref_params, plain_params):
            assert torch.equal(a, b), step  # bit for bit the fused torch Adam
            assert torch.allclose(a, c, rtol=0, atol=1e-6), step  # and the textbook one up to rounding


def test_rerun_is_bit_identical_and_the_seed_matters():
    s = Settings(seed=4, heads=2, **FAST)
    a, b = train.train_run(s), train.train_run(s)
    assert a.params_sha256 == b.params_sha256
    assert [row["train_loss"] for row in a.curve] == [row["train_loss"] for row in b.curve]
    c = train.train_run(dataclasses.replace(s, seed=5, data_seed=4))  # same data, other initialisation
    assert c.params_sha256 != a.params_sha256


def test_minibatches_take_several_steps_an_epoch_in_an_order_drawn_from_the_seed():
    """batch_size 32 of 96 sequences: three Adam steps an epoch, one curve row an epoch over all 96; the
    same run again gives the same bytes, and a full batch (null) is another run."""
    s = Settings(seed=2, **FAST, batch_size=32)
    a, b = train.train_run(s), train.train_run(s)
    full = train.train_run(dataclasses.replace(s, batch_size=None))
    assert a.params_sha256 == b.params_sha256 != full.params_sha256
    assert len(a.curve) == s.epochs and all(0 <= row["train_acc"] <= 1 for row in a.curve)
    one_batch = train.train_run(dataclasses.replace(s, batch_size=96))  # one batch of all: full-batch, reordered
    assert abs(one_batch.curve[0]["train_loss"] - full.curve[0]["train_loss"]) < 1e-6
    assert "batch_size" not in Settings(**FAST).as_dict() and s.as_dict()["batch_size"] == 32  # in the hash when set


def _assert_diverged_run_writes_everything(r, tmp_path):
    train.write_outputs(r, tmp_path, "test", "div")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(FILES)
    (row,) = read_csv(tmp_path / "metrics.csv")
    assert row["status"] == "diverged" and int(row["epochs_run"]) == r.epochs_run
    curve = read_csv(tmp_path / "curve.csv")
    assert len(curve) == r.epochs_run and not math.isfinite(float(curve[-1]["train_loss"]))
    assert all(math.isfinite(float(c["train_loss"])) for c in curve[:-1])


def test_huge_learning_rate_diverges_but_still_writes_all_files(tmp_path):
    r = train.train_run(Settings(lr=1e8, depth=4, norm="post", **FAST))
    assert r.status == "diverged" and 1 < r.epochs_run < FAST["epochs"]
    assert math.isnan(r.final_train_loss)
    _assert_diverged_run_writes_everything(r, tmp_path)


def test_non_finite_data_diverge_at_the_first_step(tmp_path):
    s = Settings(**FAST)
    data = make_order_data(s)
    data.X_train[3, 2, 1] = float("nan")
    r = train.train_run(s, data=data)
    assert r.status == "diverged" and r.epochs_run == 1
    assert len(r.init_grads) == s.depth
    _assert_diverged_run_writes_everything(r, tmp_path)
    (row,) = read_csv(tmp_path / "metrics.csv")
    assert math.isfinite(float(row["test_acc"]))  # the test data are fine, so it is still measured


def test_cuda_request_without_cuda_is_a_clear_error():
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        train.train_run(Settings(device="cuda", **FAST))
    assert train.resolve_device("auto").type == "cpu"


def test_cli_cuda_request_without_cuda_is_one_line(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    settings = json.dumps({"device": "cuda", **FAST})
    proc = subprocess.run([sys.executable, "-m", "ablation.train", "--settings", settings, "--outdir",
                           str(tmp_path / "run")], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "CUDA is not available" in proc.stderr, proc.stderr
    assert not (tmp_path / "run").exists()


def test_metrics_fields_follow_settings_order():
    assert train.metrics_fields() == METRICS_COLUMNS


def test_cli_writes_every_file(tmp_path):
    outdir = tmp_path / "run"
    settings = {"seed": 2, "heads": 2, "depth": 1, "data_seed": 9, **FAST}
    cmd = [sys.executable, "-m", "ablation.train", "--settings", json.dumps(settings), "--outdir", str(outdir),
           "--threads", "1", "--study", "demo", "--run-id", "r7"]  # fmt: skip
    proc = subprocess.run(
        [cmd[0], "-X", "importtime", *cmd[1:]], check=True, capture_output=True, text=True, timeout=120
    )
    assert sorted(p.name for p in outdir.iterdir()) == sorted(FILES)
    # the training path stays lean: none of the analysis libraries is imported
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    assert "torch" in imported and not imported & {"pandas", "matplotlib", "seaborn", "scipy"}

    with open(outdir / "metrics.csv", newline="", encoding="utf-8") as fh:
        assert next(csv.reader(fh)) == METRICS_COLUMNS
    (row,) = read_csv(outdir / "metrics.csv")
    expected = Settings(**settings).as_dict()  # the settings left out at their defaults are not columns
    assert {k: row[k] for k in expected} == {k: str(v) for k, v in expected.items()}
    assert (row["study"], row["run_id"], row["status"], row["threads"]) == ("demo", "r7", "ok", "1")
    assert int(row["test_total"]) == 2 * FAST["n_test"] and len(row["params_sha256"]) == 64
    assert float(row["test_acc"]) == int(row["test_correct"]) / int(row["test_total"])

    assert json.loads((outdir / "settings.json").read_text()) == expected
    curve = read_csv(outdir / "curve.csv")
    assert list(curve[0]) == ["epoch", "lr", "train_loss", "train_acc", "grad_norm"] and len(curve) == FAST["epochs"]
    assert [r["layer"] for r in read_csv(outdir / "init_grads.csv")] == ["0"]

    prov = json.loads((outdir / "provenance.json").read_text())
    assert prov["settings"] == expected and prov["seed"] == 2 and prov["data_seed"] == 9
    assert prov["torch"] == torch.__version__ and prov["torch_num_threads"] == 1
    assert len(prov["code_sha256"]) == 64 and prov["duration_seconds"] > 0
    # what the training executed: the training path's code, torch and the thread count, in one hash
    assert prov["training_code"] == provenance.training_code()
    assert prov["training_fingerprint"] == provenance.training_fingerprint(1, Settings(**settings).plugin_code)
    for key in ("git_commit", "git_dirty", "numpy", "python", "cpu_model", "cpu_capability", "hostname", "started_at"):
        assert key in prov

    # the same settings and thread count in this process: the same parameters, bit for bit
    assert train.train_run(Settings(**settings), threads=1).params_sha256 == row["params_sha256"]


def test_cli_rejects_unknown_settings(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        train.main(["--settings", '{"nope": 1}', "--outdir", str(tmp_path / "x")])
    assert exc.value.code != 0 and "unknown settings: nope" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_cost_estimate_orders_runs_like_their_training_time():
    """The train rule's priority: costlier settings (more epochs, blocks, positions, heads, sequences)
    rank higher; the attention-only model ranks below a 2-block encoder of the same shape."""
    from ablation import settings as S

    base = S.from_dict({"arch": "encoder", "depth": 2, "heads": 1, "seq_len": 8})
    cost = S.cost_estimate
    for change in ({"epochs": 600}, {"depth": 10}, {"seq_len": 32}, {"heads": 4}, {"n_train": 4000}):
        assert cost(S.from_dict({**base.as_dict(), **change})) > cost(base), change
    assert cost(S.from_dict({**base.as_dict(), "arch": "attention_only"})) < cost(base)
    assert cost(S.from_dict({**base.as_dict(), "epochs": 1, "n_train": 1, "n_test": 1})) == 1  # never 0
    # a decoder reads a copy task's 2 seq_len + 1 positions, its blocks as an encoder's, each step dearer
    decoder = S.from_dict({**base.as_dict(), "arch": "decoder", "attn_mask": "causal", "task": "repeat_copy"})
    assert cost(decoder) == round(S.DECODER_STEP * cost(S.from_dict({**base.as_dict(), "seq_len": 17})))
    assert cost(S.from_dict({**decoder.as_dict(), "depth": 4})) == round(S.DECODER_STEP * cost(
        S.from_dict({**base.as_dict(), "seq_len": 17, "depth": 4})))
