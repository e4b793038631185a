"""Differentiates the example-program corpus (tests/corpus_examples_*.py: programs in the
style of an AD library's shipped examples and of JAX's, the small test functions of a
source-transformation AD's suite, and programs mixing the idioms people write).

For each case, in float64:

* ``sg.grad`` with respect to every argument holding floats, against central finite
  differences and against HIPS autograd where autograd runs the program (a second copy
  of the module, its imports rewritten to ``autograd.numpy`` / ``autograd.scipy``), with
  the gradient's structure that of the argument;
* ``sg.jvp`` along a random direction against central differences along it;
* ``sg.hvp`` with respect to the first argument that is a float or a float array, against
  central differences of central differences (and autograd's Hessian-vector product);
* for the scalar programs of tests/corpus_examples_small.py, ``sg.grad(sg.grad(f))``
  against the second central difference, on both sides of their branches.

The checks of a gradient's structure, the finite differences and the jvp check are those
of tests/test_corpus_idioms.py.  What srcgrad refuses today is a strict xfail that must
raise UnsupportedSyntaxError / NonDifferentiableError naming the corpus file and line
(``REFUSED``); what it gets wrong is a strict xfail with reason "BUG:" (``BUGS``).
"""
import copy
import pathlib
import sys
import types
import warnings

import numpy as np
import pytest

import srcgrad as sg

pytest.importorskip("scipy")             # the programs call SciPy (optional for srcgrad)
import corpus_examples_jax               # noqa: E402
import corpus_examples_mixed             # noqa: E402
import corpus_examples_models            # noqa: E402
import corpus_examples_small             # noqa: E402
import test_corpus_idioms as base        # noqa: E402

try:                                     # the oracle is optional
    import autograd
    import autograd.numpy as anp
except ImportError:                      # pragma: no cover
    autograd = None

MODULES = (corpus_examples_models, corpus_examples_small, corpus_examples_jax,
           corpus_examples_mixed)
CASES = [(name, f, args, mod) for mod in MODULES for name, f, args in mod.CASES]

# The construct each refusal is about: one reason for every check, or (reverse, forward,
# hvp) with None where that check works (hvp: forward over reverse, as forward if absent).
REFUSED = {
    "namedtuple_built_and_replaced": "a namedtuple's _replace (collections' code, no rule)",
}

# (the adjoint of sqrt of a negative discriminant, on a path that does not reach the
# result, ran with a zero cotangent: 0 / (2 * nan) gave NaN where the gradient is 0, in
# bounce_off_a_board_all_missed and sqrt_skipped_by_continue; fixed by symbolic zeros
# through branch joins, tests/test_symbolic_zeros.py)
BUGS = {}

# hvp: programs whose first float argument is a container (no flat vector to move along)
# are left out; so are the programs too slow for differences of differences.
HVP_SKIP = {"convnet_objects_in_a_list"}


def _mode_reason(table, name, mode):
    reason = table.get(name)
    if isinstance(reason, tuple):
        which = {"reverse": 0, "forward": 1, "hvp": 2}[mode]
        reason = reason[which] if which < len(reason) else reason[1]
    return reason


# -- the autograd twin ------------------------------------------------------------------
_REWRITES = [
    ("import numpy as np", "import autograd.numpy as np"),
    ("import numpy.random as npr", "import autograd.numpy.random as npr"),
    ("from numpy.linalg import", "from autograd.numpy.linalg import"),
    ("from scipy.special import", "from autograd.scipy.special import"),
    ("from scipy.linalg import solve_triangular",
     "from autograd.scipy.linalg import solve_triangular"),
    ("from scipy.stats import multivariate_normal as mvn",
     "import autograd.scipy.stats.multivariate_normal as mvn"),
    ("from scipy.stats import norm", "import autograd.scipy.stats.norm as norm"),
    ("from scipy.stats import t as student_t", "import autograd.scipy.stats.t as student_t"),
    ("from scipy.integrate import odeint", "from autograd.scipy.integrate import odeint"),
    ("from scipy.signal import convolve", "from autograd.scipy.signal import convolve"),
    # a derivative taken inside a program: autograd's, with respect to the first argument
    ("import srcgrad as sg", "import srcgrad as sg\n"
                             "from autograd import grad as _autograd_grad"),
    ("sg.grad(", "_autograd_grad("),
]
_TWINS = {}


