"""Rendering: gast trees to Python source text (the last step of code generation).

Guarantee: ``to_source(tree)`` is the text ``ast.unparse`` writes for the same tree
(with each :class:`~srcgrad.compiler.ir.Comment` as a ``# ...`` line), character for
character, so what users read and what is compiled are one thing.  It is written here
rather than taken from ``ast.unparse`` because rendering is on every first call and
the standard unparser needs an ``ast`` copy of the tree plus a visitor dispatch per
node; this one reads gast directly, in one recursive pass, about three times faster.

Only the nodes generated code is made of are handled here; anything else (an
f-string, a lambda, a comprehension, ``try``, ``with`` ...) is passed to
``ast.unparse`` in its context, so the text stays exact for every tree.
``tests/test_printer.py`` compares the two on every generated function of the test
tables and on random expressions.
"""
import ast
import difflib
import os

import gast

from .ir import Comment, MARK

# -- precedence (the grammar's levels, as ast.unparse numbers them) -------------------
NAMED, TUPLE, YIELD, TEST, OR, AND, NOT, CMP, EXPR = range(1, 10)
BOR = EXPR
BXOR, BAND, SHIFT, ARITH, TERM, FACTOR, POWER, AWAIT, ATOM = range(10, 19)

_BINOP = {gast.Add: ("+", ARITH), gast.Sub: ("-", ARITH), gast.Mult: ("*", TERM),
          gast.MatMult: ("@", TERM), gast.Div: ("/", TERM), gast.Mod: ("%", TERM),
          gast.FloorDiv: ("//", TERM), gast.LShift: ("<<", SHIFT),
          gast.RShift: (">>", SHIFT), gast.BitOr: ("|", BOR), gast.BitXor: ("^", BXOR),
          gast.BitAnd: ("&", BAND), gast.Pow: ("**", POWER)}
_UNARY = {gast.USub: ("-", FACTOR), gast.UAdd: ("+", FACTOR), gast.Invert: ("~", FACTOR),
          gast.Not: ("not ", NOT)}
_CMP = {gast.Eq: " == ", gast.NotEq: " != ", gast.Lt: " < ", gast.LtE: " <= ",
        gast.Gt: " > ", gast.GtE: " >= ", gast.Is: " is ", gast.IsNot: " is not ",
        gast.In: " in ", gast.NotIn: " not in "}
_BOOL = {gast.And: (" and ", AND), gast.Or: (" or ", OR)}
# SRCGRAD_CHECK_PRINTER=1: every rendering is compared with ast.unparse's (tests)
_CHECK = os.environ.get("SRCGRAD_CHECK_PRINTER") == "1"
_ATOMS = frozenset({str, int, float, bool, complex, bytes, type(None), type(Ellipsis)})


def _fallback(node, prec):
    """``ast.unparse``'s text for ``node`` in a context of precedence ``prec``."""
    tree = to_ast(node)
    unparser = ast._Unparser()
    unparser.set_precedence(ast._Precedence(prec), tree)
    return unparser.visit(tree)


def expr(n, prec=TEST):
    """The text of expression ``n`` where the context has precedence ``prec``."""
    t = type(n)
    if t is gast.Name:
        return n.id
    f = _EXPR.get(t)
    if f is None:
        return _fallback(n, prec)
    return f(n, prec)


def _constant(n, prec):
    v = n.value
    tv = type(v)
    if tv is float or tv is complex:
        r = repr(v)
        if "inf" in r or "nan" in r:
            return _fallback(n, prec)
        return r
    if v is ... or tv is tuple or getattr(n, "kind", None) == "u":
        return _fallback(n, prec)
    return repr(v)


def _attribute(n, prec):
    v = n.value
    base = expr(v, ATOM)
    if type(v) is gast.Constant and isinstance(v.value, int):
        return base + " ." + n.attr
    return base + "." + n.attr


def _call(n, prec):
    parts = [expr(a) for a in n.args]
    for k in n.keywords:
        parts.append(("**" if k.arg is None else k.arg + "=") + expr(k.value))
    return expr(n.func, ATOM) + "(" + ", ".join(parts) + ")"


def _subscript(n, prec):
    s = n.slice
    if type(s) is gast.Tuple and s.elts:
        inner = _items(s.elts)
    else:
        inner = expr(s)
    return expr(n.value, ATOM) + "[" + inner + "]"


def _slice(n, prec):
    out = (expr(n.lower) if n.lower else "") + ":" + (expr(n.upper) if n.upper else "")
    if n.step:
        out += ":" + expr(n.step)
    return out


def _items(elts):
    if len(elts) == 1:
        return expr(elts[0]) + ","
    return ", ".join([expr(e) for e in elts])


def _tuple(n, prec):
    if not n.elts:
        return "()"
    inner = _items(n.elts)
    return "(" + inner + ")" if prec > TUPLE else inner


def _list(n, prec):
    return "[" + ", ".join([expr(e) for e in n.elts]) + "]"


def _dict(n, prec):
    parts = []
    for k, v in zip(n.keys, n.values):
        parts.append("**" + expr(v, EXPR) if k is None else expr(k) + ": " + expr(v))
    return "{" + ", ".join(parts) + "}"


