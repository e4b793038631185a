"""Where each line of generated code comes from, for tracebacks and debuggers.

Guarantees: every generated file is registered with :mod:`linecache` under its
``<srcgrad ...>`` name with no modification time, so ``linecache.checkcache`` keeps
it and every traceback frame in generated code shows its line (on Python 3.10-3.13);
:func:`point_home` re-registers the files a traceback passes through (should
something have cleared the cache) and adds a note naming the user's file, line and
source for the innermost generated frame (``e.add_note``; on 3.10, the message).
Python 3.10-3.12 print an uncaught exception with C code that reads source lines from
files only, not from linecache; there, once such an exception has passed srcgrad and
only if nobody has replaced ``sys.excepthook``, it is set to the ``traceback``
module's printer (what 3.13 uses by default), so that those lines are shown too.
With ``SRCGRAD_DEBUG_DIR`` set, generated code is written to real ``.py`` files in
that folder, so that debuggers and editors open it.

The map from generated lines to the user's lines is built only when an exception
needs it: the generated text is parsed again and walked beside the tree it was
rendered from, whose statements carry the user's line numbers (the forward sweep)
or follow a ``# line N:`` comment (the adjoint sweep).
"""
import ast
import linecache
import os
import re
import sys
import traceback

import gast

from .ir import Comment

_FILES = {}            # filename -> GeneratedFile
_LINE_COMMENT = re.compile(r"line (\d+):")
_NOTED = "__srcgrad_noted__"


class GeneratedFile:
    """One compiled unit of generated code: its text, the user function it was made
    from, and each generated function's tree, source and first line in the file."""

    def __init__(self, filename, text, func, label, trees):
        self.filename, self.text, self.func, self.label = filename, text, func, label
        self.lines = text.splitlines(True)
        self.trees = trees           # name -> (gast FunctionDef, its source, first line)
        self._map = None

    def register(self):
        if not os.path.isabs(self.filename):
            linecache.cache[self.filename] = (len(self.text), None, self.lines, self.filename)

    def origin(self, lineno):
        """``(user_line, sweep)`` for a line of this file, or None when unknown."""
        if self._map is None:
            self._map = {}
            for name, (tree, src, first) in self.trees.items():
                try:
                    self._map.update(_line_map(tree, src, first, name))
                except (SyntaxError, ValueError, KeyError):   # (a map is a courtesy)
                    pass
        return self._map.get(lineno)


def register(filename, text, func, label, trees):
    entry = GeneratedFile(filename, text, func, label, trees)
    _FILES[filename] = entry
    entry.register()
    return entry


def reregister(filename):
    """Put a generated file's text back in linecache if it is gone (its entry kept)."""
    entry = _FILES.get(filename)
    if entry is not None and filename not in linecache.cache:
        entry.register()


def origins(fn):
    """``{line of fn.source (from 1): (user line, sweep)}`` for a generated function."""
    code = fn.__code__
    entry = _FILES.get(code.co_filename)
    if entry is None:
        return {}
    first = code.co_firstlineno
    out = {}
    for i in range(1, fn.source.count("\n") + 1):
        o = entry.origin(first + i - 1)
        if o is not None:
            out[i] = o
    return out


_ON_DISK = {}          # generated function -> its twin compiled from a real file


def on_disk(fn, folder=None):
    """``fn`` compiled again from a real ``.py`` file (in ``folder``, by default
    ``SRCGRAD_DEBUG_DIR`` or a temporary folder), so that debuggers and editors open
    it; the same code, closure and globals.  (``sg.grad(f, debug=True)``.)"""
    if isinstance(fn, tuple):
        return tuple(on_disk(f, folder) for f in fn)
    twin = _ON_DISK.get(fn)
    if twin is not None:
        return twin
    code = fn.__code__
    entry = _FILES.get(code.co_filename)
    if entry is None or os.path.isabs(entry.filename):
        return fn                       # already a real file
    folder = folder or debug_dir() or _temp_dir()
    stem = re.sub(r"\W+", "_", entry.label).strip("_")
    path = os.path.join(folder, f"{stem}_{len(_ON_DISK)}.py")
    with open(path, "w") as out:
        out.write(entry.text)
    ns = dict(fn.__globals__)
    exec(compile(entry.text, path, "exec"), ns)
    factory = ns["__srcgrad_factory__"]
    cells = dict(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__ or ())))
    made = factory(*[cells.get(n) for n in factory.__code__.co_varnames[
        :factory.__code__.co_argcount]])
    twin = next(f for f in made if f.__name__ == fn.__name__)
    twin = type(fn)(twin.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                    twin.__closure__)
    twin.__kwdefaults__, twin.__doc__ = fn.__kwdefaults__, fn.__doc__
    twin.__dict__.update(fn.__dict__)
    register(path, entry.text, entry.func, entry.label, entry.trees)
    _ON_DISK[fn] = twin
    return twin


