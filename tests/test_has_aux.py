"""``has_aux=True`` (as in JAX) and the error for ``grad`` of a non-scalar output."""
import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import numeric_grad

rng = np.random.default_rng(14)
X, W = rng.normal(size=(4, 3)), rng.normal(size=3)


def loss_and_stats(x, w):
    pred = np.tanh(x @ w)
    loss = np.mean(pred ** 2)
    return loss, {"pred": pred, "n": x.shape[0], "name": "mse"}


def loss_only(x, w):
    return np.mean(np.tanh(x @ w) ** 2)


def loss_and_array(x, w):
    h = np.sin(x * w)
    return np.sum(h * x), h


def loss_and_tuple(w, s):
    y = w * s
    return np.sum(y ** 3), (y, s * 2.0, 7)


def test_grad_has_aux_returns_grads_and_aux():
    g, aux = sg.grad(loss_and_stats, wrt="w", has_aux=True)(X, W)
    assert isinstance(g, np.ndarray) and g.shape == W.shape
    assert np.allclose(g, numeric_grad(loss_only, (X, W), 1), rtol=1e-5, atol=1e-7)
    assert np.allclose(aux["pred"], np.tanh(X @ W)) and aux["n"] == 4 and aux["name"] == "mse"
    # the aux output does not feed the gradient: the same as without it
    assert np.allclose(g, sg.grad(loss_only, wrt="w")(X, W))


def test_value_and_grad_has_aux():
    (value, aux), (gx, gw) = sg.value_and_grad(loss_and_stats, wrt=(0, 1), has_aux=True)(X, W)
    assert np.isclose(value, loss_only(X, W))
    assert np.allclose(gx, numeric_grad(loss_only, (X, W), 0), rtol=1e-5, atol=1e-7)
    assert np.allclose(gw, numeric_grad(loss_only, (X, W), 1), rtol=1e-5, atol=1e-7)
    assert set(aux) == {"pred", "n", "name"}


@pytest.mark.parametrize("f,args,i", [
    (loss_and_array, (X, 0.7), 0), (loss_and_array, (X, 0.7), 1),
    (loss_and_tuple, (W, 1.3), 0), (loss_and_tuple, (W, 1.3), 1)])
def test_aux_of_any_structure_carries_no_gradient(f, args, i):
    g, aux = sg.grad(f, wrt=i, has_aux=True)(*args)
    assert np.shape(g) == np.shape(args[i]) and not isinstance(g, tuple)
    assert np.allclose(g, numeric_grad(lambda *a: f(*a)[0], args, i), rtol=1e-5, atol=1e-7)
    expected = f(*args)[1]
    if isinstance(expected, tuple):
        assert isinstance(aux, tuple) and len(aux) == len(expected)
        for a, e in zip(aux, expected):
            assert np.allclose(a, e)
    else:
        assert np.allclose(aux, expected)


def test_decorator_form_and_leaves():
    @sg.grad(has_aux=True)
    def f(a, b):
        return np.sum(a * b), a + b
    (ga, gb), aux = f(np.array([1.0, 2.0]), np.array([3.0, 5.0]))
    # (the parameters by name, one of them: a tuple of one gradient)
    (g1,), _ = sg.grad(lambda a, b: (np.sum(a * b), 0), wrt=("a",), has_aux=True)(
        np.array([1.0]), np.array([2.0]))
    assert np.allclose(g1, [2.0])
    assert np.allclose(ga, [3.0, 5.0]) and np.allclose(gb, [1.0, 2.0])
    assert np.allclose(aux, [4.0, 7.0])


def test_has_aux_needs_a_pair():
    def single(x):
        return np.sum(x)
    with pytest.raises(TypeError, match="has_aux=True the function must return a pair"):
        sg.grad(single, has_aux=True)(np.ones(3))


def test_has_aux_loss_must_be_scalar():
    def vec(x):
        return np.sin(x), x
    with pytest.raises(RuntimeError, match=r"shape \(3,\)"):
        sg.grad(vec, has_aux=True)(np.ones(3))


def test_has_aux_derivative_is_not_differentiated_again_silently():
    inner = sg.grad(loss_and_stats, wrt="w", has_aux=True)
    with pytest.raises(NotImplementedError, match="has_aux"):
        sg.grad(inner)


def test_has_aux_with_tensors():
    import srcgrad as torch
    w = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    g, aux = sg.grad(loss_and_stats, has_aux=True)(torch.tensor(X), w)
    assert np.allclose(g.detach().numpy(), numeric_grad(loss_only, (X, w.detach().numpy()), 1),
                       rtol=1e-5, atol=1e-7)
    assert aux["n"] == 4 and type(aux["pred"]).__name__ == "Tensor"


