"""Lowering of statements: one operation per statement, one target per assignment.

The :class:`Normalizer` visits each statement (``stmt_<Type>`` methods); its loop and
jump lowering lives in :mod:`.control`, its expression lowering in :mod:`.expressions`."""
import copy
import inspect
import types

import gast

from .. import syntax as A
from .forms import (_Jump, _copy, _is_list_pop, _is_static_index, _target_base,
                    mark_grad_enabled, mark_nograd)
from ..source import MISSING, resolve
from ..analysis.activity import writes_attributes
from ...runtime import records
from .control import ControlFlow
from .expressions import Expressions
from .desugar import desugar
from .index_builders import lower_index_builders
from .trying import rewrite_tries
from .fence import refuse_unsupported


_NUMERIC_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow,
                gast.MatMult)


def _changed_params(func, call):
    """[(parameter, caller's name)] for the parameters the user function ``func``
    changes in place (analysis/callee_writes: ``HARD``) and never rebinds, given
    names at ``call``; [] when there are none or func is not such a function."""
    from ... import rules
    from ..analysis.callee_writes import HARD, written_params
    from ..source import get_function_ast, library_name
    if not isinstance(func, types.FunctionType) or \
            getattr(func, "__module__", "").startswith("srcgrad.") or \
            getattr(func, "__srcgrad_transformable__", False) or \
            func.__code__.co_filename.startswith("<srcgrad") or \
            rules.lookup(func) is not None or rules.signature_of(func) is not None or \
            rules.is_nograd(func) or library_name(func) is not None:
        return []
    hard = [p for p, kind in written_params(func).items() if kind == HARD]
    if not hard:
        return []
    try:
        fdef, _ = get_function_ast(func)
        bound = inspect.signature(func).bind_partial(
            *range(len(call.args)), **{k.arg: k.arg for k in call.keywords})
    except (TypeError, ValueError, OSError, SyntaxError):
        return []
    a = fdef.args
    plain = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs}
    rebound = A.names_stored(fdef.body)
    by_key = {k.arg: k.value for k in call.keywords}
    out = []
    for p in hard:
        if p not in bound.arguments or p not in plain or p in rebound:
            continue
        key = bound.arguments[p]
        node = call.args[key] if isinstance(key, int) else by_key.get(key)
        if isinstance(node, gast.Name):
            out.append((p, node.id))
    return out


