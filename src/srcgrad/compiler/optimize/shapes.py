"""Shapes from one call's argument shapes, for code specialized to them.

Given the abstract values of a call's arguments (``rules/shapes.py``: an array's
shape and dtype kind, a Python scalar's kind), :class:`ShapeFacts` infers the
abstract value of every name of the normalized function body, by the shape laws of
the rules (the ``shape`` facet; derived for elementwise functions and reductions).
Reverse mode asks it one question: what is ``ad.unbroadcast(e, x)``, the adjoint of
an elementwise operation's operand ``x``, for these shapes?  A no-op (the
operation's result has ``x``'s shape): the adjoint is ``e`` itself; else the sum the
kernel would take, written out (``e.sum(axis=0)``); either way a value read only for
its shape is no longer recorded.

Guarantee: a fact is a fact of every value the name holds on any path.  The
inference is flow-insensitive: a name's value is the join of the values of every
assignment to it (a loop's body is visited until nothing changes), so a name
assigned arrays of two shapes, or anything the laws do not know (a call of a user
function, a container, a tuple unpacking, an attribute), is ``UNKNOWN`` and its
un-broadcasts stay; so is a name whose array code run as written may reach (a
no-gradient call could set its ``.shape``).  The adjoint sweep reads a primal name where the forward
sweep held it (restored from a record when it was overwritten), so the join
covers every value it reads.  A body that could change an array's shape in place
(``x.shape = ...``, ``x.resize(...)``) is not specialized at all.
"""
import builtins
import itertools
import math

import gast
import numpy as np

from .. import ir
from ...rules import shapes as S
from ...rules.facets import ALL_AXES

_BOTTOM = object()          # no value seen yet (the start of the fixpoint)
_METADATA = {"shape": lambda a: S.Known(a.shape), "ndim": lambda a: S.Known(len(a.shape)),
             "size": lambda a: S.Known(math.prod(a.shape))}
_RESHAPING = frozenset({"shape", "resize", "strides", "dtype"})
_ROUNDS = 20


def same(a, b):
    """Equal abstract values (``Known(2)`` is not ``Known(2.0)``)."""
    return a == b and type(a) is type(b) and \
        (type(a) is not S.Known or type(a.value) is type(b.value))


def join(a, b):
    if a is _BOTTOM:
        return b
    if b is _BOTTOM or same(a, b):
        return a
    ta, tb = type(a), type(b)
    if ta is S.Array and tb is S.Array and a.shape == b.shape:
        both_real = S.is_real(a) and S.is_real(b)
        return S.Array(a.shape, "r" if both_real else None)
    if {ta, tb} <= {S.Known, S.Scalar}:
        ka, kb = S.kind_of(a), S.kind_of(b)
        if ka is not None and ka == kb:
            return S.Scalar(ka)
    return S.UNKNOWN


