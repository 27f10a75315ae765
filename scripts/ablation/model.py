"""The models: multi-head self-attention, the encoder block, and the two order classifiers.

Every parameter is named, shaped and initialised like its torch counterpart, so weights copy over
with ``load_state_dict`` (see ablation.checks) and, under the same ``torch.manual_seed``, our
modules start from exactly the weights the lesson's nn.MultiheadAttention /
nn.TransformerEncoderLayer versions would.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


def sinusoidal_encoding(T: int, D: int) -> torch.Tensor:
    """PE[pos, 2i] = sin(pos / 10000^(2i/D)), PE[pos, 2i+1] = cos(pos / 10000^(2i/D)); [T, D] float32.

    For odd D the last column is a sine. Computed in float64, then rounded once to float32.
    """
    pos = torch.arange(T, dtype=torch.float64).unsqueeze(1)
    two_i = (torch.arange(D) // 2 * 2).to(torch.float64)  # 2i for both columns 2i and 2i+1
    angles = pos / 10000.0 ** (two_i / D)
    pe = torch.empty(T, D, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angles[:, 0::2])
    pe[:, 1::2] = torch.cos(angles[:, 1::2])
    return pe.float()


def _check_heads(d_model: int, heads: int) -> None:
    if heads < 1 or d_model % heads:
        raise ValueError(f"heads ({heads}) must be a positive divisor of d_model ({d_model})")


class MultiHeadSelfAttention(nn.Module):
    """Self-attention with ``heads`` heads of d_model // heads dims each, batch first.

    Same parameters as nn.MultiheadAttention(d_model, heads): ``in_proj_weight`` [3D, D] (the
    query, key and value projections stacked), ``in_proj_bias`` [3D] and ``out_proj``. All heads
    run at once on [B, H, T, d_head] tensors, through F.scaled_dot_product_attention: the same
    softmax(Q K^T / sqrt(d_head)) V as the lesson's explicit matmuls (within 1e-6), but measured
    faster on the CPU for this task's shapes, and what nn.MultiheadAttention itself calls.
    """

    def __init__(self, d_model: int, heads: int):
        super().__init__()
        _check_heads(d_model, heads)
        self.d_model, self.heads, self.d_head = d_model, heads, d_model // heads
        self.in_proj_weight = nn.Parameter(torch.empty(3 * d_model, d_model))
        self.in_proj_bias = nn.Parameter(torch.empty(3 * d_model))
        self.out_proj = nn.Linear(d_model, d_model)  # created (and initialised) first, as in torch
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.xavier_uniform_(self.in_proj_weight)
        nn.init.zeros_(self.in_proj_bias)
        nn.init.zeros_(self.out_proj.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, D = x.shape
        H, dh = self.heads, self.d_head
        # three projections (rows of in_proj_weight): each [B, T, D] -> [B, H, T, dh], a view
        q, k, v = (
            F.linear(x, w, b).view(B, T, H, dh).transpose(1, 2)
            for w, b in zip(self.in_proj_weight.chunk(3), self.in_proj_bias.chunk(3))
        )
        out = F.scaled_dot_product_attention(q, k, v)  # softmax(q k^T / sqrt(dh)) v, all heads at once
        out = out.transpose(1, 2).reshape(B, T, D)  # heads concatenated again
        return F.linear(out, self.out_proj.weight, self.out_proj.bias)


class EncoderBlock(nn.Module):
    """Attention and a per-position feed-forward network, each inside a residual connection.

    norm 'post' (2017 paper, the lesson): x = LN1(x + attn(x)); x = LN2(x + ff(x)).
    norm 'pre': x = x + attn(LN1(x)); x = x + ff(LN2(x)).
    Laid out like nn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.0, batch_first=True,
    norm_first=(norm == 'pre')), so its state_dict loads as is.
    """

    def __init__(self, d_model: int, heads: int, ff: int, norm: str = "post"):
        super().__init__()
        if norm not in ("post", "pre"):
            raise ValueError(f"norm must be 'post' or 'pre', got {norm!r}")
        self.norm_first = norm == "pre"
        self.self_attn = MultiHeadSelfAttention(d_model, heads)
        self.linear1 = nn.Linear(d_model, ff)
        self.linear2 = nn.Linear(ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)

    def _ff(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(F.linear(x, self.linear1.weight, self.linear1.bias))
        return F.linear(h, self.linear2.weight, self.linear2.bias)

    def _ln(self, ln: nn.LayerNorm, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, ln.normalized_shape, ln.weight, ln.bias, ln.eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.norm_first:
            x = x + self.self_attn(self._ln(self.norm1, x))
            return x + self._ff(self._ln(self.norm2, x))
        x = self._ln(self.norm1, x + self.self_attn(x))
        return self._ln(self.norm2, x + self._ff(x))


def _mlp_head(d_model: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(d_model, hidden), nn.ReLU(), nn.Linear(hidden, 1))


class _Classifier(nn.Module):
    """Shared by both classifiers: optional positional encoding, ``blocks``, mean-pool, MLP head."""

    def _init_pe(self, pos_enc: str, seq_len: int, d_model: int) -> None:
        if pos_enc not in ("none", "sinusoidal"):
            raise ValueError(f"pos_enc must be 'none' or 'sinusoidal', got {pos_enc!r}")
        self.use_pos_enc = pos_enc == "sinusoidal"
        if self.use_pos_enc:
            self.register_buffer("pe", sinusoidal_encoding(seq_len, d_model))

    def _pool_and_classify(self, x: torch.Tensor) -> torch.Tensor:
        h = x.mean(dim=1)
        fc1, _, fc2 = self.head
        h = F.relu(F.linear(h, fc1.weight, fc1.bias))
        return F.linear(h, fc2.weight, fc2.bias).squeeze(-1)


class TinyAttnClassifier(_Classifier):
    """The lesson's model (arch 'attention_only'): one attention layer, no residual, norm or FF.

    ``blocks`` holds that single attention layer (layer 0 of the per-layer gradient norms).
    """

    def __init__(self, d_model: int, heads: int, head_hidden: int, seq_len: int, pos_enc: str):
        super().__init__()
        self._init_pe(pos_enc, seq_len, d_model)
        self.blocks = nn.ModuleList([MultiHeadSelfAttention(d_model, heads)])
        self.head = _mlp_head(d_model, head_hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.use_pos_enc:
            x = x + self.pe
        return self._pool_and_classify(self.blocks[0](x))


class OrderClassifier(_Classifier):
    """arch 'encoder': PE, ``depth`` encoder blocks (+ a final LayerNorm for pre-norm), mean-pool, head."""

    def __init__(
        self, d_model: int, heads: int, depth: int, ff: int, norm: str, head_hidden: int, seq_len: int, pos_enc: str
    ):
        super().__init__()
        self._init_pe(pos_enc, seq_len, d_model)
        self.blocks = nn.ModuleList(EncoderBlock(d_model, heads, ff, norm) for _ in range(depth))
        self.final_norm = nn.LayerNorm(d_model) if norm == "pre" else None
        self.head = _mlp_head(d_model, head_hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.use_pos_enc:
            x = x + self.pe
        for block in self.blocks:
            x = block(x)
        if self.final_norm is not None:
            ln = self.final_norm
            x = F.layer_norm(x, ln.normalized_shape, ln.weight, ln.bias, ln.eps)
        return self._pool_and_classify(x)


def build_model(settings) -> nn.Module:
    """The model of one run's settings (initialised from torch's current random state)."""
    s = settings
    _check_heads(s.d_model, s.heads)
    if s.arch == "attention_only":
        return TinyAttnClassifier(s.d_model, s.heads, s.head_hidden, s.seq_len, s.pos_enc)
    if s.arch == "encoder":
        return OrderClassifier(s.d_model, s.heads, s.depth, s.ff, s.norm, s.head_hidden, s.seq_len, s.pos_enc)
    raise ValueError(f"unknown arch {s.arch!r} (expected 'attention_only' or 'encoder')")
