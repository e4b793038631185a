#!/usr/bin/env python
"""Regenerate the expected outputs of the parity scripts with real PyTorch.

    pip install torch==2.13.0          # CPU build; an oracle only, never a dependency
    python tools/regen_expected.py     # all of examples/seeds and examples/parity
    python tools/regen_expected.py examples/parity/p01_*.py

Each ``<name>.py`` is run with the installed ``torch`` in its own folder; its
stdout, with object addresses normalised to ``0x...``, is written to
``<name>.expected``.  ``tests/test_parity.py`` compares srcgrad's output with it.
"""
import argparse
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDERS = [ROOT / "examples" / "seeds", ROOT / "examples" / "parity"]
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def normalise(text):
    """Object addresses vary from run to run: ``0x7f2c90393748`` -> ``0x...``."""
    return ADDRESS.sub("0x...", text)


def scripts(paths=None):
    if paths:
        return [pathlib.Path(p).resolve() for p in paths]
    return sorted(p for folder in FOLDERS for p in folder.glob("*.py"))


def run(script, env=None, timeout=120):
    """Run ``script`` in its folder; return (returncode, stdout, stderr)."""
    proc = subprocess.run([sys.executable, script.name], cwd=script.parent, env=env,
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scripts", nargs="*", help="scripts to regenerate (default: all)")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        sys.exit("regen_expected: PyTorch is not installed (pip install torch==2.13.0)")
    print(f"using torch {torch.__version__}")
    failed = 0
    for script in scripts(args.scripts):
        code, out, err = run(script)
        if code != 0:
            failed += 1
            print(f"FAILED {script.relative_to(ROOT)} (exit {code}):\n{err}")
            continue
        script.with_suffix(".expected").write_text(normalise(out))
        print(f"wrote {script.with_suffix('.expected').relative_to(ROOT)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
