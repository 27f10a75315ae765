"""Train short, test long: the copy tasks, the causal decoder, positional encodings at any length, the
weights every run keeps and the evaluate stage that reads them."""

import csv
import dataclasses
import math
import subprocess
import sys

import pytest
import torch

from ablation import aggregate, data, evaluate, train
from ablation.architectures import ARCHITECTURES, build_model, trained_positions
from ablation.data import IGNORE, TASKS, lengths_key, parse_lengths_key, task_of
from ablation.model import POSITIONAL_ENCODINGS
from ablation.outputs import EVALUATION_COLUMNS
from ablation.settings import Settings

# a decoder small enough to train in a second; lengths 1-4
TINY = dict(arch="decoder", attn_mask="causal", task="repeat_copy", depth=1, norm="pre", d_model=16, heads=2, ff=16,
            seq_len=4, n_train=48, n_test=12, epochs=40, lr=0.01)  # fmt: skip


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


# --- the copy tasks ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["repeat_copy", "copy", "reverse"])
def test_a_copy_sequence_is_prompt_separator_answer_end_and_only_answer_and_end_are_scored(name):
    s = Settings(**TINY | {"task": name})
    task = task_of(s)
    X, y = task.test_set(s, 5)
    assert X.shape == y.shape == (s.n_test, task.positions(5)) == (12, 11) and X.dtype == y.dtype == torch.int64
    prompt, answer = X[:, :5], X[:, 6:]
    expected = prompt.flip(1) if name == "reverse" else prompt
    assert (X[:, 5] == task.SEP).all() and torch.equal(answer, expected) and (prompt >= 3).all()
    assert (y[:, :5] == IGNORE).all()  # the prompt is read, not scored
    assert torch.equal(y[:, 5:10], expected) and (y[:, 10] == task.EOS).all()  # the answer, then the end token
    if name == "repeat_copy":
        assert (prompt == prompt[:, :1]).all()
    else:
        assert (prompt != prompt[:, :1]).any()


def test_reverse_asks_back_the_prompts_of_copy_in_reverse_order():
    """The two tasks draw the same prompts from a data seed: they differ only in the answer."""
    copy, reverse = (Settings(**TINY | {"task": name, "n_train": 60}) for name in ("copy", "reverse"))
    d_copy, d_reverse = data.make_data(copy), data.make_data(reverse)
    lengths = (d_copy.y_train != IGNORE).sum(dim=1) - 1
    for row, n in enumerate(lengths.tolist()):
        prompt = d_copy.X_train[row, :n]
        assert torch.equal(d_reverse.X_train[row, :n], prompt)
        assert torch.equal(d_reverse.y_train[row, n : 2 * n], prompt.flip(0))


def test_a_copy_task_trains_on_every_length_up_to_seq_len_padded_to_the_longest():
    s = Settings(**TINY | {"n_train": 200})
    d = data.make_data(s)
    lengths = (d.y_train != IGNORE).sum(dim=1) - 1  # answer tokens (the end token aside)
    assert set(lengths.tolist()) == {1, 2, 3, 4} and d.X_train.shape == (200, 9)
    row = int((lengths == 2).nonzero()[0])
    assert d.X_train[row, 5] == task_of(s).EOS and (d.X_train[row, 6:] == task_of(s).PAD).all()
    assert (d.y_train[row, 5:] == IGNORE).all()
    assert torch.equal(d.X_test, task_of(s).test_set(s, 4)[0])  # the test set at seq_len


def test_a_test_set_depends_on_the_data_seed_and_its_length_only():
    s = Settings(**TINY)
    task = task_of(s)
    X, _ = task.test_set(s, 6)
    assert torch.equal(X, task.test_set(dataclasses.replace(s, seed=s.seed, n_train=7, pos_enc="rope"), 6)[0])
    assert not torch.equal(X, task.test_set(dataclasses.replace(s, seed=1), 6)[0])
    assert not torch.equal(X[:, :5], task.test_set(s, 5)[0][:, :5])  # each length its own stream


def test_the_order_tasks_test_set_at_any_length_is_that_of_the_run_with_that_seq_len():
    s = Settings(n_train=20, n_test=10)
    X, y = task_of(s).test_set(s, 12)
    d = data.make_order_data(dataclasses.replace(s, seq_len=12))
    assert torch.equal(X, d.X_test) and torch.equal(y, d.y_test)


