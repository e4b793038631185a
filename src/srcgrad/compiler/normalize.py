"""Normalize a function body into the simple form the transformations expect.

Guarantees about the output (a list of gast statements):

* Every assignment has ONE target: a name, or a subscript ``name[index] = atom``.
  Tuple unpacking becomes ``a = t[0]``; augmented assignment ``x += y`` becomes
  ``x = x + y``; ``x[i] += v`` becomes a read, an add and a store.
* Right-hand sides are "primitive": one operator, call, attribute, subscript or
  literal whose operands are atoms (names or constants).  Conditions, indices and
  comparisons are kept whole: they never carry a gradient.
* ``a if c else b`` inside an expression becomes an ``if`` statement.
* Loops: ``for x in seq`` / ``enumerate`` / ``zip`` become ``for i in range(...)``
  with explicit indexing, so that the reverse sweep can run ``reversed(range)``.
* ``break``/``continue``/``return`` inside loops become flags; the only ``break``
  left is ``if flag: break`` as the last statement of a loop body, and the only
  ``return`` is the last statement of the function.
* ``with sg.no_grad():`` blocks are flattened; their statements are marked
  ``stmt.srcgrad_nograd = True``.
* Anything else raises :class:`UnsupportedSyntaxError` at the user's line.
"""
import builtins

import gast

from . import syntax as A
from .source import MISSING, resolve

UNSUPPORTED = {
    gast.Try: "try/except", gast.Raise: None, gast.ClassDef: "a class definition",
    gast.AsyncFunctionDef: "async def", gast.AsyncFor: "async for", gast.AsyncWith: "async with",
    gast.Global: "a global declaration", gast.Nonlocal: "a nonlocal declaration",
    gast.Delete: "del", gast.Import: "an import", gast.ImportFrom: "an import",
    gast.Yield: "yield", gast.YieldFrom: "yield from", gast.Await: "await",
    gast.ListComp: "a list comprehension", gast.SetComp: "a set comprehension",
    gast.DictComp: "a dict comprehension", gast.GeneratorExp: "a generator expression",
    gast.Lambda: "a lambda", gast.NamedExpr: "an assignment expression (:=)",
    gast.Starred: "a starred expression",
}
if hasattr(gast, "Match"):
    UNSUPPORTED[gast.Match] = "a match statement"
if hasattr(gast, "TryStar"):
    UNSUPPORTED[gast.TryStar] = "try/except*"

ADVICE = {
    "try/except": "move the try/except outside the differentiated function",
    "a list comprehension": "write a for loop that appends to a list",
    "a generator expression": "write a for loop",
    "a lambda": "define a named function with def",
    "a global declaration": "return the value instead of writing a global",
    "yield": "return a list of values instead",
}

OP_NAMES = {"Add": "add", "Sub": "sub", "Mult": "mul", "Div": "div", "Pow": "pow",
            "MatMult": "matmul", "Mod": "mod", "FloorDiv": "floordiv", "USub": "neg",
            "UAdd": "pos", "Not": "not_", "Invert": "inv", "BitAnd": "and_", "BitOr": "or_",
            "BitXor": "xor", "LShift": "lshift", "RShift": "rshift"}


