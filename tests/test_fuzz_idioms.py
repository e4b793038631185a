"""Fuzzing srcgrad with random programs of Python/NumPy idioms (tests/fuzz_idioms.py).

The second fuzzer: containers and builtins, helpers with defaults / keywords /
``*args`` / ``**kwargs`` / keyword-only parameters, starred calls, closures, writes
through NumPy views, float32 inputs.  For each generated program ``f`` (the machinery
is test_fuzz.py's: its loader, finite differences with kink re-checks, refusal
location and minimizer):

* ``sg.value_and_grad(f)`` (every argument) and ``sg.grad(f, wrt=name)`` are compared
  with float64 central finite differences of ``f`` -- for float32 inputs, of ``f`` run
  on the same inputs cast to float64, with float32 tolerances -- and every array
  gradient must have its argument's dtype (float32 in, float32 gradient out);
* the value of ``value_and_grad`` is exactly ``f(*args)``; no call changes its inputs;
* ``sg.jvp(f)`` against ``<grad, t>``;
* with ``--hvp`` (in the pytest run: for every fifth seed), second order in float64
  with respect to one argument: ``sg.hvp(f)(..., v=v)`` and reverse over reverse
  (``sg.grad`` of ``y -> <sg.grad(f)(..., y, ...), v>``) against central differences
  of ``sg.grad(f)`` along ``v``, that gradient itself checked against differences of
  ``f``; a located refusal at second order counts as refused;
* where autograd runs the program (the module's ``np`` rebound to ``autograd.numpy``;
  autograd refuses in-place writes, ``float()`` of its boxes...), srcgrad's gradient
  against autograd's, with a tighter tolerance than finite differences allow (a
  disagreement where autograd's own gradient fails the finite differences is
  autograd's, and ignored);
* srcgrad either differentiates ``f`` or refuses it with its located
  ``UnsupportedSyntaxError`` / ``NonDifferentiableError``: anything else fails.

The same checks run on the programs of tests/fuzz_closures.py (``--closures``:
comprehensions, lambdas, map/filter/reduce, factories' closures, function values,
varargs and starred forms, ``:=``, ``with``, srcgrad called inside), whose findings are
tests/test_regressions_fuzz9.py (``KNOWN_BROKEN_CLOSURES``).  A float32 gradient that
misses the float64 differences only by float32's rounding (srcgrad's float64 gradient
of the same program passes them, and the two agree to 2%) draws new inputs.

Idioms srcgrad is known to get wrong are not generated in the pytest run: each one is
a feature tag in ``KNOWN_BROKEN``, with the regression test in
tests/test_regressions_idioms.py (xfail) that shows it.  When that test passes,
delete the feature's line here.  Idioms srcgrad refuses (``REFUSED``: sorted, zip,
views written in place...) are generated in one seed out of four, so that most
programs get past the refusal.  ``--all`` generates everything in every seed.

    PYTHONPATH=src python -m pytest -q tests/test_fuzz_idioms.py    # the fixed seeds
    PYTHONPATH=src python tests/test_fuzz_idioms.py --many 3000 --all --min   # longer
    PYTHONPATH=src python tests/test_fuzz_idioms.py --seed 12 -v               # one program
    PYTHONPATH=src python tests/test_fuzz_idioms.py --closures --many 300 --min
    PYTHONPATH=src python tests/test_fuzz_idioms.py --many 2000 --hvp --min   # second order
    PYTHONPATH=src python tests/test_fuzz_idioms.py --many 300 --all --third  # and third
"""
import importlib.util
import os
import sys
import traceback
import warnings

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import srcgrad as sg  # noqa: E402
import test_fuzz as tf  # noqa: E402
import fuzz_closures  # noqa: E402
from fuzz_idioms import generate  # noqa: E402
from test_fuzz import (Outcome, _copy, _dot, _rand_like, _same, _signature,  # noqa: E402
                       _Timeout, _with_timeout, compare_grad, load, located, minimize)

