"""SciPy's rules load lazily: ``import srcgrad`` imports no SciPy, and a SciPy function
finds its rule however and whenever SciPy was imported.  Each check runs in a fresh
interpreter (this one has SciPy imported already)."""
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("scipy")

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def run(code, tmp_path):
    script = tmp_path / "program.py"          # a file: srcgrad reads functions' source
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, str(script)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_and_numpy_gradients_import_no_scipy(tmp_path):
    out = run("""
        import sys
        import numpy as np
        import srcgrad as sg

        def f(x):
            return np.sum(np.tanh(x) ** 2)

        sg.grad(f)(np.ones(3))
        sg.source(f)
        print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))
    """, tmp_path)
    assert out.strip() == "[]"


def test_scipy_imported_after_srcgrad_finds_its_rules(tmp_path):
    # expected values from SciPy itself: d gammaln = digamma, d logsumexp = softmax,
    # d/dx norm(0, 2).logpdf(x) = -x / 4
    out = run("""
        import sys
        import numpy as np
        import srcgrad as sg
        import scipy.special as sc

        def f(x):
            return np.sum(sc.gammaln(x))

        x = np.array([0.7, 1.5, 2.5])
        print(np.max(np.abs(sg.grad(f)(x) - sc.digamma(x))))
        print('srcgrad.rules.scipy.stats' in sys.modules)

        def inside(x):
            import scipy.signal            # imported during the compilation
            return np.sum(scipy.signal.convolve(x, x))

        print(np.max(np.abs(sg.grad(inside)(x) - 2 * np.full(3, np.sum(x)))))

        import scipy.stats as st

        def g(x):
            return np.sum(st.norm(0.0, 2.0).logpdf(x)) + np.sum(st.norm.logcdf(x))

        expect = -x / 4 + st.norm.pdf(x) / st.norm.cdf(x)
        print(np.max(np.abs(sg.grad(g)(x) - expect)))
    """, tmp_path).split()
    assert float(out[0]) < 1e-12
    assert out[1] == "False"      # scipy.special's rules loaded, not scipy.stats'
    assert float(out[2]) < 1e-12
    assert float(out[3]) < 1e-12


def test_whole_table_loads_every_family(tmp_path):
    out = run("""
        import srcgrad.rules as rules
        names = {r.name for r in rules.all_rules()}
        print(all(any(n.startswith('scipy.' + f + '.') for n in names)
                  for f in ('special', 'stats', 'linalg', 'signal', 'integrate')))
        print('lse_weights' in rules.helper_names(), 'lse_weights' in dir(rules.namespace()))
    """, tmp_path).split()
    assert out == ["True", "True", "True"]
