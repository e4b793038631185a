"""srcgrad's own type checks that cannot fail, dropped; kernels the shapes decide,
written out.

Operand type checks.  Before ``a / n`` on a value read from an item, a field or a
function's result, the lowering checks that it is no object of a user's class
(``ad.numeric_operand(n, '/')``: such an object's operator is its class's method).
A check goes when it cannot fail:

* the shapes of the call (optimize/shapes.py) know the value: an int read from
  ``x.shape``, an array, a Python float.  Any known abstract value is a number, a
  tuple of them, None or a NumPy value, never a user's object;
* the same name was checked before in the same block, and no statement since (or
  in a loop around both, or a nested function anywhere) may store it: the same
  object, which passed.

Kernels.  ``ad.matmul_grad_x(g, x, y)`` (``ad.matmul_grad_y``) with ``x`` and ``y``
known 2-d arrays is the kernel's own first branch, written out: ``g @ y.T``
(``x.T @ g``), the same operation on the same operands (so the same bits), without
the call and its tests of ``ndim``; not inside a nested function, lambda or
comprehension, where the names may be others.
"""
import gast

from .. import syntax as A

_CHECKS = frozenset({"numeric_operand"})


def _ad_call(node, ad_name, names):
    return type(node) is gast.Call and type(node.func) is gast.Attribute and \
        node.func.attr in names and type(node.func.value) is gast.Name and \
        node.func.value.id == ad_name


def _check_of(s, ad_name):
    """The name ``ad.numeric_operand(name, op)`` checks, for that statement; else None."""
    if type(s) is gast.Expr and _ad_call(s.value, ad_name, _CHECKS) and s.value.args and \
            type(s.value.args[0]) is gast.Name:
        return s.value.args[0].id
    return None


def drop_type_checks(body, facts, ad_name):
    """``body`` without the operand type checks that cannot fail (module docstring);
    ``facts``: the call's :class:`~.shapes.ShapeFacts`, or None (general code)."""
    pinned = {n for x in A.walk(body) if type(x) in (gast.Global, gast.Nonlocal)
              for n in x.names}
    for x in A.walk(body):
        if isinstance(x, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
            pinned |= A.names_stored(x) | A.names_read(x)
    return _block(body, facts, ad_name, set(), pinned)


def _block(stmts, facts, ad_name, checked, pinned):
    out = []
    for s in stmts:
        n = _check_of(s, ad_name)
        if n is not None:
            if n in checked or (facts is not None and facts.knows_value(s.value.args[0])):
                continue
            if n not in pinned:
                checked.add(n)
            out.append(s)
            continue
        stored = A.names_stored([s])
        if type(s) in (gast.For, gast.While):
            inner = checked - stored                # (a later trip may rebind them)
        else:
            inner = set(checked)
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if type(s) in _COMPOUND and type(block) is list and block:
                setattr(s, field, _block(block, facts, ad_name, set(inner), pinned))
        checked -= stored
        out.append(s)
    return out


_COMPOUND = frozenset((gast.If, gast.For, gast.While, gast.With))


class _Matmuls(gast.NodeTransformer):
    def __init__(self, facts, ad_name):
        self.facts, self.ad_name = facts, ad_name

    def _scope(self, node):
        return node     # (its own names: a parameter or a comprehension's target may
                        # be another value of the same name)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _scope
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _scope

    def visit_Call(self, node):
        self.generic_visit(node)
        if not _ad_call(node, self.ad_name, ("matmul_grad_x", "matmul_grad_y")) or \
                len(node.args) != 3 or node.keywords:
            return node
        g, x, y = node.args
        if not (type(x) is gast.Name and type(y) is gast.Name and
                self.facts.ndim(x) == 2 and self.facts.ndim(y) == 2):
            return node
        if node.func.attr == "matmul_grad_x":
            left, right = g, gast.Attribute(value=A.name(y.id), attr="T", ctx=gast.Load())
        else:
            left, right = gast.Attribute(value=A.name(x.id), attr="T", ctx=gast.Load()), g
        return gast.BinOp(left=left, op=gast.MatMult(), right=right)


def write_out_matmul_grads(body, facts, ad_name):
    """``body`` with the matmul adjoints of known 2-d operands written out (module
    docstring)."""
    if facts is None:
        return body
    t = _Matmuls(facts, ad_name)
    return [t.visit(s) for s in body]