def test_tasks_declare_what_they_feed_and_ask_back_and_a_class_without_the_interface_is_refused():
    assert {name: (t.inputs, t.outputs, t.min_length) for name, t in TASKS.items()} == {
        "order": ("vectors", "label", 2), "repeat_copy": ("tokens", "sequence", 1), "copy": ("tokens", "sequence", 1),
        "reverse": ("tokens", "sequence", 1)}
    assert list(TASKS["order"].metrics) == ["accuracy"] and list(TASKS["copy"].metrics)[0] == "exact_match"
    with pytest.raises(TypeError, match="task 'bare': Bare must derive from ablation.data.Task"):
        data.task("bare")(type("Bare", (), {}))
    assert "bare" not in TASKS


@pytest.mark.parametrize("lengths,key", [([1, 2, 3, 4], "1-4"), ([8, 16, 32], "8_16_32"), ([16, 8, 1, 2, 3, 8], "1-3_8_16"),
                                         ([5], "5"), ([7, 8], "7-8")])  # fmt: skip
def test_a_set_of_lengths_names_its_file_and_is_read_back_from_the_name(lengths, key):
    assert lengths_key(lengths) == key and parse_lengths_key(key) == sorted(set(lengths))


# --- positional encodings at any length --------------------------------------------------------


@pytest.mark.parametrize("pos_enc", ["sinusoidal", "rope", "alibi"])
def test_a_fixed_table_past_its_rows_is_computed_and_its_prefix_is_the_stored_table_bit_for_bit(pos_enc):
    torch.manual_seed(0)
    short, long = POSITIONAL_ENCODINGS[pos_enc](6, 8, 2), POSITIONAL_ENCODINGS[pos_enc](10, 8, 2)
    x, q, k = torch.randn(3, 10, 8), torch.randn(3, 2, 10, 4), torch.randn(3, 2, 10, 4)
    assert torch.equal(short(x), long(x))  # 10 positions past a table of 6: the table of 10
    assert torch.equal(torch.stack(short.rotate(q, k)), torch.stack(long.rotate(q, k)))
    if pos_enc == "alibi":
        assert torch.equal(short.bias(10), long.bias(10)) and torch.equal(short.bias(10)[:, :6, :6], short.table)
    if pos_enc == "sinusoidal":
        assert torch.equal(short(x)[:, :6], x[:, :6] + short.pe)


# T5's buckets (Raffel et al. 2020; Hugging Face's _relative_position_bucket with 32 buckets, max_distance
# 128): exact below half the buckets of a direction, then exact + floor(log(d / exact) / log(128 / exact)
# * (buckets - exact)), capped at the direction's last bucket. Worked by hand: causal, exact = 16:
# d = 20 -> 16 + floor(1.716) = 17; d = 127 -> 16 + floor(15.94) = 31; d = 500 -> 31 (the cap).
# Bidirectional, 16 a direction, exact = 8: d = 12 -> 8 + floor(log 1.5 / log 16 * 8 = 1.17) = 9;
# keys ahead add 16.
T5_CAUSAL = {0: 0, 1: 1, 15: 15, 16: 16, 20: 17, 127: 31, 500: 31}
T5_BIDIRECTIONAL_BEHIND = {0: 0, 7: 7, 8: 8, 12: 9, 500: 15}
T5_BIDIRECTIONAL_AHEAD = {1: 17, 7: 23, 12: 25, 500: 31}


def test_t5_buckets_are_exact_for_short_distances_log_spaced_beyond_and_capped():
    T5 = POSITIONAL_ENCODINGS["t5"]
    causal, both = T5.buckets(501, causal=True), T5.buckets(501, causal=False)
    assert {d: int(causal[500, 500 - d]) for d in T5_CAUSAL} == T5_CAUSAL  # query 500, key d behind
    assert (causal.triu(1) == 0).all()  # keys ahead (masked in a decoder) share bucket 0 with the query's own
    assert {d: int(both[500, 500 - d]) for d in T5_BIDIRECTIONAL_BEHIND} == T5_BIDIRECTIONAL_BEHIND
    assert {d: int(both[0, d]) for d in T5_BIDIRECTIONAL_AHEAD} == T5_BIDIRECTIONAL_AHEAD
    behind = causal[500, :501].flip(0)  # bucket by distance 0..500
    assert (behind[1:] >= behind[:-1]).all() and int(behind.max()) == 31  # never decreasing, every bucket used


