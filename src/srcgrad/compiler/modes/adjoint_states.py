"""The adjoint statuses of a loop body, without its adjoint code.

The adjoint sweep tracks, for each adjoint it has, whether the array is ours to add
into in place ("owned"), may be someone else's ("shared"), or may be None ("maybe"): a
zero that control flow left symbolic, because a branch not taken gave it no value.
The adjoint code of a statement whose result's adjoint may be None runs only if it is
not (a zero cotangent times a NaN on a path that does not reach the result would be
NaN).

A loop's body is swept from the statuses at the head of its reverse loop, and those must agree with the ones
the body leaves for the next trip: a fixpoint.  Each ``status_*`` method here follows
its ``bwd_*`` twin in :mod:`.adjoint` step by step, changing ``state`` as it does and
asking for the same names in the same order (adjoints, fresh names, the stack), but
building no code; so the body's code is generated once, from the fixpoint.  A change
to a ``bwd_*`` method that touches the statuses or the names needs the same change
here (``bwd_loop`` checks that both reach the same statuses).
"""
import gast

from .. import syntax as A
from ...errors import NonDifferentiableError
from ..analysis.activity import closure_parts
from .templates import template


class AdjointStates:
    """The status-only half of :class:`~srcgrad.compiler.modes.adjoint.AdjointSweep`."""

    def loop_statuses(self, s, state, depth):
        """(the statuses the body is swept from, the statuses at the loop's head after
        it, the statuses the body leaves): the head's statuses when they agree (the
        same object twice), else the last two of 20 rounds."""
        head = dict(state)
        for _ in range(20):
            st = dict(head)
            saved_gen = set(self.names.gen.taken)
            self.status_block(s.body, st, depth + 1)
            new_head = next_head(head, st)
            # (statuses only go from owned to shared and names are only added: this
            # ends; stopping on equal keys alone kept an adjoint "owned" that the body
            # rebinds to a kernel's value, e.g. a read-only broadcast, then added to in
            # place on the next trip)
            if new_head == head:
                return head, head, st
            # (adjoint names handed out stay taken: names.adjoints keeps them)
            self.names.gen.taken = saved_gen | set(self.names.adjoints.values())
            start, head = head, new_head
        return start, head, st

    def stack_lists(self):
        """Lists the function only makes empty, appends to and pops from: the record
        stacks of generated code being differentiated again.  Their adjoints hold None
        for a zero item, so a zero stays symbolic through the stack."""
        cached = getattr(self, "_stack_lists", None)
        if cached is None:
            cached = self._stack_lists = frozenset(stack_lists(self.body))
        return cached

    def status_block(self, stmts, state, depth):
        for s in reversed(stmts):
            self.status_stmt(s, state, depth)

    def status_stmt(self, s, state, depth):
        for n in filled_first(self, s, state):
            self.names.d(n)
            state[n] = "shared"
        if getattr(s, "srcgrad_undo", ()):         # (records.fwd_stmt: values put back)
            self.stack_name()
        if isinstance(s, gast.Assign):
            if isinstance(s.targets[0], gast.Name):
                self.status_assign(s, state, depth)
            else:
                self.status_setitem(s, state, depth)
        elif isinstance(s, gast.Expr):
            op = getattr(s, "srcgrad_op", None)
            if op is not None and op.kind == "append":
                self.status_append(s, state)
            elif op is not None and op.kind == "restore":
                self.status_restore(s, state)
        elif isinstance(s, gast.If):
            self.status_if(s, state, depth)
        elif isinstance(s, (gast.For, gast.While)):
            self.status_loop(s, state, depth)
        elif isinstance(s, gast.FunctionDef):
            if self.an.active(s.name) and s.name in state:     # (adjoint.bwd_def)
                for _, n in closure_parts(s):
                    if n in self.an.varied:
                        self.status_accumulate(state, n)
            state.pop(s.name, None)

    def status_accumulate(self, state, var, scatters=None, maybe=False):
        """``accumulate``'s statuses; ``scatters()``: is the contribution
        ``ad.index_grad(g, x, i)``, a fresh adjoint that is ours?"""
        self.names.d(var)
        if maybe:
            state[var] = "maybe" if state.get(var, "maybe") == "maybe" else "shared"
        elif var not in state:
            state[var] = "owned" if scatters is not None and scatters() else "shared"
        else:
            # (``ad.add_grads(None, g)`` is ``g`` itself)
            state[var] = "shared" if state[var] == "maybe" else "owned"

    def status_assign(self, s, state, depth):
        y = s.targets[0].id
        op = s.srcgrad_op
        if op.kind == "pop":
            return self.status_pop(s, state)
        saved = getattr(s, "srcgrad_saved", False)
        if not (self.an.active(y) and y in state and op.kind not in ("nograd", "const")):
            if op.kind == "call" and getattr(s, "srcgrad_callee", None) and depth > 0:
                self.stack_name()
            state.pop(y, None)
            if saved:
                self.stack_name()
            return
        self_terms = False
        dy = self.names.d(y)
        before = maybe_none(state, y)
        restore_first = False
        temp_post = None
        pairs = op.diff_names()
        callee = getattr(s, "srcgrad_callee", None) if op.kind == "call" else None
        if callee is not None and depth > 0:
            self.stack_name()
        if saved and any(n == y for _, n in pairs):
            reads_ans = op.kind == "rule" and any(
                "ans" in A.names_read(template(op.rule.vjp[p])) for p, n in pairs
                if n in self.an.varied and p in op.rule.vjp)
            if reads_ans:
                temp_post = self.names.gen.fresh(y + "_out")
            self.stack_name()
            restore_first = True
        ans = temp_post or y
        if op.kind == "rule":
            for n, scatters in self.status_contribs(s, op, ans, dy, pairs):
                if n == y:
                    self_terms = True
                else:
                    self.status_accumulate(state, n, scatters)
        elif op.kind in ("copy",):
            for n in op.names:
                if n in self.an.varied:
                    if n == y:
                        self_terms = True
                    else:
                        self.status_accumulate(state, n)
        elif op.kind == "literal":
            v = s.value
            if isinstance(v, gast.Dict):
                elts = v.values
            elif isinstance(v, gast.Call):  # dict(...) / list(...)
                elts = [k.value for k in v.keywords]
            else:
                elts = v.elts
            for e in elts:
                if isinstance(e, gast.Name) and e.id in self.an.varied:
                    if e.id == y:
                        self_terms = True
                    else:
                        self.status_accumulate(state, e.id)
        elif op.kind == "call":
            bname, _, args = getattr(s, "srcgrad_callee", (None, None, None))
            if bname is not None:
                if len(args) == 1 and isinstance(args[0], gast.Name) and \
                        args[0].id not in state and args[0].id != y:
                    self.status_accumulate(state, args[0].id)
                else:
                    self.names.gen.fresh("grads")
                    for a in args:
                        for n in _bound(a):
                            if n not in self.an.varied:
                                continue
                            if n == y:
                                self_terms = True
                            else:
                                self.status_accumulate(state, n)
        elif op.kind == "unknown":
            raise self.an.nondiff(s, op)
        if self_terms:
            state[y] = "shared"
        else:
            state.pop(y, None)
        if before is not None:
            guarded(y, before, state)
        if saved and not restore_first:
            self.stack_name()

    def status_contribs(self, s, op, ans, dy, pairs):
        """[(name, scatters)] as ``bwd_assign`` collects a rule's contributions
        (``pairs``: the op's ``diff_names()``)."""
        varied = [n for _, n in pairs if n in self.an.varied]
        if len(set(varied)) < len(varied):
            # a name given twice (x * x): equal contributions are merged, which only
            # their code tells; build them as bwd_assign does
            out, contribs = [], []
            self.rule_contribs(s, op, ans, dy, out, contribs, set())
            return [(n, lambda e=e: self.is_scatter(e)) for n, e in contribs]
        found, seq_grads = [], set()
        for p, n in pairs:
            if n not in self.an.varied:
                continue
            expr_src = op.rule.vjp.get(p)
            if expr_src is None:
                raise self.no_vjp(s, op, p)
            if isinstance(op.args.get(p), (tuple, list, gast.Tuple, gast.List)):
                if p not in seq_grads:
                    seq_grads.add(p)
                    self.names.gen.fresh(self.names.d(p))
                found.append((n, None))     # an item of a tuple: never a scatter
                continue
            found.append((n, lambda p=p, expr_src=expr_src:
                          self.template_scatters(expr_src, op, ans, dy, p)))
        return found

    def no_vjp(self, s, op, p):
        return NonDifferentiableError(
            f"{op.rule.name} has no reverse-mode derivative for its argument "
            f"{p!r} ({self.info.where(s)}); register one with @sg.adjoint")

    def is_scatter(self, expr):
        """Is ``expr`` ``ad.index_grad(g, x, i)`` (see ``accumulate``)?"""
        return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and \
            expr.func.attr == "index_grad" and isinstance(expr.func.value, gast.Name) and \
            expr.func.value.id == self.names.ad and len(expr.args) == 3

    def template_scatters(self, expr_src, op, ans, dy, p):
        """Is the contribution ``bwd_assign`` makes of the template ``expr_src`` a
        scatter?  Read off the template's head where the substitution cannot change
        it; else the contribution is built."""
        # the substituted names; False: the value is no call (a name, a constant)
        memo = self.__dict__.setdefault("scatter_memo", {})   # (the rounds ask again)
        key = (id(op), p, ans if isinstance(ans, str) else id(ans))
        if key in memo:
            return memo[key]
        mapping = {"g": False, "ans": False if isinstance(ans, str) else None}
        for k, v in op.args.items():
            mapping[k] = None if isinstance(v, (gast.Call, gast.Slice, gast.Tuple)) or \
                (isinstance(v, gast.AST) and not isinstance(v, (gast.Name, gast.Constant))) \
                else False
        answer = self._head_scatters(template(expr_src), mapping, True)
        if answer is None:
            contrib = self.drop_unbroadcast(self.instantiate(expr_src, op, ans, dy), op, p)
            answer = self.is_scatter(contrib)
        memo[key] = answer
        return answer

    def _head_scatters(self, node, mapping, top):
        """True/False: whether the instantiated ``node`` (then given to
        ``drop_unbroadcast`` when ``top``) is a scatter; None: it must be built."""
        if isinstance(node, gast.Name):
            return mapping.get(node.id, False)
        if not isinstance(node, gast.Call):
            return False        # (only names are substituted: other nodes keep their kind)
        f = node.func
        if isinstance(f, gast.Name):
            if f.id in mapping:
                return None
            if f.id not in self.names.helper_names:
                return False
            head = f.id                             # qualified: ad.<name>
        elif isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name):
            v = f.value.id
            if v in mapping:
                return None
            if v in self.names.helper_names:
                return False                        # ad.<v>.<attr>
            v = {"np": self.names.np, "math": self.names.math}.get(v, v)
            if v != self.names.ad:
                return False
            head = f.attr
        elif isinstance(f, gast.Attribute):
            return False
        else:
            return None
        if head == "index_grad":
            return len(node.args) == 3
        if head == "unbroadcast" and top:
            # drop_unbroadcast may keep only its first argument
            if not node.args:
                return None
            inner = self._head_scatters(node.args[0], mapping, False)
            return None if inner is None or inner else False
        return False

    def status_setitem(self, s, state, depth):
        t = s.targets[0]
        y = t.value.id
        v = s.value
        if self.an.active(y) and y in state:
            dy = self.names.d(y)
            before = maybe_none(state, y)
            container = self.kinds.get(y) == "container"
            self_part = False
            if isinstance(v, gast.Name) and v.id in self.an.varied:
                if v.id == y:
                    self.names.gen.fresh(dy + "_value")
                    self_part = True
                else:
                    self.status_accumulate(state, v.id)
            if not (state.get(y) == "owned" and not container):
                state[y] = "owned"
            if self_part:
                self.status_accumulate(state, y)
            if before is not None:
                guarded(y, before, state)
        if getattr(s, "srcgrad_saved", False):
            self.stack_name()

    def status_restore(self, s, state):
        op = s.srcgrad_op
        y, old = op.target, s.value.args[2]
        if self.an.active(y) and y in state:
            self.names.d(y)
            before = maybe_none(state, y)
            if isinstance(old, gast.Name) and old.id in self.an.varied and old.id != y:
                self.status_accumulate(state, old.id)
            state[y] = "owned"
            if before is not None:
                guarded(y, before, state)
        if getattr(s, "srcgrad_saved", False):
            self.stack_name()

    def status_pop(self, s, state):
        y = s.targets[0].id
        lst = s.srcgrad_op.names[0]
        has_dy = self.an.active(y) and y in state
        if self.an.active(lst) and (lst in state or has_dy):
            self.names.d(lst)
            state[lst] = "owned"
            if has_dy:
                self.names.d(y)
        state.pop(y, None)
        if getattr(s, "srcgrad_saved", False):
            self.stack_name()

    def status_append(self, s, state):
        op = s.srcgrad_op
        lst = op.target
        if self.an.active(lst) and lst in state:
            self.names.d(lst)
            state[lst] = "owned"
            if op.names and op.names[0] in self.an.varied:
                self.status_accumulate(state, op.names[0], maybe=lst in self.stack_lists())

    def status_materialize(self, names):
        for n in sorted(names):
            self.names.d(n)

    def status_if(self, s, state, depth):
        if getattr(s, "srcgrad_cond", None) is None:
            return
        st_t, st_f = dict(state), dict(state)
        self.status_block(s.body, st_t, depth)
        self.status_block(s.orelse, st_f, depth)
        merged = join_statuses(st_t, st_f)
        self.status_materialize(set(merged) - set(st_t))
        self.status_materialize(set(merged) - set(st_f))
        state.clear()
        state.update(merged)
        if depth > 0:
            self.stack_name()

    def status_loop(self, s, state, depth):
        if isinstance(s, gast.For):
            if not self.has_reverse(s.body):
                return
        elif getattr(s, "srcgrad_count", None) is None:
            return
        _, head, st = self.loop_statuses(s, state, depth)
        self.status_materialize(set(head) - set(state))
        self.status_materialize(set(head) - set(st))
        state.clear()
        state.update(head)
        if isinstance(s, gast.For):
            if depth > 0:
                if s.srcgrad_count:
                    self.names.gen.fresh("trips")
                    self.stack_name()
                if s.srcgrad_range:
                    self.names.gen.fresh("steps")
                    self.stack_name()
        else:
            if depth > 0:
                self.stack_name()
            self.names.gen.fresh("_")


