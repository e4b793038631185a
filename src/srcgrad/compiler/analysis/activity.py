"""Classify normalized statements and find which variables are active.

Each assignment ``y = <rhs>`` gets an :class:`Op` (``stmt.srcgrad_op``) saying
how its right-hand side is differentiated: by a rule of the table, as a copy, a
container literal, a call to the user's own function, or not at all.

A variable is *varied* if it depends on a ``wrt`` argument and *useful* if the
return value depends on it; it is *active* if both.  The analysis is
flow-insensitive (a variable is varied if any assignment makes it so), which
over-approximates: an inactive variable is never treated as active's opposite.
"""
import functools
import operator
import types

import gast
import numpy as np

from .. import syntax as A
from ..ir import OpKind
from ... import rules, runtime
from ...runtime import records
from ...errors import NonDifferentiableError
from ..source import MISSING, library_name, resolve
from ...rules.python.operators import BINOPS, UNARYOPS

class Op:
    """How one assignment is differentiated."""

    def __init__(self, kind, rule=None, args=None, func=None, callee_args=None):
        self.kind = OpKind(kind)    # a str enum: ``op.kind == "rule"`` reads as before
        self.rule = rule
        self.args = args or {}      # rule parameter -> gast expression (atom / literal)
        self.func = func            # the callee (kind == "call") or the unknown object
        self.callee_args = callee_args  # (positional atoms, keyword atoms) for calls

    def diff_names(self):
        """Names whose gradient this op may contribute to: [(param, name)]."""
        if self.kind == "rule":
            out = []
            for p in self.rule.diff_params:
                a = self.args.get(p)
                if isinstance(a, gast.Name):
                    out.append((p, a.id))
                elif isinstance(a, (gast.Tuple, gast.List, tuple, list)):
                    # a list literal, or the items bound to ``*args`` (a Python tuple of
                    # nodes: np.einsum("ij,jk", x, y), max(x, y), math.hypot(x, y))
                    for e in (a.elts if isinstance(a, gast.AST) else a):
                        if isinstance(e, gast.Name):
                            out.append((p, e.id))
            return out
        if self.kind in ("copy", "literal", "unknown", "pop"):
            return [(None, n) for n in self.names]
        if self.kind == "call":
            pos, kws = self.callee_args
            atoms = [a.value if isinstance(a, gast.Starred) else a
                     for a in list(pos) + [v for _, v in kws]]
            # a callee resolved at run time is a value too: a method's object, a
            # callable object (its cotangent is that object's gradient)
            receiver = getattr(self, "receiver", None)
            return ([(None, receiver)] if receiver is not None else []) + \
                [(None, a.id) for a in atoms if isinstance(a, gast.Name)]
        return []

    names = ()


