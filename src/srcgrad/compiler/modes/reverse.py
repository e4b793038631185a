"""Reverse mode: turn a normalized function body into a forward sweep and an adjoint sweep.

Guarantees:

* The forward sweep is the user's (normalized) code, plus — only where needed —
  a push of a value that is about to be overwritten and that the adjoint sweep
  reads (Tapenade's "to be recorded"), branch decisions and loop trip counts.
* The adjoint sweep visits statements in reverse, inlines each derivative
  template from the rule table with the user's names (``dx`` is the adjoint of
  ``x``), restores overwritten values from the stack, and accumulates adjoints.
* Adjoints are tracked symbolically: an adjoint nobody has contributed to is
  "zero" and costs nothing; zeros are materialized only where control flow
  merges paths on which an adjoint is defined on one side only.
* Only active statements (activity.py) get adjoint code.
"""
import copy
import types

import gast

from .. import syntax as A
from ..ir import Comment
from ..analysis.activity import Analysis
from ...errors import NonDifferentiableError

_TEMPLATE_CACHE = {}


def _template(expr):
    t = _TEMPLATE_CACHE.get(expr)
    if t is None:
        t = _TEMPLATE_CACHE[expr] = A.parse_expr(expr)
    return t


class Names:
    """Names used by generated code: adjoints, the stack, helper modules."""

    def __init__(self, gen, np_name, ad_name, math_name):
        self.gen = gen
        self.np = np_name
        self.ad = ad_name
        self.math = math_name
        self.adjoints = {}

    def d(self, n):
        if n not in self.adjoints:
            self.adjoints[n] = self.gen.fresh("d" + n)
        return self.adjoints[n]


class LineComments:
    """``# line N: <the user's source line>`` above each block of generated code."""
    last_comment = None

    def comment(self, s):
        line = self.info.line(getattr(s, "lineno", None))
        if not line or s.lineno == self.last_comment:
            return []
        self.last_comment = s.lineno
        return [Comment(f"line {s.lineno}: {line.strip()}")]


