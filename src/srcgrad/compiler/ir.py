"""The compiler's intermediate form: gast trees plus typed annotations, in one place.

The passes work on gast statements.  What one pass learns about a statement and a
later pass reads is attached to the statement as an attribute; this module is the
list of those annotations, and of the node types srcgrad adds to gast:

``stmt.srcgrad_op``        :class:`~srcgrad.compiler.analysis.activity.Op`: how an
                           assignment is differentiated; its ``kind`` is an
                           :class:`OpKind` (activity analysis)
``stmt.srcgrad_nograd``    the statement ran under ``sg.no_grad()`` (normalize)
``stmt.srcgrad_temp``      the target is a temporary used once, right away: never an
                           alias (normalize)
``stmt.srcgrad_inplace``   the assignment comes from an in-place ``y[i] += v``
                           (normalize; read by the aliasing checks)
``stmt.srcgrad_saved``     the forward sweep records the value this assignment
                           overwrites (reverse mode): True (on the stack), the name
                           of a loop's float tape, or ``(name,)`` (kept under that
                           name, outside loops)
``stmt.srcgrad_cond``      the name holding an ``if``'s decision, recorded as a Python
                           bool for the adjoint sweep (reverse mode)
``stmt.srcgrad_range``     the name holding a ``for`` loop's iterable when it must be
                           recorded, else None (reverse mode)
``stmt.srcgrad_count``     the name counting a loop's trips, or None (reverse mode)
``stmt.srcgrad_callee``    for a call to a user function: its adjoint's name, the
                           record's name and the wrt arguments (reverse mode)

Added node type: :class:`Comment` (a ``# ...`` line in generated code).
"""
import enum

import gast


class OpKind(str, enum.Enum):
    """How the right-hand side of one assignment is differentiated."""
    RULE = "rule"            # a primitive with a rule in the table
    COPY = "copy"            # y = x
    LITERAL = "literal"      # a tuple / list / dict display of atoms
    CALL = "call"            # a call to the user's own (transformed) function
    NOGRAD = "nograd"        # carries no gradient (comparisons, shapes, integer code)
    CONST = "const"          # a constant value
    UNKNOWN = "unknown"      # a callee known only at run time: checked when it runs
    POP = "pop"              # list.pop()
    APPEND = "append"        # list.append(v)
    MUTATE = "mutate"        # another in-place change of a container
    RESTORE = "restore"      # the reverse sweep restores an overwritten value
    SETITEM = "setitem"      # y[i] = v
    EFFECT = "effect"        # a call whose value is dropped, that may change an attribute

    # print and format as the plain string ("rule"), on every Python version
    __str__ = str.__str__
    __format__ = str.__format__


class Comment(gast.stmt):
    """A line of comment in generated code (rendered by codegen)."""
    _fields = ()

    def __init__(self, text):
        super().__init__()
        self.text = text

    def __deepcopy__(self, memo):
        return Comment(self.text)


# -- block statements: one mechanism for every pass ----------------------------------------
#
# A block statement holds lists of statements (``if``: body and orelse, ``for``/``while``:
# body and orelse, ``with``: body, ``try``: body, handlers' bodies, orelse, finalbody).
# Passes that walk nested code use :func:`blocks` / :func:`walk` / :class:`BlockVisitor`
# instead of testing each statement type, so a new block statement is taught here once.

BLOCK_FIELDS = {
    gast.If: ("body", "orelse"),
    gast.For: ("body", "orelse"),
    gast.While: ("body", "orelse"),
    gast.With: ("body",),
    gast.Try: ("body", "orelse", "finalbody"),
    gast.ExceptHandler: ("body",),
}


def is_block(stmt):
    """Does ``stmt`` hold statements of its own (a def's body does not count)?"""
    return type(stmt) in BLOCK_FIELDS


def blocks(stmt):
    """The statement lists directly inside ``stmt``, in source order."""
    out = [getattr(stmt, f) for f in BLOCK_FIELDS.get(type(stmt), ()) if getattr(stmt, f, None)]
    if isinstance(stmt, gast.Try):
        out[1:1] = [h.body for h in stmt.handlers]
    return out


def walk(stmts, into_defs=False):
    """Every statement of ``stmts`` and of the blocks inside them, in source order
    (the bodies of nested ``def``s only with ``into_defs``)."""
    for s in stmts:
        yield s
        if isinstance(s, gast.FunctionDef):
            if into_defs:
                yield from walk(s.body, into_defs)
            continue
        for b in blocks(s):
            yield from walk(b, into_defs)


class BlockVisitor:
    """Rewrite a list of statements; each ``visit_<Type>(stmt)`` returns the list of
    statements that replaces ``stmt``.  Without a method for its type, a block
    statement has each of its blocks visited in place, and any other statement goes to
    :meth:`visit_simple` (unchanged by default)."""

    def visit_block(self, stmts):
        out = []
        for s in stmts:
            out.extend(self.visit_stmt(s))
        return out

    def visit_stmt(self, s):
        method = getattr(self, "visit_" + type(s).__name__, None)
        if method is not None:
            return method(s)
        if is_block(s):
            for f in BLOCK_FIELDS[type(s)]:
                if getattr(s, f, None):
                    setattr(s, f, self.visit_block(getattr(s, f)))
            if isinstance(s, gast.Try):
                for h in s.handlers:
                    h.body = self.visit_block(h.body)
            return [s]
        return self.visit_simple(s)

    def visit_simple(self, s):
        return [s]


# -- rendering (printer.py) ---------------------------------------------------------------

MARK = "__srcgrad_comment__:"    # a Comment passed to ast.unparse is a string so marked
