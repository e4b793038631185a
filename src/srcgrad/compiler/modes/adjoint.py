"""The adjoint sweep of reverse mode: statements visited in reverse, each derivative
template inlined with the user's names, overwritten values restored from the record
stack, adjoints accumulated (symbolically zero until a contribution arrives).
"""
import copy

import gast

from .. import syntax as A
from ..ir import Comment
from ..analysis.activity import closure_parts
from .adjoint_states import AdjointStates, filled_first, guarded, join_statuses, maybe_none
from .templates import Qualify, as_node, template


class AdjointSweep(AdjointStates):
    """The adjoint-sweep half of :class:`~srcgrad.compiler.modes.reverse.Reverse`."""

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
        return merged_guards(out)

    def bwd_stmt(self, s, state, depth):
        filled = []
        for n in filled_first(self, s, state):
            filled.append(A.assign(self.names.d(n), A.call(
                A.attr(self.names.ad, "fill_like"), [A.name(self.names.d(n)), A.name(n)])))
            state[n] = "shared"
        piece = self.bwd_stmt_kind(s, state, depth)
        # (records.fwd_stmt: the values it changed in place come back, last first)
        undo = getattr(s, "srcgrad_undo", ())
        if undo and not piece:
            piece = self.comment(s)
        for n in reversed(undo):
            piece = piece + [A.expr_stmt(A.call(A.attr(self.names.ad, "restore_item"), [
                A.name(n), A.const(Ellipsis), self.pop()]))]
        return filled + piece if filled and piece else piece

    def bwd_stmt_kind(self, s, state, depth):
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
            if op is not None and op.kind == "restore":
                return self.bwd_restore(s, state)
            return []
        if isinstance(s, gast.If):
            return self.bwd_if(s, state, depth)
        if isinstance(s, gast.For):
            return self.bwd_loop(s, state, depth)
        if isinstance(s, gast.While):
            return self.bwd_loop(s, state, depth)
        if isinstance(s, gast.FunctionDef):
            return self.bwd_def(s, state)
        return []

    def bwd_def(self, s, state):
        """``def g(t, c=c_default): ... w ...`` made a function value that holds
        ``c_default`` and ``w``: its gradient (a dict by parameter or free name, from
        the calls it went to) flows to them."""
        g = s.name
        if not (self.an.active(g) and g in state):
            state.pop(g, None)
            return []
        out = list(self.comment(s))
        dg = self.names.d(g)
        for key, n in closure_parts(s):
            if n in self.an.varied:
                part = A.call(A.attr(self.names.ad, "item_grad"),
                              [A.name(dg), A.const(key), A.name(n)])
                self.accumulate(state, n, part, out, container=self.kinds.get(n) != "num")
        state.pop(g, None)
        return out

    def accumulate(self, state, var, expr, out, container=False, maybe=False):
        """``dvar += expr``; ``maybe``: ``expr`` may be None (an item of a record
        stack's adjoint, see ``stack_lists``)."""
        d = self.names.d(var)
        scatter = self.is_scatter(expr)
        if maybe:
            if var not in state:
                out.append(A.assign(d, expr))
            else:
                out.append(A.assign(d, A.call(A.attr(self.names.ad, "add_grads"),
                                              [A.name(d), expr])))
            state[var] = "maybe" if state.get(var, "maybe") == "maybe" else "shared"
            return
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
        # ``+`` only where the value is known to be a number or an array: a name of
        # unknown kind (a parameter nobody told us about, ``hs = seq[1]``) may hold a
        # list, whose adjoint ``+`` would concatenate
        unknown = self.kinds.get(var) not in ("num", "float") and var not in self.numeric()
        if state[var] == "maybe":
            # it may be None: ``ad.add_grads(None, g)`` is ``g`` itself, not ours
            out.append(A.assign(d, A.call(A.attr(self.names.ad, "add_grads"),
                                          [A.name(d), expr])))
            state[var] = "shared"
            return
        if container or indexed or unknown or self.kinds.get(var) == "container":
            value = A.call(A.attr(self.names.ad, "add_grads"), [A.name(d), expr])
        elif state[var] == "owned":
            # an adjoint only we hold (zeros we made, or a sum we computed): add in place
            out.append(gast.AugAssign(target=A.store(d), op=gast.Add(), value=expr))
            return
        else:
            value = gast.BinOp(left=A.name(d), op=gast.Add(), right=expr)
        out.append(A.assign(d, value))
        state[var] = "owned"

    def numeric(self):
        """Names every assignment of which computes a number or an array: an operator,
        or a rule that is elementwise, a reduction, or a NumPy function that returns an
        array (computed once per pass)."""
        cached = getattr(self, "_numeric", None)
        if cached is not None:
            return cached
        verdict = {}
        for s in self.an.assigns:
            t = s.targets[0] if isinstance(s, gast.Assign) else None
            if not isinstance(t, gast.Name):
                continue
            op = getattr(s, "srcgrad_op", None)
            ok = isinstance(s.value, (gast.BinOp, gast.UnaryOp))
            if not ok and op is not None and op.kind == "rule":
                f = op.rule.facets
                ok = not f.container and (f.elementwise or f.reduction is not None or
                                          op.rule.name.startswith("np."))
            verdict[t.id] = verdict.get(t.id, True) and ok
        self._numeric = frozenset(n for n, ok in verdict.items() if ok)
        return self._numeric

    def instantiate(self, expr_src, op, ans, g, overrides=None):
        """A rule template with the user's names substituted."""
        mapping = {"g": A.name(g), "ans": A.name(ans) if isinstance(ans, str) else ans}
        for p, v in op.args.items():
            mapping[p] = as_node(v)
        if overrides:
            mapping.update(overrides)
        tree = template(expr_src)
        helpers = self.names.helper_names
        return Qualify(mapping, helpers, self.names).qualify(tree)

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
        # code specialized to the arguments' shapes: the sum they call for, written
        # out (none when they prove it a no-op)
        shapes = getattr(self, "shapes", None)
        if shapes is not None:
            done = shapes.unbroadcast(op, param, contrib.args[0])
            if done is not None:
                return done
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
            before = maybe_none(state, y)
            restore_first = False
            temp_post = None
            arg_names = {n for _, n in op.diff_names()}
            callee = getattr(s, "srcgrad_callee", None) if op.kind == "call" else None
            if callee is not None and depth > 0:
                # the callee's record was pushed after the old value of ``y``: pop it first
                out.append(A.assign(callee[1], self.pop()))
            if saved and y in arg_names:
                reads_ans = op.kind == "rule" and any(
                    "ans" in A.names_read(template(op.rule.vjp[p])) for p, n in op.diff_names()
                    if n in self.an.varied and p in op.rule.vjp)
                if reads_ans:
                    temp_post = self.names.gen.fresh(y + "_out")
                    out.append(A.assign(temp_post, A.name(y)))
                out.append(A.assign(y, self.restore(s)))
                restore_first = True
            ans = temp_post or y
            start = len(out)
            if op.kind == "rule":
                contribs = []   # (name, expression), in parameter order
                seq_items = set()
                self.rule_contribs(s, op, ans, dy, out, contribs, seq_items)
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
            if before is not None:
                self.guard(y, before, state, out, start)
            if saved and not restore_first:
                out.append(A.assign(y, self.restore(s)))
            return out
        if op.kind == "call" and getattr(s, "srcgrad_callee", None) and depth > 0:
            out.append(A.expr_stmt(self.pop()))   # keep the stack balanced
        state.pop(y, None)
        if saved:
            out.append(A.assign(y, self.restore(s)))
        return out

    def rule_contribs(self, s, op, ans, dy, out, contribs, seq_items):
        """A rule's contributions, ``(name, expression)`` in parameter order, onto
        ``contribs``; the items of sequence parameters onto ``seq_items``."""
        # a parameter bound to several items (``*operands`` of np.einsum, the
        # ``*args`` of max/min/math.hypot): its template returns one cotangent
        # per item; compute it once and give item k its entry ``tmp[k]``
        seq_grads, seq_slots = {}, {}
        for p, n in op.diff_names():
            if n not in self.an.varied:
                continue
            expr_src = op.rule.vjp.get(p)
            if expr_src is None:
                raise self.no_vjp(s, op, p)
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
            if p in op.rule.facets.sequence:
                # a whole list bound to a sequence parameter (np.stack(xs)): its
                # cotangent is a list, added item by item (``+`` would concatenate)
                seq_items.add(n)
            # x * x: the same contribution twice is written once, times two
            for i, (m, e) in enumerate(contribs):
                if m == n and A.unparse(e) == A.unparse(contrib):
                    contribs[i] = (m, gast.BinOp(left=A.const(2), op=gast.Mult(),
                                                 right=e))
                    break
            else:
                contribs.append((n, contrib))

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
            before = maybe_none(state, y)
            start = len(out)
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
            if before is not None:
                self.guard(y, before, state, out, start)
        if getattr(s, "srcgrad_saved", False):
            if self.kinds.get(y) in ("container", None):     # (records.fwd_stmt)
                out.append(A.expr_stmt(A.call(A.attr(self.names.ad, "restore_item"),
                                              [A.name(y), index, self.pop()])))
            else:
                sub = gast.Subscript(value=A.name(y), slice=copy.deepcopy(t.slice),
                                     ctx=gast.Store())
                out.append(A.assign(sub, self.pop()))
        return out

    def bwd_restore(self, s, state):
        """``ad.restore_item(x, key, old)``, generated code undoing ``x[key] = v``,
        differentiated again: ``x[key] = old`` (or ``del x[key]``), whose adjoint gives
        ``dx[key]`` to ``old`` and zeroes it; the item it overwrote comes back."""
        op = s.srcgrad_op
        x, key, old = s.value.args
        y = op.target
        out = []
        if self.an.active(y) and y in state:
            out.extend(self.comment(s))
            dy = self.names.d(y)
            before = maybe_none(state, y)
            start = len(out)
            if isinstance(old, gast.Name) and old.id in self.an.varied and old.id != y:
                part = A.call(A.attr(self.names.ad, "item_grad"),
                              [A.name(dy), copy.deepcopy(key), A.name(old.id)])
                self.accumulate(state, old.id, part, out, container=True)
            out.append(A.assign(dy, A.call(A.attr(self.names.ad, "zero_index"),
                                           [A.name(dy), copy.deepcopy(key)])))
            state[y] = "owned"
            if before is not None:
                self.guard(y, before, state, out, start)
        if getattr(s, "srcgrad_saved", False):
            out.append(A.expr_stmt(A.call(A.attr(self.names.ad, "restore_item"),
                                          [A.name(y), copy.deepcopy(key), self.pop()])))
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
            stack = lst in self.stack_lists()
            if lst not in state:
                # a record stack's adjoint holds None for a zero (see ``stack_lists``)
                nones = gast.List(elts=[A.const(None)], ctx=gast.Load())
                zeros = gast.BinOp(left=nones, op=gast.Mult(),
                                   right=A.call(A.name("len"), [A.name(lst)])) if stack else \
                    A.call(A.attr(self.names.ad, "zeros_like"), [A.name(lst)])
                out.append(A.assign(dl, zeros))
            elif state[lst] != "owned":
                out.append(A.assign(dl, A.call(A.name("list"), [A.name(dl)])))
            state[lst] = "owned"
            item = A.name(self.names.d(y)) if has_dy else A.const(None) if stack else \
                A.call(A.attr(self.names.ad, "zeros_like"), [A.name(y)])
            out.append(A.expr_stmt(A.call(A.attr(dl, "append"), [item])))
        if self.mutation_needed(lst, self.needed):
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
                self.accumulate(state, op.names[0], popped, out,
                                maybe=lst in self.stack_lists())
            else:
                out.append(A.expr_stmt(popped))
        if self.mutation_needed(lst, self.needed):
            if self.choices is not None:
                self.choices["list"].append(lst)
            out.append(A.expr_stmt(A.call(A.attr(lst, "pop"))))
        return out

    def guard(self, y, before, state, out, start):
        """``out[start:]``, the adjoint code of a statement that reads ``dy`` where
        ``dy`` may be None, becomes ``if dy is not None: ...``: a zero cotangent gives
        nothing, even where the saved values are NaN or infinite.  What that code gave
        a first value is None on the other path."""
        only_inner, only_other = guarded(y, before, state)
        body = out[start:]
        del out[start:]
        body += self.nones(only_other)
        if not body:
            return
        test = gast.Compare(left=A.name(self.names.d(y)), ops=[gast.IsNot()],
                            comparators=[A.const(None)])
        new = gast.If(test=test, body=body, orelse=self.nones(only_inner))
        new.srcgrad_guard = self.names.d(y)
        out.append(new)

    def nones(self, names):
        return [A.assign(self.names.d(n), A.const(None)) for n in sorted(names)]

    def materialize(self, names, out):
        for n in sorted(names):
            # zeros in the call's namespace: NumPy zeros of a NumPy parameter become Dask
            # zeros when the data is Dask, so ``dw += <dask>`` adds into them
            out.append(A.assign(self.names.d(n), A.call(A.attr(self.names.ad, "zeros_like"),
                                                         [A.name(n), A.name(self.names.np)])))

    def bwd_if(self, s, state, depth):
        cond = getattr(s, "srcgrad_cond", None)
        if cond is None:
            return []
        st_t, st_f = dict(state), dict(state)
        body = self.bwd_block(s.body, st_t, depth)
        orelse = self.bwd_block(s.orelse, st_f, depth)
        merged = join_statuses(st_t, st_f)
        # an adjoint only one path gives a value is None on the other: a symbolic zero
        body += self.nones(set(merged) - set(st_t))
        orelse += self.nones(set(merged) - set(st_f))
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
        # the statuses the body's sweep starts from, found by sweeps that follow the
        # statuses alone; the body's code is generated once, from them, and makes the
        # same names as the last of those sweeps did (names.adjoints keeps theirs)
        gen = self.names.gen
        saved_gen = set(gen.taken)
        start, head, swept = self.loop_statuses(s, state, depth)
        gen.taken = saved_gen | set(self.names.adjoints.values())
        st = dict(start)
        body = self.bwd_block(s.body, st, depth + 1)
        if st != swept:
            raise AssertionError(f"srcgrad: the adjoint statuses of the loop at "
                                 f"{self.info.where(s)} disagree with its adjoint code")
        if head is not start:   # (the sweeps did not agree within 20 rounds)
            gen.taken = saved_gen | set(self.names.adjoints.values())
        out = []
        pre = []
        # (zeros the loop may leave symbolic start as None)
        pre += self.nones(n for n in set(head) - set(state) if head[n] == "maybe")
        self.materialize({n for n in set(head) - set(state) if head[n] != "maybe"}, pre)
        body += self.nones(n for n in set(head) - set(st) if head[n] == "maybe")
        self.materialize({n for n in set(head) - set(st) if head[n] != "maybe"}, body)
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


