"""The fence: constructs srcgrad does not differentiate are refused here, located at
the user's line, before any other lowering runs."""
import gast

from .. import syntax as A

UNSUPPORTED = {
    gast.Raise: None, gast.ClassDef: "a class definition",
    gast.AsyncFunctionDef: "async def", gast.AsyncFor: "async for", gast.AsyncWith: "async with",
    gast.Global: "a global declaration", gast.Nonlocal: "a nonlocal declaration",
    gast.Delete: "del",
    gast.Yield: "yield", gast.YieldFrom: "yield from", gast.Await: "await",
    gast.ListComp: "a list comprehension", gast.SetComp: "a set comprehension",
    gast.DictComp: "a dict comprehension", gast.GeneratorExp: "a generator expression",
    gast.Lambda: "a lambda", gast.NamedExpr: "an assignment expression (:=)",
}
if hasattr(gast, "Match"):
    UNSUPPORTED[gast.Match] = "a match statement"
if hasattr(gast, "TryStar"):
    UNSUPPORTED[gast.TryStar] = "try/except*"

ADVICE = {
    "a list comprehension": "write a for loop that appends to a list",
    "a generator expression": "write a for loop",
    "a lambda": "define a named function with def",
    "a global declaration": "return the value instead of writing a global",
    "yield": "return a list of values instead",
}


def refuse_unsupported(body, info, nested=False):
    """Raise the located UnsupportedSyntaxError of the first unsupported construct.

    ``nonlocal`` is accepted in a ``def`` inside the function (its calls are inlined,
    lower/inline.py, and write the enclosing function's own variable); ``nested`` says
    ``body`` is such a def's, being inlined."""
    in_defs = {id(n) for d in A.walk(body) if isinstance(d, gast.FunctionDef)
               for n in A.walk(d.body) if isinstance(n, gast.Nonlocal)}
    for stmt in body:
        for node in A.walk(stmt):
            if isinstance(node, gast.FunctionDef) and node is not stmt:
                continue
            kind = UNSUPPORTED.get(type(node), False)
            if kind is False:
                continue
            if isinstance(node, gast.Raise):
                continue  # raise is kept in the forward pass
            if isinstance(node, gast.Nonlocal) and (nested or id(node) in in_defs):
                continue
            advice = ADVICE.get(kind, "rewrite it with the statements srcgrad supports (assignments, if/for/while, calls)")
            raise info.error(node, f"srcgrad does not support {kind} in a "
                                        f"differentiated function; {advice}")