def next_head(head, st):
    """The statuses at a reverse loop's head for the next trip: ``head``'s, and those
    the body leaves (``st``)."""
    new_head = dict(head)
    for n, status in st.items():
        if "maybe" in (status, head.get(n)):
            new_head[n] = "maybe"
        elif n not in new_head:
            # zeros made before the loop: ours (the next round checks that the
            # body leaves it ours for the trips after the first)
            new_head[n] = "owned"
        elif status != "owned":
            new_head[n] = "shared" if head.get(n) != "owned" or status != "owned" else "owned"
    for n in head:
        if n not in st:
            new_head[n] = head[n]
    return new_head


def join_statuses(a, b):
    """The statuses where two paths meet: "maybe" where either path may have left None
    or only one path gave the adjoint a value (the other path sets it to None)."""
    merged = {}
    for n in set(a) | set(b):
        x, y = a.get(n, "maybe"), b.get(n, "maybe")
        merged[n] = "maybe" if "maybe" in (x, y) else \
            "owned" if x == y == "owned" else "shared"
    return merged


def maybe_none(state, y):
    """The statuses before a statement whose adjoint code reads ``dy``, where ``dy`` may
    be None (that code then runs only if it is not, knowing it is an array); else None."""
    if state.get(y) != "maybe":
        return None
    before = dict(state)
    state[y] = "shared"
    return before


