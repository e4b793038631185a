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
                           overwrites (reverse mode)
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
