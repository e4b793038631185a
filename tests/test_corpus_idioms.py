"""Differentiates every program of the idiom corpus (tests/corpus_idioms*.py: the
Python people really write).

For each case, in float64:

* ``sg.grad`` with respect to every argument holding floats, against central finite
  differences, with the gradient's structure (dict / list / tuple / namedtuple /
  dataclass, shapes) that of the argument; the inputs are left unchanged;
* the same gradient against HIPS autograd, where autograd runs the program: a second
  copy of the corpus is loaded with its imports rewritten to ``autograd.numpy`` (the
  oracle is used where it agrees with the differences itself);
* ``sg.jvp`` along a random direction against central differences along it.

What srcgrad does not support yet must be refused with an UnsupportedSyntaxError or
NonDifferentiableError that names the corpus file and a line: those cases are strict
xfails (``REFUSED``) so that a fix shows up as an XPASS.  A case srcgrad gets WRONG
(``BUGS``: a wrong number, or another exception) is a strict xfail too, reason "BUG:",
described there.
"""
import copy
import dataclasses
import pathlib
import re
import sys
import types
import warnings

import numpy as np
import pytest

import srcgrad as sg
import corpus_idioms
import corpus_idioms_everyday
import corpus_idioms_objects
import corpus_idioms_sequences

try:                                     # the oracle is optional
    import autograd
except ImportError:                      # pragma: no cover
    autograd = None

MODULES = (corpus_idioms, corpus_idioms_sequences, corpus_idioms_objects, corpus_idioms_everyday)
CASES = [(name, f, args, mod) for mod in MODULES for name, f, args in mod.CASES]
EPS = 1e-6
RTOL = 1e-6
ATOL = 1e-7

# What srcgrad refuses today, by case: a reason for both modes, or (reverse, forward)
# with None where that mode works.  Grouped by the construct that is missing.
REFUSED = {
    "nonlocal_accumulator": "nonlocal writes in a closure called as a value (a factory's)",
}

# What srcgrad gets WRONG today (a wrong number, or another exception); per mode as REFUSED.
BUGS = {
    "em_q_function_detached_responsibilities": "BUG: (of the check) the finite-difference "
                                               "reference differentiates through sg.detach; "
                                               "srcgrad's detached gradient is checked in "
                                               "tests/test_statements_more.py",
}


def _mode_reason(table, name, mode):
    reason = table.get(name)
    if isinstance(reason, tuple):
        reason = reason[0 if mode == "reverse" else 1]
    return reason


# -- structures: dict / list / tuple / namedtuple / dataclass / plain object ---------------
def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _is_object(x):
    return dataclasses.is_dataclass(x) and not isinstance(x, type) or \
        (hasattr(x, "__dict__") and not isinstance(x, (np.ndarray, types.FunctionType, type,
                                                       np.ufunc, types.BuiltinFunctionType)))


def is_float_leaf(v):
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (float, np.floating)):
        return True
    return isinstance(v, np.ndarray) and v.dtype.kind == "f"


def leaves(x, path=()):
    """[(path, value)] of every leaf of a nested structure."""
    if isinstance(x, dict):
        return [lf for k in x for lf in leaves(x[k], path + (("key", k),))]
    if isinstance(x, (list, tuple)):
        return [lf for i, v in enumerate(x) for lf in leaves(v, path + (("index", i),))]
    if _is_object(x):
        return [lf for k, v in vars(x).items() for lf in leaves(v, path + (("attr", k),))]
    return [(path, x)]


def float_leaves(x):
    return [(p, v) for p, v in leaves(x) if is_float_leaf(v)]


def get(x, path):
    for kind, k in path:
        x = getattr(x, k) if kind == "attr" else x[k]
    return x


def replace(x, path, value):
    """A copy of ``x`` with the leaf at ``path`` replaced (``x`` untouched)."""
    if not path:
        return value
    (kind, k), rest = path[0], path[1:]
    if kind == "key":
        out = dict(x)
        out[k] = replace(x[k], rest, value)
        return out
    if kind == "attr":
        out = copy.copy(x)
        object.__setattr__(out, k, replace(getattr(x, k), rest, value))
        return out
    items = list(x)
    items[k] = replace(x[k], rest, value)
    if _is_namedtuple(x):
        return type(x)(*items)
    return tuple(items) if isinstance(x, tuple) else items


