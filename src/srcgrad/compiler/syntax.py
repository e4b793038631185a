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


# Fields that never hold a node (names, flags, type comments, expression contexts):
# the walkers below skip them.  ``name`` stays (an except handler's is a Name).
_ATOM_FIELDS = frozenset({"ctx", "id", "attr", "type_comment", "kind", "level", "module",
                          "is_async", "conversion", "simple", "lineno", "col_offset",
                          "end_lineno", "end_col_offset"})
_NODE_FIELDS = {}


def node_fields(t):
    """The fields of node class ``t`` that may hold nodes (cached per class)."""
    fs = _NODE_FIELDS.get(t)
    if fs is None:
        fs = _NODE_FIELDS[t] = tuple(f for f in t._fields if f not in _ATOM_FIELDS)
    return fs


def push_children(n, out):
    """Append the child nodes of ``n`` to ``out`` (list fields in order)."""
    fields = _NODE_FIELDS.get(type(n)) or node_fields(type(n))
    d = n.__dict__
    for f in fields:
        v = d.get(f)
        if v is None:
            continue
        tv = type(v)
        if tv is list:
            for x in v:
                if isinstance(x, _AST_BASE):
                    out.append(x)
        elif isinstance(v, _AST_BASE):
            out.append(v)


def walk(node):
    """Every node under ``node`` (a node or a list of nodes), as a list in the order
    of ``gast.walk`` (breadth first), several times faster: no generator per node.
    The list is made before the caller looks at it (change no structure meanwhile
    and it makes no difference)."""
    out = list(node) if isinstance(node, list) else [node]
    i = 0
    push = push_children
    while i < len(out):
        n = out[i]
        i += 1
        push(n, out)
    return out


_BLOCK_NODES = (gast.stmt, gast.excepthandler) + \
    ((gast.match_case,) if hasattr(gast, "match_case") else ())


def statements(node):
    """The statements in ``node`` (a statement, or a list of them), nested ones too, in
    the order ``walk`` meets them, without visiting any expression: as
    ``[n for n in walk(node) if isinstance(n, gast.stmt)]``, for a fraction of the cost
    (statements hold statements only in their list fields)."""
    out = list(node) if isinstance(node, list) else [node]
    i = 0
    while i < len(out):
        n = out[i]
        i += 1
        for f in n._fields:
            v = getattr(n, f, None)
            if type(v) is list:
                out.extend(x for x in v if isinstance(x, _BLOCK_NODES))
    return [n for n in out if isinstance(n, gast.stmt)]


def _names(node, ctx_types):
    out = set()
    stack = list(node) if isinstance(node, list) else [node]
    Name, AST, atoms, fields_of = gast.Name, _AST_BASE, _ATOMS, _NODE_FIELDS
    pop, push = stack.pop, stack.append
    while stack:
        n = pop()
        t = type(n)
        if t is Name:
            if ctx_types is None or isinstance(n.ctx, ctx_types):
                out.add(n.id)
            continue
        d = n.__dict__
        for f in fields_of.get(t) or node_fields(t):
            v = d.get(f)
            if v is None:
                continue
            tv = type(v)
            if tv is list:
                for x in v:
                    if isinstance(x, AST):
                        push(x)
            elif tv not in atoms:
                if isinstance(v, AST):
                    push(v)
    return out


def names_read(node):
    """Names loaded anywhere in ``node`` (a node or a list of nodes)."""
    return _names(node, gast.Load)


def names_stored(node):
    return _names(node, (gast.Store, gast.Del))


def all_names(node):
    return _names(node, None)


_ATOMS = frozenset({str, int, float, bool, complex, bytes, type(None), type(Ellipsis)})
_AST_BASE = gast.AST
_CTXS = frozenset({gast.Load, gast.Store, gast.Del})
_Name = gast.Name


def clone(node, memo=None):
    """A deep copy of a gast tree or a list of trees, as ``copy.deepcopy`` makes it
    (shared nodes stay shared, annotations are copied with the same memo) but
    several times faster: nodes are rebuilt from their ``__dict__`` directly."""
    if memo is None and type(node) is gast.Name:
        # the commonest case (a name substituted into a template), without a memo
        d = node.__dict__
        ctx = d.get("ctx")
        if type(ctx) in _CTXS and not ctx.__dict__ and \
                all(type(x) in _ATOMS for k, x in d.items() if k != "ctx"):
            new = _Name.__new__(_Name)
            new.__dict__.update(d)
            new.ctx = type(ctx).__new__(type(ctx))
            return new
    return _clone(node, {} if memo is None else memo)


def _clone(v, memo):
    t = type(v)
    if t in _ATOMS:
        return v
    if t is list:
        return [_clone(x, memo) for x in v]
    if isinstance(v, gast.AST) and "__deepcopy__" not in t.__dict__:
        hit = memo.get(id(v))
        if hit is not None:
            return hit
        new = t.__new__(t)
        memo[id(v)] = new
        d = new.__dict__
        for k, x in v.__dict__.items():
            d[k] = x if type(x) in _ATOMS else _clone(x, memo)
        return new
    return copy.deepcopy(v, memo)