class Analysis:
    def __init__(self, body, params, wrt, info, local_defs=(), kinds=None):
        self.body = body
        self.kinds = kinds or {}
        self.params = params
        self.wrt = set(wrt)
        self.info = info
        self.func = info.func
        self.locals = A.names_stored(body) | set(params)
        self.local_defs = set(local_defs)
        self.assigns = []          # every (stmt) that stores a name, in program order
        self.defs = []             # nested defs (function values: what they capture flows in)
        self.varied = set()
        self.useful = set()
        self.classify(body)
        self.activity()

    # -- classification ------------------------------------------------------
    def classify(self, body):
        for s in body:
            if isinstance(s, gast.Assign):
                t = s.targets[0]
                if isinstance(t, gast.Name):
                    s.srcgrad_op = self.op_for(s.value, s)
                else:
                    s.srcgrad_op = Op("setitem")
                self.assigns.append(s)
            elif isinstance(s, gast.Expr):
                s.srcgrad_op = self.expr_op(s)
                if s.srcgrad_op.kind in ("append", "mutate", "restore", "effect"):  # checked in activity()
                    self.assigns.append(s)
            elif isinstance(s, gast.If):
                self.classify(s.body)
                self.classify(s.orelse)
            elif isinstance(s, (gast.For, gast.While)):
                self.classify(s.body)
            elif isinstance(s, gast.FunctionDef):
                self.defs.append(s)

    def expr_op(self, s):
        v = s.value
        if isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and \
                isinstance(v.func.value, gast.Name) and v.func.value.id in self.locals:
            if v.func.attr == "append" and len(v.args) == 1 and not v.keywords:
                op = Op("append")
                op.target = v.func.value.id
                op.names = [v.args[0].id] if isinstance(v.args[0], gast.Name) else []
                return op
            if v.func.attr in MUTATING_METHODS:
                op = Op("mutate")
                op.target = v.func.value.id
                op.names = [a.id for a in v.args if isinstance(a, gast.Name)]
                return op
        if isinstance(v, gast.Call) and len(v.args) == 3 and isinstance(v.args[0], gast.Name) \
                and v.args[0].id in self.locals and _RESTORE_ITEM is not None and \
                self.static(v.func) is _RESTORE_ITEM:
            # generated code undoing ``x[key] = v`` (ad.restore_item(x, key, old)): a
            # setitem of x that forward mode follows; reverse mode refuses it (reverse.py)
            op = Op("restore")
            op.target = v.args[0].id
            op.names = [v.args[2].id] if isinstance(v.args[2], gast.Name) else []
            return op
        if isinstance(v, gast.Call):
            # NumPy calls that write into an argument (``np.add.at(y, i, x)``,
            # ``np.copyto(y, x)``, ``np.multiply(a, b, out=y)``): an in-place update
            # that must never give a silently wrong (zero) gradient
            kws = {k.arg: k.value for k in v.keywords}
            obj = self.static(v.func) if isinstance(v.func, (gast.Name, gast.Attribute)) \
                else MISSING
            target = None
            if isinstance(kws.get("out"), gast.Name):
                target = kws["out"]
            elif v.args and isinstance(v.args[0], gast.Name) and _writes_first_arg(obj):
                target = v.args[0]
            if target is not None and target.id in self.locals:
                op = Op("mutate")
                op.target = target.id
                op.names = [a.id for a in list(v.args) + list(kws.values())
                            if isinstance(a, gast.Name) and a.id != target.id]
                return op
            effect = self.side_effect(v, s)
            if effect is not None:
                return effect
        return Op("nograd")

    def side_effect(self, v, s):
        """A call whose value is dropped (``acc.add(v)``, ``model.update(x)``): what it
        changes (an object's attribute, a global) is invisible here, so a gradient
        through it would be silently lost.  An Op checked in ``activity()`` (an error if
        what it is given carries a gradient), or None for calls known to be harmless
        (no rule, nograd, a user function that changes no attribute: its in-place
        writes of arrays are followed by the alias analysis)."""
        op = self.call_op(v, s)
        if op.kind == "call" and getattr(op, "dynamic", None) is not None:
            pass                      # the callee is known only at run time
        elif op.kind == "call" and writes_attributes(op.func):
            pass
        else:
            return None
        effect = Op("effect")
        effect.names = sorted(A.names_read(v))
        effect.label = getattr(op, "label", None) or A.unparse_short(v.func) + "()"
        return effect

    def static(self, func_node):
        """Resolve a call target that is not a local variable."""
        e = func_node
        while isinstance(e, gast.Attribute):
            e = e.value
        if isinstance(e, gast.Name) and e.id == getattr(self.info, "ad_name", None) and \
                isinstance(func_node, gast.Attribute) and func_node.value is e:
            # a runtime helper the normalizer inserted (ad.indexable, ad.keys_of)
            # (or a kernel of the rules: ad.as_dict, ad.merged)
            return getattr(rules.namespace(), func_node.attr, MISSING)
        if isinstance(e, gast.Name) and e.id in self.locals:
            return MISSING
        return resolve(func_node, self.func)

    def is_namespace(self, name):
        """Does local ``name`` hold a module: a namespace argument (``xp=np``), one got
        (``xp = array_namespace(x)``) or a module bound to it (``xp = np``)?"""
        if self.kinds.get(name) == "module":
            return True
        if getattr(self, "_modules", None) is None:      # (one pass over the body)
            verdict = {}
            for s in self.body:
                for n in A.statements(s):
                    if isinstance(n, gast.Assign) and len(n.targets) == 1 and \
                            isinstance(n.targets[0], gast.Name):
                        v = n.value
                        verdict[n.targets[0].id] = verdict.get(n.targets[0].id, True) and \
                            isinstance(v, (gast.Name, gast.Attribute)) and \
                            isinstance(self.static(v), types.ModuleType)
            self._modules = {n for n, ok in verdict.items() if ok and n not in self.params}
        return name in self._modules

    def op_for(self, v, s):
        nograd = getattr(s, "srcgrad_nograd", False)
        if nograd:
            return Op("nograd")
        if isinstance(v, gast.Name):
            op = Op("copy")
            op.names = [v.id]
            return op
        if isinstance(v, gast.Constant):
            return Op("const")
        if isinstance(v, gast.BinOp):
            uf = BINOPS.get(type(v.op).__name__)
            if uf is None:
                return Op("nograd")
            return Op("rule", rules.lookup(uf), {"x": v.left, "y": v.right})
        if isinstance(v, gast.UnaryOp):
            uf = UNARYOPS.get(type(v.op).__name__)
            if uf is None:
                return Op("nograd")
            return Op("rule", rules.lookup(uf), {"x": v.operand})
        if isinstance(v, gast.Subscript):
            base = self.static(v.value) if isinstance(v.value, (gast.Name, gast.Attribute)) \
                else MISSING
            if base is not MISSING and not isinstance(base, (np.ndarray, np.generic, list,
                                                             tuple, dict, int, float, str)):
                # ``np.r_[x, y]``, ``np.c_[...]``: indexing an object that builds arrays
                return self.unknown(v, A.unparse_short(v.value) + "[...]", s, base)
            return Op("rule", rules.lookup(operator.getitem), {"x": v.value, "index": v.slice})
        if isinstance(v, gast.Set):
            # a set of values that may carry gradients: no order, duplicates merged
            return self.unknown(v, "a set {...}", s)
        if isinstance(v, (gast.Tuple, gast.List, gast.Dict)):
            op = Op("literal")
            elts = v.values if isinstance(v, gast.Dict) else v.elts
            op.names = [e.id for e in elts if isinstance(e, gast.Name)]
            return op
        if isinstance(v, gast.Attribute):
            if rules.nograd_attribute(v.attr):
                return Op("nograd")
            obj = self.static(v)
            if obj is not MISSING:
                return Op("const")
            m = rules.METHODS.get(v.attr)
            if m and m[1]:
                rule = rules.lookup(m[0])
                return Op("rule", rule, rule.bind([v.value], {}))
            if isinstance(v.value, gast.Name):
                # a field of a local value (a namedtuple's, a dataclass's): the
                # generated code reads it as written; its rule checks the value
                rule = rules.lookup(rules.FIELD)
                return Op("rule", rule, {"obj": v.value, "name": A.const(v.attr)})
            return self.unknown(v, f".{v.attr}", s)
        if isinstance(v, gast.Call):
            return self.call_op(v, s)
        return Op("nograd")  # comparisons, boolean operators, f-strings, lambdas...

    def call_op(self, v, s):
        f = v.func
        args = list(v.args)
        obj = self.static(f) if isinstance(f, (gast.Name, gast.Attribute)) else MISSING
        if any(isinstance(a, gast.Starred) for a in args) or \
                any(k.arg is None for k in v.keywords):
            # ``f(*xs, **kw)``: how many arguments, and which, is known only at run time
            if obj is not MISSING and (rules.is_nograd(obj) or any(obj is c for c in _NOGRAD_CALLABLES)):
                return Op("nograd")
            if _is_srcgrad_stop(obj):
                return Op("nograd")
            op = self.dynamic(f, args, [(k.arg, k.value) for k in v.keywords], s,
                              A.unparse_short(f) + "()")
            op.starred = True
            return op
        kws = {k.arg: k.value for k in v.keywords}
        if obj is MISSING and isinstance(f, gast.Attribute) and f.attr == "pop" and \
                isinstance(f.value, gast.Name) and f.value.id in self.locals and \
                not args and not kws:
            # y = lst.pop(): a read of the list's last item (the record stack of
            # generated code, read again when generated code is transformed)
            op = Op("pop")
            op.names = [f.value.id]
            op.target = f.value.id
            return op
        if obj is MISSING and isinstance(f, gast.Attribute) and \
                isinstance(f.value, gast.Name) and self.is_namespace(f.value.id):
            # ``xp.sum(y)`` of a namespace passed in or got (``xp = array_namespace(x)``):
            # a function of that module, not a method; which one is known when it runs
            return self.dynamic(f, args, kws, s, A.unparse_short(f) + "()")
        if obj is MISSING and isinstance(f, gast.Attribute):
            # a method call on a local value: x.sum(axis=0)
            if rules.nograd_method(f.attr):
                return Op("nograd")
            m = rules.METHODS.get(f.attr)
            if m and not m[1]:
                rule = rules.lookup(m[0])
                return Op("rule", rule, self.bind(rule, [f.value] + args, kws, s))
            return self.dynamic(f, args, kws, s, f".{f.attr}()")
        if obj is MISSING:
            # a function value: a parameter, a local def passed around, an item of a
            # list of functions, a factory's result: resolved when the call runs
            return self.dynamic(f, args, kws, s, A.unparse_short(f) + "()")
        if _is_srcgrad_stop(obj):
            return Op("nograd")
        if getattr(obj, "__srcgrad_unfolds__", False):
            # generated code transformed again (grad of grad): a call it resolved at
            # run time is one again, of what it computes (compiler/nested.py)
            return self.dynamic(f, args, kws, s, A.unparse_short(f) + "()")
        if getattr(obj, "__srcgrad_dynamic_call__", False) and len(args) > 2 and \
                isinstance(args[2], gast.Constant):
            # (a starred call, a tangent's: not yet)
            site = args[2].value
            raise NonDifferentiableError(
                f"{site}: srcgrad cannot take a derivative of a derivative through this "
                f"call, whose callee is known only when it runs (a function value, a "
                f"method of an object, an object built); first-order gradients work. "
                f"Call a module-level function by name to differentiate it again.")
        if obj is getattr and len(args) >= 2 and isinstance(args[1], gast.Constant) and \
                isinstance(args[1].value, str) and rules.nograd_attribute(args[1].value):
            return Op("nograd")      # getattr(g, "shape", ()): metadata, as g.shape
        if getattr(obj, "__srcgrad_wraps_function__", False) and args and \
                isinstance(args[0], gast.Name):
            # ``sg.grad(loss)`` of a function value: holds what loss holds (a call of it
            # is resolved when it runs, compiler/dynamic.py: through loss's derivative)
            op = Op("copy")
            op.identity = True
            op.names = [args[0].id]
            return op
        if obj is super:
            # ``super().forward(x)``: a view of the method's object (its first
            # parameter, or super's second argument), whose gradient is that object's
            op = Op("copy")
            op.identity = True
            first = args[1] if len(args) > 1 else A.name(self.params[0]) if self.params \
                else None
            op.names = [first.id] if isinstance(first, gast.Name) else []
            return op
        if obj is set or obj is frozenset:
            return self.unknown(v, f"{obj.__name__}()", s)
        if "out" in kws and not (isinstance(kws["out"], gast.Constant) and kws["out"].value is None):
            raise self.info.error(v, "srcgrad does not support out= arguments: the result "
                                     "would alias an array; assign the result instead")
        if isinstance(obj, functools.partial) or hasattr(obj, "__srcgrad_trace__"):
            # a partial, a derivative (sg.grad(g)) called here: resolved when it runs
            return self.dynamic(f, args, kws, s, A.unparse_short(f) + "()")
        if getattr(obj, "__srcgrad_resolved_when_run__", False):
            # ad.try_call (lower/trying.py): which block runs is known when it runs
            return self.dynamic(f, args, kws, s, "try")
        inline = getattr(obj, "__srcgrad_inline__", None)
        if inline is not None:
            # a transformation called inside transformed code (``sg.jvp(g, ...)``): a
            # call of generated code that srcgrad can transform again; of a function
            # value (a lambda, a closure), resolved when it runs (compiler/nested.py)
            made = inline(self, args, kws, s)
            if made is None:
                return self.dynamic(f, args, kws, s, A.unparse_short(f) + "()")
            func, pos, kw = made
            return Op("call", func=func, callee_args=(pos, list(kw.items())))
        rule = rules.lookup(obj)
        if rule is not None:
            return Op("rule", rule, self.bind(rule, args, kws, s))
        if rules.is_nograd(obj):
            return Op("nograd")
        if obj in (list, tuple) and len(args) == 1 and not kws:
            op = Op("copy")
            op.names = [args[0].id] if isinstance(args[0], gast.Name) else []
            return op
        if obj is dict or obj is list or obj is tuple:
            op = Op("literal")
            op.names = [a.id for a in args + list(kws.values()) if isinstance(a, gast.Name)]
            return op
        if isinstance(obj, types.FunctionType) and not _is_srcgrad_internal(obj):
            library = library_name(obj)
            if library is not None:
                return self.library_call(v, s, f, library)
            return Op("call", func=obj, callee_args=(args, list(kws.items())))
        # a method of a module-level object (layer.apply(x)), or a callable object (layer(x))
        method = obj if isinstance(obj, types.MethodType) else getattr(
            type(obj), "__call__", None) if not isinstance(obj, (types.BuiltinFunctionType,
                                                                  np.ufunc, type)) else None
        if method is not None and not isinstance(method, types.MethodType):
            method = types.MethodType(method, obj) if isinstance(method, types.FunctionType) \
                else None
        if isinstance(method, types.MethodType) and isinstance(method.__func__, types.FunctionType) \
                and not _is_srcgrad_internal(method.__func__):
            if library_name(method.__func__) is not None:
                return self.library_call(v, s, f, library_name(method.__func__))
            return Op("call", func=method, callee_args=(args, list(kws.items())))
        if isinstance(obj, type) and records.user_class(obj) and \
                not issubclass(obj, (tuple, BaseException)):
            # an object of the user's own class (compiler/construct.py)
            op = self.dynamic(f, args, kws, s, obj.__qualname__ + "()")
            op.constructs = obj.__new__ is object.__new__      # a new object, always
            return op
        if isinstance(obj, type) and not issubclass(obj, np.ndarray):
            return Op("nograd") if obj in (int, bool, str, range, slice, type) else \
                self.unknown(v, getattr(obj, "__name__", "?") + "()", s, obj)
        return self.unknown(v, _display(obj) + "()", s, obj)

    def library_call(self, v, s, f, library):
        """A call of an installed library's function that has no rule: an error where
        it matters (its result carries a gradient), naming it as the user wrote it."""
        written = A.unparse_short(f, 80)
        base = f
        while isinstance(base, gast.Attribute):
            base = base.value
        obj = self.static(base) if isinstance(base, gast.Name) else MISSING
        if isinstance(obj, types.ModuleType) and isinstance(f, gast.Attribute):
            written = obj.__name__ + written[len(base.id):]
        op = self.unknown(v, f"{written}() ({library})" if library.split(".")[-1] not in
                          written else f"{written}()", s)
        op.library = library
        return op

    def dynamic(self, f, args, kws, s, label):
        """A call of a callee known only at run time (compiler/dynamic.py)."""
        op = Op("call", func=None,
                callee_args=(args, list(kws.items()) if isinstance(kws, dict) else kws))
        op.dynamic = f
        op.label = label
        op.callee_names = sorted(A.names_read(f))
        # the name whose gradient the callee's own cotangent goes to: ``layer`` of
        # ``layer.forward(x)``, ``model`` of ``model(x)`` (compiler/dynamic.py)
        base = f.value if isinstance(f, gast.Attribute) else f
        op.receiver = base.id if isinstance(base, gast.Name) else None
        return op

    def bind(self, rule, args, kws, s):
        try:
            return rule.bind(args, kws)
        except TypeError as e:
            raise self.info.error(s, f"cannot match the call to {rule.name} with its "
                                     f"derivative rule's parameters ({rule.params}): {e}")

    def unknown(self, v, label, s, obj=None):
        op = Op("unknown", func=obj)
        op.label = label
        op.node = s
        names = []
        for sub in gast.walk(v):
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Load):
                names.append(sub.id)
        op.names = names
        return op

    # -- activity ------------------------------------------------------------
    def activity(self):
        """Varied and useful names, by reachability over the def-use graph.

        Each assignment-like statement ``tgt = op(srcs)`` that carries derivatives
        (not nograd / const) is an edge ``src -> tgt`` for every source.  The
        analysis is flow-insensitive, so *varied* is what the ``wrt`` names reach
        along the edges and *useful* is what reaches the returned names: one
        worklist pass each, linear in the number of edges (loops need no
        fixpoint over the statements)."""
        flows = [(s, *_flow(s)) for s in self.assigns]
        succ, pred = {}, {}
        for d in self.defs:
            # a function value depends on what it reads from here: captured names and
            # its defaults (a call of it resolved at run time is refused if they vary)
            for n in _captured(d):
                succ.setdefault(n, []).append(d.name)
                pred.setdefault(d.name, []).append(n)   # (its gradient comes back to n)
        for s, tgt, srcs in flows:
            if tgt is None or s.srcgrad_op.kind in ("nograd", "const"):
                continue
            pred.setdefault(tgt, []).extend(srcs)
            for n in srcs:
                succ.setdefault(n, []).append(tgt)
        self.edge_visits = 0          # the work both passes did (the tests read it)
        varied = self._reach(set(self.wrt), succ)
        useful = set()
        ret = self.body[-1]
        if isinstance(ret, gast.Return):
            useful |= A.names_read(ret.value)
        useful = self._reach(useful, pred)
        self.varied = varied
        self.useful = useful
        # a call we cannot differentiate is an error only where it matters
        for s, tgt, srcs in flows:
            op = s.srcgrad_op
            if op.kind == "call" and getattr(op, "dynamic", None) is not None and \
                    tgt in useful and any(n in varied for n in op.callee_names):
                # a method of an object, a callable object or a closure that holds varied
                # values: its own gradient is the object's, or a dict of what the closure
                # holds (compiler/dynamic.py); a callee computed by an expression is refused
                if op.receiver is None or set(op.callee_names) != {op.receiver}:
                    raise self.captured_error(s, op)
                op.callee_grad = True
            if op.kind == "unknown":
                if tgt in useful and any(n in varied for n in srcs):
                    raise self.nondiff(s, op)
            if op.kind == "effect" and any(n in varied for n in op.names):
                raise self.info.error(s, f"the value of {op.label} is not used, and srcgrad "
                                         f"cannot follow what the call changes (an object's "
                                         f"attribute, a global) with a gradient; return the "
                                         f"new value and assign it instead")
            if op.kind == "mutate":
                # varied is enough: the target may be a view of a useful array
                # (np.fill_diagonal(y.reshape(2, 2), 0), y[:2].fill(0)), whose change
                # would otherwise be silently missed
                if op.target in varied:
                    fn = A.unparse_short(s.value.func)
                    raise self.info.error(s, f"srcgrad cannot differentiate the in-place call "
                                             f"{fn}() on {op.target}; build a new "
                                             f"value instead (e.g. with + or np.concatenate)")
        # a function value defined here that holds varied values and is used as a
        # value (its gradient, a dict of what it holds, comes back to this def): Python
        # reads a free name when the function runs, so each must have one value
        order = None
        for d in self.defs:
            if d.name not in varied or d.name not in useful:
                continue
            for key, n in closure_parts(d):
                if key != n or n not in varied:
                    continue
                order = self._store_order() if order is None else order
                where, stores = order[0][id(d)], order[1].get(n, ())
                # safe: no assignment of n in a loop that also runs the def again, and
                # none after the def unless the function value is never called from
                # there on (its last call saw the value it was defined with)
                if any(set(loops) & set(where[1]) or
                       (i > where[0] and self._called_from(order, i, loops, d.name))
                       for i, loops in stores):
                    what = "the lambda" if d.name.startswith("lambda") else d.name
                    raise self.info.error(d, f"{what} reads {n}, which depends on the "
                                             f"differentiated inputs and is assigned more "
                                             f"than once (after the def, or in a loop that "
                                             f"runs it again), so {what} would see whichever "
                                             f"value it has when it is called; pass {n} as an "
                                             f"argument or a default ({n}={n})")

    def _reach(self, start, edges):
        """``start`` and every name reachable from it along ``edges``."""
        seen = set(start)
        work = list(seen)
        while work:
            n = work.pop()
            nxt = edges.get(n, ())
            self.edge_visits += len(nxt)
            for m in nxt:
                if m not in seen:
                    seen.add(m)
                    work.append(m)
        return seen

    def nondiff(self, s, op):
        label = getattr(op, "label", "this call")
        if getattr(op, "library", None) is not None:
            top = op.library.split(".")[0]
            return NonDifferentiableError(
                f"{label} has no derivative rule (at {self.info.filename}, line {s.lineno}: "
                f"{self.info.line(s.lineno).strip()!s}). srcgrad does not differentiate the "
                f"internals of installed libraries: register its derivative with "
                f"@sg.adjoint(...), wrap the call in sg.detach(...) if no gradient should "
                f"flow through it, or call sg.transform_library({top!r}) to let srcgrad "
                f"transform that library's source.")
        msg = (f"{label} has no derivative rule and no Python source to transform "
               f"(at {self.info.filename}, line {s.lineno}: {self.info.line(s.lineno).strip()!s}). "
               f"Register its derivative with @sg.adjoint(...), or wrap the call in "
               f"sg.detach(...) if no gradient should flow through it.")
        if op.func is not None and isinstance(op.func, str):
            msg = (f"{label} cannot be differentiated: srcgrad transforms module-level "
                   f"functions, not functions defined inside the one being differentiated "
                   f"(at {self.info.filename}, line {s.lineno}). Move it to module level.")
        return NonDifferentiableError(msg)

    def captured_error(self, s, op):
        f = op.dynamic
        where = f"at {self.info.filename}, line {s.lineno}: {self.info.line(s.lineno).strip()!s}"
        if isinstance(f, gast.Attribute):
            recv = A.unparse_short(f.value)
            return NonDifferentiableError(
                f"{op.label} has no derivative rule for its object {recv}, which depends on "
                f"the differentiated inputs ({where}). srcgrad follows gradients through "
                f"a method's arguments and through the methods of the rule table (x.sum(), "
                f"x.reshape(...)); register a derivative with @sg.adjoint(...), or pass the "
                f"values as arguments.")
        return NonDifferentiableError(
            f"{op.label}: the function called is built from values that depend on the "
            f"differentiated inputs (a closure, default or partial argument holding them; "
            f"{where}). srcgrad cannot follow a gradient into what a function value holds: "
            f"pass those values to it as arguments.")

    def active(self, n):
        return n in self.varied and n in self.useful

    def _called_from(self, order, start, loops, name):
        """Might the function value ``name`` be called at or after position ``start``
        (from the start of the outermost loop in ``loops``, which runs it again)?  It
        may be, wherever it or a value that may hold it is given to a call, returned
        or iterated over.  Rules never call a function value (``map``, ``sorted(key=)``
        and the like are loops by then: lower/desugar.py); those that compute numbers
        from numbers hold none.  (Flow-insensitive: whatever a statement computes from
        a value that may hold it may hold it too.)"""
        if loops:
            start = min(order[2][lp] for lp in loops)
        reading = []             # (position, names read, names it stores, may call)
        for i, st in order[3]:
            if isinstance(st, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr)):
                op = getattr(st, "srcgrad_op", None)
                kind = getattr(op, "kind", None)
                if kind in ("nograd", "const") or (kind == "rule" and _numeric(op.rule)):
                    continue
                if kind == "call" and _gives_gradients(op.func):
                    # a backward sweep runs a function value's backward with what its
                    # forward saved (its free names too: driver.py), never the function;
                    # and gradients never hold a function value
                    continue
                target = getattr(op, "target", None)
                stored = A.names_stored([st]) | ({target} if isinstance(target, str) else set())
                reads = A.names_read(st.value) if st.value is not None else set()
                reading.append((i, reads, stored, kind not in ("rule", "copy", "literal")))
            elif isinstance(st, gast.FunctionDef):
                reading.append((i, _captured(st), {st.name}, False))
            elif isinstance(st, gast.For):
                reading.append((i, A.names_read(st.iter), A.names_stored([st.target]), True))
            else:
                reading.append((i, A.names_read(_header(st)), A.names_stored([st]), True))
        by_name = {}
        for entry in reading:
            for n in entry[1]:
                by_name.setdefault(n, []).append(entry)
        holders, work = {name}, [name]
        while work:
            for i, _, stored, calls in by_name.get(work.pop(), ()):
                if calls and i >= start:
                    return True
                for m in stored - holders:
                    holders.add(m)
                    work.append(m)
        return False

    def _store_order(self):
        """({id(def): (position, enclosing loops)}, {name: [(position, enclosing loops)]
        of the statements assigning it}, {id(loop): its position}, [(position, stmt)]
        of the statements not holding others, and of loop and branch headers),
        positions in program order."""
        defs, stores, loop_at, flat = {}, {}, {}, []
        count = [0]

        def visit(stmts, loops):
            for st in stmts:
                count[0] += 1
                here = (count[0], loops)
                flat.append((count[0], st))
                if isinstance(st, (gast.For, gast.While)):
                    loop_at[id(st)] = count[0]
                    inner = loops + (id(st),)
                    if isinstance(st, gast.For):
                        for n in A.names_stored([st.target]):
                            stores.setdefault(n, []).append((count[0], inner))
                    visit(st.body, inner)
                elif isinstance(st, gast.If):
                    visit(st.body, loops)
                    visit(st.orelse, loops)
                elif isinstance(st, gast.FunctionDef):
                    defs[id(st)] = here
                    stores.setdefault(st.name, []).append(here)
                else:
                    for n in A.names_stored([st]):
                        stores.setdefault(n, []).append(here)
        visit(self.body, ())
        return defs, stores, loop_at, flat