class Normalizer:
    def __init__(self, fdef, info, names, ad_name="ad", known_arrays=(), known_sequences=()):
        self.ad_name = ad_name              # how generated code names srcgrad.runtime
        self.known_arrays = set(known_arrays)  # parameters known to be arrays at this call
        # parameters known to be lists / tuples / dicts at this call
        self.known_sequences = set(known_sequences)
        self.fdef = fdef
        self.info = info
        self.func = info.func
        self.names = names           # NameGen
        self.locals = set(A.names_stored(fdef.body)) | {a.id for a in self._params(fdef)}
        self.loop_depth = 0
        self.ret_flag = None
        self.ret_name = None
        self._sequences = None       # names bound to a list or tuple somewhere (lazily)
        self._dicts = None           # names bound only to dicts (lazily)

    @staticmethod
    def _params(fdef):
        a = fdef.args
        out = list(a.posonlyargs) + list(a.args) + list(a.kwonlyargs)
        if a.vararg:
            out.append(a.vararg)
        if a.kwarg:
            out.append(a.kwarg)
        return out

    # -- entry ---------------------------------------------------------------
    def run(self):
        self.check(self.fdef.body)
        body = self.strip_docstring(self.fdef.body)
        body = self.lift_else(body)
        if self.needs_return_flag(body):
            self.ret_flag = self.names.fresh("returned")
            self.ret_name = self.names.fresh("result")
        elif body and not isinstance(body[-1], gast.Return) and any(
                isinstance(n, gast.Return) for n in gast.walk(body[-1])):
            # returns only in tail position inside if/else branches: each one assigns
            # the result, and the function ends with the single return the reverse
            # sweep expects (no flag needed)
            self.ret_name = self.names.fresh("result")
        out = self.block(body)
        if self.ret_flag:
            init = [A.assign(self.ret_flag, A.const(False)), A.assign(self.ret_name, A.const(None))]
            out = init + self.guard_after_jumps(out) + [gast.Return(value=A.name(self.ret_name))]
        elif self.ret_name:
            init = [] if self.always_returns(body) else [A.assign(self.ret_name, A.const(None))]
            out = init + out + [gast.Return(value=A.name(self.ret_name))]
        elif not out or not isinstance(out[-1], gast.Return):
            out.append(gast.Return(value=A.const(None)))
        return out

    def strip_docstring(self, body):
        if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant) \
                and isinstance(body[0].value.value, str):
            return body[1:]
        return body

    # -- what we refuse ------------------------------------------------------
    def check(self, body):
        for stmt in body:
            for node in A.walk(stmt):
                if isinstance(node, gast.FunctionDef) and node is not stmt:
                    continue
                kind = UNSUPPORTED.get(type(node), False)
                if kind is False:
                    continue
                if isinstance(node, gast.Raise):
                    continue  # raise is kept in the forward pass
                advice = ADVICE.get(kind, "rewrite it with the statements srcgrad supports (assignments, if/for/while, calls)")
                raise self.info.error(node, f"srcgrad does not support {kind} in a "
                                            f"differentiated function; {advice}")

    # -- early returns -------------------------------------------------------
    @staticmethod
    def always_returns(stmts):
        if not stmts:
            return False
        last = stmts[-1]
        if isinstance(last, (gast.Return, gast.Raise)):
            return True
        if isinstance(last, gast.If):
            return Normalizer.always_returns(last.body) and Normalizer.always_returns(last.orelse)
        return False

    def lift_else(self, stmts):
        """``if c: ...; return a`` followed by more code: move that code into ``else``."""
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, gast.If):
                s.body = self.lift_else(s.body)
                s.orelse = self.lift_else(s.orelse)
                rest = stmts[i + 1:]
                if rest and self.always_returns(s.body) and not s.orelse:
                    s.orelse = self.lift_else(rest)
                    out.append(s)
                    return out
                if rest and self.always_returns(s.orelse) and not self.always_returns(s.body):
                    s.body = self.lift_else(s.body + rest)
                    out.append(s)
                    return out
            elif isinstance(s, (gast.For, gast.While)):
                s.body = self.lift_else(s.body)
            out.append(s)
            if isinstance(s, gast.Return):
                return out  # the rest is unreachable
        return out

    def needs_return_flag(self, body):
        """Is any return not in tail position (so that a flag is needed)?"""
        def tail_ok(stmts):
            for i, s in enumerate(stmts):
                last = i == len(stmts) - 1
                if isinstance(s, gast.Return) and not last:
                    return False
                if isinstance(s, gast.If):
                    if not last and (has_return(s.body) or has_return(s.orelse)):
                        return False
                    if not (tail_ok(s.body) and tail_ok(s.orelse)):
                        return False
                elif isinstance(s, (gast.For, gast.While, gast.With)) and has_return(s.body):
                    return False
            return True

        def has_return(stmts):
            return any(isinstance(n, gast.Return) for s in stmts for n in gast.walk(s))
        return not tail_ok(body)

    # -- statements ----------------------------------------------------------
    def block(self, stmts, nograd=False):
        out = []
        for s in stmts:
            new = self.stmt(s)
            if nograd:
                for n in new:
                    mark_nograd(n)
            out.extend(new)
        return out

    def stmt(self, s):
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            raise self.info.error(s, f"srcgrad does not support the statement "
                                     f"{type(s).__name__} in a differentiated function")
        return method(s)

    def stmt_Pass(self, s):
        return []

    def stmt_Expr(self, s):
        if isinstance(s.value, gast.Constant):
            return []  # a stray string
        pre = []
        value = self.expr(s.value, pre, top=True)
        if _is_list_pop(value, self.locals):
            # ``lst.pop()`` reads the last item: keep it in a name, so that the
            # transformations can give it back (reverse) or pop its tangent (forward)
            return pre + [A.assign(self.names.fresh("popped"), value, like=s)]
        return pre + [A.expr_stmt(value, like=s)]

    def stmt_Assert(self, s):
        return [s]

    def stmt_Raise(self, s):
        return [s]

    def stmt_FunctionDef(self, s):
        """A nested def runs in the forward pass as written.  Its defaults are computed
        here, where Python computes them (``def h(t, k=c)`` reads c now, not when h is
        called): each one that is not a constant becomes a name the inlined calls read."""
        pre = []
        a = s.args
        positional = list(a.posonlyargs) + list(a.args)
        params = positional[len(positional) - len(a.defaults):]
        for i, (p, d) in enumerate(zip(params, a.defaults)):
            if not isinstance(d, gast.Constant):
                a.defaults[i] = self._default(s, p, d, pre)
        for i, (p, d) in enumerate(zip(a.kwonlyargs, a.kw_defaults)):
            if d is not None and not isinstance(d, gast.Constant):
                a.kw_defaults[i] = self._default(s, p, d, pre)
        return pre + [s]

    def _default(self, s, p, d, pre):
        tmp = self.names.fresh(f"{s.name}_{p.id}_default")
        value = self.expr(d, pre, top=True, base=tmp)
        pre.append(A.assign(tmp, value, like=s))
        self.locals.add(tmp)
        return A.name(tmp)

    def stmt_Return(self, s):
        if self.ret_name and not self.ret_flag:  # a tail return inside a branch (see run)
            value = s.value if s.value is not None else A.const(None)
            return self.stmt_Assign(A.copy_loc(gast.Assign(
                targets=[A.store(self.ret_name)], value=value, type_comment=None), s))
        pre = []
        value = self.atom(s.value, pre, "result") if s.value is not None else A.const(None)
        if self.ret_flag:
            return pre + [A.assign(self.ret_name, value, like=s),
                          A.assign(self.ret_flag, A.const(True), like=s),
                          _Jump("return", s)]
        ret = gast.Return(value=value)
        A.copy_loc(ret, s)
        return pre + [ret]

    def stmt_Assign(self, s):
        out = []
        if len(s.targets) > 1:  # a = b = expr
            pre = []
            value = self.atom(s.value, pre, _target_base(s.targets[0]))
            out.extend(pre)
            for t in s.targets:
                out.extend(self.assign_target(t, value, s))
            return out
        target = s.targets[0]
        pre = []
        if isinstance(target, gast.Name):
            value = self.expr(s.value, pre, top=True, base=target.id)
            if isinstance(value, gast.IfExp):
                return pre + self.ifexp_assign(target.id, value, s)
            return pre + [A.assign(A.store(target.id), value, like=s)]
        value = self.atom(s.value, pre, _target_base(target))
        return pre + self.assign_target(target, value, s)

    def assign_target(self, target, value, s):
        if isinstance(target, gast.Name):
            return [A.assign(A.store(target.id), value, like=s)]
        if isinstance(target, (gast.Tuple, gast.List)):
            out = []
            src = value
            if not isinstance(value, gast.Name):
                tmp = self.names.fresh("seq")
                out.append(A.assign(tmp, value, like=s))
                src = A.name(tmp)
            for i, elt in enumerate(target.elts):
                if isinstance(elt, gast.Starred):
                    raise self.info.error(elt, "srcgrad does not support starred unpacking; "
                                               "index the sequence instead")
                item = gast.Subscript(value=A.name(src.id), slice=A.const(i), ctx=gast.Load())
                if isinstance(elt, gast.Name):
                    out.append(A.assign(A.store(elt.id), item, like=s))
                else:
                    tmp = self.names.fresh("item")
                    out.append(A.assign(tmp, item, like=s))
                    out.extend(self.assign_target(elt, A.name(tmp), s))
            return out
        if isinstance(target, gast.Subscript):
            pre = []
            base = target.value
            if not isinstance(base, gast.Name):
                raise self._chained_store(target)
            index = self.index(target.slice, pre)
            if base.id in A.names_read(index):
                # ``y[y < 0] = v``: the index must be computed once, before ``y`` changes;
                # the reverse sweep re-reads it after the assignment
                tmp = self.names.fresh("index")
                pre.append(A.assign(tmp, A.slice_to_expr(index), like=s))
                index = A.name(tmp)
            sub = gast.Subscript(value=A.name(base.id), slice=index, ctx=gast.Store())
            node = gast.Assign(targets=[sub], value=value, type_comment=None)
            A.copy_loc(node, s)
            return pre + [node]
        if isinstance(target, gast.Attribute):
            raise self.info.error(target, "srcgrad does not support assigning to an attribute "
                                          f"(.{target.attr}) in a differentiated function; "
                                          "use a local variable or a dict")
        raise self.info.error(target, f"srcgrad does not support this assignment target "
                                      f"({type(target).__name__})")

    def _chained_store(self, target):
        # ``Y[0][1] = v`` / ``d["w"][0] = v`` write through the object ``Y[0]`` /
        # ``d["w"]`` (a view, or an array held by a container): as a temporary, its
        # change would be lost from the gradient (a silently wrong result)
        src = A.unparse_short(target)
        return self.info.error(target, f"srcgrad does not support assigning into "
                                       f"{src}: it "
                                       f"changes an array through a view or a container. "
                                       f"Index once (Y[0, 1] = v), or take the array out, "
                                       f"change it and store it back.")

    def stmt_AnnAssign(self, s):
        if s.value is None:
            return []
        return self.stmt_Assign(gast.Assign(targets=[s.target], value=s.value, type_comment=None,
                                            lineno=s.lineno, col_offset=s.col_offset))

    def stmt_AugAssign(self, s):
        t = s.target
        if isinstance(t, gast.Name):
            value = gast.BinOp(left=A.name(t.id), op=s.op, right=s.value)
            new = gast.Assign(targets=[A.store(t.id)], value=value, type_comment=None)
            A.copy_loc(new, s)
            out = self.stmt_Assign(new)
            # on an array, ``x += v`` changes x in place (every alias of x sees it):
            # reverse.py's alias check treats it like ``x[...] = x + v``
            for st in out:
                if isinstance(st, gast.Assign) and isinstance(st.targets[0], gast.Name) and \
                        st.targets[0].id == t.id:
                    st.srcgrad_inplace = True
            return out
        if isinstance(t, gast.Subscript):
            pre = []
            if not isinstance(t.value, gast.Name):
                raise self._chained_store(t)
            base = t.value
            index = self.index(t.slice, pre)
            if not _is_static_index(index):
                tmp = self.names.fresh("index")
                # a slice (``x[i:] += v``) is not an expression: ``slice(i, None, None)``
                pre.append(A.assign(tmp, A.slice_to_expr(index), like=s))
                index = A.name(tmp)
            read = gast.Subscript(value=A.name(base.id), slice=index, ctx=gast.Load())
            value = gast.BinOp(left=read, op=s.op, right=s.value)
            target = gast.Subscript(value=A.name(base.id), slice=_copy(index), ctx=gast.Store())
            new = gast.Assign(targets=[target], value=value, type_comment=None)
            A.copy_loc(new, s)
            out = pre + self.stmt_Assign(new)
            # ``d[k] += v`` changes the item in place when it is an array held by a list
            # or dict (its other names see it): the alias check is told which name reads it
            reads = [st.targets[0].id for st in out if isinstance(st, gast.Assign) and
                     isinstance(st.targets[0], gast.Name) and
                     isinstance(st.value, gast.Subscript) and
                     isinstance(st.value.value, gast.Name) and st.value.value.id == base.id]
            if reads and isinstance(out[-1], gast.Assign):
                out[-1].srcgrad_inplace_item = reads[-1]
            return out
        raise self.info.error(t, "srcgrad does not support this augmented assignment target")

    def ifexp_assign(self, target, node, s):
        pre_b, pre_o = [], []
        body_v = self.expr(node.body, pre_b, top=True, base=target)
        else_v = self.expr(node.orelse, pre_o, top=True, base=target)
        body = pre_b + [A.assign(target, body_v, like=s)]
        orelse = pre_o + [A.assign(target, else_v, like=s)]
        # nested conditional expressions
        body = [x for st in body for x in (self.ifexp_assign(target, st.value, s)
                if isinstance(st, gast.Assign) and isinstance(st.value, gast.IfExp) else [st])]
        orelse = [x for st in orelse for x in (self.ifexp_assign(target, st.value, s)
                  if isinstance(st, gast.Assign) and isinstance(st.value, gast.IfExp) else [st])]
        new = gast.If(test=node.test, body=body, orelse=orelse)
        A.copy_loc(new, s)
        return [new]

    def stmt_If(self, s):
        pre = []
        test = self.hoist_pops(s.test, pre, s)
        new = gast.If(test=test, body=self.block(s.body) or [gast.Pass()],
                      orelse=self.block(s.orelse))
        A.copy_loc(new, s)
        return pre + [new]

    def hoist_pops(self, e, pre, s):
        """``lst.pop()`` inside a condition or a loop header becomes a statement of its
        own (``popped = lst.pop()``), so that the pop is seen like any other (this is
        how generated code reads its record stack: ``if stack.pop():``)."""
        class Hoist(gast.NodeTransformer):
            def visit_Call(inner, node):
                inner.generic_visit(node)
                if _is_list_pop(node, self.locals):
                    tmp = self.names.fresh("popped")
                    pre.append(A.assign(tmp, node, like=s))
                    return A.name(tmp)
                return node
        return Hoist().visit(e)

    def stmt_With(self, s):
        if len(s.items) == 1 and self.is_nograd_ctx(s.items[0].context_expr) \
                and s.items[0].optional_vars is None:
            kind = self.is_nograd_ctx(s.items[0].context_expr)
            return self.block(s.body, nograd=(kind == "no_grad"))
        raise self.info.error(s, "srcgrad supports only 'with sg.no_grad():' (and enable_grad) "
                                 "inside a differentiated function; move other context "
                                 "managers outside it")

    def is_nograd_ctx(self, e):
        if isinstance(e, gast.Call) and not e.args:
            obj = resolve(e.func, self.func) if not self._is_local(e.func) else MISSING
            name = getattr(obj, "__name__", "")
            if name in ("no_grad", "enable_grad") and "srcgrad" in getattr(obj, "__module__", ""):
                return name
        return None

    def _is_local(self, e):
        while isinstance(e, gast.Attribute):
            e = e.value
        return isinstance(e, gast.Name) and e.id in self.locals

    # -- loops ---------------------------------------------------------------
    def stmt_While(self, s):
        if s.orelse:
            raise self.info.error(s, "srcgrad does not support 'while ... else'; use a flag")
        self.loop_depth += 1
        body, has_break = self.loop_body(s.body)
        self.loop_depth -= 1
        new = gast.While(test=s.test, body=body, orelse=[])
        A.copy_loc(new, s)
        return self.wrap_loop(new, has_break)

    def stmt_For(self, s):
        if s.orelse:
            raise self.info.error(s, "srcgrad does not support 'for ... else'; use a flag")
        hoisted = []
        s.iter = self.hoist_pops(s.iter, hoisted, s)
        pre, target, iter_, per_item = self.loop_header(s)
        # ``for row in x: ... x = ...``: Python iterates over the array the loop
        # started with; the per-item reads ``row = x[i]`` must not see the new x
        rebound = A.names_stored(s.body)
        seqs = {n.value.id for st in per_item for n in gast.walk(st)
                if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) and
                n.value.id in rebound}
        if seqs:
            mapping = {q: self.names.fresh("seq") for q in sorted(seqs)}
            pre = pre + [A.assign(new, A.name(old), like=s) for old, new in mapping.items()]
            for st in per_item:
                A.rename_loads(st, mapping)
        pre = hoisted + pre
        self.loop_depth += 1
        body, has_break = self.loop_body(per_item + s.body)
        self.loop_depth -= 1
        new = gast.For(target=A.store(target), iter=iter_, body=body, orelse=[],
                       type_comment=None)
        A.copy_loc(new, s)
        return pre + self.wrap_loop(new, has_break)

    def wrap_loop(self, loop, has_break):
        out = []
        if has_break:
            out.append(A.assign(has_break, A.const(False), like=loop))
        out.append(loop)
        return out

    def _enumerate_zip(self, s, it, pre):
        """``for i, (a, b) in enumerate(zip(xs, ys))``: index the zipped sequences
        together (zip itself is no value srcgrad can differentiate through)."""
        seqs = [self.atom(a, pre, "seq") for a in it.args[0].args]
        if "min" in self.locals or "len" in self.locals:
            raise self.info.error(s, "zip() in a loop needs the builtins min and len")
        start = it.args[1] if len(it.args) > 1 else None
        for k in it.keywords:
            if k.arg == "start":
                start = k.value
        idx = self.names.fresh("i")
        n = A.call(A.name("min"), [A.call(A.name("len"), [q]) for q in seqs])
        first = A.name(idx) if start is None else _offset(idx, start)
        tgt, per = s.target, []
        if isinstance(tgt, gast.Tuple) and len(tgt.elts) == 2:
            idx_t, val_t = tgt.elts
            per += self.assign_target(idx_t, first, s)
            if isinstance(val_t, gast.Tuple) and len(val_t.elts) == len(seqs):
                for t, q in zip(val_t.elts, seqs):
                    per += self.assign_target(t, _item(q, idx), s)
            else:
                per += self.assign_target(val_t, A.tuple_([_item(q, idx) for q in seqs]), s)
        else:
            per += self.assign_target(tgt, A.tuple_(
                [first, A.tuple_([_item(q, idx) for q in seqs])]), s)
        return pre, idx, A.call(A.name("range"), [n]), per

    def loop_header(self, s):
        """(pre-statements, index name, range expression, per-iteration statements)."""
        it = s.iter
        pre = []
        if isinstance(it, gast.Call) and not self._is_local(it.func):
            fn = resolve(it.func, self.func)
            if fn is builtins.range:
                if isinstance(s.target, gast.Name):
                    return [], s.target.id, it, []
            if fn is builtins.enumerate and len(it.args) >= 1 and _is_zip_call(it.args[0], self):
                return self._enumerate_zip(s, it, pre)
            if fn is builtins.enumerate and len(it.args) >= 1:
                seq = self.atom(it.args[0], pre, "seq")
                start = it.args[1] if len(it.args) > 1 else None
                for k in it.keywords:
                    if k.arg == "start":
                        start = k.value
                tgt = s.target
                if not (isinstance(tgt, gast.Tuple) and len(tgt.elts) == 2):
                    idx = self.names.fresh("i")
                    item = _tuple_item(idx, seq, start)
                    return pre, idx, _range_len(seq), self.assign_target(tgt, item, s)
                idx_t, val_t = tgt.elts
                if isinstance(idx_t, gast.Name) and start is None:
                    idx = idx_t.id
                    per = []
                else:
                    idx = self.names.fresh("i")
                    per = self.assign_target(idx_t, _offset(idx, start), s)
                per += self.assign_target(val_t, _item(seq, idx), s)
                return pre, idx, _range_len(seq), per
            if fn is builtins.zip and it.args and not it.keywords:
                seqs = [self.atom(a, pre, "seq") for a in it.args]
                idx = self.names.fresh("i")
                n = A.call(A.name("min"), [A.call(A.name("len"), [q]) for q in seqs]) \
                    if len(seqs) > 1 else A.call(A.name("len"), [seqs[0]])
                if "min" in self.locals or "len" in self.locals:
                    raise self.info.error(s, "zip() in a loop needs the builtins min and len")
                tgt = s.target
                if isinstance(tgt, gast.Tuple) and len(tgt.elts) == len(seqs):
                    per = []
                    for t, q in zip(tgt.elts, seqs):
                        per += self.assign_target(t, _item(q, idx), s)
                else:
                    tup = A.tuple_([_item(q, idx) for q in seqs])
                    per = self.assign_target(tgt, tup, s)
                return pre, idx, A.call(A.name("range"), [n]), per
        # a general iterable: index it
        if isinstance(it, gast.Call) and not self._is_local(it.func) and \
                resolve(it.func, self.func) is builtins.reversed and len(it.args) == 1:
            seq = self.atom(it.args[0], pre, "seq")
            idx = self.names.fresh("i")
            rng = gast.Subscript(value=_range_len(seq), slice=gast.Slice(
                lower=None, upper=None, step=A.const(-1)), ctx=gast.Load())
            return pre, idx, rng, self.assign_target(s.target, _item(seq, idx), s)
        # dict views: index the keys, read values through the dict (so gradients flow)
        if isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) and \
                it.func.attr in ("items", "values", "keys") and not it.args and \
                not it.keywords and self._is_local(it.func):
            d = self.atom(it.func.value, pre, "dict")
            keys = self.names.fresh("keys")
            pre.append(A.assign(keys, A.call(A.attr(self.ad_name, "keys_of"), [d]), like=s))
            idx = self.names.fresh("i")
            key = _item(A.name(keys), idx)
            value = gast.Subscript(value=A.name(d.id), slice=key, ctx=gast.Load())
            if it.func.attr == "keys":
                per = self.assign_target(s.target, key, s)
            elif it.func.attr == "values":
                per = self.assign_target(s.target, value, s)
            elif isinstance(s.target, gast.Tuple) and len(s.target.elts) == 2:
                k_t, v_t = s.target.elts
                per = self.assign_target(k_t, key, s)
                kname = k_t if isinstance(k_t, gast.Name) else None
                item = gast.Subscript(value=A.name(d.id), slice=A.name(kname.id) if kname
                                      else _item(A.name(keys), idx), ctx=gast.Load())
                per += self.assign_target(v_t, item, s)
            else:
                per = self.assign_target(s.target, A.tuple_([key, value]), s)
            return pre, idx, _range_len(A.name(keys)), per
        listed = isinstance(it, gast.Call) and not self._is_local(it.func) and \
            isinstance(it.func, (gast.Name, gast.Attribute)) and \
            resolve(it.func, self.func) in (builtins.list, builtins.tuple)
        if listed:
            # for v in list(...): that list, indexed (a name read in every iteration)
            tmp = self.names.fresh("items")
            pre.append(A.assign(tmp, self.expr(it, pre, top=True), like=s))
            seq = A.name(tmp)
        else:
            seq = self.atom(it, pre, "seq")
        if (isinstance(it, gast.Call) or isinstance(it, gast.Attribute)) and not listed:
            # other iterables: materialize once so they can be indexed
            tmp = self.names.fresh("items")
            pre.append(A.assign(tmp, A.call(A.attr(self.ad_name, "as_list"), [seq]), like=s))
            seq = A.name(tmp)
        elif isinstance(seq, gast.Name) and seq.id not in self.known_arrays and not listed:
            # a dict iterates over its keys, a list or an array over its items
            tmp = self.names.fresh("seq")
            pre.append(A.assign(tmp, A.call(A.attr(self.ad_name, "indexable"), [seq]), like=s))
            seq = A.name(tmp)
        idx = self.names.fresh("i")
        per = self.assign_target(s.target, _item(seq, idx), s)
        return pre, idx, _range_len(seq), per

    def loop_body(self, body):
        """Lower break/continue/return in a loop body; returns (body, break flag name)."""
        flags = {"break": None, "continue": None}
        lowered = self.lower_jumps(self.block(body), flags)
        out = []
        if flags["continue"]:
            out.append(A.assign(flags["continue"], A.const(False)))
        out.extend(lowered)
        brk = flags["break"]
        conds = [n for n in (brk, self.ret_flag if self._returns_in(lowered) else None) if n]
        if conds:
            test = A.name(conds[0]) if len(conds) == 1 else gast.BoolOp(
                op=gast.Or(), values=[A.name(c) for c in conds])
            out.append(gast.If(test=test, body=[gast.Break()], orelse=[]))
        return out or [gast.Pass()], brk

    def _returns_in(self, stmts):
        return self.ret_flag is not None and self.ret_flag in A.names_stored(stmts)

    def lower_jumps(self, stmts, flags):
        """Replace _Jump markers by flag assignments and guard what follows them."""
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, _Jump):
                if s.kind == "return":
                    return out  # flag already set by the return lowering
                if flags[s.kind] is None:
                    flags[s.kind] = self.names.fresh("stop" if s.kind == "break" else "skip")
                out.append(A.assign(flags[s.kind], A.const(True), like=s.node))
                return out
            if isinstance(s, gast.If):
                s.body = self.lower_jumps(s.body, flags) or [gast.Pass()]
                s.orelse = self.lower_jumps(s.orelse, flags)
            out.append(s)
            jumped = [f for f in (flags["break"], flags["continue"], self.ret_flag)
                      if f and f in A.names_stored([s])]
            if jumped and i + 1 < len(stmts):
                rest = self.lower_jumps(stmts[i + 1:], flags)
                if rest:
                    test = gast.UnaryOp(op=gast.Not(), operand=(
                        A.name(jumped[0]) if len(jumped) == 1 else
                        gast.BoolOp(op=gast.Or(), values=[A.name(f) for f in jumped])))
                    out.append(gast.If(test=test, body=rest, orelse=[]))
                return out
        return out

    def guard_after_jumps(self, stmts):
        """At function level: guard what follows a statement that may have returned."""
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, _Jump):
                return out
            if isinstance(s, gast.If):
                s.body = self.guard_after_jumps(s.body) or [gast.Pass()]
                s.orelse = self.guard_after_jumps(s.orelse)
            out.append(s)
            if self.ret_flag in A.names_stored([s]) and i + 1 < len(stmts):
                rest = self.guard_after_jumps(stmts[i + 1:])
                if rest:
                    test = gast.UnaryOp(op=gast.Not(), operand=A.name(self.ret_flag))
                    out.append(gast.If(test=test, body=rest, orelse=[]))
                return out
        return out

    def stmt_Break(self, s):
        return [_Jump("break", s)]

    def stmt_Continue(self, s):
        return [_Jump("continue", s)]

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
            return A.copy_loc(gast.BinOp(left=left, op=e.op, right=right), e)
        if isinstance(e, gast.UnaryOp):
            if isinstance(e.op, gast.Not):
                return e
            return A.copy_loc(gast.UnaryOp(op=e.op, operand=self.atom(e.operand, pre,
                                                                        _base_of(e.operand))), e)
        if isinstance(e, gast.Call):
            built = self.container_call(e, pre)
            if built is not None:
                return built
            func = e.func
            if isinstance(func, gast.Attribute) and func.attr in ("values", "items") and \
                    not e.args and not e.keywords and self._is_dict(func.value):
                # d.values() / d.items() of a dict: kernels with rules (a list, read again)
                d = self.atom(func.value, pre, "d")
                return A.copy_loc(A.call(A.attr(self.ad_name, func.attr + "_of"), [d]), e)
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
                    raise self.info.error(a, "srcgrad does not support *args in a call; "
                                             "pass the arguments one by one")
                args.append(self.arg(a, pre))
            kws = []
            for k in e.keywords:
                if k.arg is None:
                    raise self.info.error(e, "srcgrad does not support **kwargs in a call; "
                                             "pass the keywords one by one")
                kws.append(gast.keyword(arg=k.arg, value=self.arg(k.value, pre)))
            if isinstance(func, (gast.Name, gast.Attribute)) and not self._is_local(func):
                args, kws = self.array_arguments(func, args, kws, pre, e)
            return A.copy_loc(gast.Call(func=func, args=args, keywords=kws), e)
        if isinstance(e, gast.Attribute):
            if self.is_static(e):
                return e
            if e.attr == "data":
                # x.data: a Tensor's value without its history; an array's own value
                obj = self.atom(e.value, pre, _base_of(e.value))
                return A.copy_loc(A.call(A.attr(self.ad_name, "data_of"), [obj]), e)
            return A.copy_loc(gast.Attribute(value=self.atom(e.value, pre, _base_of(e.value)),
                                             attr=e.attr, ctx=gast.Load()), e)
        if isinstance(e, gast.Subscript):
            value = self.atom(e.value, pre, _base_of(e.value))
            return A.copy_loc(gast.Subscript(value=value, slice=self.index(e.slice, pre),
                                             ctx=gast.Load()), e)
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
        if self._is_local(e.func) or not isinstance(e.func, (gast.Name, gast.Attribute)):
            return None
        obj = resolve(e.func, self.func)
        if obj is builtins.zip and e.args and not e.keywords and \
                not any(isinstance(a, gast.Starred) for a in e.args):
            return A.copy_loc(A.call(A.attr(self.ad_name, "zipped"),
                                     [self.atom(a, pre, "seq") for a in e.args]), e)
        if obj in (builtins.list, builtins.tuple) and len(e.args) == 1 and not e.keywords \
                and not isinstance(e.args[0], gast.Starred):
            kernel = "as_list" if obj is builtins.list else "as_tuple"
            return A.copy_loc(A.call(A.attr(self.ad_name, kernel),
                                     [self.atom(e.args[0], pre, _base_of(e.args[0]))]), e)
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
            if _is_literal(seq):
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
        from .. import rules
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
            return not _is_literal(value)
        if isinstance(value, gast.Name):
            if self._sequences is None:
                self._sequences = _sequence_names(self.fdef.body) | self.known_sequences
            return value.id in self._sequences
        return False

    def _is_dict(self, value):
        """A dict display, ``dict(...)``, or a local name that every statement binding it
        binds to one (or a parameter this call passes a dict, list or tuple)."""
        if isinstance(value, (gast.Dict, gast.DictComp)):
            return True
        if isinstance(value, gast.Call) and not self._is_local(value.func) and \
                isinstance(value.func, (gast.Name, gast.Attribute)):
            return resolve(value.func, self.func) is builtins.dict
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
        if _is_literal(a):
            return a
        return self.atom(a, pre, _base_of(a))

    def index(self, s, pre):
        """Indices never carry gradient; only hoist parts that are arrays we might need."""
        return s


