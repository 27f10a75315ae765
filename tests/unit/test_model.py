"""The model: positional encoding, our attention and encoder blocks vs torch's, the classifiers."""

import math

import pytest
import torch
import torch.nn as nn

from ablation.data import make_order_data
from ablation.architectures import build_model
from ablation.model import EncoderBlock, MultiHeadSelfAttention, sinusoidal_encoding
from ablation.settings import Settings

TOL = 1e-6


@pytest.mark.parametrize("T,D", [(8, 16), (50, 32), (5, 7), (3, 1)])
def test_sinusoidal_encoding_matches_the_formula(T, D):
    pe = sinusoidal_encoding(T, D)
    assert pe.shape == (T, D) and pe.dtype == torch.float32
    for pos in range(T):
        for dim in range(D):
            angle = pos / 10000 ** ((dim // 2 * 2) / D)
            expected = math.sin(angle) if dim % 2 == 0 else math.cos(angle)
            assert abs(pe[pos, dim].item() - expected) < TOL, (pos, dim)


def test_sinusoidal_encoding_gives_every_position_its_own_signature():
    pe = sinusoidal_encoding(32, 16)
    assert torch.cdist(pe, pe).add(torch.eye(32)).min() > 0.1


def _copy(ref: nn.Module, ours: nn.Module) -> None:
    ours.load_state_dict(ref.state_dict())  # strict: every name and shape must match


@pytest.mark.parametrize("heads", [1, 2, 4, 8, 16])
def test_attention_matches_nn_multihead_attention(heads):
    torch.manual_seed(heads)
    ref = nn.MultiheadAttention(16, heads, batch_first=True)
    ours = MultiHeadSelfAttention(16, heads)
    _copy(ref, ours)
    x = torch.randn(3, 7, 16)
    expected, _ = ref(x, x, x, need_weights=False)
    assert (ours(x) - expected).abs().max().item() < TOL


@pytest.mark.parametrize("heads,T", [(1, 8), (4, 8), (8, 32)])
def test_attention_matches_the_lessons_explicit_formula(heads, T):
    torch.manual_seed(0)
    attn = MultiHeadSelfAttention(16, heads)
    x = torch.randn(50, T, 16)
    d_head = 16 // heads
    Wq, Wk, Wv = attn.in_proj_weight.chunk(3)
    bq, bk, bv = attn.in_proj_bias.chunk(3)
    Q, K, V = ((x @ W.T + b).view(50, T, heads, d_head).transpose(1, 2) for W, b in ((Wq, bq), (Wk, bk), (Wv, bv)))
    weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_head), dim=-1)
    expected = attn.out_proj((weights @ V).transpose(1, 2).reshape(50, T, 16))
    assert (attn(x) - expected).abs().max().item() < TOL


def test_attention_starts_from_torch_initialisation():
    torch.manual_seed(0)
    ref = nn.MultiheadAttention(16, 4, batch_first=True).state_dict()
    torch.manual_seed(0)
    ours = MultiHeadSelfAttention(16, 4).state_dict()
    assert list(ours) == list(ref)
    for name in ref:
        assert torch.equal(ours[name], ref[name]), name


@pytest.mark.parametrize("norm", ["post", "pre"])
@pytest.mark.parametrize("heads", [1, 4])
def test_encoder_block_matches_transformer_encoder_layer(norm, heads):
    torch.manual_seed(0)
    ref = nn.TransformerEncoderLayer(16, heads, 32, dropout=0.0, batch_first=True, norm_first=norm == "pre")
    torch.manual_seed(0)
    ours = EncoderBlock(16, heads, 32, norm)
    for name, tensor in ref.state_dict().items():  # same initialisation under the same seed
        assert torch.equal(ours.state_dict()[name], tensor), name
    with torch.no_grad():  # make the LayerNorm parameters non-trivial before comparing
        for p in ref.parameters():
            p.add_(0.1 * torch.randn_like(p))
    _copy(ref, ours)
    x = torch.randn(4, 6, 16)
    out_ref, out_ours = ref(x), ours(x)
    assert (out_ours - out_ref).abs().max().item() < TOL
    target = torch.randn_like(out_ref)
    (out_ref * target).mean().backward()
    (out_ours * target).mean().backward()
    ref_params = dict(ref.named_parameters())
    for name, p in ours.named_parameters():
        assert (p.grad - ref_params[name].grad).abs().max().item() < TOL, name


