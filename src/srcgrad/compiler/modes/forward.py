"""Forward mode: turn a normalized function body into code that carries tangents.

``forward_function(f, wrt)`` generates ``jvp_f(<f's parameters>, *, dx, ...)``
returning ``(value, tangent of value)``, where ``dx`` is the tangent of the
``wrt`` parameter ``x``.  It reads the same normal form (compiler/lower/) and the
same activity analysis (activity.py) as the reverse transform.

Guarantees about the generated code:

* It is the user's (normalized) code, statement for statement; after each
  active statement ``y = f(a, b)`` comes ``dy = <sum of the rule's forward
  templates for the arguments that have a tangent>``, with the user's names
  (``dy`` is the tangent of ``y``) and a ``# line N:`` comment.
* Tangents are tracked symbolically: an inactive variable never gets one, and
  a variable no tangent has reached yet (a parameter outside ``wrt``) is a zero
  that costs nothing.  Zeros are materialized only where control flow merges a
  path with a tangent and one without.
* Every assignment to an active variable defines its tangent, so a tangent is
  in step with its value on every path, through loops and branches.
* Containers: the tangent of a list / tuple / dict has the same structure
  (zeros for items without a tangent); ``lst.append(v)`` appends ``dv`` to
  ``dlst``, ``v = lst.pop()`` pops ``dv``.
* ``y[i] = v`` writes ``dv`` into ``dy`` only where this code owns ``dy``: a
  tangent that may be shared (a caller's, a broadcast view) is copied first,
  once.
* A call to the user's own function calls its forward function
  ``f_jvp(args..., d<param>=...) -> (out, dout)``, generated recursively.
* A rule with no forward template for an argument that has a tangent is a
  NonDifferentiableError naming the function and the line; never a zero.
"""
import copy
import types
import inspect
import math

import gast
import numpy as np

from .. import syntax as A
from .. import codegen, dynamic, pipeline
from ..source import local_imports
from ... import runtime
from ..analysis.activity import Analysis, closure_parts
from ...errors import NonDifferentiableError
from ..source import unwrap
from .body import callee_kinds, check_aliases, setitem_targets, temporaries
from .templates import LineComments, Qualify, as_node, template
from ...rules import namespace as ad_namespace
from ..cache import BuildCache, cached_build, code_key
from ..analysis.kinds import infer_kinds
from ..frontend import RecursiveBuild, declare_cells, front_end, recursion_error, refuse_cells
from ..optimize.dce import dead_code

_CACHE = BuildCache()

_ANS = "__srcgrad_ans__"   # stands for the rule's result while a template is instantiated
_STRUCTURED_SUMS = tuple(f for f in (getattr(runtime, "add_grads", None),
                                     getattr(runtime, "add_at", None)) if f is not None)


class _State:
    """What is known about tangents at one point of the generated code."""

    def __init__(self, defined, owned, bound):
        self.defined = set(defined)   # active names whose tangent variable may hold a value
        self.owned = set(owned)       # ... whose tangent this code created (may write into it)
        self.bound = set(bound)       # names that certainly hold a value here

    def copy(self):
        return _State(self.defined, self.owned, self.bound)