@pytest.mark.parametrize("causal", [True, False])
def test_t5s_bias_depends_on_the_distance_only_and_is_learned_per_head(causal):
    torch.manual_seed(0)
    t5 = POSITIONAL_ENCODINGS["t5"](6, 8, 2)
    t5.causal = causal
    bias = t5.bias(9)  # [H, T, T], past the 6 positions it was built for
    assert bias.shape == (2, 9, 9)
    assert torch.equal(bias[:, 1:, 1:], bias[:, :-1, :-1])  # shifting query and key together changes nothing
    assert not torch.equal(bias[0], bias[1])  # a table per head
    assert [name for name, _ in t5.named_parameters()] == ["relative_attention_bias.weight"]
    if not causal:
        assert not torch.equal(bias[:, 0, 1], bias[:, 1, 0])  # one step ahead is not one step behind


def test_the_model_tells_t5s_bias_whether_it_attends_under_the_causal_mask():
    decoder = build_model(Settings(**TINY | {"pos_enc": "t5"}))
    encoder = build_model(Settings(arch="encoder", pos_enc="t5", seq_len=6, d_model=8, heads=2))
    assert decoder.pos_enc.causal and not encoder.pos_enc.causal


def test_a_learned_table_gives_positions_past_its_rows_no_position_vector():
    torch.manual_seed(0)
    learned = POSITIONAL_ENCODINGS["learned"](6, 8, 2)
    x = torch.randn(3, 10, 8)
    out = learned(x)
    assert torch.equal(out[:, :6], x[:, :6] + learned.table.weight) and torch.equal(out[:, 6:], x[:, 6:])


def test_by_default_the_table_covers_the_positions_of_the_trained_lengths():
    assert trained_positions(Settings(seq_len=8)) == 8  # the order task: every run trained before `positions`
    assert trained_positions(Settings(**TINY)) == 9  # prompt 4, separator, answer 4
    model = build_model(Settings(**TINY | {"pos_enc": "learned"}))
    assert model.pos_enc.table.num_embeddings == 9
    assert build_model(Settings(**TINY | {"pos_enc": "learned", "positions": 21})).pos_enc.table.num_embeddings == 21


# --- the decoder -------------------------------------------------------------------------------


@pytest.mark.parametrize("norm", ["post", "pre"])
@pytest.mark.parametrize("pos_enc", list(POSITIONAL_ENCODINGS))
def test_the_decoder_maps_tokens_to_next_token_logits_and_trains_every_parameter(pos_enc, norm):
    s = Settings(**TINY | {"pos_enc": pos_enc, "norm": norm})
    torch.manual_seed(0)
    model = build_model(s)
    X, y = task_of(s).test_set(s, 3)
    logits = model(X)
    assert logits.shape == (*X.shape, task_of(s).vocab_size) and torch.isfinite(logits).all()
    train.loss_and_correct("sequence", logits, y)[0].backward()
    assert [name for name, p in model.named_parameters() if p.grad is None or not p.grad.abs().sum()] == []


@pytest.mark.parametrize("pos_enc", list(POSITIONAL_ENCODINGS))
def test_a_decoder_position_ignores_every_later_token_exactly(pos_enc):
    s = Settings(**TINY | {"pos_enc": pos_enc})
    torch.manual_seed(0)
    model = build_model(s).eval()
    X, _ = task_of(s).test_set(s, 4)
    later = X.clone()
    later[:, 6:] = (later[:, 6:] + 1) % 13  # change positions 6.. only
    with torch.no_grad():
        assert torch.equal(model(X)[:, :6], model(later)[:, :6])
        assert not torch.equal(model(X)[:, 6:], model(later)[:, 6:])


