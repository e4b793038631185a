"""The command line: ``python -m srcgrad show FILE.py:FUNC``.

    python -m srcgrad show FILE.py:FUNC [--wrt a,b] [--mode reverse|split|forward]
                                        [--saved [--args EXPR]] [--html PAGE.html]

prints the Python source srcgrad generates for FUNC's derivative; ``--saved`` adds
what the forward sweep keeps for the adjoint, by source line, and with ``--args`` (a
Python expression evaluated in FILE's namespace, giving the arguments) runs the
forward sweep on those arguments and adds how many bytes each line keeps
(``sg.memory_report``); ``--html`` writes a page
with the function on the left and its derivative on the right, each generated line
linked to the source line it comes from.  Bad input (a missing file, a function that is
not there, a parameter that does not exist, a construct srcgrad refuses) is one line on
stderr and exit status 1, never a traceback (``--traceback`` shows one).
"""
import argparse
import ast
import importlib.util
import inspect
import os
import sys

from ..errors import NonDifferentiableError, UnsupportedSyntaxError


class CommandError(Exception):
    """Bad input to the command line: its message is the one line the user sees."""


def _load(path):
    if not os.path.exists(path):
        raise CommandError(f"no such file: {path}")
    if os.path.isdir(path) or not path.endswith(".py"):
        raise CommandError(f"{path} is not a Python file (FILE.py:FUNC)")
    path = os.path.abspath(path)
    name = "srcgrad_show_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise CommandError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise CommandError(f"{e.filename}:{e.lineno}: {e.msg} (the file does not parse)") \
            from None
    except BaseException as e:   # noqa: BLE001  (whatever the user's module raises)
        if isinstance(e, KeyboardInterrupt):
            raise
        raise CommandError(f"importing {path} raised {type(e).__name__}: {e}") from None
    return module


def _function(module, path, name):
    obj = module
    for part in name.split("."):          # FUNC or Class.method
        if not hasattr(obj, part):
            found = sorted(n for n, v in vars(module).items()
                           if inspect.isfunction(v) and v.__module__ == module.__name__)
            raise CommandError(f"{path} has no function {name!r}"
                               + (f" (its functions: {', '.join(found)})" if found else ""))
        obj = getattr(obj, part)
    obj = getattr(obj, "__srcgrad_wrapped__", obj)
    if not callable(obj):
        raise CommandError(f"{path}:{name} is not a function "
                           f"(it is {type(obj).__name__} {obj!r:.40})")
    return obj


def _wrt(text):
    if not text:
        return None
    items = [w.strip() for w in text.split(",")]
    if not all(items):
        raise CommandError(f"--wrt {text!r}: give parameter names or positions "
                           f"separated by commas, e.g. --wrt W,b")
    items = [int(w) if w.lstrip("-").isdigit() else w for w in items]
    return items[0] if len(items) == 1 else tuple(items)


def _parser():
    p = argparse.ArgumentParser(prog="python -m srcgrad",
                                description="Show the derivative code srcgrad generates.")
    sub = p.add_subparsers(dest="cmd", required=True)
    show = sub.add_parser("show", help="print the generated source of FILE.py:FUNC")
    show.add_argument("target", help="FILE.py:FUNC")
    show.add_argument("--wrt", default=None,
                      help="comma-separated parameter names or positions (default: all)")
    show.add_argument("--mode", default="reverse", choices=["reverse", "split", "forward"],
                      help="reverse: the gradient function; split: forward and backward "
                           "sweeps; forward: forward-mode (jvp) code")
    show.add_argument("--saved", action="store_true",
                      help="also list what the forward sweep keeps for the adjoint")
    show.add_argument("--args", metavar="EXPR", default=None,
                      help="with --saved: the arguments, a Python expression evaluated in "
                           "FILE's namespace (a tuple for several), e.g. "
                           "--args '(np.ones(3), 2.0)'; adds the bytes kept per line")
    show.add_argument("--html", metavar="PAGE.html", default=None,
                      help="write the function and its derivative side by side")
    show.add_argument("--traceback", action="store_true", help=argparse.SUPPRESS)
    return p


