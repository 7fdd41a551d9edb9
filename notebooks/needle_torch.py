"""The Needle architecture as a PyTorch nn.Module.

It loads the state dicts the workbench writes (`needle-wb convert ... --to model.pt`, keys as in
the workbench's TORCH_KEYS convention) with `load_state_dict(..., strict=True)` and computes
full-sequence logits the way upstream `SimpleAttentionNetwork.__call__` does with quant=False:
causal mask, no window, no fake quantization, tied LM head. Row-vector convention: nn.Linear
weights are [out, in] and compute x @ W.T.

Computation runs in the dtype the module is in (`model.to(torch.float64)` for a reference,
float32 for speed); the engram hash is uint32 arithmetic done in int64 with & 0xFFFFFFFF.
Needs torch (Debian: python3-torch) only.
"""

import math
from dataclasses import dataclass

import torch
from torch import nn
import torch.nn.functional as F

EPS = 1e-6
ENGRAM_SEED = 0x9E3779B9
ENGRAM_PRIME = 0x01000193
UINT32 = 0xFFFFFFFF


@dataclass(frozen=True)
class NeedleConfig:
    """Geometry; defaults are the released Needle 2 (see `mini()` for the golden test model)."""

    vocab_size: int = 8192
    d_model: int = 512
    num_layers: int = 27
    num_heads: int = 8
    num_kv_heads: int = 4
    head_dim: int = 64
    rope_theta: float = 100000.0
    mhc_lanes: int = 4
    engram_layers: tuple = (2, 15)
    engram_orders: tuple = (2, 3)
    engram_heads: int = 2
    engram_slots: int = 8192
    engram_taps: int = 4
    contrastive_dim: int = 128
    probe_heads: bool = True

    @staticmethod
    def mini():
        """The geometry of the golden 'mini' model (../shared/golden/mini)."""
        return NeedleConfig(vocab_size=512, d_model=128, num_layers=6, num_heads=4, num_kv_heads=2,
                            head_dim=32, engram_layers=(1, 4), engram_orders=(2, 3), engram_heads=1,
                            engram_slots=256)

    @property
    def hada_n(self):
        return 1 << (self.d_model - 1).bit_length()

    @property
    def engram_tables(self):
        return len(self.engram_orders) * self.engram_heads

    @property
    def engram_sub_dim(self):
        return self.d_model // self.engram_tables

    @property
    def engram_dilation(self):
        return max(self.engram_orders)


def zc_norm(x, gain):
    """Zero-centred RMS norm: (1 + gain) * x / rms(x) over the last axis."""
    return (1 + gain) * rms_unit(x)


def rms_unit(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS)


def sylvester_hadamard(n, dtype):
    """The orthonormal Walsh-Hadamard matrix of Sylvester order: H_2n = [[H, H], [H, -H]] / sqrt 2."""
    h = torch.ones(1, 1, dtype=dtype)
    while h.shape[0] < n:
        h = torch.cat([torch.cat([h, h], 1), torch.cat([h, -h], 1)], 0)
    return h / math.sqrt(n)


class ZcNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        return zc_norm(x, self.weight)


class Attention(nn.Module):
    """Grouped-query attention with per-head QK norm, half-split RoPE and a sigmoid output gate."""

    def __init__(self, c: NeedleConfig):
        super().__init__()
        self.c = c
        q_dim, kv_dim = c.num_heads * c.head_dim, c.num_kv_heads * c.head_dim
        self.q_proj = nn.Linear(c.d_model, q_dim, bias=False)
        self.k_proj = nn.Linear(c.d_model, kv_dim, bias=False)
        self.v_proj = nn.Linear(c.d_model, kv_dim, bias=False)
        self.q_norm = ZcNorm(c.head_dim)
        self.k_norm = ZcNorm(c.head_dim)
        self.gate_proj = nn.Linear(c.d_model, q_dim, bias=False)
        self.out_proj = nn.Linear(q_dim, c.d_model, bias=False)

    def forward(self, x, cos, sin):
        c, t = self.c, x.shape[0]
        q = self.q_norm(self.q_proj(x).view(t, c.num_heads, c.head_dim)).transpose(0, 1)
        k = self.k_norm(self.k_proj(x).view(t, c.num_kv_heads, c.head_dim)).transpose(0, 1)
        v = self.v_proj(x).view(t, c.num_kv_heads, c.head_dim).transpose(0, 1)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        group = c.num_heads // c.num_kv_heads  # q head h reads kv head h // group
        k, v = k.repeat_interleave(group, 0), v.repeat_interleave(group, 0)
        scores = q @ k.transpose(1, 2) / math.sqrt(c.head_dim)
        causal = torch.ones(t, t, dtype=torch.bool).tril()
        scores = scores.masked_fill(~causal, torch.finfo(scores.dtype).min)
        o = (scores.softmax(-1) @ v).transpose(0, 1).reshape(t, -1)
        return self.out_proj(o * torch.sigmoid(self.gate_proj(x)))