def twin(mod):
    """{name: (function, args)} of a copy of ``mod`` on autograd."""
    if mod.__name__ not in _TWINS:
        path = pathlib.Path(mod.__file__).resolve()
        text = path.read_text()
        for a, b in _REWRITES:
            text = text.replace(a, b)
        text = text.replace("_autograd_grad(loglike, wrt=0)", "_autograd_grad(loglike, 0)")
        copy_ = types.ModuleType(mod.__name__ + "_on_autograd")
        copy_.__file__ = str(path)
        sys.modules[copy_.__name__] = copy_
        exec(compile(text, str(path), "exec"), copy_.__dict__)
        _TWINS[mod.__name__] = {name: (f, args) for name, f, args in copy_.CASES}
    return _TWINS[mod.__name__]


def _twin_function(mod, name, args):
    f, targs = twin(mod)[name]
    if not base.same_values(targs, args):
        raise AssertionError(f"the twin corpus drew other inputs for {name}")
    return f, targs


def autograd_grads(mod, name, args, wrt):
    """autograd's gradients {(i, path): value}, or None where autograd cannot run it."""
    if autograd is None:
        return None
    f, targs = _twin_function(mod, name, args)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = {}
            for i in wrt:
                g = autograd.grad(f, i)(*copy.deepcopy(targs))
                for path, _ in base.float_leaves(args[i]):
                    out[i, path] = np.asarray(base.get(g, path), dtype=np.float64)
            return out
    except Exception:                    # autograd cannot run this program
        return None


def agrees(theirs, fd, wrt):
    """autograd is used as an oracle where it agrees with the differences themselves."""
    return all(np.allclose(theirs[i, p], e, rtol=1e-4, atol=1e-5 * max(1, np.max(np.abs(e))))
               for i in wrt for p, e in fd[i].items())


# -- the checks -------------------------------------------------------------------------
def check_grad(name, f, args, mod):
    wrt = base.float_args(args)
    before = copy.deepcopy(args)
    got = base.run_checked(lambda: sg.grad(f, wrt=wrt)(*copy.deepcopy(args)), mod)
    assert isinstance(got, tuple) and len(got) == len(wrt), \
        f"wrt={wrt} must give a tuple of {len(wrt)} gradients, got {type(got).__name__}"
    got = sg.grad(f, wrt=wrt)(*args)
    assert base.same_values(args, before), "sg.grad changed its inputs"
    with np.errstate(all="ignore"):
        fd = {i: base.numeric_grad(f, args, i) for i in wrt}
    for i, g in zip(wrt, got):
        base.same_structure(g, args[i], f"{name} d/d(arg {i})")
        for path, e in fd[i].items():
            base.close(base.get(g, path), e, f"{name} d/d(arg {i}){path} vs finite differences",
                       rtol=1e-5, atol=1e-6)
    theirs = autograd_grads(mod, name, args, wrt)
    if theirs is not None and agrees(theirs, fd, wrt):
        for i, g in zip(wrt, got):
            for path, _ in base.float_leaves(args[i]):
                base.close(base.get(g, path), theirs[i, path],
                           f"{name} d/d(arg {i}){path} vs autograd", 1e-6, 1e-7)


def _first_flat_float(args):
    for i, a in enumerate(args):
        if base.is_float_leaf(a):
            return i
    return None


def _with(args, i, value):
    out = list(copy.deepcopy(args))
    out[i] = value
    return out