_TEMP = []


def _temp_dir():
    if not _TEMP:
        import tempfile
        _TEMP.append(tempfile.mkdtemp(prefix="srcgrad-"))
    return _TEMP[0]


def debug_dir():
    """The folder generated code is written to (``SRCGRAD_DEBUG_DIR``), or None."""
    path = os.environ.get("SRCGRAD_DEBUG_DIR")
    if not path:
        return None
    os.makedirs(path, exist_ok=True)
    return os.path.abspath(path)


def _line_map(fdef, src, first, name):
    """{line in the file: (user line, sweep)} for one generated function, rendered as
    ``src`` from ``fdef``, whose ``def`` is line ``first`` of its file."""
    tree = ast.parse(src).body[0]
    out = {}
    state = {"line": None, "sweep": "adjoint" if name.endswith("_bwd") else
             "tangent" if name.startswith("jvp_") else "forward"}

    def walk(gstmts, astmts):
        real = [s for s in gstmts if not isinstance(s, Comment)]
        if len(real) != len(astmts):
            raise ValueError("the trees differ")
        it = iter(astmts)
        for g in gstmts:
            if isinstance(g, Comment):
                m = _LINE_COMMENT.match(g.text)
                if m:
                    state["line"] = int(m.group(1))
                elif g.text.startswith("reverse sweep"):
                    state["sweep"], state["line"] = "adjoint", None
                continue
            a = next(it)
            if type(a).__name__ != type(g).__name__:
                raise ValueError("the trees differ")
            blocks = [(f, getattr(g, f)) for f in ("body", "orelse", "finalbody")
                      if isinstance(getattr(g, f, None), list)]
            # (the adjoint's statements follow their line's comment; its loops and
            # branches keep the line of the loop or branch they reverse)
            own = state["sweep"] != "adjoint" or blocks
            line = (getattr(g, "lineno", None) if own else None) or state["line"]
            if isinstance(g, gast.Return) and state["sweep"] == "adjoint":
                line = None          # (returning the gradients belongs to no one line)
            end = a.lineno if blocks or getattr(g, "handlers", None) else a.end_lineno
            if line is not None:
                for n in range(a.lineno, end + 1):
                    out[first + n - 1] = (line, state["sweep"])
            for f, gbody in blocks:
                walk(gbody, getattr(a, f))
            for gh, ah in zip(getattr(g, "handlers", ()), getattr(a, "handlers", ())):
                walk(gh.body, ah.body)
    walk(fdef.body, tree.body)
    return out


def user_place(filename, lineno):
    """``(file, line, label)`` of the user's line that line ``lineno`` of the generated
    file ``filename`` was made from (through derivatives of derivatives), or None for
    a file srcgrad did not generate or a line it cannot place."""
    label, place = None, None
    for _ in range(32):
        entry = _FILES.get(filename)
        if entry is None:
            return place
        origin = entry.origin(lineno)
        code = getattr(entry.func, "__code__", None)
        if origin is None or code is None:
            return place
        label = label or entry.label
        filename, lineno = code.co_filename, origin[0]
        place = (filename, lineno, label)
    return place


def _print_exception(etype, value, tb):
    """``sys.excepthook`` on 3.10-3.12 once generated code raised: the traceback
    module's printer, which reads generated lines from linecache."""
    traceback.print_exception(etype, value, tb)


def point_home(exc):
    """Re-register the generated files ``exc``'s traceback runs through, and note on
    ``exc`` (once) where the innermost generated frame comes from in the user's code."""
    tb, inner = exc.__traceback__, None
    while tb is not None:
        entry = _FILES.get(tb.tb_frame.f_code.co_filename)
        if entry is not None:
            entry.register()
            inner = (entry, tb.tb_lineno)
        tb = tb.tb_next
    if inner is None or getattr(exc, _NOTED, False):
        return exc
    if sys.version_info < (3, 13) and sys.excepthook is sys.__excepthook__:
        sys.excepthook = _print_exception
    entry, lineno = inner
    origin = entry.origin(lineno)
    func = entry.func
    code = getattr(func, "__code__", None)
    if origin is None or code is None:
        return exc
    user_line, sweep = origin
    text = linecache.getline(code.co_filename, user_line).strip()
    where = {"forward": "the forward sweep", "adjoint": "the adjoint",
             "tangent": "the tangent code"}[sweep]
    note = (f"srcgrad: raised in {where} of this line ({entry.label}):\n"
            f"  File \"{code.co_filename}\", line {user_line}, in {func.__name__}\n"
            f"    {text}")
    try:
        setattr(exc, _NOTED, True)
    except AttributeError:
        return exc
    if sys.version_info >= (3, 11):
        exc.add_note(note)
    elif len(exc.args) == 1 and isinstance(exc.args[0], str):
        exc.args = (exc.args[0] + "\n" + note,)
    return exc