# builtins that take any arguments and return no gradient (``range(*bounds)``)
_NOGRAD_CALLABLES = (range, print, len, isinstance, slice, str, int, bool, type, repr, format)


_ATTRIBUTE_WRITERS = {}


def writes_attributes(func, depth=0):
    """Does ``func`` (a user function or bound method) assign an attribute of an object
    it is given or reaches (``self.total = ...``, ``obj.x += 1``, ``cfg.a.b = v``) or
    declare a global?  Attributes of an object it builds itself (``p = P(); p.w = w``)
    do not count: its callers never see that object change."""
    fn = getattr(func, "__func__", func)
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    hit = _ATTRIBUTE_WRITERS.get(code)
    if hit is None:
        from ..source import get_function_ast
        try:
            fdef, _ = get_function_ast(fn)
        except (TypeError, OSError, SyntaxError):
            return False
        hit = False
        local = A.names_stored(fdef.body) - {p.id for p in A.params_of(fdef)}
        for n in A.walk(fdef.body):
            targets = n.targets if isinstance(n, gast.Assign) else \
                [n.target] if isinstance(n, (gast.AugAssign, gast.AnnAssign)) else []
            roots = [_root(t) for t in targets if isinstance(t, gast.Attribute)]
            if any(r not in local for r in roots) or \
                    isinstance(n, (gast.Global, gast.Nonlocal)):
                hit = True
                break
        _ATTRIBUTE_WRITERS[code] = hit
    return hit


