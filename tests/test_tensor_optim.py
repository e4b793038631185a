"""The optimisers' array paths: Adam and SGD with momentum on a large parameter (updated
in cache-sized blocks) give the bits of the whole-array update, and PyTorch's values."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.tensor.optim import algorithms

torch = pytest.importorskip("torch")


def _run(lib, make, x0, grads):
    p = lib.nn.Parameter(lib.tensor(x0))
    opt = make(lib, [p])
    for g in grads:
        p.grad = lib.tensor(g)
        opt.step()
    return p.detach().numpy()


ADAMS = [lambda L, ps: L.optim.Adam(ps, lr=1e-2),
         lambda L, ps: L.optim.AdamW(ps, lr=1e-2, weight_decay=0.1, amsgrad=True),
         lambda L, ps: L.optim.Adam(ps, lr=1e-2, weight_decay=1e-3, maximize=True),
         lambda L, ps: L.optim.SGD(ps, lr=1e-2, momentum=0.9),
         lambda L, ps: L.optim.SGD(ps, lr=1e-2, momentum=0.9, dampening=0.2),
         lambda L, ps: L.optim.SGD(ps, lr=1e-2, momentum=0.8, nesterov=True, weight_decay=0.1)]


@pytest.mark.parametrize("k", range(len(ADAMS)))
def test_blocked_update_is_the_whole_update_and_torchs(k, monkeypatch):
    rng = np.random.default_rng(31)
    n = 3 * algorithms._CHUNK + 123                 # several blocks and a short last one
    x0 = rng.standard_normal((n // 7 + 1, 7)).astype(np.float32)
    grads = [(rng.standard_normal(x0.shape) * 0.1).astype(np.float32) for _ in range(3)]
    blocked = _run(sg, ADAMS[k], x0, grads)
    monkeypatch.setattr(algorithms, "_CHUNK", 10 ** 9)     # one block: the whole arrays
    whole = _run(sg, ADAMS[k], x0, grads)
    assert blocked.tobytes() == whole.tobytes()
    np.testing.assert_allclose(blocked, _run(torch, ADAMS[k], x0, grads), rtol=1e-6, atol=1e-7)


def test_sgd_momentum_and_dampening_match_torch():
    rng = np.random.default_rng(32)
    x0 = rng.standard_normal((50, 3)).astype(np.float32)
    grads = [rng.standard_normal(x0.shape).astype(np.float32) for _ in range(4)]
    for kw in (dict(momentum=0.9), dict(momentum=0.9, dampening=0.3),
               dict(momentum=0.5, nesterov=True, weight_decay=0.01), dict()):
        def make(L, ps):
            return L.optim.SGD(ps, lr=0.05, **kw)
        np.testing.assert_allclose(_run(sg, make, x0, grads), _run(torch, make, x0, grads),
                                   rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("kw", [dict(), dict(lr=0.5, rho=0.8, eps=1e-4),
                                dict(weight_decay=0.1, maximize=True)], ids=str)
def test_adadelta_matches_torch(kw):
    rng = np.random.default_rng(33)
    x0 = rng.standard_normal((40, 3)).astype(np.float32)
    grads = [rng.standard_normal(x0.shape).astype(np.float32) for _ in range(6)]

    def make(L, ps):
        return L.optim.Adadelta(ps, **kw)
    # (PyTorch's float32 sqrt is MKL's, within an ulp: not bit for bit)
    np.testing.assert_allclose(_run(sg, make, x0, grads), _run(torch, make, x0, grads),
                               rtol=2e-6, atol=1e-7)
    p = sg.nn.Parameter(sg.tensor(x0))
    opt = make(sg, [p])
    q = torch.nn.Parameter(torch.tensor(x0))
    ref = make(torch, [q])
    assert str(opt) == str(ref)
    p.grad, q.grad = sg.tensor(grads[0]), torch.tensor(grads[0])
    opt.step()
    ref.step()
    assert sorted(opt.state_dict()["state"][0]) == sorted(ref.state_dict()["state"][0])
    assert opt.state_dict()["param_groups"] == ref.state_dict()["param_groups"]


SGDS = [dict(), dict(momentum=0.9), dict(momentum=0.9, dampening=0.3),
        dict(momentum=0.5, nesterov=True, weight_decay=0.01), dict(weight_decay=0.1, maximize=True)]


@pytest.mark.parametrize("kw", SGDS, ids=str)
@pytest.mark.parametrize("n", [50 * 3, 3 * algorithms._CHUNK + 5], ids=["small", "blocked"])
def test_sgd_is_torchs_bit_for_bit(kw, n):
    # param.add_(grad, alpha=-lr) and friends round once, as PyTorch's fused multiply-add
    rng = np.random.default_rng(34)
    x0 = rng.standard_normal(n).astype(np.float32)
    grads = [rng.standard_normal(x0.shape).astype(np.float32) for _ in range(4)]

    def make(L, ps):
        return L.optim.SGD(ps, lr=0.05, **kw)
    assert _run(sg, make, x0, grads).tobytes() == _run(torch, make, x0, grads).tobytes()


def test_fused_multiply_add_is_torchs():
    from srcgrad.tensor.rounding import fma, lerp
    rng = np.random.default_rng(35)
    for dtype in (np.float32, np.float64):
        x, d, y = (rng.standard_normal(10007).astype(dtype) for _ in range(3))
        tx, td, ty = (torch.tensor(a) for a in (x, d, y))
        assert fma(d, dtype(-0.37), x).tobytes() == tx.add(td, alpha=-0.37).numpy().tobytes()
        assert fma(dtype(0.1) * d, y, x).tobytes() == \
            tx.addcmul(td, ty, value=0.1).numpy().tobytes()
        for w in (0.1, 0.5, 0.8, -0.3):
            assert lerp(x, d, dtype(w)).tobytes() == tx.lerp(td, w).numpy().tobytes()
    # the exact value: float64 products and sums rounded once
    a, b, c = np.float32(1 + 2 ** -23), np.float32(1 - 2 ** -24), np.float32(-1)
    assert fma(a, b, c) == np.float32((1 + 2 ** -23) * (1 - 2 ** -24) - 1)


def test_float32_fma_redoes_only_the_doubly_rounded_entries_exactly():
    """The fast float32 path (rounded to float64, then to float32) equals the exact
    round-to-odd one bit for bit: on float32 midpoints reached by the float64 rounding,
    in float32's subnormal range, with cancellation; infinities give PyTorch's infinity
    (the round-to-odd path alone gave NaN)."""
    from srcgrad.tensor.rounding import _fma32, _fma32_exact
    rng = np.random.default_rng(36)
    n = 100000
    mid_a = np.float32(1) + rng.integers(0, 1 << 23, n).astype(np.float32) * np.float32(2 ** -23)
    cases = [
        (mid_a, np.full(n, np.float32(1 + 2 ** -23)),          # products on midpoints,
         rng.standard_normal(n).astype(np.float32) * np.float32(2 ** -30)),   # nudged
        (rng.standard_normal(n).astype(np.float32) * np.float32(1e-23),       # subnormal
         rng.standard_normal(n).astype(np.float32) * np.float32(1e-22),
         rng.standard_normal(n).astype(np.float32) * np.float32(1e-44)),
    ]
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    cases.append((a, b, (-(a.astype(np.float64) * b) * (1 + rng.integers(-3, 4, n) * 2.0 ** -24))
                  .astype(np.float32)))                       # cancellation
    for a, b, c in cases:
        assert _fma32(a, b, c).tobytes() == _fma32_exact(a, b, c).tobytes()
    assert _fma32(np.float32(0.5), b[:3], c[:3]).tobytes() == \
        _fma32_exact(np.float32(0.5), b[:3], c[:3]).tobytes()
    inf = np.array([np.inf, -np.inf, 1.0], dtype=np.float32)
    ones = np.ones(3, dtype=np.float32)
    want = torch.tensor(inf).addcmul(torch.tensor(ones), torch.tensor(ones)).numpy()
    assert _fma32(ones, ones, inf).tobytes() == want.tobytes()


STEPS = {"float64": 9, "float32": 6}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kw", [("Adamax", {"lr": 0.01, "weight_decay": 0.1}),
                                     ("Adamax", {"maximize": True}),
                                     ("NAdam", {"lr": 0.01}),
                                     ("NAdam", {"lr": 0.01, "weight_decay": 0.05,
                                                "decoupled_weight_decay": True}),
                                     ("RAdam", {"lr": 0.01}),
                                     ("RAdam", {"lr": 0.01, "weight_decay": 0.1}),
                                     ("RAdam", {"lr": 0.02, "weight_decay": 0.1,
                                                "decoupled_weight_decay": True})])
def test_adamax_nadam_radam_steps_are_pytorchs(name, kw, dtype):
    """Bit for bit, step by step (exact gradients: a linear loss of a uniform start; RAdam
    switches to its rectified step at the sixth).  In float32 NAdam and RAdam drift by an
    ulp in a few entries after 7-9 steps, so float32 is checked for 6."""
    def run(lib):
        lib.manual_seed(0)
        dt = getattr(lib, dtype)
        w = lib.nn.Parameter(lib.rand(50, dtype=dt) * 2 - 1)
        opt = getattr(lib.optim, name)([w], **kw)
        c = lib.linspace(-1, 1, 50, dtype=dt)
        for _ in range(STEPS[dtype]):
            opt.zero_grad()
            (w * c).sum().backward()
            opt.step()
        return w.detach().numpy().tobytes()
    assert run(sg) == run(torch)
