"""The models: multi-head self-attention, the encoder block, the two classifiers, the causal decoder,
and the registries of their variants.

Every parameter is named, shaped and initialised like its torch counterpart, so weights copy over
with ``load_state_dict`` (see ablation.checks) and, under the same ``torch.manual_seed``, our
modules start from exactly the weights the lesson's nn.MultiheadAttention /
nn.TransformerEncoderLayer versions would.

A model variant is a small class registered under the name the config uses:

- POSITIONAL_ENCODINGS (setting ``pos_enc``): how position enters the model (``position_encoding``
  builds one for a model and its mask);
- ATTENTION_MASKS (setting ``attn_mask``): which keys each query may attend to;
- NORMS (setting ``norm``): where the LayerNorms sit in an encoder block.

A positional encoding is built for the positions its tables cover (``positions``: the run's setting
of that name, or the positions its trained lengths occupy, ablation.architectures) and takes inputs
of any length. Its fixed tables are functions of position: past the stored rows they are computed,
and their prefix is the stored table bit for bit. A learned table has no row past its own: those
positions get no position vector (zeros).

The schema lists the built-in names of those settings as their examples (tests/unit/test_variants.py
keeps them equal to the registries), and everything else (plots, report, tests that loop over
variants) reads them from the config or from here. A variant of one's own is a class registered
with the same decorator in a plugin module that the config lists under ``plugins``
(ablation.plugins): nothing here changes.
"""

from __future__ import annotations

import functools
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .registry import lookup, registrar

POSITIONAL_ENCODINGS: dict[str, type[nn.Module]] = {}
ATTENTION_MASKS: dict[str, type] = {}
NORMS: dict[str, type] = {}


positional_encoding = registrar(POSITIONAL_ENCODINGS, "positional encoding")
attention_mask = registrar(ATTENTION_MASKS, "attention mask")
norm_placement = registrar(NORMS, "norm placement")


# --- positional encodings ----------------------------------------------------------------------
#
# A positional encoding may act in two places: on the input (``forward``: x -> x + PE) and inside
# every attention layer (``rotate`` on queries and keys, ``bias`` on the attention logits). The
# base class does nothing in either place; each variant overrides where it acts.


