"""The model variants of ablation.model's registries: every variant builds, has the right shapes,
sees order exactly when it should, and the schema offers exactly the registered names; the smoke
config's runs keep their committed params_sha256."""

import functools
import importlib.util
import itertools
import json
import os
import sys

import pandas as pd
import pytest
import torch
import torch.nn as nn

from ablation import outputs
from ablation import settings as S
from ablation.data import TASKS, make_order_data
from ablation.architectures import ARCHITECTURES, build_model
from ablation.model import ATTENTION_MASKS, NORMS, POSITIONAL_ENCODINGS, EncoderBlock, MultiHeadSelfAttention
from ablation.settings import Settings
from conftest import REPO

sys.path.insert(0, str(REPO / "tests" / "fixtures"))
import smoke_params_sha256 as fixture  # noqa: E402

ARCHS = [name for name, arch in ARCHITECTURES.items() if arch.outputs == "label"]  # the order task's classifiers
REGISTRIES = {"pos_enc": POSITIONAL_ENCODINGS, "attn_mask": ATTENTION_MASKS, "norm": NORMS}
VARIANTS = list(itertools.product(POSITIONAL_ENCODINGS, ATTENTION_MASKS, NORMS))
# Reordering a sum of T float32 terms moves it by a few units in the last place: the twins of a
# model blind to order differ by at most that (|logit| ~ 1, so under 1e-6, about 8 ulps); a model
# that sees order moves them by ten times as much at least.
REORDER_TOL = 1e-6


@pytest.mark.parametrize("setting", ["arch", *REGISTRIES, "task"])
def test_the_schema_lists_exactly_the_built_in_names_of_each_registry(setting):
    """Without plugins the registries hold the built-ins, and the schema lists those names (its
    examples): a config without plugins is checked against them without importing torch."""
    registry = (REGISTRIES | {"arch": ARCHITECTURES, "task": TASKS})[setting]
    assert list(S.choices(setting)) == list(registry)
    assert S.defaults()[setting] in registry


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("pos_enc,attn_mask,norm", VARIANTS)
def test_every_variant_builds_and_maps_sequences_to_one_logit_each(arch, pos_enc, attn_mask, norm):
    s = Settings(arch=arch, pos_enc=pos_enc, attn_mask=attn_mask, norm=norm, seq_len=6, d_model=8, heads=2)
    model = build_model(s)
    x = torch.randn(3, 6, 8, requires_grad=True)
    out = model(x)
    assert out.shape == (3,) and out.dtype == torch.float32 and torch.isfinite(out).all()
    out.sum().backward()
    assert all(p.grad is not None for p in model.parameters())  # every parameter is trained


@pytest.mark.parametrize("pos_enc,attn_mask", list(itertools.product(POSITIONAL_ENCODINGS, ATTENTION_MASKS)))
def test_attention_keeps_the_shape_of_its_input(pos_enc, attn_mask):
    position = POSITIONAL_ENCODINGS[pos_enc](5, 16, 4)
    attn = MultiHeadSelfAttention(16, 4)
    x = torch.randn(2, 5, 16)
    assert attn(position(x), position, ATTENTION_MASKS[attn_mask]()).shape == (2, 5, 16)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("pos_enc,attn_mask", list(itertools.product(POSITIONAL_ENCODINGS, ATTENTION_MASKS)))
def test_twins_get_the_same_logit_exactly_when_the_model_cannot_see_order(arch, pos_enc, attn_mask):
    """The twin test set: each sequence and its twin (the two marker rows exchanged) differ only by
    a permutation of positions. A bidirectional model without positional information is
    permutation-invariant, so the twins get the same logit (up to the order of float sums); any
    positional encoding, or the causal mask, separates them."""
    s = Settings(arch=arch, pos_enc=pos_enc, attn_mask=attn_mask, n_test=50)
    data = make_order_data(s)
    torch.manual_seed(0)
    model = build_model(s).eval()
    with torch.no_grad():
        out = model(data.X_test)
    gap = (out[: s.n_test] - out[s.n_test :]).abs().max().item()
    sees_order = POSITIONAL_ENCODINGS[pos_enc].sees_order or ATTENTION_MASKS[attn_mask].sees_order
    if sees_order:
        assert gap > 10 * REORDER_TOL
    else:
        assert gap <= REORDER_TOL


