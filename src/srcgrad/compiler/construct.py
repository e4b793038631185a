"""Building an object of a user class inside differentiated code: ``Dense(W, b)``.

The constructor runs as written.  Its gradient follows each array or float the new
object holds back to the argument it *is*: ``self.W = W`` stores the argument itself,
so the gradient of the object's ``.W`` is ``W``'s gradient (likewise ``self.layers =
list(layers)``, ``self.mean, self.log_std = theta[:d], theta[d:]``, a dataclass's
fields).  An attribute holding a value the constructor computed from its arguments
(``self.W2 = 2 * W``) has no such source: srcgrad cannot see that computation, so the
call is refused, naming the attribute.  A value that does not come from the
arguments at all (``self.scale = 1.0``, ``self.h = np.zeros(3)``) is told apart by
building a second object from the arguments moved: what keeps its value is a constant.
"""
import types

from .. import runtime
from ..errors import NonDifferentiableError
from ..runtime import records

__all__ = ["construct_back", "construct_push", "construct_routes", "construct_saved",
           "construct_every",
           "construct_built", "built_pieces_grad", "built_tangent"]


def is_leaf(v):
    """An array of floats, or a float: what carries a gradient."""
    if isinstance(v, (bool, types.ModuleType)):       # (np has np.shape and np.dtype)
        return False
    if isinstance(v, float):
        return True
    dt = getattr(v, "dtype", None)
    return dt is not None and hasattr(v, "shape") and runtime.dtype_kind(dt) in "fc"


def _children(v):
    """[(step, child)] of a structured value; a step is (kind, key)."""
    if isinstance(v, dict):
        return [(("key", k), x) for k, x in v.items()]
    if isinstance(v, (list, tuple)):
        return [(("index", i), x) for i, x in enumerate(v)]
    if records.is_record(v):
        return [(("attr", k), x) for k, x in records.fields_of(v).items()]
    return []


def _leaves(v, path=(), seen=None):
    """[(path, leaf)] of the arrays and floats inside ``v``, by every path (an object
    held twice is walked twice; only a cycle is cut)."""
    seen = () if seen is None else seen
    if is_leaf(v):
        return [(path, v)]
    if id(v) in seen:
        return []
    seen = seen + (id(v),)
    out = []
    for step, x in _children(v):
        out.extend(_leaves(x, path + (step,), seen))
    return out


def _argument(args, kwargs, w):
    return args[w] if isinstance(w, int) else kwargs[w]


def _routes(cls, obj, args, kwargs, where, site):
    """[(path in obj, k, path in argument where[k])]: where each array of the new
    object comes from.  The class is built a second time from the differentiated
    arguments moved (each float a new object, of another value): an array of the new
    object that *is* a moved argument's comes from it; one that keeps its value is a
    constant (even if it is the same object as an argument's: ``self.scale = 1.5`` and
    an argument holding that same float); anything else it computed from them, which
    srcgrad cannot follow, and is refused."""
    args2, kwargs2 = list(args), dict(kwargs)
    for w in where:
        if isinstance(w, int):
            args2[w] = _moved(args[w])
        else:
            kwargs2[w] = _moved(kwargs[w])
    sources = {}
    for k, w in enumerate(where):
        for path, leaf in _leaves(_argument(args2, kwargs2, w)):
            sources.setdefault(id(leaf), (k, path))
    try:
        again = dict(_leaves(cls(*args2, **kwargs2)))
    except Exception:                   # (it cannot be built from other values)
        again = None
    routes = []
    for path, leaf in _leaves(obj):
        other = again.get(path) if again is not None else None
        hit = sources.get(id(other)) if other is not None else None
        if hit is not None:
            routes.append((path, hit[0], hit[1]))
        elif other is None or not _same(other, leaf):
            raise NonDifferentiableError(
                f"{site}: {cls.__qualname__}(...) stores in {_shown(path)} a value it "
                f"computes from its arguments, and srcgrad cannot follow a gradient "
                f"through that computation (it follows objects whose attributes are the "
                f"arguments themselves: self.W = W). Compute the value in a method, or "
                f"pass it to {cls.__qualname__} computed")
    return routes