def numeric_hvp(f, args, i, v, h=1e-4):
    """(H v) by central differences, along e_j, of the central difference along v."""
    x = np.asarray(args[i], dtype=np.float64)
    scalar_arg = not isinstance(args[i], np.ndarray)

    def at(point):
        return args[i].__class__(point) if scalar_arg else point

    def along_v(point):
        hi = base.scalar(f(*_with(args, i, at(point + h * np.asarray(v)))))
        lo = base.scalar(f(*_with(args, i, at(point - h * np.asarray(v)))))
        return (hi - lo) / (2 * h)

    out = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        e = np.zeros(x.shape)
        e[idx] = h
        out[idx] = (along_v(x + e) - along_v(x - e)) / (2 * h)
    return out


def autograd_hvp(mod, name, args, i, v):
    if autograd is None:
        return None
    f, targs = _twin_function(mod, name, args)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            def directional(*a):
                return anp.sum(autograd.grad(f, i)(*a) * v)
            return np.asarray(autograd.grad(directional, i)(*copy.deepcopy(targs)))
    except Exception:
        return None


def check_hvp(name, f, args, mod):
    i = _first_flat_float(args)
    rng = np.random.default_rng(sum(map(ord, name)) + 1)
    v = rng.standard_normal(np.shape(args[i]))
    v = v if isinstance(args[i], np.ndarray) else float(v)
    got = base.run_checked(lambda: sg.hvp(f, wrt=i)(*copy.deepcopy(args), v=v), mod)
    with np.errstate(all="ignore"):
        expected = numeric_hvp(f, args, i, v)
    scale = max(1.0, float(np.max(np.abs(expected))))
    base.close(got, expected, f"{name} hvp vs differences of differences", 1e-3, 1e-4 * scale)
    theirs = autograd_hvp(mod, name, args, i, v)
    if theirs is not None and np.allclose(theirs, expected, rtol=1e-3, atol=1e-4 * scale):
        base.close(got, theirs, f"{name} hvp vs autograd", 1e-6, 1e-7)


def check_grad_of_grad(name, f, inputs):
    for args in inputs:
        for i, a in enumerate(args):
            if not isinstance(a, float):
                continue
            got = sg.grad(sg.grad(f, wrt=i), wrt=i)(*args)
            h = 1e-4
            with np.errstate(all="ignore"):
                hi, lo = f(*_with(args, i, a + h)), f(*_with(args, i, a - h))
                expected = (hi - 2 * f(*args) + lo) / h ** 2
            base.close(got, expected, f"{name}{args} d2/d(arg {i})2 vs differences", 1e-4, 1e-4)
            if autograd is not None:
                tf, _ = twin(corpus_examples_small)[name]
                with warnings.catch_warnings():      # (a constant second derivative)
                    warnings.simplefilter("ignore")
                    theirs = autograd.grad(autograd.grad(tf, i), i)(*args)
                base.close(got, theirs, f"{name}{args} d2/d(arg {i})2 vs autograd", 1e-8, 1e-8)


# -- parametrization ---------------------------------------------------------------------
def _marks(name, mode):
    bug = _mode_reason(BUGS, name, mode)
    if bug is not None:
        return [pytest.mark.xfail(strict=True, reason=bug)]
    refusal = _mode_reason(REFUSED, name, mode)
    if refusal is not None:
        return [pytest.mark.xfail(strict=True, reason=refusal,
                                  raises=(sg.UnsupportedSyntaxError, sg.NonDifferentiableError))]
    return []


def _params(mode):
    return [pytest.param(name, f, args, mod, id=name, marks=_marks(name, mode))
            for name, f, args, mod in CASES]


def test_corpus_is_large_and_names_are_unique():
    names = [name for name, _, _, _ in CASES]
    assert len(names) >= 40, len(names)
    assert len(set(names)) == len(names), sorted(n for n in names if names.count(n) > 1)
    assert set(REFUSED) <= set(names) and set(BUGS) <= set(names) and HVP_SKIP <= set(names)
    assert set(corpus_examples_small.SCALAR) <= set(names)
    assert all(_mode_reason(BUGS, n, m).startswith("BUG:") for n in BUGS
               for m in ("reverse", "forward", "hvp") if _mode_reason(BUGS, n, m))
    for name in set(REFUSED) & set(BUGS):       # one check refused, another wrong
        for mode in ("reverse", "forward", "hvp"):
            assert None in (_mode_reason(REFUSED, name, mode), _mode_reason(BUGS, name, mode))