class ShapeFacts:
    """The abstract values of a normalized body's names, for arguments ``args``
    (parameter name -> abstract value).  Computed on the first question (the
    statements' ``Op`` annotations exist by then)."""

    def __init__(self, body, args, func_globals, ad_name=None):
        self.body = body
        self.args = dict(args)
        self.globals = func_globals
        self.ad_name = ad_name      # the generated code's name for srcgrad's runtime
        self.env = None
        self.used = set()           # the parameters whose values a dropped call relied on

    # -- the question reverse mode asks -------------------------------------------------

    def unbroadcast_is_identity(self, op, param):
        """Is ``unbroadcast(e, x)`` a no-op, for ``e`` the adjoint term of operand
        ``param`` (``x``) of the elementwise ``op``?  Yes when the result has ``x``'s
        known shape, and ``e`` is real or ``x`` complex (no real part taken)."""
        shapes = self._unbroadcast_shapes(op, param)
        if shapes is None or shapes[0] != shapes[1]:
            return False
        self.used.update(self.args)
        return True

    def unbroadcast(self, op, param, e):
        """``unbroadcast(e, x)`` written out for these shapes (see
        :meth:`unbroadcast_is_identity`), or None when the shapes are not known: ``e``
        itself, or the sum the kernel would take, as methods of ``e`` (an array of the
        result's shape, real unless ``x`` is complex)::

            e.sum(axis=0)                              x (10,), the result (32, 10)
            e.sum(axis=1, keepdims=True)               x (32, 1)
            e.sum(axis=(0, 2), keepdims=True).reshape((3, 1))
            e.sum()                                    x a Python scalar

        the same operations, in the same order, as ``ad.unbroadcast`` on a NumPy array
        (so the same values bit for bit), without its call and its tests."""
        shapes = self._unbroadcast_shapes(op, param)
        if shapes is None:
            return None
        rs, xs, python_scalar = shapes
        nlead = len(rs) - len(xs)
        if nlead < 0:
            return None
        self.used.update(self.args)
        if rs == xs:
            return e
        if python_scalar:
            return _method(e, "sum", ())
        lead = tuple(range(nlead))
        if nlead > 0 and xs and rs[nlead:] == xs:       # only leading axes were added
            return _method(e, "sum", (("axis", _axes(lead)),))
        axes = lead + tuple(nlead + i for i, n in enumerate(xs)
                            if n == 1 and rs[nlead + i] != 1)
        if axes:
            e = _method(e, "sum", (("axis", _axes(axes)), ("keepdims", True)))
        return _method(e, "reshape", (), [S.Known(xs)]) if nlead else e

    def _unbroadcast_shapes(self, op, param):
        """(the result's shape, ``x``'s shape, x a Python scalar) when both shapes are
        known and the sum needs no real part (``e`` real, or ``x`` complex); else None."""
        env = self._facts()
        if env is None:
            return None
        operands = [v for p, v in op.args.items() if p in _operands(op.rule)]
        if any(type(v) is gast.Name and v.id not in env and v.id not in self.args
               for v in operands):
            return None
        result = S.elementwise([self.value(v) for v in operands])
        x = self.value(op.args.get(param))
        rs, xs = S.shape_of(result), S.shape_of(x)
        if rs is None or xs is None:
            return None
        if not (S.is_real(result) or S.kind_of(x) == "c"):
            return None
        if rs != xs and type(x) is not S.Array and not (
                type(x) in (S.Scalar, S.Known) and S.kind_of(x) in ("f", "i")):
            return None     # (a bool, a complex scalar: the kernel's general path)
        return rs, xs, type(x) is not S.Array

    def is_real_float_scalar(self, node):
        """Is ``node`` (an atom) known to hold a real floating scalar: a Python float, or
        a NumPy value of shape ``()`` and floating dtype?  Then ``ad.seed`` of it is
        1.0, and its value is not needed for the seed."""
        if self._facts() is None:
            return False
        v = self.value(node)
        if not ((type(v) is S.Array and v.shape == () and v.kind == "f") or
                (type(v) is S.Scalar and v.kind == "f") or
                (type(v) is S.Known and type(v.value) is float)):
            return False
        self.used.update(self.args)
        return True

    def knows_value(self, node):
        """Is anything known of the value of ``node`` (an atom)?  A known abstract value
        is a number, a tuple of ints, None, a bool or a NumPy value: never an object
        of a user's class."""
        if self._facts() is None or self.value(node) is S.UNKNOWN:
            return False
        self.used.update(self.args)
        return True

    def ndim(self, node):
        """The number of axes of ``node`` (an atom) when it is known to be a NumPy
        array or NumPy scalar; else None."""
        if self._facts() is None:
            return None
        v = self.value(node)
        if type(v) is not S.Array:
            return None
        self.used.update(self.args)
        return len(v.shape)

    def describe(self):
        """What the code is specialized to (a line of its docstring)."""
        words = "Specialized to these argument shapes (another shape compiles again):".split()
        words += [f"{n} {a.shape}," for n, a in self.args.items() if type(a) is S.Array]
        words[-1] = words[-1][:-1] + "."
        lines, line = [], ""
        for w in words:
            if line and len(line) + len(w) > 80:
                lines.append(line)
                line = ""
            line = f"{line} {w}" if line else w
        return "\n    ".join(lines + [line])

    # -- inference ---------------------------------------------------------------------

    def value(self, node):
        """The abstract value of an atom of the normalized body."""
        if node is None or isinstance(node, (bool, int, float, complex, str)):
            return S.Known(node)
        if type(node) is tuple and all(type(e) in (int, bool) for e in node):
            return S.Known(node)
        if type(node) is gast.Constant:
            return S.Known(node.value)
        if type(node) is gast.Name:
            v = self.env.get(node.id, _BOTTOM)
            return S.UNKNOWN if v is _BOTTOM else v
        if type(node) is gast.Tuple and all(type(e) is gast.Constant for e in node.elts):
            return S.Known(tuple(e.value for e in node.elts))
        return S.UNKNOWN

    def _facts(self):
        if self.env is None:
            self.env = self._infer()
        return self.env or None

    def _infer(self):
        if _reshapes(self.body):
            return {}
        self.env = dict(self.args)
        for n in _escaping(self.body, self.ad_name):
            self.env[n] = S.UNKNOWN
        for _ in range(_ROUNDS):
            self.changed = False
            self._block(self.body)
            if not self.changed:
                return self.env
        return {}

    def _set(self, name, v):
        old = self.env.get(name, _BOTTOM)
        new = join(old, v)
        if old is _BOTTOM or not same(new, old):
            self.env[name] = new
            self.changed = True

    def _block(self, stmts):
        for s in stmts:
            t = type(s)
            if t is gast.Assign and len(s.targets) == 1 and type(s.targets[0]) is gast.Name:
                self._set(s.targets[0].id, self._rhs(s))
                continue
            if t is gast.Assign and len(s.targets) == 1 and \
                    type(s.targets[0]) is gast.Subscript:
                continue        # y[i] = v: y keeps its shape and dtype (an array's)
            if t is gast.For:
                tgt = s.target
                if type(tgt) is gast.Name:
                    self._set(tgt.id, S.Scalar("i") if self._is_range(s.iter) else S.UNKNOWN)
                else:
                    self._unknown(tgt)
            fields = ir.BLOCK_FIELDS.get(t)
            if fields:
                for f in fields:
                    self._block(getattr(s, f))
                continue
            self._unknown(s)

    def _unknown(self, node):
        for n in gast.walk(node):
            if type(n) is gast.Name and type(n.ctx) in (gast.Store, gast.Del):
                self._set(n.id, S.UNKNOWN)
            elif isinstance(n, (gast.FunctionDef, gast.Lambda, gast.comprehension)):
                for m in gast.walk(n):
                    if type(m) is gast.Name:
                        self._set(m.id, S.UNKNOWN)

    def _is_range(self, node):
        return type(node) is gast.Call and type(node.func) is gast.Name and \
            node.func.id == "range" and \
            self.globals.get("range", builtins.range) is builtins.range

    def _rhs(self, s):
        op = getattr(s, "srcgrad_op", None)
        v = s.value
        if op is None:
            return S.UNKNOWN
        kind = op.kind
        if kind == "copy" and type(v) is gast.Name:
            return self.value(v)
        if kind == "const" and type(v) is gast.Constant:
            return S.Known(v.value)
        if kind == "nograd" and type(v) is gast.Attribute and v.attr in _METADATA and \
                type(v.value) is gast.Name:
            a = self.value(v.value)
            return _METADATA[v.attr](a) if type(a) is S.Array else S.UNKNOWN
        if kind == "rule" and op.rule is not None:
            return self._law(op)
        return S.UNKNOWN

    def _law(self, op):
        return law_result(op.rule, {p: self.value(a) for p, a in op.args.items()})


