"""Lowering: a function body in the simple form the transformations expect.

The passes, in order: the fence (:mod:`.fence`), statements, control flow and
expressions (one visitor, :class:`.statements.Normalizer`), inlining of local defs
(:mod:`.inline`), then common subexpressions (:mod:`srcgrad.compiler.optimize.cse`).

Guarantees about the output (a list of gast statements):

* Every assignment has ONE target: a name, or a subscript ``name[index] = atom``.
  Tuple unpacking becomes ``a = t[0]``; augmented assignment ``x += y`` becomes
  ``x = x + y``; ``x[i] += v`` becomes a read, an add and a store.
* Right-hand sides are "primitive": one operator, call, attribute, subscript or
  literal whose operands are atoms (names or constants).  Conditions, indices and
  comparisons are kept whole: they never carry a gradient.
* ``a if c else b`` inside an expression becomes an ``if`` statement.
* Loops: ``for x in seq`` / ``enumerate`` / ``zip`` become ``for i in range(...)``
  with explicit indexing, so that the reverse sweep can run ``reversed(range)``.
* ``break``/``continue``/``return`` inside loops become flags; the only ``break``
  left is ``if flag: break`` as the last statement of a loop body, and the only
  ``return`` is the last statement of the function.
* ``with sg.no_grad():`` blocks are flattened; their statements are marked
  ``stmt.srcgrad_nograd = True``.
* Anything else raises :class:`UnsupportedSyntaxError` at the user's line.
"""
from .. import syntax as A
from ..optimize.cse import eliminate_common_subexpressions
from .inline import inline_local_functions
from .statements import Normalizer


def normalize(fdef, info, names, ad_name="ad", known_arrays=(), known_sequences=(),
              known_records=()):
    body = Normalizer(fdef, info, names, ad_name, known_arrays, known_sequences,
                      known_records).run()
    body = inline_local_functions(body, info, names, A.names_stored(fdef.body) |
                                  {a.id for a in Normalizer._params(fdef)})
    return eliminate_common_subexpressions(body, info.func)
