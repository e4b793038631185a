"""Python containers built from differentiable values, as primitives with rules.

The lowering (compiler/lower/) turns what builds a container from other containers into calls of
these (generated code reaches them as ``ad.<name>``):

* ``dict(m)``, ``dict(pairs)``, ``dict(zip(ks, vs))``  -> ``as_dict(x)``
* ``dict(m, k=v, **other)``, ``{**d1, "k": v}``        -> ``merged(as_dict(m), {"k": v}, other)``
* ``zip(a, b)`` outside a for loop                     -> ``zipped(a, b)`` (a list of tuples)
* ``a + b``, ``a * n`` on list/tuple displays or names bound to them
                                                       -> ``seq_concat(a, b)``, ``seq_repeat(a, n)``
* ``list(x)``, ``tuple(x)`` (x an array, a list, a dict, any iterable)
                                                       -> ``as_list(x)``, ``as_tuple(x)``
* ``d.values()``, ``d.items()`` of a dict              -> ``values_of(d)``, ``items_of(d)``
* ``itertools.combinations(xs, r)``, ``permutations``, ``combinations_with_replacement``,
  ``product(xs, repeat=r)``                            -> ``arranged(xs, r, kind)``
  (``d.keys()`` carries no gradient)

A gradient has its value's structure: a dict's is a (possibly sparse) dict, a
list's a list, a tuple's a tuple; keys carry none (zeros).
"""
import itertools

import numpy as np

from .. import runtime as rt
from .registry import defkernel, deflinear, defresolver

__all__ = ["without_key", "as_dict", "as_dict_grad", "as_dict_jvp", "merged", "merged_grad", "merged_jvp",
           "zipped", "zipped_grad", "zipped_jvp", "seq_concat", "seq_split", "seq_repeat",
           "seq_repeat_grad", "as_list", "as_tuple", "unlist", "listed", "listed_items",
           "values_of",
           "values_grad", "items_of", "items_grad", "items_tangent", "arranged",
           "arranged_grad"]


def _zeros(x):
    return rt.zeros_like(x)


def _like(items, x):
    """``items`` (a list) as the kind of sequence ``x`` is."""
    if isinstance(x, tuple):
        return tuple(items)
    if hasattr(x, "shape"):
        return np.stack(items) if items else np.zeros_like(x)
    return list(items)


def _is_mapping(x):
    return hasattr(x, "keys") and hasattr(x, "__getitem__")


# -- dict(...) ---------------------------------------------------------------------

def as_dict(x):
    """``dict(x)``: x a mapping or an iterable of (key, value) pairs."""
    return dict(x)


def as_dict_grad(g, x):
    """Adjoint of :func:`as_dict`: a dict's gradient back in x's structure (the pair
    that wrote a key last gets its gradient; an earlier pair with that key none)."""
    g = g or {}
    if _is_mapping(x):
        return {k: g[k] for k in x if k in g}          # sparse, as dict adjoints are
    pairs = list(x)
    last = {k: i for i, (k, _) in enumerate(pairs)}
    out = [type(p)((_zeros(p[0]), g[p[0]] if last[p[0]] == i and g.get(p[0]) is not None
                    else _zeros(p[1]))) for i, p in enumerate(pairs)]
    return _like(out, x)


def as_dict_jvp(dx, x):
    """Tangent of :func:`as_dict` (its transpose: the tangent pairs into a dict)."""
    if _is_mapping(x):
        return {k: (dx or {}).get(k, _zeros(v)) for k, v in x.items()}
    return {p[0]: dp[1] for p, dp in zip(list(x), list(dx))}


# -- {**a, **b} --------------------------------------------------------------------

def merged(*dicts):
    """``{**d1, **d2, ...}``: later keys win."""
    out = {}
    for d in dicts:
        out = {**out, **d}
    return out


def merged_grad(g, dicts):
    """Adjoint of :func:`merged`: one (sparse) dict per argument, holding the gradient
    of each key it provided (none for a key that a later dict overrides)."""
    g = g or {}
    owner = {}
    for i, d in enumerate(dicts):
        for k in d:
            owner[k] = i
    return tuple({k: g[k] for k in d if owner[k] == i and k in g}
                 for i, d in enumerate(dicts))