def _root(e):
    """The name an attribute chain starts from (``cfg`` of ``cfg.a.b``), or None."""
    while isinstance(e, (gast.Attribute, gast.Subscript)):
        e = e.value
    return e.id if isinstance(e, gast.Name) else None


def closure_parts(fdef):
    """[(key, name)]: what a nested def's function value holds, as its own gradient (a
    dict, compiled/dynamic.py) names it: a default by its parameter, from the (hoisted)
    name it was computed into; a free name by itself."""
    a = fdef.args
    positional = list(a.posonlyargs) + list(a.args)
    with_default = positional[len(positional) - len(a.defaults):]
    out = [(p.id, d.id) for p, d in zip(with_default, a.defaults) if isinstance(d, gast.Name)]
    out += [(p.id, d.id) for p, d in zip(a.kwonlyargs, a.kw_defaults)
            if isinstance(d, gast.Name)]
    out += [(n, n) for n in sorted(A.names_read(fdef.body) - _own_names(fdef))]
    return out


def _own_names(fdef):
    """The names a def binds itself: its parameters, what it assigns, its own defs (not
    the defs inside those)."""
    defs, work = set(), list(fdef.body)
    while work:
        st = work.pop()
        if isinstance(st, gast.FunctionDef):
            defs.add(st.name)
            continue
        for field in ("body", "orelse", "finalbody"):
            work.extend(getattr(st, field, None) or ())
        for h in getattr(st, "handlers", None) or ():
            work.extend(h.body)
    return A.names_stored(fdef.body) | {p.id for p in A.params_of(fdef)} | defs