N_SEEDS = 250
N_CLOSURE_SEEDS = 60                 # programs of tests/fuzz_closures.py in the pytest run
RTOL32, ATOL32 = 2e-3, 1e-3          # float32 gradient against float64 differences
AG_RTOL, AG_ATOL = 1e-7, 1e-9        # srcgrad against autograd (float64)
AG_RTOL32, AG_ATOL32 = 1e-3, 1e-4
ROUNDOFF32 = 2e-2                    # see _float32_roundoff

# feature tag (fuzz_idioms.py) -> the xfail regression test showing srcgrad's bug
# (tests/test_regressions_idioms.py): these features are not generated unless --all.
# Once the test passes (strict xfail: it then fails), delete its feature lines here.
KNOWN_BROKEN = {
}

# features srcgrad refuses with a located UnsupportedSyntaxError / NonDifferentiableError
# (correct, and checked as such): generated in one seed out of REFUSED_EVERY only, so that
# the other programs get past the refusal and test the rest of their idioms
REFUSED = {
    # sorted() without key= (with key=, desugared: generated in every seed), list() of
    # reversed(): no rule; dict.get of an active dict: no rule
    "sorted_list", "sorted_reverse", "sorted_tuple_var", "seq_reversed_list",
    "dict_read_get", "helper_kwargs_get",
    # a view written through while its base is still used (or the reverse): srcgrad
    # refuses the views it knows (np.rollaxis too since 3d679a6; np.atleast_1d/2d/3d
    # and views of parameters written in place too)
    "view_write",
}
REFUSED_EVERY = 4

# tests/fuzz_closures.py: the features srcgrad gets wrong (feature -> the xfail test of
# tests/test_regressions_fuzz9.py), and those it documents as refused (a function value
# holding a value that carries a gradient; recursion)
KNOWN_BROKEN_CLOSURES = {
    "comp_sum_list_of_lists": "test_sum_of_lists_with_a_list_start",
    "comp_set_floats": "test_set_comprehension_of_active_floats",
    "factory_loop_defaults_k": "test_later_loop_of_closures_rebinding_a_dict_key",
}
REFUSED_CLOSURES = {
    "lambda_passed_capture_refused", "factory_active_data_refused",
    "fnvalue_methods_active_refused", "stmt_recursion_refused",
}


# features srcgrad gets wrong at second order (feature -> the xfail case of
# tests/test_regressions_second_order.py): not generated with the second-order check
# unless --all (they failed 31 programs in 500, hiding the rest)
# (max()/min() of an appended list, a wrong number and IndexErrors: fixed; sorted()'s
# list indexed, IndexError in grad of grad: fixed)
SECOND_ORDER_KNOWN_BROKEN = {}


def disabled_features(seed, everything=False, closures=False):
    if everything:
        return set()
    refused = REFUSED | (REFUSED_CLOSURES if closures else set())
    broken = set(KNOWN_BROKEN) | (set(KNOWN_BROKEN_CLOSURES) if closures else set())
    if EXTRA["hvp"]:
        broken |= set(SECOND_ORDER_KNOWN_BROKEN)
    return broken | (refused if seed % REFUSED_EVERY else set())


def _as64(args):
    return [a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in args]


def _quiet(fn):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def _dtype_error(i, a, g):
    if isinstance(a, np.ndarray) and getattr(g, "dtype", None) != a.dtype:
        return (f"gradient of argument {i} has dtype {getattr(g, 'dtype', type(g).__name__)}, "
                f"argument has {a.dtype}")
    return None


def _float32_roundoff(f, args64, i, g):
    """Is a float32 gradient that fails the finite differences (of f in float64) only
    float32's rounding?  Yes when srcgrad's float64 gradient of the same program passes
    them and the float32 one is within ROUNDOFF32 of it (a program whose values reach
    hundreds loses digits in float32; a wrong derivative is off by far more)."""
    try:
        value64, g64 = _quiet(lambda: sg.value_and_grad(f, wrt=i)(*_copy(args64)))
    except Exception:
        return False
    if compare_grad(f, args64, i, g64, value64) is not None:
        return False
    scale = max(1.0, abs(float(value64)))
    return bool(np.allclose(np.asarray(g, np.float64), g64, rtol=ROUNDOFF32,
                            atol=ATOL32 * scale))


