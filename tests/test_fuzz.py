"""Fuzzing srcgrad with random programs (tests/fuzz_programs.py).

For each generated program ``f``:

* ``sg.value_and_grad(f)`` (every float argument) and ``sg.grad(f, wrt=name)`` (one
  argument, by name) are compared with float64 central finite differences of ``f``
  itself; a disagreement is re-checked with two other step sizes, and inputs near a
  kink (a branch, ``abs``, ``max``... switching inside the step) are drawn again;
* the value of ``value_and_grad`` is exactly ``f(*args)``;
* no call changes its inputs;
* srcgrad either differentiates ``f`` or refuses it with its located
  ``UnsupportedSyntaxError`` / ``NonDifferentiableError`` naming the program's file:
  any other exception (an internal KeyError, a NameError in generated code...) fails;
* with ``--jvp`` / ``--hvp`` (and in the pytest run: jvp always, hvp for every fifth
  seed): ``sg.jvp`` against ``<grad, t>``, and ``sg.hvp`` (forward over reverse of the
  generated code) against central differences of ``sg.grad``.

A failing program is minimized with ``--min`` (statements deleted while the failure
stays the same); the minimized cases live in tests/test_regressions.py.

    PYTHONPATH=src python -m pytest -q tests/test_fuzz.py      # the fixed seeds
    PYTHONPATH=src python tests/test_fuzz.py --many 5000 --jvp --hvp --min   # longer
    PYTHONPATH=src python tests/test_fuzz.py --seed 123 -v      # one program, shown
"""
import copy
import importlib.util
import os
import sys
import tempfile
import traceback
import warnings

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import srcgrad as sg  # noqa: E402
from fuzz_programs import generate  # noqa: E402

N_SEEDS = 300
RTOL, ATOL = 1e-4, 1e-6
H = 1e-6

_TMP = tempfile.mkdtemp(prefix="srcgrad_fuzz_")
_loaded = {}


class Outcome:
    def __init__(self, status, detail="", program=None):
        self.status = status      # ok | rejected | skipped | fail
        self.detail = detail
        self.program = program

    def __repr__(self):
        return f"<{self.status}: {self.detail[:200]}>"


