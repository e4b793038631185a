"""scaled_dot_product_attention and MultiheadAttention: values and gradients against real
PyTorch in float64 (skipped without it) and against central differences; the scaled dot
product is one node whose backward runs the composed operations' rules."""
import numpy as np
import pytest

import srcgrad as sg

RNG = np.random.default_rng(5)
Q, K, V = (RNG.standard_normal((2, 2, n, 4)) for n in (3, 5, 5))
MASK = RNG.standard_normal((3, 5))


def _sdpa(lib, q, k, v, **kw):
    return lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)


CASES = {
    "plain": {},
    "float_mask": {"attn_mask": MASK},
    "bool_mask": {"attn_mask": MASK > 0},
    "scale": {"scale": 0.3},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sdpa_gradient_matches_finite_differences(name):
    kw = dict(CASES[name])
    if "attn_mask" in kw:
        kw["attn_mask"] = sg.tensor(kw["attn_mask"])

    def loss(q, k, v):
        return (_sdpa(sg, q, k, v, **kw) * sg.tensor(np.arange(48.0).reshape(2, 2, 3, 4) % 7)
                ).sum()
    ts = [sg.tensor(a, requires_grad=True) for a in (Q, K, V)]
    loss(*ts).backward()
    eps = 1e-6
    for i, a in enumerate((Q, K, V)):
        fd = np.zeros(a.size)
        for j in range(a.size):
            e = np.zeros(a.size)
            e[j] = eps
            args = [sg.tensor(b) for b in (Q, K, V)]
            hi = loss(*[sg.tensor(a + e.reshape(a.shape)) if n == i else x
                        for n, x in enumerate(args)]).item()
            lo = loss(*[sg.tensor(a - e.reshape(a.shape)) if n == i else x
                        for n, x in enumerate(args)]).item()
            fd[j] = (hi - lo) / (2 * eps)
        np.testing.assert_allclose(ts[i].grad.numpy().ravel(), fd, rtol=1e-6, atol=1e-8)


def test_sdpa_is_one_node_with_an_edge_per_input():
    q, k = sg.tensor(Q, requires_grad=True), sg.tensor(K, requires_grad=True)
    out = _sdpa(sg, q, k, sg.tensor(V))
    assert out.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert [type(f).__name__ if f else None for f, _ in out.grad_fn.next_functions] == \
        ["AccumulateGrad", "AccumulateGrad", None]
    g, = sg.autograd.grad(out.sum(), q, create_graph=True)      # and differentiates again
    h, = sg.autograd.grad(g.pow(2).sum(), k)
    assert h.shape == k.shape and np.isfinite(h.numpy()).all()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_matches_pytorch(name, causal):
    torch = pytest.importorskip("torch")
    kw = dict(CASES[name])
    if causal and "attn_mask" in kw:
        pytest.skip("is_causal with a mask is refused")

    def run(lib):
        extra = {key: lib.tensor(val) if key == "attn_mask" else val for key, val in kw.items()}
        ts = [lib.tensor(a, requires_grad=True) for a in (Q, K, V)]
        out = _sdpa(lib, *ts, is_causal=causal, **extra)
        (out * out).sum().backward()
        return [out.detach().numpy()] + [t.grad.numpy() for t in ts]
    for a, b in zip(run(sg), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kw", [{}, {"need_weights": False}, {"average_attn_weights": False},
                                {"key_padding_mask": True}, {"attn_mask": True}])
def test_multihead_attention_matches_pytorch(kw):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((4, 2, 6))
    mem = RNG.standard_normal((3, 2, 6))
    mask = RNG.standard_normal((4, 3))

    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.MultiheadAttention(6, 3, dtype=lib.float64)
        extra = dict(kw)
        if "key_padding_mask" in extra:
            extra["key_padding_mask"] = lib.tensor([[False, True, False], [False, False, True]])
        if "attn_mask" in extra:
            extra["attn_mask"] = lib.tensor(mask)
        xs = lib.tensor(x, requires_grad=True)
        out, w = m(xs, lib.tensor(mem), lib.tensor(mem), **extra)
        (out.sin().sum() + (0 if w is None else w.pow(2).sum())).backward()
        return [out.detach().numpy(), xs.grad.numpy(), m.in_proj_weight.grad.numpy()] + \
            ([] if w is None else [w.detach().numpy()])
    for a, b in zip(run(sg), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("layer", ["encoder", "decoder"])
def test_transformer_layers_match_pytorch(layer, norm_first):
    """Same submodules made in the same order (so the same initial draws), the same
    outputs and parameter gradients."""
    torch = pytest.importorskip("torch")
    src = RNG.standard_normal((5, 2, 8))
    mem = RNG.standard_normal((3, 2, 8))

    def run(lib):
        lib.manual_seed(1)
        cls = lib.nn.TransformerEncoderLayer if layer == "encoder" else \
            lib.nn.TransformerDecoderLayer
        m = cls(8, 2, 12, dropout=0.0, norm_first=norm_first, dtype=lib.float64)
        x = lib.tensor(src, requires_grad=True)
        mask = lib.nn.Transformer.generate_square_subsequent_mask(5, dtype=lib.float64)
        out = m(x, src_mask=mask) if layer == "encoder" else m(x, lib.tensor(mem), tgt_mask=mask)
        (out * lib.arange(8.0, dtype=lib.float64)).sum().backward()
        return [out.detach().numpy(), x.grad.numpy()] + \
            [p.grad.numpy() for p in m.parameters()]
    ours, theirs = run(sg), run(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
