"""Lowering of control flow: early returns, loops over ``range`` with explicit
indexing, ``break``/``continue``/``return`` inside loops as flags."""
import builtins

import gast

from .. import syntax as A
from .forms import _Jump, _is_zip_call, _item, _offset, _range_len, _tuple_item
from ..source import resolve


class ControlFlow:
    """The Normalizer's methods for returns, loops and jumps."""

    # -- early returns -------------------------------------------------------
    @staticmethod
    def always_returns(stmts):
        if not stmts:
            return False
        last = stmts[-1]
        if isinstance(last, (gast.Return, gast.Raise)):
            return True
        if isinstance(last, gast.If):
            return ControlFlow.always_returns(last.body) and ControlFlow.always_returns(last.orelse)
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

    def _sequence(self, arg, pre, s):
        """The argument of ``enumerate`` / ``zip`` / ``reversed`` in a loop header, as
        something ``len`` and ``[i]`` visit as iterating it does: a dict's keys, what an
        object's ``__iter__`` yields (``ad.indexable``); an array parameter as it is."""
        seq = self.atom(arg, pre, "seq")
        if isinstance(seq, gast.Name) and seq.id in self.known_arrays:
            return seq
        tmp = self.names.fresh("seq")
        pre.append(A.assign(tmp, A.call(A.attr(self.ad_name, "indexable"), [seq]), like=s))
        return A.name(tmp)

    def _enumerate_zip(self, s, it, pre):
        """``for i, (a, b) in enumerate(zip(xs, ys))``: index the zipped sequences
        together (zip itself is no value srcgrad can differentiate through)."""
        seqs = [self._sequence(a, pre, s) for a in it.args[0].args]
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

    def bound_elsewhere(self, loop):
        """Is the loop's target name also bound outside this loop statement?"""
        counts = getattr(self, "_store_counts", None)
        if counts is None:
            counts = self._store_counts = {}
            for n in A.walk(self.fdef.body):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                    counts[n.id] = counts.get(n.id, 0) + 1
        name = loop.target.id
        inside = sum(1 for n in A.walk(loop) if isinstance(n, gast.Name) and
                     isinstance(n.ctx, gast.Store) and n.id == name)
        return counts.get(name, 0) > inside

    def loop_header(self, s):
        """(pre-statements, index name, range expression, per-iteration statements)."""
        it = s.iter
        pre = []
        if isinstance(it, gast.Call) and not self._is_local(it.func):
            fn = resolve(it.func, self.func)
            if fn is builtins.range:
                if isinstance(s.target, gast.Name) and not self.bound_elsewhere(s):
                    return [], s.target.id, it, []
                if isinstance(s.target, gast.Name):
                    # the name is bound outside this loop too (``i = 0; ...; for i in
                    # range(n)``): the loop counts in a name of its own and assigns the
                    # user's, an assignment whose old value the reverse sweep restores
                    idx = self.names.fresh(s.target.id)
                    return [], idx, it, self.assign_target(s.target, A.name(idx), s)
            if fn is builtins.enumerate and len(it.args) >= 1 and _is_zip_call(it.args[0], self):
                return self._enumerate_zip(s, it, pre)
            if fn is builtins.enumerate and len(it.args) >= 1:
                seq = self._sequence(it.args[0], pre, s)
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
            if fn is builtins.zip and it.args and not it.keywords and \
                    not any(isinstance(a, gast.Starred) for a in it.args):
                seqs = [self._sequence(a, pre, s) for a in it.args]
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
            seq = self._sequence(it.args[0], pre, s)
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