class Normalizer(ControlFlow, Expressions):
    def __init__(self, fdef, info, names, ad_name="ad", known_arrays=(), known_sequences=(),
                 known_records=()):
        self.ad_name = ad_name              # how generated code names srcgrad.runtime
        self.known_arrays = set(known_arrays)  # parameters known to be arrays at this call
        # parameters known to be lists / tuples / dicts at this call
        self.known_sequences = set(known_sequences)
        self.known_records = set(known_records)     # parameters holding user objects
        self.fdef = fdef
        self.user_names = A.all_names(fdef)     # (before the lowering adds its own)
        self.info = info
        self.func = info.func
        self.names = names           # NameGen
        # np.r_[...] / np.c_[...] become calls of their rule kernels (index_builders.py)
        fdef.body = lower_index_builders(fdef.body, info, ad_name,
                                         set(A.names_stored(fdef.body)) |
                                         {a.id for a in self._params(fdef)})
        # comprehensions, lambdas, map/filter/reduce, := become statements first
        fdef.body = desugar(fdef.body, info, names, [a.id for a in self._params(fdef)])
        # try / except: its blocks become functions called by ad.try_call (trying.py)
        fdef.body = rewrite_tries(fdef.body, info, names, ad_name,
                                  set(A.names_stored(fdef.body)) |
                                  {a.id for a in self._params(fdef)})
        self.locals = set(A.names_stored(fdef.body)) | {a.id for a in self._params(fdef)}
        self.loop_depth = 0
        self.ret_flag = None
        self.ret_name = None
        self._sequences = None       # names bound to a list or tuple somewhere (lazily)
        self._dicts = None           # names bound only to dicts (lazily)
        self.nested = False          # a local def's body, inlined at a call (inline.py)
        self.nonlocals = set()       # its ``nonlocal`` names: the caller's own variables

    @staticmethod
    def _params(fdef):
        return A.params_of(fdef)

    # -- entry ---------------------------------------------------------------
    def run(self):
        refuse_unsupported(self.fdef.body, self.info, self.nested)
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
        out = self._writing_calls(self.block(body))
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
        outer, self.current = getattr(self, "current", None), s   # (a location for
        try:                                                        # what it makes)
            return method(s)
        finally:
            self.current = outer

    def stmt_Pass(self, s):
        return []

    def stmt_Expr(self, s):
        if isinstance(s.value, gast.Constant):
            return []  # a stray string
        popped = self.dict_pop(s, None) or self.stateful_call(s, None) or \
            self.writing_call(s, None)
        if popped is not None:
            return popped
        pre = []
        value = self.expr(s.value, pre, top=True)
        if _is_list_pop(value, self.locals):
            # ``lst.pop()`` reads the last item: keep it in a name, so that the
            # transformations can give it back (reverse) or pop its tangent (forward)
            return pre + [A.assign(self.names.fresh("popped"), value, like=s)]
        return pre + [A.expr_stmt(value, like=s)]

    def stateful_call(self, s, target):
        """``y = c.step(x)`` (or ``c.add(v)``) where c is an object this function builds
        (every binding of c is ``c = Cls(...)`` of a user class) and the method assigns
        attributes of its object: ``pair = ad.call_with_self(c.step, x)``, ``y =
        pair[0]``, ``c = pair[1]`` (the method's derivative returns its changed object,
        a copy: compiler/dynamic.py); the alias check refuses it where another name
        still sees the old c."""
        v = s.value
        if not (isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and
                isinstance(v.func.value, gast.Name)):
            return None
        r = v.func.value.id
        cls = self._built_class(r)
        method = inspect.getattr_static(cls, v.func.attr, None) if cls is not None else None
        if not isinstance(method, types.FunctionType) or not writes_attributes(method):
            return None
        pair = self.names.fresh("with_self")
        call = A.copy_loc(gast.Call(func=A.attr(self.ad_name, "call_with_self"),
                                    args=[copy.deepcopy(v.func)] + list(v.args),
                                    keywords=list(v.keywords)), v)
        out = self.stmt_Assign(A.copy_loc(gast.Assign(targets=[A.store(pair)], value=call,
                                                      type_comment=None), s))
        if target is not None:
            out += self.stmt_Assign(A.copy_loc(gast.Assign(
                targets=[A.store(target.id)],
                value=gast.Subscript(value=A.name(pair), slice=A.const(0), ctx=gast.Load()),
                type_comment=None), s))
        node = A.assign(A.store(r), gast.Subscript(value=A.name(pair), slice=A.const(1),
                                                   ctx=gast.Load()), like=s)
        node.srcgrad_field_write = True
        return out + [node]

    def _writing_calls(self, stmts):
        """A call hoisted out of an expression (``t = f(n, memo)`` for ``y = 1 +
        f(n, memo)``, in a branch of ``a if c else f(n, memo)``) that changes its
        arguments in place, as :meth:`writing_call`; in every block of ``stmts``."""
        out = None
        for st in stmts:
            for field in ("body", "orelse", "finalbody"):
                block = getattr(st, field, None)
                if isinstance(block, list) and block and not isinstance(st, gast.FunctionDef):
                    setattr(st, field, self._writing_calls(block))
        for i, st in enumerate(stmts):
            if isinstance(st, (gast.Assign, gast.Expr)) and isinstance(st.value, gast.Call) \
                    and (isinstance(st, gast.Expr) or isinstance(st.targets[0], gast.Name)):
                new = self.writing_call(st, st.targets[0] if isinstance(st, gast.Assign)
                                        else None)
                if new is not None:
                    out = stmts[:i] if out is None else out
                    out.extend(new)
                    continue
            if out is not None:
                out.append(st)
        return stmts if out is None else out

    def writing_call(self, s, target):
        """``y = f(n, memo)`` where f, a user function, changes its parameter ``memo`` in
        place (``memo[n] = ...``, ``acc.append(v)``, ``a[0] = v``) and never rebinds it:
        ``fw = ad.writing(f, ("memo",))``, ``pair = fw(n, memo)``, ``y = pair[0]``,
        ``memo = pair[1]`` (fw also returns the parameters it changed: runtime.writing;
        its derivative changes copies).  In Python the caller's object changes; here
        the caller's name is rebound to the changed copy, and the alias check refuses
        it where another name still sees the old object."""
        v = s.value
        if not (isinstance(v, gast.Call) and isinstance(v.func, (gast.Name, gast.Attribute))) \
                or any(isinstance(a, gast.Starred) for a in v.args) or \
                any(k.arg is None for k in v.keywords):
            return None
        root = v.func
        while isinstance(root, gast.Attribute):
            root = root.value
        if not isinstance(root, gast.Name) or root.id in self.locals:
            return None
        func = resolve(v.func, self.func)
        # (a temporary the lowering made for an argument is read by nothing else)
        changed = [(p, n) for p, n in _changed_params(func, v)
                   if n in self.user_names and n in self.locals]
        if not changed:
            return None
        names = tuple(p for p, _ in changed)
        fw = self.names.fresh(f"{getattr(func, '__name__', 'f')}_writing")
        self.locals.add(fw)
        out = [A.assign(fw, A.call(A.attr(self.ad_name, "writing"),
                                   [copy.deepcopy(v.func), A.tuple_([A.const(n) for n in names])]),
                        like=s)]
        pair = self.names.fresh("with_changed")
        call = A.copy_loc(gast.Call(func=A.name(fw), args=list(v.args),
                                    keywords=list(v.keywords)), v)
        out += self.stmt_Assign(A.copy_loc(gast.Assign(targets=[A.store(pair)], value=call,
                                                       type_comment=None), s))
        item = lambda i: gast.Subscript(value=A.name(pair), slice=A.const(i), ctx=gast.Load())
        if target is not None:
            out += self.stmt_Assign(A.copy_loc(gast.Assign(
                targets=[A.store(target.id)], value=item(0), type_comment=None), s))
        for i, (_, arg) in enumerate(changed):
            node = A.assign(A.store(arg), item(i + 1), like=s)
            node.srcgrad_field_write = True
            out.append(node)
        return out

    def _property_of_built(self, r, name):
        """Is ``r.name`` a property (with a getter) of the class every binding of ``r``
        builds (:meth:`_built_class`)?"""
        if r not in self.locals:
            return False
        cls = self._built_class(r) or self._own_class(r)
        a = inspect.getattr_static(cls, name, None) if cls is not None else None
        return isinstance(a, property) and isinstance(a.fget, types.FunctionType)

    def _own_class(self, r):
        """The class whose method this function is, when ``r`` is its first parameter
        (``self``); a subclass may override the property: ad.getter checks when it runs."""
        params = self._params(self.fdef)
        qual = getattr(self.func, "__qualname__", "").split(".")
        if not params or params[0].id != r or len(qual) != 2:
            return None
        cls = getattr(self.func, "__globals__", {}).get(qual[0])
        if isinstance(cls, type) and records.user_class(cls) and \
                getattr(inspect.getattr_static(cls, qual[1], None), "__code__", None) is \
                getattr(self.func, "__code__", False):
            return cls
        return None

    def _built_class(self, r):
        """The user class every binding of ``r`` in this function builds, or None."""
        cache = self.__dict__.setdefault("_built", {})
        if r not in cache:
            found = None
            for n in self._bindings().get(r, ()):
                value = getattr(n, "value", None)
                cls = resolve(value.func, self.func) if isinstance(n, gast.Assign) and \
                    isinstance(n.targets[0], gast.Name) and isinstance(value, gast.Call) \
                    and isinstance(value.func, (gast.Name, gast.Attribute)) else MISSING
                if not (isinstance(cls, type) and records.user_class(cls)) or \
                        found not in (None, cls):
                    found = False
                    break
                found = cls
            if r in {a.id for a in self._params(self.fdef)}:
                found = False
            cache[r] = found or None
        return cache[r]

    def _bindings(self):
        """{name: the statements that bind it}, in the function's body (one walk)."""
        index = self.__dict__.get("_binding_index")
        if index is None:
            index = self._binding_index = {}
            for n in A.walk(self.fdef.body):
                stores = [t for t in (n.targets if isinstance(n, gast.Assign) else
                                      [getattr(n, "target", None)] if isinstance(
                                          n, (gast.AugAssign, gast.AnnAssign, gast.For))
                                      else []) if t is not None]
                for name in {x for t in stores for x in A.names_stored(t)}:
                    index.setdefault(name, []).append(n)
        return index

    def dict_pop(self, s, target):
        """``v = d.pop(k, default)`` (or ``d.pop(k)``) on a dict: ``v = d.get(k, default)``
        (``d[k]``), then ``d = ad.without_key(d, k)``, a copy; in Python d itself
        changes, so the alias check refuses it where another name still sees d."""
        v = s.value
        if not (isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and
                v.func.attr == "pop" and isinstance(v.func.value, gast.Name) and
                1 <= len(v.args) <= 2 and not v.keywords and
                not any(isinstance(a, gast.Starred) for a in v.args) and
                self._is_dict(v.func.value)):
            return None
        d = v.func.value.id
        pre = []
        key = self.atom(v.args[0], pre, "key")
        read = gast.Call(func=gast.Attribute(value=A.name(d), attr="get", ctx=gast.Load()),
                         args=[key, v.args[1]], keywords=[]) if len(v.args) == 2 else \
            gast.Subscript(value=A.name(d), slice=key, ctx=gast.Load())
        out = pre
        if target is not None:
            out += self.stmt_Assign(A.copy_loc(gast.Assign(
                targets=[A.store(target.id)], value=A.copy_loc(read, v), type_comment=None), s))
        node = A.assign(A.store(d), A.call(A.attr(self.ad_name, "without_key"),
                                           [A.name(d), copy.deepcopy(key)]), like=s)
        node.srcgrad_field_write = True
        return out + [node]

    def stmt_Nonlocal(self, s):
        """(Only in a local def being inlined, see the fence.)  The names stay the
        caller's: the inlined body reads and writes its variables."""
        self.nonlocals |= set(s.names)
        return []

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
            popped = self.dict_pop(s, target) or self.stateful_call(s, target) or \
                self.writing_call(s, target)
            if popped is not None:
                return popped
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
            stars = [i for i, e in enumerate(target.elts) if isinstance(e, gast.Starred)]
            if len(stars) > 1:
                raise self.info.error(target, "multiple starred expressions in assignment")
            n = len(target.elts)
            for i, elt in enumerate(target.elts):
                if isinstance(elt, gast.Starred):
                    # ``a, *rest, z = xs``: rest is a list of the middle items
                    after = n - i - 1
                    part = gast.Slice(lower=A.const(i) if i else None,
                                      upper=A.const(-after) if after else None, step=None)
                    middle = A.call(A.name("list"), [gast.Subscript(
                        value=A.name(src.id), slice=part, ctx=gast.Load())])
                    out.extend(self.stmt(A.copy_loc(gast.Assign(
                        targets=[elt.value], value=middle, type_comment=None), s)))
                    continue
                # items after a starred one count from the end
                index = i if not stars or i < stars[0] else i - n
                item = gast.Subscript(value=A.name(src.id), slice=A.const(index), ctx=gast.Load())
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
            if not isinstance(target.value, gast.Name):
                raise self.info.error(target, f"srcgrad does not support assigning to "
                                              f"{A.unparse_short(target)}: assign the inner "
                                              f"object's attribute, then the outer one")
            # ``p.W = v``: p is rebound to a copy of itself with the field set
            # (rules/python/attributes.with_field); the alias check refuses it where
            # another name still sees the old object
            base = target.value.id
            if base not in self.locals:
                raise self.info.error(target, f"srcgrad cannot differentiate an assignment "
                                              f"to {A.unparse_short(target)}: {base} is not a "
                                              f"local name of this function (a global, or a "
                                              f"name of the function around it), and srcgrad "
                                              f"writes an attribute by rebinding the object's "
                                              f"name to a changed copy. Pass {base} as an "
                                              f"argument, or keep the value in a local "
                                              f"variable and return it")
            node = A.assign(A.store(base), A.call(A.attr(self.ad_name, "with_field"), [
                A.name(base), A.const(target.attr), value]), like=s)
            node.srcgrad_field_write = True
            return [node]
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
            value = A.copy_loc(gast.BinOp(left=A.name(t.id), op=s.op, right=s.value), s)
            if isinstance(s.op, _NUMERIC_OPS) and not self._may_be_sequence(t) and \
                    not isinstance(s.value, (gast.List, gast.Tuple)):
                # on an array, ``x += v`` keeps x's dtype (a float32 array stays float32
                # with a float64 v): ``x = ad.keep_dtype(x + v, x)``
                value = A.copy_loc(A.call(A.attr(self.ad_name, "keep_dtype"),
                                          [value, A.name(t.id)]), s)
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
            value = A.copy_loc(gast.BinOp(left=read, op=s.op, right=s.value), s)
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
        if isinstance(t, gast.Attribute) and isinstance(t.value, gast.Name):
            # ``p.W += v``: the array p holds changes in place (every name holding it sees
            # it), then p holds it: ``tmp = p.W; tmp += v; p.W = tmp``
            tmp = self.names.fresh("field")
            out = self.stmt_Assign(A.copy_loc(gast.Assign(
                targets=[A.store(tmp)], value=gast.Attribute(value=A.name(t.value.id),
                                                            attr=t.attr, ctx=gast.Load()),
                type_comment=None), s))
            changed = self.stmt_AugAssign(A.copy_loc(gast.AugAssign(
                target=A.store(tmp), op=s.op, value=s.value), s))
            for st in changed:
                if getattr(st, "srcgrad_inplace", False):
                    # p itself is given the changed array next: only the array's other
                    # holders would see the change unseen
                    st.srcgrad_inplace_skip = {t.value.id}
            out += changed + self.assign_target(t, A.name(tmp), s)
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
            out = self.block(s.body, nograd=(kind == "no_grad"))
            if kind == "enable_grad":
                mark_grad_enabled(out)
            return out
        if any(isinstance(n, (gast.Return, gast.Break, gast.Continue, gast.Yield))
               for n in A.walk(s.body)):
            raise self.info.error(s, "srcgrad does not support return, break or continue "
                                     "inside a 'with' block other than sg.no_grad(); assign "
                                     "the result and leave the block normally")
        # any other context manager (np.errstate, a timer, warnings.catch_warnings):
        # entered and exited around the body in the forward sweep; it carries no
        # gradient (what it returns is a value like any other)
        out, exits = [], []
        for item in s.items:
            pre = []
            ctx = self.atom(item.context_expr, pre, "context")
            out.extend(pre)
            if not isinstance(ctx, gast.Name):
                tmp = self.names.fresh("context")
                out.append(A.assign(tmp, ctx, like=s))
                ctx = A.name(tmp)
            enter = A.call(A.attr(A.name(ctx.id), "__enter__"))
            if item.optional_vars is not None:
                out.extend(self.stmt(A.copy_loc(gast.Assign(targets=[item.optional_vars],
                                                            value=enter, type_comment=None), s)))
            else:
                out.append(A.expr_stmt(enter, like=s))
            exits.append(A.expr_stmt(A.call(A.attr(A.name(ctx.id), "__exit__"),
                                            [A.const(None)] * 3), like=s))
        return out + self.block(s.body) + exits[::-1]

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
