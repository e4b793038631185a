"""The forward sweep of reverse mode: the user's (normalized) code plus the records
the adjoint sweep needs, pushed on a stack only where needed (the value an
assignment is about to overwrite and the adjoint sweep reads, branch decisions, loop
trip counts and ranges, the records of user functions called).  Outside loops an
overwritten value is kept under a fresh name instead (``z_prev = z``: straight-line
code runs once, so no stack); a loop's Python floats go onto its float tape
(float_tapes.py).
"""
import copy
import types

import gast

from .. import syntax as A
from .body import callee_kinds, changed_in_place
from . import float_tapes
from .. import dynamic
from ..frontend import RecursiveBuild


class ForwardSweep:
    """The forward-sweep half of :class:`~srcgrad.compiler.modes.reverse.Reverse`."""

    exact = None            # float_tapes.exact_floats of the body, once asked
    filled = None           # a filled tape -> its loop's counter (restored by reading)

    # -- the stack -----------------------------------------------------------
    def stack_name(self):
        if self.stack is None:
            self.stack = self.names.gen.fresh("stack")
        return self.stack

    def push(self, value, like=None):
        return A.expr_stmt(A.call(A.attr(self.stack_name(), "append"), [value]), like=like)

    def pop(self):
        return A.call(A.attr(self.stack_name(), "pop"))

    def restore(self, s):
        """The value the saved assignment ``s`` overwrote: the top of its loop's float
        tape (float_tapes.py), else of the stack."""
        saved = s.srcgrad_saved
        if type(saved) is str:
            counter = self.filled.get(saved) if self.filled else None
            if counter is not None:     # (a filled tape: the slot of this trip, read)
                return gast.Subscript(value=A.name(saved), slice=A.name(counter),
                                      ctx=gast.Load())
            return A.call(A.attr(saved, "pop"))
        if type(saved) is tuple:            # (straight-line code: its own name)
            return A.name(saved[0])
        return self.pop()

    def needs_save(self, n, depth):
        """Must the old value of ``n`` be pushed before this assignment overwrites it?"""
        if self.needed is not None and n not in self.needed:
            return False
        if self.reads_before is not None and self.top_index is not None and \
                n not in self.reads_before[self.top_index]:
            # only if the adjoint code of earlier top-level statements, or of the one
            # holding this assignment (a loop's own trips), reads it: the adjoints of
            # later statements run before this one's and see the final value
            return False
        if depth > 0:
            answer = True
        else:
            answer = self.assign_counts.get(n, 0) > 1 and n in self.maybe_defined
        if answer and self.choices is not None:
            self.choices["save"].append((n, depth, self.top_index))
        return answer

    # -- forward sweep -------------------------------------------------------
    def fwd_block(self, stmts, depth):
        out = []
        for s in stmts:
            out.extend(self.fwd_stmt(s, depth))
            self.maybe_defined |= A.names_stored([s])
        return out

    def fwd_stmt(self, s, depth):
        undo = [n for n in changed_in_place(s, self.info.func)
                if self.mutation_needed(n, self.needed)]
        if not undo:
            return self.fwd_stmt_kind(s, depth)
        # an in-place change the statement makes to a value with no gradient that the
        # adjoint reads (``d.sort()``, ``np.copyto(d, v)``, a user function that scales
        # its argument in place): its old value is saved, and put back in the reverse
        # sweep once the statement's own adjoint ran (adjoint.bwd_stmt)
        s.srcgrad_undo = undo
        if self.choices is not None:
            self.choices["item"].extend(undo)
        return [self.push(A.call(A.attr(self.names.ad, "copy"), [A.name(n)]), like=s)
                for n in undo] + self.fwd_stmt_kind(s, depth)

    def fwd_stmt_kind(self, s, depth):
        if isinstance(s, gast.Assign):
            t = s.targets[0]
            out = []
            if isinstance(t, gast.Name):
                op = s.srcgrad_op
                if self.needs_save(t.id, depth):
                    self.saved_vars.add(t.id)
                    s.srcgrad_saved = True
                    value = A.name(t.id)
                    slot = self.tape_slots.get(id(s)) if t.id not in self.shape_only \
                        else None
                    if slot is not None:
                        # a Python float each trip: onto the loop's tape, unboxed
                        tape, counter = slot
                        s.srcgrad_saved = tape
                        self.taped.add(t.id)
                        self.tapes_used.add(tape)
                        if counter is None:
                            out.append(A.expr_stmt(A.call(A.attr(tape, "append"), [value]),
                                                   like=s))
                        else:       # (its own tape, one slot a trip: float_tapes.py)
                            if self.filled is None:
                                self.filled = {}
                            self.filled[tape] = counter
                            out.append(A.assign(gast.Subscript(
                                value=A.name(tape), slice=A.name(counter),
                                ctx=gast.Store()), value, like=s))
                        return out + [s]
                    if t.id in self.shape_only:
                        # the adjoint sweep reads only its shape (to un-broadcast): of a
                        # number or an array, ``ad.shape_of`` (np.shape dispatches, at
                        # four times the cost); of anything else, np.shape (a list's)
                        shape = A.attr(self.names.ad, "shape_of") \
                            if self.kinds.get(t.id) in ("num", "float") else \
                            A.attr(self.names.np, "shape")
                        value = A.call(shape, [value])
                    if depth == 0:
                        # straight-line code runs once: the old value gets a name of its
                        # own (no stack), which the adjoint sweep reads back
                        keep = self.names.gen.fresh(t.id + "_prev")
                        s.srcgrad_saved = (keep,)
                        out.append(A.assign(keep, value, like=s))
                    else:
                        out.append(self.push(value, like=s))
                if op.kind == "call" and self.call_active(s):
                    return out + self.fwd_call(s, depth)
                out.append(s)
                return out
            base = t.value.id
            if self.mutation_needed(base, self.needed):
                if self.choices is not None:
                    self.choices["item"].append(base)
                s.srcgrad_saved = True
                if self.kinds.get(base) in ("container", None):
                    # a dict may not hold the key yet: ``ad.old_item`` / ``ad.restore_item``
                    # (so may a value of unknown kind: a free name, a callee's argument)
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
            if op is not None and op.kind == "restore" and \
                    self.mutation_needed(op.target, self.needed):
                # generated code undoing ``x[key] = v``, differentiated again: the item
                # it overwrites is saved, as for ``x[key] = v`` itself
                if self.choices is not None:
                    self.choices["item"].append(op.target)
                s.srcgrad_saved = True
                x, key, _ = s.value.args
                out.insert(0, self.push(A.call(A.attr(self.names.ad, "old_item"),
                                               [A.name(x.id), copy.deepcopy(key)]), like=s))
            return out
        if isinstance(s, gast.If):
            body = self.fwd_block(s.body, depth)
            orelse = self.fwd_block(s.orelse, depth)
            if not self.has_reverse(s.body + s.orelse):
                new = gast.If(test=s.test, body=body or [gast.Pass()], orelse=orelse)
                return [A.copy_loc(new, s)]
            cond = self.names.gen.fresh("cond")
            s.srcgrad_cond = cond
            # a Python bool, decided once: a lazy (Dask) or device condition is computed
            # here, not again when the reverse sweep pops it
            out = [A.assign(cond, A.call(A.name("bool"), [s.test]), like=s)]
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
        tape = self.float_tapes(s, depth)
        body = self.fwd_block(s.body, depth + 1)
        if depth == 0:
            self.tape_slots = {}
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
        out.extend(self.tape_setup(s, tape))
        out.append(A.copy_loc(new, s))
        if depth > 0:
            if s.srcgrad_range:
                out.append(self.push(A.name(s.srcgrad_range), like=s))
            if has_break:
                out.append(self.push(A.name(s.srcgrad_count), like=s))
        return out

    # -- float tapes (float_tapes.py) ---------------------------------------
    tape_slots = {}         # id(assignment) -> its loop's tape, while in that loop

    def float_tapes(self, loop, depth):
        """The name of ``loop``'s float tape, with ``self.tape_slots`` holding the ids
        of the assignments in its body whose saves may go onto it; None if none may."""
        if depth > 0:
            return None     # (a loop in a loop: the outer loop's slots stay)
        self.tape_slots, self.taped, self.tapes_used = {}, set(), set()
        if _ends_with_break(loop.body) or not _is_range_call(loop.iter):
            return None
        counters = float_tapes.range_counters(self.body)
        if self.exact is None:
            self.exact = float_tapes.exact_floats(self.body, self.params, self.kinds,
                                                  counters)
        floats, _ = self.exact
        counter = float_tapes.trip_counter(loop, counters)
        tapes = []
        for st in loop.body:
            if isinstance(st, gast.Assign) and isinstance(st.targets[0], gast.Name) and \
                    st.targets[0].id in floats:
                if counter is not None or not tapes:
                    tapes.append(self.names.gen.fresh(
                        "tape" if counter is None else st.targets[0].id + "_tape"))
                self.tape_slots[id(st)] = (tapes[-1], counter)
        return (tapes, counter) if tapes else None

    def tape_setup(self, loop, tape):
        """Before ``loop``: its tape, and ``0.0`` in each taped name that nothing
        before the loop assigns (the value its first trip saves)."""
        if tape is None or not self.taped:
            return []
        tapes, counter = tape
        _, assumed = self.exact
        make = "float_tape" if counter is None else "filled_tape"
        out = [A.assign(t, A.call(A.attr(self.names.ad, make),
                                  [A.clone(loop.iter)] + [A.name(p) for p in assumed]),
                        like=loop) for t in tapes if t in self.tapes_used]
        for name in sorted(self.taped):
            if name not in self.params and \
                    not float_tapes.assigned_before(self.body, loop, name):
                out.append(A.assign(name, A.const(0.0), like=loop))
        return out

    def call_active(self, s):
        t = s.targets[0].id
        return self.an.active(t) and any(n in self.an.varied for _, n in s.srcgrad_op.diff_names())

    def fwd_call(self, s, depth):
        """``y = f(a, b)`` with f the user's function: call its generated forward."""
        op = s.srcgrad_op
        target = s.targets[0].id
        pos, kws = op.callee_args
        if getattr(op, "dynamic", None) is not None:
            return self.fwd_dynamic_call(s, op, target, pos, kws, depth)
        import inspect
        try:
            bound = inspect.signature(op.func, follow_wrapped=False).bind(*pos, **dict(kws))
        except TypeError as e:
            raise self.info.error(s, f"cannot bind the call to {op.func.__name__}: {e}")
        # a parameter gets a gradient if its argument varies; ``*args`` / ``**kwargs``
        # (a tuple / dict of the call's atoms) if any of their items does
        wrt = tuple(p for p, a in bound.arguments.items()
                    if any(n in self.an.varied for n in _bound_names(a)))
        try:
            fwd_fn, bwd_fn = self.callee_factory(op.func, wrt, s,
                                                 callee_kinds(bound, self.kinds))
        except RecursiveBuild:
            # recursion: this derivative is being built; call it as it is when the
            # call runs (compiler/dynamic.py resolves it then, built by that time)
            op.dynamic = copy.deepcopy(s.value.func)
            return self.fwd_dynamic_call(s, op, target, pos, kws, depth)
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

    def fwd_dynamic_call(self, s, op, target, pos, kws, depth):
        """``y = f(a, b)`` with f known only at run time (compiler/dynamic.py):
        ``y, f_record = call_forward(f, wrt, site, a, b)``; the adjoint sweep calls
        ``call_backward(f_record, dy)`` for the gradients of the arguments in ``wrt``."""
        varied = self.an.varied
        if getattr(op, "starred", False):
            return self.fwd_starred_call(s, op, target, pos, kws, depth)
        wrt = tuple(i for i, a in enumerate(pos) if isinstance(a, gast.Name) and a.id in varied)
        wrt += tuple(k for k, a in kws if isinstance(a, gast.Name) and a.id in varied)
        fname = self.dynamic_name("call_forward", dynamic.call_forward)
        bname = self.dynamic_name("call_backward", dynamic.call_backward)
        label = op.dynamic.attr if isinstance(op.dynamic, gast.Attribute) else \
            op.dynamic.id if isinstance(op.dynamic, gast.Name) else "f"
        saved = self.names.gen.fresh(label + "_record")
        args = [pos[i] if isinstance(i, int) else dict(kws)[i] for i in wrt]
        if getattr(op, "callee_grad", False):
            # ``layer.forward(x)`` with layer varied: ``None`` asks for the callee's own
            # gradient (its object's), which goes to layer
            wrt = (None,) + wrt
            args = [A.name(op.receiver)] + args
        s.srcgrad_callee = (bname, saved, args)
        site = dynamic.site(self.info.filename, s.lineno)
        value = gast.Call(func=A.name(fname),
                          args=[copy.deepcopy(op.dynamic), A.tuple_([A.const(w) for w in wrt]),
                                A.const(site)] + list(pos),
                          keywords=[gast.keyword(arg=k, value=v) for k, v in kws])
        out = [A.assign(A.tuple_([A.store(target), A.store(saved)], gast.Store()), value, like=s)]
        if depth > 0:
            out.append(self.push(A.name(saved), like=s))
        return out

    def fwd_starred_call(self, s, op, target, pos, kws, depth):
        """``y = f(a, *xs, k=b, **kw)``: ``call_forward_star(f, wrt, site, stars, (a, xs),
        (("k", b), (None, kw)))``; ``wrt`` indexes the pieces (positional, then keyword)
        whose values vary, ``stars`` the positional pieces that are unpacked."""
        varied = self.an.varied
        pieces = [a.value if isinstance(a, gast.Starred) else a for a in pos]
        stars = tuple(i for i, a in enumerate(pos) if isinstance(a, gast.Starred))
        every = pieces + [v for _, v in kws]
        wrt = tuple(i for i, a in enumerate(every) if isinstance(a, gast.Name) and a.id in varied)
        fname = self.dynamic_name("call_forward_star", dynamic.call_forward_star)
        bname = self.dynamic_name("call_backward", dynamic.call_backward)
        label = op.dynamic.attr if isinstance(op.dynamic, gast.Attribute) else \
            op.dynamic.id if isinstance(op.dynamic, gast.Name) else "f"
        saved = self.names.gen.fresh(label + "_record")
        args = [every[i] for i in wrt]
        if getattr(op, "callee_grad", False):      # (as in fwd_dynamic_call)
            wrt = (None,) + wrt
            args = [A.name(op.receiver)] + args
        s.srcgrad_callee = (bname, saved, args)
        site = dynamic.site(self.info.filename, s.lineno)
        kw_pieces = A.tuple_([A.tuple_([A.const(k), copy.deepcopy(v)]) for k, v in kws])
        value = A.call(A.name(fname), [copy.deepcopy(op.dynamic),
                                       A.tuple_([A.const(w) for w in wrt]), A.const(site),
                                       A.tuple_([A.const(i) for i in stars]),
                                       A.tuple_([copy.deepcopy(p) for p in pieces]), kw_pieces])
        out = [A.assign(A.tuple_([A.store(target), A.store(saved)], gast.Store()), value, like=s)]
        if depth > 0:
            out.append(self.push(A.name(saved), like=s))
        return out

    def dynamic_name(self, base, fn):
        """The closure name generated code calls ``fn`` by (one per function)."""
        for name, obj in self.callees.items():
            if obj is fn:
                return name
        name = self.names.gen.fresh(base)
        self.callees[name] = fn
        return name

    def has_reverse(self, stmts):
        """Does this code need anything in the adjoint sweep (adjoints or restores)?"""
        answer = self._has_reverse(stmts, self.needed)
        if self.choices is not None:
            self.choices["reverse"][id(stmts)] = (stmts, answer)
        return answer

    def _has_reverse(self, stmts, needed):
        for s in stmts:
            for n in A.statements(s):
                if any(self.mutation_needed(m, needed)       # (fwd_stmt's undo)
                       for m in changed_in_place(n, self.info.func)):
                    return True
                if isinstance(n, gast.Assign):
                    t = n.targets[0]
                    tid = t.id if isinstance(t, gast.Name) else t.value.id
                    if self.an.active(tid) or needed is None or tid in needed:
                        return True
                    op = getattr(n, "srcgrad_op", None)
                    if op is not None and op.kind == "pop" and self.an.active(op.target):
                        return True
                elif isinstance(n, gast.Expr) and getattr(n, "srcgrad_op", None) is not None \
                        and n.srcgrad_op.kind in ("append", "restore"):
                    if self.an.active(n.srcgrad_op.target) or needed is None or \
                            n.srcgrad_op.target in needed:
                        return True
        return False


def _bound_names(a):
    """The names an argument bound to a parameter carries: a name, or the items of the
    tuple (``*args``) or dict (``**kwargs``) of atoms that Python's binding packs."""
    if isinstance(a, gast.Name):
        return [a.id]
    items = a.values() if isinstance(a, dict) else a if isinstance(a, (tuple, list)) else ()
    return [x.id for x in items if isinstance(x, gast.Name)]


def _is_range_call(e):
    return isinstance(e, gast.Call) and isinstance(e.func, gast.Name) and e.func.id == "range"


def _ends_with_break(body):
    return bool(body) and isinstance(body[-1], gast.If) and any(
        isinstance(x, gast.Break) for x in body[-1].body)
