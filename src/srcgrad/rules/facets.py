"""What a primitive is, besides its derivative: the facts that passes ask about.

A rule (or a no-gradient entry) declares these once, where it is registered; no
pass keeps its own list of primitive names.  ``tests/test_facets.py`` checks every
declared facet against NumPy's real behaviour on each rule's sample calls, and
checks that a rule that does not declare ``view_of`` never returns memory shared
with its inputs (so a forgotten facet fails a test instead of giving a wrong
gradient).

* ``elementwise``: the result is the function applied entry by entry (after
  broadcasting the array arguments): permuting the inputs permutes the output.
* ``linear_in``: parameters the result is linear in, jointly, the others held fixed
  (``np.reshape`` in ``a``; ``np.add`` in ``(x, y)``; a kernel in ``t``).
* ``bilinear_in``: parameters the result is linear in one at a time, the others held
  fixed (``np.multiply``, ``np.dot``: ``(a, b)``).
* ``view_of``: the parameter whose memory the result may share (``np.reshape``,
  ``x.T``, ``np.split``: ``a``).  Writing into the result writes into it.
* ``reduction``: the parameter that names the reduced axes (``"axis"``), or
  ``ALL_AXES`` for a function that always reduces to a scalar (``np.vdot``).
  With ``axis=None`` (and no ``keepdims=True``) the result is a scalar.
* ``shape_only``: parameters whose values are never read, only their shape,
  dtype or type (``np.zeros_like``'s ``a``); ``ALL_PARAMS`` for every one.
* ``in_place``: the parameter the function writes into (``np.copyto``: ``dst``).
* ``nograd``: the result carries no gradient (``np.sign``, ``np.argmax``).
* ``sequence``: parameters that take a Python list or tuple of values and
  differentiate it item by item (``np.concatenate``'s ``arrays``, ``np.array``'s
  ``object``).  Any other array parameter given a list reads it as
  ``np.asarray(list)`` first.
* ``container``: the result is always a Python list, tuple or dict, never an array
  (``list(x)``, ``d.items()``): its gradient contributions add item by item.
* ``tuple_by``: the parameter that, when true, makes the result a tuple
  (``scipy.special.logsumexp``'s ``return_sign``): its tangent terms add item by item,
  as a container's.
* ``shape``: the law of the result's shape and dtype kind from the arguments' (a
  function of :mod:`.shapes`, such as ``shapes.matmul``), for shape specialization.
  Elementwise rules and reductions need none (their laws follow from those facets);
  a rule with neither and no law has results of unknown shape.
"""
from __future__ import annotations

from dataclasses import dataclass

ALL_AXES = "<all axes>"
ALL_PARAMS = ("*",)


@dataclass(frozen=True)
class Facets:
    elementwise: bool = False
    linear_in: tuple = ()
    bilinear_in: tuple = ()
    view_of: str | None = None
    reduction: str | None = None
    shape_only: tuple = ()
    in_place: str | None = None
    nograd: bool = False
    sequence: tuple = ()
    container: bool = False
    tuple_by: str | None = None
    shape: object = None

    def reads_only_shape(self, param):
        return self.shape_only == ALL_PARAMS or param in self.shape_only

    def check(self, params, where):
        """Raise ValueError if a facet names a parameter not in ``params``."""
        named = list(self.linear_in) + list(self.bilinear_in) + list(self.sequence) + \
            [self.view_of, self.in_place, self.tuple_by]
        if self.reduction != ALL_AXES:
            named.append(self.reduction)
        if self.shape_only != ALL_PARAMS:
            named += list(self.shape_only)
        for p in named:
            if p is not None and p not in params:
                raise ValueError(f"{where}: a facet names {p!r}, not a parameter of ({params})")


NONE = Facets()


def make(**facets):
    """Facets from keyword arguments; a single name is accepted for tuple facets."""
    for key in ("linear_in", "bilinear_in", "shape_only", "sequence"):
        v = facets.get(key)
        if isinstance(v, str):
            facets[key] = (v,)
        elif v is not None:
            facets[key] = tuple(v)
    return Facets(**facets) if facets else NONE
