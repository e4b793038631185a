"""Shape-only reads of an elementwise result read its operand instead.

The adjoint sweep often reads a value only for its shape, dtype and type: the seed
of ``np.mean(v)`` is ``ad.mean_grad(g, v, ...)``, an un-broadcast reads its
operand's shape (the kernels' ``shape_only`` facet says which parameters).  When
``v = f(x, c)`` is a NumPy ufunc applied to one array ``x`` and numeric literals,
``v`` has ``x``'s shape, dtype and type, so the read can be of ``x``; if nothing
else reads ``v``, dead-code elimination then drops ``v`` from the forward sweep::

    mul = neg * matmul                       mul = neg * matmul
    lae = np.logaddexp(0.0, mul)      ->     ...
    dlae = ad.mean_grad(1.0, lae, ...)       dlae = ad.mean_grad(1.0, mul, ...)

Guarantee: a read is replaced only when all of these hold, so the replaced read
sees the same shape, dtype and type:

* ``v`` and ``x`` are each bound once in the whole function (``x`` may be a
  parameter never rebound), ``v`` at the top level, and the read comes after it;
* ``v``'s rule is elementwise and its function a NumPy ufunc with one output and a
  loop ``t..t->t`` for every floating (and complex) type ``t`` (``logaddexp``:
  ``ee->e``, ``ff->f``, ``dd->d``...); ``x`` carries a gradient (so it is a floating or
  complex array), and
  every other operand is an int or float literal (NumPy's weak scalars: they never
  change the dtype), with no ``out=``, ``dtype=`` or ``where=``;
* the reading call is an ``ad`` kernel whose rule declares that parameter
  ``shape_only``.

The one difference: a ufunc of a 0-d array returns a NumPy scalar; the kernels that
read shapes give the same results for both.
"""
import gast
import numpy as np

from .. import syntax as A
from ...rules import namespace as ad_namespace
from ...rules.registry import facets_of, reads_only_shape
from .dce import dead_code

_FLOATING = frozenset("efdgFDG")


def stand_in_shape_reads(body, varied, params, ad_name):
    """``body`` (the statements of a generated gradient) with shape-only reads of
    elementwise results redirected to their operands, and dead code dropped (see
    :func:`.dce.dead_code`).  A read is redirected only where that makes its value
    dead; elsewhere the code reads as before."""
    stores = _store_counts(body)
    once = {n for n, c in stores.items() if c == 1} | \
        {p for p in params if stores.get(p, 0) == 0}
    stand_in = {}
    where = {}                                   # v -> its statement (index, node)
    for i, s in enumerate(body):
        x = _operand(s, varied, once)
        if x is not None:
            v = s.targets[0].id
            stand_in[v] = stand_in.get(x, x)     # (a chain reads the first operand)
            where[v] = (i, s)
    if not stand_in:
        return body
    sites = {v: [] for v in stand_in}            # v -> [(call, position or keyword)]
    ns = ad_namespace()
    for i, s in enumerate(body):
        for node in gast.walk(s):
            if type(node) is not gast.Call:
                continue
            f = node.func
            if not (type(f) is gast.Attribute and type(f.value) is gast.Name and
                    f.value.id == ad_name):
                continue
            kernel = getattr(ns, f.attr, None)
            if kernel is None or not facets_of(kernel).shape_only:
                continue
            for k, a in enumerate(node.args):
                if _candidate(a, where, i) and reads_only_shape(kernel, k):
                    sites[a.id].append((node, k))
            for kw in node.keywords:
                if kw.arg and _candidate(kw.value, where, i) and \
                        reads_only_shape(kernel, kw.arg):
                    sites[kw.value.id].append((kw, None))
    # redirect every one, drop what is dead, then put back the reads of values that
    # are still computed (redirecting those saves nothing and reads less plainly)
    done = []
    for v, found in sites.items():
        for node, k in found:
            old = node.value if k is None else node.args[k]
            new = gast.Name(id=stand_in[v], ctx=gast.Load(), annotation=None,
                            type_comment=None)
            if k is None:
                node.value = new
            else:
                node.args[k] = new
            done.append((v, node, k, old))
    if not done:
        return body
    body = dead_code(body)
    alive = A.names_stored(body)
    for v, node, k, old in done:
        if v in alive:
            if k is None:
                node.value = old
            else:
                node.args[k] = old
    return body


def _candidate(a, where, i):
    return type(a) is gast.Name and a.id in where and where[a.id][0] < i



def _store_counts(body):
    counts = {}
    for s in body:
        for n in gast.walk(s):
            if type(n) is gast.Name and type(n.ctx) in (gast.Store, gast.Del):
                counts[n.id] = counts.get(n.id, 0) + 1
            elif isinstance(n, (gast.FunctionDef, gast.Lambda)):
                for a in gast.walk(n.args):
                    if type(a) is gast.Name:
                        counts[a.id] = counts.get(a.id, 0) + 2   # (never once)
    return counts


def _operand(s, varied, once):
    """The array operand ``x`` when ``s`` is ``v = ufunc(x, literals...)`` as the
    module docstring requires; else None."""
    if type(s) is not gast.Assign or type(s.targets[0]) is not gast.Name:
        return None
    op = getattr(s, "srcgrad_op", None)
    if op is None or op.kind != "rule" or not op.rule.facets.elementwise:
        return None
    if s.targets[0].id not in once or not _keeps_type(op.rule.func):
        return None
    params = op.rule.signature.parameters
    x = None
    for p, a in op.args.items():
        if a is None:
            continue                             # (a parameter not given)
        spec = params.get(p)
        if spec is None or spec.default is not spec.empty or \
                spec.kind not in (spec.POSITIONAL_ONLY, spec.POSITIONAL_OR_KEYWORD):
            return None                          # out=, dtype=, where=, *args...
        if type(a) is gast.Constant:
            if type(a.value) not in (int, float):
                return None
        elif type(a) is gast.Name and x is None and a.id in varied and a.id in once:
            x = a.id
        else:
            return None
    return x


def _keeps_type(func):
    """A one-output ufunc with a loop ``t..t->t`` for each real floating type (and
    each complex one, unless it has no complex loop at all): NumPy runs an array of
    type ``t`` through that loop (``np.float_power`` has no float32 loop: a float32
    array gives float64, and it is not one of these)."""
    if not isinstance(func, np.ufunc) or func.nout != 1:
        return False
    loops = {}
    for loop in func.types:
        ins, out = loop.split("->")
        if len(set(ins)) == 1:
            loops.setdefault(ins[0], out)
    if any(loops.get(t) != t for t in "efd"):
        return False
    if any(t in loops for t in "FDG") and any(loops.get(t) != t for t in "FD"):
        return False
    return all(loops[t] == t for t in "gG" if t in loops)