class Reverse(LineComments):
    def __init__(self, body, params, wrt, info, names, kinds, callee_factory,
                 needed=None, shape_only=(), reads_before=None, reuse=None):
        self.info = info
        self.names = names
        self.params = params
        self.wrt = list(wrt)
        self.kinds = kinds                 # name -> "num" | "container" | ...
        self.callee_factory = callee_factory
        self.body = body
        self.needed = needed               # None: first pass, treat everything as needed
        self.shape_only = set(shape_only)  # needed only for their shape
        self.reads_before = reads_before   # per top-level statement: names read by the
        self.top_index = None              # adjoints of the statements before it
        self.stack = None
        self.saved_vars = set()            # names saved before an overwrite
        self.callees = {}                  # generated name -> function object
        self.first_pass_reads = set()
        # the first pass notes each choice that depends on ``needed`` (see ``agrees``)
        self.choices = {"save": [], "item": [], "list": [], "reverse": {}} \
            if needed is None else None
        if reuse is not None:
            # a second pass over the same body (``strip`` undid the first pass's marks):
            # the analysis, the counts and the alias checks are those of the first
            self.an, self.assign_counts = reuse.an, reuse.assign_counts
            self.copy_params = reuse.copy_params
            return
        local_defs = [s.name for s in body if isinstance(s, gast.FunctionDef)]
        self.an = Analysis(body, params, wrt, info, local_defs)
        self.assign_counts = _assign_counts(body, params)
        self.copy_params = [p for p in params if p in _setitem_targets(body, info.func)]
        _check_aliases(body, info, kinds if any(p in kinds for p in params) else None,
                       params)

    def agrees(self, needed, shape_only, reads_before):
        """Would a pass given ``needed``, ``shape_only`` and ``reads_before`` make every
        choice this first pass made?  Then it would generate the same code, and this
        pass's code is the final code."""
        c = self.choices
        for n, depth, top in c["save"]:
            if n not in needed or n in shape_only:
                return False
            if depth == 0 and top is not None and n not in reads_before[top]:
                return False
        if any(base not in needed for base in c["item"]):
            return False
        if any(lst not in needed for lst in c["list"]):
            return False
        return all(self._has_reverse(stmts, needed) == answer
                   for stmts, answer in c["reverse"].values())

    def strip(self):
        """Remove the marks this pass left on the body's statements (the body goes
        to the second pass as the first found it)."""
        todo = list(self.body)
        while todo:
            s = todo.pop()
            d = s.__dict__
            for k in _MARKS:
                d.pop(k, None)
            for field in ("body", "orelse"):
                sub = d.get(field)
                if type(sub) is list:
                    todo.extend(sub)

    # -- the stack -----------------------------------------------------------
    def stack_name(self):
        if self.stack is None:
            self.stack = self.names.gen.fresh("stack")
        return self.stack

    def push(self, value, like=None):
        return A.expr_stmt(A.call(A.attr(self.stack_name(), "append"), [value]), like=like)

    def pop(self):
        return A.call(A.attr(self.stack_name(), "pop"))

    def needs_save(self, n, depth):
        """Must the old value of ``n`` be pushed before this assignment overwrites it?"""
        if self.needed is not None and n not in self.needed:
            return False
        if depth > 0:
            answer = True
        elif self.reads_before is not None and self.top_index is not None and \
                n not in self.reads_before[self.top_index]:
            # outside loops: only if the adjoint code of earlier statements reads it
            return False
        else:
            answer = self.assign_counts.get(n, 0) > 1 and n in self.maybe_defined
        if answer and self.choices is not None:
            self.choices["save"].append((n, depth, self.top_index))
        return answer

    # -- entry ---------------------------------------------------------------
    def run(self):
        ret = self.body[-1]
        assert isinstance(ret, gast.Return)
        main = self.body[:-1]
        self.maybe_defined = set(self.params)
        self.last_comment = None
        fwd = []
        for i, s in enumerate(main):
            self.top_index = i
            fwd.extend(self.fwd_stmt(s, 0))
            self.maybe_defined |= A.names_stored([s])
        self.top_index = None
        state = {}
        result = ret.value
        if isinstance(result, gast.Name) and self.an.active(result.id):
            state[result.id] = "shared"
        # the adjoint sweep, statement by statement, noting what each piece reads
        bwd = []
        self.last_comment = None
        self.top_reads = [set() for _ in main]
        for i in reversed(range(len(main))):
            piece = self.bwd_block([main[i]], state, 0, fresh_comments=False)
            self.top_reads[i] = A.names_read(piece)
            bwd.extend(piece)
        self.final_state = state
        self.result = result
        return fwd, bwd

    # -- forward sweep -------------------------------------------------------
    def fwd_block(self, stmts, depth):
        out = []
        for s in stmts:
            out.extend(self.fwd_stmt(s, depth))
            self.maybe_defined |= A.names_stored([s])
        return out

    def fwd_stmt(self, s, depth):
        if isinstance(s, gast.Assign):
            t = s.targets[0]
            out = []
            if isinstance(t, gast.Name):
                op = s.srcgrad_op
                if self.needs_save(t.id, depth):
                    self.saved_vars.add(t.id)
                    s.srcgrad_saved = True
                    value = A.name(t.id)
                    if t.id in self.shape_only:
                        # the adjoint sweep reads only its shape (to un-broadcast)
                        value = A.call(A.attr(self.names.np, "shape"), [value])
                    out.append(self.push(value, like=s))
                if op.kind == "call" and self.call_active(s):
                    return out + self.fwd_call(s, depth)
                out.append(s)
                return out
            base = t.value.id
            if self.needed is None or base in self.needed:
                if self.choices is not None:
                    self.choices["item"].append(base)
                s.srcgrad_saved = True
                if self.kinds.get(base) == "container":
                    # a dict may not hold the key yet: ``ad.old_item`` / ``ad.restore_item``
                    key = A.slice_to_expr(copy.deepcopy(t.slice))
                    out.append(self.push(A.call(A.attr(self.names.ad, "old_item"),
                                                [A.name(base), key]), like=s))
                else:
                    read = gast.Subscript(value=A.name(base), slice=copy.deepcopy(t.slice),
                                          ctx=gast.Load())
                    out.append(self.push(A.call(A.attr(self.names.ad, "copy"), [read]), like=s))
            out.append(s)
            return out
        if isinstance(s, gast.Expr):
            op = getattr(s, "srcgrad_op", None)
            out = [s]
            return out
        if isinstance(s, gast.If):
            body = self.fwd_block(s.body, depth)
            orelse = self.fwd_block(s.orelse, depth)
            if not self.has_reverse(s.body + s.orelse):
                new = gast.If(test=s.test, body=body or [gast.Pass()], orelse=orelse)
                return [A.copy_loc(new, s)]
            cond = self.names.gen.fresh("cond")
            s.srcgrad_cond = cond
            out = [A.assign(cond, s.test, like=s)]
            new = gast.If(test=A.name(cond), body=body or [gast.Pass()], orelse=orelse)
            out.append(A.copy_loc(new, s))
            if depth > 0:
                # pushed after the branch's own records, so the reverse sweep pops it first
                out.append(self.push(A.name(cond), like=s))
            return out
        if isinstance(s, gast.For):
            return self.fwd_for(s, depth)
        if isinstance(s, gast.While):
            body = self.fwd_block(s.body, depth + 1)
            if not self.has_reverse(s.body):
                return [A.copy_loc(gast.While(test=s.test, body=body, orelse=[]), s)]
            count = self.names.gen.fresh("trips")
            s.srcgrad_count = count
            inc = A.assign(count, gast.BinOp(left=A.name(count), op=gast.Add(), right=A.const(1)))
            out = [A.assign(count, A.const(0), like=s),
                   A.copy_loc(gast.While(test=s.test, body=[inc] + body, orelse=[]), s)]
            if depth > 0:
                out.append(self.push(A.name(count), like=s))
            return out
        return [s]

    def fwd_for(self, s, depth):
        body = self.fwd_block(s.body, depth + 1)
        if not self.has_reverse(s.body):
            new = gast.For(target=s.target, iter=s.iter, body=body, orelse=[], type_comment=None)
            return [A.copy_loc(new, s)]
        out = []
        iter_ = s.iter
        stable = not (A.names_read(iter_) & set(self.assign_counts)) and depth == 0
        stable = stable or (not A.names_read(iter_) and _is_range_call(iter_))
        if not stable:
            rng = self.names.gen.fresh("steps")
            out.append(A.assign(rng, iter_, like=s))
            iter_ = A.name(rng)
            s.srcgrad_range = rng
        else:
            s.srcgrad_range = None
        has_break = _ends_with_break(s.body)
        if has_break:
            count = self.names.gen.fresh("trips")
            s.srcgrad_count = count
            out.append(A.assign(count, A.const(0), like=s))
            inc = A.assign(count, gast.BinOp(left=A.name(count), op=gast.Add(), right=A.const(1)))
            body = [inc] + body
        else:
            s.srcgrad_count = None
        new = gast.For(target=s.target, iter=iter_, body=body, orelse=[], type_comment=None)
        out.append(A.copy_loc(new, s))
        if depth > 0:
            if s.srcgrad_range:
                out.append(self.push(A.name(s.srcgrad_range), like=s))
            if has_break:
                out.append(self.push(A.name(s.srcgrad_count), like=s))
        return out

    def call_active(self, s):
        t = s.targets[0].id
        return self.an.active(t) and any(n in self.an.varied for _, n in s.srcgrad_op.diff_names())

    def fwd_call(self, s, depth):
        """``y = f(a, b)`` with f the user's function: call its generated forward."""
        op = s.srcgrad_op
        target = s.targets[0].id
        pos, kws = op.callee_args
        import inspect
        try:
            bound = inspect.signature(op.func).bind(*pos, **dict(kws))
        except TypeError as e:
            raise self.info.error(s, f"cannot bind the call to {op.func.__name__}: {e}")
        # a parameter gets a gradient if its argument varies; ``*args`` / ``**kwargs``
        # (a tuple / dict of the call's atoms) if any of their items does
        wrt = tuple(p for p, a in bound.arguments.items()
                    if any(n in self.an.varied for n in _bound_names(a)))
        fwd_fn, bwd_fn = self.callee_factory(op.func, wrt, s, _callee_kinds(bound, self.kinds))
        if isinstance(op.func, types.MethodType):
            # layer.apply(x): the generated forward gets the same object as its self
            fwd_fn = types.MethodType(fwd_fn, op.func.__self__)
        fname = self.names.gen.fresh(op.func.__name__ + "_fwd")
        bname = self.names.gen.fresh(op.func.__name__ + "_bwd")
        self.callees[fname] = fwd_fn
        self.callees[bname] = bwd_fn
        saved = self.names.gen.fresh(op.func.__name__ + "_saved")
        s.srcgrad_callee = (bname, saved, [bound.arguments[p] for p in wrt])
        value = gast.Call(func=A.name(fname), args=list(pos),
                          keywords=[gast.keyword(arg=k, value=v) for k, v in kws])
        out = [A.assign(A.tuple_([A.store(target), A.store(saved)], gast.Store()), value, like=s)]
        if depth > 0:
            out.append(self.push(A.name(saved), like=s))
        return out

    def has_reverse(self, stmts):
        """Does this code need anything in the adjoint sweep (adjoints or restores)?"""
        answer = self._has_reverse(stmts, self.needed)
        if self.choices is not None:
            self.choices["reverse"][id(stmts)] = (stmts, answer)
        return answer

    def _has_reverse(self, stmts, needed):
        for s in stmts:
            for n in A.statements(s):
                if isinstance(n, gast.Assign):
                    t = n.targets[0]
                    tid = t.id if isinstance(t, gast.Name) else t.value.id
                    if self.an.active(tid) or needed is None or tid in needed:
                        return True
                    op = getattr(n, "srcgrad_op", None)
                    if op is not None and op.kind == "pop" and self.an.active(op.target):
                        return True
                elif isinstance(n, gast.Expr) and getattr(n, "srcgrad_op", None) is not None \
                        and n.srcgrad_op.kind == "append":
                    if self.an.active(n.srcgrad_op.target) or needed is None or \
                            n.srcgrad_op.target in needed:
                        return True
        return False

    # -- adjoint sweep -------------------------------------------------------
    def bwd_block(self, stmts, state, depth, fresh_comments=True):
        if fresh_comments:
            self.last_comment = None
        out = []
        for s in reversed(stmts):
            piece = self.bwd_stmt(s, state, depth)
            if piece and all(isinstance(x, Comment) for x in piece):
                self.last_comment = None   # a comment over no code: drop it
                continue
            out.extend(piece)
        return out

    def bwd_stmt(self, s, state, depth):
        if isinstance(s, (gast.If, gast.For, gast.While)):
            self.last_comment = None
        if isinstance(s, gast.Assign):
            if isinstance(s.targets[0], gast.Name):
                return self.bwd_assign(s, state, depth)
            return self.bwd_setitem(s, state, depth)
        if isinstance(s, gast.Expr):
            op = getattr(s, "srcgrad_op", None)
            if op is not None and op.kind == "append":
                return self.bwd_append(s, state)
            if op is not None and op.kind == "restore" and self.an.active(op.target):
                raise self.info.error(s, f"srcgrad's reverse mode cannot differentiate "
                                         f"generated code that restores an item of "
                                         f"{op.target} (ad.restore_item); differentiate it in "
                                         f"forward mode (sg.hvp, sg.hessian, sg.jvp of sg.grad)")
            return []
        if isinstance(s, gast.If):
            return self.bwd_if(s, state, depth)
        if isinstance(s, gast.For):
            return self.bwd_loop(s, state, depth)
        if isinstance(s, gast.While):
            return self.bwd_loop(s, state, depth)
        return []

    def accumulate(self, state, var, expr, out, container=False):
        d = self.names.d(var)
        scatter = isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and \
            expr.func.attr == "index_grad" and isinstance(expr.func.value, gast.Name) and \
            expr.func.value.id == self.names.ad and len(expr.args) == 3
        if var not in state:
            if not (isinstance(expr, gast.Name) and expr.id == d):  # never "dx = dx"
                out.append(A.assign(d, expr))
            # index_grad allocates a fresh adjoint: later scatters may add into it in place
            state[var] = "owned" if scatter else "shared"
            return
        if scatter and state[var] == "owned":
            # x[i] read in a loop: add into our own adjoint, O(len(i)) not O(len(x))
            g, _, index = expr.args
            out.append(A.assign(d, A.call(A.attr(self.names.ad, "add_at"), [A.name(d), index, g])))
            return
        # ``ad.index_grad(g, x, i)`` is a tuple/list/dict when ``x`` is one: unless ``x``
        # is known to be an array or a float, ``+`` could concatenate two tuples
        indexed = isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and \
            expr.func.attr == "index_grad" and self.kinds.get(var) not in ("num", "float")
        if container or indexed or self.kinds.get(var) == "container":
            value = A.call(A.attr(self.names.ad, "add_grads"), [A.name(d), expr])
        elif state[var] == "owned":
            # an adjoint only we hold (zeros we made, or a sum we computed): add in place
            out.append(gast.AugAssign(target=A.store(d), op=gast.Add(), value=expr))
            return
        else:
            value = gast.BinOp(left=A.name(d), op=gast.Add(), right=expr)
        out.append(A.assign(d, value))
        state[var] = "owned"

    def instantiate(self, expr_src, op, ans, g, overrides=None):
        """A rule template with the user's names substituted."""
        mapping = {"g": A.name(g), "ans": A.name(ans) if isinstance(ans, str) else ans}
        for p, v in op.args.items():
            mapping[p] = _as_node(v)
        if overrides:
            mapping.update(overrides)
        tree = _template(expr_src)
        helpers = self.names.helper_names
        return _Qualify(mapping, helpers, self.names).qualify(tree)

    def is_scalar(self, node):
        if isinstance(node, gast.Constant):
            return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        return isinstance(node, gast.Name) and self.kinds.get(node.id) == "float"

    def drop_unbroadcast(self, contrib, op, param):
        """``unbroadcast(e, x)`` is ``e`` when every other operand is a scalar."""
        if not (isinstance(contrib, gast.Call) and isinstance(contrib.func, gast.Attribute)
                and contrib.func.attr in ("unbroadcast",) and
                isinstance(contrib.func.value, gast.Name) and contrib.func.value.id == self.names.ad):
            return contrib
        if not op.rule.facets.elementwise:
            # (an elementwise op of x and Python scalars has x's shape: nothing to undo)
            return contrib
        # every operand broadcasts, with a gradient or not (np.copysign's y)
        params = op.rule.signature.parameters
        operands = set(op.rule.diff_params) | {
            p for p, v in params.items() if v.default is v.empty and
            v.kind in (v.POSITIONAL_ONLY, v.POSITIONAL_OR_KEYWORD)}
        others = [v for p, v in op.args.items() if p != param and p in operands]
        if all(self.is_scalar(v) for v in others):
            return contrib.args[0]
        return contrib

    def bwd_assign(self, s, state, depth):
        y = s.targets[0].id
        op = s.srcgrad_op
        if op.kind == "pop":
            return self.bwd_pop(s, state)
        saved = getattr(s, "srcgrad_saved", False)
        out = []
        contributes = self.an.active(y) and y in state and op.kind not in ("nograd", "const")
        if contributes:
            out.extend(self.comment(s))
            self_terms = []
            dy = self.names.d(y)
            restore_first = False
            temp_post = None
            arg_names = {n for _, n in op.diff_names()}
            callee = getattr(s, "srcgrad_callee", None) if op.kind == "call" else None
            if callee is not None and depth > 0:
                # the callee's record was pushed after the old value of ``y``: pop it first
                out.append(A.assign(callee[1], self.pop()))
            if saved and y in arg_names:
                reads_ans = op.kind == "rule" and any(
                    "ans" in A.names_read(_template(op.rule.vjp[p])) for p, n in op.diff_names()
                    if n in self.an.varied and p in op.rule.vjp)
                if reads_ans:
                    temp_post = self.names.gen.fresh(y + "_out")
                    out.append(A.assign(temp_post, A.name(y)))
                out.append(A.assign(y, self.pop()))
                restore_first = True
            ans = temp_post or y
            if op.kind == "rule":
                contribs = []   # (name, expression), in parameter order
                # a parameter bound to several items (``*operands`` of np.einsum, the
                # ``*args`` of max/min/math.hypot): its template returns one cotangent
                # per item; compute it once and give item k its entry ``tmp[k]``
                seq_grads, seq_slots, seq_items = {}, {}, set()
                for p, n in op.diff_names():
                    if n not in self.an.varied:
                        continue
                    expr_src = op.rule.vjp.get(p)
                    if expr_src is None:
                        raise NonDifferentiableError(
                            f"{op.rule.name} has no reverse-mode derivative for its argument "
                            f"{p!r} ({self.info.where(s)}); register one with @sg.adjoint")
                    seq = op.args.get(p)
                    if isinstance(seq, (tuple, list, gast.Tuple, gast.List)):
                        elts = seq.elts if isinstance(seq, gast.AST) else seq
                        if p not in seq_grads:
                            seq_grads[p] = self.names.gen.fresh(self.names.d(p))
                            out.append(A.assign(seq_grads[p],
                                                self.instantiate(expr_src, op, ans, dy)))
                            seq_slots[p] = iter([k for k, e in enumerate(elts)
                                                 if isinstance(e, gast.Name)])
                        # diff_names lists the Name items in order, as seq_slots does
                        while True:
                            k = next(seq_slots[p])
                            if elts[k].id == n:
                                break
                        contribs.append((n, gast.Subscript(value=A.name(seq_grads[p]),
                                                           slice=A.const(k), ctx=gast.Load())))
                        seq_items.add(n)
                        continue
                    contrib = self.instantiate(expr_src, op, ans, dy)
                    contrib = self.drop_unbroadcast(contrib, op, p)
                    # x * x: the same contribution twice is written once, times two
                    for i, (m, e) in enumerate(contribs):
                        if m == n and A.unparse(e) == A.unparse(contrib):
                            contribs[i] = (m, gast.BinOp(left=A.const(2), op=gast.Mult(),
                                                         right=e))
                            break
                    else:
                        contribs.append((n, contrib))
                for n, contrib in contribs:
                    if n == y:
                        self_terms.append(contrib)
                    else:
                        # an item of a sequence parameter (``*seqs`` of ad.zipped, the
                        # dicts of ad.merged) may itself be a list or a dict: its
                        # gradients add item by item unless it is known to be a number
                        structured = n in seq_items and self.kinds.get(n) not in ("num",
                                                                                 "float")
                        self.accumulate(state, n, contrib, out, container=structured)
            elif op.kind in ("copy",):
                for n in op.names:
                    if n in self.an.varied:
                        if n == y:
                            self_terms.append(A.name(dy))
                        else:
                            self.accumulate(state, n, A.name(dy), out,
                                            container=self.kinds.get(n) != "num")
            elif op.kind == "literal":
                v = s.value
                if isinstance(v, gast.Dict):
                    pairs = list(zip(v.keys, v.values))
                elif isinstance(v, gast.Call):  # dict(...) / list(...)
                    pairs = [(A.const(k.arg), k.value) for k in v.keywords]
                else:
                    pairs = [(A.const(i), e) for i, e in enumerate(v.elts)]
                is_dict = isinstance(v, (gast.Dict, gast.Call))
                for key, e in pairs:
                    if isinstance(e, gast.Name) and e.id in self.an.varied:
                        if is_dict:
                            # a dict's adjoint holds only the keys that were read
                            # (ad.index_grad is sparse): ``dd[key]`` was a KeyError
                            part = A.call(A.attr(self.names.ad, "item_grad"),
                                          [A.name(dy), copy.deepcopy(key), A.name(e.id)])
                        else:
                            part = gast.Subscript(value=A.name(dy), slice=copy.deepcopy(key),
                                                  ctx=gast.Load())
                        if e.id == y:
                            self_terms.append(part)
                        else:
                            self.accumulate(state, e.id, part, out,
                                            container=self.kinds.get(e.id) != "num")
            elif op.kind == "call":
                bname, saved_name, args = getattr(s, "srcgrad_callee", (None, None, None))
                if bname is not None:
                    res = A.call(A.name(bname), [A.name(saved_name), A.name(dy)])
                    if len(args) == 1 and isinstance(args[0], gast.Name) and \
                            args[0].id not in state and args[0].id != y:
                        # the backward sweep returns a tuple of gradients, one per wrt
                        one = gast.Subscript(value=res, slice=A.const(0), ctx=gast.Load())
                        self.accumulate(state, args[0].id, one, out)
                    else:
                        tmp = self.names.gen.fresh("grads")
                        out.append(A.assign(tmp, res))
                        for i, a in enumerate(args):
                            part = gast.Subscript(value=A.name(tmp), slice=A.const(i),
                                                  ctx=gast.Load())
                            # ``*args`` gets a tuple of gradients, ``**kwargs`` a dict:
                            # item k goes to the k-th argument the call packed into it
                            for n, piece in _unpack_grad(a, part, self.names.ad):
                                if n not in self.an.varied:
                                    continue
                                if n == y:
                                    self_terms.append(piece)
                                else:
                                    self.accumulate(state, n, piece, out, container=True)
            elif op.kind == "unknown":
                raise self.an.nondiff(s, op)
            # the adjoint of the overwritten value starts afresh
            if self_terms:
                total = self_terms[0]
                for t in self_terms[1:]:
                    total = gast.BinOp(left=total, op=gast.Add(), right=t)
                if not (isinstance(total, gast.Name) and total.id == dy):
                    out.append(A.assign(dy, total))
                state[y] = "shared"
            else:
                state.pop(y, None)
            if saved and not restore_first:
                out.append(A.assign(y, self.pop()))
            return out
        if op.kind == "call" and getattr(s, "srcgrad_callee", None) and depth > 0:
            out.append(A.expr_stmt(self.pop()))   # keep the stack balanced
        state.pop(y, None)
        if saved:
            out.append(A.assign(y, self.pop()))
        return out

    def bwd_setitem(self, s, state, depth):
        t = s.targets[0]
        y = t.value.id
        v = s.value
        out = []
        index = A.slice_to_expr(copy.deepcopy(t.slice))
        self_part = None
        if self.an.active(y) and y in state:
            out.extend(self.comment(s))
            dy = self.names.d(y)
            container = self.kinds.get(y) == "container"
            if isinstance(v, gast.Name) and v.id in self.an.varied:
                if container:
                    # a dict adjoint may lack the key (nobody read it): zeros then
                    contrib = A.call(A.attr(self.names.ad, "item_grad"),
                                     [A.name(dy), index, A.name(v.id)])
                elif _is_basic_index(t.slice):
                    part = A.call(A.attr(self.names.ad, "take"), [A.name(dy), index])
                    contrib = A.call(A.attr(self.names.ad, "unbroadcast"),
                                     [part, A.name(v.id)])
                else:
                    # ``y[[0, 0]] = v``: a repeated index keeps the last write only, so
                    # the other items of v get no gradient (``take`` gave them one each)
                    contrib = A.call(A.attr(self.names.ad, "assign_grad"),
                                     [A.name(dy), index, A.name(v.id)])
                if v.id == y:
                    # ``y[i] = y``: the value is y before the assignment, whose adjoint
                    # is dy with dy[i] zeroed: add this part only after the zeroing
                    self_part = self.names.gen.fresh(dy + "_value")
                    out.append(A.assign(self_part, contrib))
                else:
                    self.accumulate(state, v.id, contrib, out)
            if state.get(y) == "owned" and not container:
                sub = gast.Subscript(value=A.name(dy), slice=copy.deepcopy(t.slice),
                                     ctx=gast.Store())
                out.append(A.assign(sub, A.const(0)))
            else:
                out.append(A.assign(dy, A.call(A.attr(self.names.ad, "zero_index"),
                                               [A.name(dy), index])))
                state[y] = "owned"
            if self_part is not None:
                self.accumulate(state, y, A.name(self_part), out)
        if getattr(s, "srcgrad_saved", False):
            if self.kinds.get(y) == "container":
                out.append(A.expr_stmt(A.call(A.attr(self.names.ad, "restore_item"),
                                              [A.name(y), index, self.pop()])))
            else:
                sub = gast.Subscript(value=A.name(y), slice=copy.deepcopy(t.slice),
                                     ctx=gast.Store())
                out.append(A.assign(sub, self.pop()))
        return out

    def bwd_pop(self, s, state):
        """``y = lst.pop()`` moved the list's last item into ``y``.  Its adjoint
        appends ``dy`` back onto ``dlst``; the primal list gets ``y`` back, as the
        adjoint of ``lst.append(v)`` pops it (so a record stack read by generated
        code differentiates like any list)."""
        y = s.targets[0].id
        lst = s.srcgrad_op.names[0]
        out = []
        has_dy = self.an.active(y) and y in state
        if self.an.active(lst) and (lst in state or has_dy):
            out.extend(self.comment(s))
            dl = self.names.d(lst)
            if lst not in state:
                out.append(A.assign(dl, A.call(A.attr(self.names.ad, "zeros_like"),
                                               [A.name(lst)])))
            elif state[lst] != "owned":
                out.append(A.assign(dl, A.call(A.name("list"), [A.name(dl)])))
            state[lst] = "owned"
            item = A.name(self.names.d(y)) if has_dy else \
                A.call(A.attr(self.names.ad, "zeros_like"), [A.name(y)])
            out.append(A.expr_stmt(A.call(A.attr(dl, "append"), [item])))
        if self.needed is None or lst in self.needed:
            if self.choices is not None:
                self.choices["list"].append(lst)
            out.append(A.expr_stmt(A.call(A.attr(lst, "append"), [A.name(y)])))
        state.pop(y, None)
        if getattr(s, "srcgrad_saved", False):
            out.append(A.assign(y, self.pop()))
        return out

    def bwd_append(self, s, state):
        op = s.srcgrad_op
        lst = op.target
        out = []
        if self.an.active(lst) and lst in state:
            out.extend(self.comment(s))
            dl = self.names.d(lst)
            if state[lst] != "owned":
                out.append(A.assign(dl, A.call(A.name("list"), [A.name(dl)])))
                state[lst] = "owned"
            popped = A.call(A.attr(dl, "pop"))
            if op.names and op.names[0] in self.an.varied:
                self.accumulate(state, op.names[0], popped, out)
            else:
                out.append(A.expr_stmt(popped))
        if self.needed is None or lst in self.needed:
            if self.choices is not None:
                self.choices["list"].append(lst)
            out.append(A.expr_stmt(A.call(A.attr(lst, "pop"))))
        return out

    def materialize(self, names, out):
        for n in sorted(names):
            out.append(A.assign(self.names.d(n), A.call(A.attr(self.names.ad, "zeros_like"),
                                                         [A.name(n)])))

    def bwd_if(self, s, state, depth):
        cond = getattr(s, "srcgrad_cond", None)
        if cond is None:
            return []
        st_t, st_f = dict(state), dict(state)
        body = self.bwd_block(s.body, st_t, depth)
        orelse = self.bwd_block(s.orelse, st_f, depth)
        merged = {}
        for n in set(st_t) | set(st_f):
            a, b = st_t.get(n, "owned"), st_f.get(n, "owned")
            merged[n] = "owned" if a == b == "owned" else "shared"
        self.materialize(set(merged) - set(st_t), body)
        self.materialize(set(merged) - set(st_f), orelse)
        state.clear()
        state.update(merged)
        if not body and not orelse:
            return [A.expr_stmt(self.pop())] if depth > 0 else []
        test = A.name(cond) if depth == 0 else self.pop()
        new = gast.If(test=test, body=body or [gast.Pass()], orelse=orelse)
        return [new]

    def bwd_loop(self, s, state, depth):
        if isinstance(s, gast.For):
            if not self.has_reverse(s.body):
                return []
        elif getattr(s, "srcgrad_count", None) is None:
            return []
        head = dict(state)
        for _ in range(20):
            st = dict(head)
            saved_gen = set(self.names.gen.taken)
            body = self.bwd_block(s.body, st, depth + 1)
            new_head = dict(head)
            for n, status in st.items():
                if n not in new_head:
                    new_head[n] = "owned"
                elif status != "owned":
                    new_head[n] = "shared" if head.get(n) != "owned" or status != "owned" else "owned"
            for n in head:
                if n not in st:
                    new_head[n] = head[n]
            if new_head.keys() == head.keys():
                break
            # (adjoint names handed out stay taken: names.adjoints keeps them)
            self.names.gen.taken = saved_gen | set(self.names.adjoints.values())
            head = new_head
        out = []
        pre = []
        self.materialize(set(head) - set(state), pre)
        for n in set(head) - set(state):
            head[n] = "owned"
        self.materialize(set(head) - set(st), body)
        # a loop-carried adjoint that is accumulated in place must be ours to mutate
        state.clear()
        state.update(head)
        if isinstance(s, gast.For):
            rng = s.srcgrad_range
            count = s.srcgrad_count
            if depth > 0:
                if count:
                    pre_count = self.names.gen.fresh("trips")
                    out.append(A.assign(pre_count, self.pop()))
                    count = pre_count
                if rng:
                    pre_rng = self.names.gen.fresh("steps")
                    out.append(A.assign(pre_rng, self.pop()))
                    rng = pre_rng
            it = A.name(rng) if rng else copy.deepcopy(s.iter)
            if count:
                it = gast.Subscript(value=it, slice=gast.Slice(lower=None, upper=A.name(count),
                                                              step=None), ctx=gast.Load())
            it = A.call(A.name("reversed"), [it])
            loop = gast.For(target=copy.deepcopy(s.target), iter=it, body=body or [gast.Pass()],
                            orelse=[], type_comment=None)
        else:
            count = A.name(s.srcgrad_count) if depth == 0 else self.pop()
            loop = gast.For(target=A.store(self.names.gen.fresh("_")), iter=A.call(
                A.name("range"), [count]), body=body or [gast.Pass()], orelse=[],
                type_comment=None)
        A.copy_loc(loop, s)
        return pre + out + [loop]


