"""``sg.memory_report(f, *args, wrt=...)``: what the reverse sweep keeps, by source line.

The gradient of ``f`` runs in two sweeps: the forward sweep computes ``f`` and keeps
what the backward (adjoint) sweep will read; the backward sweep uses it up.  This
module runs the forward sweep of the split form (the one ``sg.vjp`` builds, which
keeps exactly what the adjoint reads) on the given arguments, before any gradient
is computed, and measures what it kept:

* the last values it hands to the backward sweep (one each), attributed to the
  source line of ``f`` whose generated statement assigned them last;
* what it pushes on its record lists each time a statement runs (inside loops:
  once per trip), attributed to the line whose statement pushed it; a push keeps
  the value a statement is about to overwrite.

Bytes: an array counts its data (``nbytes``) once, however many names or pushes
hold it, and a view counts the array it keeps alive; arrays that are (views of)
the arguments count nothing, the caller holds them.  Python scalars and other
objects count ``sys.getsizeof`` (a float: 24 bytes, 8 of them the number; a NumPy
scalar, its object's size), except
``None``, ``True``, ``False`` and small ints, which Python shares; tuples, lists and
dicts count their own size and their items'.  The record lists' own size (8 bytes
a slot) and the float tapes' spare room is ``overhead_bytes``; ``total_bytes`` is
everything.
"""
import array
import ast
import inspect
import sys

import numpy as np

from ..compiler.driver import reverse_function
from ..compiler.source import check_function
from ..compiler.sourcemap import origins
from .gradients import (_Signature, _kind, _leaves, _resolve_wrt, _unwrap_tensors,
                        api_boundary, plain_function, traced_function)


class Saved:
    """One thing the forward sweep keeps: a value handed over once, or what one
    push site records each time it runs (``count`` times)."""

    def __init__(self, line, name, how, values, nbytes):
        self.line = line            # the user's source line (None when unknown)
        self.name = name            # the generated name (or the pushed expression)
        self.how = how              # "value", "argument" or "pushed"
        self.values = values        # what was kept (one, or one per push)
        self.bytes = nbytes         # bytes these values hold beyond what is counted before
        self.count = len(values)

    @property
    def per_iteration(self):
        """Bytes per push (for a push site inside a loop: per trip)."""
        return self.bytes / self.count if self.count else 0.0

    @property
    def shape(self):
        """What one kept value is: ``float64 (32, 64)``, ``float``, ``tuple``... (the
        last one pushed: the first push often keeps what a name held before the loop)"""
        for v in reversed(self.values):
            if v is not None:
                return _describe(v)
        return "None"

    def __repr__(self):
        return (f"Saved(line={self.line}, name={self.name!r}, how={self.how!r}, "
                f"count={self.count}, bytes={self.bytes})")


class MemoryReport:
    """What the forward sweep of ``f``'s gradient keeps for the backward sweep."""

    def __init__(self, func, wrt, entries, overhead_bytes, source_lines):
        self.func, self.wrt = func, wrt
        self.entries = entries                  # list of Saved, by source line
        self.overhead_bytes = overhead_bytes    # the record lists' own slots
        self._source = source_lines             # {line: text}

    @property
    def total_bytes(self):
        return sum(e.bytes for e in self.entries) + self.overhead_bytes

    def by_line(self):
        """``{line: bytes}`` over the entries (None: no source line)."""
        out = {}
        for e in self.entries:
            out[e.line] = out.get(e.line, 0) + e.bytes
        return out

    def __str__(self):
        head = (f"saved for the backward sweep of {self.func.__qualname__} "
                f"(wrt {', '.join(self.wrt) or 'nothing'}): {_bytes(self.total_bytes)}")
        rows = [("line", "source", "saved", "what", "kept", "bytes", "per push")]
        for e in self.entries:
            text = self._source.get(e.line, "")
            text = text if len(text) <= 40 else text[:37] + "..."
            how = "argument" if e.how == "argument" else \
                "last value" if e.how == "value" else f"pushed x{e.count}"
            per = _bytes(e.per_iteration) if e.how == "pushed" else ""
            rows.append((str(e.line) if e.line is not None else "-", text, e.name, how,
                         e.shape, _bytes(e.bytes), per))
        if self.overhead_bytes:
            rows.append(("-", "", "(record lists)", "slots", "", _bytes(self.overhead_bytes),
                         ""))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        right = {0, 5, 6}
        lines = [head]
        for r in rows:
            lines.append("  ".join(c.rjust(w) if i in right else c.ljust(w)
                                   for i, (c, w) in enumerate(zip(r, widths))).rstrip())
        return "\n".join(lines)

    def __repr__(self):
        return f"<MemoryReport of {self.func.__qualname__}: {self.total_bytes} bytes>"


