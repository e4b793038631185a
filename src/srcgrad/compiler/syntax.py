"""Small constructors and queries over gast trees, shared by every pass."""
import builtins
import copy
import keyword

import gast

_BUILTIN_NAMES = frozenset(dir(builtins))


def parse_expr(src):
    return gast.parse(src).body[0].value


def parse_stmts(src):
    return gast.parse(src).body


def name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def store(id_):
    return name(id_, gast.Store())


def const(value):
    return gast.Constant(value=value, kind=None)


def assign(target, value, like=None):
    if isinstance(target, str):
        target = store(target)
    node = gast.Assign(targets=[target], value=value, type_comment=None)
    if like is not None:
        copy_loc(node, like)
    return node


def expr_stmt(value, like=None):
    node = gast.Expr(value=value)
    if like is not None:
        copy_loc(node, like)
    return node


def call(func, args=(), keywords=()):
    if isinstance(func, str):
        func = parse_expr(func)
    kws = [gast.keyword(arg=k, value=v) for k, v in keywords] if keywords and isinstance(
        keywords[0], tuple) else list(keywords)
    return gast.Call(func=func, args=list(args), keywords=kws)


def attr(value, attr_name):
    if isinstance(value, str):
        value = name(value)
    return gast.Attribute(value=value, attr=attr_name, ctx=gast.Load())


def tuple_(elts, ctx=None):
    return gast.Tuple(elts=list(elts), ctx=ctx or gast.Load())


def copy_loc(new, old):
    for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        if hasattr(old, a):
            setattr(new, a, getattr(old, a))
    return new


def names_read(node):
    """Names loaded anywhere in ``node`` (a node or a list of nodes)."""
    out = set()
    nodes = node if isinstance(node, list) else [node]
    for n in nodes:
        for sub in gast.walk(n):
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Load):
                out.add(sub.id)
    return out


def names_stored(node):
    out = set()
    nodes = node if isinstance(node, list) else [node]
    for n in nodes:
        for sub in gast.walk(n):
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, (gast.Store, gast.Del)):
                out.add(sub.id)
    return out


def all_names(node):
    out = set()
    nodes = node if isinstance(node, list) else [node]
    for n in nodes:
        for sub in gast.walk(n):
            if isinstance(sub, gast.Name):
                out.add(sub.id)
    return out


class _Substitute(gast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.mapping:
            repl = self.mapping[node.id]
            if isinstance(repl, str):
                return name(repl)
            return copy.deepcopy(repl)
        return node


def substitute(node, mapping):
    """A copy of ``node`` with loaded names replaced (by a name string or a node copy)."""
    return _Substitute(mapping).visit(copy.deepcopy(node))


def rename_loads(node, mapping):
    """Rename loaded names only (in place)."""
    for sub in gast.walk(node):
        if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Load) and sub.id in mapping:
            sub.id = mapping[sub.id]
    return node


def rename(node, mapping):
    """Rename loads and stores alike (in place)."""
    for sub in gast.walk(node):
        if isinstance(sub, gast.Name) and sub.id in mapping:
            sub.id = mapping[sub.id]
    return node


def is_simple(node):
    """A name or a constant: an ANF atom."""
    return isinstance(node, (gast.Name, gast.Constant))


class NameGen:
    """Fresh names that never clash with the user's (or each other)."""

    def __init__(self, taken):
        self.taken = set(taken)

    def fresh(self, base):
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "t"
        if base[0].isdigit():
            base = "t" + base
        if base in _BUILTIN_NAMES or keyword.iskeyword(base):
            base = base + "_"   # never shadow a builtin the user's code may call
        if base not in self.taken:
            self.taken.add(base)
            return base
        i = 1
        while f"{base}{i}" in self.taken:
            i += 1
        self.taken.add(f"{base}{i}")
        return f"{base}{i}"

    def reserve(self, n):
        self.taken.add(n)


def unparse(node):
    """Python source for a gast node (statement list or expression)."""
    import ast
    if isinstance(node, list):
        mod = gast.Module(body=node, type_ignores=[])
        return ast.unparse(ast.fix_missing_locations(gast.gast_to_ast(mod)))
    return ast.unparse(gast.gast_to_ast(node))


def unparse_short(node, limit=60):
    s = unparse(node)
    return s if len(s) <= limit else s[:limit - 3] + "..."


def slice_to_expr(node):
    """An index as an ordinary expression: ``1:2`` becomes ``slice(1, 2, None)``.

    Needed where an index is passed to a helper (``index_grad(g, x, index)``).
    """
    if isinstance(node, gast.Slice):
        parts = [node.lower, node.upper, node.step]
        return call(name("slice"), [p if p is not None else const(None) for p in parts])
    if isinstance(node, gast.Tuple):
        return tuple_([slice_to_expr(e) for e in node.elts])
    return node
