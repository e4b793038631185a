"""tools/demo: the examples beside their gradients, each checked against finite
differences; the install step runs once and says what it does."""
import os
import pathlib
import shutil
import stat
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import demo  # noqa: E402


def test_demo_prints_each_example_beside_its_gradient_and_checks_it(capsys, monkeypatch):
    monkeypatch.setattr(demo.shutil, "get_terminal_size",
                        lambda fallback: os.terminal_size((160, 40)))
    assert demo.main() == 0
    out = capsys.readouterr().out
    for name in ("seed_loss.py", "while_loop.py", "rnn.py", "mlp.py"):
        assert f"examples/{name}" in out
    assert out.count("✓ gradient matches central finite differences") == 4
    # side by side: the function's line and the generated code's on one row
    assert any(line.startswith("def rnn_loss(W, U, b, xs, h0):") and
               "│ def grad_rnn_loss(W, U, b, xs, h0):" in line for line in out.splitlines())
    assert "MLP training" in out
    assert ("wrote build/demo/mlp_loss.png" in out) or ("matplotlib is not installed" in out)


def test_finite_difference_check_catches_a_wrong_gradient():
    def f(x, w):
        return np.sum(np.sin(x * w))
    x = np.array([0.3, -0.2])
    right = np.cos(x * 2.0) * 2.0
    assert demo.finite_difference_error(f, (x, 2.0), "x", right) < 1e-8
    assert demo.finite_difference_error(f, (x, 2.0), "x", right * 1.01) > 1e-3
    params = {"a": np.array([1.0, 2.0]), "b": 0.5}

    def g(p):
        return np.sum(p["a"] ** 2) * p["b"]
    good = {"a": 2 * params["a"] * 0.5, "b": 5.0}
    assert demo.finite_difference_error(g, (params,), "p", good) < 1e-8
    assert demo.finite_difference_error(g, (params,), "p", {**good, "b": 4.0}) > 0.1


def test_side_by_side_falls_back_to_one_column_when_narrow():
    text = demo.side_by_side("a = 1\n", "b = 2\nc = 3\n", width=160)
    assert text.splitlines() == ["a = 1   │ b = 2", "        │ c = 3"]
    assert demo.side_by_side("a" * 50, "b" * 50, width=80) == "a" * 50 + "\n\n" + "b" * 50


def _fake_checkout(tmp_path):
    """A checkout with tools/demo, a stub demo.py, and a .venv whose python logs what
    it is asked to do (pip installs succeed at once)."""
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "demo", tmp_path / "tools" / "demo")
    (tmp_path / "tools" / "demo.py").write_text("print('the demo ran')\n")
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = x\n")
    (tmp_path / "pyproject.toml").write_text("")
    bin_ = tmp_path / ".venv" / "bin"
    bin_.mkdir(parents=True)
    log = tmp_path / "calls.log"
    fake = bin_ / "python"
    fake.write_text(f"""#!/bin/sh
echo "$*" >> {log}
case "$*" in
  *"pip install"*) echo "Collecting gast"; echo "Successfully installed srcgrad-0.1.0" ;;
  *demo.py*) exec {sys.executable} "$@" ;;
esac
exit 0
""")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return log


def test_demo_installs_once_and_says_so(tmp_path):
    log = _fake_checkout(tmp_path)

    def run():
        r = subprocess.run([str(tmp_path / "tools" / "demo")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r.stdout
    first = run()
    assert "installing srcgrad" in first and "Successfully installed srcgrad" in first
    assert "the demo ran" in first
    second = run()
    assert "installing" not in second and "the demo ran" in second
    assert log.read_text().count("pip install") == 1
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = x\nversion = 2\n")
    assert "installing srcgrad" in run()              # the metadata changed: again
    assert log.read_text().count("pip install") == 2