def test_a_causal_query_ignores_every_later_key_exactly():
    attn = MultiHeadSelfAttention(16, 4)
    causal = ATTENTION_MASKS["causal"]()
    x = torch.randn(2, 7, 16)
    later = x.clone()
    later[:, 4:] = torch.randn(2, 3, 16)  # change positions 4..6 only
    assert torch.equal(attn(x, mask=causal)[:, :4], attn(later, mask=causal)[:, :4])
    assert not torch.equal(attn(x)[:, :4], attn(later)[:, :4])  # bidirectional: every position sees them


def test_symmetric_alibi_cannot_tell_a_sequence_from_its_mirror_image():
    """ALiBi's bias -m |s - t| knows distance, not direction: mirroring the sequence mirrors every
    output row, and the mean-pooled logit stays (up to float sums)."""
    s = Settings(arch="encoder", pos_enc="alibi")
    torch.manual_seed(0)
    model = build_model(s).eval()
    x = torch.randn(20, s.seq_len, s.d_model)
    with torch.no_grad():
        assert (model(x) - model(x.flip(1))).abs().max() <= REORDER_TOL
        causal = build_model(Settings(arch="encoder", pos_enc="alibi", attn_mask="causal")).eval()
        assert (causal(x) - causal(x.flip(1))).abs().max() > 10 * REORDER_TOL


def test_rope_attention_depends_on_relative_position_only():
    """Rotary: q_s . k_t depends on s - t, so shifting the whole sequence inside a longer window
    leaves the attention of the shifted rows unchanged (within float rounding)."""
    rope = POSITIONAL_ENCODINGS["rope"](12, 16, 4)
    torch.manual_seed(0)
    q = torch.randn(1, 4, 12, 4)  # [B, H, T, dh]
    k = torch.randn(1, 4, 12, 4)
    shifted_q, shifted_k = torch.zeros_like(q), torch.zeros_like(k)
    shifted_q[:, :, 3:], shifted_k[:, :, 3:] = q[:, :, :9], k[:, :, :9]
    rq, rk = rope.rotate(q, k)
    sq, sk = rope.rotate(shifted_q, shifted_k)
    scores = rq[:, :, :9] @ rk[:, :, :9].transpose(-1, -2)
    shifted_scores = sq[:, :, 3:] @ sk[:, :, 3:].transpose(-1, -2)
    assert (scores - shifted_scores).abs().max() < 1e-5
    assert (scores - q[:, :, :9] @ k[:, :, :9].transpose(-1, -2)).abs().max() > 1e-2  # it does rotate


def test_rope_refuses_an_odd_head_dimension():
    with pytest.raises(ValueError, match="pos_enc rope needs an even head dimension"):
        build_model(Settings(pos_enc="rope", d_model=12, heads=4))


def test_the_learned_table_starts_like_torch_embeddings_and_is_trained():
    torch.manual_seed(0)
    ref = nn.Embedding(8, 16)
    torch.manual_seed(0)
    learned = POSITIONAL_ENCODINGS["learned"](8, 16, 4)
    assert [name for name, _ in learned.named_parameters()] == ["table.weight"]
    assert torch.equal(learned.table.weight, ref.weight)


@pytest.mark.parametrize("norm", list(NORMS))
def test_dropout_acts_only_while_training(norm):
    s = Settings(arch="encoder", norm=norm, dropout=0.3)
    torch.manual_seed(0)
    model = build_model(s)
    torch.manual_seed(0)
    plain = build_model(Settings(arch="encoder", norm=norm))
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), plain.state_dict().values()))
    x = torch.randn(4, s.seq_len, s.d_model)
    model.train()
    assert not torch.equal(model(x), model(x))  # fresh masks on each call
    model.eval(), plain.eval()
    assert torch.equal(model(x), plain(x))