def _method(e, name, keywords, args=()):
    """``e.name(*args, **keywords)`` (keywords: (name, Python value) pairs)."""
    return gast.Call(func=gast.Attribute(value=e, attr=name, ctx=gast.Load()),
                     args=[_literal(a.value if type(a) is S.Known else a) for a in args],
                     keywords=[gast.keyword(arg=k, value=_literal(v)) for k, v in keywords])


def _axes(axes):
    return axes[0] if len(axes) == 1 else axes


def _literal(v):
    if type(v) is tuple:
        return gast.Tuple(elts=[_literal(x) for x in v], ctx=gast.Load())
    return gast.Constant(value=v, kind=None)


def law_result(rule, args):
    """The abstract result of ``rule`` for its bound arguments' abstract values
    (parameter -> value): its ``shape`` law, or the law its ``elementwise`` or
    ``reduction`` facet implies; UNKNOWN for any other rule.  A real result's kind
    is made exact where the dtypes prove it (:func:`_exact_kind`)."""
    out = _law_result(rule, args)
    if type(out) is S.Array and out.kind in (None, "r"):
        kind = _exact_kind(rule, args)
        if kind is not None and (out.kind is None or kind in "fiub"):
            return S.Array(out.shape, kind)
    return out


# representative dtypes of each kind: a result's kind is exact when every one of them
# gives it
_DTYPES = {"f": tuple(map(np.dtype, ("f2", "f4", "f8", "g"))),
           "c": tuple(map(np.dtype, ("c8", "c16", "G"))),
           "i": tuple(map(np.dtype, ("i1", "i2", "i4", "i8"))),
           "u": tuple(map(np.dtype, ("u1", "u2", "u4", "u8"))),
           "b": (np.dtype("?"),)}
