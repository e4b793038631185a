"""The command line (`python -m srcgrad show`) and the README's quick start."""
import os
import re
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_show_prints_generated_source():
    out = subprocess.run([sys.executable, "-m", "srcgrad", "show",
                          os.path.join(ROOT, "examples", "rnn.py") + ":rnn_loss", "--wrt", "W,U,b"],
                         capture_output=True, text=True, env=_env(), check=True).stdout
    assert out.startswith("def grad_rnn_loss(W, U, b, xs, h0):")
    assert "for t in reversed(" in out
    assert "return (dW, dU, db)" in out
    compile(out, "<shown>", "exec")  # what we print is valid Python


def test_show_split_and_bad_target():
    out = subprocess.run([sys.executable, "-m", "srcgrad", "show",
                          os.path.join(ROOT, "examples", "while_loop.py") + ":doubling",
                          "--wrt", "x", "--mode", "split"],
                         capture_output=True, text=True, env=_env(), check=True).stdout
    assert "def doubling_fwd(x, v):" in out and "def doubling_bwd(saved, dresult):" in out
    bad = subprocess.run([sys.executable, "-m", "srcgrad", "show", "no_colon"],
                         capture_output=True, text=True, env=_env())
    assert bad.returncode != 0 and "FILE.py:FUNC" in bad.stderr


def test_readme_quick_start_runs(tmp_path):
    readme = open(os.path.join(ROOT, "README.md")).read()
    code = re.search(r"## Quick start\s+```python\n(.*?)```", readme, re.S).group(1)
    script = tmp_path / "quick.py"
    script.write_text(code + "\nprint(repr((float(dw1), float(dw2))))\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=_env(), check=True).stdout
    assert out.strip().splitlines()[-1] == "(2.5, 1.0)"
    assert "def grad_loss(x, w1, w2):" in out


def test_examples_run():
    for name in ("seed_loss.py", "while_loop.py", "rnn.py", "mlp.py"):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", name)],
                           capture_output=True, text=True, env=_env())
        assert r.returncode == 0, (name, r.stderr)
    assert "dw1 = 2.5  dw2 = 1.0" in subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "seed_loss.py")],
        capture_output=True, text=True, env=_env()).stdout