def main(argv=None):
    p = _parser()
    args = p.parse_args(argv)
    if ":" not in args.target:
        p.error("target must look like FILE.py:FUNC")
    try:
        return _show(args)
    except CommandError as e:
        print(f"srcgrad show: {e}", file=sys.stderr)
    except UnsupportedSyntaxError as e:
        where = f"{e.filename}:{e.lineno}:{e.offset}: " if e.filename else ""
        print(f"srcgrad show: {where}{e.msg.splitlines()[0]}", file=sys.stderr)
    except (NonDifferentiableError, ValueError, TypeError, NotImplementedError) as e:
        if args.traceback:
            raise
        print(f"srcgrad show: {type(e).__name__}: {' '.join(str(e).split())}",
              file=sys.stderr)
    except Exception as e:   # noqa: BLE001  (an internal error: still one line)
        if args.traceback:
            raise
        print(f"srcgrad show: internal error, {type(e).__name__}: {' '.join(str(e).split())}"
              f" (--traceback shows where)", file=sys.stderr)
    return 1


def _show(args):
    import srcgrad as sg
    from ..api.gradients import generated_functions
    path, func_name = args.target.rsplit(":", 1)
    module = _load(path)
    func = _function(module, path, func_name)
    wrt = _wrt(args.wrt)
    if args.args is not None and not args.saved:
        raise CommandError("--args goes with --saved (it measures what the sweep keeps)")
    fns = generated_functions(func, wrt=wrt, mode=args.mode)
    text = sg.source(func, wrt=wrt, mode=args.mode)
    if args.html:
        from .page import side_by_side
        with open(args.html, "w") as out:
            out.write(side_by_side(func, fns, args.mode))
        print(f"wrote {args.html}", file=sys.stderr)
    sys.stdout.write(text)
    if args.saved:
        sys.stdout.write(saved_report(func, wrt, args.mode))
        if args.args is not None:
            sys.stdout.write(measured_report(func, wrt, _arguments(module, args.args)))
    return 0


def _arguments(module, text):
    """The arguments ``--args`` gives: ``text`` evaluated in the module's namespace."""
    try:
        value = eval(text, vars(module))   # (the user's own expression, on their machine)
    except Exception as e:   # noqa: BLE001  (whatever the expression raises)
        raise CommandError(f"--args {text!r} raised {type(e).__name__}: {e}") from None
    return value if isinstance(value, tuple) else (value,)


def measured_report(func, wrt, call_args):
    """``sg.memory_report`` of ``func`` at ``call_args``, as comment lines."""
    from ..api.memory import memory_report
    report = memory_report(func, *call_args, wrt=wrt)
    return "\n" + "\n".join("# " + line for line in str(report).splitlines()) + "\n"


def saved_report(func, wrt, mode):
    """What the forward sweep keeps for the adjoint, as comment lines: the values it
    returns to the backward sweep and, per source line, what it pushes each time the line runs."""
    from ..api.gradients import generated_functions
    from ..compiler.sourcemap import origins
    if mode == "forward":
        return "\n# forward mode keeps nothing for later: tangents run beside the values\n"
    fwd, _ = generated_functions(func, wrt=wrt, mode="split")
    tree = ast.parse(fwd.source).body[0]
    kept = []
    ret = tree.body[-1]
    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple) and \
            len(ret.value.elts) == 2 and isinstance(ret.value.elts[1], ast.Tuple):
        kept = [ast.unparse(e) for e in ret.value.elts[1].elts]
    params = {a.arg for a in tree.args.args + tree.args.kwonlyargs}
    where = origins(fwd)
    pushes = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "append" and isinstance(node.func.value, ast.Name) and \
                len(node.args) == 1:
            line = where.get(node.lineno, (None, None))[0]
            pushes.setdefault(line, []).append(ast.unparse(node.args[0]))
    stacks = {n.func.value.id for n in ast.walk(tree) if isinstance(n, ast.Call) and
              isinstance(n.func, ast.Attribute) and n.func.attr == "append" and
              isinstance(n.func.value, ast.Name)}
    lines = [f"", f"# saved by the forward sweep of {func.__qualname__} for the adjoint:"]
    args_kept = [n for n in kept if n in params]
    vals_kept = [n for n in kept if n not in params and n not in stacks]
    lines.append(f"#   arguments:    {', '.join(args_kept) or 'none'}")
    lines.append(f"#   last values:  {', '.join(vals_kept) or 'none'}")
    src_lines, first = inspect.getsourcelines(func)
    for line in sorted(pushes, key=lambda n: (n is None, n or 0)):
        text = src_lines[line - first].strip() if line and 0 <= line - first < len(src_lines) \
            else "(no source line)"
        lines.append(f"#   pushed at line {line} (each time it runs): {', '.join(pushes[line])}")
        lines.append(f"#       {text}")
    if not pushes:
        lines.append("#   nothing pushed (no statement overwrites a value the adjoint reads)")
    return "\n".join(lines) + "\n"
