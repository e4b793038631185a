"""Tracebacks point home: generated frames show their lines, an error raised while
running the user's code names the user's file and line, and srcgrad's own errors come
without srcgrad's frames."""
import linecache
import os
import subprocess
import sys
import traceback

import numpy as np
import pytest

import srcgrad as sg

HERE = os.path.abspath(__file__)
ROOT = os.path.dirname(os.path.dirname(HERE))


def _line(func, text):
    import inspect
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, s in enumerate(lines) if text in s)


def matmul_log(x, w):
    y = x @ w
    z = np.log(y)
    return np.sum(z)


def _caught(call):
    try:
        call()
    except Exception as e:   # noqa: BLE001  (what the test looks at)
        return e
    raise AssertionError("no exception")


def _notes(e):
    return "\n".join(getattr(e, "__notes__", [])) if sys.version_info >= (3, 11) \
        else str(e)


def _generated_frames(e):
    return [f for f in traceback.extract_tb(e.__traceback__) if f.filename.startswith("<srcgrad")]


def test_forward_error_names_the_users_file_and_line():
    e = _caught(lambda: sg.grad(matmul_log, wrt="w")(np.ones((2, 3)), np.ones(4)))
    assert isinstance(e, ValueError)          # the user's exception, unchanged in type
    note = _notes(e)
    assert f'File "{HERE}", line {_line(matmul_log, "y = x @ w")}, in matmul_log' in note
    assert "y = x @ w" in note and "forward sweep" in note


def test_every_generated_frame_shows_its_line_after_checkcache_and_clearcache():
    g = sg.grad(matmul_log, wrt="w")
    g(np.ones((2, 3)), np.ones(3))            # compiled now
    linecache.checkcache()
    linecache.clearcache()                    # (some tools clear it)
    e = _caught(lambda: g(np.ones((2, 3)), np.ones(4)))
    frames = _generated_frames(e)
    assert frames and all(f.line for f in frames), frames
    assert frames[-1].line == "y = x @ w"
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    assert "    y = x @ w" in text


def callee(a):
    b = np.sqrt(a)
    return b * a


def caller(x):
    u = callee(x[:2]) + x[2:]
    return np.sum(u)


def test_error_in_a_called_user_function_names_that_function():
    e = _caught(lambda: sg.grad(caller)(np.ones(5)))
    note = _notes(e)
    assert f'line {_line(caller, "u = callee(x[:2]) + x[2:]")}, in caller' in note


def blowup(x):
    return x * 2.0


def blowup_adjoint(g, ans, x):
    raise FloatingPointError("adjoint failed")


sg.adjoint(blowup)(blowup_adjoint)


def uses_blowup(x):
    y = np.sin(x)
    z = blowup(y)
    return np.sum(z)


def test_adjoint_error_names_the_line_it_differentiates():
    e = _caught(lambda: sg.grad(uses_blowup)(np.ones(3)))
    assert isinstance(e, FloatingPointError)
    note = _notes(e)
    assert "the adjoint" in note
    assert f'line {_line(uses_blowup, "z = blowup(y)")}, in uses_blowup' in note


def test_vjp_and_jvp_errors_point_home():
    e = _caught(lambda: sg.vjp(matmul_log, np.ones((2, 3)), np.ones(4), wrt=1))
    assert f'line {_line(matmul_log, "y = x @ w")}' in _notes(e)
    e = _caught(lambda: sg.jvp(matmul_log, (np.ones((2, 3)), np.ones(4)),
                               (np.ones((2, 3)), np.ones(4))))
    assert f'line {_line(matmul_log, "y = x @ w")}' in _notes(e)


def nested(x):
    return x * 3.0


def nested_adjoint(g, ans, x):
    # a derivative that runs another srcgrad derivative, which fails
    return g * sg.grad(matmul_log, wrt=1)(np.ones((2, 3)), np.ones(4))


sg.adjoint(nested)(nested_adjoint)


def uses_nested(x):
    return np.sum(nested(x))


def test_note_is_added_once_through_nested_calls():
    e = _caught(lambda: sg.grad(uses_nested)(np.ones(3)))
    assert _notes(e).count("srcgrad: raised in") == 1
    assert f'line {_line(matmul_log, "y = x @ w")}' in _notes(e)


def with_class(x):
    class Local:
        pass
    return x


def uses_unknown(x):
    return np.sum(np.frompyfunc(lambda v: v, 1, 1)(x))