@positional_encoding("none")
class NoPositionalEncoding(nn.Module):
    """No position information: a bidirectional model is then blind to order."""

    sees_order = False
    causal = False  # whether the model attends under the causal mask (``position_encoding`` sets it)

    def __init__(self, positions: int, d_model: int, heads: int):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: [B, T, D]
        return x

    def rotate(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # [B, H, T, dh]
        return q, k

    def bias(self, T: int) -> torch.Tensor | None:  # [H, T, T] added to the attention logits
        return None


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


def reference_encoding(T: int, D: int) -> tuple[str, torch.Tensor]:
    """(name, [T, D] table) of the encoding the overview figure shows: the lesson's formula."""
    return "sinusoidal", sinusoidal_encoding(T, D)


@positional_encoding("sinusoidal")
class Sinusoidal(NoPositionalEncoding):
    """The 2017 paper's fixed encoding (``sinusoidal_encoding``), added to the input."""

    sees_order = True

    def __init__(self, positions: int, d_model: int, heads: int):
        super().__init__(positions, d_model, heads)
        self.register_buffer("pe", sinusoidal_encoding(positions, d_model))  # [positions, D]

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: [B, T, D]
        T, D = x.shape[1:]
        pe = self.pe[:T] if T <= len(self.pe) else sinusoidal_encoding(T, D).to(x.device)  # [T, D]
        return x + pe


@positional_encoding("learned")
class Learned(NoPositionalEncoding):
    """A trained table of one vector per position (BERT, GPT-2), added to the input; initialised
    like nn.Embedding, N(0, 1)."""

    sees_order = True

    def __init__(self, positions: int, d_model: int, heads: int):
        super().__init__(positions, d_model, heads)
        self.table = nn.Embedding(positions, d_model)  # weight [positions, D]

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: [B, T, D]
        T, rows = x.shape[1], self.table.num_embeddings
        pe = self.table(torch.arange(min(T, rows), device=x.device))  # [min(T, rows), D]
        if T > rows:  # positions past the table have no row: no position vector
            pe = F.pad(pe, (0, 0, 0, T - rows))
        return x + pe


@positional_encoding("rope")
class Rotary(NoPositionalEncoding):
    """Rotary position embedding (Su et al. 2021), GPT-NeoX layout: inside every attention layer, the
    first and second halves of each head's query and key are the two coordinates of dh/2 planes,
    plane i turned by the angle pos / 10000^(2i/dh). Then q_s . k_t depends on s - t only.
    Nothing is added to the input and nothing is trained."""

    sees_order = True

    def __init__(self, positions: int, d_model: int, heads: int):
        super().__init__(positions, d_model, heads)
        d_head = d_model // heads
        if d_head % 2:
            raise ValueError(f"pos_enc rope needs an even head dimension; d_model {d_model} / heads {heads} = {d_head}")
        cos, sin = self.tables(positions, d_head)
        # fixed tables, not parameters: kept out of the state_dict (and so out of params_sha256)
        self.register_buffer("cos", cos, persistent=False)  # [positions, dh]
        self.register_buffer("sin", sin, persistent=False)

    @staticmethod
    def tables(T: int, d_head: int) -> tuple[torch.Tensor, torch.Tensor]:
        """(cos, sin) [T, dh] of the angles pos / 10000^(2i/dh), in float64, rounded once to float32."""
        half = d_head // 2
        inv_freq = 10000.0 ** (-torch.arange(half, dtype=torch.float64) / half)  # [dh/2]
        angles = torch.arange(T, dtype=torch.float64).unsqueeze(1) * inv_freq  # [T, dh/2]
        return angles.cos().float().repeat(1, 2), angles.sin().float().repeat(1, 2)

    def rotate_fraction(self, fraction: float) -> None:
        """Rotate only the first ``fraction`` of each head's dimensions (GPT-J's rotary_dim, in this
        layout: a fixed permutation of GPT-J's interleaved pairs, which the learned projections absorb);
        the rest pass unrotated."""
        d_head = self.cos.shape[1]
        rotated = 2 * round(fraction * d_head / 2)
        if rotated < 2:
            raise ValueError(f"rope_fraction {fraction:g} of a head dimension of {d_head} rotates no plane")
        cos, sin = self.tables(len(self.cos), rotated)
        self.register_buffer("cos", cos, persistent=False)  # [positions, rotated]
        self.register_buffer("sin", sin, persistent=False)

    def rotate(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # [B, H, T, dh]
        T, r = q.shape[2], self.cos.shape[1]
        if T <= len(self.cos):
            cos, sin = self.cos[:T], self.sin[:T]
        else:
            cos, sin = (t.to(q.device) for t in self.tables(T, r))
        if r < q.shape[-1]:  # a fraction rotated: the rest passes through
            (q, q_pass), (k, k_pass) = q.split([r, q.shape[-1] - r], -1), k.split([r, k.shape[-1] - r], -1)
            q, k = self._turn(q, k, cos, sin)
            return torch.cat((q, q_pass), -1), torch.cat((k, k_pass), -1)
        return self._turn(q, k, cos, sin)

    def _turn(self, q, k, cos, sin) -> tuple[torch.Tensor, torch.Tensor]:
        return q * cos + self._rotate_half(q) * sin, k * cos + self._rotate_half(k) * sin

    @staticmethod
    def _rotate_half(x: torch.Tensor) -> torch.Tensor:  # (x1, x2) -> (-x2, x1), halves of the last dim
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)


@positional_encoding("alibi")
class ALiBi(NoPositionalEncoding):
    """Attention with linear biases (Press et al. 2022): head h adds -m_h |s - t| to the logit of query
    s and key t, with slopes m_h = 2^(-8 (h+1) / H). Symmetric in s - t, as bidirectional encoders
    use it (MosaicBERT); under the causal mask it is the paper's bias. Nothing is trained.

    The symmetric bias tells distance but not direction: a bidirectional model with it gives a
    sequence and its mirror image the same logit."""

    sees_order = True

    def __init__(self, positions: int, d_model: int, heads: int):
        super().__init__(positions, d_model, heads)
        # a fixed table, not a parameter: kept out of the state_dict (and so out of params_sha256)
        self.register_buffer("table", self.biases(positions, heads), persistent=False)  # [H, positions, positions]

    @staticmethod
    def biases(T: int, heads: int) -> torch.Tensor:
        """[H, T, T]: -m_h |s - t|."""
        slopes = 2.0 ** (-8.0 * torch.arange(1, heads + 1) / heads)  # [H]
        pos = torch.arange(T)
        distance = (pos.unsqueeze(0) - pos.unsqueeze(1)).abs()  # [T, T]
        return -slopes.view(-1, 1, 1) * distance

    def bias(self, T: int) -> torch.Tensor:
        if T <= self.table.shape[-1]:
            return self.table[:, :T, :T]
        return self.biases(T, len(self.table)).to(self.table.device)


@positional_encoding("t5")
class T5RelativeBias(NoPositionalEncoding):
    """T5's relative position bias (Raffel et al. 2020, section 2.1): a learned scalar per head and per
    bucket of the distance between query s and key t, added to the attention logits; one table serves
    every layer, as in T5. Short distances get a bucket each, longer ones share log-spaced buckets up
    to ``max_distance``, and every distance past it shares the last. Bidirectional (an encoder's): half
    the buckets for keys behind the query, half for keys ahead; causal (``causal``, set by the model
    under the causal mask): every bucket for keys behind, as T5's decoder. Initialised N(0, d_model^-0.5)
    as Hugging Face's T5."""

    sees_order = True
    num_buckets, max_distance = 32, 128

    def __init__(self, positions: int, d_model: int, heads: int):
        super().__init__(positions, d_model, heads)
        self.relative_attention_bias = nn.Embedding(self.num_buckets, heads)  # weight [buckets, H]
        self.init_std = d_model**-0.5
        nn.init.normal_(self.relative_attention_bias.weight, std=self.init_std)

    @classmethod
    def buckets(cls, T: int, causal: bool) -> torch.Tensor:
        """[T, T] int64: the bucket of query s (row) and key t (column), from t - s as in T5."""
        pos = torch.arange(T)
        relative = pos.unsqueeze(0) - pos.unsqueeze(1)  # [T, T]: t - s, negative for keys behind
        n = cls.num_buckets
        if causal:  # keys ahead are masked: they share bucket 0 with the query's own position
            offset, distance = torch.zeros_like(relative), (-relative).clamp(min=0)
        else:
            n //= 2
            offset, distance = (relative > 0).long() * n, relative.abs()
        exact = n // 2
        log_ratio = torch.log(distance.clamp(min=1).double() / exact) / math.log(cls.max_distance / exact)
        far = (exact + (log_ratio * (n - exact)).long()).clamp(max=n - 1)
        return offset + torch.where(distance < exact, distance, far)

    def rescale_bias(self, std: float) -> None:
        """Redraw nothing: scale the initial table from N(0, d_model^-0.5) to N(0, std^2), so the other
        parameters' draws and the data stay where they were."""
        with torch.no_grad():
            self.relative_attention_bias.weight.mul_(std / self.init_std)
        self.init_std = std

    def bias(self, T: int) -> torch.Tensor:  # [H, T, T]
        index = self.buckets(T, self.causal).to(self.relative_attention_bias.weight.device)
        return self.relative_attention_bias(index).permute(2, 0, 1)  # [T, T, H] -> [H, T, T]


def position_encoding(name: str, positions: int, d_model: int, heads: int, mask) -> nn.Module:
    """The positional encoding ``name`` for ``positions`` positions, told whether the model's attention
    ``mask`` is causal (an encoding that reads direction, as T5's buckets, then spends nothing on keys
    ahead)."""
    encoding = lookup(POSITIONAL_ENCODINGS, name, "pos_enc")(positions, d_model, heads)
    encoding.causal = isinstance(mask, Causal)
    return encoding


# --- attention masks ---------------------------------------------------------------------------


@attention_mask("bidirectional")
class Bidirectional:
    """Every query attends to every key (an encoder's attention, the lesson's)."""

    sees_order = False

    def __call__(self, T: int) -> torch.Tensor | None:  # [T, T] added to the attention logits
        return None


@attention_mask("causal")
class Causal(Bidirectional):
    """Query s attends to keys t <= s only (a decoder's mask). The prefix a position sees grows with
    it, so even without positional encoding the model can tell positions apart (Haviv et al. 2022)."""

    sees_order = True

    def __call__(self, T: int) -> torch.Tensor:
        return _causal_mask(T)


@functools.cache  # built once per length and shared by every layer and step; no benchmark section times it
def _causal_mask(T: int) -> torch.Tensor:
    with torch.inference_mode(False):  # a normal tensor even when first built during evaluation
        return torch.full((T, T), -math.inf).triu(1)  # 0 on and below the diagonal, -inf above


# --- the layers --------------------------------------------------------------------------------


def check_heads(d_model: int, heads: int) -> None:
    if heads < 1 or d_model % heads:
        raise ValueError(f"heads ({heads}) must be a positive divisor of d_model ({d_model})")


class MultiHeadSelfAttention(nn.Module):
    """Self-attention with ``heads`` heads of d_model // heads dims each, batch first.

    Same parameters as nn.MultiheadAttention(d_model, heads): ``in_proj_weight`` [3D, D] (the
    query, key and value projections stacked), ``in_proj_bias`` [3D] and ``out_proj``. All heads
    run at once on [B, H, T, d_head] tensors, through F.scaled_dot_product_attention: the same
    softmax(Q K^T / sqrt(d_head) + mask) V as the lesson's explicit matmuls (within 1e-6), and what
    nn.MultiheadAttention itself calls. ``position`` (a positional encoding) may rotate queries and
    keys and add a bias to the logits; ``mask`` (an attention mask) adds -inf where a query may not
    look; ``dropout`` drops attention weights while training.
    """

    def __init__(self, d_model: int, heads: int, dropout: float = 0.0):
        super().__init__()
        check_heads(d_model, heads)
        self.d_model, self.heads, self.d_head = d_model, heads, d_model // heads
        self.dropout = dropout
        self.scale = None  # of the logits q k; None is 1 / sqrt(d_head)
        self.in_proj_weight = nn.Parameter(torch.empty(3 * d_model, d_model))
        self.in_proj_bias = nn.Parameter(torch.empty(3 * d_model))
        self.out_proj = nn.Linear(d_model, d_model)  # created (and initialised) first, as in torch
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.xavier_uniform_(self.in_proj_weight)
        nn.init.zeros_(self.in_proj_bias)
        nn.init.zeros_(self.out_proj.bias)

    def unscale(self) -> None:
        """T5's attention: logits q k unscaled, the query projection's initial weights shrunk by
        d_head^-0.5 instead (Mesh TensorFlow's initialisation), so the first step reads the same
        logits and only the training dynamics differ."""
        self.scale = 1.0
        with torch.no_grad():
            self.in_proj_weight[: self.d_model].mul_(self.d_head**-0.5)

    def forward(self, x: torch.Tensor, position: nn.Module | None = None, mask=None) -> torch.Tensor:
        B, T, D = x.shape
        H, dh = self.heads, self.d_head
        # three projections (rows of in_proj_weight): each [B, T, D] -> [B, H, T, dh], a view
        q, k, v = (
            F.linear(x, w, b).view(B, T, H, dh).transpose(1, 2)
            for w, b in zip(self.in_proj_weight.chunk(3), self.in_proj_bias.chunk(3))
        )
        bias = None  # [H, T, T] or [T, T]: added to the logits; None keeps the plain kernel
        if position is not None:
            q, k = position.rotate(q, k)
            bias = position.bias(T)
        blocked = mask(T) if mask is not None else None  # [T, T]: -inf where a query may not look
        if blocked is not None:
            bias = blocked if bias is None else bias + blocked.to(bias.device)  # the mask is cached on the CPU
        if bias is not None:
            bias = bias.to(device=x.device, dtype=q.dtype)
        p = self.dropout if self.training else 0.0
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, dropout_p=p, scale=self.scale)  # [B, H, T, dh]
        out = out.transpose(1, 2).reshape(B, T, D)  # heads concatenated again
        return self.out_proj(out)


