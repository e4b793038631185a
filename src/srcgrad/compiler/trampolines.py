"""Python functions (with source, in linecache) that call a callable which is not a
def, for srcgrad to transform: ``sg.grad(np.sin)``, ``sg.grad(partial(...))``, a
callable object, a primitive called through a value (compiler/nested.py)."""
import inspect

from .. import rules
from . import sourcemap


_TRAMPOLINES = {}


def trampoline(f):
    """A Python function (with source, in linecache) that calls ``f``: what srcgrad
    transforms for ``sg.grad(np.sin)``, ``sg.grad(functools.partial(loss, X=X))`` or
    a callable object.  Its parameters are ``f``'s required ones (a ufunc's inputs;
    a rule's parameters without defaults), then ``**kwargs`` for the rest, so that
    ``wrt=None`` finds the arguments a call passes.  None when ``f`` is not callable."""
    if not callable(f):
        return None
    names = None
    rule = rules.lookup(f)
    if rule is not None:
        names = [p.name for p in rule.signature.parameters.values()
                 if p.default is inspect.Parameter.empty and
                 p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    elif getattr(f, "nin", None) is not None:            # a ufunc without a rule
        names = ["x"] if f.nin == 1 else [f"x{i + 1}" for i in range(f.nin)]
    else:
        try:
            sig = inspect.signature(f, follow_wrapped=False)
            names = [p.name for p in sig.parameters.values()
                     if p.default is inspect.Parameter.empty and
                     p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            names = None
    label = getattr(f, "__name__", None) or getattr(getattr(f, "func", None), "__name__",
                                                    None) or type(f).__name__
    params = (names or []) + (["*args"] if names is None else []) + ["**kwargs"]
    fn = caller(f, label, params, params)
    fn.__srcgrad_called__ = f
    return fn


def caller(f, label, params, call):
    """``def <label>(<params>): return f(<call>)``, with its source in linecache (made
    once per label and parameters; srcgrad reads it to transform it)."""
    import keyword
    label = "".join(c if c.isalnum() or c == "_" else "_" for c in label) or "f"
    if keyword.iskeyword(label) or label[0].isdigit():
        label = "call_" + label
    params, call = ", ".join(params), ", ".join(call)
    key = (label, params, call)
    src = (f"def __srcgrad_make__(_callee):\n"
           f"    def {label}({params}):\n"
           f"        return _callee({call})\n"
           f"    return {label}\n")
    filename = f"<srcgrad call of {label}({params})>"
    # (always: the entry must be there whenever srcgrad reads the source, even after
    # someone cleared linecache)
    sourcemap.register(filename, src, f, label, {})
    if key not in _TRAMPOLINES:
        ns = {"__name__": "srcgrad_trampoline"}
        exec(compile(src, filename, "exec"), ns)
        _TRAMPOLINES[key] = ns["__srcgrad_make__"]
    return _TRAMPOLINES[key](f)
