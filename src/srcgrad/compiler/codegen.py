"""Turn generated gast function definitions into live Python functions.

Guarantees: the returned function's ``__globals__`` is the user's module (so
globals are read live, as in the original), helpers (``ad``, ``np``, callees)
are closure variables that never leak into the user's namespace, the source is
registered with linecache (tracebacks and pdb show it; ``SRCGRAD_DEBUG_DIR``
writes it to real files instead, see :mod:`.sourcemap`), and ``fn.source`` is
the text a user sees.
"""
import itertools
import os
import re
import textwrap

from . import pipeline, sourcemap
from .ir import to_source  # noqa: F401  (the passes render with it)

_counter = itertools.count()


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