@pytest.mark.parametrize("name, f, args, mod", _params("reverse"))
def test_grad(name, f, args, mod):
    check_grad(name, f, args, mod)


@pytest.mark.parametrize("name, f, args, mod", _params("forward"))
def test_jvp(name, f, args, mod):
    base.check_jvp(name, f, args, mod)


@pytest.mark.parametrize("name, f, args, mod", [
    p for p in _params("hvp")
    if _first_flat_float(p.values[2]) is not None and p.values[0] not in HVP_SKIP])
def test_hvp(name, f, args, mod):
    check_hvp(name, f, args, mod)


@pytest.mark.parametrize("name", sorted(corpus_examples_small.SCALAR))
def test_grad_of_grad(name):
    f = dict((n, fn) for n, fn, _ in corpus_examples_small.CASES)[name]
    check_grad_of_grad(name, f, corpus_examples_small.SCALAR[name])


# -- odeint with a container in args= ----------------------------------------------------
def _field(y, t, params):
    (W, b), = params
    return np.tanh(y @ W + b)


def _ode_loss(params, y0, t):
    from scipy.integrate import odeint
    return np.sum(odeint(_field, y0, t, (params,), rtol=1e-10, atol=1e-10))


def test_odeint_refuses_arrays_held_in_a_container_in_args():
    """Gradients reach the arrays given directly in args=; a list of (W, b) there (as in
    a neural-ODE example) is refused, never given a zero gradient."""
    pytest.importorskip("scipy")
    rs = np.random.RandomState(0)
    params = [(rs.randn(2, 2), rs.randn(2))]
    y0, t = np.array([1.0, 0.5]), np.linspace(0.0, 0.5, 3)
    with pytest.raises(sg.NonDifferentiableError, match=r"args\[0\] is a list holding arrays"):
        sg.grad(_ode_loss, wrt=0)(params, y0, t)
    with pytest.raises(sg.NonDifferentiableError, match=r"args\[0\] is a list holding arrays"):
        sg.jvp(_ode_loss, (params, y0, t), ([(np.ones((2, 2)), np.ones(2))], None, None))
    # y0 alone still has its gradient (the container is not differentiated)
    got = sg.grad(_ode_loss, wrt=1)(params, y0, t)
    fd = base.numeric_grad(_ode_loss, (params, y0, t), 1)[()]
    base.close(got, fd, "d/dy0 with a container in args", 1e-5, 1e-6)


# -- a library function with a rule, passed directly (K-FAC's hessian(logsumexp)) -------
def _library_functions():
    from scipy.special import expit, logsumexp
    from scipy.stats import norm
    return [pytest.param(expit, 0.3, id="expit"),
            pytest.param(logsumexp, np.array([0.1, -0.5, 1.2]), id="logsumexp"),
            pytest.param(norm.logpdf, 0.3, id="norm.logpdf")]


@pytest.mark.parametrize("func, x", _library_functions())
def test_grad_and_hessian_of_a_library_function_passed_directly(func, x):
    got = sg.grad(func)(x)
    fd = base.numeric_grad(func, (x,), 0)[()]
    base.close(got, fd, f"{func.__name__} gradient vs finite differences", 1e-6, 1e-7)
    hess = sg.hessian(func)(x)
    x = np.asarray(x, dtype=np.float64)
    h = 1e-5
    columns = [(np.asarray(sg.grad(func)(x + e)) - np.asarray(sg.grad(func)(x - e))) / (2 * h)
               for e in np.eye(x.size).reshape((x.size,) + x.shape) * h]
    base.close(hess, np.reshape(np.stack(columns, axis=-1), np.shape(hess)),
               f"{func.__name__} hessian vs differences of the gradient", 1e-5, 1e-6)