def check_jvp(f, args, grads, value, rng, tol):
    tangents = []
    for a in args:
        t = _rand_like(a, rng)
        tangents.append(t.astype(a.dtype) if isinstance(a, np.ndarray) else t)
    out, dout = _quiet(lambda: sg.jvp(f, tuple(_copy(args)), tuple(tangents)))
    if not _same(out, value):
        return f"jvp value {out!r} != f(*args) {value!r}"
    expect = _dot(grads, tangents)
    if not abs(float(dout) - expect) <= tol * (1 + abs(expect)):
        return f"jvp tangent {float(dout)!r} != <grad, t> {expect!r}"
    return None


# second order (``--hvp``; in the pytest run for every fifth seed)
# (the pytest run checks one way per seed, hvp and grad of grad in turn, to keep its time)
EXTRA = {"hvp": False, "ways": ("hvp", "grad_of_grad")}
SECOND_EVERY = 5


def second_order_for(seed):
    """The second-order check of the pytest run for ``seed``: every SECOND_EVERY-th seed,
    hvp and grad of grad in turn."""
    EXTRA["hvp"] = seed % SECOND_EVERY == 0
    EXTRA["ways"] = ("hvp",) if seed % (2 * SECOND_EVERY) == 0 else ("grad_of_grad",)


def second_order_off():
    EXTRA["hvp"], EXTRA["ways"] = False, ("hvp", "grad_of_grad")


def reverse_over_reverse(f, args, i, v):
    """``sg.grad`` of ``y -> <sg.grad(f)(..., y, ...), v>``: H v by reverse over reverse
    (the inner gradient is a call srcgrad resolves when it runs)."""
    before, after = tuple(args[:i]), tuple(args[i + 1:])

    def inner(y):
        return np.sum(sg.grad(f, wrt=i)(*before, y, *after) * v)
    return sg.grad(inner)(args[i])


def _along(args, i, v, h):
    out = _copy(args)
    out[i] = args[i] + h * v
    return out


def second_order_error(f, args64, i, value64, rng, checked_grad=None):
    """None, "kink", or what is wrong with srcgrad's second derivatives of f (float64)
    with respect to argument i: ``sg.hvp(f)(..., v=v)`` and reverse over reverse
    (EXTRA["ways"]), each against central differences of ``sg.grad(f)`` along ``v`` (two
    step sizes), the gradient itself checked against differences of f first (unless
    ``checked_grad``: it already was, at these float64 arguments).  Raises what srcgrad
    raises."""
    g = sg.grad(f, wrt=i)
    if checked_grad is None:      # (float32 programs: the float64 gradient is not checked)
        err = compare_grad(f, args64, i, _quiet(lambda: g(*_copy(args64))), value64)
        if err:
            return "kink" if err == "kink" else f"grad64 (its second order's gradient): {err}"
    v = _rand_like(args64[i], rng)

    def diff(h):
        up = _quiet(lambda: g(*_along(args64, i, v, h)))
        dn = _quiet(lambda: g(*_along(args64, i, v, -h)))
        return (np.asarray(up, np.float64) - np.asarray(dn, np.float64)) / (2 * h)
    fd1, fd2 = diff(1e-5), diff(1e-4)
    scale = 1.0 + float(np.max(np.abs(fd1)))
    kinked = not np.allclose(fd1, fd2, rtol=1e-3, atol=1e-4 * scale)
    ways = {"hvp": lambda: sg.hvp(f, wrt=i)(*_copy(args64), v=v),
            "grad_of_grad": lambda: reverse_over_reverse(f, _copy(args64), i, v)}
    for what in EXTRA["ways"]:
        run = ways[what]
        try:
            h = _quiet(run)
        except ZeroDivisionError:
            # ``abs(u) ** 1.5`` at u == 0.0 (a Python float): no second derivative there
            return "kink"
        except (sg.UnsupportedSyntaxError, sg.NonDifferentiableError) as e:
            e.second_order_what = what
            raise
        except Exception as e:
            raise SecondOrderRaised(what) from e
        if np.shape(h) != np.shape(args64[i]):
            return f"{what} has shape {np.shape(h)}, argument {np.shape(args64[i])}"
        if not np.all(np.isfinite(h)):
            return "kink"
        if np.allclose(h, fd1, rtol=1e-4, atol=1e-5 * scale) or \
                np.allclose(h, fd2, rtol=1e-4, atol=1e-5 * scale):
            continue
        if kinked:
            return "kink"
        return (f"{what} {np.ravel(h)!r} != finite differences of grad {np.ravel(fd1)!r} "
                f"(argument {i}, v {np.ravel(v)!r})")
    if EXTRA.get("third"):
        return third_order_error(f, args64, i, v)
    return None