def load(program):
    """Write the program to a file and import it (srcgrad reads the source)."""
    name = f"{getattr(program, 'prefix', 'fuzz_prog')}_{program.seed}"
    path = os.path.join(_TMP, name + ".py")
    with open(path, "w") as fh:
        fh.write(program.source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    _loaded[name] = mod
    return mod, path


def _copy(args):
    return [copy.deepcopy(a) for a in args]


def _same(a, b):
    """Bitwise-equal values (arrays, floats, nested containers)."""
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and \
            all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.shape(a) == np.shape(b) and np.array_equal(np.asarray(a), np.asarray(b),
                                                         equal_nan=True)


def _call(f, args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*_copy(args))


def _perturbed(args, i, j, h):
    out = _copy(args)
    a = out[i]
    if isinstance(a, np.ndarray):
        a = a.copy()
        a.flat[j] += h
        out[i] = a
    else:
        out[i] = float(a) + h
    return out


def fd(f, args, i, j, h):
    """Central difference of f with respect to element j of argument i."""
    try:
        up = _call(f, _perturbed(args, i, j, h))
        dn = _call(f, _perturbed(args, i, j, -h))
        return float((np.float64(up) - np.float64(dn)) / (2 * h))
    except Exception:
        return float("nan")


def _close(g, n, scale, rtol=RTOL, atol=ATOL):
    return abs(g - n) <= atol * scale + rtol * abs(n)


def compare_grad(f, args, i, g, value, rtol=RTOL, atol=ATOL):
    """None if ``g`` (srcgrad's gradient for argument i) matches f; "kink" if the
    finite differences disagree among themselves; else a description of the error."""
    a = args[i]
    if np.shape(g) != np.shape(a):
        return f"gradient of argument {i} has shape {np.shape(g)}, argument has {np.shape(a)}"
    if isinstance(a, float) and isinstance(g, np.ndarray) and g.ndim:
        return f"gradient of float argument {i} is an array {g!r}"
    gf = np.asarray(g, dtype=np.float64).ravel()
    if not np.all(np.isfinite(gf)):
        return f"non-finite gradient for argument {i}: {g!r}"
    scale = max(1.0, abs(float(value)))
    for j in range(gf.size):
        n1 = fd(f, args, i, j, H)
        if _close(gf[j], n1, scale, rtol, atol):
            continue
        n2, n3 = fd(f, args, i, j, H / 5), fd(f, args, i, j, H * 10)
        if _close(gf[j], n2, scale, rtol, atol) or _close(gf[j], n3, scale, rtol, atol):
            continue
        if not (_close(n1, n2, scale) and _close(n1, n3, scale)):
            return "kink"
        return (f"argument {i} element {j}: srcgrad {gf[j]!r}, finite differences {n1!r} "
                f"({n2!r}, {n3!r})")
    return None


def located(e, path):
    """Is srcgrad's refusal located in the user's file?"""
    return path in str(e) or getattr(e, "filename", None) == path


def _rand_like(a, rng):
    if isinstance(a, np.ndarray):
        return rng.normal(size=a.shape)
    return float(rng.normal())


def _dot(grads, tangents):
    return sum(float(np.sum(np.asarray(g) * np.asarray(t))) for g, t in zip(grads, tangents))


def check_jvp(f, args, floats, grads, value, rng):
    """Forward mode: sg.jvp(f) against the (checked) gradient: J t == <grad, t>."""
    tangents = [_rand_like(args[i], rng) if i in floats else None for i in range(len(args))]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, dout = sg.jvp(f, tuple(_copy(args)), tuple(tangents))
    if not _same(out, value):
        return f"jvp value {out!r} != f(*args) {value!r}"
    expect = _dot(grads, [tangents[i] for i in floats])
    if not abs(float(dout) - expect) <= 1e-6 * (1 + abs(expect)):
        return f"jvp tangent {float(dout)!r} != <grad, t> {expect!r}"
    return None


def check_hvp(f, args, i, rng):
    """Forward over reverse: sg.hvp(f) against central differences of sg.grad."""
    v = _rand_like(args[i], rng)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h = sg.hvp(f, wrt=i)(*_copy(args), v=v)
        g = sg.grad(f, wrt=i)
        eps = 1e-5
        up, dn = _copy(args), _copy(args)
        up[i] = args[i] + eps * v
        dn[i] = args[i] - eps * v
        fd_ = (np.asarray(g(*up)) - np.asarray(g(*dn))) / (2 * eps)
        fd2 = (np.asarray(g(*_perturb_dir(args, i, v, 1e-4))) -
               np.asarray(g(*_perturb_dir(args, i, v, -1e-4)))) / 2e-4
    if np.shape(h) != np.shape(args[i]):
        return f"hvp has shape {np.shape(h)}, argument {np.shape(args[i])}"
    if not np.all(np.isfinite(h)):
        # ``abs(u) ** 1.5`` at u == 0 (``x - x``): no second derivative there
        return "kink"
    scale = 1.0 + float(np.max(np.abs(fd_)))
    if np.allclose(h, fd_, rtol=1e-4, atol=1e-5 * scale) or \
            np.allclose(h, fd2, rtol=1e-4, atol=1e-5 * scale):
        return None
    if not np.allclose(fd_, fd2, rtol=1e-3, atol=1e-4 * scale):
        return "kink"
    return f"hvp {np.asarray(h).ravel()!r} != finite differences of grad {fd_.ravel()!r}"


def _perturb_dir(args, i, v, h):
    out = _copy(args)
    out[i] = args[i] + h * v
    return out


EXTRA = {"jvp": False, "hvp": False}     # also check forward mode / second order


def checked_value_and_grad(f, args, orig, value, path, program):
    """``(sg.value_and_grad(f)(*args), None)``, or ``(None, outcome)`` when the check ends
    here: a located refusal ("rejected"), any other exception, changed inputs, or a
    value that is not exactly ``f(*args)`` ("fail")."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            val, grads = sg.value_and_grad(f)(*args)
    except (sg.UnsupportedSyntaxError, sg.NonDifferentiableError) as e:
        if not located(e, path):
            return None, Outcome("fail", f"refusal not located in {path}: {e}", program)
        return None, Outcome("rejected", f"{type(e).__name__}: {str(e).splitlines()[0]}",
                             program)
    except Exception:
        return None, Outcome("fail", "value_and_grad raised:\n" + traceback.format_exc(),
                             program)
    if not _same(args, orig):
        return None, Outcome("fail", "value_and_grad changed its inputs", program)
    if not _same(val, value) or type(val) is not type(value) and \
            not (np.ndim(val) == 0 and np.ndim(value) == 0):
        return None, Outcome("fail", f"value_and_grad value {val!r} != f(*args) {value!r}",
                             program)
    return (val, grads), None


def check_program(program, draws=4):
    """Run every check on one program; returns an Outcome."""
    try:
        mod, path = load(program)
    except Exception as e:   # a generator bug, not srcgrad's
        return Outcome("skipped", f"generated program does not load: {e!r}", program)
    f = mod.f
    rng = np.random.default_rng(getattr(program, "draw_seed", program.seed))
    names = [p for p, _ in program.params]
    floats = [k for k, (_, kind) in enumerate(program.params)
              if kind == "float" or kind[0] == "arr"]
    if not floats:
        return Outcome("skipped", "no float argument", program)
    last = "no usable inputs"
    for _ in range(draws):
        args = program.draw_args(rng)
        orig = _copy(args)
        try:
            with np.errstate(over="raise", invalid="raise", divide="raise"):
                value = f(*_copy(args))   # an overflow on the way is not tame (inf * 0...)
        except Exception as e:
            last = f"f raises {e!r}"
            continue
        if not isinstance(value, (float, np.floating, np.ndarray)):
            return Outcome("skipped", f"output of type {type(value).__name__}", program)
        if not np.isscalar(value) and np.shape(value) != ():
            return Outcome("skipped", f"non-scalar output {np.shape(value)}", program)
        if not np.isfinite(value) or abs(float(value)) > 1e5:
            last = "untame value"
            continue
        # (a program may change its arguments in place, as Python allows: srcgrad must
        # not, and its value and gradient are those of f on fresh copies, like the
        # finite differences)
        # -- srcgrad --------------------------------------------------------------
        result, outcome = checked_value_and_grad(f, args, orig, value, path, program)
        if outcome is not None:
            return outcome
        val, grads = result
        if len(floats) == 1:
            grads = (grads,)
        if len(grads) != len(floats):
            return Outcome("fail", f"{len(grads)} gradients for {len(floats)} arguments",
                           program)
        kink = False
        for i, g in zip(floats, grads):
            err = compare_grad(f, args, i, g, value)
            if err == "kink":
                kink = True
                break
            if err:
                return Outcome("fail", f"value_and_grad: {err}", program)
        if kink:
            last = "kink"
            continue
        # one argument alone, by name (activity with a smaller wrt)
        i = floats[program.seed % len(floats)]
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                g = sg.grad(f, wrt=names[i])(*args)
        except Exception:
            return Outcome("fail", f"grad(wrt={names[i]!r}) raised:\n" +
                           traceback.format_exc(), program)
        if not _same(args, orig):
            return Outcome("fail", f"grad(wrt={names[i]!r}) changed its inputs", program)
        err = compare_grad(f, args, i, g, value)
        if err == "kink":
            last = "kink"
            continue
        if err:
            return Outcome("fail", f"grad(wrt={names[i]!r}): {err}", program)
        for kind in ("jvp", "hvp"):
            if not EXTRA[kind]:
                continue
            try:
                if kind == "jvp":
                    err = check_jvp(f, args, floats, grads, value, rng)
                else:
                    err = check_hvp(f, args, i, rng)
            except (sg.UnsupportedSyntaxError, sg.NonDifferentiableError) as e:
                if not located(e, path):
                    return Outcome("fail", f"{kind}: refusal not located: {e}", program)
                return Outcome("rejected", f"{kind}: {type(e).__name__}: "
                                           f"{str(e).splitlines()[0]}", program)
            except ZeroDivisionError:
                # ``abs(u) ** 1.5`` at u == 0.0 (a Python float): the second derivative
                # does not exist there (NumPy would give inf)
                continue
            except Exception:
                return Outcome("fail", f"{kind} raised:\n" + traceback.format_exc(), program)
            if not _same(args, orig):
                return Outcome("fail", f"{kind} changed its inputs", program)
            if err == "kink":
                continue
            if err:
                return Outcome("fail", f"{kind}: {err}", program)
        return Outcome("ok", "", program)
    return Outcome("skipped", last, program)


def _call_raw(f, args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args)


class _Timeout(Exception):
    pass


def _with_timeout(fn, seconds=30):
    """Run fn() with an alarm (a generated program that never ends, or srcgrad's code
    that never ends), on Unix in the main thread; otherwise just run it."""
    import signal
    import threading
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        return fn()

    def on_alarm(signum, frame):
        raise _Timeout()
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        return fn()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run_seed(seed):
    program = generate(seed)
    try:
        return _with_timeout(lambda: check_program(program))
    except _Timeout:
        # does the program itself run that long?
        try:
            _with_timeout(lambda: _call(load(program)[0].f,
                                        program.draw_args(np.random.default_rng(seed))), 5)
        except _Timeout:
            return Outcome("skipped", "the program itself does not end", program)
        except Exception:
            pass
        return Outcome("fail", "timeout: srcgrad's code runs for over 30 s", program)


@pytest.mark.parametrize("seed", range(N_SEEDS))
def test_fuzz_program(seed):
    # forward mode for every program, second order (hvp) for every fifth one
    EXTRA["jvp"], EXTRA["hvp"] = True, seed % 5 == 0
    try:
        out = run_seed(seed)
    finally:
        EXTRA["jvp"] = EXTRA["hvp"] = False
    if out.status == "fail":
        pytest.fail(f"seed {seed}: {out.detail}\n--- program ---\n{out.program.source}")


def _signature(out):
    """The kind of a failure, to keep while minimizing."""
    d = out.detail
    if "raised" in d.split("\n")[0]:
        last = [ln for ln in d.strip().splitlines() if ln and not ln.startswith(" ")][-1]
        return last.split(":")[0]
    if "shape" in d.split("\n")[0]:
        return "shape"
    return d.split(":")[0] + ("value" if "value" in d.split("\n")[0] else "")


def minimize(program, tries=3, check=None, signature=None):
    """Delete statements (and flatten compound ones) while the failure stays the same.
    ``check``, ``signature``: the checker and the kind of a failure (check_program and
    _signature by default); the programs made are of ``type(program)``."""
    import ast
    check = check or check_program
    signature = signature or _signature
    Program = type(program)
    first = check(program)
    if first.status != "fail":
        return program, first
    sig = signature(first)
    counter = [0]

    def still_fails(src):
        counter[0] += 1
        p = Program(src, program.params, program.seed * 1000 + counter[0], set())
        p.draw_seed = program.seed
        try:   # deleting ``k += 1`` makes a loop endless
            out = _with_timeout(lambda: check(p, draws=tries), 10)
        except _Timeout:
            return False, None
        return out.status == "fail" and signature(out) == sig, out

    def bodies(tree):
        for node in ast.walk(tree):
            for field in ("body", "orelse"):
                b = getattr(node, field, None)
                if isinstance(b, list) and b and isinstance(b[0], ast.stmt):
                    yield b

    src = program.source
    last = first
    changed = True
    while changed:
        changed = False
        tree = ast.parse(src)
        n_edits = sum(len(b) for b in bodies(tree))
        for k in range(n_edits):
            for mode in ("delete", "flatten"):
                tree = ast.parse(src)
                flat = [(b, i) for b in bodies(tree) for i in range(len(b))]
                if k >= len(flat):
                    break
                b, i = flat[k]
                st = b[i]
                if isinstance(st, (ast.Import, ast.ImportFrom)):
                    continue
                if isinstance(st, ast.FunctionDef) and st.name == "f":
                    continue
                if mode == "delete":
                    if len(b) == 1:
                        b[i] = ast.Pass()
                    else:
                        del b[i]
                elif isinstance(st, (ast.If, ast.For, ast.While)):
                    b[i:i + 1] = st.body + (st.orelse if isinstance(st, ast.If) else [])
                else:
                    continue
                new = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
                if new == src:
                    continue
                ok, out = still_fails(new)
                if ok:
                    src, last, changed = new, out, True
                    break
    p = Program(src, program.params, program.seed, set())
    p.draw_seed = program.seed
    return p, last


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
    ap.add_argument("--jvp", action="store_true", help="also check sg.jvp (forward mode)")
    ap.add_argument("--hvp", action="store_true", help="also check sg.hvp (second order)")
    ap.add_argument("--stop", type=int, default=20, help="stop after this many failures")
    o = ap.parse_args(argv)
    EXTRA["jvp"], EXTRA["hvp"] = o.jvp, o.hvp
    seeds = o.seed or range(o.start, o.start + (o.many or N_SEEDS))
    counts = collections.Counter()
    reasons = collections.Counter()
    feats = collections.Counter()
    fails = []
    t0 = time.time()
    for s in seeds:
        out = run_seed(s)
        counts[out.status] += 1
        if out.status in ("rejected", "skipped"):
            reasons[out.detail.split("\n")[0][:110]] += 1
        if out.status == "ok" and out.program:
            feats.update(out.program.features)
        if o.v:
            print(f"# seed {s}: {out.status} {out.detail}\n{out.program.source if out.program else ''}")
        if sum(counts.values()) % 100 == 0:
            print(f"... {sum(counts.values())} programs, {time.time() - t0:.0f}s: "
                  f"{dict(counts)}", flush=True)
        if out.status == "fail":
            fails.append(s)
            prog = out.program
            if o.min:
                prog, out = minimize(out.program)
            print(f"=== FAIL seed {s}: {out.detail}\n{prog.source}", flush=True)
            if len(fails) >= o.stop:
                break
    print(f"{sum(counts.values())} programs in {time.time() - t0:.1f}s: {dict(counts)}")
    for r, n in reasons.most_common(25):
        print(f"  {n:5d}  {r}")
    print("constructs in passing programs:", dict(sorted(feats.items())))
    print("failing seeds:", fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