_PY_TYPES = {"f": float, "c": complex, "i": int, "b": bool}
_NUMPY_REDUCTIONS = frozenset(
    getattr(np, n) for n in ("sum", "prod", "max", "min", "amax", "amin", "mean",
                             "nansum", "nanprod", "nanmax", "nanmin", "nanmean"))


def _exact_kind(rule, args):
    """The dtype kind (``"f"``, ``"c"``, ``"i"``, ``"u"``, ``"b"``) of the result of a
    NumPy ufunc rule (``np.divide``, ``np.matmul``...) or NumPy reduction (``np.sum``,
    ``np.max``...) for operands of known kinds, when NumPy's type resolution gives
    that kind for every dtype of the operands' kinds (``float16`` to ``longdouble``
    for ``"f"``; a Python scalar is weak); None when not proved."""
    func = rule.func
    params = rule.signature.parameters
    if isinstance(func, np.ufunc):
        operands = [p for p in params if p in _operands(rule)]
        if len(operands) != func.nin or func.nout != 1 or any(
                not _default(args.get(p), params[p]) for p in params if p not in operands):
            return None
        kinds = []
        for p in operands:
            a = args.get(p)
            k = S.kind_of(a)
            if k is None or k == "r":
                return None
            kinds.append((type(a) is S.Array, k))
        return _ufunc_kind(func, tuple(kinds))
    try:
        reduction = func in _NUMPY_REDUCTIONS and rule.facets.reduction is not None
    except TypeError:       # (an unhashable callable)
        reduction = False
    if reduction:
        names = list(params)
        a = args.get(names[0])
        if type(a) is not S.Array or any(
                not _default(args.get(p), params[p]) for p in names[1:]
                if p not in (rule.facets.reduction, "keepdims")):
            return None
        return _reduction_kind(func, a.kind)
    return None


_KIND_CACHE = {}


def _ufunc_kind(func, kinds):
    key = (func, kinds)
    if key not in _KIND_CACHE:
        choices = [_DTYPES.get(k, ()) if is_array else (_PY_TYPES.get(k),)
                   for is_array, k in kinds]
        found = set()
        try:
            for dts in itertools.product(*choices):
                if any(d is None for d in dts):     # (dtype("f8") == None holds)
                    found.add(None)
                    break
                found.add(func.resolve_dtypes(dts + (None,))[-1].kind)
        except (TypeError, ValueError, np.exceptions.DTypePromotionError):
            found.add(None)
        _KIND_CACHE[key] = found.pop() if len(found) == 1 else None
    return _KIND_CACHE[key]


def _reduction_kind(func, kind):
    """A NumPy reduction keeps a floating or complex array's kind (of every dtype of it:
    checked on a one-entry array of each)."""
    key = (func, kind)
    if key not in _KIND_CACHE:
        found = set()
        if kind in ("f", "c"):
            for dt in _DTYPES[kind]:
                found.add(np.asarray(func(np.ones(1, dt))).dtype.kind)
        _KIND_CACHE[key] = found.pop() if found == {kind} else None
    return _KIND_CACHE[key]


