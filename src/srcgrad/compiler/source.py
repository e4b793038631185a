"""Read a user's function: its source, its AST (gast), and where it lives.

Guarantees: the returned FunctionDef has line numbers of the user's real file
and column offsets of the real (indented) source, decorators removed; every
error raised later can name the user's file, line, column and source line.
"""
import builtins
import inspect
import linecache
import textwrap
import types

import gast

from . import parsing, sourcemap
from . import syntax as A
from ..errors import UnsupportedSyntaxError
from ..runtime.records import in_library


class SourceInfo:
    """Where a function's source lives, for located errors and comments."""

    def __init__(self, func, filename, first_line, lines, indent):
        self.func = func
        self.filename = filename
        self.first_line = first_line
        self.lines = lines          # the whole file's lines (for error messages)
        self.indent = indent

    def line(self, lineno):
        if lineno and 0 < lineno <= len(self.lines):
            return self.lines[lineno - 1].rstrip("\n")
        return None

    def error(self, node, message):
        lineno = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        place = sourcemap.user_place(self.filename, lineno) if lineno else None
        if place is not None:
            # raised while differentiating generated code (a derivative of a
            # derivative): located at the user's line it was made from
            filename, user_line, label = place
            message = (f"{message} (raised while differentiating srcgrad's {label}, at "
                       f"its line {lineno}: {(self.line(lineno) or '').strip()})")
            return UnsupportedSyntaxError(message, filename, user_line, None,
                                          linecache.getline(filename, user_line))
        return UnsupportedSyntaxError(message, self.filename, lineno, col, self.line(lineno))

    def where(self, node):
        lineno = getattr(node, "lineno", None)
        return f"{self.filename}, line {lineno}"


def unwrap(func):
    """The plain Python function behind methods, functools.wraps and srcgrad wrappers."""
    seen = set()
    while id(func) not in seen:
        seen.add(id(func))
        if isinstance(func, (types.MethodType,)):
            func = func.__func__
        elif hasattr(func, "__srcgrad_wrapped__"):
            func = func.__srcgrad_wrapped__
        else:
            break
    return func


def check_function(func):
    """TypeError unless ``func`` is a Python function that srcgrad may read."""
    if isinstance(func, (types.BuiltinFunctionType, types.BuiltinMethodType)) or not isinstance(
            func, types.FunctionType):
        raise TypeError(
            f"srcgrad can only transform Python functions defined with 'def'; "
            f"got {func!r} ({type(func).__name__}). Wrap it in a def, or register a rule "
            f"for it with @sg.adjoint.")


_FILE_TREES = {}


def _lambda_ast(func):
    """A ``lambda`` as ``def lambda_(args): return body``, found in its file's AST.

    The lambda is the one on its code's first line whose parameters match and,
    where a line holds several, whose body starts at the column the code object
    records.  Anything ambiguous is a clear TypeError asking for a def.
    """
    code = func.__code__
    filename = code.co_filename
    lines = linecache.getlines(filename, func.__globals__)
    where = f"{filename}, line {code.co_firstlineno}"
    if not lines:
        raise TypeError(f"srcgrad cannot read the source of this lambda ({where}); "
                        f"define it with def in a .py file")
    src = "".join(lines)
    key = (filename, hash(src))
    tree = _FILE_TREES.get(key)
    if tree is None:
        try:
            tree = _FILE_TREES[key] = gast.parse(src)
        except SyntaxError:
            raise TypeError(f"srcgrad cannot parse the file of this lambda ({where}); "
                            f"write it as a def") from None
    nargs = code.co_argcount + code.co_kwonlyargcount
    names = list(code.co_varnames[:nargs])
    found = []
    for node in gast.walk(tree):
        if isinstance(node, gast.Lambda) and node.lineno == code.co_firstlineno:
            a = node.args
            params = [x.id for x in list(a.posonlyargs) + list(a.args) + list(a.kwonlyargs)]
            if params == names:
                found.append(node)
    if len(found) > 1 and hasattr(code, "co_positions"):   # Python 3.11+
        cols = {p[2] for p in code.co_positions() if p[0] == code.co_firstlineno and
                p[2] is not None and p[3] is not None and p[3] > p[2]}
        first = min(cols) if cols else None
        found = [n for n in found if n.body.col_offset == first] or found
    if len(found) != 1:
        raise TypeError(f"srcgrad cannot tell which lambda on {where} this is; write it "
                        f"as a def")
    lam = found[0]
    ret = gast.Return(value=lam.body)
    ret.lineno, ret.col_offset = lam.body.lineno, lam.body.col_offset
    fdef = gast.FunctionDef(name="lambda_", args=lam.args, body=[ret], decorator_list=[],
                            returns=None, type_comment=None,
                            **({"type_params": []} if "type_params" in gast.FunctionDef._fields
                               else {}))
    fdef.lineno, fdef.col_offset = lam.lineno, lam.col_offset
    return fdef, SourceInfo(func, filename, lam.lineno, lines, 0)


def get_function_ast(func):
    """(gast.FunctionDef, SourceInfo) for a Python function (or lambda)."""
    func = unwrap(func)
    check_function(func)
    if func.__name__ == "<lambda>":
        return _lambda_ast(func)
    # code srcgrad generated (a derivative transformed again, a trampoline) whose
    # linecache entry someone cleared (linecache.clearcache): put back from its text
    sourcemap.reregister(func.__code__.co_filename)
    return _from_file_index(func) or _from_inspect(func)