def rope_tables(c: NeedleConfig, t, dtype):
    inv = 1.0 / c.rope_theta ** (torch.arange(0, c.head_dim, 2, dtype=torch.float64) / c.head_dim)
    angles = torch.outer(torch.arange(t, dtype=torch.float64), inv)
    return angles.cos().to(dtype), angles.sin().to(dtype)


def rope(x, cos, sin):
    """Rotates dim i with dim i + head_dim/2 (halves, not even/odd pairs)."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)


class HadamardMlp(nn.Module):
    """z = (d1 * pad(x)) @ H; z = silu(d2 * z) @ H; out = crop(d3 * z)."""

    def __init__(self, c: NeedleConfig):
        super().__init__()
        self.d_model = c.d_model
        self.d1 = nn.Parameter(torch.ones(c.hada_n))
        self.d2 = nn.Parameter(torch.ones(c.hada_n))
        self.d3 = nn.Parameter(torch.full((c.hada_n,), 0.02))

    def forward(self, x):
        n = self.d1.shape[0]
        h = sylvester_hadamard(n, x.dtype)
        z = F.pad(x, (0, n - self.d_model))
        z = (self.d1 * z) @ h
        z = F.silu(self.d2 * z) @ h
        return (self.d3 * z)[..., : self.d_model]


class Layer(nn.Module):
    def __init__(self, c: NeedleConfig):
        super().__init__()
        self.norm_in = ZcNorm(c.d_model)
        self.attn = Attention(c)
        self.post_norm = ZcNorm(c.d_model)
        self.attn_gate = nn.Parameter(torch.zeros(1))
        self.pre_hada = ZcNorm(c.d_model)
        self.mlp = HadamardMlp(c)

    def forward(self, u, cos, sin, engram=None):
        if engram is not None:
            k, v = engram
            alpha = torch.sigmoid((rms_unit(u) * rms_unit(k)).sum(-1, keepdim=True) / math.sqrt(u.shape[-1]))
            u = u + alpha * v
        x = u + torch.sigmoid(self.attn_gate) * self.post_norm(self.attn(self.norm_in(u), cos, sin))
        return x + self.mlp(self.pre_hada(x))


class Engram(nn.Module):
    """Hashed n-gram tables: per position a key (to gate with) and a value (dilated causal conv)."""

    def __init__(self, c: NeedleConfig):
        super().__init__()
        self.c = c
        self.tables = nn.Embedding(c.engram_tables * c.engram_slots, c.engram_sub_dim)
        self.key_proj = nn.Linear(c.engram_tables * c.engram_sub_dim, c.d_model, bias=False)
        self.value_proj = nn.Linear(c.engram_tables * c.engram_sub_dim, c.d_model, bias=False)
        self.taps = nn.Parameter(torch.zeros(c.engram_taps, c.d_model))

    def forward(self, tokens):
        c, t = self.c, tokens.shape[0]
        slots = engram_slots(tokens, c)  # [T, tables]
        rows = self.tables(slots + torch.arange(c.engram_tables) * c.engram_slots)
        orders = [o for o in c.engram_orders for _ in range(c.engram_heads)]
        pos = torch.arange(t)
        visible = torch.stack([pos >= o - 1 for o in orders], -1)  # the whole n-gram is inside the sequence
        e = (rows * visible[..., None].to(rows.dtype)).reshape(t, -1)
        k, v = self.key_proj(e), self.value_proj(e)
        conv = torch.zeros_like(v)
        for j in range(c.engram_taps):
            shift = j * c.engram_dilation
            if shift < t:
                conv[shift:] += self.taps[j] * v[: t - shift]
        return k, conv


def engram_slots(tokens, c: NeedleConfig):
    """uint32 hash per table (order o, head h; table t = order_index*heads + h) in int64 arithmetic."""
    t = tokens.shape[0]
    out = []
    for oi, order in enumerate(c.engram_orders):
        for h in range(c.engram_heads):
            acc = torch.full((t,), (ENGRAM_SEED * (oi * c.engram_heads + h + 1)) & UINT32, dtype=torch.int64)
            for j in range(order):
                prev = torch.zeros(t, dtype=torch.int64)
                prev[j:] = tokens[: t - j]
                acc = ((acc ^ prev) * ENGRAM_PRIME) & UINT32
            acc = acc ^ (acc >> 15)
            out.append(acc % c.engram_slots)
    return torch.stack(out, -1)


class Mhc(nn.Module):
    """Manifold hyper-connections: per-layer lane read-in, write-out and a Sinkhorn lane mix."""

    def __init__(self, c: NeedleConfig):
        super().__init__()
        n, nc, L = c.mhc_lanes, c.mhc_lanes * c.d_model, c.num_layers
        self.lanes = n
        self.a_pre = nn.Parameter(torch.full((L,), 0.01))
        self.a_post = nn.Parameter(torch.full((L,), 0.01))
        self.a_res = nn.Parameter(torch.full((L,), 0.01))
        self.b_pre = nn.Parameter(torch.zeros(L, n))
        self.b_post = nn.Parameter(torch.zeros(L, n))
        self.b_res = nn.Parameter(4.0 * torch.eye(n).repeat(L, 1, 1))
        # layer l's projection is rows l*k .. (l+1)*k-1 of each weight
        self.phi_pre = nn.Linear(nc, L * n, bias=False)
        self.phi_post = nn.Linear(nc, L * n, bias=False)
        self.phi_res = nn.Linear(nc, L * n * n, bias=False)

    def project(self, linear, nx, layer, k):
        return F.linear(nx, linear.weight[layer * k:(layer + 1) * k])

    def mix(self, layer, lanes, block):
        """One layer: lanes [T, n, d] -> new lanes, with `block` applied to the read-in mix."""
        n = self.lanes
        selected = torch.zeros(n, dtype=lanes.dtype)
        selected[layer % n] = 1
        nx = rms_unit(lanes.reshape(lanes.shape[0], -1))
        h_pre = torch.sigmoid(self.a_pre[layer] * self.project(self.phi_pre, nx, layer, n)
                              + self.b_pre[layer] + (8 * selected - 4))
        u = (h_pre[..., None] * lanes).sum(1)
        y = block(u) - u
        h_post = 2 * torch.sigmoid(self.a_post[layer] * self.project(self.phi_post, nx, layer, n)
                                   + self.b_post[layer] - 4 * (1 - selected))
        res = self.project(self.phi_res, nx, layer, n * n).view(-1, n, n)
        p = sinkhorn(self.a_res[layer] * res + self.b_res[layer])
        return p @ lanes + h_post[..., None] * y[:, None, :]


def sinkhorn(logits, iters=20):
    for _ in range(iters):
        logits = logits - logits.logsumexp(-1, keepdim=True)
        logits = logits - logits.logsumexp(-2, keepdim=True)
    return logits.exp()


class ProbeHead(nn.Module):
    """Attention pooling of [T, L+1, d] cells with P probes, then a projection."""

    def __init__(self, probes, d_model, out_dim, bias):
        super().__init__()
        self.probes = nn.Parameter(torch.zeros(probes, d_model))
        self.proj = nn.Linear(probes * d_model, out_dim, bias=bias)

    def forward(self, cells):
        flat = cells.reshape(-1, cells.shape[-1])
        w = (flat @ self.probes.T / math.sqrt(flat.shape[-1])).softmax(0)
        return self.proj((w.T @ flat).reshape(-1))


class Needle(nn.Module):
    def __init__(self, c: NeedleConfig):
        super().__init__()
        self.c = c
        self.embedding = nn.Embedding(c.vocab_size, c.d_model)
        self.layers = nn.ModuleList(Layer(c) for _ in range(c.num_layers))
        self.mhc = Mhc(c)
        self.engrams = nn.ModuleList(Engram(c) for _ in c.engram_layers)
        self.final_norm = ZcNorm(c.d_model)
        if c.probe_heads:
            self.contrastive_head = ProbeHead(4, c.d_model, c.contrastive_dim, bias=True)
            self.confidence_head = ProbeHead(8, c.d_model, 1, bias=True)

    def cells(self, tokens):
        """[T, L+1, d]: the scaled embedding, then the lane mean after each layer (before the final norm)."""
        c, t = self.c, tokens.shape[0]
        x0 = self.embedding(tokens) * math.sqrt(c.d_model)
        cos, sin = rope_tables(c, t, x0.dtype)
        engram = {layer: e(tokens) for layer, e in zip(c.engram_layers, self.engrams)}
        lanes = x0[:, None, :].repeat(1, c.mhc_lanes, 1)
        cells = [x0]
        for l, layer in enumerate(self.layers):
            lanes = self.mhc.mix(l, lanes, lambda u: layer(u, cos, sin, engram.get(l)))
            cells.append(lanes.mean(1))
        return torch.stack(cells, 1)

    def forward(self, tokens):
        """Logits [T, vocab] for a 1-d tensor of token ids (causal, quant=False)."""
        h = self.final_norm(self.cells(tokens)[:, -1])
        return h @ self.embedding.weight.T

    def confidence(self, tokens):
        """The confidence head's logit (a scalar); tokens must not contain PAD (0)."""
        return self.confidence_head(self.cells(tokens))[0]

    def contrastive(self, tokens):
        """The contrastive head's unit embedding; tokens must not contain PAD (0)."""
        p = self.contrastive_head(self.cells(tokens))
        return p / torch.sqrt((p * p).sum() + 1e-12)


def load(path, config: NeedleConfig, dtype=torch.float32):
    """A Needle of `config` in `dtype` holding the state dict at `path` (strict: every key, no extras)."""
    model = Needle(config)
    model.load_state_dict(torch.load(path, weights_only=True), strict=True)
    return model.to(dtype).eval()