class Forward(LineComments):
    def __init__(self, body, params, wrt, info, names, kinds, callee_factory):
        self.body = body
        self.params = params
        self.wrt = list(wrt)
        self.info = info
        self.names = names
        self.kinds = kinds                 # name -> "float" | "num" | "container" ...
        self.callee_factory = callee_factory
        local_defs = [s.name for s in body if isinstance(s, gast.FunctionDef)]
        self.an = Analysis(body, params, wrt, info, local_defs, kinds)
        self.callees = {}                  # generated name -> function object
        self.copy_params = [p for p in params if p in setitem_targets(body, info.func)]
        self.last_comment = None
        check_aliases(body, info, kinds if any(p in kinds for p in params) else None,
                      params)

    # -- entry ---------------------------------------------------------------
    def run(self):
        """(statements, result expression, tangent-of-result expression)."""
        ret = self.body[-1]
        assert isinstance(ret, gast.Return)
        st = _State(self.wrt, (), self.params)
        out = self.block(self.body[:-1], st)
        result = ret.value
        return out, result, self.tangent_or_zero(result, st)

    # -- tangents of atoms ---------------------------------------------------
    def d(self, n):
        return self.names.d(n)

    def has_tangent(self, n, st):
        return self.an.active(n) and n in st.defined

    def tangent_of(self, node, st):
        """The tangent of an argument (a name, or a tuple of them), or None if zero."""
        if isinstance(node, gast.Name):
            return A.name(self.d(node.id)) if self.has_tangent(node.id, st) else None
        if isinstance(node, (tuple, list, gast.Tuple, gast.List)):
            elts = node.elts if isinstance(node, (gast.Tuple, gast.List)) else node
            parts = [self.tangent_of(e, st) for e in elts]
            if all(p is None for p in parts):
                return None
            parts = [A.const(None) if p is None else p for p in parts]
            if isinstance(node, (list, gast.List)):
                return gast.List(elts=parts, ctx=gast.Load())
            return A.tuple_(parts)
        return None

    def zero(self, node):
        """A zero tangent for the value of ``node``."""
        if isinstance(node, gast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            return A.const(0.0)
        return A.call(A.attr(self.names.ad, "zeros_like"), [copy.deepcopy(node)])

    def tangent_or_zero(self, node, st):
        t = self.tangent_of(node, st) if isinstance(node, gast.Name) else None
        return t if t is not None else self.zero(node)

    # -- statements ----------------------------------------------------------
    def block(self, stmts, st):
        out = []
        for s in stmts:
            out.extend(self.stmt(s, st))
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
                st.bound.add(s.targets[0].id)
        return out

    def stmt(self, s, st):
        if isinstance(s, gast.Assign):
            if isinstance(s.targets[0], gast.Name):
                return self.assign(s, st)
            return self.setitem(s, st)
        if isinstance(s, gast.Expr):
            op = getattr(s, "srcgrad_op", None)
            if op is not None and op.kind == "append":
                return self.append(s, st)
            if op is not None and op.kind == "restore":
                return self.restore(s, st)
            return [s]
        if isinstance(s, gast.If):
            return self.if_(s, st)
        if isinstance(s, (gast.For, gast.While)):
            return self.loop(s, st)
        if isinstance(s, gast.FunctionDef):
            return self.def_(s, st)
        return [s]  # pass, break, assert, raise: as written

    def def_(self, s, st):
        """A nested def that holds values with tangents: its tangent is the dict of them,
        by parameter (a default) or free name (compiler/dynamic.py reads it)."""
        parts = [(key, n) for key, n in closure_parts(s) if self.has_tangent(n, st)]
        if not (self.an.active(s.name) and parts):
            st.defined.discard(s.name)
            return [s]
        st.defined.add(s.name)
        st.owned.discard(s.name)
        tangent = gast.Dict(keys=[A.const(k) for k, _ in parts],
                            values=[A.name(self.d(n)) for _, n in parts])
        return [s, A.assign(self.d(s.name), tangent)]

    def assign(self, s, st):
        y = s.targets[0].id
        op = s.srcgrad_op
        if op.kind == "pop":
            return self.pop(s, st)
        if not self.an.active(y):
            return [s]
        if op.kind == "call":
            return self.call(s, st)
        tangent = self.tangent_expr(s, op, st)
        out = self.comment(s)
        dy = self.d(y)
        if tangent is None:
            out += [s, A.assign(dy, self.zero(A.name(y)))]
            st.defined.add(y)
            st.owned.add(y)
            return out
        reads = A.names_read(tangent)
        if y in reads and _ANS in reads:
            # the template needs both the argument y and the result: keep the argument
            old = self.names.gen.fresh(y + "_in")
            out += [A.assign(old, A.name(y)), s,
                    A.assign(dy, A.substitute(tangent, {y: old, _ANS: y}))]
        elif y in reads:
            # ``x = np.sin(x)``: the tangent reads the old x, so it comes first
            out += [A.assign(dy, tangent), s]
        else:
            out += [s, A.assign(dy, A.substitute(tangent, {_ANS: y}))]
        st.defined.add(y)
        if isinstance(tangent, (gast.BinOp, gast.UnaryOp)):
            st.owned.add(y)       # arithmetic made a new array
        else:
            st.owned.discard(y)   # maybe a view of (or the same object as) another tangent
            # ... so that other tangent must not be written in place either: after
            # ``dr = dY[0]``, ``dY[0] = t`` would change dr (which a reverse sweep
            # being differentiated reads again, after restoring Y[0])
            srcs = op.diff_names() if op.kind == "rule" else \
                [(None, n) for n in getattr(op, "names", ())]
            for _, n in srcs:
                st.owned.discard(n)
        return out

    def tangent_expr(self, s, op, st):
        """The tangent of the right-hand side (``_ANS`` for its value), or None for zero."""
        v = s.value
        if op.kind == "rule":
            return self.rule_tangent(s, op, st)
        if op.kind == "copy":
            t = self.tangent_of(A.name(op.names[0]), st) if op.names else None
            if t is None:
                return None
            if isinstance(v, gast.Call) and not getattr(op, "identity", False):
                # list(x) / tuple(x): a new container (super(): the object itself)
                return gast.Call(func=copy.deepcopy(v.func), args=[t], keywords=[])
            return t
        if op.kind == "literal":
            if isinstance(v, (gast.List, gast.Dict)) and not (v.keys if isinstance(
                    v, gast.Dict) else v.elts):
                return copy.deepcopy(v)        # [] / {}: the tangent starts empty too
            if not any(self.has_tangent(n, st) for n in op.names):
                return None
            if isinstance(v, (gast.Tuple, gast.List)):
                return type(v)(elts=[self.tangent_or_zero(e, st) for e in v.elts],
                               ctx=gast.Load())
            if isinstance(v, gast.Dict):
                return gast.Dict(keys=[copy.deepcopy(k) for k in v.keys],
                                 values=[self.tangent_or_zero(e, st) for e in v.values])
            if isinstance(v, gast.Call):   # dict(a=x), list(), tuple()
                return gast.Call(func=copy.deepcopy(v.func),
                                 args=[self.tangent_or_zero(a, st) for a in v.args],
                                 keywords=[gast.keyword(arg=k.arg,
                                                        value=self.tangent_or_zero(k.value, st))
                                           for k in v.keywords])
            raise AssertionError(f"unexpected literal {A.unparse(v)}")
        if op.kind == "unknown":
            if any(self.has_tangent(n, st) for n in op.names):
                raise self.an.nondiff(s, op)
            return None
        return None   # nograd, const

    def rule_tangent(self, s, op, st):
        rule = op.rule
        terms = []
        for p in rule.diff_params:
            if p not in op.args:
                continue
            dp = self.tangent_of(op.args[p], st)
            if dp is None:
                continue
            src = rule.jvp.get(p)
            if src is None:
                raise NonDifferentiableError(
                    f"{rule.name} has no forward-mode derivative for its argument {p!r} "
                    f"({self.info.where(s)}: {(self.info.line(s.lineno) or '').strip()}); "
                    f"register one with @sg.tangent({rule.name.split('.')[-1]})")
            mapping = {q: as_node(a) for q, a in op.args.items()}
            mapping["ans"] = A.name(_ANS)
            mapping["d" + p] = dp
            tree = Qualify(mapping, self.names.helper_names, self.names).qualify(
                template(src))
            terms.append(tree)
        if not terms:
            return None
        if (getattr(rule.func, "__module__", "") or "").startswith("srcgrad."):
            # a runtime helper's ``zeros_like(ans)`` term (its container argument is
            # structure, no tangent) adds nothing; with a list tangent
            # (``seq_sum_grad(dt, lst) + zeros_like(dlst)``), ``+`` concatenated lists
            nonzero = [t for t in terms if not (
                isinstance(t, gast.Call) and isinstance(t.func, gast.Attribute) and
                t.func.attr == "zeros_like" and isinstance(t.func.value, gast.Name) and
                t.func.value.id == self.names.ad)]
            terms = nonzero or terms[:1]
        if self.expand_is_noop(op, st):
            terms = [self.strip_expand(t) for t in terms]
        terms = [_Fold().visit(t) for t in terms]
        total = terms[0]
        # a runtime helper may return a tuple or list of gradients (``einsum_grad``,
        # ``seq_sum_grad``): its tangent terms add item by item (``+`` concatenated)
        helper = (getattr(rule.func, "__module__", "") or "").startswith("srcgrad.")
        for t in terms[1:]:
            if rule.func in _STRUCTURED_SUMS or helper or rule.facets.container or \
                    rule.facets.tuple_by is not None:       # (tuples add item by item)
                total = A.call(A.attr(self.names.ad, "add_grads"), [total, t])
            elif isinstance(t, gast.UnaryOp) and isinstance(t.op, gast.USub):
                total = gast.BinOp(left=total, op=gast.Sub(), right=t.operand)  # a - b
            else:
                total = gast.BinOp(left=total, op=gast.Add(), right=t)
        return total

    def is_scalar(self, node):
        if isinstance(node, gast.Constant):
            return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        return isinstance(node, gast.Name) and self.kinds.get(node.id) == "float"

    def expand_is_noop(self, op, st):
        """``expand(t, ans)`` is ``t`` for an elementwise rule when every operand that
        could be an array has a tangent: the sum of the terms has ``ans``'s shape."""
        f = op.rule.func
        if not (isinstance(f, np.ufunc) or getattr(f, "__module__", None) in
                ("_operator", "operator")):
            return False
        for q in op.rule.diff_params:
            a = op.args.get(q)
            if not isinstance(a, gast.AST):
                continue
            if self.tangent_of(a, st) is None and not self.is_scalar(a):
                return False
        return True

    def strip_expand(self, t):
        if isinstance(t, gast.Call) and isinstance(t.func, gast.Attribute) and \
                t.func.attr == "expand" and isinstance(t.func.value, gast.Name) and \
                t.func.value.id == self.names.ad:
            return t.args[0]
        return t

    def call(self, s, st):
        """``y = f(a, b)`` with f the user's function: ``y, dy = f_jvp(a, b, da=...)``."""
        y = s.targets[0].id
        op = s.srcgrad_op
        pos, kws = op.callee_args
        self.refuse_varied_functions(s, pos, kws)
        if getattr(op, "dynamic", None) is not None:
            return self.dynamic_call(s, st, y, op, pos, kws)
        try:
            sig = inspect.signature(op.func, follow_wrapped=False)
            bound = sig.bind(*pos, **dict(kws))
        except TypeError as e:
            raise self.info.error(s, f"cannot bind the call to {op.func.__name__}: {e}")
        wrt, tangents = [], {}
        for p, a in bound.arguments.items():
            kind = sig.parameters[p].kind
            if kind in (kind.VAR_POSITIONAL, kind.VAR_KEYWORD):
                # ``*args`` / ``**kwargs``: Python packs the call's atoms into a tuple /
                # dict; its tangent is the tuple / dict of their tangents (zeros for items
                # without one)
                items = list(a.values()) if isinstance(a, dict) else list(a)
                if any(isinstance(x, gast.Name) and self.has_tangent(x.id, st) for x in items):
                    wrt.append(p)
                    parts = [self.tangent_or_zero(x, st) for x in items]
                    tangents[p] = gast.Dict(keys=[A.const(k) for k in a], values=parts) \
                        if isinstance(a, dict) else A.tuple_(parts)
            elif isinstance(a, gast.Name) and self.has_tangent(a.id, st):
                wrt.append(p)
                tangents[p] = A.name(self.d(a.id))
        out = self.comment(s)
        dy = self.d(y)
        st.defined.add(y)
        st.owned.discard(y)
        if not wrt:
            return out + [s, A.assign(dy, self.zero(A.name(y)))]
        try:
            fn = self.callee_factory(op.func, tuple(wrt), s, callee_kinds(bound, self.kinds))
        except RecursiveBuild:
            # recursion: the tangent code is being built; resolved when the call runs
            op.dynamic = copy.deepcopy(s.value.func)
            return self.dynamic_call(s, st, y, op, pos, kws)
        if isinstance(op.func, types.MethodType):
            # Cls.from_vector(theta), layer.apply(x): the same object as its first argument
            fn = types.MethodType(fn, op.func.__self__)
        fname = self.names.gen.fresh(op.func.__name__ + "_jvp")
        self.callees[fname] = fn
        keywords = [gast.keyword(arg=k, value=v) for k, v in kws]
        keywords += [gast.keyword(arg=fn.tangent_params[p], value=tangents[p]) for p in wrt]
        value = gast.Call(func=A.name(fname), args=list(pos), keywords=keywords)
        target = A.tuple_([A.store(y), A.store(dy)], gast.Store())
        return out + [A.assign(target, value, like=s)]

    def refuse_varied_functions(self, s, pos, kws):
        """A function value passed on that holds a value with a tangent (a nested def
        or lambda over one) gets its tangent (``def_``); what is left to refuse is one
        that holds tangents it has no name for (none: kept for nested defs the lowering
        could not name)."""
        varied_defs = {d.name for d in self.an.defs if d.name in self.an.varied and
                       not closure_parts(d)}
        for a in list(pos) + [v for _, v in kws]:
            a = a.value if isinstance(a, gast.Starred) else a
            if isinstance(a, gast.Name) and a.id in varied_defs:
                raise NonDifferentiableError(
                    f"{a.id} is a function built from values that depend on the "
                    f"differentiated inputs, passed to another function (at "
                    f"{self.info.filename}, line {s.lineno}: "
                    f"{(self.info.line(s.lineno) or '').strip()}). srcgrad cannot follow a "
                    f"gradient into what a function value holds: pass those values to it "
                    f"as arguments.")

    def dynamic_call(self, s, st, y, op, pos, kws):
        """``y = f(a, b)`` with f known only at run time (compiler/dynamic.py):
        ``y, dy = call_jvp(f, wrt, site, (da,), a, b)``."""
        starred = getattr(op, "starred", False)
        pieces = [a.value if isinstance(a, gast.Starred) else a for a in pos]
        wrt, tangents = [], []
        keyed = list(enumerate(pieces + [v for _, v in kws])) if starred else \
            list(enumerate(pos)) + list(kws)
        for key, a in keyed:
            if isinstance(a, gast.Name) and self.has_tangent(a.id, st):
                wrt.append(key)
                tangents.append(A.name(self.d(a.id)))
        receiver = op.receiver if getattr(op, "callee_grad", False) else None
        if receiver is not None and self.has_tangent(receiver, st):
            # ``layer.forward(x)``: ``None`` gives the callee (its object) a tangent
            wrt.insert(0, None)
            tangents.insert(0, A.name(self.d(receiver)))
        out = self.comment(s)
        dy = self.d(y)
        st.defined.add(y)
        st.owned.discard(y)
        if not wrt:
            return out + [s, A.assign(dy, self.zero(A.name(y)))]
        runner = dynamic.call_jvp_star if starred else dynamic.call_jvp
        fname = None
        for name, obj in self.callees.items():
            if obj is runner:
                fname = name
        if fname is None:
            fname = self.names.gen.fresh(runner.__name__)
            self.callees[fname] = runner
        site = dynamic.site(self.info.filename, s.lineno)
        if starred:
            stars = [i for i, a in enumerate(pos) if isinstance(a, gast.Starred)]
            kw_pieces = A.tuple_([A.tuple_([A.const(k), copy.deepcopy(v)]) for k, v in kws])
            value = A.call(A.name(fname), [
                copy.deepcopy(op.dynamic), A.tuple_([A.const(w) for w in wrt]), A.const(site),
                A.tuple_(tangents), A.tuple_([A.const(i) for i in stars]),
                A.tuple_([copy.deepcopy(p) for p in pieces]), kw_pieces])
            target = A.tuple_([A.store(y), A.store(dy)], gast.Store())
            return out + [A.assign(target, value, like=s)]
        value = gast.Call(func=A.name(fname),
                          args=[copy.deepcopy(op.dynamic), A.tuple_([A.const(w) for w in wrt]),
                                A.const(site), A.tuple_(tangents)] + list(pos),
                          keywords=[gast.keyword(arg=k, value=v) for k, v in kws])
        target = A.tuple_([A.store(y), A.store(dy)], gast.Store())
        return out + [A.assign(target, value, like=s)]

    def pop(self, s, st):
        """``y = lst.pop()``: the tangent list gives up its last item too."""
        y = s.targets[0].id
        lst = s.srcgrad_op.names[0]
        out = [s]
        popped = A.call(A.attr(self.d(lst), "pop"))
        if self.has_tangent(lst, st):
            if self.an.active(y):
                out = self.comment(s) + out + [A.assign(self.d(y), popped)]
            else:
                out.append(A.expr_stmt(popped))
        elif self.an.active(y):
            out = self.comment(s) + out + [A.assign(self.d(y), self.zero(A.name(y)))]
        if self.an.active(y):
            st.defined.add(y)
            st.owned.discard(y)
        return out

    def append(self, s, st):
        lst = s.srcgrad_op.target
        if not self.an.active(lst):
            return [s]
        out = self.comment(s)
        if lst not in st.defined:
            out.append(A.assign(self.d(lst), self.zero(A.name(lst))))
            st.defined.add(lst)
        elif lst not in st.owned and lst in self.params:
            # a list parameter's tangent is the caller's (a list or a tuple): ours first
            out.append(A.assign(self.d(lst), A.call(A.attr(self.names.ad, "as_list"),
                                                    [A.name(self.d(lst))])))
            st.owned.add(lst)
        item = s.value.args[0]
        t = self.tangent_of(item, st) if isinstance(item, gast.Name) else None
        if t is None:   # (a record of loop steps is a range: its zeros can be indexed)
            t = A.call(A.attr(self.names.ad, "zeros_tangent"), [copy.deepcopy(item)])
        out += [s, A.expr_stmt(A.call(A.attr(self.d(lst), "append"), [t]))]
        return out

    def setitem(self, s, st):
        t = s.targets[0]
        y = t.value.id
        if not self.an.active(y):
            return [s]
        out = self.comment(s) + self.own(y, st)
        dy = self.d(y)
        sub = gast.Subscript(value=A.name(dy), slice=copy.deepcopy(t.slice), ctx=gast.Store())
        out += [s, A.assign(sub, self.tangent_or_zero(s.value, st))]
        return out

    def restore(self, s, st):
        """``ad.restore_item(x, key, old)`` (generated code undoing ``x[key] = v``): the
        same on the tangent, ``ad.restore_item(dx, key, dold)``."""
        x = s.srcgrad_op.target
        if not self.an.active(x):
            return [s]
        out = self.comment(s) + self.own(x, st)
        _, key, old = s.value.args
        call = A.call(A.attr(self.names.ad, "restore_item"),
                      [A.name(self.d(x)), copy.deepcopy(key), self.tangent_or_zero(old, st)])
        return out + [s, A.expr_stmt(call)]

    def own(self, y, st):
        """Statements that make ``dy`` a tangent this code may write into."""
        dy = self.d(y)
        if y not in st.defined:
            st.defined.add(y)
            st.owned.add(y)
            return [A.assign(dy, self.zero(A.name(y)))]
        if y not in st.owned:
            st.owned.add(y)
            return [A.assign(dy, A.call(A.attr(self.names.ad, "copy"), [A.name(dy)]))]
        return []

    # -- control flow ----------------------------------------------------------
    def merge_into(self, branch_st, other_st, out):
        """Zeros for tangents the other branch defines and this one does not."""
        for n in sorted(other_st.defined - branch_st.defined):
            if n in branch_st.bound:
                out.append(A.assign(self.d(n), self.zero(A.name(n))))
                branch_st.defined.add(n)
                branch_st.owned.add(n)

    def if_(self, s, st):
        self.last_comment = None
        st_t, st_f = st.copy(), st.copy()
        body = self.block(s.body, st_t)
        orelse = self.block(s.orelse, st_f)
        self.merge_into(st_t, st_f, body)
        self.merge_into(st_f, st_t, orelse)
        st.defined = st_t.defined | st_f.defined
        st.owned = st_t.owned & st_f.owned
        st.bound = st_t.bound & st_f.bound
        self.last_comment = None
        new = gast.If(test=s.test, body=body or [gast.Pass()], orelse=orelse)
        return [A.copy_loc(new, s)]

    def loop(self, s, st):
        self.last_comment = None
        assigned = A.names_stored(s.body)
        if isinstance(s, gast.For):
            assigned |= A.names_stored(s.target)
        updated = set()       # names changed in place: y[i] = v, lst.append(v)
        for n in gast.walk(gast.Module(body=s.body, type_ignores=[])):
            if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Subscript):
                updated.add(n.targets[0].value.id)
            elif isinstance(n, gast.Expr) and getattr(n, "srcgrad_op", None) is not None \
                    and n.srcgrad_op.kind in ("append", "restore"):
                updated.add(n.srcgrad_op.target)
        active = {n for n in assigned | updated if self.an.active(n)}
        pre = []
        # a tangent the body reads before it writes it must exist before the loop
        for n in sorted(active - st.defined):
            if n in st.bound:
                pre.append(A.assign(self.d(n), self.zero(A.name(n))))
                st.defined.add(n)
                st.owned.add(n)
        # arrays only written into by the body: make their tangents ours once, here
        for n in sorted((updated - assigned) & active):
            if n in st.defined and n not in st.owned:
                pre.append(A.assign(self.d(n), A.call(A.attr(self.names.ad, "copy"),
                                                      [A.name(self.d(n))])))
                st.owned.add(n)
        head = st.copy()
        head.defined |= active
        head.owned -= assigned
        inner = head.copy()
        body = self.block(s.body, inner)
        st.defined = head.defined | inner.defined
        st.owned = head.owned & inner.owned
        self.last_comment = None
        if isinstance(s, gast.For):
            new = gast.For(target=s.target, iter=s.iter, body=body or [gast.Pass()], orelse=[],
                           type_comment=None)
        else:
            new = gast.While(test=s.test, body=body or [gast.Pass()], orelse=[])
        return pre + [A.copy_loc(new, s)]


