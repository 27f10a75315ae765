"""Each model equals the same computation written with torch's own modules, with every weight (LayerNorm
and biases included) drawn at random, so that no default value hides a bug; the sinusoidal table is its
float64 formula rounded once; bad arguments name themselves.
"""

import pytest
import torch
import torch.nn as nn

from ablation.architectures import build_model
from ablation.model import EncoderBlock, sinusoidal_encoding
from ablation.settings import Settings


def test_sinusoidal_encoding_is_the_float64_formula_rounded_once():
    T, D = 32, 16
    pos = torch.arange(T, dtype=torch.float64)[:, None]
    expected = torch.empty(T, D, dtype=torch.float64)
    for i in range(0, D, 2):
        expected[:, i] = torch.sin(pos[:, 0] / 10000 ** (i / D))
        expected[:, i + 1] = torch.cos(pos[:, 0] / 10000 ** (i / D))
    assert torch.equal(sinusoidal_encoding(T, D), expected.float())  # bit for bit


def _randomise(model: nn.Module, seed: int = 1) -> None:
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.5)  # LayerNorm weights not 1, biases not 0


def _reference(model: nn.Module, s: Settings, x: torch.Tensor) -> torch.Tensor:
    """The model's forward pass written with torch's modules, loaded with the model's weights."""
    if s.pos_enc == "sinusoidal":
        x = x + sinusoidal_encoding(s.seq_len, s.d_model)
    for block in model.blocks:
        if s.arch == "attention_only":
            ref = nn.MultiheadAttention(s.d_model, s.heads, batch_first=True)
            ref.load_state_dict(block.state_dict())
            x = ref(x, x, x, need_weights=False)[0]
        else:
            ref = nn.TransformerEncoderLayer(s.d_model, s.heads, s.ff, dropout=0.0, batch_first=True,
                                             norm_first=s.norm == "pre")  # fmt: skip
            ref.load_state_dict(block.state_dict())
            x = ref(x)
    if s.arch == "encoder" and s.norm == "pre":
        ln = nn.LayerNorm(s.d_model)
        ln.load_state_dict(model.final_norm.state_dict())
        x = ln(x)
    head = nn.Sequential(nn.Linear(s.d_model, s.head_hidden), nn.ReLU(), nn.Linear(s.head_hidden, 1))
    head.load_state_dict(model.head.state_dict())
    return head(x.mean(dim=1)).squeeze(-1)


@pytest.mark.parametrize(
    "arch, norm, pos_enc",
    [("attention_only", "post", "sinusoidal"), ("attention_only", "post", "none"), ("encoder", "post", "sinusoidal"),
     ("encoder", "pre", "sinusoidal"), ("encoder", "pre", "none")],
)  # fmt: skip
def test_model_equals_its_torch_reference(arch, norm, pos_enc):
    s = Settings(arch=arch, norm=norm, pos_enc=pos_enc, depth=2, heads=4, seq_len=6)
    torch.manual_seed(0)
    model = build_model(s)
    _randomise(model)
    x = torch.randn(5, s.seq_len, s.d_model, generator=torch.Generator().manual_seed(2))
    out = model(x)
    assert out.shape == (5,)
    # with gradients on, torch takes its plain (not the fused inference) path
    torch.testing.assert_close(out, _reference(model, s, x), rtol=1e-5, atol=1e-5)


def test_encoder_block_is_post_norm_by_default():
    torch.manual_seed(0)
    default = EncoderBlock(16, 4, 32)
    torch.manual_seed(0)
    post = EncoderBlock(16, 4, 32, "post")
    _randomise(default), _randomise(post)
    x = torch.randn(2, 5, 16)
    assert torch.equal(default(x), post(x))


def test_bad_model_arguments_name_themselves():
    with pytest.raises(ValueError, match="norm .*'mid'"):
        EncoderBlock(16, 4, 32, norm="mid")
    with pytest.raises(ValueError, match="arch .*'bogus'"):
        build_model(Settings(arch="bogus"))
    with pytest.raises(ValueError, match="pos_enc .*'bogus'"):
        build_model(Settings(pos_enc="bogus"))