def same_structure(got, like, where):
    """``got`` (a gradient or tangent) has the containers and shapes of ``like``."""
    if isinstance(like, (dict, list, tuple)) or _is_object(like):
        assert type(got) is type(like), \
            f"{where}: a {type(like).__name__} argument got a {type(got).__name__} gradient"
        if isinstance(like, dict):
            assert set(got) == set(like), f"{where}: keys {sorted(got)} != {sorted(like)}"
            for k in like:
                same_structure(got[k], like[k], f"{where}[{k!r}]")
        elif isinstance(like, (list, tuple)):
            assert len(got) == len(like), f"{where}: length {len(got)} != {len(like)}"
            for i, (g, v) in enumerate(zip(got, like)):
                same_structure(g, v, f"{where}[{i}]")
        else:
            for k, v in vars(like).items():
                if float_leaves(v):
                    same_structure(getattr(got, k), v, f"{where}.{k}")
        return
    if isinstance(like, np.ndarray) and like.dtype.kind == "f":
        assert isinstance(got, (np.ndarray, np.floating)) and np.shape(got) == like.shape, \
            f"{where}: shape {np.shape(got)} != {like.shape} ({type(got).__name__})"
    elif is_float_leaf(like):
        assert np.ndim(got) == 0 and not isinstance(got, bool), f"{where}: not a scalar: {got!r}"


def close(got, expected, where, rtol=RTOL, atol=ATOL):
    g = np.asarray(got, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(e))) if e.size else 1.0)
    assert g.shape == e.shape, f"{where}: shape {g.shape} != {e.shape}"
    assert np.allclose(g, e, rtol=rtol, atol=atol * scale), \
        f"{where}: srcgrad and the reference differ\nsrcgrad:\n{g!r}\nreference:\n{e!r}"


def same_values(a, b):
    la, lb = leaves(a), leaves(b)
    if [p for p, _ in la] != [p for p, _ in lb]:
        return False
    for (_, x), (_, y) in zip(la, lb):
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not np.array_equal(x, y):
                return False
        elif callable(x) and callable(y):
            # a function a value holds (Dense(W, b, activation=np.tanh)): the twin's is
            # autograd's function of the same name
            if getattr(x, "__name__", x) != getattr(y, "__name__", y):
                return False
        elif x != y:
            return False
    return True


# -- references -------------------------------------------------------------------------
def scalar(v):
    v = np.asarray(v, dtype=np.float64)
    assert v.size == 1, f"the corpus function returned shape {v.shape}"
    return float(v.reshape(()))


def bump(x, path, leaf, delta):
    new = leaf + delta
    if not isinstance(leaf, np.ndarray):
        new = type(leaf)(new)
    return replace(x, path, new)


def numeric_grad(f, args, i):
    """Central differences of f(*args) with respect to every float leaf of args[i]."""
    out = {}
    for path, leaf in float_leaves(args[i]):
        if isinstance(leaf, np.ndarray):
            g = np.zeros(leaf.shape)
            for idx in np.ndindex(*leaf.shape):
                e = np.zeros(leaf.shape)
                e[idx] = EPS
                hi = list(copy.deepcopy(args))
                lo = list(copy.deepcopy(args))
                hi[i] = bump(args[i], path, leaf, e)
                lo[i] = bump(args[i], path, leaf, -e)
                g[idx] = (scalar(f(*hi)) - scalar(f(*lo))) / (2 * EPS)
        else:
            hi = list(copy.deepcopy(args))
            lo = list(copy.deepcopy(args))
            hi[i] = bump(args[i], path, leaf, EPS)
            lo[i] = bump(args[i], path, leaf, -EPS)
            g = (scalar(f(*hi)) - scalar(f(*lo))) / (2 * EPS)
        out[path] = g
    return out


def direction(x, rng):
    """A random tangent with the structure of ``x`` (None for what has no floats)."""
    if not float_leaves(x):
        return None
    t = x
    for path, leaf in float_leaves(x):
        v = rng.standard_normal(np.shape(leaf))
        t = replace(t, path, v if isinstance(leaf, np.ndarray) else type(leaf)(v))
    return t


def numeric_jvp(f, args, tangents):
    def moved(s):
        out = []
        for a, t in zip(args, tangents):
            a = copy.deepcopy(a)
            if t is not None:
                for path, leaf in float_leaves(a):
                    a = bump(a, path, leaf, s * get(t, path))
            out.append(a)
        return out
    return (scalar(f(*moved(EPS))) - scalar(f(*moved(-EPS)))) / (2 * EPS)


# -- the autograd twin ----------------------------------------------------------------------
_TWINS = {}


def twin(mod):
    """A second copy of a corpus module on autograd.numpy (its import lines rewritten):
    {name: (function, args)}."""
    if mod.__name__ not in _TWINS:
        path = pathlib.Path(mod.__file__).resolve()
        text = path.read_text()
        for a, b in [("import numpy as np", "import autograd.numpy as np"),
                     ("import numpy.random as npr", "import autograd.numpy.random as npr"),
                     ("from scipy.special import", "from autograd.scipy.special import")]:
            text = text.replace(a, b)
        copy_ = types.ModuleType(mod.__name__ + "_on_autograd")
        copy_.__file__ = str(path)
        sys.modules[copy_.__name__] = copy_          # dataclasses look their module up
        exec(compile(text, str(path), "exec"), copy_.__dict__)
        _TWINS[mod.__name__] = {name: (f, args) for name, f, args in copy_.CASES}
    return _TWINS[mod.__name__]


