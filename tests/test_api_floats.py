"""Python float arguments through the higher-order API (gradcheck, forward Jacobians)."""
import numpy as np

import srcgrad as sg
from gradcheck_util import numeric_grad


def f(x, w):
    return np.sum(np.sin(x * w))


X = np.array([0.1, 0.2, 0.3])


def test_forward_jacobian_with_respect_to_a_float():
    jac = sg.jacobian(f, wrt=1, mode="forward")(X, 2.0)
    assert np.shape(jac) == ()
    assert np.isclose(jac, numeric_grad(f, (X, 2.0), 1), rtol=1e-6)


def test_gradcheck_with_a_float_argument():
    assert sg.gradcheck(f, X, 2.0)
    assert sg.gradcheck(f, X, 2.0, wrt=1)
