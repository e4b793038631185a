"""try / except / else / finally in differentiated code (compiler/lower/trying.py):
the gradient follows the block that ran; checked against central finite differences
on both paths, in both modes."""
import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import fd_of as fd

RNG = np.random.default_rng(11)


def cholesky_or_fallback(A, shift):
    K = A @ A.T + shift * np.eye(3)
    try:
        L = np.linalg.cholesky(K)
    except np.linalg.LinAlgError as err:
        L = np.diag(np.abs(np.diag(K)) + 1.0) * (len(str(err)) > 0)
    else:
        L = L * 1.5
    finally:
        scale = 2.0
    return scale * np.sum(np.log(np.abs(np.diag(L)))) + np.sum(L)


def several_handlers(x):
    total = np.sum(x)
    try:
        if total > 0:
            raise ValueError("positive")
        y = np.sin(x)
    except KeyError:
        y = x * 0.0
    except ValueError:
        y = np.cos(x) * total
    return np.sum(y ** 2)


def in_a_loop(x):
    acc = 0.0
    for i in range(3):
        try:
            v = np.log(x - i)            # nan (no exception): kept as NumPy gives it
            acc = acc + np.sum(np.where(np.isfinite(v), v, 0.0))
        except FloatingPointError:
            acc = acc - 1.0
    return acc


@pytest.mark.parametrize("f, x", [
    (lambda A: cholesky_or_fallback(A, 0.5), RNG.normal(size=(3, 3))),       # cholesky works
    (lambda A: cholesky_or_fallback(A, -50.0), RNG.normal(size=(3, 3))),     # it raises
    (several_handlers, np.array([0.3, 0.9, 0.2])),                            # ValueError
    (several_handlers, np.array([-0.3, 0.1, -0.2])),                          # no exception
    (in_a_loop, np.array([3.5, 4.0, 5.5])),
], ids=["body", "handler", "second_handler", "no_exception", "loop"])
def test_the_gradient_follows_the_block_that_ran(f, x):
    def g(v):
        with np.errstate(all="ignore"):
            r = f(v)
        return r
    got = sg.grad(g)(x)
    np.testing.assert_allclose(got, fd(g, x), rtol=1e-5, atol=1e-7)
    t = RNG.normal(size=x.shape)
    _, dout = sg.jvp(g, (x,), (t,))
    np.testing.assert_allclose(dout, np.sum(got * t), rtol=1e-5, atol=1e-7)


def partly_done(x):
    a = x * 0.0
    try:
        a = x * 2.0
        b = np.linalg.cholesky(-np.eye(2)) @ x[:2]
    except np.linalg.LinAlgError:
        b = a[:2]                     # Python sees a = x * 2 here
    return np.sum(b)


@pytest.mark.parametrize("f, what", [(partly_done, "assigned in the try block before")])
def test_what_the_rewrite_cannot_keep_is_refused_at_the_users_line(f, what):
    with pytest.raises(sg.UnsupportedSyntaxError, match=f"(?s){what}.*test_try\\.py"):
        sg.grad(f)(np.ones(3))


def safe_log(v):
    try:
        if np.any(v <= 0):
            raise ValueError("non-positive")
        return np.log(v)
    except ValueError:
        return np.log(np.abs(v) + 1.0)


def returns_from_try_in_a_helper(x):
    return np.sum(safe_log(x ** 2 + 0.1)) + np.sum(safe_log(x))


def returns_from_the_body_or_after(x):
    y = x * 3.0
    try:
        if np.all(x > 1.0):
            return np.sum(np.sqrt(x))
        y = np.sin(x)
    except ValueError:
        return 0.0
    return np.sum(y ** 2)


def rebinds_on_one_path(x):
    y = x * 3.0                        # (bound before the try: the other path keeps it)
    try:
        z = np.sqrt(x)
        if np.all(x > 1.0):
            y = z * x
    except ValueError:
        pass
    return np.sum(y ** 2)


@pytest.mark.parametrize("f, x", [
    (rebinds_on_one_path, np.array([1.5, 2.0])),
    (rebinds_on_one_path, np.array([0.5, 2.0])),
    (returns_from_try_in_a_helper, np.array([0.3, -0.5, 1.2])),     # the handler returns
    (returns_from_try_in_a_helper, np.array([0.3, 0.5, 1.2])),      # the body returns
    (returns_from_the_body_or_after, np.array([1.5, 2.0])),
    (returns_from_the_body_or_after, np.array([0.5, 2.0])),
])
def test_return_inside_try_and_except(f, x):
    """(Refused before: 'return leaving a try/except', and 'y is assigned on some paths
    of a try/except block only' for a y bound before the try.)  The block sets a flag
    and the value; the function returns after the try statement."""
    np.testing.assert_allclose(sg.grad(f)(x), fd(f, x), rtol=1e-6, atol=1e-8)
    t = RNG.normal(size=x.shape)
    _, dout = sg.jvp(f, (x,), (t,))
    assert dout == pytest.approx(fd(f, x) @ t, rel=1e-6)
    np.testing.assert_allclose(sg.hvp(f)(x, v=t), _hvp_fd(f, x, t), rtol=1e-5, atol=1e-6)