def third_order_error(f, args64, i, v):
    """None, "kink", or what is wrong with ``sg.grad`` of ``y -> <H(y) v, v>`` (three
    reverse passes: the second-order function is generated code differentiated again)
    along ``v``, against central differences of ``<H v, v>`` itself (``--third``)."""
    def vhv(y):
        at = _copy(args64)
        at[i] = y
        return np.sum(reverse_over_reverse(f, at, i, v) * v)
    try:
        t = _quiet(lambda: sg.grad(vhv)(_copy(args64)[i]))
    except (sg.UnsupportedSyntaxError, sg.NonDifferentiableError) as e:
        e.second_order_what = "third order"
        raise
    except Exception as e:
        raise SecondOrderRaised("third order") from e
    got = float(np.sum(np.asarray(t, np.float64) * v))

    def diff(h):
        return (_quiet(lambda: vhv(args64[i] + h * v)) -
                _quiet(lambda: vhv(args64[i] - h * v))) / (2 * h)
    fd1, fd2 = diff(1e-4), diff(1e-3)
    scale = 1.0 + abs(fd1)
    if not np.isfinite(got):
        return "kink"
    if abs(got - fd1) <= 1e-4 * scale or abs(got - fd2) <= 1e-4 * scale:
        return None
    if abs(fd1 - fd2) > 1e-3 * scale:
        return "kink"
    return f"third order along v: {got!r} != finite differences {fd1!r} (argument {i})"


class SecondOrderRaised(Exception):
    """srcgrad's second derivative raised something other than a located refusal."""


def checked_second_order(f, args64, i, value64, rng, program, on_refusal, checked_grad=None):
    """An Outcome when the second-order check ends the program's check (a refusal, a
    failure), else None (passed, or a kink: no second derivative to compare)."""
    try:
        err = second_order_error(f, args64, i, value64, rng, checked_grad)
    except (sg.UnsupportedSyntaxError, sg.NonDifferentiableError) as e:
        return on_refusal(e, getattr(e, "second_order_what", "second order"))
    except SecondOrderRaised as e:
        tb = "".join(traceback.format_exception(e.__cause__))
        return Outcome("fail", f"{e.args[0]} raised:\n{tb}", program)
    except Exception:
        return Outcome("fail", "second order raised:\n" + traceback.format_exc(), program)
    if err and err != "kink":
        return Outcome("fail", err, program)
    return None


def autograd_grads(program, path, args):
    """autograd's gradients of the program (its ``np`` rebound); None if autograd fails."""
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        return None
    name = f"{program.prefix}_{program.seed}_autograd"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
        mod.np = anp
        grads = [_quiet(lambda: autograd.grad(mod.f, argnum=i)(*_copy(args)))
                 for i in range(len(args))]
        for g in grads:           # autograd may return its own boxes (it failed)
            np.asarray(g, np.float64)
        return grads
    except Exception:
        return None


