"""Lowering of expressions: nested expressions become statements over atoms;
container constructors and NumPy calls on Python lists take their lowered forms."""
import builtins
import copy
import dataclasses
import inspect
import itertools
import types

import gast

from .. import syntax as A
from .forms import OP_NAMES, _base_of, _dict_names, _is_numpy, _sequence_names
from ..source import MISSING, resolve
from ...runtime import records


_ITERTOOLS = {itertools.combinations: "combinations", itertools.permutations: "permutations",
              itertools.combinations_with_replacement: "combinations_with_replacement",
              itertools.product: "product"}


_DUNDER = {"Add": "__add__", "Sub": "__sub__", "Mult": "__mul__", "Div": "__truediv__",
           "FloorDiv": "__floordiv__", "Mod": "__mod__", "Pow": "__pow__",
           "MatMult": "__matmul__", "USub": "__neg__", "UAdd": "__pos__"}


_SYMBOL = {"__add__": "+", "__sub__": "-", "__mul__": "*", "__truediv__": "/",
           "__floordiv__": "//", "__mod__": "%", "__pow__": "**", "__matmul__": "@",
           "__neg__": "unary -", "__pos__": "unary +"}
_NUMERIC = {"builtins", "math", "numpy", "cmath"}
_MAKES_OBJECTS = {}     # code -> may a call of it return an object of a user class?


def _may_make_objects(func, depth=0):
    """Could ``func`` (a user function) return an object of a user class?  Yes unless
    its source calls only rules, NumPy and such functions (checked to a few levels)."""
    from ... import rules
    from ..source import get_function_ast
    code = getattr(func, "__code__", None)
    if code is None or depth > 3:
        return True
    hit = _MAKES_OBJECTS.get(code)
    if hit is not None:
        return hit
    _MAKES_OBJECTS[code] = True                 # (recursion: assume it may)
    try:
        fdef, _ = get_function_ast(func)
    except Exception:
        return True
    local = A.names_stored(fdef.body) | {a.id for a in A.params_of(fdef)}
    hit = False
    for n in A.walk(fdef.body):
        if not isinstance(n, gast.Call):
            continue
        f = n.func
        root = f
        while isinstance(root, gast.Attribute):
            root = root.value
        if not isinstance(root, gast.Name) or root.id in local:
            hit = True                          # a method of a value, a function value
            break
        obj = resolve(f, func)
        if obj is MISSING or isinstance(obj, type) and records.user_class(obj):
            hit = True
            break
        if rules.lookup(obj) is not None or rules.is_nograd(obj) or isinstance(obj, type) or \
                getattr(obj, "__module__", None) in _NUMERIC:
            continue
        if _may_make_objects(obj, depth + 1):
            hit = True
            break
    _MAKES_OBJECTS[code] = hit
    return hit