# what a pass writes on the body's statements (``Reverse.strip`` removes it)
_MARKS = ("srcgrad_saved", "srcgrad_cond", "srcgrad_count", "srcgrad_range",
          "srcgrad_callee")


class _Qualify(gast.NodeTransformer):
    """Substitute a template's names; qualify helpers (``ad.``), numpy and math."""

    def __init__(self, mapping, helpers, names):
        self.mapping = mapping
        self.helpers = helpers
        self.names = names

    def qualify(self, tree):
        """A copy of the template ``tree`` with its names substituted."""
        return A.clone_with(tree, self._replace)

    def _replace(self, node):
        r = self.visit_Name(node)
        return None if r is node else r

    def visit_Name(self, node):
        if not isinstance(node.ctx, gast.Load):
            return node
        if node.id in self.mapping:
            return A.clone(self.mapping[node.id])
        if node.id in self.helpers:
            return A.attr(self.names.ad, node.id)
        if node.id == "np":
            return A.name(self.names.np)
        if node.id == "math":
            return A.name(self.names.math)
        return node


def _as_node(v):
    if isinstance(v, gast.AST):
        if isinstance(v, (gast.Slice, gast.Tuple)):
            return A.slice_to_expr(v)
        return v
    if isinstance(v, tuple):
        return A.tuple_([_as_node(x) for x in v])
    if isinstance(v, list):
        return gast.List(elts=[_as_node(x) for x in v], ctx=gast.Load())
    return A.const(v)