def _numeric(rule):
    """Does this rule compute arrays from arrays only (so that an argument it reads is
    never a function value, nor holds one)?"""
    f = rule.facets
    return bool(f.elementwise or f.reduction or f.bilinear_in) and not f.container


def _gives_gradients(func):
    """Is ``func`` a backward sweep (generated, or ``call_backward``), whose results
    are gradients?"""
    return getattr(func, "__srcgrad_gradients__", False)


def _header(st):
    """The expressions a compound statement reads itself (not its body's)."""
    if isinstance(st, gast.For):
        return st.iter
    if isinstance(st, (gast.While, gast.If)):
        return st.test
    return st


def _captured(fdef):
    """The names a nested def reads from the enclosing function: free names of its
    body and the (hoisted) names of its defaults."""
    a = fdef.args
    reads = A.names_read(fdef.body) - _own_names(fdef)
    reads |= A.names_read(list(a.defaults) + [d for d in a.kw_defaults if d is not None])
    return reads


def _flow(s):
    """(target name, names whose value flows into it) for an assignment-like statement."""
    op = s.srcgrad_op
    if isinstance(s, gast.Expr):
        if op.kind in ("append", "mutate", "restore"):
            return op.target, list(op.names) + ([op.target] if op.kind == "restore" else [])
        return None, ()
    t = s.targets[0]
    if isinstance(t, gast.Subscript):
        base = t.value.id if isinstance(t.value, gast.Name) else None
        return base, list(A.names_read(s.value)) + ([base] if base else [])
    if op.kind == "rule":
        return t.id, [n for _, n in op.diff_names()]
    if op.kind == "call":
        return t.id, [n for _, n in op.diff_names()]
    return t.id, list(getattr(op, "names", ()))


# methods that change their object in place (lists, dicts, arrays, Tensors)
MUTATING_METHODS = frozenset((
    "extend", "insert", "pop", "remove", "update", "setdefault", "clear", "sort", "reverse",
    "fill", "resize", "put", "__setitem__", "add_", "mul_", "sub_", "zero_"))


def _writes_first_arg(obj):
    """Does this callable modify its first argument in place (its rule's facets)?"""
    return rules.writes_first_argument(obj)


_RESTORE_ITEM = getattr(runtime, "restore_item", None)


def _is_srcgrad_stop(obj):
    return getattr(obj, "__srcgrad_stop_gradient__", False)


def _is_srcgrad_internal(obj):
    return getattr(obj, "__module__", "").startswith("srcgrad.") and not getattr(
        obj, "__srcgrad_transformable__", False)


def _display(obj):
    return rules.registry._display_name(obj)