def clone_with(node, replace):
    """A deep copy of ``node`` in which each loaded Name for which
    ``replace(name_node)`` returns a node is that node (not copied further):
    a template instantiated in one pass, as a NodeTransformer over a copy does."""
    return _clone_with(node, replace, {})


def _clone_with(v, replace, memo):
    t = type(v)
    if t in _ATOMS:
        return v
    if t is list:
        return [_clone_with(x, replace, memo) for x in v]
    if t is gast.Name and type(v.ctx) is gast.Load:
        r = replace(v)
        if r is not None:
            return r
    if isinstance(v, gast.AST) and "__deepcopy__" not in t.__dict__:
        new = t.__new__(t)
        d = new.__dict__
        for k, x in v.__dict__.items():
            d[k] = x if type(x) in _ATOMS else _clone_with(x, replace, memo)
        return new
    return copy.deepcopy(v, memo)


class _Substitute(gast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.mapping:
            repl = self.mapping[node.id]
            if isinstance(repl, str):
                return name(repl)
            return clone(repl)
        return node


def substitute(node, mapping):
    """A copy of ``node`` with loaded names replaced (by a name string or a node copy)."""
    return _Substitute(mapping).visit(clone(node))


def rename_loads(node, mapping):
    """Rename loaded names only (in place)."""
    for sub in gast.walk(node):
        if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Load) and sub.id in mapping:
            sub.id = mapping[sub.id]
    return node


def rename(node, mapping):
    """Rename loads and stores alike (in place), and the names ``nonlocal`` declares."""
    for sub in gast.walk(node):
        if isinstance(sub, gast.Name) and sub.id in mapping:
            sub.id = mapping[sub.id]
        elif isinstance(sub, gast.Nonlocal):
            sub.names = [mapping.get(n, n) for n in sub.names]
    return node


def is_simple(node):
    """A name or a constant: an ANF atom."""
    return isinstance(node, (gast.Name, gast.Constant))


class NameGen:
    """Fresh names that never clash with the user's (or each other)."""

    def __init__(self, taken):
        self.taken = set(taken)

    # ``fresh`` gives the lowest free ``base<i>``; ``_next[base]`` remembers where the
    # last search for ``base`` stopped (names are only added, except when ``taken`` is
    # replaced, which forgets it), so that n names of one base cost O(n), not O(n**2)
    @property
    def taken(self):
        return self._taken

    @taken.setter
    def taken(self, value):
        self._taken = value
        self._next = {}

    def fresh(self, base):
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "t"
        if base[0].isdigit():
            base = "t" + base
        if base in _BUILTIN_NAMES or keyword.iskeyword(base):
            base = base + "_"   # never shadow a builtin the user's code may call
        taken = self._taken
        if base not in taken:
            taken.add(base)
            return base
        i = self._next.get(base, 1)
        while f"{base}{i}" in taken:
            i += 1
        self._next[base] = i + 1
        taken.add(f"{base}{i}")
        return f"{base}{i}"

    def reserve(self, n):
        self._taken.add(n)


def structure_key(node):
    """A hashable key equal for two trees exactly when they print the same (up to
    layout): node classes, names, attributes and constants, without printing."""
    t = type(node)
    if t is gast.Name:
        return node.id
    if t is list:
        return tuple(structure_key(x) for x in node)
    if t is gast.Constant:
        v = node.value
        return (t, type(v), repr(v))     # repr: 0.0 and -0.0 differ
    if not isinstance(node, _AST_BASE):
        return node
    d = node.__dict__
    return (t,) + tuple(structure_key(d.get(f)) for f in t._fields
                        if f not in ("ctx", "type_comment", "kind"))


def unparse(node):
    """Python source for a gast node (statement list or expression)."""
    from . import printer          # printer imports nothing of ours but ir
    return printer.unparse(node)


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


def type_params():
    return {"type_params": []} if "type_params" in gast.FunctionDef._fields else {}


def params_of(fdef):
    """A def's parameters (argument nodes), in signature order."""
    a = fdef.args
    out = list(a.posonlyargs) + list(a.args) + list(a.kwonlyargs)
    if a.vararg:
        out.append(a.vararg)
    if a.kwarg:
        out.append(a.kwarg)
    return out


def funcdef(fdef, name, body):
    args = copy.deepcopy(fdef.args)
    return gast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None,
                            type_comment=None, **type_params())


def is_literal(e):
    """A constant, or a tuple / list / sign of constants (a value with no names)."""
    if isinstance(e, gast.Constant):
        return True
    if isinstance(e, (gast.Tuple, gast.List)):
        return all(is_literal(x) for x in e.elts)
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, (gast.USub, gast.UAdd)):
        return is_literal(e.operand)
    return False


def alias_groups(body):
    """name -> the names that may hold the same object through ``a = b`` assignments
    (transitively), itself included; names never so assigned are absent."""
    parent = {}

    def find(n):
        while parent.setdefault(n, n) != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n
    for s in body:
        for n in gast.walk(s):
            if isinstance(n, gast.Assign) and len(n.targets) == 1 and \
                    isinstance(n.targets[0], gast.Name) and isinstance(n.value, gast.Name):
                parent[find(n.targets[0].id)] = find(n.value.id)
    groups = {}
    for n in parent:
        groups.setdefault(find(n), set()).add(n)
    return {n: frozenset(groups[find(n)]) for n in parent}