def _bound_names(a):
    """The names an argument bound to a parameter carries: a name, or the items of the
    tuple (``*args``) or dict (``**kwargs``) of atoms that Python's binding packs."""
    if isinstance(a, gast.Name):
        return [a.id]
    items = a.values() if isinstance(a, dict) else a if isinstance(a, (tuple, list)) else ()
    return [x.id for x in items if isinstance(x, gast.Name)]


def _unpack_grad(a, grad, ad):
    """[(name, its gradient expression)] from the gradient ``grad`` of a parameter bound
    to ``a`` (see :func:`_bound_names`)."""
    if isinstance(a, gast.Name):
        return [(a.id, grad)]
    if isinstance(a, dict):   # a sparse dict gradient: zeros for the keys nobody read
        return [(x.id, A.call(A.attr(ad, "item_grad"), [copy.deepcopy(grad), A.const(k), x]))
                for k, x in a.items() if isinstance(x, gast.Name)]
    return [(x.id, gast.Subscript(value=copy.deepcopy(grad), slice=A.const(k), ctx=gast.Load()))
            for k, x in enumerate(a) if isinstance(x, gast.Name)]


def _is_basic_index(index):
    """An index made of constants and slices only (each item selected at most once)."""
    return all(isinstance(n, (gast.Constant, gast.Slice, gast.Tuple, gast.expr_context,
                              gast.UnaryOp, gast.unaryop)) and
               not (isinstance(n, gast.Constant) and isinstance(n.value, (list, bool)))
               for n in gast.walk(index))


