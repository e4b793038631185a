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


# -- bad input: one line, no traceback ---------------------------------------------------

BAD_MODULE = '''import numpy as np


def with_class(x):
    class A:
        pass
    return x


value = 3
'''


def _show(*args):
    return subprocess.run([sys.executable, "-m", "srcgrad", "show", *args],
                          capture_output=True, text=True, env=_env())


def test_bad_input_is_one_clear_line(tmp_path, capsys):
    from srcgrad.cli import main
    rnn = os.path.join(ROOT, "examples", "rnn.py")
    bad = tmp_path / "bad.py"
    bad.write_text(BAD_MODULE)
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n")
    raises = tmp_path / "raises.py"
    raises.write_text("raise RuntimeError('no import for you')\n")
    cases = [
        ((rnn + ":rnn_loss", "--wrt", "foo"), "'foo' is not a parameter of rnn_loss"),
        ((rnn + ":rnn_loss", "--wrt", "7"), "out of range"),
        ((rnn + ":rnn_loss", "--wrt", "W,,b"), "separated by commas"),
        ((rnn + ":nope",), "has no function 'nope' (its functions: rnn_loss)"),
        ((str(tmp_path / "missing.py") + ":f",), "no such file"),
        ((str(bad) + ":with_class",), f"{bad}:5:5: srcgrad does not support a class"),
        ((str(bad) + ":value",), "is not a function"),
        ((str(broken) + ":f",), "does not parse"),
        ((str(raises) + ":f",), "raised RuntimeError: no import for you"),
    ]
    for args, expected in cases:
        assert main(["show", *args]) == 1, args
        out, err = capsys.readouterr()
        lines = err.strip().splitlines()
        assert len(lines) == 1, (args, err)
        assert lines[0].startswith("srcgrad show: ") and expected in lines[0], (args, lines)
        assert out == ""
    # and as a process: exit status 1, the one line, no traceback
    r = _show(rnn + ":rnn_loss", "--wrt", "foo")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        "srcgrad show: ValueError: wrt='foo' is not a parameter of rnn_loss "
        "(parameters: ['W', 'U', 'b', 'xs', 'h0'])"]


def test_saved_lists_what_the_forward_sweep_keeps():
    r = _show(os.path.join(ROOT, "examples", "rnn.py") + ":rnn_loss", "--wrt", "W,U,b",
              "--saved")
    assert r.returncode == 0, r.stderr
    tail = r.stdout.split("# saved by the forward sweep of rnn_loss for the adjoint:")[1]
    assert "pushed at line 10 (each time it runs):" in tail and ", h\n" in tail
    assert "h = np.tanh(h @ W + xs[t] @ U + b)" in tail
    compile(r.stdout, "<shown>", "exec")      # still valid Python: the report is comments


# -- --html --------------------------------------------------------------------------------

def _page(tmp_path, target, *extra):
    page = tmp_path / "page.html"
    r = _show(target, "--html", str(page), *extra)
    assert r.returncode == 0, r.stderr
    return page


class _Links:
    """The ids on the left and the links on the right of a side-by-side page."""

    def __init__(self, text):
        from html.parser import HTMLParser
        self.ids, self.links = set(), []
        links, ids = self.links, self.ids

        class P(HTMLParser):
            def handle_starttag(self, tag, attrs):
                a = dict(attrs)
                if a.get("id", "").startswith("src-"):
                    ids.add(a["id"])
                if tag == "a" and a.get("href", "").startswith("#src-"):
                    links.append((a["href"][1:], a.get("data-src")))
        P().feed(text)


def test_html_page_links_each_generated_block_to_its_source_line(tmp_path):
    page = _page(tmp_path, os.path.join(ROOT, "examples", "rnn.py") + ":rnn_loss",
                 "--wrt", "W,U,b")
    text = page.read_text()
    links = _Links(text)
    # the function's lines 7-11 on the left, each an anchor
    assert links.ids == {f"src-{n}" for n in range(7, 12)}
    # every link lands on a line that exists, and the loop body's code points at line 10
    assert links.links and all(href in links.ids for href, _ in links.links)
    assert all(href == f"src-{n}" for href, n in links.links)
    targets = [href for href, _ in links.links]
    assert targets.count("src-10") >= 10 and "src-11" in targets and "src-8" in targets
    assert "http" not in text.replace("http-equiv", "")     # self-contained


def _chromium():
    import shutil
    for name in ("chromium", "chromium-browser", "chromium-headless-shell", "google-chrome",
                 "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_html_page_in_a_headless_browser(tmp_path):
    browser = _chromium()
    if browser is None:
        import pytest
        pytest.skip("no Chromium installed (apt-get install chromium)")
    page = _page(tmp_path, os.path.join(ROOT, "examples", "while_loop.py") + ":doubling",
                 "--wrt", "x", "--mode", "split")
    # opened at #src-10 (as after clicking a generated line of line 10), the page's
    # script marks line 10 and every generated line that comes from it, and only those
    r = subprocess.run([browser, "--headless", "--disable-gpu", "--no-sandbox",
                        "--enable-logging=stderr", "--dump-dom", page.as_uri() + "#src-10"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Uncaught" not in r.stderr, r.stderr[-2000:]
    links = _Links(r.stdout)
    assert links.links and all(href in links.ids for href, _ in links.links)
    picked = re.findall(r'class="([^"]*\bpicked\b[^"]*)"[^>]*data-src="(\d+)"|'
                        r'data-src="(\d+)"[^>]*class="([^"]*\bpicked\b[^"]*)"', r.stdout)
    lines = {m[1] or m[2] for m in picked}
    assert lines == {"10"}, picked
    assert len(picked) >= 3          # the source line and its forward and adjoint code
