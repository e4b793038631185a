"""Dead-code elimination on generated code: pure assignments nobody reads go."""
import gast

from .. import syntax as A
from ..ir import Comment


def dead_code(body):
    """Drop pure assignments whose target nobody reads (flow-insensitive, to a fixed
    point: an assignment read only by dropped ones goes too), in one walk: loads are
    counted per name, and dropping a statement gives back its own loads."""
    loads = {}                      # name -> loads of it anywhere
    own = {}                        # id(candidate) -> the names it loads (with repeats)
    by_target = {}                  # name -> its candidate statements
    keep = set()                    # names an impure ``name += e`` keeps
    _count(body, loads, own, by_target, keep, prunable=True)
    dead = set()
    work = [n for n in by_target if not loads.get(n) and n not in keep]
    while work:
        n = work.pop()
        for st in by_target[n]:
            if id(st) in dead:
                continue
            dead.add(id(st))
            for m in own[id(st)]:
                loads[m] -= 1
                if not loads[m] and m in by_target and m not in keep:
                    work.append(m)
    return _prune(body, dead) if dead else body


def _count(stmts, loads, own, by_target, keep, prunable):
    Name, Load, AugAssign, Assign = gast.Name, gast.Load, gast.AugAssign, gast.Assign
    for s in stmts:
        t = type(s)
        candidate = None
        if prunable and (t is Assign or t is AugAssign):
            target = s.targets[0] if t is Assign else s.target
            if type(target) is Name:
                if _pure(s):
                    candidate = target.id
                elif t is AugAssign:
                    keep.add(target.id)
        if t in _BLOCKS:
            # the statement's own expressions, then its blocks (a def's body is
            # counted but not pruned: it is another function)
            inner = prunable and t is not gast.FunctionDef
            # (only body and orelse are pruned, as _prune does; handlers and
            # finalbody are counted as they are)
            blocks = []
            for f in s._fields:
                v = getattr(s, f, None)
                if f in ("body", "orelse") and type(v) is list:
                    blocks.append((v, inner))
                elif f == "finalbody" and type(v) is list:
                    blocks.append((v, False))
                elif f == "handlers":
                    for h in v:
                        _loads_into(h.type, loads, None)
                        blocks.append((h.body, False))
                else:
                    _loads_into(v, loads, None)
            for b, p in blocks:
                _count(b, loads, own, by_target, keep, p)
            continue
        mine = [] if candidate is not None else None
        _loads_into(s, loads, mine)
        if candidate is not None:
            own[id(s)] = mine
            by_target.setdefault(candidate, []).append(s)


_BLOCKS = (gast.If, gast.For, gast.While, gast.With, gast.Try, gast.FunctionDef)
_BLOCKS = frozenset(_BLOCKS)


def _loads_into(node, loads, mine):
    if type(node) is list:
        stack = [n for n in node if isinstance(n, gast.AST)]
    elif isinstance(node, gast.AST):
        stack = [node]
    else:
        return
    Name, Load = gast.Name, gast.Load
    push = A.push_children
    while stack:
        n = stack.pop()
        if type(n) is Name:
            if type(n.ctx) is Load:
                loads[n.id] = loads.get(n.id, 0) + 1
                if mine is not None:
                    mine.append(n.id)
            continue
        push(n, stack)


def _prune(stmts, dead):
    out = []
    for s in stmts:
        if id(s) in dead:
            continue
        if type(s) in _BLOCKS and type(s) is not gast.FunctionDef:
            for field in ("body", "orelse"):
                block = getattr(s, field, None)
                if type(block) is list:
                    new = _prune(block, dead)
                    if all(isinstance(x, Comment) for x in new):   # no statement
                        new = new + [gast.Pass()] if field == "body" else []
                    setattr(s, field, new)
        out.append(s)
    return out


def _target(s):
    return s.targets[0] if isinstance(s, gast.Assign) else s.target


def _pure(s):
    op = getattr(s, "srcgrad_op", None)
    if op is None:
        # generated statements (adjoint code) are pure unless they call pop(), or
        # seed() (which checks that the result is a float: kept even if unread)
        for n in A.walk(s.value):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
                    n.func.attr in ("pop", "seed"):
                return False
        return True
    return op.kind in ("rule", "copy", "literal", "const")