def _is_range_call(e):
    return isinstance(e, gast.Call) and isinstance(e.func, gast.Name) and e.func.id == "range"


def _ends_with_break(body):
    return bool(body) and isinstance(body[-1], gast.If) and any(
        isinstance(x, gast.Break) for x in body[-1].body)


def _assign_counts(body, params):
    counts = {p: 1 for p in params}

    def visit(stmts, in_loop):
        for s in stmts:
            if isinstance(s, gast.Assign):
                t = s.targets[0]
                if isinstance(t, gast.Name):
                    counts[t.id] = counts.get(t.id, 0) + (2 if in_loop else 1)
                else:
                    counts[t.value.id] = counts.get(t.value.id, 0) + 2
            elif isinstance(s, gast.Expr) and getattr(s, "srcgrad_op", None) is not None \
                    and s.srcgrad_op.kind in ("append", "mutate", "restore"):
                counts[s.srcgrad_op.target] = counts.get(s.srcgrad_op.target, 0) + 2
            elif isinstance(s, gast.If):
                visit(s.body, in_loop)
                visit(s.orelse, in_loop)
            elif isinstance(s, (gast.For, gast.While)):
                if isinstance(s, gast.For):
                    counts[s.target.id] = counts.get(s.target.id, 0) + 2
                visit(s.body, True)
    visit(body, False)
    return counts


