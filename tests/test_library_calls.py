"""Calls into installed libraries: a function with Python source but no rule is not
transformed into its internals (the error names it and the ways out); SciPy's frozen
distributions (``st.norm(loc, scale).logpdf(x)``) resolve to the distributions' rules."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler.source import library_name

st = pytest.importorskip("scipy.stats")

X = np.array([0.3, -0.5, 1.2])
EPS = 1e-6


def fd_grad(f, x):
    return np.array([(f(x + EPS * e) - f(x - EPS * e)) / (2 * EPS) for e in np.eye(x.size)])


def frozen(x):
    d = st.norm(0.5, 2.0)
    return np.sum(d.logpdf(x)) + np.sum(st.gamma(2.0, scale=1.5).logpdf(x * x + 0.1))


def test_frozen_distributions_use_the_distributions_rules():
    np.testing.assert_allclose(sg.grad(frozen)(X), fd_grad(frozen, X), rtol=1e-6)
    _, t = sg.jvp(frozen, (X,), (np.ones(3),))
    assert t == pytest.approx(fd_grad(frozen, X).sum(), rel=1e-6)


def frozen_from_input(x):
    d = st.norm(x[0], 2.0)         # the distribution would hold a value with a gradient
    return np.sum(d.logpdf(x))


def test_a_frozen_distribution_of_a_varying_parameter_is_refused():
    with pytest.raises(sg.NonDifferentiableError, match="line"):
        sg.grad(frozen_from_input)(X)


def skewnorm_logpdf(x):
    return np.sum(st.skewnorm.logpdf(x, 2.0))


def test_a_library_function_without_rule_is_named_not_transformed():
    with pytest.raises(sg.NonDifferentiableError) as e:
        sg.grad(skewnorm_logpdf)(X)
    text = str(e.value)
    assert "scipy.stats.skewnorm.logpdf" in text and "transform_library('scipy')" in text
    assert "_distn_infrastructure" not in text


def test_user_functions_are_not_library_code():
    assert library_name(frozen) is None
    assert library_name(st.skewnorm.logpdf.__func__) is not None