def _starred(n, prec):
    return "*" + expr(n.value, EXPR)


def _binop(n, prec):
    op, p = _BINOP[type(n.op)]
    if p == POWER:
        text = expr(n.left, p + 1) + " ** " + expr(n.right, p)
    else:
        text = expr(n.left, p) + " " + op + " " + expr(n.right, p + 1)
    return "(" + text + ")" if prec > p else text


def _unaryop(n, prec):
    op, p = _UNARY[type(n.op)]
    text = op + expr(n.operand, p)
    return "(" + text + ")" if prec > p else text


def _compare(n, prec):
    parts = [expr(n.left, CMP + 1)]
    for o, c in zip(n.ops, n.comparators):
        parts.append(_CMP[type(o)])
        parts.append(expr(c, CMP + 1))
    text = "".join(parts)
    return "(" + text + ")" if prec > CMP else text


def _boolop(n, prec):
    sep, p = _BOOL[type(n.op)]
    parts = []
    level = p
    for v in n.values:       # each operand one level tighter than the one before
        level = min(level + 1, ATOM)
        parts.append(expr(v, level))
    text = sep.join(parts)
    return "(" + text + ")" if prec > p else text


def _ifexp(n, prec):
    text = expr(n.body, TEST + 1) + " if " + expr(n.test, TEST + 1) + " else " + \
        expr(n.orelse, TEST)
    return "(" + text + ")" if prec > TEST else text


_EXPR = {gast.Constant: _constant, gast.Attribute: _attribute, gast.Call: _call,
         gast.Subscript: _subscript, gast.Slice: _slice, gast.Tuple: _tuple,
         gast.List: _list, gast.Dict: _dict, gast.Starred: _starred, gast.BinOp: _binop,
         gast.UnaryOp: _unaryop, gast.Compare: _compare, gast.BoolOp: _boolop,
         gast.IfExp: _ifexp}


# -- statements ------------------------------------------------------------------------

def _block(stmts, level, out):
    for s in stmts:
        f = _STMT.get(type(s))
        if f is None:
            _stmt_fallback(s, level, out)
        else:
            f(s, level, out)


def _stmt_fallback(s, level, out):
    pad = "    " * level
    for line in ast.unparse(to_ast(s)).split("\n"):
        out.append(pad + _uncomment(line) if line else line)


def _assign(s, level, out):
    targets = "".join([expr(t, TUPLE) + " = " for t in s.targets])
    out.append("    " * level + targets + expr(s.value))


def _augassign(s, level, out):
    out.append("    " * level + expr(s.target) + " " + _BINOP[type(s.op)][0] + "= " +
               expr(s.value))


def _expr_stmt(s, level, out):
    out.append("    " * level + expr(s.value, YIELD))


def _return(s, level, out):
    out.append("    " * level + ("return " + expr(s.value) if s.value else "return"))


def _simple(word):
    def render(s, level, out):
        out.append("    " * level + word)
    return render


def _comment(s, level, out):
    out.append("    " * level + "# " + s.text)


def _if(s, level, out):
    pad = "    " * level
    out.append(pad + "if " + expr(s.test) + ":")
    _block(s.body, level + 1, out)
    while len(s.orelse) == 1 and type(s.orelse[0]) is gast.If:   # elif, as unparse does
        s = s.orelse[0]
        out.append(pad + "elif " + expr(s.test) + ":")
        _block(s.body, level + 1, out)
    if s.orelse:
        out.append(pad + "else:")
        _block(s.orelse, level + 1, out)


def _for(s, level, out):
    if s.type_comment:
        return _stmt_fallback(s, level, out)
    pad = "    " * level
    out.append(pad + "for " + expr(s.target, TUPLE) + " in " + expr(s.iter) + ":")
    _block(s.body, level + 1, out)
    if s.orelse:
        out.append(pad + "else:")
        _block(s.orelse, level + 1, out)


def _while(s, level, out):
    pad = "    " * level
    out.append(pad + "while " + expr(s.test) + ":")
    _block(s.body, level + 1, out)
    if s.orelse:
        out.append(pad + "else:")
        _block(s.orelse, level + 1, out)


def _has_docstring(s):
    b = s.body
    return b and type(b[0]) is gast.Expr and type(b[0].value) is gast.Constant and \
        type(b[0].value.value) is str


def _functiondef(s, level, out):
    if s.returns is not None or s.type_comment or \
            any(a.annotation is not None for a in _all_args(s.args)):
        return _stmt_fallback_def(s, level, out)
    pad = "    " * level
    if out:
        out.append("")               # unparse starts a def on a fresh line
    for d in s.decorator_list:
        out.append(pad + "@" + expr(d))
    out.append(pad + "def " + s.name + "(" + _arguments(s.args) + "):")
    body = s.body
    if _has_docstring(s):
        _docstring(body[0].value.value, level + 1, out)
        body = body[1:]
    _block(body, level + 1, out)


