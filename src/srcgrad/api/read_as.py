"""What a transformation reads for a callable that is not a plain def of the user's.

* A wrapper made with ``functools.wraps`` declares the signature of the function it
  wraps (``inspect.signature`` reports it); srcgrad differentiates it as a function of
  those parameters, so that ``wrt`` counts the arguments as the caller passes them.
* A derivative taken with ``wrt=(name,)`` returns a 1-tuple; its generated code returns
  the bare gradient, so a transformation reads a small function that puts it in one.
"""
import inspect

from ..compiler.dynamic import caller


_DECLARED = {}


def declared_function(func):
    """A wrapper made with ``functools.wraps`` that takes ``*args`` / ``**kwargs``
    (a user's decorator around a loss) as a function of the parameters it declares,
    those of the function it wraps: ``def loss(w, X, y): return wrapped(w, X, y)``.
    Positions in ``wrt``, and ``wrt=None``, then count the arguments as the caller
    passes them, one gradient each, as for the undecorated function (and as
    autograd's ``argnum`` and JAX's ``argnums`` do).  ``func`` itself when its own
    parameters are already plain, or when the declared ones have defaults or are
    keyword-only (a call could not be passed on unchanged)."""
    own = inspect.signature(func, follow_wrapped=False).parameters.values()
    if not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in own) or \
            any(p.kind is p.KEYWORD_ONLY for p in own):
        return func         # (a keyword-only option of the wrapper's own: kept)
    try:
        declared = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return func
    if not declared or any(p.kind is not p.POSITIONAL_OR_KEYWORD or
                           p.default is not p.empty for p in declared):
        return func
    key = id(func)
    made = _DECLARED.get(key)
    if made is None or made[0] is not func:
        names = [p.name for p in declared]
        fn = caller(func, func.__name__, names, names)
        fn.__qualname__ = func.__qualname__
        made = _DECLARED[key] = (func, fn)     # (func kept: its id names it)
    return made[1]


_ONE_TUPLES = {}


def as_one_tuple(fn, mode, sig):
    """The generated gradient ``fn`` with its one gradient in a 1-tuple, as a call with
    ``wrt=(name,)`` returns it (its code, for a transformation that reads it)."""
    key = (fn, mode)
    if key not in _ONE_TUPLES:
        from ..compiler import codegen
        params = ", ".join(sig.names) if sig.simple else "*args, **kwargs"
        name = "gradient"
        while name in sig.names:
            name += "_"
        call = f"{name}({params})"
        body = (f"    return ({call},)\n" if mode == "grad" else
                f"    value, grads = {call}\n    return value, (grads,)\n")
        src = (f"def one_gradient_tuple({params}):\n"
               f"    \"\"\"{mode} with respect to one parameter named in a tuple.\"\"\"\n"
               + body)
        made = codegen.build({"one_gradient_tuple": src}, {name: fn}, fn,
                             f"a 1-tuple of {fn.__qualname__}")["one_gradient_tuple"]
        made.__srcgrad_transformable__ = True
        _ONE_TUPLES[key] = made
    return _ONE_TUPLES[key]