def check_program(program, draws=4):
    """Run every check on one program; returns an Outcome."""
    try:
        mod, path = load(program)
    except Exception as e:
        return Outcome("skipped", f"generated program does not load: {e!r}", program)
    f = mod.f
    rng = np.random.default_rng(getattr(program, "draw_seed", program.seed))
    names = [p for p, _ in program.params]
    f32 = program.float32
    rtol, atol = (RTOL32, ATOL32) if f32 else (tf.RTOL, tf.ATOL)
    last = "no usable inputs"
    for _ in range(draws):
        args = program.draw_args(rng)
        orig = _copy(args)
        args64 = _as64(args)
        try:
            with np.errstate(over="raise", invalid="raise", divide="raise"):
                value = f(*_copy(args))
                f(*_copy(args64))
        except Exception as e:
            last = f"f raises {e!r}"
            continue
        if not isinstance(value, (float, np.floating, np.ndarray)) or np.shape(value) != ():
            return Outcome("skipped", f"output {type(value).__name__} {np.shape(value)}", program)
        if not np.isfinite(value) or abs(float(value)) > 1e5:
            last = "untame value"
            continue
        result, outcome = tf.checked_value_and_grad(f, args, orig, value, path, program)
        if outcome is not None:
            return outcome
        val, grads = result
        if len(args) == 1:
            grads = (grads,)
        if len(grads) != len(args):
            return Outcome("fail", f"{len(grads)} gradients for {len(args)} arguments", program)
        kink = False
        for i, g in enumerate(grads):
            err = _dtype_error(i, args[i], g)
            if err:
                return Outcome("fail", f"value_and_grad: {err}", program)
            err = compare_grad(f, args64, i, g, value, rtol, atol)
            if err and err != "kink" and f32 and _float32_roundoff(f, args64, i, g):
                err = "float32 roundoff"
            if err in ("kink", "float32 roundoff"):
                kink = err
                break
            if err:
                return Outcome("fail", f"value_and_grad: {err}", program)
        if kink:
            last = kink
            continue
        # one argument alone, by name
        i = program.seed % len(args)
        try:
            g = _quiet(lambda: sg.grad(f, wrt=names[i])(*args))
        except Exception:
            return Outcome("fail", f"grad(wrt={names[i]!r}) raised:\n" + traceback.format_exc(),
                           program)
        if not _same(args, orig):
            return Outcome("fail", f"grad(wrt={names[i]!r}) changed its inputs", program)
        err = _dtype_error(i, args[i], g) or compare_grad(f, args64, i, g, value, rtol, atol)
        if err == "kink":
            last = "kink"
            continue
        if err:
            return Outcome("fail", f"grad(wrt={names[i]!r}): {err}", program)
        # forward mode
        try:
            err = check_jvp(f, args, grads, value, rng, 1e-3 if f32 else 1e-6)
        except (sg.UnsupportedSyntaxError, sg.NonDifferentiableError) as e:
            if not located(e, path):
                return Outcome("fail", f"jvp: refusal not located: {e}", program)
            return Outcome("rejected", f"jvp: {type(e).__name__}: {str(e).splitlines()[0]}",
                           program)
        except Exception:
            return Outcome("fail", "jvp raised:\n" + traceback.format_exc(), program)
        if not _same(args, orig):
            return Outcome("fail", "jvp changed its inputs", program)
        if err:
            return Outcome("fail", f"jvp: {err}", program)
        # autograd, where it runs the program
        ag = autograd_grads(program, path, args)
        if ag is not None:
            art, aat = (AG_RTOL32, AG_ATOL32) if f32 else (AG_RTOL, AG_ATOL)
            scale = max(1.0, abs(float(value)))
            for i, (g, a) in enumerate(zip(grads, ag)):
                g64, a64 = np.asarray(g, np.float64), np.asarray(a, np.float64)
                if g64.shape != a64.shape or not np.allclose(g64, a64, rtol=art,
                                                             atol=aat * scale):
                    if _dtype_error(i, args[i], a) is None and \
                            compare_grad(f, args64, i, a, value, rtol, atol) is not None:
                        break        # autograd's own gradient is off (finite differences)
                    return Outcome("fail", f"autograd: argument {i}: srcgrad "
                                           f"{g64.ravel()!r}, autograd {a64.ravel()!r}", program)
        if EXTRA["hvp"]:
            i = program.seed % len(args)

            def on_refusal(e, what):
                if not located(e, path):
                    return Outcome("fail", f"{what}: refusal not located: {e}", program)
                return Outcome("rejected", f"{what}: {type(e).__name__}: "
                                           f"{str(e).splitlines()[0]}", program)
            value64 = _quiet(lambda: f(*_copy(args64)))
            out = checked_second_order(f, args64, i, value64, rng, program, on_refusal,
                                       None if f32 else g)
            if out is None and not _same(args64, _as64(orig)):
                out = Outcome("fail", "second order changed its inputs", program)
            if out is not None:
                return out
        return Outcome("ok", "autograd" if ag is not None else "", program)
    return Outcome("skipped", last, program)


