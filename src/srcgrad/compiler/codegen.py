"""Turn generated gast function definitions into live Python functions.

Guarantees: the returned function's ``__globals__`` is the user's module (so
globals are read live, as in the original), helpers (``ad``, ``np``, callees)
are closure variables that never leak into the user's namespace, the source is
registered with linecache (tracebacks and pdb show it), and ``fn.source`` is
the text a user sees.
"""
import ast
import itertools
import linecache
import textwrap

import gast

from .ir import Comment

_MARK = "__srcgrad_comment__:"
_counter = itertools.count()


class _Comments(gast.NodeTransformer):
    def visit_Comment(self, node):
        return gast.Expr(value=gast.Constant(value=_MARK + node.text, kind=None))

    def generic_visit(self, node):
        for field, old in gast.iter_fields(node):
            if isinstance(old, list):
                new = []
                for v in old:
                    if isinstance(v, Comment):
                        new.append(self.visit_Comment(v))
                    elif isinstance(v, gast.AST):
                        r = self.visit(v)
                        if r is not None:
                            new.append(r)
                    else:
                        new.append(v)
                old[:] = new
            elif isinstance(old, gast.AST):
                setattr(node, field, self.visit(old))
        return node


def to_source(fdef):
    """Readable source of a gast FunctionDef (comments rendered as comments)."""
    tree = ast.Module(body=[_to_ast(fdef)], type_ignores=[])
    text = ast.unparse(tree)
    out = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith(("'" + _MARK, '"' + _MARK, "'''" + _MARK, '"""' + _MARK)):
            indent = line[:len(line) - len(line.lstrip())]
            out.append(indent + "# " + ast.literal_eval(s)[len(_MARK):])
        else:
            out.append(line)
    return "\n".join(out) + "\n"


_ATOMS = frozenset({str, int, float, bool, complex, bytes, type(None), type(Ellipsis)})
_CTX = {gast.Load: ast.Load, gast.Store: ast.Store, gast.Del: ast.Del}


def _to_ast(v):
    """The ``ast`` tree of a gast tree, for ``ast.unparse`` only (no locations), in
    one pass: a Comment becomes a marked string statement, ``to_source`` turns back
    into ``# text``.  gast and ast differ only in the nodes handled here (argument
    names are ``Name`` in gast, ``arg`` in ast; an except clause's name); every other
    node has the same name and fields in both."""
    t = type(v)
    if t in _ATOMS:
        return v
    if t is list:
        return [_to_ast(x) for x in v]
    if t is gast.Name:
        return ast.Name(id=v.id, ctx=_CTX.get(type(v.ctx), ast.Load)())
    if t is Comment:
        return ast.Expr(value=ast.Constant(value=_MARK + v.text, kind=None))
    if t is gast.arguments:
        return ast.arguments(posonlyargs=[_arg(a) for a in v.posonlyargs],
                             args=[_arg(a) for a in v.args], vararg=_arg(v.vararg),
                             kwonlyargs=[_arg(a) for a in v.kwonlyargs],
                             kw_defaults=_to_ast(v.kw_defaults), kwarg=_arg(v.kwarg),
                             defaults=_to_ast(v.defaults))
    if t is gast.ExceptHandler:
        return ast.ExceptHandler(type=_to_ast(v.type), name=v.name.id if v.name else None,
                                 body=_to_ast(v.body))
    cls = getattr(ast, t.__name__, None)
    if cls is None or not isinstance(v, gast.AST):
        return gast.gast_to_ast(v)
    new = cls.__new__(cls)
    for f in cls._fields:
        setattr(new, f, _to_ast(getattr(v, f, None)))
    if isinstance(new, ast.stmt):
        new.lineno = 0        # ast.unparse looks type comments up by line
    return new


def _arg(a):
    if a is None:
        return None
    return ast.arg(arg=a.id, annotation=_to_ast(a.annotation), type_comment=None)


def build(sources, closure, func, label):
    """Compile generated function sources; return {name: function}.

    ``sources`` maps each function name to its source; ``closure`` maps the
    free names they use (helper modules, callees, the user's closure cells) to
    objects.
    """
    from . import pipeline
    pipeline.after("codegen", func, sources)
    names = sorted(closure)
    body = "".join(textwrap.indent(src, "    ") + "\n" for src in sources.values())
    ret = ", ".join(sources)
    factory = (f"def __srcgrad_factory__({', '.join(names)}):\n{body}"
               f"    return ({ret},)\n")
    filename = f"<srcgrad {label} #{next(_counter)}>"
    linecache.cache[filename] = (len(factory), None, factory.splitlines(True), filename)
    user_globals = getattr(func, "__globals__", {})
    ns = dict(user_globals)
    code = compile(factory, filename, "exec")
    exec(code, ns)
    made = ns["__srcgrad_factory__"](*[closure[n] for n in names])
    out = {}
    import types
    for (fname, src), fn in zip(sources.items(), made):
        live = types.FunctionType(fn.__code__, user_globals, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
        live.__kwdefaults__ = fn.__kwdefaults__
        live.__doc__ = fn.__doc__
        live.source = src
        out[fname] = live
    return out
