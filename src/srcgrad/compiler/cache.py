"""The cache of generated code: keyed by code, checked against what it baked in, bounded.

Guarantees:

* The key is the user's code (the code object, its file and qualified name), never
  the function object: a new lambda or closure per loop trip with the same code
  reuses the entry.  Each cache keeps at most ``CACHE_LIMIT`` keys, the least
  recently used going first, and up to ``WORLDS_PER_KEY`` entries per key: closures
  of one code whose cells hold other functions (a derivative's ``lambda x: g(x)``
  for each of several ``g``) each keep theirs, instead of rebuilding in turn.
* An entry is used only while everything the generated code baked in at compile
  time is unchanged: for the function and, transitively, every user function it
  calls (their entries' dependencies are inherited), each global name and closure
  variable its code names must still hold the same object (functions, modules,
  classes: by identity) or still hold data (numbers, arrays, containers).  A helper
  redefined after the first call, the notebook habit, is seen at the next call.
* Data is never baked in: the generated functions read the user's closure cells
  themselves (a variable rebound with ``nonlocal`` is seen at the next call),
  globals through the user's module, and take the function's own defaults.
* Builds are locked per key: a slow compile never blocks another function's first
  call; two threads asking for the same key build it once.  A function whose build
  asks for its own key again (in the same thread) is recursive: a located error.
"""
import collections
import contextlib
import dis
import gc
import sys
import threading
import types

import numpy as np

CACHE_LIMIT = 256           # entries per cache (reverse, forward)
WORLDS_PER_KEY = 8          # entries per key: closures of one code, other cells

_MISSING = object()
_DATA = object()            # the token of a value read live (numbers, arrays, containers)
_DATA_TYPES = (int, float, complex, bool, str, bytes, type(None), np.ndarray, np.generic,
               list, tuple, dict, set, frozenset, range, slice)
_local = threading.local()  # per thread: the keys being built, the dependency collectors


def code_key(func):
    """What identifies a function's code (not the function object)."""
    code = func.__code__
    return (code, code.co_filename, func.__qualname__)


def _token(v):
    return _DATA if isinstance(v, _DATA_TYPES) else v


def _same(v, token):
    return v is token or (token is _DATA and isinstance(v, _DATA_TYPES))


_NAME_OPS = frozenset(dis.opmap[n] for n in ("STORE_GLOBAL", "DELETE_GLOBAL", "LOAD_NAME",
                                             "STORE_NAME", "DELETE_NAME",
                                             "LOAD_FROM_DICT_OR_GLOBALS") if n in dis.opmap)
_LOAD_GLOBAL = dis.opmap["LOAD_GLOBAL"]
# (from 3.11 LOAD_GLOBAL's argument is the name's index times two, plus a flag)
_GLOBAL_SHIFT = 1 if sys.version_info >= (3, 11) else 0
_SCANNED = (3, 10) <= sys.version_info[:2] <= (3, 13)


def _code_names(code, out):
    """The global names ``code`` (and the code nested in it) reads or writes: not its
    attribute names (``np.exp``'s ``exp`` is no global; checking it on every call
    would only cost time).  Read from the bytecode directly (``dis`` takes a third
    of a second on a long function); on a Python whose bytecode this does not
    know, every name of the code."""
    if not _SCANNED:
        out.update(code.co_names)
    else:
        raw, names, ext = code.co_code, code.co_names, 0
        for i in range(0, len(raw), 2):
            op, arg = raw[i], raw[i + 1] | ext
            if op == dis.EXTENDED_ARG:
                ext = arg << 8
                continue
            ext = 0
            if op == _LOAD_GLOBAL:
                out.add(names[arg >> _GLOBAL_SHIFT])
            elif op in _NAME_OPS:
                out.add(names[arg])
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_names(c, out)
    return out


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


class Dependencies:
    """What a generated entry baked in: the function's global names and closure
    variables (checked against the function asking), and the dependencies of the
    user functions it called (checked as they were)."""

    def __init__(self, func, inherited):
        g = func.__globals__
        names = sorted(_code_names(func.__code__, set()))
        self.globals = tuple((n, _token(g.get(n, _MISSING))) for n in names)
        self.cells = tuple(_token(_cell_value(c)) for c in (func.__closure__ or ()))
        self.inherited = tuple(inherited.values())

    def valid(self, func):
        g = func.__globals__
        for n, token in self.globals:     # (``_same`` inline: this runs on every call)
            v = g.get(n, _MISSING)
            if v is not token and (token is not _DATA or not isinstance(v, _DATA_TYPES)):
                return False
        if self.cells:
            for cell, token in zip(func.__closure__ or (), self.cells):
                if not _same(_cell_value(cell), token):
                    return False
        for where, n, token in self.inherited:
            v = _cell_value(where) if n is None else where.get(n, _MISSING)
            if not _same(v, token):
                return False
        return True

    def absolute(self, func):
        """These dependencies bound to ``func``'s own globals and cells (for a caller)."""
        out = {}
        g = func.__globals__
        for n, token in self.globals:
            out[(id(g), n)] = (g, n, token)
        for cell, token in zip(func.__closure__ or (), self.cells):
            out[(id(cell), None)] = (cell, None, token)
        for item in self.inherited:
            out[(id(item[0]), item[1])] = item
        return out


class _Entry:
    __slots__ = ("func", "result", "deps")

    def __init__(self, func, result, deps):
        self.func, self.result, self.deps = func, result, deps