def signature(out):
    """The kind of a failure (finer than test_fuzz's), kept while minimizing."""
    line = out.detail.split("\n")[0]
    where = line.split(":")[0].split(" ")[0]
    if "raised" in line:
        return where + " raises " + _signature(out)
    for key in ("dtype", "changed its inputs", "refusal not located", "timeout", "shape"):
        if key in line:
            return where + " " + key
    if "value" in line.split(":", 1)[-1].split("!=")[0]:
        return where + " value"
    return where + " wrong"


def _return_terms(tree):
    """The terms of f's ``return t1 + t2 + ...`` (the Return node, [terms])."""
    import ast
    fdef = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "f"][0]
    ret, terms = fdef.body[-1], []

    def flat(e):
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
            flat(e.left)
            flat(e.right)
        else:
            terms.append(e)
    flat(ret.value)
    return ret, terms


def _drop_return_terms(program, sig):
    """Drop terms of f's ``return t1 + t2 + ...`` while the failure stays the same."""
    import ast
    changed = True
    while changed:
        changed = False
        n = len(_return_terms(ast.parse(program.source))[1])
        for k in range(n if n > 1 else 0):
            tree = ast.parse(program.source)
            ret, terms = _return_terms(tree)
            rest = terms[:k] + terms[k + 1:]
            e = rest[0]
            for t in rest[1:]:
                e = ast.BinOp(e, ast.Add(), t)
            ret.value = e
            src = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
            p = type(program)(src, program.params, program.seed * 1000 + 999, set())
            p.draw_seed = getattr(program, "draw_seed", program.seed)
            try:
                out = _with_timeout(lambda: check_program(p, draws=3), 10)
            except _Timeout:
                continue
            if out.status == "fail" and signature(out) == sig:
                program = type(program)(src, program.params, program.seed, set())
                program.draw_seed = p.draw_seed
                changed = True
                break
    return program


def minimize_idioms(program):
    """test_fuzz's minimizer (statements), then return terms, then statements again."""
    prog, out = minimize(program, check=check_program, signature=signature)
    if out.status != "fail":
        return prog, out
    sig = signature(out)
    prog2 = _drop_return_terms(prog, sig)
    if prog2.source != prog.source:
        prog, out = minimize(prog2, check=check_program, signature=signature)
    return prog, out


def run_seed(seed, everything=False, closures=False):
    gen = fuzz_closures.generate if closures else generate
    program = gen(seed, disabled_features(seed, everything, closures))
    try:
        return _with_timeout(lambda: check_program(program))
    except _Timeout:
        return Outcome("fail", "timeout: over 30 s", program)


def run_seed_third_order(seed):
    """``run_seed(seed, everything=True)`` with the third-order check on (``--third``),
    for regression tests of single seeds."""
    EXTRA["hvp"] = EXTRA["third"] = True
    try:
        return run_seed(seed, everything=True)
    finally:
        EXTRA["hvp"] = EXTRA["third"] = False
        second_order_off()


# seeds of the pytest run whose second-order check shows a srcgrad bug (strict xfail,
# with the regression test of tests/test_regressions_second_order.py): fix the bug,
# then delete the line
SECOND_ORDER_XFAIL = {
}
# (seeds 35, 45: grad of grad of a dict comprehension, ad.restore_item: fixed)
SECOND_ORDER_XFAIL_CLOSURES = {}


def _seeds(n, xfail):
    return [pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=xfail[s]))
            if s in xfail else s for s in range(n)]


@pytest.fixture
def second_order_off_after():
    yield
    second_order_off()