class _Jump(gast.stmt):
    """A placeholder for break/continue/return inside a loop, removed by lower_jumps."""
    _fields = ()

    def __init__(self, kind, node):
        super().__init__()
        self.kind = kind
        self.node = node
        A.copy_loc(self, node)


def _is_list_pop(e, local_names):
    """``lst.pop()`` (no argument) on a local name."""
    return isinstance(e, gast.Call) and isinstance(e.func, gast.Attribute) and \
        e.func.attr == "pop" and isinstance(e.func.value, gast.Name) and \
        e.func.value.id in local_names and not e.args and not e.keywords


def mark_nograd(node):
    for n in gast.walk(node):
        if isinstance(n, gast.stmt):
            n.srcgrad_nograd = True


# NumPy's names for parameters that take a sequence of arrays (np.concatenate's
# ``arrays``, np.vstack's ``tup``): a list there is not read as one array
def _is_numpy(obj):
    import numpy as np
    return isinstance(obj, np.ufunc) or \
        (getattr(obj, "__module__", None) or "").split(".")[0] == "numpy"


def _sequence_names(body):
    """Names that some assignment binds to a list or tuple display, or to list()/tuple()."""
    out = set()
    for n in gast.walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, gast.Assign):
            v = n.value
            seq = isinstance(v, (gast.List, gast.Tuple, gast.ListComp)) or (
                isinstance(v, gast.Call) and isinstance(v.func, gast.Name) and
                v.func.id in ("list", "tuple", "sorted"))
            if seq:
                out |= {t.id for t in n.targets if isinstance(t, gast.Name)}
    return out


