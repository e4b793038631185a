"""Dead-code elimination on generated code: pure assignments nobody reads go."""
import gast

from .. import syntax as A
from ..ir import Comment


def dead_code(body):
    """Drop pure assignments whose target nobody reads (flow-insensitive, to a fixed point)."""
    while True:
        reads, augs = _loads_and_augassigns(body)
        # ``dw += e`` reads dw too: unless it goes as well (dw read nowhere else, e pure),
        # dw's first assignment must stay (else: UnboundLocalError in generated code)
        reads |= {n.target.id for n in augs
                  if isinstance(n.target, gast.Name) and
                  (n.target.id in reads or not _pure(n))}
        removed = False

        def prune(stmts):
            nonlocal removed
            out = []
            for s in stmts:
                if isinstance(s, (gast.Assign, gast.AugAssign)) and \
                        isinstance(_target(s), gast.Name) and \
                        _target(s).id not in reads and _pure(s):
                    removed = True
                    continue
                for field in ("body", "orelse"):
                    if hasattr(s, field) and isinstance(getattr(s, field), list) and \
                            not isinstance(s, gast.FunctionDef):
                        new = prune(getattr(s, field))
                        if all(isinstance(x, Comment) for x in new):   # no statement
                            new = new + [gast.Pass()] if field == "body" else []
                        setattr(s, field, new)
                out.append(s)
            return out
        body = prune(body)
        if not removed:
            return body


def _loads_and_augassigns(body):
    """The names loaded anywhere in ``body`` and its ``+=`` statements: one walk."""
    loads, augs = set(), []
    stack = list(body)
    Name, AugAssign, Load = gast.Name, gast.AugAssign, gast.Load
    push = A.push_children
    while stack:
        n = stack.pop()
        t = type(n)
        if t is Name:
            if type(n.ctx) is Load:
                loads.add(n.id)
            continue
        if t is AugAssign:
            augs.append(n)
        push(n, stack)
    return loads, augs


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


