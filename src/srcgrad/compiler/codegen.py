"""Turn generated gast function definitions into live Python functions.

Guarantees: the returned function's ``__globals__`` is the user's module (so
globals are read live, as in the original), helpers (``ad``, ``np``, callees)
are closure variables that never leak into the user's namespace, the source is
registered with linecache (tracebacks and pdb show it; ``SRCGRAD_DEBUG_DIR``
writes it to real files instead, see :mod:`.sourcemap`), and ``fn.source`` is
the text a user sees.
"""
import builtins
import itertools
import os
import re
import textwrap

import gast

from . import pipeline, sourcemap
from .printer import to_source  # noqa: F401  (the passes render with it)

_counter = itertools.count()


def default_values(fdef, func):
    """Closure entries for the defaults of ``fdef`` that name a value of the scope the
    user's function was defined in (``def h(t, k=c)`` inside another function): the
    generated functions repeat the user's signature, and its defaults must be the
    values the user's function holds, not names looked up again (a NameError)."""
    out = {}
    glb = getattr(func, "__globals__", {})
    a = fdef.args
    positional = list(a.posonlyargs) + list(a.args)
    values = getattr(func, "__defaults__", None) or ()
    pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
    for (p, d), v in zip(pairs[len(pairs) - len(values):] if values else [], values):
        if isinstance(d, gast.Name) and d.id not in glb and not hasattr(builtins, d.id):
            out[d.id] = v
    kw = getattr(func, "__kwdefaults__", None) or {}
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        if isinstance(d, gast.Name) and p.id in kw and d.id not in glb and \
                not hasattr(builtins, d.id):
            out[d.id] = kw[p.id]
    return out


def build(sources, closure, func, label, trees=None):
    """Compile generated function sources; return {name: function}.

    ``sources`` maps each function name to its source; ``closure`` maps the
    free names they use (helper modules, callees, the user's closure cells) to
    objects; ``trees`` (optional) maps names to the gast FunctionDefs the sources
    were rendered from, for :mod:`.sourcemap` to point tracebacks at the user's lines.
    """
    pipeline.after("codegen", func, sources)
    names = sorted(closure)
    body, firsts, line = [], {}, 2
    for fname, src in sources.items():
        firsts[fname] = line
        body.append(textwrap.indent(src, "    ") + "\n")
        line += body[-1].count("\n")
    ret = ", ".join(sources)
    factory = (f"def __srcgrad_factory__({', '.join(names)}):\n{''.join(body)}"
               f"    return ({ret},)\n")
    unit = next(_counter)
    filename = f"<srcgrad {label} #{unit}>"
    folder = sourcemap.debug_dir()
    if folder is not None:     # a real file, for debuggers and editors
        stem = re.sub(r"\W+", "_", label).strip("_")
        filename = os.path.join(folder, f"{stem}_{unit}.py")
        with open(filename, "w") as out:
            out.write(factory)
    sourcemap.register(filename, factory, func, label,
                       {k: (t, sources[k], firsts[k]) for k, t in (trees or {}).items()})
    user_globals = getattr(func, "__globals__", {})
    ns = dict(user_globals)
    code = compile(factory, filename, "exec")
    exec(code, ns)
    made = ns["__srcgrad_factory__"](*[closure[n] for n in names])
    out = {}
    import types
    for (fname, src), fn in zip(sources.items(), made):
        live = types.FunctionType(fn.__code__, user_globals, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
        live.__kwdefaults__ = fn.__kwdefaults__
        live.__doc__ = fn.__doc__
        live.source = src
        out[fname] = live
    return out