class Expressions:
    """The Normalizer's methods for expressions."""

    # -- expressions ---------------------------------------------------------
    def atom(self, e, pre, base="t"):
        """Normalize ``e`` and make it a name or constant (hoisting into ``pre``)."""
        if e is None:
            return A.const(None)
        if isinstance(e, gast.Constant):
            return e
        if isinstance(e, gast.Name):
            return A.name(e.id)
        if self.is_static(e):
            return e
        value = self.expr(e, pre, top=True, base=base)
        if isinstance(value, (gast.Name, gast.Constant)):
            return value
        tmp = self.names.fresh(base)
        if isinstance(value, gast.IfExp):
            pre.extend(self.ifexp_assign(tmp, value, e))
        else:
            node = A.assign(tmp, value, like=e)
            node.srcgrad_temp = True  # a temporary used once, right away: never an alias
            pre.append(node)
        return A.name(tmp)

    def is_static(self, e):
        """A reference to a module-level object (np.pi, a global constant)."""
        if isinstance(e, gast.Attribute) and not self._is_local(e):
            return resolve(e, self.func) is not MISSING
        return False

    def operator_method(self, e, operands, pre):
        """``a + b`` (``-a``) where an operand is an object of the user's class (a
        parameter that is one, a name every binding of which builds one or is an
        operator's result on one): a call of the class's ``__add__`` (``__radd__`` with
        the operands swapped when only the right one is; ``__neg__``), a function value
        differentiated like any callee; ad.operator_method refuses a value that turns
        out not to be one.  (Run as array arithmetic, its derivative would be an
        array's: WRONG.)  An operand a user function returned is checked where it runs
        (ad.numeric_operand).  None when the expression stays an operator."""
        name = _DUNDER.get(type(e.op).__name__)
        if name is None:
            return None
        like = e if hasattr(e, "lineno") else getattr(self, "current", None)
        records = [isinstance(x, gast.Name) and self._is_record_name(x.id, pre)
                   for x in operands]
        if not any(records):
            unknown = [x for x in operands
                       if isinstance(x, gast.Name) and self._from_user_call(x.id, pre)]
            if unknown and self._operator_classes() and \
                    not all(self._shape_read(x.id, pre) for x in unknown):
                # an operand read from a field, an item or a user function's result, in
                # code whose module has classes with operator methods: the operator its
                # values call, found when it runs (the class's method, or NumPy's)
                f = self.names.fresh(name.strip("_") + "_op")
                pre.append(A.assign(f, A.call(A.attr(self.ad_name, "operator_for"),
                                              [A.const(name)] + list(operands)), like=like))
                self.locals.add(f)
                call = A.call(A.name(f), list(operands))
                return A.copy_loc(call, like) if like is not None else call
            for x in unknown:
                pre.append(A.expr_stmt(A.call(A.attr(self.ad_name, "numeric_operand"),
                                              [x, A.const(_SYMBOL[name])]), like=like))
            return None
        if len(operands) == 2 and not records[0]:
            # Python asks the left operand first: it must not be an object with the
            # operator itself (a number, an array: the right one's reflected method)
            if isinstance(operands[0], gast.Name):
                pre.append(A.expr_stmt(A.call(A.attr(self.ad_name, "numeric_operand"),
                                              [operands[0], A.const(_SYMBOL[name])]),
                                       like=like))
            name = "__r" + name[2:]
            operands = operands[::-1]
        return self._call_through("operator_method", operands[0], name, operands, like, pre)

    _SHAPE_ATTRS = frozenset(("shape", "ndim", "size", "strides", "itemsize", "nbytes"))

    def _shape_read(self, n, pre):
        """Is ``n`` an item of an array's shape, or its ``ndim`` / ``size``
        (``x.shape[0]``): an int, whatever the code's types (still checked, not
        dispatched)?"""
        v = self._bound_in(pre, n)
        if v is MISSING:
            defs = [st.value for st in A.walk(self.fdef.body) if isinstance(st, gast.Assign)
                    and len(st.targets) == 1 and isinstance(st.targets[0], gast.Name)
                    and st.targets[0].id == n]
            if len(defs) != 1:
                return False
            v = defs[0]
        if isinstance(v, gast.Attribute):
            return v.attr in self._SHAPE_ATTRS
        if isinstance(v, gast.Subscript) and isinstance(v.value, gast.Name):
            return self._shape_read(v.value.id, pre)
        return False

    def _operator_classes(self):
        """Does the function's module name a class of the user's that defines an
        operator method in Python (``Vec.__add__``)?  Then an operand whose type the
        code cannot know may be one of its objects."""
        found = self.__dict__.get("_has_operator_classes")
        if found is None:
            g = getattr(self.func, "__globals__", {}) or {}
            names = set(_DUNDER.values()) | {"__r" + d[2:] for d in _DUNDER.values()}
            found = self._has_operator_classes = any(
                isinstance(v, type) and records.user_class(v) and any(
                    isinstance(inspect.getattr_static(v, d, None), types.FunctionType)
                    for d in names)
                for v in list(g.values()))
        return found

    @staticmethod
    def _bound_in(pre, n):
        """The value the last statement of ``pre`` binding ``n`` assigns (MISSING if none
        does): the lowering's temporaries for the expression being lowered."""
        for st in reversed(pre):
            if isinstance(st, gast.Assign) and isinstance(st.targets[0], gast.Name) and \
                    st.targets[0].id == n:
                return st.value
        return MISSING

    def _call_through(self, kind, obj, name, args, like, pre):
        """``f = ad.<kind>(obj, name)`` then the call ``f(*args)``: a function of the
        user's class (an operator, ``__getitem__``, a property's getter) called as a
        function value, differentiated like any callee."""
        f = self.names.fresh(name.strip("_") + "_" + ("getter" if kind == "getter" else
                                                       "method"))
        if kind == "operator_method" and name != "__getitem__":
            # (an operator's result on an object: an object, _is_record_name)
            self.__dict__.setdefault("_methods_made", set()).add(f)
        pre.append(A.assign(f, A.call(A.attr(self.ad_name, kind), [obj, A.const(name)]),
                            like=like))
        self.locals.add(f)
        call = A.call(A.name(f), list(args))
        return A.copy_loc(call, like) if like is not None else call

    def _from_user_call(self, n, pre):
        """Is some binding of ``n`` a call of something that is not a rule (a user
        function, a method, a function value): a value whose type the code cannot know?"""
        from ... import rules
        def unknown(v):
            if isinstance(v, (gast.Attribute, gast.Subscript)):
                # a field, an item: an object of a user class, unless read from an array
                base = v.value
                return not (isinstance(base, gast.Name) and base.id in self.known_arrays) \
                    and not (isinstance(v, gast.Attribute) and self.is_static(v))
            if not isinstance(v, gast.Call):
                return False
            f = v.func
            if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and \
                    f.value.id == self.ad_name:
                return False
            obj = MISSING if self._is_local(f) or not isinstance(f, (gast.Name, gast.Attribute)) \
                else resolve(f, self.func)
            if obj is MISSING:
                return True
            return callable(obj) and rules.lookup(obj) is None and not rules.is_nograd(obj) \
                and not isinstance(obj, type) and \
                getattr(obj, "__module__", None) not in _NUMERIC and _may_make_objects(obj)
        bound = self._bound_in(pre, n)
        if bound is not MISSING:
            return unknown(bound)
        cache = self.__dict__.setdefault("_user_call_names", None)
        if cache is None:
            cache = self._user_call_names = set()
            self._operator_results = set()
            binds = [(t.id, st.value if isinstance(st, gast.Assign) else
                      gast.BinOp(left=t, op=st.op, right=st.value))
                     for st in A.walk(self.fdef.body)
                     if isinstance(st, (gast.Assign, gast.AugAssign))
                     for t in (st.targets if isinstance(st, gast.Assign) else [st.target])
                     if isinstance(t, gast.Name)]
            item = gast.Subscript(value=A.name("?"), slice=A.const(0), ctx=gast.Load())
            for st in A.walk(self.fdef.body):
                # unpacked names and loop variables (over anything but a range): items
                if isinstance(st, gast.Assign):
                    binds += [(n, item) for t in st.targets if not isinstance(t, gast.Name)
                              for n in A.names_stored(t)]
                elif isinstance(st, gast.For) and not (
                        isinstance(st.iter, gast.Call) and isinstance(st.iter.func, gast.Name)
                        and st.iter.func.id == "range") and not (
                        isinstance(st.iter, gast.Name) and st.iter.id in self.known_arrays):
                    target = st.target
                    if isinstance(st.iter, gast.Call) and isinstance(st.iter.func, gast.Name) \
                            and st.iter.func.id == "enumerate" and \
                            isinstance(target, gast.Tuple) and len(target.elts) == 2:
                        target = target.elts[1]     # (enumerate's index: an int)
                    binds += [(n, item) for n in A.names_stored(target)]

            def from_objects(v):
                # an operator on an object (its method's result: any type), or on such
                return isinstance(v, (gast.BinOp, gast.UnaryOp)) and any(
                    isinstance(x, gast.Name) and (x.id in self._operator_results or
                                                  x.id in self.known_records or
                                                  self._built_class(x.id) is not None)
                    or isinstance(x, gast.Call) and self._constructs(x)
                    for x in ([v.left, v.right] if isinstance(v, gast.BinOp) else [v.operand]))
            self._operator_results |= {t for t, v in binds
                                       if isinstance(v, gast.Call) and self._constructs(v)}
            for _ in range(3):          # (names of names: a few rounds)
                cache |= {t for t, v in binds if unknown(v)}
                self._operator_results |= {t for t, v in binds if from_objects(v)}
        return n in cache and n not in self._operator_results

    def _python_getitem(self, n, pre):
        """Does the class of ``n`` (an object of a user class) define ``__getitem__`` in
        Python?  (A namedtuple's is tuple's: an item read as a container's.)  A
        parameter's class is checked when the code runs (ad.operator_method)."""
        if n in self.known_records:
            return True
        v = self._bound_in(pre, n)
        cls = resolve(v.func, self.func) if isinstance(v, gast.Call) and \
            self._constructs(v) else None
        if cls is None and v is MISSING and n in self.locals:
            cls = self._built_class(n)
        return cls is not None and isinstance(inspect.getattr_static(cls, "__getitem__", None),
                                              types.FunctionType)

    def _constructs(self, call):
        """Is ``call`` a call of a user class (its constructor)?"""
        f = call.func
        if self._is_local(f) or not isinstance(f, (gast.Name, gast.Attribute)):
            return False
        cls = resolve(f, self.func)
        return isinstance(cls, type) and records.user_class(cls)

    def _is_record_name(self, n, pre):
        """Does ``n`` hold an object of a user class: a parameter that holds one, a name
        every binding of which builds one, or a temporary just made by a constructor
        call (``P(x) + P(y)``)?"""
        if n in self.known_records:
            return True
        v = self._bound_in(pre, n)
        if v is not MISSING:    # (a constructor, or an operator method's result)
            return isinstance(v, gast.Call) and (self._constructs(v) or (
                isinstance(v.func, gast.Name) and
                v.func.id in self.__dict__.get("_methods_made", ())))
        if n in self.locals and self._built_class(n) is not None:
            return True
        self._from_user_call(n, [])         # (fills the operator results)
        return n in self._operator_results

    def expr(self, e, pre, top=False, base="t"):
        """Normalize an expression: its operands become atoms."""
        if isinstance(e, (gast.Constant, gast.Name)):
            return e
        if isinstance(e, gast.BinOp):
            joined = self.sequence_op(e, pre)
            if joined is not None:
                return joined
            op = type(e.op).__name__
            left = self.atom(e.left, pre, OP_NAMES.get(type(e.left.op).__name__, "t")
                             if isinstance(e.left, gast.BinOp) else _base_of(e.left))
            right = self.atom(e.right, pre, OP_NAMES.get(type(e.right.op).__name__, "t")
                              if isinstance(e.right, gast.BinOp) else _base_of(e.right))
            del op
            method = self.operator_method(e, [left, right], pre)
            if method is not None:
                return method
            return A.copy_loc(gast.BinOp(left=left, op=e.op, right=right), e)
        if isinstance(e, gast.UnaryOp):
            if isinstance(e.op, gast.Not):
                return e
            operand = self.atom(e.operand, pre, _base_of(e.operand))
            method = self.operator_method(e, [operand], pre)
            if method is not None:
                return method
            return A.copy_loc(gast.UnaryOp(op=e.op, operand=operand), e)
        if isinstance(e, gast.Call):
            if isinstance(e.func, gast.Name) and e.func.id == "getattr" and \
                    len(e.args) == 2 and not e.keywords and \
                    isinstance(e.args[1], gast.Constant) and \
                    isinstance(e.args[1].value, str) and e.args[1].value.isidentifier() and \
                    resolve(e.func, self.func) is getattr:
                # getattr(obj, "name"): the attribute read obj.name
                return self.expr(A.copy_loc(gast.Attribute(value=e.args[0],
                                                           attr=e.args[1].value,
                                                           ctx=gast.Load()), e), pre, top, base)
            built = self.container_call(e, pre)
            if built is not None:
                return built
            func = e.func
            if isinstance(func, gast.Attribute) and func.attr in ("values", "items") and \
                    not e.args and not e.keywords and self._is_dict(func.value):
                # d.values() / d.items() of a dict: kernels with rules (a list, read again)
                d = self.atom(func.value, pre, "d")
                return A.copy_loc(A.call(A.attr(self.ad_name, func.attr + "_of"), [d]), e)
            if isinstance(func, gast.Attribute) and func.attr == "get" and \
                    1 <= len(e.args) <= 2 and not e.keywords and \
                    not any(isinstance(a, gast.Starred) for a in e.args) and \
                    self._is_dict(func.value):
                # d.get(k, default) of a dict: ``d[k] if k in d else default``, with d, k
                # and the default evaluated first, once, as Python does
                d = self.atom(func.value, pre, "d")
                key = self.atom(e.args[0], pre, "key")
                default = self.atom(e.args[1], pre, "default") if len(e.args) == 2 else \
                    A.const(None)
                test = gast.Compare(left=key, ops=[gast.In()], comparators=[d])
                item = gast.Subscript(value=A.name(d.id) if isinstance(d, gast.Name) else d,
                                      slice=key, ctx=gast.Load())
                choice = A.copy_loc(gast.IfExp(test=test, body=item, orelse=default), e)
                return self.expr(choice, pre, top=top, base=base)
            if isinstance(func, gast.Attribute) and func.attr in ("detach", "numpy") and \
                    not e.args and not e.keywords and not self.is_static(func):
                # x.detach() / x.numpy(): the Tensor spelling; arrays have no such method
                obj = self.atom(func.value, pre, _base_of(func.value))
                return A.copy_loc(A.call(A.attr(self.ad_name, "detach"), [obj]), e)
            if isinstance(func, gast.Attribute) and (self._is_local(func) or not self.is_static(func)):
                obj = self.atom(func.value, pre, _base_of(func.value))
                func = gast.Attribute(value=obj, attr=func.attr, ctx=gast.Load())
            elif not isinstance(func, (gast.Name, gast.Attribute)):
                func = self.atom(func, pre, "fn")
            args = []
            for a in e.args:
                if isinstance(a, gast.Starred):
                    # ``f(*xs)``: the sequence as an atom (compiler/dynamic.py unpacks it)
                    args.append(A.copy_loc(gast.Starred(value=self.atom(a.value, pre, "args"),
                                                        ctx=gast.Load()), a))
                    continue
                args.append(self.arg(a, pre))
            kws = []
            for k in e.keywords:
                value = self.atom(k.value, pre, "kwargs") if k.arg is None else \
                    self.arg(k.value, pre)
                kws.append(gast.keyword(arg=k.arg, value=value))
            starred = any(isinstance(a, gast.Starred) for a in args) or \
                any(k.arg is None for k in kws)
            if isinstance(func, (gast.Name, gast.Attribute)) and not self._is_local(func) and \
                    not starred:
                args, kws = self.array_arguments(func, args, kws, pre, e)
            return A.copy_loc(gast.Call(func=func, args=args, keywords=kws), e)
        if isinstance(e, gast.Attribute):
            if self.is_static(e):
                return e
            if isinstance(e.value, gast.Name) and self._property_of_built(e.value.id, e.attr):
                # a property of an object this function builds: its getter, called
                # (a function value: differentiated to any order, as any callee)
                return self._call_through("getter", A.name(e.value.id), e.attr,
                                          [A.name(e.value.id)], e, pre)
            if e.attr == "data":
                # x.data: a Tensor's value without its history; an array's own value
                obj = self.atom(e.value, pre, _base_of(e.value))
                return A.copy_loc(A.call(A.attr(self.ad_name, "data_of"), [obj]), e)
            return A.copy_loc(gast.Attribute(value=self.atom(e.value, pre, _base_of(e.value)),
                                             attr=e.attr, ctx=gast.Load()), e)
        if isinstance(e, gast.Subscript):
            value = self.atom(e.value, pre, _base_of(e.value))
            index = self.index(e.slice, pre)
            if isinstance(value, gast.Name) and self._is_record_name(value.id, pre) and \
                    self._python_getitem(value.id, pre):
                # an item of an object of the user's class: its __getitem__, called
                key = self.atom(A.slice_to_expr(index), pre, "key")
                return self._call_through("operator_method", value, "__getitem__",
                                          [value, key], e, pre)
            return A.copy_loc(gast.Subscript(value=value, slice=index, ctx=gast.Load()), e)
        if isinstance(e, (gast.Tuple, gast.List)) and any(isinstance(x, gast.Starred)
                                                          for x in e.elts):
            # ``[*a, x, *b]``: list(a) + [x] + list(b) (a tuple: tuple(...) + (x,) + ...)
            kind = "list" if isinstance(e, gast.List) else "tuple"
            pieces, run = [], []
            for x in e.elts:
                if isinstance(x, gast.Starred):
                    if run:
                        pieces.append(type(e)(elts=run, ctx=gast.Load()))
                        run = []
                    pieces.append(A.call(A.name(kind), [x.value]))
                else:
                    run.append(x)
            if run:
                pieces.append(type(e)(elts=run, ctx=gast.Load()))
            joined = pieces[0]
            for p in pieces[1:]:
                joined = A.copy_loc(gast.BinOp(left=joined, op=gast.Add(), right=p), e)
            return self.expr(A.copy_loc(joined, e), pre, top=top, base=base)
        if isinstance(e, (gast.Tuple, gast.List)):
            elts = [self.arg(x, pre) for x in e.elts]
            return A.copy_loc(type(e)(elts=elts, ctx=gast.Load()), e)
        if isinstance(e, gast.Dict):
            if any(k is None for k in e.keys):
                # {**d1, "k": v, **d2}: the runs of items are dicts, merged in order
                pieces, run = [], ([], [])
                for k, v in zip(e.keys, e.values):
                    if k is None:
                        if run[0]:
                            pieces.append(self.atom(A.copy_loc(gast.Dict(
                                keys=run[0], values=run[1]), e), pre, "items"))
                            run = ([], [])
                        pieces.append(self.atom(v, pre, _base_of(v)))
                    else:
                        run[0].append(k)
                        run[1].append(v)
                if run[0]:
                    pieces.append(self.atom(A.copy_loc(gast.Dict(keys=run[0], values=run[1]),
                                                       e), pre, "items"))
                return A.copy_loc(A.call(A.attr(self.ad_name, "merged"), pieces), e)
            keys = [self.arg(k, pre) for k in e.keys]
            values = [self.arg(v, pre) for v in e.values]
            return A.copy_loc(gast.Dict(keys=keys, values=values), e)
        if isinstance(e, gast.IfExp):
            if top:
                return e
            return self.atom(e, pre, base)
        # comparisons, boolean operators, f-strings...: never differentiated, kept whole
        return e

    def container_call(self, e, pre):
        """``dict(...)``, ``zip(...)``, ``list(x)`` and ``tuple(x)`` of the builtins, bound
        as Python binds them: ``dict(x, k=v, **d)`` is the dict of x (a mapping or pairs),
        updated by the keywords, then by d (rules/containers.py); ``dict(k=v)`` is
        ``{"k": v}``; ``zip(a, b)`` is the list of its tuples; ``list(x)`` /
        ``tuple(x)`` are ``ad.as_list(x)`` / ``ad.as_tuple(x)``, whose rules give x's
        gradient x's structure (an array's rows stacked).  None for any other call."""
        copied = self.record_copy(e, pre)
        if copied is not None:
            return copied
        if self._is_local(e.func) or not isinstance(e.func, (gast.Name, gast.Attribute)):
            return None
        obj = resolve(e.func, self.func)
        if obj is builtins.zip and e.args and not e.keywords:
            # (``zip(*pairs)``: the rows' sequences unpacked, as the call is written)
            return A.copy_loc(A.call(A.attr(self.ad_name, "zipped"), [
                A.copy_loc(gast.Starred(value=self.atom(a.value, pre, "seqs"), ctx=gast.Load()), a)
                if isinstance(a, gast.Starred) else self.atom(a, pre, "seq")
                for a in e.args]), e)
        if obj in (builtins.list, builtins.tuple) and len(e.args) == 1 and not e.keywords \
                and not isinstance(e.args[0], gast.Starred):
            kernel = "as_list" if obj is builtins.list else "as_tuple"
            return A.copy_loc(A.call(A.attr(self.ad_name, kernel),
                                     [self.atom(e.args[0], pre, _base_of(e.args[0]))]), e)
        if isinstance(obj, type) and issubclass(obj, tuple) and hasattr(obj, "_fields"):
            return self.namedtuple_call(e, obj, pre)
        kind = next((k for f, k in _ITERTOOLS.items() if obj is f), None)   # (obj may
        # be unhashable: a callable object of a class with __eq__)
        if kind is not None and not any(isinstance(a, gast.Starred) for a in e.args) and \
                all(k.arg is not None for k in e.keywords):
            # itertools over one sequence: ad.arranged(xs, r, kind), a list of tuples
            kws = {k.arg: k.value for k in e.keywords}
            r = e.args[1] if len(e.args) == 2 else kws.pop("repeat" if kind == "product"
                                                           else "r", A.const(
                                                               1 if kind == "product" else None))
            if len(e.args) in (1, 2) and not kws and not (kind == "product" and
                                                          len(e.args) == 2):
                return A.copy_loc(A.call(A.attr(self.ad_name, "arranged"), [
                    self.atom(e.args[0], pre, "seq"), self.atom(r, pre, "r"),
                    A.const(kind)]), e)
        if obj is builtins.reversed and len(e.args) == 1 and not e.keywords and \
                not isinstance(e.args[0], gast.Starred) and not self._is_dict(e.args[0]):
            # reversed(xs): the sequence read backwards, ``xs[::-1]`` (an iterator's
            # items in the same order; ``next()`` of it is a TypeError, never a number)
            back = gast.Slice(lower=None, upper=None, step=A.const(-1))
            return self.expr(A.copy_loc(gast.Subscript(value=e.args[0], slice=back,
                                                       ctx=gast.Load()), e), pre)
        if obj is not builtins.dict or any(isinstance(a, gast.Starred) for a in e.args):
            return None
        if len(e.args) > 1:
            raise self.info.error(e, f"dict expected at most 1 positional argument, "
                                     f"got {len(e.args)}")
        named = [k for k in e.keywords if k.arg is not None]
        if not e.args and len(named) == len(e.keywords):
            return self.expr(gast.Dict(keys=[A.const(k.arg) for k in named],
                                       values=[k.value for k in named]), pre)
        pieces = []
        if e.args:
            pieces.append(self.atom(A.copy_loc(A.call(A.attr(self.ad_name, "as_dict"), [
                self.atom(e.args[0], pre, "items")]), e), pre, "dict"))
        if named:
            pieces.append(self.atom(A.copy_loc(gast.Dict(
                keys=[A.const(k.arg) for k in named], values=[k.value for k in named]), e),
                pre, "items"))
        for k in e.keywords:
            if k.arg is None:
                pieces.append(self.atom(k.value, pre, _base_of(k.value)))
        if len(pieces) == 1 and e.args:
            return pre.pop().value if pre and isinstance(pre[-1], gast.Assign) and \
                isinstance(pieces[0], gast.Name) and \
                pre[-1].targets[0].id == pieces[0].id else pieces[0]
        return A.copy_loc(A.call(A.attr(self.ad_name, "merged"), pieces), e)

    def record_copy(self, e, pre):
        """A namedtuple's or a dataclass's copy, changed or in a plain form, as the
        kernels of rules/python/attributes.py that give its gradient its structure:
        ``p._replace(b=v)`` and ``dataclasses.replace(d, b=v)`` are ``ad.replaced(p,
        ("b",), (v,))``; ``p._asdict()``, ``dataclasses.asdict(d)`` and ``astuple(d)``
        are ``ad.as_plain(p, kind)``; ``P._make(xs)`` of a namedtuple class is
        ``ad.as_namedtuple(P, ad.as_tuple(xs))``.  None for any other call (an object of
        the user's own class keeps its own ``_replace``)."""
        f = e.func
        if any(isinstance(a, gast.Starred) for a in e.args) or \
                any(k.arg is None for k in e.keywords) or \
                not isinstance(f, (gast.Name, gast.Attribute)):
            return None
        if isinstance(f, gast.Attribute) and f.attr in ("_replace", "_asdict") and \
                not self._own_record(f.value, pre):
            if self._is_local(f) or resolve(f, self.func) is MISSING:
                obj = f.value
                if f.attr == "_replace" and not e.args:
                    return self._replaced(e, obj, e.keywords, pre)
                if f.attr == "_asdict" and not e.args and not e.keywords:
                    return self._as_plain(e, obj, "fields", pre)
                return None
        if self._is_local(f):
            return None
        target = resolve(f, self.func)
        if target is MISSING:
            return None
        if target is dataclasses.replace and len(e.args) == 1:
            return self._replaced(e, e.args[0], e.keywords, pre)
        if target in (dataclasses.asdict, dataclasses.astuple) and len(e.args) == 1 and \
                not e.keywords:
            kind = "dict" if target is dataclasses.asdict else "tuple"
            return self._as_plain(e, e.args[0], kind, pre)
        owner = getattr(target, "__self__", None)
        if getattr(target, "__name__", None) == "_make" and isinstance(owner, type) and \
                issubclass(owner, tuple) and hasattr(owner, "_fields") and \
                len(e.args) == 1 and not e.keywords:
            items = A.copy_loc(A.call(A.attr(self.ad_name, "as_tuple"),
                                      [self.atom(e.args[0], pre, "items")]), e)
            return A.copy_loc(A.call(A.attr(self.ad_name, "as_namedtuple"), [
                copy.deepcopy(f.value), self.atom(items, pre, "fields")]), e)
        return None

    def _own_record(self, v, pre):
        """Is ``v`` a name that holds an object of a user class that is not a
        namedtuple (whose ``_replace`` is its own method)?"""
        if not isinstance(v, gast.Name) or not self._is_record_name(v.id, pre):
            return False
        cls = self._built_class(v.id) if v.id in self.locals else None
        return not (isinstance(cls, type) and issubclass(cls, tuple))

    def _replaced(self, e, obj, keywords, pre):
        names = A.copy_loc(A.tuple_([A.const(k.arg) for k in keywords]), e)
        values = self.atom(A.copy_loc(A.tuple_([k.value for k in keywords]), e), pre,
                           "values")
        return A.copy_loc(A.call(A.attr(self.ad_name, "replaced"), [
            self.atom(obj, pre, _base_of(obj)), names, values]), e)

    def _as_plain(self, e, obj, kind, pre):
        return A.copy_loc(A.call(A.attr(self.ad_name, "as_plain"), [
            self.atom(obj, pre, _base_of(obj)), A.const(kind)]), e)

    def sequence_op(self, e, pre):
        """``a + b`` / ``a * n`` where a list or tuple display takes part: two displays
        join into one (``(h,) + (c,)`` is ``(h, c)``); otherwise ``ad.seq_concat`` /
        ``ad.seq_repeat``, whose rules give each item its gradient.  None otherwise."""
        def display(x):
            return isinstance(x, (gast.List, gast.Tuple))

        def sequence(x):     # certainly a list or tuple, or a name bound to one somewhere
            return display(x) or self._may_be_sequence(x) or (
                isinstance(x, gast.Call) and not self._is_local(x.func) and
                resolve(x.func, self.func) in (list, tuple, sorted)) or (
                isinstance(x, gast.BinOp) and isinstance(x.op, (gast.Add, gast.Mult)) and
                (sequence(x.left) or sequence(x.right)))
        left, right = e.left, e.right
        if isinstance(e.op, gast.Add) and (sequence(left) or sequence(right)):
            if display(left) and display(right) and type(left) is type(right):
                return self.expr(type(left)(elts=list(left.elts) + list(right.elts),
                                            ctx=gast.Load()), pre)
            a, b = self.atom(left, pre, "seq"), self.atom(right, pre, "seq")
            return A.copy_loc(A.call(A.attr(self.ad_name, "seq_concat"), [a, b]), e)
        if isinstance(e.op, gast.Mult) and (display(left) or display(right)):
            seq, n = (left, right) if display(left) else (right, left)
            if A.is_literal(seq):
                return None          # [0.0] * n: a constant
            a, k = self.atom(seq, pre, "seq"), self.atom(n, pre, "n")
            return A.copy_loc(A.call(A.attr(self.ad_name, "seq_repeat"), [a, k]), e)
        return None

    def array_arguments(self, func, args, kws, pre, e):
        """A NumPy function given a Python list or tuple where it takes an array
        (``np.mean([x, 3 * x], axis=0)``, ``np.sum(lst)`` with ``lst`` a list) reads it
        as ``np.asarray(list)``: so does the generated code, so that the rule's kernel
        sees the array it was written for and ``np.asarray``'s rule gives each item
        its gradient.  Parameters that take a sequence item by item (the ``sequence``
        facet: ``np.concatenate``'s ``arrays``, ``np.array``'s ``object``) and
        ``*operands`` are left alone."""
        from ... import rules
        obj = resolve(func, self.func)
        rule = rules.lookup(obj) if obj is not MISSING else None
        if rule is None or not _is_numpy(obj):
            return args, kws
        try:
            bound = rule.signature.bind_partial(*range(len(args)),
                                                **{k.arg: k for k in kws})
        except TypeError:
            return args, kws
        params = rule.signature.parameters
        args, kws = list(args), list(kws)
        for p, where in bound.arguments.items():
            if p not in rule.diff_params or params[p].kind in (
                    params[p].VAR_POSITIONAL, params[p].VAR_KEYWORD) or \
                    p in rule.facets.sequence:
                continue
            value = args[where] if isinstance(where, int) else where.value
            written = e.args[where] if isinstance(where, int) else \
                next(k.value for k in e.keywords if k.arg == where.arg)
            if not (self._may_be_sequence(written) or self._may_be_sequence(value)):
                continue
            arr = self.names.fresh("array")
            pre.append(A.assign(arr, A.call(A.attr(self._np_name(), "asarray"), [value]),
                                like=e))
            if isinstance(where, int):
                args[where] = A.name(arr)
            else:
                kws[kws.index(where)] = gast.keyword(arg=where.arg, value=A.name(arr))
        return args, kws

    def _may_be_sequence(self, value):
        """A list/tuple display with a non-constant item, a local name that some
        statement of the function binds to one (``lst = []``, ``lst = list(...)``),
        or a parameter that this call passes a list or tuple."""
        if isinstance(value, (gast.List, gast.Tuple)):
            return not A.is_literal(value)
        if isinstance(value, gast.Name):
            if self._sequences is None:
                self._sequences = _sequence_names(self.fdef.body) | self.known_sequences
            return value.id in self._sequences
        return False

    def namedtuple_call(self, e, cls, pre):
        """``State(h, c=c)`` of a namedtuple class: ``ad.as_namedtuple(State, (h, c))``,
        the arguments bound to the fields as the class binds them (a default that is
        not a plain constant, or ``*``/``**`` arguments: None, the call as it is)."""
        fields = cls._fields
        if any(isinstance(a, gast.Starred) for a in e.args) or \
                any(k.arg is None for k in e.keywords) or len(e.args) > len(fields):
            return None
        given = dict(zip(fields, e.args))
        for k in e.keywords:
            if k.arg not in fields or k.arg in given:
                raise self.info.error(e, f"{cls.__name__}() got an unexpected or repeated "
                                         f"argument {k.arg!r}")
            given[k.arg] = k.value
        defaults = getattr(cls, "_field_defaults", {})
        items = []
        for f in fields:
            if f in given:
                items.append(self.atom(given[f], pre, f))
            elif f in defaults and type(defaults[f]) in (int, float, bool, str, type(None)):
                items.append(A.const(defaults[f]))
            else:
                return None
        t = self.atom(A.copy_loc(A.tuple_(items), e), pre, "fields")
        return A.copy_loc(A.call(A.attr(self.ad_name, "as_namedtuple"),
                                 [copy.deepcopy(e.func), t]), e)

    def _is_dict(self, value):
        """A dict display, ``dict(...)``, or a local name that every statement binding it
        binds to one (or a parameter this call passes a dict, list or tuple)."""
        if isinstance(value, (gast.Dict, gast.DictComp)):
            return True
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
                value.func.attr == "_asdict" and not value.args and \
                not self._own_record(value.func.value, []):
            return True                     # (a namedtuple's fields: ad.as_plain)
        if isinstance(value, gast.Call) and not self._is_local(value.func) and \
                isinstance(value.func, (gast.Name, gast.Attribute)):
            return resolve(value.func, self.func) in (builtins.dict, dataclasses.asdict)
        if isinstance(value, gast.Name):
            if self._dicts is None:
                self._dicts = _dict_names(self.fdef, self)
            return value.id in self._dicts
        return False

    def _np_name(self):
        """How generated code names numpy (the driver reserves ``np`` unless the user's
        code uses it for something else)."""
        return getattr(self.info, "np_name", "np")

    def arg(self, a, pre):
        if isinstance(a, gast.Constant) or isinstance(a, gast.Name):
            return a
        if A.is_literal(a):
            return a
        return self.atom(a, pre, _base_of(a))

    def index(self, s, pre):
        """Indices never carry gradient; only hoist parts that are arrays we might need."""
        return s
