"""ablation.model's variants against their papers' definitions, computed here independently: RoPE's
tables (Su et al.), ALiBi's slopes (Press et al.), the learned table added to the input, the
registrar's bookkeeping, the overview figure's reference encoding, and every placement and variant
passing its arguments on."""

import pytest
import torch
import torch.nn.functional as F

from ablation.architectures import build_model
from ablation.model import (
    ATTENTION_MASKS, NORMS, POSITIONAL_ENCODINGS, EncoderBlock, MultiHeadSelfAttention, NoPositionalEncoding,
    OrderClassifier, TinyAttnClassifier, reference_encoding, sinusoidal_encoding,
)  # fmt: skip
from ablation.registry import registrar
from ablation.settings import Settings


def _roformer_tables(T: int, d_head: int) -> tuple[torch.Tensor, torch.Tensor]:
    """RoFormer: plane i (coordinates i and i + d_head/2, NeoX layout) turns by position * theta_i,
    theta_i = 10000^(-2i/d_head); computed in float64, rounded once to float32; [T, d_head]."""
    i = torch.arange(d_head // 2, dtype=torch.float64)
    theta = 10000.0 ** (-2 * i / d_head)
    angle = torch.arange(T, dtype=torch.float64)[:, None] * theta  # [T, d_head/2]
    return torch.cat([angle.cos()] * 2, dim=1).float(), torch.cat([angle.sin()] * 2, dim=1).float()


@pytest.mark.parametrize("T,d_model,heads", [(64, 16, 2), (12, 12, 2), (5, 8, 4)])
def test_rope_tables_are_the_roformer_angles_in_float64_rounded_once(T, d_model, heads):
    rope = POSITIONAL_ENCODINGS["rope"](T, d_model, heads)
    cos, sin = _roformer_tables(T, d_model // heads)
    # exact: the same float64 angles rounded once (a float32 step anywhere moves the far positions)
    assert rope.cos.dtype == rope.sin.dtype == torch.float32
    assert torch.equal(rope.cos, cos) and torch.equal(rope.sin, sin)  # also their shape [T, d_head]


def test_rope_rotates_each_plane_of_a_head_by_its_angle():
    """rotate turns the pair (x_j, x_{j+dh/2}) by the angle of plane j at each position, for queries
    shorter than the table (T < seq_len) too; an odd number of planes (dh = 6) included."""
    T, seq_len, dh = 5, 9, 6
    rope = POSITIONAL_ENCODINGS["rope"](seq_len, 2 * dh, 2)
    torch.manual_seed(0)
    q, k = torch.randn(2, 2, T, dh), torch.randn(2, 2, T, dh)  # [B, H, T, dh]
    cos, sin = _roformer_tables(T, dh)
    c, s = cos[:, : dh // 2], sin[:, : dh // 2]  # [T, planes]

    def turned(x):
        a, b = x[..., : dh // 2], x[..., dh // 2 :]
        return torch.cat([a * c - b * s, a * s + b * c], dim=-1)

    rq, rk = rope.rotate(q, k)
    assert torch.allclose(rq, turned(q), atol=1e-6) and torch.allclose(rk, turned(k), atol=1e-6)


def test_rotate_half_maps_the_halves_x1_x2_to_minus_x2_x1():
    x = torch.arange(1.0, 7.0)  # halves (1, 2, 3) and (4, 5, 6)
    assert POSITIONAL_ENCODINGS["rope"]._rotate_half(x).tolist() == [-4.0, -5.0, -6.0, 1.0, 2.0, 3.0]


def test_rope_refusal_names_the_integer_head_dimension():
    with pytest.raises(ValueError) as err:
        POSITIONAL_ENCODINGS["rope"](8, 12, 4)
    assert str(err.value) == "pos_enc rope needs an even head dimension; d_model 12 / heads 4 = 3"


@pytest.mark.parametrize("heads", [1, 3, 4, 8])
def test_alibi_bias_is_minus_the_geometric_slopes_times_the_distance(heads):
    """Press et al.: head h (1-based) of H gets slope 2^(-8h/H), a geometric sequence from 2^(-8/H)
    down to 2^-8; the bias of query s and key t is -m_h |s - t| (0 on the diagonal)."""
    T = 7
    alibi = POSITIONAL_ENCODINGS["alibi"](T, 8 * heads, heads)
    slopes = torch.tensor([2.0 ** (-8.0 * h / heads) for h in range(1, heads + 1)], dtype=torch.float64)
    distance = torch.tensor([[abs(s - t) for t in range(T)] for s in range(T)], dtype=torch.float64)
    expected = -slopes[:, None, None] * distance  # [H, T, T]
    table = alibi.bias(T)
    assert table.shape == (heads, T, T) and table.dtype == torch.float32
    assert torch.allclose(table.double(), expected, rtol=1e-6, atol=0)
    assert torch.equal(alibi.bias(4), alibi.bias(T)[:, :4, :4])  # shorter inputs: the top-left corner


@pytest.mark.parametrize("pos_enc", ["rope", "alibi"])
def test_fixed_tables_are_buffers_kept_out_of_the_state_dict(pos_enc):
    """Their fixed tables are computed once, as non-persistent buffers: they follow .to(device) but
    are not in the state_dict (and so not in params_sha256, nor needed to load a checkpoint)."""
    module = POSITIONAL_ENCODINGS[pos_enc](6, 8, 2)
    assert dict(module.named_buffers()) and module.state_dict() == {}
    fresh = POSITIONAL_ENCODINGS[pos_enc](6, 8, 2)
    fresh.load_state_dict(module.state_dict(), strict=True)


def test_learned_encoding_adds_its_table_row_by_position():
    torch.manual_seed(0)
    learned = POSITIONAL_ENCODINGS["learned"](8, 4, 2)
    x = torch.randn(3, 5, 4)  # shorter than the table: the first 5 rows
    assert torch.equal(learned(x), x + learned.table.weight[:5])


def test_learned_encoding_builds_its_positions_on_the_input_device():
    """The positions live where the input does, whatever torch's default device: under a default
    device of "meta" (as torch.set_default_device would set it) a CPU model on a CPU input still adds
    its table. Positions made on the default device do not index it."""
    torch.manual_seed(0)
    learned = POSITIONAL_ENCODINGS["learned"](8, 4, 2)
    x = torch.randn(3, 5, 4)
    expected = x + learned.table.weight[:5]
    with torch.device("meta"):
        out = learned(x)
    assert torch.equal(out, expected)


def test_every_positional_encoding_passes_its_arguments_up_the_class_chain():
    """The variants call super().__init__(seq_len, d_model, heads) cooperatively: a mixin placed
    between a variant and the base class (a composite variant) gets the same arguments."""

    class Recorder(NoPositionalEncoding):
        def __init__(self, seq_len, d_model, heads):
            super().__init__(seq_len, d_model, heads)
            self.seen = (seq_len, d_model, heads)

    for name, variant in POSITIONAL_ENCODINGS.items():
        if variant is NoPositionalEncoding:
            continue
        composite = type(f"Recorded{variant.__name__}", (variant, Recorder), {})
        assert composite.__mro__.index(Recorder) == 2  # right after the variant itself
        assert composite(6, 8, 2).seen == (6, 8, 2), name


def test_a_registrar_maps_each_name_to_its_class_and_refuses_a_second_one():
    registry = {}
    register = registrar(registry, "toy variant")

    class A:
        pass

    class B:
        pass

    assert register("a")(A) is A  # the decorator hands the class back unchanged
    assert registry == {"a": A}
    with pytest.raises(ValueError) as err:
        register("a")(B)
    assert str(err.value) == "toy variant 'a' is registered twice"
    assert registry == {"a": A}  # the first registration stands


def test_the_reference_encoding_is_the_registered_sinusoidal_table():
    """The overview figure's encoding: a registered positional encoding's name and exactly the
    table that variant adds to the input."""
    name, table = reference_encoding(10, 6)
    assert name in POSITIONAL_ENCODINGS
    assert torch.equal(table, POSITIONAL_ENCODINGS[name](10, 6, 2).pe)
    assert torch.equal(table, sinusoidal_encoding(10, 6)) and table.shape == (10, 6)


@pytest.mark.parametrize("norm", list(NORMS))
@pytest.mark.parametrize("pos_enc", ["rope", "alibi"])
def test_each_norm_placement_hands_position_and_mask_to_the_attention(norm, pos_enc):
    """Post-norm: x = LN1(x + Attn(x)), LN2(x + FF(x)); pre-norm (Xiong et al.): x + Attn(LN1(x)),
    then x + FF(LN2(x)). Attention gets the positional encoding (rope turns q and k, alibi biases
    the logits) and the mask in both; written out here from the block's parts."""
    torch.manual_seed(0)
    block = EncoderBlock(8, 2, 16, norm).eval()
    position, mask = POSITIONAL_ENCODINGS[pos_enc](5, 8, 2), ATTENTION_MASKS["causal"]()
    x = torch.randn(3, 5, 8)

    def ff(h):
        return block.linear2(F.relu(block.linear1(h)))

    def attn(h):
        return block.self_attn(h, position, mask)

    if norm == "pre":
        h = x + attn(block.norm1(x))
        expected = h + ff(block.norm2(h))
    else:
        h = block.norm1(x + attn(x))
        expected = block.norm2(h + ff(h))
    with torch.no_grad():
        out = block(x, position, mask)
        assert torch.allclose(out, expected, atol=1e-6)
        assert (out - block(x, None, mask)).abs().max() > 1e-3  # the encoding does change the block


def _classifier(kind: str, **kw):
    """A small classifier of either kind; keyword arguments override its settings."""
    if kind == "encoder":
        args = dict(d_model=8, heads=2, depth=1, ff=16, norm="post", head_hidden=8, seq_len=5, pos_enc="none")
        args.update(kw)
        return OrderClassifier(**args)
    args = dict(d_model=8, heads=2, head_hidden=8, seq_len=5, pos_enc="none")
    args.update(kw)
    return TinyAttnClassifier(**args)


@pytest.mark.parametrize("kind", ["encoder", "attention_only"])
def test_classifiers_default_to_bidirectional_attention_without_dropout(kind):
    torch.manual_seed(0)
    model = _classifier(kind).train()  # training mode: dropout, if any, would act
    assert type(model.mask) is ATTENTION_MASKS["bidirectional"]
    x = torch.randn(4, 5, 8)
    assert torch.equal(model(x), model(x)) and torch.equal(model(x), model.eval()(x))


@pytest.mark.parametrize("kind", ["encoder", "attention_only"])
def test_classifiers_pass_dropout_to_their_attention(kind):
    """dropout drops attention weights while training, in the attention-only model's one layer too."""
    torch.manual_seed(0)
    model = _classifier(kind, dropout=0.5).train()
    x = torch.randn(4, 5, 8)
    assert not torch.equal(model(x), model.eval()(x))


@pytest.mark.parametrize("kind", ["encoder", "attention_only"])
@pytest.mark.parametrize("setting,registry", [("pos_enc", POSITIONAL_ENCODINGS), ("attn_mask", ATTENTION_MASKS)])
def test_classifiers_name_the_setting_of_an_unknown_variant(kind, setting, registry):
    with pytest.raises(ValueError) as err:
        _classifier(kind, **{setting: "sideways"})
    assert str(err.value) == f"{setting} must be one of {', '.join(registry)}; got 'sideways'"


def test_the_encoder_classifier_names_an_unknown_norm_even_without_blocks():
    """With depth 0 no block looks the placement up: the final-norm decision does, and says so."""
    with pytest.raises(ValueError) as err:
        _classifier("encoder", depth=0, norm="sideways")
    assert str(err.value) == f"norm must be one of {', '.join(NORMS)}; got 'sideways'"


@pytest.mark.parametrize("norm", list(NORMS))
def test_an_encoder_block_drops_attention_weights_too(norm):
    """As in nn.TransformerEncoderLayer, dropout acts inside the attention (on its weights) as well
    as on the two branches: the block's attention layer alone differs between training and eval."""
    torch.manual_seed(0)
    block = EncoderBlock(8, 2, 16, norm, dropout=0.5).train()
    x = torch.randn(4, 5, 8)
    assert not torch.equal(block.self_attn(x), block.self_attn.eval()(x))


@pytest.mark.parametrize("pos_enc", list(POSITIONAL_ENCODINGS))
def test_attention_moves_its_mask_to_the_input_device(pos_enc):
    """The causal mask is built once on the CPU and cached; attention moves the logits' bias to the
    input's device. On the meta device (shapes only, no GPU needed) a layer would otherwise mix a
    CPU mask with meta queries and fail: ALiBi's table (on the model's device) plus the CPU mask did,
    before the mask was moved first."""
    attn = MultiHeadSelfAttention(8, 2).to("meta")
    position = POSITIONAL_ENCODINGS[pos_enc](5, 8, 2).to("meta")
    out = attn(torch.empty(3, 5, 8, device="meta"), position, ATTENTION_MASKS["causal"]())
    assert out.device.type == "meta" and out.shape == (3, 5, 8)


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16])
@pytest.mark.parametrize("attn_mask", list(ATTENTION_MASKS))
@pytest.mark.parametrize("pos_enc", list(POSITIONAL_ENCODINGS))
def test_attention_gives_sdpa_a_float_mask_of_the_querys_type(pos_enc, attn_mask, dtype, monkeypatch):
    """SDPA's documented contract: a float attn_mask has the query's type. The CPU promotes another
    type silently (the same numbers), a GPU's fused kernels do not; so the real SDPA is called here
    with a check of what it is given, in a model turned to another float type."""
    given = []

    def checked(q, k, v, attn_mask=None, **kwargs):
        given.append((q.dtype, None if attn_mask is None else attn_mask.dtype))
        return sdpa(q, k, v, attn_mask=attn_mask, **kwargs)

    sdpa = F.scaled_dot_product_attention
    monkeypatch.setattr(F, "scaled_dot_product_attention", checked)
    attn = MultiHeadSelfAttention(8, 2).to(dtype)
    position = POSITIONAL_ENCODINGS[pos_enc](5, 8, 2).to(dtype)
    out = attn(torch.randn(3, 5, 8, dtype=dtype), position, ATTENTION_MASKS[attn_mask]())
    assert out.dtype == dtype and len(given) == 1
    q_dtype, mask_dtype = given[0]
    assert q_dtype == dtype and mask_dtype in (None, torch.bool, dtype)


def test_alibi_attention_on_a_shorter_input_uses_the_tables_top_left_corner():
    """A sequence shorter than seq_len gets the bias of its own length: the same attention as with a
    table built for that length."""
    torch.manual_seed(0)
    attn = MultiHeadSelfAttention(8, 2)
    x = torch.randn(3, 5, 8)
    long, exact = POSITIONAL_ENCODINGS["alibi"](7, 8, 2), POSITIONAL_ENCODINGS["alibi"](5, 8, 2)
    assert torch.equal(attn(x, long), attn(x, exact))


@pytest.mark.parametrize("arch", ["encoder", "attention_only"])
def test_build_model_passes_dropout_on(arch):
    s = Settings(arch=arch, dropout=0.5)
    torch.manual_seed(0)
    model = build_model(s).train()
    x = torch.randn(4, s.seq_len, s.d_model)
    assert not torch.equal(model(x), model.eval()(x))


_T5_DECODER = dict(arch="decoder", attn_mask="causal", task="repeat_copy", task_settings={"anchor": True, "vocab": 10},
                   pos_enc="t5", d_model=32, heads=4, depth=2, ff=64, seq_len=8, norm="pre")  # fmt: skip


def _built(**settings) -> torch.nn.Module:
    torch.manual_seed(0)
    return build_model(Settings(**{**_T5_DECODER, **settings}))


def test_unscaled_attention_reads_t5s_logits_q_k_and_starts_where_the_scaled_one_does():
    scaled, unscaled = _built(), _built(attn_scale="none")
    x = torch.randint(0, 10, (3, 11))
    scaled.eval(), unscaled.eval()
    with torch.no_grad():  # the query's initial weights shrunk by d_head^-0.5 stand in for the scale
        assert torch.allclose(scaled(x), unscaled(x), atol=1e-5)
    attention = next(m for m in unscaled.modules() if isinstance(m, MultiHeadSelfAttention))
    d_head = attention.d_head
    q, k, v = (torch.randn(1, 4, 5, d_head) for _ in range(3))
    by_hand = torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v  # T5: no 1 / sqrt(d_head)
    assert torch.allclose(F.scaled_dot_product_attention(q, k, v, scale=attention.scale), by_hand, atol=1e-6)
    # the two differ once trained: the same step moves an unscaled query's logits sqrt(d_head) times as far
    assert attention.scale == 1.0 and all(
        m.scale is None for m in scaled.modules() if isinstance(m, MultiHeadSelfAttention)
    )


def test_t5_bias_std_rescales_the_drawn_table_and_moves_no_other_draw():
    default, paper = _built(), _built(t5_bias_std=768**-0.5)
    table, rescaled = default.pos_enc.relative_attention_bias.weight, paper.pos_enc.relative_attention_bias.weight
    assert torch.allclose(rescaled, table * (768**-0.5 / 32**-0.5))
    others = [(n, p) for n, p in default.named_parameters() if "relative_attention_bias" not in n]
    assert others and all(torch.equal(p, dict(paper.named_parameters())[n]) for n, p in others)


def test_the_paper_model_settings_stay_out_of_a_runs_hash_at_their_defaults():
    plain = Settings(**_T5_DECODER)
    assert Settings(**_T5_DECODER, attn_scale="sqrt_dh", t5_bias_std=None).to_json() == plain.to_json()
    assert "attn_scale" in Settings(**_T5_DECODER, attn_scale="none").to_json()
    assert "t5_bias_std" in Settings(**_T5_DECODER, t5_bias_std=0.036).to_json()