def _dict_names(fdef, normalizer):
    """Names that every store in the function binds to a dict display or ``dict(...)``,
    and the parameters known to be containers at this call that nothing rebinds."""
    stores, dicts = {}, {}
    for n in gast.walk(gast.Module(body=fdef.body, type_ignores=[])):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, gast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], gast.Name) and not isinstance(n.value, gast.Name) \
                and normalizer._is_dict(n.value):
            dicts[n.targets[0].id] = dicts.get(n.targets[0].id, 0) + 1
    params = {a.id for a in normalizer._params(fdef)}
    return {k for k, c in dicts.items() if stores.get(k) == c and k not in params} | \
        {p for p in normalizer.known_sequences & params if p not in stores}


def _is_literal(e):
    if isinstance(e, gast.Constant):
        return True
    if isinstance(e, (gast.Tuple, gast.List)):
        return all(_is_literal(x) for x in e.elts)
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, (gast.USub, gast.UAdd)):
        return _is_literal(e.operand)
    return False


def _is_static_index(index):
    return all(isinstance(n, (gast.Constant, gast.Slice, gast.Tuple, gast.expr_context,
                              gast.UnaryOp, gast.unaryop))
               for n in gast.walk(index))


def _copy(node):
    import copy
    return copy.deepcopy(node)