def test_an_unknown_variant_is_a_one_line_error_listing_the_registered_ones():
    with pytest.raises(ValueError, match=r"^pos_enc must be one of none, sinusoidal, .*; got 'shuffled'$"):
        build_model(Settings(pos_enc="shuffled"))
    with pytest.raises(ValueError, match=r"^norm must be one of post, pre; got 'sandwich'$"):
        EncoderBlock(16, 4, 32, "sandwich")


def test_every_smoke_run_keeps_its_committed_params_sha256():
    """tests/fixtures/smoke_params_sha256.json was written by tests/fixtures/smoke_params_sha256.py
    from the model before its variants were registries (the smoke runs of that time, before the
    position study: its AVX512 set, on an AMD EPYC) and, for machines whose kernels round differently,
    from the same training code later (the AVX2 set, and the set of AVX512 on an Intel Xeon, each
    written at a commit whose model, data and training were unchanged since the AVX512 set passed);
    the Intel Xeon set also holds the position and length studies' smoke runs (written with --new,
    the position runs' bytes those of the code before the decoder existed). Every one of those runs
    must still end on the bytes of this machine's set."""
    by_machine = json.loads(fixture.FIXTURE.read_text(encoding="utf-8"))
    key, expected = fixture.expected_set(by_machine)
    if expected is None:
        pytest.skip(f"the fixture holds the hashes of {', '.join(sorted(by_machine))}; this machine is "
                    f"{fixture.machine()}, whose kernels may end on other bytes: python tests/fixtures/smoke_params_sha256.py adds it")
    runs = [run for run in fixture.smoke_runs() if fixture.key(run) in expected]
    assert len(runs) == len(expected)  # every run of the fixture is still a smoke run
    assert fixture.hashes(runs) == expected, key


@functools.cache
def _naive():
    """The harness's naive baseline, benchmarks/harness/naive.py, loaded by path (its folder holds
    modules with generic names, common and report, that stay off sys.path)."""
    spec = importlib.util.spec_from_file_location("naive", REPO / "benchmarks" / "harness" / "naive.py")
    naive = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(naive)
    return naive


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("attn_mask", list(ATTENTION_MASKS))
def test_the_naive_baseline_computes_our_model_for_the_variants_it_implements(arch, attn_mask):
    naive = _naive()
    for pos_enc in naive.IMPLEMENTED["pos_enc"]:
        s = Settings(arch=arch, pos_enc=pos_enc, attn_mask=attn_mask, norm="pre")
        torch.manual_seed(0)
        ours = build_model(s).eval()
        torch.manual_seed(0)
        lesson = naive.build(s).eval()
        x = torch.randn(6, s.seq_len, s.d_model)
        with torch.no_grad():
            assert (ours(x) - lesson(x)).abs().max() < 1e-5, pos_enc


def test_the_naive_baseline_refuses_every_variant_it_does_not_implement():
    naive = _naive()
    for setting, registry in REGISTRIES.items():
        for name in registry:
            if setting in naive.IMPLEMENTED and name not in naive.IMPLEMENTED[setting]:
                with pytest.raises(ValueError, match=f"naive.py implements {setting} .* only; .* asks for '{name}'"):
                    naive.build(Settings(**{setting: name}))
    with pytest.raises(ValueError, match="implements dropout 0.0 only"):
        naive.build(Settings(dropout=0.1))


TOY_VARIANT = '''

@positional_encoding("shuffled")
class Shuffled(Sinusoidal):
    """A toy: the sinusoidal rows in a fixed scrambled order, added to the input."""

    def __init__(self, seq_len: int, d_model: int, heads: int):
        super().__init__(seq_len, d_model, heads)
        order = torch.arange(seq_len).flip(0).roll(1)
        self.pe = self.pe[order]
'''

TOY_CONFIG = {
    "stats": {"n_resamples": 99},
    "defaults": {"arch": "encoder", "depth": 1, "d_model": 8, "heads": 2, "ff": 8, "head_hidden": 8,
                 "n_train": 32, "n_test": 8, "epochs": 5},
    "studies": {"toy": {"factors": {"pos_enc": ["none", "shuffled"]}, "seeds": [0, 1]}},
}  # fmt: skip