def test_greedy_decoding_gets_a_sequence_right_exactly_when_teacher_forcing_does():
    """Every target token the most likely given the true prefix (training's accuracy) is the same
    event as greedy decoding generating every target token: its first wrong token is a wrong argmax
    on the true prefix. So the training curve and the evaluations count the same sequences."""
    s = Settings(**TINY | {"epochs": 25})
    result = train.train_run(s)
    model = build_model(s)
    model.load_state_dict(result.weights)
    model.eval()
    for n in (2, 4, 6):
        X, y = task_of(s).test_set(s, n)
        with torch.no_grad():
            teacher = train.loss_and_correct("sequence", model(X), y)[1]
            counts, _ = train.test_counts(model, task_of(s), X, y)
        assert counts["exact_match"][0] == int(teacher), n
        assert 0 < counts["token_accuracy"][0] <= counts["token_accuracy"][1] == s.n_test * (n + 1)


def test_the_decoder_takes_the_causal_mask_only_and_a_token_task_only():
    with pytest.raises(ValueError) as err:
        build_model(Settings(**TINY | {"attn_mask": "bidirectional"}))
    assert str(err.value) == "attn_mask: arch decoder runs under the causal mask only; got 'bidirectional'"
    with pytest.raises(ValueError) as err:
        build_model(Settings(**TINY | {"task": "order"}))
    assert str(err.value) == ("task: task order gives float vectors and asks for one label per sequence; arch decoder "
                              "reads token ids and writes a target sequence")  # fmt: skip
    assert ARCHITECTURES["encoder"].mask is None


# --- weights kept, and the evaluate stage ------------------------------------------------------


def _trained(tmp_path, **settings):
    s = Settings(**settings)
    result = train.train_run(s)
    run_dir = tmp_path / "run"
    train.write_outputs(result, run_dir, "study", "run")
    return s, result, run_dir


def test_a_run_keeps_its_final_parameters_which_hash_to_its_params_sha256(tmp_path):
    s, result, run_dir = _trained(tmp_path, n_train=40, n_test=10, epochs=5)
    model = build_model(s)
    model.load_state_dict(torch.load(run_dir / train.WEIGHTS, weights_only=True))
    assert train.params_sha256(model) == result.params_sha256 == read_csv(run_dir / "metrics.csv")[0]["params_sha256"]


@pytest.mark.parametrize("settings", [dict(n_train=60, n_test=20, epochs=20, pos_enc="learned"), TINY],
                         ids=["order", "repeat_copy"])  # fmt: skip
def test_the_evaluation_at_the_trained_length_is_the_runs_test_acc_bit_for_bit(tmp_path, settings):
    s, result, run_dir = _trained(tmp_path, **settings)
    rows = evaluate.evaluate(s, run_dir, [s.seq_len, 2 * s.seq_len])
    main = [r for r in rows if r["metric"] == task_of(s).main_metric]
    at_seq_len = next(r for r in main if r["length"] == s.seq_len)
    assert at_seq_len["value"] == result.test_acc and at_seq_len["correct"] == result.test_correct
    assert at_seq_len["trained"] and not next(r for r in main if r["length"] == 2 * s.seq_len)["trained"]
    recorded = read_csv(run_dir / "metrics.csv")[0]
    assert repr(at_seq_len["value"]) == recorded["test_acc"]


def _cli(s, run_dir, out, lengths="1-3"):
    return subprocess.run([sys.executable, "-m", "ablation.evaluate", "--settings", s.to_json(), "--run-dir",
                           str(run_dir), "--lengths", lengths, "--out", str(out)], capture_output=True, text=True)  # fmt: skip


def test_a_run_without_weights_trains_again_to_recover_them_and_evaluates(tmp_path):
    s, result, run_dir = _trained(tmp_path, **TINY)
    (run_dir / train.WEIGHTS).unlink()
    out = tmp_path / "evaluations.csv"
    proc = _cli(s, run_dir, out, "1-5")
    assert proc.returncode == 0, proc.stderr
    assert "no weights.pt; training the run again to recover them" in proc.stdout
    assert (run_dir / train.WEIGHTS).is_file()
    rows = read_csv(out)
    assert list(rows[0]) == list(EVALUATION_COLUMNS) and len(rows) == 5 * len(task_of(s).metrics)
    assert {r["length"] for r in rows} == {"1", "2", "3", "4", "5"} and {r["hash"] for r in rows} == {"run"}
    exact = {int(r["length"]): r for r in rows if r["metric"] == "exact_match"}
    assert float(exact[4]["value"]) == result.test_acc and exact[4]["trained"] == "True" and exact[5]["trained"] == "False"