def _base_of(e):
    """A readable base name for a temporary holding ``e``."""
    if isinstance(e, gast.Call):
        f = e.func
        if isinstance(f, gast.Attribute):
            return f.attr
        if isinstance(f, gast.Name):
            return f.id
    if isinstance(e, gast.BinOp):
        return OP_NAMES.get(type(e.op).__name__, "t")
    if isinstance(e, gast.UnaryOp):
        return OP_NAMES.get(type(e.op).__name__, "t")
    if isinstance(e, gast.Attribute):
        return e.attr
    if isinstance(e, gast.Subscript):
        return (e.value.id + "_i") if isinstance(e.value, gast.Name) else "item"
    if isinstance(e, (gast.Tuple, gast.List)):
        return "seq"
    if isinstance(e, gast.IfExp):
        return "choice"
    return "t"


def _target_base(t):
    if isinstance(t, gast.Name):
        return t.id
    return "value"


def _is_zip_call(node, normalizer):
    """Is ``node`` a call of the builtin zip (positional arguments only)?"""
    return isinstance(node, gast.Call) and not normalizer._is_local(node.func) and \
        bool(node.args) and not node.keywords and \
        resolve(node.func, normalizer.func) is builtins.zip


def _item(seq, idx):
    return gast.Subscript(value=A.name(seq.id) if isinstance(seq, gast.Name) else seq,
                          slice=A.name(idx), ctx=gast.Load())