def _setitem_targets(body, func=None):
    """Names changed in place: ``x[i] = v``, ``lst.append(v)``, and the arguments of
    user functions that change them (``func``: the function the body is from)."""
    from ..analysis.aliasing import callee_written_args
    out = callee_written_args(body, func) if func is not None else set()
    for s in body:
        for n in A.statements(s):
            if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Subscript):
                out.add(n.targets[0].value.id)
            elif isinstance(n, gast.Expr) and getattr(n, "srcgrad_op", None) is not None \
                    and n.srcgrad_op.kind in ("append",):
                out.add(n.srcgrad_op.target)
    return out




def _check_aliases(body, info, kinds=None, params=()):
    """Reject in-place updates of a value that another name may share (aliasing.py)."""
    from ..analysis import aliasing
    hard = {n.targets[0].value.id for s in body for n in A.statements(s)
            if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Subscript) and
            isinstance(n.targets[0].value, gast.Name)}
    # ``x += v`` changes an array in place, unless x is known to be a Python scalar
    # (``kinds`` is None when the code is not specialized on its arguments' kinds: a
    # parameter may then be a float, and ``s = a; s += 1`` is common and right)
    # srcgrad's own generated code writes ``dx += e`` only on adjoints it owns (no alias)
    own_code = getattr(info.func, "__srcgrad_transformable__", False)
    if own_code:
        # generated code (transformed again: hvp, hessian) was checked as the user's
        # code; its record stack holds values that the sweeps restore, and its
        # in-place adjoint updates are on adjoints it owns
        return
    soft = set()
    if kinds is not None:
        soft = {n.targets[0].id for s in body for n in A.statements(s)
                if isinstance(n, gast.Assign) and getattr(n, "srcgrad_inplace", False)
                and kinds.get(n.targets[0].id) != "float"}
    # a call of a user function may change its arguments in place (aliasing.py)
    calls = any(isinstance(n, (gast.Assign, gast.Expr)) and isinstance(n.value, gast.Call)
                for s in body for n in A.statements(s))
    if not hard and not soft and not calls:
        return
    # compiler temporaries are used once, right away: never a live alias
    temps = {n.targets[0].id for s in body for n in A.statements(s)
             if isinstance(n, gast.Assign) and getattr(n, "srcgrad_temp", False) and
             isinstance(n.targets[0], gast.Name)}
    temps |= set(getattr(info.func, "__srcgrad_temps__", ()))
    aliasing.check(body, info, params, hard, soft, temps, getattr(info, "ad_name", "ad"))