class BuildCache:
    """An LRU map key -> generated code, with one build lock per key."""

    def __init__(self, limit=None):
        self.limit = limit
        self.entries = collections.OrderedDict()
        self.lock = threading.Lock()          # held only for dictionary operations
        self.building = {}                    # key -> the lock of its build

    def __len__(self):
        return len(self.entries)

    def clear(self):
        with self.lock:
            self.entries.clear()

    def lookup(self, key, func):
        """The entry of ``key`` whose world is ``func``'s: closures of one code with
        other cell values (``lambda x: g(x)`` of a factory called with other ``g``)
        each have an entry, so that calling them in turn builds each once."""
        with self.lock:
            kept = self.entries.get(key)
            if kept is not None:
                self.entries.move_to_end(key)
                kept = tuple(kept)
        for entry in kept or ():
            if entry.func.__globals__ is func.__globals__ and entry.deps.valid(func):
                return entry
        return None

    def store(self, key, entry):
        limit = CACHE_LIMIT if self.limit is None else self.limit
        with self.lock:
            kept = self.entries.get(key, [])
            # (the newest first; a few worlds per key, the oldest dropped)
            self.entries[key] = [entry] + kept[:WORLDS_PER_KEY - 1]
            self.entries.move_to_end(key)
            while len(self.entries) > limit:
                self.entries.popitem(last=False)

    def build_lock(self, key):
        with self.lock:
            lk = self.building.get(key)
            if lk is None:
                lk = self.building[key] = threading.Lock()
            return lk

    def built(self, key, lk):
        with self.lock:
            if self.building.get(key) is lk:
                del self.building[key]


def cached_build(cache, key, func, build, recursion_error):
    """``build()`` once per key and live world; the result reads ``func``'s cells.

    ``recursion_error()`` makes the error raised when the build of ``key`` asks for
    ``key`` again in the same thread."""
    entry = cache.lookup(key, func)
    if entry is None:
        marker = (id(cache), key)
        stack = _in_progress()
        if marker in stack:
            raise recursion_error()
        lk = cache.build_lock(key)
        with lk:
            entry = cache.lookup(key, func)   # another thread may just have built it
            if entry is None:
                stack.append(marker)
                collectors = _collectors()
                collectors.append({})
                try:
                    with _cyclic_gc_paused():
                        result = build()
                finally:
                    stack.pop()
                    inherited = collectors.pop()
                deps = Dependencies(func, inherited)
                for fn in (result if isinstance(result, tuple) else (result,)):
                    if isinstance(fn, types.FunctionType):
                        fn.__srcgrad_deps__ = deps
                entry = _Entry(func, _each(result, func), deps)
                cache.store(key, entry)
        cache.built(key, lk)
    collectors = _collectors()
    if collectors:                         # a caller being built inherits our dependencies
        collectors[-1].update(entry.deps.absolute(func))
    return entry.result if entry.func is func else _each(entry.result, func)


_gc_lock = threading.Lock()
_gc_pause = {"depth": 0, "enabled": False}   # builds running; was the collector on?


@contextlib.contextmanager
def _cyclic_gc_paused():
    """A build allocates many short-lived nodes and almost no cycles (reference counts
    free them); the cyclic collector, started by allocation counts, would walk the
    whole heap again and again (some 40% of a large build).  It is paused while any
    build runs and resumed, if it was on, when the last one ends."""
    with _gc_lock:
        if _gc_pause["depth"] == 0:
            _gc_pause["enabled"] = gc.isenabled()
            gc.disable()
        _gc_pause["depth"] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pause["depth"] -= 1
            if _gc_pause["depth"] == 0 and _gc_pause["enabled"]:
                gc.enable()


def still_valid(result, func):
    """Is a result of :func:`cached_build` for ``func`` still what a build would give?"""
    fn = result[0] if isinstance(result, tuple) else result
    deps = getattr(fn, "__srcgrad_deps__", None)
    return deps is None or deps.valid(func)


def _each(result, func):
    if isinstance(result, tuple):
        return tuple(live(fn, func) for fn in result)
    return live(result, func)


def _in_progress():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _collectors():
    c = getattr(_local, "collectors", None)
    if c is None:
        c = _local.collectors = []
    return c


def live(fn, func):
    """``fn`` (generated from ``func``'s code) reading ``func``'s own closure cells and
    defaults; ``fn`` itself when it already does."""
    if not isinstance(fn, types.FunctionType):
        return fn
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    closure = fn.__closure__
    if closure and cells:
        new_cells = tuple(cells.get(n, c) for n, c in zip(fn.__code__.co_freevars, closure))
        if any(a is not b for a, b in zip(new_cells, closure)):
            closure = new_cells
    defaults = fn.__defaults__
    if len(defaults or ()) == len(func.__defaults__ or ()):
        defaults = func.__defaults__       # the generated code mirrors f's parameters
    kwdefaults = fn.__kwdefaults__
    if kwdefaults and func.__kwdefaults__:
        kwdefaults = {**kwdefaults, **{k: v for k, v in func.__kwdefaults__.items()
                                       if k in kwdefaults}}
    if closure is fn.__closure__ and defaults is fn.__defaults__ and \
            kwdefaults is fn.__kwdefaults__:
        return fn
    new = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, defaults, closure)
    new.__kwdefaults__ = kwdefaults
    new.__doc__ = fn.__doc__
    new.__dict__.update(fn.__dict__)
    return new
