"""Shape laws: what a primitive's result looks like, from what its arguments look like.

The ``shape`` facet of a rule (:mod:`.facets`) is one of these laws, or None.  A
law takes the rule's bound arguments as abstract values and returns the abstract
value of the result, or :data:`UNKNOWN` whenever it cannot be sure.  Elementwise
rules and reductions need no declaration: :func:`result_of` derives their law from
the ``elementwise`` and ``reduction`` facets.  Shape specialization
(``compiler/optimize/shapes.py``) runs these laws from the argument shapes of one
call; ``tests/test_shape_laws.py`` checks each declared law against NumPy's real
results on the rules' sample calls.

Abstract values:

* :class:`Array`: a NumPy array or NumPy scalar of ``shape`` whose dtype is of
  ``kind`` (``"f"`` real floating, ``"c"`` complex, ``"i"``/``"u"`` integer, ``"b"``
  bool; None: unknown);
* :class:`Known`: a Python value known at compile time (an int, a float, a tuple of
  ints such as ``x.shape``, None, a bool);
* :class:`Scalar`: a Python scalar of ``kind`` whose value is unknown (a loop's
  index ``t``: ``Scalar("i")``);
* :data:`UNKNOWN`: anything else.
"""
from dataclasses import dataclass

import numpy as np


class _Unknown:
    __slots__ = ()

    def __repr__(self):
        return "UNKNOWN"


UNKNOWN = _Unknown()


@dataclass(frozen=True)
class Array:
    shape: tuple
    kind: str | None = None


@dataclass(frozen=True)
class Known:
    value: object


@dataclass(frozen=True)
class Scalar:
    kind: str


_PY_KINDS = {bool: "b", int: "i", float: "f", complex: "c"}


def signature_of(v):
    """What specialization keys on for a run-time value, as a plain hashable: an
    array's (or NumPy scalar's) ``(shape, dtype kind)``, a Python scalar's type, else
    None (cheap: the call path computes it on every uncached call)."""
    t = type(v)
    if t is np.ndarray or isinstance(v, np.generic):
        return (v.shape, v.dtype.kind)
    if t in _PY_KINDS:
        return t
    return None


def of_signature(item):
    """The abstract value of a :func:`signature_of` item."""
    if type(item) is tuple:
        return Array(item[0], item[1])
    if item in _PY_KINDS:
        return Scalar(_PY_KINDS[item])
    return UNKNOWN


def of_value(v):
    """The abstract value of a run-time value (an argument of the call specialized)."""
    return of_signature(signature_of(v))


def kind_of(a):
    """The dtype kind of an abstract value, or None when unknown."""
    if type(a) is Array:
        return a.kind
    if type(a) is Scalar:
        return a.kind
    if type(a) is Known and type(a.value) in _PY_KINDS:
        return _PY_KINDS[type(a.value)]
    return None


def shape_of(a):
    """The shape an abstract value broadcasts as (a Python scalar: ``()``), or None."""
    if type(a) is Array:
        return a.shape
    if kind_of(a) is not None:
        return ()
    return None


def broadcast(shapes):
    """NumPy's broadcast of ``shapes``, or None when they do not broadcast."""
    out = []
    for dims in zip(*(((1,) * (max(map(len, shapes)) - len(s)) + tuple(s)) for s in shapes)):
        big = {d for d in dims if d != 1}
        if len(big) > 1:
            return None
        out.append(big.pop() if big else 1)
    return tuple(out)


def _real(kinds):
    return all(k is not None and k in "fiubr" for k in kinds)


def elementwise(operands):
    """The result of an elementwise function of ``operands`` (abstract values): an
    Array of their broadcast shape, real when every operand is real (its kind then
    unknown but not complex: ``"r"``), else of unknown kind."""
    shapes = [shape_of(a) for a in operands]
    if not operands or any(s is None for s in shapes):
        return UNKNOWN
    shape = broadcast(shapes)
    if shape is None:
        return UNKNOWN
    kinds = [kind_of(a) for a in operands]
    return Array(shape, "r" if _real(kinds) else None)


def is_real(a):
    """Is the abstract value known to be real (not complex)?"""
    k = kind_of(a)
    return k is not None and k in "fiubr"


def reduce(a, axis, keepdims):
    """The result of reducing ``a`` over ``axis`` (an abstract value: None, an int or a
    tuple of ints, known), keeping the axes as 1 with ``keepdims``."""
    kind = "r" if is_real(a) else None
    if type(axis) is not Known or type(keepdims) is not Known or \
            type(keepdims.value) is not bool:
        return UNKNOWN
    if axis.value is None and not keepdims.value:
        return Array((), kind)      # (whatever the shape: a scalar)
    if type(a) is not Array and shape_of(a) != ():
        return UNKNOWN
    shape = shape_of(a)
    ax = axis.value
    if ax is None:
        return Array((1,) * len(shape), kind)
    axes = ax if type(ax) is tuple else (ax,)
    if not all(type(i) is int and -len(shape) <= i < len(shape) for i in axes):
        return UNKNOWN
    axes = {i % len(shape) for i in axes}
    if keepdims.value:
        return Array(tuple(1 if i in axes else n for i, n in enumerate(shape)), kind)
    return Array(tuple(n for i, n in enumerate(shape) if i not in axes), kind)


# -- declared laws (the ``shape`` facet) ------------------------------------------------

def matmul(args):
    """``x @ y`` (``np.matmul``), by NumPy's rules: 1-d operands get an axis added and
    removed again, leading axes broadcast."""
    x, y = args.get("x"), args.get("y")
    if type(x) is not Array or type(y) is not Array or not x.shape or not y.shape:
        return UNKNOWN
    xs, ys = x.shape, y.shape
    a = xs if len(xs) > 1 else (1,) + xs
    b = ys if len(ys) > 1 else ys + (1,)
    if a[-1] != b[-2]:
        return UNKNOWN
    lead = broadcast([a[:-2], b[:-2]])
    if lead is None:
        return UNKNOWN
    shape = lead + (a[-2], b[-1])
    if len(ys) == 1:
        shape = shape[:-1]
    if len(xs) == 1:
        shape = shape[:-2] + shape[-1:] if len(ys) > 1 else shape[:-1]
    return Array(shape, "r" if _real([x.kind, y.kind]) else None)


def getitem(args):
    """``x[i]`` for an integer ``i``: an array loses its first axis; a known tuple
    (``x.shape[0]``) gives its item.  Any other index: unknown."""
    x, i = args.get("x"), args.get("index")
    if type(x) is Known and type(x.value) is tuple and type(i) is Known and \
            type(i.value) is int and -len(x.value) <= i.value < len(x.value):
        return Known(x.value[i.value])
    if type(x) is Array and x.shape and kind_of(i) in ("i", "u") and \
            (type(i) is not Array or i.shape == ()):
        if type(i) is Known and not -x.shape[0] <= i.value < x.shape[0]:
            return UNKNOWN
        return Array(x.shape[1:], x.kind)
    return UNKNOWN