@pytest.mark.parametrize("seed", _seeds(N_SEEDS, SECOND_ORDER_XFAIL))
def test_fuzz_idiom_program(seed, second_order_off_after):
    second_order_for(seed)
    out = run_seed(seed)
    if out.status == "fail":
        pytest.fail(f"seed {seed}: {out.detail}\n--- program ---\n{out.program.source}\n"
                    f"features: {sorted(out.program.features)}")


@pytest.mark.parametrize("seed", _seeds(N_CLOSURE_SEEDS, SECOND_ORDER_XFAIL_CLOSURES))
def test_fuzz_closure_program(seed, second_order_off_after):
    second_order_for(seed)
    out = run_seed(seed, closures=True)
    if out.status == "fail":
        pytest.fail(f"seed {seed}: {out.detail}\n--- program ---\n{out.program.source}\n"
                    f"features: {sorted(out.program.features)}")


def test_known_broken_names_a_regression_test():
    import test_regressions_fuzz9 as reg9
    import test_regressions_idioms as reg
    for feature, test in KNOWN_BROKEN.items():
        assert hasattr(reg, test), (feature, test)
    for feature, test in KNOWN_BROKEN_CLOSURES.items():
        assert hasattr(reg9, test), (feature, test)
    import test_regressions_second_order as reg2
    for feature, case in SECOND_ORDER_KNOWN_BROKEN.items():
        assert "grad_of_grad" in reg2.CASES[case][4], (feature, case)


def main(argv):
    import argparse
    import collections
    import time
    ap = argparse.ArgumentParser()
    ap.add_argument("--many", type=int, default=0)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--seed", type=int, action="append")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--min", action="store_true", help="minimize each failing program")
    ap.add_argument("--all", action="store_true",
                    help="generate every feature in every seed (KNOWN_BROKEN, REFUSED too)")
    ap.add_argument("--closures", action="store_true",
                    help="programs of tests/fuzz_closures.py (comprehensions, lambdas, "
                         "function values, varargs)")
    ap.add_argument("--hvp", action="store_true",
                    help="also check second order: sg.hvp and grad of grad")
    ap.add_argument("--third", action="store_true",
                    help="with --hvp: also check third order (grad of <H v, v>)")
    ap.add_argument("--stop", type=int, default=1000, help="stop after this many failures")
    o = ap.parse_args(argv)
    EXTRA["hvp"] = o.hvp or o.third
    EXTRA["third"] = o.third
    seeds = o.seed or range(o.start, o.start + (o.many or N_SEEDS))
    counts, reasons, feats = collections.Counter(), collections.Counter(), collections.Counter()
    fails, groups = [], collections.defaultdict(list)
    t0 = time.time()
    for s in seeds:
        out = run_seed(s, o.all, o.closures)
        counts[out.status + ("+autograd" if out.detail == "autograd" else "")] += 1
        if out.status in ("rejected", "skipped"):
            reasons[out.detail.split("\n")[0][:110]] += 1
        if out.status == "ok":
            feats.update(out.program.features)
        if o.v:
            print(f"# seed {s}: {out.status} {out.detail}\n{out.program.source}")
        if sum(counts.values()) % 100 == 0:
            print(f"... {sum(counts.values())} programs, {time.time() - t0:.0f}s: "
                  f"{dict(counts)}", flush=True)
        if out.status == "fail":
            fails.append(s)
            prog = out.program
            feat = sorted(prog.features)
            if o.min:
                prog, out = minimize_idioms(out.program)
            groups[signature(out)].append(s)
            print(f"=== FAIL seed {s} [{signature(out)}] {feat}: {out.detail}\n{prog.source}",
                  flush=True)
            if len(fails) >= o.stop:
                break
    print(f"{sum(counts.values())} programs in {time.time() - t0:.1f}s: {dict(counts)}")
    for r, n in reasons.most_common(25):
        print(f"  {n:5d}  {r}")
    print("features in passing programs:", dict(sorted(feats.items())))
    print("failing seeds:", fails)
    for sig, ss in groups.items():
        print(f"  {sig!r}: {ss}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
