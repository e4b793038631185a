"""Code specialized to a call's shapes drops what the shapes decide, bit for bit.

* the seed of a result known to be a 0-d float is 1.0 (what ``ad.seed`` returns for
  it): the forward operations that computed the result only for the seed are dead;
* ``ad.numeric_operand`` (srcgrad's check that an operand read from an item is no
  object of a user's class) is dropped where the value is known (``x.shape[0]``),
  or was checked already; an object of a user's class is still refused;
* ``ad.matmul_grad_x/y`` of known 2-d operands is ``g @ y.T`` / ``x.T @ g``.

Each: the source no longer has it, the gradients are the general code's
(``specialize=False``) bit for bit, and equal central differences.
"""
import numpy as np
import pytest

import operand_classes       # (its class is not named here: operands are checked)
import srcgrad as sg
from srcgrad.errors import NonDifferentiableError


def mlp_loss(W1, b1, W2, b2, x, onehot):
    h = np.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return -np.sum(onehot * np.log(p)) / x.shape[0]


def _args(dtype=np.float64):
    rng = np.random.default_rng(3)
    return tuple(np.asarray(a, dtype=dtype) for a in (
        rng.standard_normal((5, 4)), rng.standard_normal(4), rng.standard_normal((4, 3)),
        rng.standard_normal(3), rng.standard_normal((6, 5)),
        np.eye(3)[rng.integers(0, 3, 6)]))


def _central(f, args, k, eps=1e-6):
    a = [np.array(v, dtype=float) for v in args]
    num = np.zeros_like(a[k])
    for i in np.ndindex(a[k].shape):
        up = [v.copy() for v in a]
        dn = [v.copy() for v in a]
        up[k][i] += eps
        dn[k][i] -= eps
        num[i] = (f(*up) - f(*dn)) / (2 * eps)
    return num


def _same_bits(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert type(a) is type(b)
        assert np.asarray(a).dtype == np.asarray(b).dtype
        assert np.array_equal(a, b)


def _check(f, args, wrt):
    got = sg.grad(f, wrt=wrt)(*args)
    _same_bits(got, sg.grad(f, wrt=wrt, specialize=False)(*args))
    return got


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_mlp_loss_seed_is_one_and_its_forward_tail_is_dead(dtype):
    args = _args(dtype)
    src = sg.source(mlp_loss, wrt=(0, 1, 2, 3), args=args)
    assert "Specialized to these argument shapes" in src
    assert "dresult = 1.0" in src and "ad.seed(" not in src
    # sum, neg and divide computed only for the seed's value: gone
    lines = [ln.strip() for ln in src.splitlines()]
    assert "sum_1 = np.sum(mul)" not in lines and "neg = -sum_1" not in lines
    assert not any(ln.startswith("result = ") for ln in lines)
    assert "ad.numeric_operand(" not in src
    assert "ad.matmul_grad" not in src and "x.T @ dadd" in src
    got = _check(mlp_loss, args, (0, 1, 2, 3))
    if dtype is np.float64:
        for k in range(4):
            np.testing.assert_allclose(got[k], _central(mlp_loss, args, k), rtol=1e-6,
                                       atol=1e-8)


def mean_over_rows(x, w):
    return np.sum(np.sin(x * w)) / x.shape[0]


def keeps_an_axis(x, w):
    return np.sum(np.sin(x * w), axis=0, keepdims=True)[0]


def int_result(x, w):
    return np.sum(np.sin(x * w)).astype(np.int64)


def test_seed_of_other_results_unchanged():
    x, w = np.linspace(0.1, 1.0, 6).reshape(3, 2), np.array([0.3, -0.7])
    src = sg.source(mean_over_rows, wrt="w", args=(x, w))
    assert "dresult = 1.0" in src and "ad.seed(" not in src
    got = _check(mean_over_rows, (x, w), "w")
    np.testing.assert_allclose(got, _central(mean_over_rows, (x, w), 1), rtol=1e-7)
    # a (1,)-shaped result: not known a 0-d float (the seed is an array of ones)
    src = sg.source(keeps_an_axis, wrt="w", args=(x[:, :1], w[:1]))
    assert "ad.seed(" in src
    _check(keeps_an_axis, (x[:, :1], w[:1]), "w")
    # an int result is still refused
    with pytest.raises(sg.OutputTypeError if hasattr(sg, "OutputTypeError") else TypeError):
        sg.grad(int_result, wrt="w")(x, w)


def divides_twice(x, d):
    s = d["k"]
    a = x / s
    b = a * s
    if np.sum(x) > 0:
        b = b - s
    for i in range(2):
        b = b * s
        s = d["k"]
        b = b + s
    return np.sum(b * b)


def test_operand_checks_once_per_value_and_still_refuse_objects():
    x = np.array([0.5, -1.0, 2.0])
    src = sg.source(divides_twice, wrt="x")
    # checked where s is first read, then again after the loop rebinds it (twice inside
    # the loop: its first trip sees the first s, later trips the one it rebinds)
    lines = [ln.strip() for ln in src.splitlines()]
    checks = [ln for ln in lines if ln.startswith("ad.numeric_operand(")]
    assert len(checks) == 3, src
    f = lambda x: divides_twice(x, {"k": 1.5})      # noqa: E731
    got = _check(divides_twice, (x, {"k": 1.5}), "x")
    np.testing.assert_allclose(got, _central(f, (x,), 0), rtol=1e-7)
    with pytest.raises(NonDifferentiableError, match="cannot differentiate / on a Scale"):
        sg.grad(divides_twice, wrt="x")(x, {"k": operand_classes.Scale(2.0)})


def matmuls(A, v, B):
    return np.sum(np.tanh(A @ B) @ v)


def test_matmul_adjoints_written_out_for_2d_operands_only():
    rng = np.random.default_rng(5)
    A, v, B = rng.standard_normal((3, 4)), rng.standard_normal(2), rng.standard_normal((4, 2))
    src = sg.source(matmuls, wrt=(0, 1, 2), args=(A, v, B))
    assert "A.T @ " in src and " @ B.T" in src
    assert "ad.matmul_grad_x(dmatmul1, tanh, v)" in src      # v is 1-d: the kernel
    got = _check(matmuls, (A, v, B), (0, 1, 2))
    for k in range(3):
        np.testing.assert_allclose(got[k], _central(matmuls, (A, v, B), k), rtol=1e-6,
                                   atol=1e-9)


class _TwoD:
    """Facts saying every name is a 2-d array (as the outer function's x and W are)."""
    def ndim(self, node):
        return 2


def test_matmul_adjoint_not_written_out_in_a_nested_scope():
    # inside a nested function or a comprehension the names may be other values
    # (a parameter x, a comprehension's target): the outer facts do not apply there
    import gast
    from srcgrad.compiler.optimize.known_calls import write_out_matmul_grads
    src = ("def inner(x):\n    return ad.matmul_grad_x(g, x, W)\n"
           "dxs = [ad.matmul_grad_x(g, x, W) for x in xs]\n"
           "dx = ad.matmul_grad_x(g, x, W)\n")
    body = write_out_matmul_grads(gast.parse(src).body, _TwoD(), "ad")
    out = gast.unparse(gast.Module(body=body, type_ignores=[])) if hasattr(gast, "unparse") \
        else __import__("ast").unparse(gast.gast_to_ast(gast.Module(body=body,
                                                                     type_ignores=[])))
    lines = [ln.strip() for ln in out.splitlines()]
    assert "return ad.matmul_grad_x(g, x, W)" in lines
    assert "dxs = [ad.matmul_grad_x(g, x, W) for x in xs]" in lines
    assert "dx = g @ W.T" in lines
