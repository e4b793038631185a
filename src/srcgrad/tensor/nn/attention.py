"""Attention: ``nn.functional.scaled_dot_product_attention`` and ``nn.MultiheadAttention``.

Both are written with recorded Tensor operations, in the order PyTorch's reference
implementation (and ``multi_head_attention_forward``) computes them; the scaled dot
product is recorded as one node, as PyTorch's CPU kernel records it
(:mod:`..autograd.composite`); with dropout, as PyTorch, it is composed, its masks drawn
as ``F.dropout`` draws them.
"""
import math

from .. import dtypes, factories
from ..autograd.composite import composite
from . import functional as F
from . import init
from .layers import Linear
from .module import Module, Parameter

__all__ = ["scaled_dot_product_attention", "MultiheadAttention",
           "NonDynamicallyQuantizableLinear"]


def _float_mask(mask, like):
    """A boolean mask (True: not attended) as an additive float mask, as PyTorch."""
    if mask is None or mask.dtype is not dtypes.bool:
        return mask
    return factories.zeros_like(mask, dtype=like.dtype).masked_fill(mask, float("-inf"))


def _attention(query, key, value, attn_mask, dropout_p, is_causal, scale):
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    weight = query @ key.transpose(-2, -1) * scale_factor
    if is_causal:
        allowed = factories.ones(L, S, dtype=dtypes.bool).tril(diagonal=0)
        weight = weight.masked_fill(allowed.logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype is dtypes.bool:
            weight = weight.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            weight = weight + attn_mask
    weight = weight.softmax(dim=-1)
    if dropout_p > 0.0:
        weight = F.dropout(weight, dropout_p, training=True)
    return weight @ value


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(q k^T * scale + mask) v`` over the last two dimensions (``attn_mask``:
    boolean, True where attending is allowed, or added to the scores)."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    if enable_gqa:
        raise NotImplementedError("srcgrad: scaled_dot_product_attention(enable_gqa=True) is "
                                  "not supported; repeat the key and value heads instead")
    if dropout_p > 0.0:          # PyTorch's CPU kernel then composes too (F.dropout's draws)
        return _attention(query, key, value, attn_mask, dropout_p, is_causal, scale)
    return composite("ScaledDotProductFlashAttentionForCpuBackward0", _attention,
                     (query, key, value), attn_mask, dropout_p, is_causal, scale)


class NonDynamicallyQuantizableLinear(Linear):
    """The output projection of ``MultiheadAttention`` (a Linear, named as PyTorch's)."""


class MultiheadAttention(Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        if not self._qkv_same_embed_dim or add_bias_kv or add_zero_attn:
            raise NotImplementedError("srcgrad: MultiheadAttention with kdim/vdim other than "
                                      "embed_dim, add_bias_kv or add_zero_attn is not supported")
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        self.in_proj_weight = Parameter(factories.empty((3 * embed_dim, embed_dim),
                                                        dtype=dtype))
        self.register_parameter("q_proj_weight", None)
        self.register_parameter("k_proj_weight", None)
        self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(factories.empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use "
                               "the Transformer module method `generate_square_subsequent_mask`"
                               " to create this mask.")
        batched = query.dim() == 3
        if self.batch_first and batched:
            query, key, value = _batch_second(query, key, value)
        out, weights = _multi_head_attention(self, query, key, value, key_padding_mask,
                                             need_weights, attn_mask, average_attn_weights,
                                             batched)
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights


def _batch_second(query, key, value):
    """(N, L, E) inputs as (L, N, E), transposing a shared tensor once, as PyTorch."""
    if key is value:
        if query is key:
            query = key = value = query.transpose(1, 0)
        else:
            query, key = query.transpose(1, 0), key.transpose(1, 0)
            value = key
    else:
        query, key, value = (x.transpose(1, 0) for x in (query, key, value))
    return query, key, value


def _in_projection(m, query, key, value):
    E, w, b = m.embed_dim, m.in_proj_weight, m.in_proj_bias
    if key is value and query is key:
        proj = F.linear(query, w, b)
        proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return proj[0], proj[1], proj[2]
    if key is value:
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv = F.linear(key, w_kv, b_kv)
        kv = kv.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return F.linear(query, w_q, b_q), kv[0], kv[1]
    ws = w.chunk(3)
    bs = (None, None, None) if b is None else b.chunk(3)
    return tuple(F.linear(x, wi, bi) for x, wi, bi in zip((query, key, value), ws, bs))


def _multi_head_attention(m, query, key, value, key_padding_mask, need_weights, attn_mask,
                          average_attn_weights, batched):
    """PyTorch's ``multi_head_attention_forward`` for inputs (L, N, E) or unbatched (L, E)."""
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    heads, head_dim = m.num_heads, m.head_dim
    q, k, v = _in_projection(m, query, key, value)
    attn_mask = _float_mask(attn_mask, q)
    if attn_mask is not None and attn_mask.dim() == 2:
        attn_mask = attn_mask.unsqueeze(0)
    key_padding_mask = _float_mask(key_padding_mask, q)
    q = q.view(tgt_len, bsz * heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], bsz * heads, head_dim).transpose(0, 1)
    if key_padding_mask is not None:
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(
            -1, heads, -1, -1).reshape(bsz * heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    dropout_p = m.dropout if m.training else 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        if attn_mask is not None:
            weights = attn_mask.baddbmm(q_scaled, k.transpose(-2, -1))
        else:
            weights = q_scaled.bmm(k.transpose(-2, -1))
        weights = weights.softmax(dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        out = weights.bmm(v)
        out = out.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        out = F.linear(out, m.out_proj.weight, m.out_proj.bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.size(0) == 1 else \
            attn_mask.view(bsz, heads, -1, src_len)
    q = q.view(bsz, heads, tgt_len, head_dim)
    k = k.view(bsz, heads, src_len, head_dim)
    v = v.view(bsz, heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p)
    out = out.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
    out = F.linear(out, m.out_proj.weight, m.out_proj.bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not batched:
        out = out.squeeze(1)
    return out, None