def test_post_and_pre_norm_differ():
    torch.manual_seed(0)
    post = EncoderBlock(16, 4, 32, "post")
    pre = EncoderBlock(16, 4, 32, "pre")
    pre.load_state_dict(post.state_dict())
    x = torch.randn(2, 5, 16)
    assert not torch.allclose(post(x), pre(x))
    # post-norm output rows are normalised (LayerNorm with its initial weight 1, bias 0)
    assert torch.allclose(post(x).mean(-1), torch.zeros(2, 5), atol=1e-5)


@pytest.mark.parametrize("d_model,heads", [(16, 3), (16, 5), (10, 4)])
def test_heads_must_divide_d_model(d_model, heads):
    with pytest.raises(ValueError, match="divisor"):
        build_model(Settings(d_model=d_model, heads=heads))
    with pytest.raises(ValueError, match="divisor"):
        MultiHeadSelfAttention(d_model, heads)


@pytest.mark.parametrize(
    "arch,norm,depth,n_blocks,final_norm",
    [("attention_only", "post", 5, 1, False), ("encoder", "post", 3, 3, False), ("encoder", "pre", 3, 3, True)],
)
def test_model_structure(arch, norm, depth, n_blocks, final_norm):
    model = build_model(Settings(arch=arch, norm=norm, depth=depth))
    assert len(model.blocks) == n_blocks
    assert (getattr(model, "final_norm", None) is not None) == final_norm
    out = model(torch.randn(5, 8, 16))
    assert out.shape == (5,)
    assert ("pos_enc.pe" in dict(model.named_buffers())) is True


def test_no_positional_encoding_means_no_pe_buffer():
    assert not dict(build_model(Settings(pos_enc="none")).named_buffers())


@pytest.mark.parametrize("arch", ["attention_only", "encoder"])
def test_positional_encoding_makes_the_model_see_order(arch):
    s = Settings(arch=arch, n_test=20)
    d = make_order_data(s)
    n = s.n_test
    for pos_enc, sees_order in (("none", False), ("sinusoidal", True)):
        torch.manual_seed(0)
        model = build_model(Settings(arch=arch, pos_enc=pos_enc))
        with torch.no_grad():
            out = model(d.X_test)
        twins_differ = (out[:n] - out[n:]).abs().max().item() > 1e-4
        assert twins_differ == sees_order, pos_enc


@pytest.mark.parametrize("arch", ["attention_only", "encoder"])
def test_without_positional_encoding_the_twin_test_set_scores_exactly_half(arch):
    s = Settings(arch=arch, pos_enc="none", seed=2, n_train=100)
    d = make_order_data(s)
    torch.manual_seed(0)
    model = build_model(s)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(10):  # a little training moves the logits away from their initial values
        opt.zero_grad()
        torch.nn.functional.binary_cross_entropy_with_logits(model(d.X_train), d.y_train).backward()
        opt.step()
    with torch.no_grad():
        logits = model(d.X_test)
    n = s.n_test
    # the twins (A and B swapped) get the same logit, up to float32 rounding of sums taken in another
    # order; so each pair has one right and one wrong prediction: exactly 50 % of the 2 * n_test
    torch.testing.assert_close(logits[:n], logits[n:], rtol=1e-5, atol=1e-6)
    assert ((logits > 0).float() == d.y_test).sum().item() == n


def test_a_mask_first_built_during_evaluation_still_trains():
    # masks are built once per length and reused: one first built under inference_mode must not be
    # an inference tensor, which autograd refuses to save for backward
    s = Settings(arch="encoder", depth=1, heads=2, attn_mask="causal", seq_len=7, n_train=4)
    model = build_model(s)
    X = make_order_data(s).X_train
    with torch.inference_mode():
        model(X)
    model(X).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
