"""Turn generated gast function definitions into live Python functions.

Guarantees: the returned function's ``__globals__`` is the user's module (so
globals are read live, as in the original), helpers (``ad``, ``np``, callees)
are closure variables that never leak into the user's namespace, the source is
registered with linecache (tracebacks and pdb show it), and ``fn.source`` is
the text a user sees.
"""
import itertools
import linecache
import textwrap

from . import pipeline
from .ir import to_source  # noqa: F401  (the passes render with it)

_counter = itertools.count()


def build(sources, closure, func, label):
    """Compile generated function sources; return {name: function}.

    ``sources`` maps each function name to its source; ``closure`` maps the
    free names they use (helper modules, callees, the user's closure cells) to
    objects.
    """
    pipeline.after("codegen", func, sources)
    names = sorted(closure)
    body = "".join(textwrap.indent(src, "    ") + "\n" for src in sources.values())
    ret = ", ".join(sources)
    factory = (f"def __srcgrad_factory__({', '.join(names)}):\n{body}"
               f"    return ({ret},)\n")
    filename = f"<srcgrad {label} #{next(_counter)}>"
    linecache.cache[filename] = (len(factory), None, factory.splitlines(True), filename)
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