def _docstring(text, level, out):
    """A docstring as unparse writes it (its quoting rules), from a one-line def."""
    tiny = ast.parse("def f():\n    pass\n").body[0]
    tiny.body = [ast.Expr(value=ast.Constant(value=text, kind=None))]
    first, *rest = ast.unparse(tiny).split("\n")[1:]
    out.append("    " * (level - 1) + first)   # (its first line has one indent already)
    out.extend(rest)


def _stmt_fallback_def(s, level, out):
    if out:
        out.append("")
    pad = "    " * level
    for line in ast.unparse(to_ast(s)).split("\n"):
        out.append(pad + _uncomment(line) if line else line)


def _all_args(a):
    return [x for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
            if x is not None]


def _arguments(a):
    parts = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + a.defaults
    for i, (p, d) in enumerate(zip(positional, defaults), 1):
        parts.append(p.id + ("=" + expr(d) if d else ""))
        if i == len(a.posonlyargs):
            parts.append("/")
    if a.vararg or a.kwonlyargs:
        parts.append("*" + (a.vararg.id if a.vararg else ""))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        parts.append(p.id + ("=" + expr(d) if d else ""))
    if a.kwarg:
        parts.append("**" + a.kwarg.id)
    return ", ".join(parts)


_STMT = {gast.Assign: _assign, gast.AugAssign: _augassign, gast.Expr: _expr_stmt,
         gast.Return: _return, gast.Pass: _simple("pass"), gast.Break: _simple("break"),
         gast.Continue: _simple("continue"), Comment: _comment, gast.If: _if,
         gast.For: _for, gast.While: _while, gast.FunctionDef: _functiondef}


def _uncomment(line):
    """A Comment inside a statement ``ast.unparse`` rendered is a marked string."""
    s = line.strip()
    if s.startswith(("'" + MARK, '"' + MARK, "'''" + MARK, '"""' + MARK)):
        indent = line[:len(line) - len(line.lstrip())]
        return indent + "# " + ast.literal_eval(s)[len(MARK):]
    return line


def to_source(fdef):
    """Readable source of a gast FunctionDef (comments rendered as comments)."""
    out = []
    _block([fdef], 0, out)
    text = "\n".join(out) + "\n"
    if _CHECK:
        ref = reference_source(fdef)
        if text != ref:
            raise AssertionError("printer and ast.unparse differ:\n" + "".join(
                difflib.unified_diff(ref.splitlines(True), text.splitlines(True))))
    return text


def unparse(node):
    """The text of a gast expression or statement (or a list of statements)."""
    if isinstance(node, list) or isinstance(node, (gast.stmt, Comment)):
        out = []
        _block(node if isinstance(node, list) else [node], 0, out)
        return "\n".join(out)
    return expr(node)


# -- gast to ast (for what is passed to ast.unparse) ----------------------------------

_CTX = {gast.Load: ast.Load, gast.Store: ast.Store, gast.Del: ast.Del}


def to_ast(v):
    """The ``ast`` tree of a gast tree, for ``ast.unparse`` only (no locations), in
    one pass: a Comment becomes a marked string statement, ``_uncomment`` turns back
    into ``# text``.  gast and ast differ only in the nodes handled here (argument
    names are ``Name`` in gast, ``arg`` in ast; an except clause's name); every other
    node has the same name and fields in both."""
    t = type(v)
    if t in _ATOMS:
        return v
    if t is list:
        return [to_ast(x) for x in v]
    if t is gast.Name:
        return ast.Name(id=v.id, ctx=_CTX.get(type(v.ctx), ast.Load)())
    if t is Comment:
        return ast.Expr(value=ast.Constant(value=MARK + v.text, kind=None))
    if t is gast.arguments:
        return ast.arguments(posonlyargs=[_arg(a) for a in v.posonlyargs],
                             args=[_arg(a) for a in v.args], vararg=_arg(v.vararg),
                             kwonlyargs=[_arg(a) for a in v.kwonlyargs],
                             kw_defaults=to_ast(v.kw_defaults), kwarg=_arg(v.kwarg),
                             defaults=to_ast(v.defaults))
    if t is gast.ExceptHandler:
        return ast.ExceptHandler(type=to_ast(v.type), name=v.name.id if v.name else None,
                                 body=to_ast(v.body))
    cls = getattr(ast, t.__name__, None)
    if cls is None or not isinstance(v, gast.AST):
        return gast.gast_to_ast(v)
    new = cls.__new__(cls)
    for f in cls._fields:
        setattr(new, f, to_ast(getattr(v, f, None)))
    if isinstance(new, ast.stmt):
        new.lineno = 0        # ast.unparse looks type comments up by line
    return new


def _arg(a):
    if a is None:
        return None
    return ast.arg(arg=a.id, annotation=to_ast(a.annotation), type_comment=None)


def reference_source(fdef):
    """``ast.unparse``'s text for ``fdef`` (what :func:`to_source` must equal)."""
    text = ast.unparse(ast.Module(body=[to_ast(fdef)], type_ignores=[]))
    return "\n".join(_uncomment(line) for line in text.splitlines()) + "\n"