@pytest.mark.parametrize("call", [
    lambda: sg.grad(with_class)(1.0),
    lambda: sg.value_and_grad(with_class)(1.0),
    lambda: sg.vjp(with_class, 1.0),
    lambda: sg.jvp(with_class, (1.0,), (1.0,)),
    lambda: sg.grad(uses_unknown)(np.ones(2)),
], ids=["grad", "value_and_grad", "vjp", "jvp", "nondifferentiable"])
def test_srcgrads_own_errors_have_no_srcgrad_frames(call):
    e = _caught(call)
    assert isinstance(e, (sg.UnsupportedSyntaxError, sg.NonDifferentiableError))
    frames = traceback.extract_tb(e.__traceback__)
    inside = [f for f in frames if f"{os.sep}srcgrad{os.sep}" in f.filename]
    # the test's frames, then at most the one API frame that re-raised it
    assert len(inside) <= 1, [f"{f.filename}:{f.lineno}" for f in inside]
    assert len(frames) <= 4


def test_uncaught_exception_shows_generated_and_user_lines(tmp_path):
    script = tmp_path / "crash.py"
    script.write_text(
        "import numpy as np, srcgrad as sg\n"
        "def model(w, x):\n"
        "    h = x @ w\n"
        "    return np.sum(np.log(h))\n"
        "sg.grad(model, wrt='w')(np.ones(4), np.ones((2, 3)))\n")
    env = dict(os.environ,
               PYTHONPATH=os.path.join(ROOT, "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    at = next(i for i, s in enumerate(lines) if s.startswith('  File "<srcgrad grad of model'))
    assert lines[at + 1].strip() == "h = x @ w", r.stderr      # the generated line
    assert f'File "{script}", line 3, in model' in r.stderr        # and the user's
    assert "srcgrad: raised in the forward sweep" in r.stderr


def test_debug_dir_writes_real_files(tmp_path):
    script = tmp_path / "model.py"
    script.write_text(
        "import numpy as np, srcgrad as sg, traceback\n"
        "def model(x):\n"
        "    y = np.log(x) @ np.ones((3, 3))\n"
        "    return np.sum(y * y)\n"
        "g = sg.grad(model)\n"
        "assert np.allclose(g(np.full(3, 2.0)), 6 * 3 * np.log(2.0) / 2.0)\n"
        "try:\n"
        "    g(np.ones(4))\n"
        "except Exception as e:\n"
        "    print(traceback.extract_tb(e.__traceback__)[-1].filename)\n")
    out = tmp_path / "generated"
    env = dict(os.environ, SRCGRAD_DEBUG_DIR=str(out),
               PYTHONPATH=os.path.join(ROOT, "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    files = sorted(out.glob("*.py"))
    assert files, "no generated file written"
    text = files[0].read_text()
    assert "def grad_model(x):" in text
    compile(text, str(files[0]), "exec")
    # the frame a debugger opens is that file
    assert r.stdout.strip().splitlines()[-1] in {str(f) for f in files}


def test_debug_true_runs_the_gradient_from_a_real_file(tmp_path, monkeypatch):
    monkeypatch.setenv("SRCGRAD_DEBUG_DIR", str(tmp_path))
    g = sg.grad(matmul_log, wrt="w", debug=True)
    x, w = np.ones((2, 3)), np.full(3, 0.5)
    plain = sg.grad(matmul_log, wrt="w")(x, w)
    assert np.allclose(g(x, w), plain)                     # the same code, the same result
    path = g.debug_file
    assert path.startswith(str(tmp_path)) and path.endswith(".py")
    text = open(path).read()
    assert "def grad_matmul_log(x, w):" in text
    assert g.generated({"x": x, "w": w}).__code__.co_filename == path
    # an error in it is a frame of such a file, with its line, and still points home
    # (another shape of w compiles the code again, specialized: a file of its own)
    e = _caught(lambda: g(x, np.ones(4)))
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if f.filename.startswith(str(tmp_path)) and f.filename.endswith(".py")]
    assert frames and frames[-1].line == "y = x @ w"
    assert f'line {_line(matmul_log, "y = x @ w")}, in matmul_log' in _notes(e)
    # value_and_grad and has_aux too (the split form: two functions from one file)
    (v, aux), gw = sg.value_and_grad(lambda a: (np.sum(a ** 2), a), has_aux=True,
                                     debug=True)(w)
    assert np.allclose(gw, 2 * w)