@api_boundary
def memory_report(f, *args, wrt=None, **kwargs):
    """What the reverse sweep of ``sg.grad(f, wrt)`` keeps at these arguments, by line.

    Runs the forward sweep once (no gradient is computed); returns a
    :class:`MemoryReport`: ``print`` it for a table, ``.total_bytes`` for the sum,
    ``.entries`` for each saved value or push site."""
    func = plain_function(f)
    check_function(func)
    sig = _Signature(func)
    bound = sig.bind(args, kwargs)
    leaves = _leaves(bound)
    bound, _ = _unwrap_tensors(bound)
    func = traced_function(f, bound)
    names, _ = _resolve_wrt(wrt, sig, func)
    names = leaves if names is None else names
    kinds = {n: _kind(v) for n, v in bound.items()}
    fwd, _ = reverse_function(func, names, "split", kinds)
    layout = _Layout(fwd)
    pushed, (_, saved) = _run_recording(fwd, layout, lambda: sig.call(fwd, bound))
    sizes = _Sizes(bound.values())
    entries = []
    for name, value in zip(layout.saved, saved):
        if name in layout.lists:
            continue
        if name in bound and value is bound[name]:
            entries.append(Saved(layout.line_of_assignment(name), name, "argument", [value], 0))
        else:
            entries.append(Saved(layout.line_of_assignment(name), name, "value", [value],
                                 sizes.of(value)))
    for site, values in pushed.items():
        line, text = layout.sites[site][1:]
        unboxed = getattr(values, "itemsize", None)     # a float tape: its doubles
        nbytes = unboxed * len(values) if unboxed else sum(map(sizes.of, values))
        entries.append(Saved(line, text, "pushed", list(values), nbytes))
    overhead = sum(_slots(v) for n, v in zip(layout.saved, saved) if n in layout.lists)
    entries.sort(key=lambda e: (e.line is None, e.line or 0, e.how != "pushed", e.name))
    return MemoryReport(func, tuple(names), entries, overhead, _source_lines(func))


class _Layout:
    """Where the forward sweep keeps things: the names it returns to the backward
    sweep, its record lists, and each push site's user line and expression."""

    def __init__(self, fwd):
        tree = ast.parse(fwd.source).body[0]
        first = fwd.__code__.co_firstlineno
        where = origins(fwd)
        self._where = where
        self.saved = []
        ret = tree.body[-1]
        if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple) and \
                len(ret.value.elts) == 2 and isinstance(ret.value.elts[1], ast.Tuple):
            self.saved = [ast.unparse(e) for e in ret.value.elts[1].elts]
        self.sites = {}          # line in the file -> (list name, user line, expression)
        self.filled = {}         # a site writing a loop's filled tape -> the loop's counter
        self.assigned = {}       # name -> its last assignment's line in fwd.source
        filled = {n.targets[0].id for n in ast.walk(tree) if isinstance(n, ast.Assign) and
                  isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
                  and n.value.func.attr == "filled_tape"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript) \
                    and isinstance(node.targets[0].value, ast.Name) and \
                    node.targets[0].value.id in filled and \
                    isinstance(node.targets[0].slice, ast.Name):
                # ``tape[i] = x``: one slot of a tape allocated at its size (float_tapes.py)
                at = first + node.lineno - 1
                self.sites[at] = (node.targets[0].value.id,
                                  where.get(node.lineno, (None, None))[0],
                                  ast.unparse(node.value))
                self.filled[at] = node.targets[0].slice.id
                continue
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "append" and isinstance(node.func.value, ast.Name) \
                    and len(node.args) == 1:
                user = where.get(node.lineno, (None, None))[0]
                self.sites[first + node.lineno - 1] = (node.func.value.id, user,
                                                       ast.unparse(node.args[0]))
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and \
                                not _is_placeholder(node):
                            self.assigned[n.id] = max(self.assigned.get(n.id, 0), node.lineno)
        self.lists = {name for name, _, _ in self.sites.values()}

    def line_of_assignment(self, name):
        at = self.assigned.get(name)
        return self._where.get(at, (None, None))[0] if at else None


