"""Parsing a function's file, once per file version, and converting one def to gast.

Guarantee: :func:`function_node` returns a fresh gast tree of the ``def`` a code
object was compiled from, with the line numbers and columns of the real file, equal
(``gast.dump(..., include_attributes=True)``) to what ``gast.parse`` of the file
gives for it; ``tests/test_parsing.py`` checks this against gast on whole packages.

Why not ``inspect.getsourcelines`` + ``gast.parse``: the first tokenizes the file
from the def to find where it ends and the second converts with a visitor per
node; both are on every first call.  Here the file is parsed by ``ast.parse`` (C)
once per version of its text, defs are indexed by (name, first line), and a def's
subtree is converted by one direct pass (:func:`to_gast`).
"""
import ast
import collections
import sys

import gast

_FILES = collections.OrderedDict()   # filename -> (text, {(name, first line): [def]})
_MAX_FILES = 64


def _defs(filename, text):
    entry = _FILES.get(filename)
    if entry is not None and entry[0] == text:
        _FILES.move_to_end(filename)
        return entry[1]
    tree = ast.parse(text)
    index = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            index.setdefault((node.name, first), []).append(node)
    _FILES[filename] = (text, index)
    while len(_FILES) > _MAX_FILES:
        _FILES.popitem(last=False)
    return index


def function_node(code, lines):
    """The gast (Async)FunctionDef that ``code`` was compiled from, given the lines of
    its file, or None when the file's text does not hold exactly one such def (the
    caller falls back to ``inspect``)."""
    try:
        index = _defs(code.co_filename, "".join(lines))
    except (SyntaxError, ValueError):
        return None
    found = index.get((code.co_name, code.co_firstlineno))
    if not found or len(found) != 1:
        return None
    return to_gast(found[0])


# -- ast -> gast in one pass -------------------------------------------------------------

def _location(new, old):
    d = old.__dict__
    for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        if a in d:
            new.__dict__[a] = d[a]
    return new


_CTX = {ast.Load: gast.Load, ast.Store: gast.Store, ast.Del: gast.Del}
_GName = gast.Name


def _name(v):
    new = _GName.__new__(_GName)
    d = new.__dict__
    d.update(v.__dict__)            # id, ctx and the location
    c = _CTX[type(v.ctx)]
    d["ctx"] = c.__new__(c)
    d["annotation"] = d["type_comment"] = None
    return new


def _arg(v):
    return _location(gast.Name(v.arg, gast.Param(), to_gast(v.annotation),
                               v.type_comment), v)


def _except_handler(v):
    if not v.name:
        return _plain(v, gast.ExceptHandler)
    new = gast.ExceptHandler(to_gast(v.type), gast.Name(v.name, gast.Store(), None, None),
                             to_gast(v.body))
    return _location(new, v)


def _with_type_params(cls):
    def convert(v):
        new = _plain(v, cls)
        new.__dict__.setdefault("type_params", [])
        return new
    return convert


_SPECIAL = {ast.Name: _name, ast.arg: _arg, ast.ExceptHandler: _except_handler}
if sys.version_info < (3, 12):
    for _t in ("FunctionDef", "AsyncFunctionDef", "ClassDef"):
        _SPECIAL[getattr(ast, _t)] = _with_type_params(getattr(gast, _t))

_SAME = {}      # ast class -> the gast class with the same fields, or None


def _same_class(t):
    g = getattr(gast, t.__name__, None)
    ok = g is not None and set(g._fields) == set(t._fields) and \
        set(getattr(g, "_attributes", ())) == set(getattr(t, "_attributes", ()))
    _SAME[t] = g if ok else None
    return _SAME[t]


_ATOMS = frozenset({str, int, float, bool, complex, bytes, type(None), type(Ellipsis)})


def _plain(v, cls):
    new = cls.__new__(cls)
    d = new.__dict__
    atoms = _ATOMS
    for k, x in v.__dict__.items():
        d[k] = x if type(x) in atoms else to_gast(x)
    return new


def to_gast(v):
    """The gast tree of an ``ast`` tree, as ``gast.ast_to_gast`` makes it."""
    t = type(v)
    if t is list:
        return [to_gast(x) for x in v]
    if not isinstance(v, ast.AST):
        return v
    special = _SPECIAL.get(t)
    if special is not None:
        return special(v)
    g = _SAME[t] if t in _SAME else _same_class(t)
    if g is None:     # a node whose gast form differs in another way: gast converts it
        return gast.ast_to_gast(v)
    return _plain(v, g)
