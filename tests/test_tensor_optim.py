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