def test_a_recovery_that_ends_on_another_params_sha256_is_one_line_naming_the_run_and_writes_nothing(tmp_path):
    s, _, run_dir = _trained(tmp_path, **TINY)
    (run_dir / train.WEIGHTS).unlink()
    metrics = run_dir / "metrics.csv"
    rows = read_csv(metrics)
    rows[0]["params_sha256"] = "0" * 64  # as recorded on a machine whose kernels round differently
    with open(metrics, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    out = tmp_path / "evaluations.csv"
    proc = _cli(s, run_dir, out)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("python -m ablation.evaluate: error: run run: training it again")
    assert "not the recorded 000000000000" in lines[0] and f"delete {run_dir} to train it anew here" in lines[0]
    assert not out.exists() and not (run_dir / train.WEIGHTS).exists()


def test_weights_that_are_not_the_recorded_parameters_are_refused_in_one_line(tmp_path):
    s, _, run_dir = _trained(tmp_path, **TINY)
    weights = torch.load(run_dir / train.WEIGHTS, weights_only=True)
    weights["lm_head.bias"] += 1
    train.write_weights(weights, run_dir / train.WEIGHTS)
    proc = _cli(s, run_dir, tmp_path / "out.csv")
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1
    assert "does not hold the parameters its metrics.csv records" in proc.stderr and not (tmp_path / "out.csv").exists()


def test_a_studys_evaluations_are_its_runs_rows_led_by_run_id_factors_and_seed(tmp_path):
    index = [{"run_id": "pos_enc~none/seed~0", "hash": "a" * 16, "pos_enc": "none", "seed": "0"},
             {"run_id": "pos_enc~rope/seed~0", "hash": "b" * 16, "pos_enc": "rope", "seed": "0"}]  # fmt: skip
    files = []
    for entry in reversed(index):
        path = tmp_path / entry["hash"] / "evaluations" / "1-2.csv"
        path.parent.mkdir(parents=True)
        rows = [dict(zip(EVALUATION_COLUMNS, (entry["hash"], "exact_match", n, 0.5, 4, 8, n == 1))) for n in (1, 2)]
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(EVALUATION_COLUMNS), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        files.append(path)
    rows = aggregate.collect_evaluations(["pos_enc"], index, files)
    assert [(r["run_id"], r["length"]) for r in rows] == [
        ("pos_enc~none/seed~0", "1"), ("pos_enc~none/seed~0", "2"), ("pos_enc~rope/seed~0", "1"), ("pos_enc~rope/seed~0", "2")]
    assert list(rows[0]) == ["run_id", "hash", "pos_enc", "seed", *EVALUATION_COLUMNS[1:]]
    (files[0].parent.parent.rename(tmp_path / ("c" * 16)))
    with pytest.raises(aggregate.CorruptRunFile, match="rows of another run"):
        aggregate.collect_evaluations(["pos_enc"], index, [tmp_path / ("c" * 16) / "evaluations" / "1-2.csv"])
    assert not math.isnan(float(rows[0]["value"]))


# --- bad input: one line before any job --------------------------------------------------------

TOKEN_STUDY = {"fixed": {**TINY, "positions": 17}, "factors": {"pos_enc": ["none", "learned"]}, "seeds": [0, 1],
               "eval_lengths": {"from": 1, "to": 8}}  # fmt: skip


def _config(**study):
    return {"defaults": {"n_train": 8, "n_test": 4, "epochs": 2, "d_model": 8},
            "studies": {"s1": {"fixed": {"heads": 2, "depth": 1}, "seeds": [0, 1]} | study}}  # fmt: skip


BAD = [
    ("order-shorter-than-it-builds", _config(factors={"seq_len": [8, 16]}, eval_lengths=[1, 32]),
     "study 's1': eval_lengths: 1 is out of range for task order: must be >= 2"),
    ("learned-table-short", _config(**TOKEN_STUDY | {"fixed": TOKEN_STUDY["fixed"] | {"positions": 16}}),
     "study 's1': fixed.positions: 16 is fewer than the 17 positions a sequence of length 8 occupies in task "
     "repeat_copy; set at least 17"),
    ("learned-table-short-factor", _config(**TOKEN_STUDY | {"fixed": TINY, "factors": {"positions": [17, 9]}}),
     "study 's1': factors.positions[1]: 9 is fewer than the 17 positions a sequence of length 8 occupies in task "
     "repeat_copy; set at least 17"),
    ("decoder-bidirectional", _config(**TOKEN_STUDY | {"fixed": TOKEN_STUDY["fixed"] | {"attn_mask": "bidirectional"}}),
     "study 's1': fixed.attn_mask: arch decoder runs under the causal mask only; got 'bidirectional'"),
    ("decoder-default-mask", _config(fixed={k: v for k, v in TINY.items() if k != "attn_mask"}),
     "study 's1': attn_mask (schema default): arch decoder runs under the causal mask only; got 'bidirectional'"),
    ("encoder-on-tokens", _config(fixed={"task": "copy"}),
     "study 's1': fixed.task: task copy gives token ids and asks for a target sequence; arch encoder reads float "
     "vectors and writes one label per sequence"),
    ("decoder-on-order", _config(fixed={"arch": "decoder", "attn_mask": "causal"}, factors={"task": ["repeat_copy", "order"]}),
     "study 's1': factors.task[1]: task order gives float vectors and asks for one label per sequence; arch decoder "
     "reads token ids and writes a target sequence"),
    ("range-backwards", _config(eval_lengths={"from": 16, "to": 9}), "study 's1': eval_lengths: from 16 is above to 9"),
    ("length-zero", _config(eval_lengths=[0, 8]), "study 's1': eval_lengths[0]: 0 is out of range: must be >= 1"),
    ("range-without-end", _config(eval_lengths={"from": 9}), "study 's1': eval_lengths: missing required key 'to'"),
]  # fmt: skip


@pytest.mark.parametrize("name, raw, message", BAD, ids=[case[0] for case in BAD])
def test_what_a_study_cannot_build_or_evaluate_is_one_line_naming_study_and_key(name, raw, message):
    from ablation import config as C

    with pytest.raises(C.ConfigError) as err:
        C.validate(raw)
    assert str(err.value) == message


def test_eval_lengths_are_a_list_or_a_range_and_in_no_runs_hash():
    from ablation import config as C

    listed = C.validate(_config(**TOKEN_STUDY | {"eval_lengths": [8, 3, 5]})).studies["s1"]
    ranged = C.validate(_config(**TOKEN_STUDY)).studies["s1"]
    none = C.validate(_config(**{k: v for k, v in TOKEN_STUDY.items() if k != "eval_lengths"})).studies["s1"]
    assert listed.eval_lengths == [3, 5, 8] and ranged.eval_lengths == list(range(1, 9)) and none.eval_lengths == []
    assert [r.hash for r in listed.runs()] == [r.hash for r in ranged.runs()] == [r.hash for r in none.runs()]
    assert data.evaluated_lengths(listed.runs()[0].settings, [3, 5, 8]) == [1, 2, 3, 4, 5, 8]  # and the trained ones
    assert data.evaluated_lengths(listed.runs()[0].settings, []) == []


@pytest.mark.parametrize("lengths, missing", [([9, 40], "17-40"), ([7, 20], "17-20")])
def test_a_claims_lengths_must_be_evaluated_throughout_its_range(lengths, missing):
    from ablation import config as C

    claim = {"id": "c", "statement": "s", "kind": "at_least", "metric": "exact_match", "lengths": lengths, "threshold": 0.5}
    raw = _config(**TOKEN_STUDY | {"fixed": TOKEN_STUDY["fixed"] | {"positions": 33}, "eval_lengths": {"from": 1, "to": 16},
                                   "claims": [claim]})  # fmt: skip
    with pytest.raises(C.ConfigError) as err:
        C.validate(raw)
    assert str(err.value).endswith(f"lengths: {lengths} includes lengths the study does not evaluate: {missing} "
                                   "(it evaluates 1-16)")  # fmt: skip
    assert "\n" not in str(err.value)
