"""srcgrad.compiler.analysis.callee_writes: which parameters a user function changes
in place, as its caller sees them (a table: function -> expected answer)."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler.analysis.callee_writes import HARD, SOFT, written_params

try:
    from scipy.special import logsumexp
except ImportError:      # pragma: no cover - SciPy is optional
    logsumexp = None


def iadd(a):
    a += 1.0
    return a


def setitem(a, b):
    a[0] = np.sum(b) * 2.0
    return a


def rebound_first(a):
    a = a.copy()
    a[0] = 2.0
    return a


def copied(a):
    t = np.array(a)
    t *= 2.0
    return t


def through_view(a):
    t = a.reshape(-1)
    t[0] = 9.0
    return t


def through_asarray(a):
    t = np.asarray(a)
    t *= 2.0
    return t


def fill(a, b):
    b.fill(0.0)
    return a


def copyto(a, b):
    np.copyto(a, b)
    return a


def out_kw(a, b):
    np.multiply(b, 2.0, out=a)
    return a


def nested(a, b):
    return setitem(b, 1.0) + a


def loop_rows(a):
    for row in a:
        row *= 2.0
    return a


def branch(a, flag):
    t = a if flag else a * 2.0
    t[0] = 1.0
    return t


def accumulate(a):
    total = 0.0
    for v in a:
        total += np.sum(v * v)
    return total


def rebinds(a):
    a = a + 1.0
    a += 2.0
    return a


def recursive(a, n):
    if n:
        return recursive(a, n - 1)
    a[0] = 1.0
    return a


CASES = [
    (iadd, {"a": SOFT}), (setitem, {"a": HARD}), (rebound_first, {}), (copied, {}),
    (through_view, {"a": HARD}), (through_asarray, {"a": SOFT}), (fill, {"b": HARD}),
    (copyto, {"a": HARD}), (out_kw, {"a": HARD}), (nested, {"b": HARD}),
    (loop_rows, {"a": SOFT}), (branch, {"a": HARD}), (accumulate, {}), (rebinds, {}),
    (recursive, {"a": HARD}),
]


@pytest.mark.parametrize("func,expected", CASES, ids=[f.__name__ for f, _ in CASES])
def test_written_params(func, expected):
    assert written_params(func) == expected


@pytest.mark.parametrize("func,expected", CASES, ids=[f.__name__ for f, _ in CASES])
def test_answers_match_python(func, expected):
    """What the table says is what Python does to an array argument."""
    import inspect
    names = list(inspect.signature(func).parameters)
    args = {"a": np.arange(1.0, 5.0).reshape(2, 2), "b": np.arange(5.0, 9.0).reshape(2, 2),
            "flag": True, "n": 2}
    given = {n: (args[n].copy() if isinstance(args[n], np.ndarray) else args[n]) for n in names}
    func(**given)
    changed = {n for n in names if isinstance(args[n], np.ndarray)
               and not np.array_equal(given[n], args[n])}
    assert changed == set(expected)


def stores_into_a_dict(a):
    d = {"a": a}
    d["z"] = 2.0 * a
    return d["z"]


def item_of_a_list(lst):
    t = lst[0]
    t += 1.0
    return t


def appends(lst, a):
    lst.append(a)
    return lst


CASES_2 = [(stores_into_a_dict, {}), (item_of_a_list, {"lst": SOFT}), (appends, {"lst": HARD})]


@pytest.mark.parametrize("func,expected", CASES_2, ids=[f.__name__ for f, _ in CASES_2])
def test_containers(func, expected):
    assert written_params(func) == expected


# -- NumPy's own functions are not read for writes: np.eye(len(mean)) builds its own array
# (it was taken to change ``mean``: a refusal of a program that changes nothing)

def _cov_of(mean, L):
    return L @ L.T + 1e-6 * np.eye(len(mean))


def uses_eye_of_len(mean, L):
    cov = _cov_of(mean, L)
    return np.sum(cov) * np.sum(mean)


def test_a_helper_calling_np_eye_changes_nothing():
    mean, L = np.array([0.4, -1.2]), np.array([[1.0, 0.0], [0.3, 0.8]])
    gm, gL = sg.grad(uses_eye_of_len)(mean, L)
    eps = 1e-6
    fd = np.array([(uses_eye_of_len(mean + eps * e, L) - uses_eye_of_len(mean - eps * e, L))
                   / (2 * eps) for e in np.eye(2)])
    np.testing.assert_allclose(gm, fd, rtol=1e-6)


# -- nor is a function with a rule: SciPy's logsumexp writes its own temporaries, and a
# helper passing its parameter to it was refused as changing that parameter

def _log_normalize(p):
    return p - logsumexp(p)


def uses_log_normalize(p):
    a = _log_normalize(p)
    return np.sum(a * p)


def test_a_helper_passing_its_parameter_to_a_function_with_a_rule_changes_nothing():
    if logsumexp is None:
        pytest.skip("SciPy is not installed")
    assert written_params(_log_normalize) == {}
    p = np.array([0.2, -1.0, 0.7])
    eps = 1e-6
    fd = np.array([(uses_log_normalize(p + eps * e) - uses_log_normalize(p - eps * e))
                   / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(sg.grad(uses_log_normalize)(p), fd, rtol=1e-6)


# -- in a loop, a name the body assigns again before reading it is not read by the next
# trip: a callee changing it in place is no conflict (autograd's fluidsim: it was refused)

def _project(vx):
    vx -= 0.5 * np.roll(vx, 1)
    return vx


def loop_reassigns_the_changed_temporary(v):
    for _ in range(2):
        v_updated = v * v
        v = _project(v_updated)
    return np.sum(v)


def loop_keeps_an_alias_of_the_changed_value(v):
    w = v * 1.0
    s = 0.0
    for _ in range(2):
        a = w
        w = _project(w)
        s = np.sum(a)
    return s + np.sum(w)


def test_a_loop_temporary_changed_by_a_callee_then_assigned_again():
    x = np.array([0.1, 0.2, 0.3])
    eps = 1e-6
    fd = np.array([(loop_reassigns_the_changed_temporary(x + eps * e) -
                    loop_reassigns_the_changed_temporary(x - eps * e)) / (2 * eps)
                   for e in np.eye(3)])
    np.testing.assert_allclose(sg.grad(loop_reassigns_the_changed_temporary)(x), fd,
                               rtol=1e-6, atol=1e-10)
    with pytest.raises(sg.UnsupportedSyntaxError, match="'a' \\(which shares memory with 'w'\\)"):
        sg.grad(loop_keeps_an_alias_of_the_changed_value)(x)
