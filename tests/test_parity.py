"""Seeds parity: the example scripts print with srcgrad what they print with PyTorch 2.13.

Every ``examples/seeds/*.py`` and ``examples/parity/*.py`` is plain PyTorch code
(``import torch``).  Each runs in a subprocess whose ``import torch`` resolves to
srcgrad (a ``torch.py`` shim on ``PYTHONPATH`` that replaces itself with
srcgrad in ``sys.modules``); its stdout, object addresses normalised, must equal
``<script>.expected``, written by ``tools/regen_expected.py`` from real PyTorch.
PyTorch is not needed to run this test.
"""
import difflib
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import regen_expected  # noqa: E402

SCRIPTS = regen_expected.scripts()

SHIM = '''"""``import torch`` gives srcgrad (installed by tests/test_parity.py)."""
import sys
del sys.modules[__name__]   # no half-made "torch" while srcgrad imports (SciPy probes it)
import srcgrad
sys.modules[__name__] = srcgrad
'''


@pytest.fixture(scope="module")
def srcgrad_env(tmp_path_factory):
    shim = tmp_path_factory.mktemp("torch_shim")
    (shim / "torch.py").write_text(SHIM)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(shim), str(ROOT / "src")])
    env["PYTHONHASHSEED"] = "0"
    return env


def test_enough_scripts():
    parity = [s for s in SCRIPTS if s.parent.name == "parity"]
    seeds = [s for s in SCRIPTS if s.parent.name == "seeds"]
    assert len(parity) >= 40 and len(seeds) >= 2


# PyTorch's CPU build made these outputs: where cupy sees a GPU, srcgrad rightly differs
CPU_BUILD_ONLY = {"p34_devices"}


def _gpu_available():
    import srcgrad
    return srcgrad.cuda.is_available()


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_prints_what_pytorch_prints(script, srcgrad_env):
    if script.stem in CPU_BUILD_ONLY and _gpu_available():
        pytest.skip("expected output is PyTorch's CPU build; a GPU is available here")
    expected_file = script.with_suffix(".expected")
    assert expected_file.exists(), f"run tools/regen_expected.py {script.relative_to(ROOT)}"
    code, out, err = regen_expected.run(script, env=srcgrad_env)
    got = regen_expected.normalise(out)
    want = expected_file.read_text()
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                            "pytorch", "srcgrad"))
        pytest.fail(f"{script.name}: output differs from PyTorch's\n{diff}\n"
                    f"exit code {code}; stderr:\n{err[-3000:]}")