def errors_of_srcgrad_are_not_caught(x):
    try:
        y = np.sum(np.frompyfunc(lambda t: t, 1, 1)(x).astype(float) * x)
    except Exception:
        y = 0.0
    return y


def test_srcgrad_s_own_refusal_inside_a_try_is_not_taken_for_the_users_exception():
    with pytest.raises(sg.NonDifferentiableError):
        sg.grad(errors_of_srcgrad_are_not_caught)(np.ones(3))


def closure_over_a_try(x):
    w = np.tanh(x)
    try:
        s = np.log(np.sum(w * w) - 10.0)     # nan (no exception) on these inputs
        if not np.isfinite(s):
            raise ValueError("log of a negative number")
    except ValueError:
        s = np.sum(np.sin(w) * x)
    return s * np.sum(x ** 2)


@pytest.mark.parametrize("f, x", [
    (lambda A: cholesky_or_fallback(A, 0.5), RNG.normal(size=(3, 3))),
    (lambda A: cholesky_or_fallback(A, -50.0), RNG.normal(size=(3, 3))),
    (several_handlers, np.array([0.3, 0.9, 0.2])),
    (several_handlers, np.array([-0.3, 0.1, -0.2])),
    (in_a_loop, np.array([3.5, 4.0, 5.5])),
    (closure_over_a_try, np.array([0.4, -0.7, 1.1])),
], ids=["body", "handler", "second_handler", "no_exception", "loop", "raise_inside"])
def test_second_order_follows_the_block_that_ran(f, x):
    """Grad of grad and hvp (forward over reverse) through a try: the block that
    finished is the call, its record data that the outer derivative follows."""
    def g(v):
        with np.errstate(all="ignore"):
            r = f(v)
        return r
    t = RNG.normal(size=x.shape)

    def directional(v):
        return np.sum(sg.grad(g)(v) * t)
    expected = fd(directional, x)
    np.testing.assert_allclose(sg.grad(directional)(x), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sg.hvp(g)(x, v=t), _hvp_fd(g, x, t), rtol=1e-5, atol=1e-6)


def _hvp_fd(g, x, t, eps=1e-5):
    """Central differences of sg.grad(g) along t (the Hessian-vector product)."""
    return (sg.grad(g)(x + eps * t) - sg.grad(g)(x - eps * t)) / (2 * eps)


def return_in_a_loop_in_try(x):
    try:
        for v in x:
            if v > 0.5:
                return v * 2.0
    except ValueError:
        return 0.0
    return np.sum(x)


def return_in_nested_loops_in_try(x):
    acc = x[0]
    try:
        for i in range(3):
            j = 0
            while j < 2:
                acc = acc * x[i] + np.sin(x[j])
                if acc > 1.5:
                    return acc * 3.0
                j += 1
            acc = acc + 0.1
    except KeyError:
        acc = 0.0
    return acc


def loop_reading_its_variable_in_try(x):
    acc = 0.0
    try:
        for v in x:
            acc = acc + v ** 2 * np.sin(v)
    except ValueError:
        acc = -1.0
    return acc


def nested_try_binding_on_every_path(x):
    try:
        try:
            y = np.sin(x[0])
            z = y * x[2]
        except KeyError:
            z = x[1]
    except ValueError:
        z = x[2]
    return z * x[1]


def nested_try_missing_a_path(x):
    try:
        try:
            z = np.sin(x[0])
        except KeyError:
            pass
    except ValueError:
        z = x[2]
    return z * x[1]


@pytest.mark.parametrize("f, x", [
    (return_in_a_loop_in_try, np.array([0.3, 0.9, 0.2])),     # returns at the second item
    (return_in_a_loop_in_try, np.array([0.1, 0.2, 0.3])),     # runs to the end
    (return_in_nested_loops_in_try, np.array([0.3, 0.9, 0.2])),
    (return_in_nested_loops_in_try, np.array([0.1, 0.2, 0.3])),
    (return_in_nested_loops_in_try, np.array([1.1, 0.9, 1.3])),
    (loop_reading_its_variable_in_try, np.array([0.4, -1.2, 2.0])),
    (nested_try_binding_on_every_path, np.array([0.4, -1.2, 2.0])),
])
def test_loops_and_nested_tries_inside_try(f, x):
    """(Refused before: 'return leaving a try/except'; 'z is assigned on some paths of
    a try/except block only' for a z that every path of a nested try binds; and a
    loop inside a try that reads its own variable raised UnboundLocalError.)"""
    np.testing.assert_allclose(sg.grad(f)(x), fd(f, x), rtol=1e-6, atol=1e-8)
    t = RNG.normal(size=x.shape)
    _, dout = sg.jvp(f, (x,), (t,))
    assert dout == pytest.approx(fd(f, x) @ t, rel=1e-6, abs=1e-9)
    np.testing.assert_allclose(sg.hvp(f)(x, v=t), _hvp_fd(f, x, t), rtol=1e-5, atol=1e-6)


def test_a_nested_try_path_that_leaves_a_name_unbound_is_still_refused():
    with pytest.raises(sg.UnsupportedSyntaxError, match="(?s)z is assigned on some paths"):
        sg.grad(nested_try_missing_a_path)(np.array([0.4, -1.2, 2.0]))
