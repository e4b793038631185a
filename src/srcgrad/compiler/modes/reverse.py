"""Reverse mode: turn a normalized function body into a forward sweep and an adjoint sweep.

Guarantees:

* The forward sweep is the user's (normalized) code, plus — only where needed —
  a push of a value that is about to be overwritten and that the adjoint sweep
  reads (Tapenade's "to be recorded"), branch decisions and loop trip counts.
* The adjoint sweep visits statements in reverse, inlines each derivative
  template from the rule table with the user's names (``dx`` is the adjoint of
  ``x``), restores overwritten values from the stack, and accumulates adjoints.
* Adjoints are tracked symbolically: an adjoint nobody has contributed to is
  "zero" and costs nothing.  Where control flow merges paths on which an adjoint is
  defined on one side only, it is None on the other, and the adjoint code that reads
  it runs under ``if d is not None:`` (a zero cotangent never meets a NaN on a path
  not taken); zeros are made only at a loop's head and for the returned gradients.
* Only active statements (activity.py) get adjoint code.

The forward sweep is in :mod:`.records`, the adjoint sweep in :mod:`.adjoint`; this
module runs them (twice when the first pass shows what the second need not save).
"""
import gast

from .. import syntax as A
from ..analysis.activity import Analysis
from .adjoint import AdjointSweep, merged_guards
from .body import check_aliases, setitem_targets
from .records import ForwardSweep
from .templates import LineComments


class Reverse(ForwardSweep, AdjointSweep, LineComments):
    def __init__(self, body, params, wrt, info, names, kinds, callee_factory,
                 needed=None, shape_only=(), reads_before=None, reuse=None, shapes=None):
        self.info = info
        self.shapes = shapes               # optimize/shapes.py: facts of one call's shapes
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
        self.an = Analysis(body, params, wrt, info, local_defs, kinds)
        self.assign_counts = _assign_counts(body, params)
        self.copy_params = [p for p in params if p in setitem_targets(body, info.func)]
        check_aliases(body, info, kinds if any(p in kinds for p in params) else None,
                      params)

    def agrees(self, needed, shape_only, reads_before):
        """Would a pass given ``needed``, ``shape_only`` and ``reads_before`` make every
        choice this first pass made?  Then it would generate the same code, and this
        pass's code is the final code."""
        c = self.choices
        for n, depth, top in c["save"]:
            if n not in needed or n in shape_only:
                return False
            if top is not None and n not in reads_before[top]:
                return False
        if any(not self.mutation_needed(base, needed) for base in c["item"] + c["list"]):
            return False
        return all(self._has_reverse(stmts, needed) == answer
                   for stmts, answer in c["reverse"].values())

    def mutation_needed(self, name, needed):
        """Must the reverse sweep undo a change to the object ``name`` holds (an item
        written, an append, a pop)?  Yes if the adjoint code reads it under any name:
        ``lst = listcomp`` then ``lst[1]`` read, ``listcomp`` popped."""
        if needed is None or name in needed:
            return True
        aliases = getattr(self, "_aliases", None)
        if aliases is None:
            aliases = self._aliases = A.alias_groups(self.body)
        return bool(aliases.get(name, frozenset()) & needed)

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
            if type(s) is gast.Assign and type(s.targets[0]) is gast.Name:
                self.maybe_defined.add(s.targets[0].id)      # (the common case, at once)
            else:
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
        return fwd, merged_guards(bwd)


# what a pass writes on the body's statements (``Reverse.strip`` removes it)
_MARKS = ("srcgrad_saved", "srcgrad_cond", "srcgrad_count", "srcgrad_range",
          "srcgrad_callee", "srcgrad_undo")


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