def _moved(v):
    """A copy of ``v`` with every float moved (structure kept; new objects)."""
    if is_leaf(v):
        return v * 1.0009765625 + 0.0009765625 if hasattr(v, "shape") else \
            type(v)(v * 1.0009765625 + 0.0009765625)
    if isinstance(v, dict):
        return {k: _moved(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return runtime.same_sequence(v, [_moved(x) for x in v])
    if records.is_record(v):
        return records.with_fields(v, {k: _moved(x) for k, x in records.fields_of(v).items()})
    return v


def _same(a, b):
    if a is b:
        return True
    try:
        return bool(getattr(a, "shape", None) == getattr(b, "shape", None) and
                    (a == b if not hasattr(a, "shape") else (a == b).all()))
    except Exception:
        return False


def _shown(path):
    out = "the object"
    for kind, key in path:
        out += f".{key}" if kind == "attr" else f"[{key!r}]"
    return out


def _get(g, step):
    """The part of gradient (or tangent) ``g`` at ``step`` (None: zero)."""
    if g is None:
        return None
    kind, key = step
    if isinstance(g, dict):
        return g.get(key)
    if kind == "index":
        return g[key]
    return getattr(g, key, None)


def _at(g, path):
    for step in path:
        g = _get(g, step)
    return g


def _put(acc, value, path, piece):
    """``acc`` (a gradient of ``value``, partial: None, sparse dicts) with ``piece``
    added at ``path``."""
    if not path:
        return runtime.add_grads(acc, piece)
    (kind, key), rest = path[0], path[1:]
    if kind == "index":
        items = list(acc) if acc is not None else [None] * len(value)
        items[key] = _put(items[key], value[key], rest, piece)
        return items
    sub = value[key] if kind == "key" else records.fields_of(value)[key]
    out = dict(acc) if isinstance(acc, dict) else {}
    out[key] = _put(out.get(key), sub, rest, piece)
    return out


def _complete(acc, value):
    """A gradient of ``value`` from ``acc``: sequences of the value's type and length,
    zeros for arrays nothing reached (dicts and records stay sparse)."""
    if isinstance(value, (list, tuple)):
        items = list(acc) if acc is not None else [None] * len(value)
        return runtime.same_sequence(value, [_complete(a, v) for a, v in zip(items, value)])
    if isinstance(value, dict) or records.is_record(value):
        if not isinstance(acc, dict):
            return acc
        sub = value if isinstance(value, dict) else records.fields_of(value)
        return {k: _complete(a, sub[k]) for k, a in acc.items()}
    if acc is None:
        return runtime.zeros_like(value) if is_leaf(value) else None
    return acc


def forward(cls, args, kwargs, where, site):
    """``cls(*args, **kwargs)`` and the record whose call gives the gradients of the
    arguments ``where`` names from the new object's gradient: data, ``(saved,
    construct_back, picks)``, so that it differentiates again (compiler/nested.py)."""
    obj = cls(*args, **kwargs)
    if not where:
        return obj, lambda g: ()
    routes = _routes(cls, obj, args, kwargs, where, site)
    values = [_argument(args, kwargs, w) for w in where]
    return obj, ((routes, values, obj), construct_back,
                 (None, tuple((k, None) for k in range(len(where)))))


def jvp(cls, args, kwargs, where, tangents, site):
    """Forward mode: the new object and its tangent (a sparse dict of its fields)."""
    obj = cls(*args, **kwargs)
    if not where:
        return obj, {}
    routes = _routes(cls, obj, args, kwargs, where, site)
    return obj, construct_push((routes, None, obj), tangents)


# -- the two linear maps, as kernels with rules (a derivative of a derivative) -----------
def construct_back(saved, t):
    """The gradients of the arguments a record names, from the new object's gradient
    ``t`` (``saved``: the routes, those arguments, the object)."""
    routes, values, _ = saved
    out = [None] * len(values)
    for fpath, k, apath in routes:
        piece = _at(t, fpath)
        if piece is not None:
            out[k] = _put(out[k], values[k], apath, piece)
    return tuple(_complete(a, v) for a, v in zip(out, values))


def construct_push(saved, t):
    """The transpose of :func:`construct_back`: the new object's tangent (a sparse dict
    of its fields) from the tangents ``t`` of the arguments a record names."""
    routes, _, obj = saved
    tangent = None
    for fpath, k, apath in routes:
        piece = _at(t[k], apath) if t[k] is not None else None
        if piece is not None:
            tangent = _put(tangent, obj, fpath, piece)
    return _complete(tangent, obj) if tangent is not None else {}


def construct_routes(cls, where, site, pieces):
    """The routes of ``cls(*args, **kwargs)`` (``pieces``: args, kwargs)."""
    args, kwargs = pieces
    if not where:
        return []
    return _routes(cls, cls(*args, **kwargs), args, kwargs, where, site)


def construct_every(pieces):
    """The positions and keywords of the arguments that hold floats: those a derivative
    of a derivative may differentiate (the first one's ``where`` may name fewer)."""
    args, kwargs = pieces
    return tuple([i for i, a in enumerate(args) if _leaves(a)] +
                 [k for k, a in kwargs.items() if _leaves(a)])


def construct_saved(routes, every, where, pieces, obj):
    """The data a record's :func:`construct_back` reads: the routes of the arguments
    ``where`` names, out of the routes of ``every`` argument holding floats."""
    args, kwargs = pieces
    mine = {every.index(w): k for k, w in enumerate(where)}
    return ([(fpath, mine[k], apath) for fpath, k, apath in routes if k in mine],
            [_argument(args, kwargs, w) for w in where], obj)


def construct_built(cls, where, routes, pieces):
    """``cls(*args, **kwargs)``, whose arrays and floats are the arguments' own along
    ``routes``: linear in them."""
    args, kwargs = pieces
    return cls(*args, **kwargs)


def built_pieces_grad(t, where, routes, pieces, obj=None):
    """(args, kwargs) gradients of :func:`construct_built` from the object's ``t``
    (``pieces``: the arguments, or their tangents, for the structure; ``obj``, the
    object, is for the rule of this map: its transpose, :func:`built_tangent`)."""
    args, kwargs = pieces
    values = [_argument(args, kwargs, w) for w in where]
    grads = construct_back((routes, values, None), t)
    dargs = [runtime.zeros_like(a) if is_leaf(a) else None for a in args]
    dkwargs = {}
    for w, d in zip(where, grads):
        if isinstance(w, int):
            dargs[w] = d
        else:
            dkwargs[w] = d
    return tuple(dargs), dkwargs


def built_tangent(t, where, routes, obj):
    """The tangent of :func:`construct_built`'s object from its pieces' tangents ``t``."""
    dargs, dkwargs = t if t is not None else ((), {})
    picked = [(dargs[w] if w < len(dargs) else None) if isinstance(w, int) else
              (dkwargs or {}).get(w) for w in where]
    return construct_push((routes, None, obj), picked)