class _Fold(gast.NodeTransformer):
    """Arithmetic on constants in an instantiated template: ``x ** (2 - 1)`` is ``x``.

    Only folds that keep values, shapes and dtypes: numbers combined with numbers,
    ``e ** 1``, ``e * 1`` and ``1 * e`` (``e`` is an array expression already)."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        left, right = node.left, node.right
        if _number(left) and _number(right):
            op = _FOLDABLE.get(type(node.op))
            if op is not None:
                try:
                    return A.const(op(left.value, right.value))
                except (ArithmeticError, ValueError):
                    return node
        if isinstance(node.op, gast.Pow) and _number(right) and right.value == 1:
            return left
        if isinstance(node.op, gast.Mult) and _number(right) and right.value == 1 \
                and not _number(left):
            return left
        if isinstance(node.op, gast.Mult) and _number(left) and left.value == 1 \
                and not _number(right):
            return right
        return node


def _number(node):
    return isinstance(node, gast.Constant) and type(node.value) in (int, float)


_FOLDABLE = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
             gast.Mult: lambda a, b: a * b}


# -- the driver ----------------------------------------------------------------

def forward_function(func, wrt, kinds=None, tangent_only=False):
    """The generated forward-mode function of ``func`` for tangents of ``wrt``.

    ``fn(*args, **{fn.tangent_params[w]: tangent of w}) -> (value, tangent)``;
    cached per (function, wrt, argument kinds).  With ``tangent_only`` the value
    is None and the code that only computes it is dropped (an HVP needs only
    the tangent of the gradient, not the gradient).
    """
    func = unwrap(func)
    kinds = kinds or {}
    key = (code_key(func), tuple(wrt), tuple(sorted(kinds.items())), tangent_only)
    return cached_build(_CACHE, key, func, lambda: _build(func, tuple(wrt), kinds, tangent_only),
                        lambda: recursion_error(func))


def _callee_factory(func, wrt, stmt, kinds=None):
    return refuse_cells(forward_function(func, wrt, kinds))


dynamic.use("forward", lambda *a, **k: refuse_cells(forward_function(*a, **k)))    # callees resolved at run time


def _display(func, info):
    """How generated docstrings name a function (generated code by its own name)."""
    name = func.__qualname__
    if "__srcgrad_factory__" in name:
        name = func.__name__
    return f"{name} ({info.filename.rsplit('/', 1)[-1]}:{info.first_line})"


def _build(func, wrt, kinds, tangent_only=False):
    front = front_end(func, wrt, kinds)
    fdef, info, params, names, body = front.fdef, front.info, front.params, front.names, front.body
    tangent_params = [names.d(w) for w in wrt]     # dx for x, before any other name
    fwd = Forward(body, params, wrt, info, names, infer_kinds(body, kinds), _callee_factory)
    stmts, result, tangent = fwd.run()
    pipeline.after("forward", func, stmts, fdef)

    ad = names.ad
    prologue = [A.assign(p, A.call(A.attr(ad, "copy"), [A.name(p)])) for p in fwd.copy_params]
    if names.np in A.names_read(stmts):     # the backend seam (as in driver._assemble)
        prologue.append(A.assign(names.np, A.call(A.attr(ad, "array_ns"),
                                                  [A.name(p) for p in params])))
    value = A.const(None) if tangent_only else copy.deepcopy(result)
    ret = gast.Return(value=A.tuple_([value, tangent]))
    out = dead_code(prologue + stmts + [ret])
    wrt_text = ", ".join(wrt) if wrt else "nothing"
    doc = (f"Forward mode (JVP) of {_display(func, info)}: its value and its tangent, "
           f"given the tangents {', '.join(tangent_params) or 'none'} of {wrt_text}.")
    name = f"jvp_{fdef.name}"
    newdef = A.funcdef(fdef, name, [gast.Expr(value=A.const(doc))] + out)
    a = newdef.args
    a.kwonlyargs = list(a.kwonlyargs) + [A.name(t, gast.Param()) for t in tangent_params]
    a.kw_defaults = list(a.kw_defaults) + [None] * len(tangent_params)

    closure = {ad: ad_namespace(), names.np: np, names.math: math}
    closure.update(codegen.default_values(fdef, func))
    closure.update(local_imports(func))     # imports inside the function
    closure.update(fwd.callees)
    code = func.__code__
    if func.__closure__:
        for n, cell in zip(code.co_freevars, func.__closure__):
            try:
                closure.setdefault(n, cell.cell_contents)
            except ValueError:
                pass
    declare_cells(newdef, front.cells)
    src = codegen.to_source(newdef)
    fn = codegen.build({name: src}, closure, func, f"jvp of {func.__qualname__}",
                       trees={name: newdef})[name]
    fn.__srcgrad_transformable__ = True
    fn.__srcgrad_cell_error__ = getattr(fdef, "srcgrad_cell_error", None)
    fn.__srcgrad_temps__ = temporaries(body) | getattr(func, "__srcgrad_temps__", frozenset())
    fn.__srcgrad_namespace__ = names.np         # (the name of its array namespace)
    fn.tangent_params = dict(zip(wrt, tangent_params))
    return fn