def _range_len(seq):
    return A.call(A.name("range"), [A.call(A.name("len"), [A.name(seq.id) if isinstance(
        seq, gast.Name) else seq])])


def _offset(idx, start):
    return gast.BinOp(left=A.name(idx), op=gast.Add(), right=start)


def _tuple_item(idx, seq, start):
    first = A.name(idx) if start is None else _offset(idx, start)
    return A.tuple_([first, _item(seq, idx)])


def normalize(fdef, info, names, ad_name="ad", known_arrays=(), known_sequences=()):
    body = Normalizer(fdef, info, names, ad_name, known_arrays, known_sequences).run()
    body = inline_local_functions(body, info, names, A.names_stored(fdef.body) |
                                  {a.id for a in Normalizer._params(fdef)})
    return eliminate_common_subexpressions(body, info.func)


def inline_local_functions(body, info, names, outer_locals, defs=None, active=()):
    """``y = f(a)`` where ``f`` is a ``def`` inside the function: inline f's body.

    A closure reads the enclosing variables when it is called; the inlined body
    reads them at the call site, which is the same moment.  f's own names are
    renamed so they never meet the caller's.
    """
    defs = dict(defs or {})
    stored_twice = {}
    for s in body:
        for n in gast.walk(s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                stored_twice[n.id] = stored_twice.get(n.id, 0) + 1
    out = []
    for s in body:
        if isinstance(s, gast.FunctionDef):
            if stored_twice.get(s.name):
                defs.pop(s.name, None)     # rebound later: not a fixed function
            elif not any(isinstance(n, (gast.Nonlocal, gast.Global)) for n in gast.walk(s)):
                defs[s.name] = s
            out.append(s)
            continue
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block and not isinstance(s, gast.FunctionDef):
                setattr(s, field, inline_local_functions(block, info, names, outer_locals,
                                                         defs, active))
        v = s.value if isinstance(s, (gast.Assign, gast.Expr)) else None
        if isinstance(v, gast.Call) and isinstance(v.func, gast.Name) and v.func.id in defs:
            fdef = defs[v.func.id]
            if fdef.name in active:
                raise info.error(s, f"srcgrad cannot inline the recursive local function "
                                    f"{fdef.name}(); move it to module level and write the "
                                    f"recursion as a loop")
            target = s.targets[0] if isinstance(s, gast.Assign) else None
            out.extend(_inline_call(fdef, v, target, s, info, names, outer_locals, defs,
                                    active + (fdef.name,)))
            continue
        out.append(s)
    return out


def _inline_call(fdef, call, target, site, info, names, outer_locals, defs, active):
    import copy as _copy
    sub_def = _copy.deepcopy(fdef)
    sub = Normalizer(sub_def, info, names, ad_name=getattr(info, "ad_name", "ad"))
    sub.locals |= outer_locals
    inner = sub.run()
    params = [a.id for a in Normalizer._params(sub_def)]
    # the function's own name is the def's, unless a parameter shadows it (def kw(**kw))
    own = (A.names_stored(inner) - {fdef.name}) | set(params)
    mapping = {n: names.fresh(f"{fdef.name}_{n}") for n in sorted(own)}
    for st in inner:
        A.rename(st, mapping)
    binds = [A.assign(mapping[p], value, like=site)
             for p, value in _bind_arguments(sub_def, call, site, info)]
    ret = inner[-1]
    body = inline_local_functions(inner[:-1], info, names, outer_locals | own, defs, active)
    tail = []
    if target is not None:
        tail.append(A.assign(_copy.deepcopy(target), ret.value, like=site))
    return binds + body + tail


def _bind_arguments(fdef, call, site, info):
    """[(parameter, value expression)] for ``call`` of the local function ``fdef``, bound
    as Python binds them: positional arguments in order, the rest into ``*args`` (a
    tuple); keywords by name, the rest into ``**kwargs`` (a dict); then the defaults
    (names holding the values computed where the ``def`` ran, see stmt_FunctionDef)."""
    import copy as _copy
    a = fdef.args
    positional = list(a.posonlyargs) + list(a.args)
    name = fdef.name
    given, extra_pos, extra_kw = {}, [], []
    for p, v in zip(positional, call.args):
        given[p.id] = v
    extra_pos = list(call.args[len(positional):])
    if extra_pos and a.vararg is None:
        raise info.error(site, f"{name}() takes {len(positional)} positional arguments but "
                               f"{len(call.args)} were given")
    keyword_params = {p.id for p in list(a.args) + list(a.kwonlyargs)}
    for k in call.keywords:
        if k.arg in keyword_params:
            if k.arg in given:
                raise info.error(site, f"{name}() got multiple values for argument {k.arg!r}")
            given[k.arg] = k.value
        elif a.kwarg is not None:
            extra_kw.append(k)
        else:
            raise info.error(site, f"{name}() got an unexpected keyword argument {k.arg!r}")
    out = []
    defaults = list(a.defaults)
    first_default = len(positional) - len(defaults)
    for i, p in enumerate(positional):
        if p.id in given:
            value = given[p.id]
        elif i >= first_default:
            value = defaults[i - first_default]
        else:
            raise info.error(site, f"{name}() is missing the argument {p.id!r}")
        out.append((p.id, _copy.deepcopy(value)))
    if a.vararg is not None:
        out.append((a.vararg.id, A.tuple_([_copy.deepcopy(v) for v in extra_pos])))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        value = given.get(p.id, d)
        if value is None:
            raise info.error(site, f"{name}() is missing the keyword-only argument {p.id!r}")
        out.append((p.id, _copy.deepcopy(value)))
    if a.kwarg is not None:
        out.append((a.kwarg.id, gast.Dict(keys=[A.const(k.arg) for k in extra_kw],
                                          values=[_copy.deepcopy(k.value) for k in extra_kw])))
    return out


def _pure_rhs(v, func):
    """An operator, or a call of a function in the rule table (pure), on atoms."""
    from .. import rules
    if isinstance(v, gast.BinOp):
        return A.is_simple(v.left) and A.is_simple(v.right)
    if isinstance(v, gast.UnaryOp):
        return A.is_simple(v.operand)
    if isinstance(v, gast.Call) and isinstance(v.func, (gast.Name, gast.Attribute)):
        e = v.func
        while isinstance(e, gast.Attribute):
            e = e.value
        obj = resolve(v.func, func)
        if obj is MISSING or rules.lookup(obj) is None:
            return False
        return all(A.is_simple(a) or _is_literal(a) for a in v.args) and \
            all(A.is_simple(k.value) or _is_literal(k.value) for k in v.keywords)
    return False


def eliminate_common_subexpressions(stmts, func, locals_=None):
    """``a = np.exp(z); ...; b = np.exp(z)`` computes exp once: the second becomes ``a``.

    Only within straight-line code, only pure operations on unchanged operands;
    a compiler temporary that repeats an earlier value is removed and renamed.
    """
    if locals_ is None:
        locals_ = A.names_stored(stmts)
    seen = {}            # rhs source -> name holding it
    reads = {}           # rhs source -> the names it reads
    deps = {}            # name -> the sources in ``seen`` that read it or are held by it
    rename = {}
    out = []

    def forget(stored):
        # what depended on a stored name is stale (per name, not a scan of ``seen``)
        for n in stored:
            for k in deps.pop(n, ()):
                if k in seen and (seen[k] == n or n in reads[k]):
                    del seen[k]

    for s in stmts:
        if rename:
            A.rename_loads(s, rename)
        if isinstance(s, (gast.If, gast.For, gast.While)):
            for field in ("body", "orelse"):
                block = getattr(s, field, None)
                if block:
                    setattr(s, field, eliminate_common_subexpressions(block, func, locals_))
            seen.clear()
            deps.clear()
            out.append(s)
            continue
        if _may_write_memory(s, func):
            # ``y[i] = v``, ``y += v``, ``np.copyto(y, v)``, a user function: the change
            # is seen through every view of y, and views are not tracked here
            seen.clear()
            deps.clear()
        stored = A.names_stored([s]) | _changed_in_place(s)
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and \
                not getattr(s, "srcgrad_nograd", False) and \
                _pure_rhs(s.value, func) and not (A.names_read(s.value) & {s.targets[0].id}):
            key = A.unparse(s.value)
            reads.setdefault(key, A.names_read(s.value))
            tgt = s.targets[0].id
            if key in seen and seen[key] != tgt:
                if getattr(s, "srcgrad_temp", False):
                    rename[tgt] = seen[key]
                    continue
                s.value = A.name(seen[key])
            else:
                forget(stored)
                seen[key] = tgt
                for n in reads[key] | {tgt}:
                    deps.setdefault(n, set()).add(key)
                out.append(s)
                continue
        # anything stored here invalidates what depended on it
        forget(stored)
        out.append(s)
    return out


def _may_write_memory(s, func):
    """A statement that may change an array in place: a store into an item or slice,
    an augmented assignment of a name (in place on an array), a call statement, or a
    call that is not a pure rule (it may write into its arguments)."""
    if isinstance(s, gast.Expr):
        return True
    if not isinstance(s, gast.Assign):
        return False
    if getattr(s, "srcgrad_inplace", False) or \
            any(isinstance(t, gast.Subscript) for t in s.targets):
        return True
    return isinstance(s.value, gast.Call) and not _pure_rhs(s.value, func)


def _changed_in_place(s):
    """Names a statement may change without rebinding them: ``y[i] = v`` changes y
    (``np.sum(y)`` computed before is not ``np.sum(y)`` after), and a call statement
    (``lst.append(v)``, ``np.add.at(y, i, v)``) may change what it is given."""
    out = set()
    if isinstance(s, gast.Assign):
        for t in s.targets:
            for n in gast.walk(t):
                if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name):
                    out.add(n.value.id)
    elif isinstance(s, gast.Expr):
        out |= A.names_read(s.value)
    return out


def _reads(src):
    return A.names_read(A.parse_expr(src))