def merged_jvp(ddicts, dicts):
    return merged(*[rt.fill_like(t, d) if t is not None else _zeros(d)
                    for t, d in zip(ddicts, dicts)])


# -- zip outside loops -------------------------------------------------------------

def zipped(*seqs):
    """``zip(*seqs)`` as a list of tuples (a value that can be read again)."""
    return list(zip(*seqs))


def zipped_grad(g, seqs):
    """Adjoint of :func:`zipped`: sequence i gets item i of each tuple's gradient
    (zeros for the items zip dropped, past the shortest sequence)."""
    n = len(g)
    out = []
    for i, s in enumerate(seqs):
        items = list(s)
        grads = [g[j][i] if j < n and g[j] is not None else _zeros(v)
                 for j, v in enumerate(items)]
        out.append(_like(grads, s))
    return tuple(out)


def zipped_jvp(dseqs, seqs):
    return zipped(*[d if d is not None else _zeros(s) for d, s in zip(dseqs, seqs)])


# -- + and * of lists and tuples ---------------------------------------------------

def seq_concat(a, b):
    """``a + b`` for two lists or two tuples."""
    return a + b


def _shaped_as(g, x):
    """An array gradient ``g`` of x's shape in x's structure (a list gets a list)."""
    if isinstance(x, (list, tuple)):
        return rt.same_sequence(x, [_shaped_as(gi, xi) for gi, xi in zip(g, x)])
    return g


def seq_split(g, a, b, part):
    """Adjoint of :func:`seq_concat`: the first ``len(a)`` items (part 0) or the rest.
    (Unless both are lists or tuples, they were added, not joined: a number, an array,
    or a list that NumPy read as one: the un-broadcast gradient, in x's structure.)"""
    if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))):
        x = a if part == 0 else b
        if isinstance(x, (list, tuple)):
            return _shaped_as(rt.unbroadcast(g, np.shape(x)), x)
        return rt.unbroadcast(g, x)
    items = list(g)[:len(a)] if part == 0 else list(g)[len(a):]
    return tuple(items) if isinstance(g, tuple) else items


def seq_repeat(a, n):
    """``a * n`` for a list or a tuple and an int."""
    return a * n


def seq_repeat_grad(g, a, n):
    """Adjoint of :func:`seq_repeat`: the gradients of the n copies of each item, added."""
    k = len(a)
    items = list(g)
    out = [_zeros(v) for v in a]
    for j in range(k * max(n, 0)):
        out[j % k] = rt.add_grads(out[j % k], items[j])
    return tuple(out) if isinstance(a, tuple) else out


# -- list(x), tuple(x) ------------------------------------------------------------

def as_list(x):
    """``list(x)``: x's items (an array's rows, a dict's keys, any iterable's items)."""
    return list(x)


def as_tuple(x):
    """``tuple(x)``."""
    return tuple(x)


def unlist(t, x):
    """Adjoint of :func:`as_list` / :func:`as_tuple`: the items' gradients ``t`` (None:
    zeros) in x's structure.  An array gets an array of its shape (the rows' gradients
    stacked), a list or a tuple one like it; a dict's keys carry none (an empty, sparse
    dict); another iterable (a dict's values or items) a list."""
    if isinstance(x, dict):
        return {}
    grads = list(t)
    if rt.is_record(x):
        # an object of the user's class, iterated: each item's gradient to the field
        # that holds it
        return rt.indexable_grad(grads, x)
    if hasattr(x, "shape"):
        if not grads:
            return rt.zeros_like(x)
        return np.stack([rt.zeros_like(x[i]) if gi is None else gi
                         for i, gi in enumerate(grads)])
    if isinstance(x, (list, tuple)):
        items = [rt.zeros_like(xi) if gi is None else gi for gi, xi in zip(grads, x)]
        return tuple(items) if isinstance(x, tuple) else items
    return grads


def listed(t, like):
    """``t`` (the gradient or tangent of a value) as the list or tuple of its items that
    ``like`` is: an array's rows (copies), a list's items (None: zeros); a dict's keys
    get zeros.  The transpose of :func:`unlist`."""
    if t is None or isinstance(t, dict):
        items = [rt.zeros_like(v) for v in like]
    elif hasattr(t, "shape"):
        t = np.copy(t)                 # rows that no other gradient shares
        items = [t[i] for i in range(len(like))]
    else:
        items = [rt.zeros_like(v) if ti is None else ti for ti, v in zip(list(t), like)]
    return tuple(items) if isinstance(like, tuple) else items