def merged_guards(out):
    """``if a is not None: c = <a's term> ... else: c = None`` then ``if c is not None:
    ...``: one guard (``c`` is None exactly when ``a`` is), as a reader would write it."""
    merged = []
    for s in out:
        last = merged[-1] if merged else None
        c = getattr(s, "srcgrad_guard", None)
        if c is not None and getattr(last, "srcgrad_guard", None) is not None and \
                _sets_none(last.orelse, c) and _sets_a_value(last.body, c):
            last.body = last.body + s.body
            last.orelse = last.orelse + [x for x in s.orelse if not _sets_none(last.orelse,
                                                                             _target(x))]
            continue
        merged.append(s)
    return merged


def _target(s):
    return s.targets[0].id if isinstance(s, gast.Assign) and \
        isinstance(s.targets[0], gast.Name) else None


def _sets_none(stmts, name):
    return any(_target(x) == name and isinstance(x.value, gast.Constant) and
               x.value.value is None for x in stmts)


def _sets_a_value(stmts, name):
    """Does a top-level statement of ``stmts`` last set ``name`` to a computed value
    (not a name or an item popped, which may be None)?"""
    value = None
    for x in stmts:
        if _target(x) == name:
            value = x.value
        elif name in A.names_stored([x]):
            value = None
    return isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Call)) and not \
        (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and
         value.func.attr in ("pop", "add_grads"))


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


def shape_only_reads(bwd, ad_name):
    """Names that the adjoint sweep reads only as ``ad.unbroadcast(g, name)``'s shape."""
    shape, value = set(), set()
    stack = [(s, False) for s in bwd]
    Name, Load, Call, Attribute = gast.Name, gast.Load, gast.Call, gast.Attribute
    while stack:
        node, shape_pos = stack.pop()
        t = type(node)
        if t is Name:
            if type(node.ctx) is Load:
                (shape if shape_pos else value).add(node.id)
            continue
        if t is Call:
            f = node.func
            if type(f) is Attribute and f.attr == "unbroadcast" and \
                    type(f.value) is Name and f.value.id == ad_name and len(node.args) == 2:
                stack.append((f, False))
                stack.append((node.args[0], False))
                stack.append((node.args[1], True))
                continue
        children = []
        A.push_children(node, children)
        stack.extend([(c, False) for c in children])
    return shape - value
