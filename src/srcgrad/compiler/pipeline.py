"""The compiler's passes, in order, and the hook that prints the code after any of them.

A derivative is built by these passes; each states what it guarantees about its
output in its module's docstring:

======================  ===================================  ==============================
pass                    module                               output
======================  ===================================  ==============================
``parse``               :mod:`srcgrad.compiler.source`       the function's gast tree,
                                                             located in the user's file
``normalize``           :mod:`srcgrad.compiler.lower`        one operation per statement,
                                                             loops over ``range``, jumps
                                                             as flags, local defs inlined
(analysis)              :mod:`srcgrad.compiler.analysis`     each assignment's ``Op``,
                                                             varied / useful names and
                                                             aliasing checks, run by the
                                                             mode passes
``reverse``             :mod:`srcgrad.compiler.modes`        forward sweep with records
                                                             and the adjoint sweep
``forward``             :mod:`srcgrad.compiler.modes`        tangent code (forward mode)
``codegen``             :mod:`srcgrad.compiler.codegen`      Python source, compiled with
                                                             its closure
======================  ===================================  ==============================

Set ``SRCGRAD_PRINT_AFTER`` to a comma-separated list of pass names (or ``all``) to
print, on stderr, the code of every function compiled from then on after each of
those passes::

    SRCGRAD_PRINT_AFTER=normalize,codegen python my_script.py

The variable is read at each compilation, so it can also be set from Python
(``os.environ["SRCGRAD_PRINT_AFTER"] = "normalize"``) before the first call.
"""
import copy
import os
import sys

import gast

from .printer import to_source

PASSES = ("parse", "normalize", "reverse", "forward", "codegen")

ENV = "SRCGRAD_PRINT_AFTER"


def requested():
    """The pass names whose output is printed (a set; empty when the hook is off)."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        return frozenset()
    names = {v.strip() for v in value.split(",") if v.strip()}
    if "all" in names:
        return frozenset(PASSES)
    unknown = names - set(PASSES)
    if unknown:
        raise ValueError(f"{ENV}={value!r}: unknown pass {', '.join(sorted(unknown))}; "
                         f"the passes are {', '.join(PASSES)} (or 'all')")
    return frozenset(names)


def after(pass_name, func, code, like=None, stream=None):
    """Print ``code`` (gast nodes, a list of statements, or source text) if the user
    asked to see the output of ``pass_name``; a list of statements is shown as the
    body of a function with the signature of ``like`` (a FunctionDef).  Returns
    ``code`` unchanged."""
    assert pass_name in PASSES, pass_name
    if pass_name not in requested():
        return code
    stream = stream or sys.stderr
    title = getattr(func, "__qualname__", str(func))
    print(f"# ---- srcgrad: {title} after {pass_name} ----", file=stream)
    print(render(code, getattr(func, "__name__", "f"), like).rstrip("\n"), file=stream)
    print(file=stream)
    return code


def render(code, name="f", like=None):
    """Source text of a gast FunctionDef, a list of statements (shown as the body of a
    function called ``name``), a dict of sources, or text."""
    if isinstance(code, str):
        return code
    if isinstance(code, dict):
        return "\n".join(render(v, name) for v in code.values())
    if isinstance(code, tuple):
        return "\n".join(render(v, name) for v in code)
    if isinstance(code, gast.FunctionDef):
        return to_source(copy.deepcopy(code))
    body = copy.deepcopy(list(code)) or [gast.Pass()]
    args = copy.deepcopy(like.args) if like is not None else gast.arguments(
        args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
        defaults=[])
    fdef = gast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None, type_comment=None)
    if "type_params" in gast.FunctionDef._fields:
        fdef.type_params = []
    return to_source(fdef)