def listed_items(t, x, like):
    """The tangent of ``list(x)`` from x's tangent ``t`` (``like``: the list): for an
    object of the user's class, its items' tangents read at the fields that hold them;
    else :func:`listed`.  The transpose of :func:`unlist` in ``x``'s structure."""
    if rt.is_record(x):
        return rt.indexable_tangent(t, x)
    return listed(t, like)


# -- d.pop(k): the lowering reads d[k] (or d.get), then rebinds d to a copy without k ---

def without_key(d, key):
    """A copy of dict ``d`` without ``key`` (what ``d.pop(key)`` leaves in d); also a
    dict gradient or tangent with nothing at ``key``."""
    if d is None:
        return None
    out = dict(d)
    out.pop(key, None)
    return out


deflinear(without_key, "t, key", "without_key(g, key)", "without_key(dt, key)",
          container=True)

# -- d.values(), d.items() ---------------------------------------------------------

def _check_dict(d, method):
    if not isinstance(d, dict):
        raise TypeError(f"srcgrad differentiates .{method}() as dict.{method}(); "
                        f"got a {type(d).__name__}")


def values_of(d):
    """``d.values()``, as a list."""
    _check_dict(d, "values")
    return list(d.values())


def values_grad(t, d):
    """Adjoint of :func:`values_of`: item i's gradient to d's i-th key (sparse)."""
    return {k: ti for k, ti in zip(d, t) if ti is not None}


def items_of(d):
    """``d.items()``, as a list of (key, value) pairs."""
    _check_dict(d, "items")
    return list(d.items())


def items_grad(t, d):
    """Adjoint of :func:`items_of`: each pair's value gradient to its key (sparse)."""
    return {k: p[1] for k, p in zip(d, t) if p is not None and p[1] is not None}


def items_tangent(t, d):
    """Tangent of :func:`items_of` given d's tangent ``t`` (a dict, possibly sparse): the
    pairs (zero, the value's tangent).  The transpose of :func:`items_grad`."""
    t = t or {}
    return [(rt.zeros_like(k), rt.fill_like(t.get(k), v)) for k, v in d.items()]


defkernel(as_dict, "x",
        vjp=dict(x="as_dict_grad(g, x)"), jvp=dict(x="as_dict_jvp(dx, x)"))
defkernel(as_dict_grad, "t, x",
        vjp=dict(t="as_dict_jvp(g, x)"), jvp=dict(t="as_dict_grad(dt, x)"))
defkernel(as_dict_jvp, "t, x",
        vjp=dict(t="as_dict_grad(g, x)"), jvp=dict(t="as_dict_jvp(dt, x)"))
defkernel(merged, "*dicts",
        vjp=dict(dicts="merged_grad(g, dicts)"), jvp=dict(dicts="merged_jvp(ddicts, dicts)"))
defkernel(merged_grad, "t, dicts",            # linear in t; dicts give only their keys
        vjp=dict(t="merged_jvp(g, dicts)"), jvp=dict(t="merged_grad(dt, dicts)"))
defkernel(merged_jvp, "t, dicts",
        vjp=dict(t="merged_grad(g, dicts)"), jvp=dict(t="merged_jvp(dt, dicts)"))
defkernel(zipped, "*seqs",
        vjp=dict(seqs="zipped_grad(g, seqs)"), jvp=dict(seqs="zipped_jvp(dseqs, seqs)"))
defkernel(zipped_grad, "t, seqs",              # linear in t; seqs give only their lengths
        vjp=dict(t="zipped_jvp(g, seqs)"), jvp=dict(t="zipped_grad(dt, seqs)"))
defkernel(zipped_jvp, "t, seqs",
        vjp=dict(t="zipped_grad(g, seqs)"), jvp=dict(t="zipped_jvp(dt, seqs)"))
defkernel(seq_concat, "a, b",
        vjp=dict(a="seq_split(g, a, b, 0)", b="seq_split(g, a, b, 1)"),
        jvp=dict(a="seq_concat(da, zeros_like(b))", b="seq_concat(zeros_like(a), db)"))