def _law_result(rule, args):
    facets = rule.facets
    if facets.shape is not None:
        return facets.shape(args)
    params = rule.signature.parameters
    if facets.elementwise:
        operands = _operands(rule)
        if any(not _default(args.get(p), params[p]) for p in params if p not in operands):
            return S.UNKNOWN
        return S.elementwise([args[p] for p in params if p in operands and p in args])
    if facets.reduction is not None:
        names = list(params)
        if facets.reduction == ALL_AXES:
            real = all(S.is_real(a) for a in args.values() if type(a) is not S.Known)
            return S.Array((), "r" if real else None)
        arr, axis = names[0], facets.reduction
        keep = "keepdims"
        if any(not _default(args.get(p), params[p]) for p in names
               if p not in (arr, axis, keep)):
            return S.UNKNOWN
        return S.reduce(args.get(arr, S.UNKNOWN), args.get(axis, S.Known(None)),
                        args.get(keep, S.Known(False)))
    return S.UNKNOWN


def _operands(rule):
    """The parameters that broadcast in an elementwise rule (as reverse mode counts
    them): those with a gradient and the required positional ones."""
    params = rule.signature.parameters
    return set(rule.diff_params) | {
        p for p, v in params.items() if v.default is v.empty and
        v.kind in (v.POSITIONAL_ONLY, v.POSITIONAL_OR_KEYWORD)}


def _default(a, param):
    """Is the abstract argument ``a`` the parameter's default (or None, or absent)?"""
    if a is None:
        return True
    if type(a) is not S.Known:
        return False
    d = param.default
    return a.value is None or (d is not param.empty and type(a.value) is type(d) and
                               a.value == d)


# srcgrad's own run-time checks, called for their effect, that read only their
# operand's type (never change it): ad.numeric_operand before an operator on a value
# read from a field, an item or a function's result
_TYPE_CHECKS = frozenset({"numeric_operand"})


def _type_check(node, ad_name):
    v = node.value
    return type(node) is gast.Expr and type(v) is gast.Call and \
        type(v.func) is gast.Attribute and v.func.attr in _TYPE_CHECKS and \
        type(v.func.value) is gast.Name and v.func.value.id == ad_name


def _escaping(body, ad_name=None):
    """Names whose object code srcgrad does not compile may reach, and so set its
    ``.shape`` in place (the code srcgrad compiles refuses that): what a no-gradient
    call or a call for its effect reads, or a user's own derivative (both run as
    written), with every name linked to them: by a copy, a view, an item read, or a
    container holding it (a rule of the table makes a new array: no link).  One of
    srcgrad's type checks (``ad.numeric_operand``) reaches nothing."""
    out, groups = set(), []
    for s in body:
        for node in gast.walk(s):
            if not isinstance(node, (gast.Assign, gast.Expr, gast.AugAssign)) or \
                    (ad_name is not None and _type_check(node, ad_name)):
                continue
            op = getattr(node, "srcgrad_op", None)
            kind = getattr(op, "kind", None)
            rule = getattr(op, "rule", None)
            value = node.value
            names = {n.id for n in gast.walk(node) if type(n) is gast.Name}
            if type(node) is gast.Expr or kind == "effect" or \
                    (kind == "nograd" and type(value) is gast.Call) or \
                    (kind == "rule" and rule is not None and rule.user):
                out |= names
            elif kind == "rule" and rule is not None and rule.facets.view_of is None and \
                    rule.name != "getitem":
                continue
            elif kind != "const":
                groups.append(names)
    changed = True
    while changed:
        changed = False
        for names in groups:
            if names & out and not names <= out:
                out |= names
                changed = True
    return out


def _reshapes(body):
    """Could the body change an array's shape or dtype in place?"""
    for s in body:
        for n in gast.walk(s):
            if type(n) is gast.Attribute and n.attr in _RESHAPING and \
                    type(n.ctx) in (gast.Store, gast.Del):
                return True
            if type(n) is gast.Call and type(n.func) is gast.Attribute and \
                    n.func.attr == "resize":
                return True
    return False