# --- norm placements ---------------------------------------------------------------------------
#
# A placement is the forward pass of an encoder block (whose LayerNorms are ``norm1``, ``norm2``)
# and whether the classifier normalises the last block's output once more.


@norm_placement("post")
class PostNorm:
    """Post-norm (2017 paper, the lesson): LayerNorm after each residual add."""

    final_norm = False

    @staticmethod
    def forward(block: "EncoderBlock", x: torch.Tensor, position=None, mask=None) -> torch.Tensor:
        x = block.norm1(x + block.attn(x, position, mask))  # x: [B, T, D]
        return block.norm2(x + block.ff(x))


@norm_placement("pre")
class PreNorm:
    """Pre-norm (Xiong et al. 2020): LayerNorm before each sublayer, the residual path untouched,
    so the classifier adds a final LayerNorm."""

    final_norm = True

    @staticmethod
    def forward(block: "EncoderBlock", x: torch.Tensor, position=None, mask=None) -> torch.Tensor:
        x = x + block.attn(block.norm1(x), position, mask)  # x: [B, T, D]
        return x + block.ff(block.norm2(x))


class EncoderBlock(nn.Module):
    """Attention and a per-position feed-forward network, each inside a residual connection, with
    the LayerNorms where the ``norm`` placement (NORMS) puts them.

    Laid out like nn.TransformerEncoderLayer(d_model, heads, ff, dropout, batch_first=True,
    norm_first=(norm == 'pre')), so its state_dict loads as is.
    """

    def __init__(self, d_model: int, heads: int, ff: int, norm: str = "post", dropout: float = 0.0):
        super().__init__()
        self.placement = lookup(NORMS, norm, "norm")
        self.self_attn = MultiHeadSelfAttention(d_model, heads, dropout)
        self.linear1 = nn.Linear(d_model, ff)
        self.linear2 = nn.Linear(ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)  # on the attention branch
        self.dropout2 = nn.Dropout(dropout)  # on the feed-forward branch

    def attn(self, x: torch.Tensor, position=None, mask=None) -> torch.Tensor:
        return self.dropout1(self.self_attn(x, position, mask))

    def ff(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout2(self.linear2(F.relu(self.linear1(x))))

    def forward(self, x: torch.Tensor, position=None, mask=None) -> torch.Tensor:  # x: [B, T, D]
        return self.placement.forward(self, x, position, mask)


# --- the classifiers ---------------------------------------------------------------------------


def _mlp_head(d_model: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(d_model, hidden), nn.ReLU(), nn.Linear(hidden, 1))


class TinyAttnClassifier(nn.Module):
    """The lesson's model (arch 'attention_only'): one attention layer, no residual, norm or FF.

    ``blocks`` holds that single attention layer (layer 0 of the per-layer gradient norms).
    """

    def __init__(
        self, d_model: int, heads: int, head_hidden: int, seq_len: int, pos_enc: str,
        attn_mask: str = "bidirectional", dropout: float = 0.0,
    ):  # fmt: skip
        super().__init__()
        self.mask = lookup(ATTENTION_MASKS, attn_mask, "attn_mask")()
        self.pos_enc = position_encoding(pos_enc, seq_len, d_model, heads, self.mask)
        self.blocks = nn.ModuleList([MultiHeadSelfAttention(d_model, heads, dropout)])
        self.head = _mlp_head(d_model, head_hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: [B, T, D] -> logits [B]
        x = self.pos_enc(x)
        x = self.blocks[0](x, self.pos_enc, self.mask)
        return self.head(x.mean(dim=1)).squeeze(-1)  # mean-pool over positions, then the MLP


class OrderClassifier(nn.Module):
    """arch 'encoder': PE, ``depth`` encoder blocks (+ a final LayerNorm for pre-norm), mean-pool, head."""

    def __init__(
        self, d_model: int, heads: int, depth: int, ff: int, norm: str, head_hidden: int, seq_len: int,
        pos_enc: str, attn_mask: str = "bidirectional", dropout: float = 0.0,
    ):  # fmt: skip
        super().__init__()
        self.mask = lookup(ATTENTION_MASKS, attn_mask, "attn_mask")()
        self.pos_enc = position_encoding(pos_enc, seq_len, d_model, heads, self.mask)
        self.blocks = nn.ModuleList(EncoderBlock(d_model, heads, ff, norm, dropout) for _ in range(depth))
        self.final_norm = nn.LayerNorm(d_model) if lookup(NORMS, norm, "norm").final_norm else None
        self.head = _mlp_head(d_model, head_hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: [B, T, D] -> logits [B]
        x = self.pos_enc(x)
        for block in self.blocks:
            x = block(x, self.pos_enc, self.mask)
        if self.final_norm is not None:
            x = self.final_norm(x)
        return self.head(x.mean(dim=1)).squeeze(-1)  # mean-pool over positions, then the MLP


# --- the decoder -------------------------------------------------------------------------------


class CausalDecoder(nn.Module):
    """arch 'decoder': token embedding, PE, ``depth`` blocks under the causal mask (+ a final LayerNorm
    for pre-norm), a language-model head: the logits of the next token at every position (nanoGPT's
    layout, with this module's blocks and variants)."""

    def __init__(
        self, vocab: int, d_model: int, heads: int, depth: int, ff: int, norm: str, positions: int, pos_enc: str,
        attn_mask: str = "causal", dropout: float = 0.0,
    ):  # fmt: skip
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.mask = lookup(ATTENTION_MASKS, attn_mask, "attn_mask")()
        self.pos_enc = position_encoding(pos_enc, positions, d_model, heads, self.mask)
        self.blocks = nn.ModuleList(EncoderBlock(d_model, heads, ff, norm, dropout) for _ in range(depth))
        self.final_norm = nn.LayerNorm(d_model) if lookup(NORMS, norm, "norm").final_norm else None
        self.lm_head = nn.Linear(d_model, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:  # tokens: [B, T] int64 -> logits [B, T, V]
        x = self.pos_enc(self.embed(tokens))  # [B, T, D]
        for block in self.blocks:
            x = block(x, self.pos_enc, self.mask)
        if self.final_norm is not None:
            x = self.final_norm(x)
        return self.lm_head(x)

    @torch.no_grad()
    def generate(self, prompt: torch.Tensor, steps: int) -> torch.Tensor:  # prompt: [B, P] -> [B, steps]
        """Greedy decoding: ``steps`` times, append the most likely next token."""
        tokens = prompt
        for _ in range(steps):
            logits = self(tokens)[:, -1]  # [B, V]: the next token's
            tokens = torch.cat([tokens, logits.argmax(dim=-1, keepdim=True)], dim=1)
        return tokens[:, prompt.shape[1] :]