def nonscalar(x, w):
    return np.tanh(x @ w)


def test_non_scalar_error_gives_the_shape_and_the_ways_out():
    with pytest.raises(RuntimeError) as info:
        sg.grad(nonscalar)(X, W)
    msg = str(info.value)
    assert msg.startswith("grad can be implicitly created only for scalar outputs")
    assert "nonscalar returned an output of shape (4,)" in msg
    for hint in ("sg.jacobian", "sg.vjp", "has_aux=True"):
        assert hint in msg
    # and the ways it names work
    assert sg.jacobian(nonscalar, wrt=1)(X, W).shape == (4, 3)


def test_tuple_output_error_names_has_aux():
    def pair(x):
        return np.sum(x), x
    with pytest.raises(TypeError, match="has_aux=True"):
        sg.grad(pair)(np.ones(2))


def test_structured_return_is_refused_before_the_forward_pass():
    ran = []

    def record(v):
        ran.append(v)
        return v

    def pair(x):
        y = np.sin(x)
        return np.sum(y), y
    with pytest.raises(TypeError, match=r"returned a tuple of 2 items at .*test_has_aux\.py, "
                                        r"line \d+.*has_aux=True"):
        sg.grad(pair)(np.ones(2))
    with pytest.raises(TypeError, match="returned a tuple of 2 items"):
        sg.value_and_grad(pair)(np.ones(2))
    # has_aux takes exactly that form
    g, aux = sg.grad(pair, has_aux=True)(np.ones(2))
    assert np.allclose(g, np.cos(np.ones(2))) and np.allclose(aux, np.sin(np.ones(2)))


# -- has_aux inside a differentiated function ------------------------------------------

def _penalty_through_aux(W):
    def loss(v):
        r = np.tanh(W @ v)
        return np.sum(r ** 2), r
    g, r = sg.grad(loss, has_aux=True)(np.array([0.25, -0.5, 0.15]))
    return np.sum(g ** 2) + np.sum(r * W[0, :2])


def _value_and_grad_with_aux(W):
    def loss(v, c):
        r = np.tanh(W @ v) * c
        return np.sum(r ** 2), r
    (val, r), (gv, gc) = sg.value_and_grad(loss, has_aux=True)(np.array([0.25, -0.5, 0.15]), 1.5)
    return val + np.sum(gv * r[0]) + gc


def _by_hand(W, autograd):
    anp = autograd.numpy
    v0 = np.array([0.25, -0.5, 0.15])

    def through_aux(W):
        loss = lambda v: anp.sum(anp.tanh(anp.dot(W, v)) ** 2)      # noqa: E731
        return anp.sum(autograd.grad(loss)(v0) ** 2) + \
            anp.sum(anp.tanh(anp.dot(W, v0)) * W[0, :2])

    def value_and_grad(W):
        loss = lambda v, c: anp.sum((anp.tanh(anp.dot(W, v)) * c) ** 2)     # noqa: E731
        r = anp.tanh(anp.dot(W, v0)) * 1.5
        return loss(v0, 1.5) + anp.sum(autograd.grad(loss, 0)(v0, 1.5) * r[0]) + \
            autograd.grad(loss, 1)(v0, 1.5)
    return {"through_aux": through_aux, "value_and_grad": value_and_grad}


@pytest.mark.parametrize("f, which", [(_penalty_through_aux, "through_aux"),
                                      (_value_and_grad_with_aux, "value_and_grad")])
def test_has_aux_inside_differentiated_code(f, which):
    """sg.grad / sg.value_and_grad with has_aux=True called inside a function that is
    differentiated (w.r.t. what the loss closes over), the aux used downstream: to second
    order, against autograd (refused before: 'cannot be differentiated again')."""
    autograd = pytest.importorskip("autograd")
    anp = autograd.numpy
    W = np.array([[0.3, -0.2, 0.5], [0.1, 0.7, -0.4]])
    ref = _by_hand(W, autograd)[which]
    np.testing.assert_allclose(f(W), ref(W), rtol=1e-12)
    expected = autograd.grad(ref)(W)
    np.testing.assert_allclose(sg.grad(f)(W), expected, rtol=1e-10, atol=1e-12)
    V = np.cos(W)
    np.testing.assert_allclose(sg.jvp(f, (W,), (V,))[1], np.sum(expected * V), rtol=1e-10)
    hv = autograd.grad(lambda w: anp.sum(autograd.grad(ref)(w) * V))(W)
    np.testing.assert_allclose(sg.hvp(f)(W, v=V), hv, rtol=1e-9, atol=1e-11)
