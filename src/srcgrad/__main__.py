"""Command line: ``python -m srcgrad show FILE.py:FUNC [--wrt a,b] [--mode reverse|split|forward]``.

Prints the Python source srcgrad generates for FUNC's derivative.
"""
import argparse
import importlib.util
import os
import sys


def _load(path):
    path = os.path.abspath(path)
    name = "srcgrad_show_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise SystemExit(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(path))
    spec.loader.exec_module(module)
    return module


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m srcgrad",
                                description="Show the derivative code srcgrad generates.")
    sub = p.add_subparsers(dest="cmd", required=True)
    show = sub.add_parser("show", help="print the generated source of FILE.py:FUNC")
    show.add_argument("target", help="FILE.py:FUNC")
    show.add_argument("--wrt", default=None, help="comma-separated parameter names or positions")
    show.add_argument("--mode", default="reverse", choices=["reverse", "split", "forward"])
    args = p.parse_args(argv)
    if ":" not in args.target:
        p.error("target must look like FILE.py:FUNC")
    path, func_name = args.target.rsplit(":", 1)
    module = _load(path)
    try:
        func = getattr(module, func_name)
    except AttributeError:
        raise SystemExit(f"{path} has no function {func_name!r}") from None
    func = getattr(func, "__srcgrad_wrapped__", func)
    wrt = None
    if args.wrt:
        items = [int(w) if w.lstrip("-").isdigit() else w for w in args.wrt.split(",")]
        wrt = items[0] if len(items) == 1 else tuple(items)
    import srcgrad as sg
    sys.stdout.write(sg.source(func, wrt=wrt, mode=args.mode))
    return 0


if __name__ == "__main__":
    sys.exit(main())
