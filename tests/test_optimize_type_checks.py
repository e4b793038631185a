"""Shape specialization survives srcgrad's own operand type check (ad.numeric_operand
before `/ x.shape[0]`): the check reads only the operand's type, so it must not make
the operands' shapes unknown (it did: the MLP loss compiled to the general code)."""
import numpy as np

import srcgrad as sg


def mlp_loss(W1, b1, W2, b2, x, onehot):
    h = np.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return -np.sum(onehot * np.log(p)) / x.shape[0]


def _args():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((5, 4)), rng.standard_normal(4), rng.standard_normal((4, 3)),
            rng.standard_normal(3), rng.standard_normal((6, 5)),
            np.eye(3)[rng.integers(0, 3, 6)])


def test_divide_by_shape_item_is_specialized_and_bit_for_bit():
    args = _args()
    g = sg.grad(mlp_loss, wrt=(0, 1, 2, 3))
    got = g(*args)
    assert "Specialized to these argument shapes" in sg.source(mlp_loss, wrt=(0, 1, 2, 3),
                                                               args=args)
    assert "ad.unbroadcast(" not in sg.source(mlp_loss, wrt=(0, 1, 2, 3), args=args)
    general = sg.grad(mlp_loss, wrt=(0, 1, 2, 3), specialize=False)(*args)
    for a, b in zip(got, general):
        assert np.array_equal(a, b)
    eps = 1e-6
    for k in range(4):
        a = [np.array(v, dtype=float) for v in args]
        num = np.zeros_like(a[k])
        for i in np.ndindex(a[k].shape):
            up = [v.copy() for v in a]
            dn = [v.copy() for v in a]
            up[k][i] += eps
            dn[k][i] -= eps
            num[i] = (mlp_loss(*up) - mlp_loss(*dn)) / (2 * eps)
        np.testing.assert_allclose(got[k], num, rtol=1e-6, atol=1e-8)