def _from_inspect(func):
    """(fdef, info) by ``inspect`` (what :func:`_from_file_index` equals, slower)."""
    filename = func.__code__.co_filename
    try:
        # (by the code object: a function made by a decorator with functools.wraps is
        # its own code, not the function it wraps, which inspect would read instead)
        lines, first = inspect.findsource(func.__code__)
        src_lines, first_line = inspect.getsourcelines(func.__code__)
    except (OSError, TypeError) as e:
        raise TypeError(
            f"srcgrad cannot read the source of {func.__qualname__} (from {filename}): {e}. "
            f"Functions typed at an interactive prompt or created by exec() have no source "
            f"file; define it in a .py file (or a notebook cell).") from None
    src = "".join(src_lines)
    dedented = textwrap.dedent(src)
    indent = len(src_lines[0]) - len(src_lines[0].lstrip())
    try:
        module = gast.parse(dedented)
    except SyntaxError as e:  # pragma: no cover - Python already compiled it
        raise UnsupportedSyntaxError(f"cannot parse {func.__qualname__}: {e.msg}",
                                     filename, e.lineno, e.offset, None) from None
    fdef = module.body[0]
    if isinstance(fdef, gast.AsyncFunctionDef):
        lineno = fdef.lineno + first_line - 1
        raise UnsupportedSyntaxError(
            f"srcgrad does not support async def ({func.__qualname__}); differentiate a "
            f"plain def", filename, lineno, indent, src_lines[lineno - first_line].rstrip("\n"))
    if not isinstance(fdef, gast.FunctionDef):
        raise TypeError(f"srcgrad expected a 'def' for {func.__qualname__}, found "
                        f"{type(fdef).__name__} at {filename}:{first_line}")
    # map line numbers and columns to the real file
    for node in A.walk(module):
        if hasattr(node, "lineno") and node.lineno is not None:
            node.lineno += first_line - 1
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += first_line - 1
        if hasattr(node, "col_offset") and node.col_offset is not None:
            node.col_offset += indent
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += indent
    fdef.decorator_list = []
    all_lines = lines if lines else linecache.getlines(filename)
    return fdef, SourceInfo(func, filename, first_line, all_lines, indent)


def _from_file_index(func):
    """(fdef, info) from the file's parse (once per version of the file), or None."""
    code = func.__code__
    filename = code.co_filename
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, func.__globals__)
    fdef = parsing.function_node(code, lines) if lines else None
    if fdef is None:
        return None
    first_line = code.co_firstlineno
    head = lines[first_line - 1]
    indent = len(head) - len(head.lstrip())
    if isinstance(fdef, gast.AsyncFunctionDef):
        raise UnsupportedSyntaxError(
            f"srcgrad does not support async def ({func.__qualname__}); differentiate a "
            f"plain def", filename, fdef.lineno, fdef.col_offset,
            lines[fdef.lineno - 1].rstrip("\n"))
    fdef.decorator_list = []
    return fdef, SourceInfo(func, filename, first_line, lines, indent)


_MISSING = object()


# -- library code -------------------------------------------------------------------------
# A function with source but no rule that lives in an installed package (SciPy's
# logsumexp, a library's helpers) is not transformed into its internals: a call of it
# is an error that names it, unless the user opted in for its package.

_TRANSFORMED_LIBRARIES = set()


def transform_library(name):
    """Let srcgrad differentiate the Python source of package ``name``'s functions
    (installed packages are otherwise called as opaque functions, and an error names
    the function that has no derivative rule)."""
    _TRANSFORMED_LIBRARIES.add(name.split(".")[0])


def library_name(func):
    """``"scipy.special.logsumexp"`` when ``func`` (a Python function) comes from an
    installed library the user did not opt in to transform, else None."""
    code = getattr(func, "__code__", None)
    if code is None:
        return None
    module = getattr(func, "__module__", None) or ""
    if module.split(".")[0] in _TRANSFORMED_LIBRARIES or module.startswith("srcgrad"):
        return None
    if not in_library(code.co_filename):
        return None
    return f"{module}.{getattr(func, '__qualname__', func.__name__)}" if module else \
        func.__qualname__


_LOCAL_IMPORTS = {}      # code object -> {name: module or object} imported inside it


def add_local_import(func, name, obj):
    """``import numpy as np`` inside ``func``: ``np`` resolves like a global of it."""
    _LOCAL_IMPORTS.setdefault(func.__code__, {})[name] = obj


def local_imports(func):
    """{name: object} for the imports inside ``func`` (closure entries for its
    generated code, which does not repeat the import statements)."""
    return dict(_LOCAL_IMPORTS.get(getattr(func, "__code__", None), {}))


def resolve(node, func):
    """The object a Name/Attribute chain refers to in ``func``'s globals/closure/builtins.

    Returns ``_MISSING`` for anything that is not a static reference (locals,
    calls, subscripts).  ``local_names`` must be excluded by the caller.
    """
    if isinstance(node, gast.Name):
        n = node.id
        code = func.__code__
        if func.__closure__ and n in code.co_freevars:
            cell = func.__closure__[code.co_freevars.index(n)]
            try:
                return cell.cell_contents
            except ValueError:
                return _MISSING
        imported = _LOCAL_IMPORTS.get(code)
        if imported and n in imported:
            return imported[n]
        if n in func.__globals__:
            return func.__globals__[n]
        if hasattr(builtins, n):
            return getattr(builtins, n)
        return _MISSING
    if isinstance(node, gast.Attribute):
        base = resolve(node.value, func)
        if base is _MISSING:
            return _MISSING
        return getattr(base, node.attr, _MISSING)
    return _MISSING


MISSING = _MISSING