defkernel(seq_split, "t, a, b, part",
        vjp=dict(t="seq_concat(g, zeros_like(seq_split(t, a, b, 1))) if part == 0 else "
                   "seq_concat(zeros_like(seq_split(t, a, b, 0)), g)"),
        jvp=dict(t="seq_split(dt, a, b, part)"))
defkernel(seq_repeat, "a, n",
        vjp=dict(a="seq_repeat_grad(g, a, n)"), jvp=dict(a="seq_repeat(da, n)"))
defkernel(seq_repeat_grad, "t, a, n",
        vjp=dict(t="seq_repeat(g, n)"), jvp=dict(t="seq_repeat_grad(dt, a, n)"))

# list(x) / tuple(x): linear in x; the result holds x's items (an array's rows are views)
defkernel(as_list, "x", vjp=dict(x="unlist(g, x)"), jvp=dict(x="listed_items(dx, x, ans)"),
          view_of="x", container=True)
defkernel(as_tuple, "x", vjp=dict(x="unlist(g, x)"), jvp=dict(x="listed_items(dx, x, ans)"),
          view_of="x", container=True)
deflinear(unlist, "t, x", "listed_items(g, x, t)", "unlist(dt, x)")
deflinear(listed, "t, like", "unlist(g, t)", "listed(dt, like)", container=True)
deflinear(listed_items, "t, x, like", "unlist(g, x)", "listed_items(dt, x, like)",
          container=True)
defkernel(values_of, "d", vjp=dict(d="values_grad(g, d)"),
          jvp=dict(d="values_of(fill_like(dd, d))"), linear_in=("d",), view_of="d",
          container=True)
deflinear(values_grad, "t, d", "values_of(fill_like(g, d))", "values_grad(dt, d)",
          container=True)
defkernel(items_of, "d", vjp=dict(d="items_grad(g, d)"), jvp=dict(d="items_tangent(dd, d)"),
          view_of="d", container=True)
deflinear(items_grad, "t, d", "items_tangent(g, d)", "items_grad(dt, d)", container=True)
deflinear(items_tangent, "t, d", "items_grad(g, d)", "items_tangent(dt, d)", container=True)


@defresolver
def _sequence_constructor(callee, args, kwargs):
    """``list(x)`` / ``tuple(x)`` called through a value known only at run time
    (``type(tree)(items)``): the kernels the lowering calls for the written-out call."""
    if (callee is list or callee is tuple) and len(args) == 1 and not kwargs:
        return (as_list if callee is list else as_tuple), args, kwargs
    return None


# -- itertools over one sequence: combinations, permutations, product(repeat=) ------------

_ARRANGEMENTS = {"combinations": itertools.combinations, "permutations": itertools.permutations,
                 "combinations_with_replacement": itertools.combinations_with_replacement}


def _arrangement(kind, n, r):
    """The index tuples of ``itertools.<kind>(range(n), r)`` (a list: read twice)."""
    if kind == "product":
        return list(itertools.product(range(n), repeat=r))
    return list(_ARRANGEMENTS[kind](range(n), n if r is None else r))


def arranged(seq, r, kind):
    """``itertools.<kind>(seq, r)`` (``product(seq, repeat=r)``) as a list of tuples of
    seq's items, in itertools' order."""
    items = list(seq)
    return [tuple(items[i] for i in idx) for idx in _arrangement(kind, len(items), r)]


def arranged_grad(g, seq, r, kind):
    """Adjoint of :func:`arranged`: each item of seq gets the sum of its copies'
    gradients (zeros for an item in no tuple, or in tuples nobody read)."""
    items = list(seq)
    grads = [None] * len(items)
    for idx, gt in zip(_arrangement(kind, len(items), r), g):
        if gt is None:
            continue
        for i, gi in zip(idx, gt):
            if gi is not None:
                grads[i] = gi if grads[i] is None else rt.add_grads(grads[i], gi)
    return _like([_zeros(v) if gi is None else gi for gi, v in zip(grads, items)], seq)


defkernel(arranged, "seq, r, kind", vjp=dict(seq="arranged_grad(g, seq, r, kind)"),
          jvp=dict(seq="arranged(dseq, r, kind)"), linear_in=("seq",), view_of="seq",
          container=True)
deflinear(arranged_grad, "t, seq, r, kind", "arranged(g, r, kind)",
          "arranged_grad(dt, seq, r, kind)")
