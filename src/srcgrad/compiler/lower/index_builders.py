"""``np.r_[...]`` and ``np.c_[...]``: index expressions that join arrays become calls.

NumPy's ``np.r_`` and ``np.c_`` are objects whose ``__getitem__`` joins its items (arrays,
numbers, ranges written as slices).  This pass rewrites each such subscript to a call
of the rule kernel that computes the same thing, so that the rest of the pipeline sees
an ordinary call with a derivative rule::

    b = np.r_[x, c, 1:10]        ->   b = ad.index_join(np.r_, (x, c, ad.index_range(1, 10, None)))
    b = np.c_[x, 0:1:5j]         ->   b = ad.index_join(np.c_, (x, ad.index_range(0, 1, 5j)))

Guarantees about its output: no subscript of ``np.r_`` / ``np.c_`` (or of a name bound
to them) is left; a slice among the items is the array NumPy builds for it
(``ad.index_range``: an arange, or a linspace for a complex step), with its own rule;
the join keeps NumPy's semantics exactly (``ad.index_join`` calls the object itself).
A leading directive string such as ``'0,2,1'`` stays an item; the directives that
build an ``np.matrix`` (``'r'``, ``'c'``, a whole-string key ``np.r_['1 2; 3 4']``) are
refused with a located error.
"""
import gast
import numpy as np

from .. import syntax as A
from ..source import MISSING, resolve

_BUILDERS = (type(np.r_), type(np.c_))


def lower_index_builders(body, info, ad_name, locals_):
    """``body`` with every ``np.r_[...]`` / ``np.c_[...]`` read rewritten (in place)."""
    if not any(isinstance(n, gast.Subscript) for n in A.walk(body)):
        return body
    rewriter = _IndexBuilders(info, ad_name, locals_)
    return [rewriter.visit(s) for s in body]


class _IndexBuilders(gast.NodeTransformer):
    def __init__(self, info, ad_name, locals_):
        self.info, self.ad_name, self.locals = info, ad_name, locals_

    def builder(self, node):
        base = node
        while isinstance(base, gast.Attribute):
            base = base.value
        if not isinstance(base, gast.Name) or base.id in self.locals:
            return None
        obj = resolve(node, self.info.func)
        return obj if obj is not MISSING and type(obj) in _BUILDERS else None

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if not isinstance(node.ctx, gast.Load) or \
                not isinstance(node.value, (gast.Name, gast.Attribute)):
            return node
        obj = self.builder(node.value)
        if obj is None:
            return node
        shown = A.unparse_short(node.value)
        items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        first = items[0] if items else None
        if isinstance(first, gast.Constant) and isinstance(first.value, str) and (
                len(items) == 1 or first.value in ("r", "c")):
            raise self.info.error(node, f"{shown}[{first.value!r}, ...] builds an np.matrix, "
                                        f"which srcgrad does not differentiate; join arrays "
                                        f"with np.concatenate, np.vstack or np.column_stack "
                                        f"instead")
        elts = [self.range_of(e) if isinstance(e, gast.Slice) else e for e in items]
        call = A.call(A.attr(self.ad_name, "index_join"),
                      [node.value, gast.Tuple(elts=elts, ctx=gast.Load())])
        return A.copy_loc(call, node)

    def range_of(self, s):
        bound = [A.const(None) if v is None else v for v in (s.lower, s.upper, s.step)]
        return A.copy_loc(A.call(A.attr(self.ad_name, "index_range"), bound), s)