@pytest.mark.slow
def test_adding_a_variant_touches_the_model_file_and_the_schema_only(tmp_path):
    """In a scratch copy of the project (package included), add a positional encoding by editing
    ablation/model.py and the schema only; a config that lists it runs through the report, and the
    tables, figures and report show it."""
    import shutil
    import subprocess

    import yaml

    from conftest import copy_project, snakemake

    work = copy_project(tmp_path / "work")
    # symlinks kept, as a checkout keeps them: the package reaches the schema through a link
    shutil.copytree(REPO / "scripts", work / "scripts", symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "tests", work / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    before = {p.relative_to(work): p.read_bytes() for p in work.rglob("*") if p.is_file() and not p.is_symlink()}

    model = work / "scripts" / "ablation" / "model.py"
    model.write_text(model.read_text(encoding="utf-8") + TOY_VARIANT, encoding="utf-8")
    schema = work / "workflow" / "schemas" / "config.schema.yaml"
    old = "examples: [" + ", ".join(POSITIONAL_ENCODINGS) + "]"
    new = "examples: [" + ", ".join([*POSITIONAL_ENCODINGS, "shuffled"]) + "]"
    assert schema.read_text(encoding="utf-8").count(old) == 1
    schema.write_text(schema.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")

    changed = {p for p, data in before.items() if (work / p).read_bytes() != data}
    assert changed == {model.relative_to(work), schema.relative_to(work)}

    env = dict(os.environ, PYTHONPATH=str(work / "scripts"))  # the scratch package before the installed one
    # the registry and schema tests accept the new variant, and it really sees order
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "tests/unit/test_variants.py",
         "-k", "schema_lists or twins_get_the_same_logit"],
        cwd=work, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "twins_get_the_same_logit_exactly_when_the_model_cannot_see_order[shuffled-causal-encoder] PASSED" in proc.stdout

    (work / "config" / "toy.yaml").write_text(yaml.safe_dump(TOY_CONFIG), encoding="utf-8")
    snakemake(work, "--cores", "2", "--configfile", "config/toy.yaml", env=env)

    summary = pd.read_csv(work / "results" / "toy" / "summary.csv")
    assert sorted(summary["pos_enc"].unique()) == ["none", "shuffled"]
    for table in (t for t in outputs.TABLES if t.by_level):  # a row (or column) per level
        text = (work / "results" / "toy" / table.file).read_text(encoding="utf-8")
        assert "shuffled" in text, table.name
    for figure in outputs.FIGURES:
        assert (work / "results" / "toy" / figure.file).stat().st_size > 0, figure.name
    html = (work / "reports" / "ablation_report.html").read_text(encoding="utf-8")
    assert html.count("shuffled") >= 3  # the cells, stability and comparisons tables
    # every figure is shown, or (one that would show nothing) replaced by one line saying why; a scope's
    # figure only under "Where it holds", for a study with robust_over (this one has none)
    from ablation.report import SCOPE_FIGURES

    shown = [f for f in outputs.FIGURES if f.name not in SCOPE_FIGURES]
    assert html.count('<img src="data:image/png') + html.count('class="empty-figure"') >= 1 + len(shown)


def test_the_report_headline_is_the_configured_claims_in_their_order():
    from ablation.report import headline

    claims = pd.DataFrame(
        {"id": ["a", "b", "c"], "study": ["s", "s", "t"], "estimate": [0.5, 0.9, 0.7], "verdict": ["SUPPORTED"] * 3}
    )
    assert [row["id"] for row in headline(claims, ["c", "a"])] == ["c", "a"]
    assert headline(claims, []) == []
    with pytest.raises(ValueError, match="report.headline names claims that no study has: z"):
        headline(claims, ["a", "z"])


@pytest.mark.parametrize(
    "factors,hint,roles",
    [
        (["x", "y", "z"], {}, ("x", "y")),
        (["x", "y", "z"], {"hue": "z"}, ("z", "x")),
        (["x", "y"], {"hue": "y", "facet": "x"}, ("y", "x")),
        (["x"], {}, ("x", None)),
        ([], {}, (None, None)),
    ],
)
def test_figure_colours_and_rows_come_from_the_study_factors_or_its_hint(factors, hint, roles):
    from ablation.plots import plot_roles

    assert plot_roles(factors, hint) == roles