def guarded(y, before, state):
    """The statuses after ``if dy is not None: <the statement's adjoint code>``, whose
    code left ``state``: what it gave a first value is None on the other path."""
    other = dict(before)
    if y not in state:
        other.pop(y, None)
    only_inner, only_other = set(state) - set(other), set(other) - set(state)
    merged = join_statuses(state, other)
    state.clear()
    state.update(merged)
    return only_inner, only_other


def stack_lists(body):
    """Names bound only to ``[]`` and read only as ``name.append(v)`` statements and
    ``y = name.pop()``."""
    made, other, allowed = set(), set(), set()
    nodes = [n for s in body for n in gast.walk(s)]
    for node in nodes:
        call = node.value if isinstance(node, (gast.Expr, gast.Assign)) else None
        if isinstance(node, gast.Assign) and isinstance(call, gast.List) and not call.elts:
            if len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
                made.add(node.targets[0].id)
                allowed.add(id(node.targets[0]))
            continue
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and
                isinstance(call.func.value, gast.Name) and not call.keywords):
            continue
        if isinstance(node, gast.Expr) and call.func.attr == "append" and len(call.args) == 1:
            allowed.add(id(call.func.value))
        elif isinstance(node, gast.Assign) and call.func.attr == "pop" and not call.args and \
                len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            allowed.add(id(call.func.value))
    for node in nodes:
        if isinstance(node, gast.Name) and node.id in made and id(node) not in allowed:
            other.add(node.id)
    return made - other


def filled_first(sweep, s, state):
    """Adjoints the adjoint code of ``s`` reads that may be None and must be made zeros
    first (a list's adjoint gets items appended, a function value's gives its parts)."""
    names = []
    if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
        op = s.srcgrad_op
        if op.kind == "pop":
            # (a record stack's adjoint holds None for a zero item)
            stack = op.names[0] in sweep.stack_lists()
            names = [op.names[0]] if stack else [s.targets[0].id, op.names[0]]
    elif isinstance(s, gast.Expr):
        op = getattr(s, "srcgrad_op", None)
        if op is not None and op.kind == "append":
            names = [op.target]
    elif isinstance(s, gast.FunctionDef):
        names = [s.name]
    return [n for n in names if state.get(n) == "maybe" and sweep.an.active(n)]


def _bound(a):
    """The names a callee's argument ``a`` binds (see ``_unpack_grad``), in order."""
    if isinstance(a, gast.Name):
        return [a.id]
    items = a.values() if isinstance(a, dict) else a
    return [x.id for x in items if isinstance(x, gast.Name)]
