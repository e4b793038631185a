"""What a user downloads: the license, the metadata, and an sdist whose tests run."""
import configparser
import os
import pathlib
import subprocess
import sys
import tarfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
ROOT_ENTRIES = {".ci", ".gitignore", "LICENSE", "MANIFEST.in", "README.md", "docs",
                "examples", "pyproject.toml", "setup.cfg", "src", "tests", "tools"}


def _config():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    return cfg


def test_license_is_the_declared_one():
    assert _config()["metadata"]["license"] == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_no_stray_files_at_the_root():
    try:
        tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True,
                                 text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (an unpacked sdist)")
    stray = sorted({p.split("/", 1)[0] for p in tracked} - ROOT_ENTRIES)
    assert not stray, stray


def test_metadata_has_classifiers_and_installable_extras():
    meta, extras = _config()["metadata"], _config()["options.extras_require"]
    classifiers = meta["classifiers"].split("\n")
    for v in ("3.10", "3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {v}" in classifiers
    # the CuPy wheel users install; the ``cupy`` package itself compiles from source
    assert extras["gpu"].split() == ["cupy-cuda12x"]
    assert extras["scipy"].strip().startswith("scipy")


def _build_sdist(out):
    try:
        from setuptools import build_meta
    except ImportError:
        pytest.skip("setuptools is not installed")
    code = ("import sys; from setuptools import build_meta; "
            "print(build_meta.build_sdist(sys.argv[1]))")
    r = subprocess.run([sys.executable, "-c", code, str(out)], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return out / r.stdout.split()[-1]


def test_sdist_carries_what_its_tests_need(tmp_path):
    if not (ROOT / "setup.cfg").exists() or not (ROOT / "MANIFEST.in").exists():
        pytest.skip("not a source tree")
    tarball = _build_sdist(tmp_path)
    with tarfile.open(tarball) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
        tar.extractall(tmp_path, filter="data") if sys.version_info >= (3, 12) \
            else tar.extractall(tmp_path)
    helpers = [p.name for p in (ROOT / "tests").glob("*.py")]
    missing = [h for h in helpers if f"tests/{h}" not in names]
    assert not missing, missing
    for need in ("LICENSE", "README.md", "tests/snapshots/seed_loss.py.txt",
                 "examples/rnn.py", "tools/bench.py", "docs/internals.md"):
        assert need in names, need
    assert not any("__pycache__" in n or n.endswith(".whl") for n in names)
    # and two of its test files run from the unpacked sdist, on its own sources
    unpacked = tarball.parent / tarball.name[:-len(".tar.gz")]
    env = dict(os.environ, PYTHONPATH=str(unpacked / "src"))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                        "tests/test_snapshots.py", "tests/test_has_aux.py"],
                       cwd=unpacked, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    where = subprocess.run([sys.executable, "-c", "import srcgrad; print(srcgrad.__file__)"],
                           cwd=unpacked, env=env, capture_output=True, text=True).stdout
    assert where.startswith(str(unpacked))