def autograd_grads(mod, name, args, wrt):
    """autograd's gradients {(i, path): value}, or None where autograd cannot run it."""
    if autograd is None:
        return None
    try:
        f, targs = twin(mod)[name]
        if not same_values(targs, args):
            raise AssertionError(f"the twin corpus drew other inputs for {name}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = {}
            for i in wrt:
                g = autograd.grad(f, i)(*copy.deepcopy(targs))
                for path, _ in float_leaves(args[i]):
                    out[i, path] = np.asarray(get(g, path), dtype=np.float64)
            return out
    except AssertionError:
        raise
    except Exception:                    # autograd cannot run this program
        return None


# -- the checks -------------------------------------------------------------------------
def located(err, mod):
    """A refusal must name the corpus file and a line of it."""
    text = str(err)
    where = pathlib.Path(mod.__file__).name
    assert where in text, f"the error does not name {where}: {text}"
    assert re.search(r"line \d+|:\d+", text), f"the error names no line: {text}"


def run_checked(fn, mod):
    try:
        return fn()
    except (sg.UnsupportedSyntaxError, sg.NonDifferentiableError) as e:
        located(e, mod)
        raise


def float_args(args):
    return tuple(i for i, a in enumerate(args) if float_leaves(a))


def check_grad(name, f, args, mod):
    wrt = float_args(args)
    before = copy.deepcopy(args)
    got = run_checked(lambda: sg.grad(f, wrt=wrt)(*copy.deepcopy(args)), mod)
    assert isinstance(got, tuple) and len(got) == len(wrt), \
        f"wrt={wrt} must give a tuple of {len(wrt)} gradients, got {type(got).__name__}"
    got = sg.grad(f, wrt=wrt)(*args)
    assert same_values(args, before), "sg.grad changed its inputs"
    with np.errstate(all="ignore"):
        fd = {i: numeric_grad(f, args, i) for i in wrt}
    for i, g in zip(wrt, got):
        same_structure(g, args[i], f"{name} d/d(arg {i})")
        for path, e in fd[i].items():
            close(get(g, path), e, f"{name} d/d(arg {i}){path} vs finite differences",
                  rtol=1e-5, atol=1e-6)
    theirs = autograd_grads(mod, name, args, wrt)
    if theirs is not None:
        if all(np.allclose(theirs[i, p], e, rtol=1e-4, atol=1e-5 * max(1, np.max(np.abs(e))))
               for i in wrt for p, e in fd[i].items()):
            for i, g in zip(wrt, got):
                for path, _ in float_leaves(args[i]):
                    close(get(g, path), theirs[i, path],
                          f"{name} d/d(arg {i}){path} vs autograd", RTOL, ATOL)


def check_jvp(name, f, args, mod):
    rng = np.random.default_rng(sum(map(ord, name)))
    tangents = tuple(direction(a, rng) for a in args)
    before = copy.deepcopy(args)
    out, dout = run_checked(lambda: sg.jvp(f, args, tangents), mod)
    assert same_values(args, before), "sg.jvp changed its inputs"
    close(out, scalar(f(*copy.deepcopy(args))), f"{name} value", 1e-12, 1e-12)
    with np.errstate(all="ignore"):
        expected = numeric_jvp(f, args, tangents)
    close(dout, expected, f"{name} jvp vs finite differences", 1e-5, 1e-6)


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
    assert len(names) >= 150, len(names)
    assert len(set(names)) == len(names), sorted(n for n in names if names.count(n) > 1)
    assert set(REFUSED) <= set(names) and set(BUGS) <= set(names)
    for name in set(REFUSED) & set(BUGS):       # one mode refused, the other wrong
        for mode in ("reverse", "forward"):
            assert None in (_mode_reason(REFUSED, name, mode), _mode_reason(BUGS, name, mode))
    assert all(_mode_reason(BUGS, n, m).startswith("BUG:") for n in BUGS
               for m in ("reverse", "forward") if _mode_reason(BUGS, n, m))


@pytest.mark.parametrize("name, f, args, mod", _params("reverse"))
def test_grad(name, f, args, mod):
    check_grad(name, f, args, mod)


@pytest.mark.parametrize("name, f, args, mod", _params("forward"))
def test_jvp(name, f, args, mod):
    check_jvp(name, f, args, mod)