def temporaries(body):
    """Names of normalize's temporaries (used once, right away: never an alias)."""
    return frozenset(n.targets[0].id for s in body for n in A.statements(s)
                     if isinstance(n, gast.Assign) and getattr(n, "srcgrad_temp", False))


def shape_only_reads(bwd, ad_name):
    """Names that the adjoint sweep reads only as ``ad.unbroadcast(g, name)``'s shape."""
    shape, value = set(), set()

    def visit(node, shape_pos=False):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            (shape if shape_pos else value).add(node.id)
            return
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                node.func.attr == "unbroadcast" and isinstance(node.func.value, gast.Name) and \
                node.func.value.id == ad_name and len(node.args) == 2:
            visit(node.func)
            visit(node.args[0])
            visit(node.args[1], shape_pos=True)
            return
        for child in gast.iter_child_nodes(node):
            visit(child)
    for s in bwd:
        visit(s)
    return shape - value


def _callee_kinds(bound, kinds):
    """What the caller knows of the arguments it passes a user function: the
    parameters given a list, tuple or dict (so the callee reads them as such, e.g.
    ``np.mean(lst, axis=0)`` as ``np.mean(np.asarray(lst), axis=0)``)."""
    return {p: "container" for p, a in bound.arguments.items()
            if isinstance(a, gast.Name) and kinds.get(a.id) == "container"}
