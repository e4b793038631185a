"""np.prod to any order: the adjoint of its partials (rules/numpy/reductions.py,
``prod_partials_grad``) is differentiated through its source, so the third and
fourth derivatives exist (they raised "prod_partials_grad() has no derivative rule").
Checked against central differences of the order below, with zeros in the input
(the partials are exact there), along an axis and over all axes, both modes."""
import numpy as np
import pytest

import srcgrad as sg

V = np.array([0.5, 0.2, -0.4, 0.3])


def _fd(fn, x, h=1e-5):
    return np.array([(fn(x + h * e) - fn(x - h * e)) / (2 * h) for e in np.eye(len(x))])


def all_axes(x):
    return np.prod(x) * np.sin(x[0])


def along_an_axis(x):
    return np.sum(np.prod(x.reshape(2, 2), axis=0) ** 2)


def kept_dims(x):
    return np.sum(np.prod(x.reshape(2, 2), axis=1, keepdims=True) * x.reshape(2, 2))


def _along(f):
    return lambda x: np.sum(sg.grad(f)(x) * V)


@pytest.mark.parametrize("f", [all_axes, along_an_axis, kept_dims], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [np.array([0.3, -0.7, 1.1, 0.9]),
                               np.array([0.0, -0.7, 1.1, 0.0])], ids=["plain", "zeros"])
def test_third_and_fourth_order(f, x):
    second = _along(_along(f))             # <H v, v>
    np.testing.assert_allclose(sg.grad(second)(x), _fd(second, x), rtol=1e-5, atol=1e-6)
    third = _along(second)
    np.testing.assert_allclose(sg.grad(third)(x), _fd(third, x), rtol=1e-4, atol=1e-5)
    _, t = sg.jvp(second, (x,), (V,))
    assert t == pytest.approx(_fd(second, x) @ V, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("seed", [60, 87, 118, 192, 240, 280, 364])
def test_third_order_fuzz_programs_with_prod(seed):
    from test_fuzz_idioms import run_seed_third_order
    out = run_seed_third_order(seed)
    assert out.status != "fail", f"seed {seed}: {out.detail}\n{out.program.source}"