def _is_placeholder(node):
    """``a = b = None``: a name bound before its first value (not where it comes from)."""
    return isinstance(node.value, ast.Constant) and node.value.value is None


def _run_recording(fwd, layout, call):
    """Run ``call()`` (the forward sweep) noting, after each push site's line runs,
    what it added to its list: ``({site line: [values]}, call's result)``."""
    code = fwd.__code__
    sites = layout.sites
    pushed = {}
    state = {"prev": None, "lens": {}}

    def after_line(frame):
        prev = state["prev"]
        if prev in sites:
            name = sites[prev][0]
            lst = frame.f_locals.get(name)
            if prev in layout.filled and isinstance(lst, (list, array.array)):
                # (a filled tape: the slot this trip wrote)
                pushed.setdefault(prev, lst[:0]).append(lst[frame.f_locals[layout.filled[prev]]])
            elif isinstance(lst, (list, array.array)):     # (a loop's float tape: an array)
                known = state["lens"].get(name)
                start = known[1] if known and known[0] is lst else 0
                if len(lst) > start:
                    pushed.setdefault(prev, lst[:0]).extend(lst[start:])
                state["lens"][name] = (lst, len(lst))

    def local(frame, event, arg):
        if event in ("line", "return"):
            after_line(frame)
            state["prev"] = frame.f_lineno if event == "line" else None
        return local

    def calls(frame, event, arg):
        return local if frame.f_code is code else None

    before = sys.gettrace()
    sys.settrace(calls)
    try:
        result = call()
    finally:
        sys.settrace(before)
    return pushed, result


class _Sizes:
    """Bytes each kept value adds, each array's data and each object counted once."""

    def __init__(self, arguments):
        self.counted = set()
        self.keep = []               # (the objects counted stay alive: ids stay theirs)
        for a in arguments:
            self._mark(a)

    def _mark(self, v):
        if isinstance(v, (list, tuple)):
            for x in v:
                self._mark(x)
        elif isinstance(v, dict):
            for x in v.values():
                self._mark(x)
        else:
            self._seen(_root(v) if isinstance(v, np.ndarray) else v)

    def _seen(self, v):
        if id(v) in self.counted:
            return True
        self.counted.add(id(v))
        self.keep.append(v)
        return False

    def of(self, v):
        if v is None or v is True or v is False or \
                (type(v) is int and -5 <= v <= 256):
            return 0
        if isinstance(v, np.ndarray):
            root = _root(v)
            return 0 if self._seen(root) else root.nbytes
        if self._seen(v):
            return 0
        if isinstance(v, np.generic):    # (its object holds its value; getsizeof adds
            return type(v).__basicsize__  # a header NumPy does not allocate)
        if isinstance(v, (list, tuple)):
            return sys.getsizeof(v) + sum(map(self.of, v))
        if isinstance(v, dict):
            return sys.getsizeof(v) + sum(self.of(k) + self.of(x) for k, x in v.items())
        return sys.getsizeof(v)


def _slots(v):
    """The bytes of a record list or tape beyond the values counted per push: a list's
    slots (8 bytes each, with its spare room), a float tape's header and spare room
    (an appended ``array('d')`` grows by about 1/16; one allocated at its size has none)."""
    if isinstance(v, list):
        return sys.getsizeof(v)
    if isinstance(v, array.array):
        return sys.getsizeof(v) - len(v) * v.itemsize
    return 0


def _root(a):
    """The array whose memory ``a`` (perhaps a view) keeps alive."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _describe(v):
    if isinstance(v, np.ndarray):
        return f"{v.dtype} {tuple(v.shape)}"
    if isinstance(v, np.generic):
        return f"{v.dtype} scalar"
    if isinstance(v, tuple) and all(type(x) is int for x in v):
        return f"shape {v}"
    return type(v).__name__


def _bytes(n):
    n = float(n)
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:.0f} B"


def _source_lines(func):
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError):
        return {}
    return {first + i: text.strip() for i, text in enumerate(lines)}
