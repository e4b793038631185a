"""Python aliasing: refuse an in-place change that another live name would see.

``y = x; y[0] = v`` changes ``x`` too; so do ``z = y[1:]`` (a view), ``t = (y, 1)``
(a tuple holding y), ``r = Y[0]`` (a row of a 2-D array), ``s += v`` on an array.
srcgrad's adjoints treat every name as its own value, so such a program would get a
silently wrong gradient: it is refused with a located ``UnsupportedSyntaxError``.

The analysis is a flow-sensitive points-to analysis over the normalized body:

* every name points to abstract objects: ``self`` (what the name IS: an allocation
  site, or a parameter) and ``holds`` (what a container under the name holds);
* ``t = y`` / ``t = y[1:]`` / ``t = y.T`` / ``np.reshape(y, ...)`` link t to y's
  objects for sure; ``t = y[0]`` / ``t = d["k"]`` / ``t = f(y)`` / ``lst.pop()`` only
  maybe (a 1-D array's item is a fresh scalar; a function may return a copy);
* an in-place change of y (``y[i] = v``, or ``y += v`` when y may be an array)
  conflicts with another name that shares an object with y and is read later;
  ``d[k] += v`` changes the array that the list or dict d holds at k (its other
  names see it); a call of a user function that changes its argument in place
  (``callee_writes.py``) leaves the argument itself stale too, since srcgrad
  differentiates the callee on a copy.

A sure conflict of ``y[i] = v`` is refused at compile time.  A maybe conflict, and
any conflict of ``y += v`` (y may be an immutable NumPy scalar, which ``+=`` rebinds),
becomes a run-time check in front of the change (``ad.alias_guard``), which raises
the same located error only if the two values really share memory.
"""
import inspect

import gast

from .. import syntax as A
from ..source import resolve
from . import callee_writes
from ... import rules
from ...errors import ALIAS_ADVICE as ADVICE

SURE, MAYBE = "sure", "maybe"


class _Env:
    """name -> (self links, holds links); a link maps an object to (kind, stmt)."""

    def __init__(self):
        self.self_ = {}
        self.holds = {}
        self.bound = set()          # names bound on every path to here
        # allocation site -> the links (of self_ and holds) given it, some perhaps
        # since replaced or renamed; None until ``alloc`` first needs it
        self.sites = None

    def note(self, links, added=None):
        """Index the allocation sites that ``links`` now holds (those in ``added``)."""
        if self.sites is not None:
            for o in links if added is None else added:
                if o[0] == "site":
                    self.sites.setdefault(o, []).append(links)

    def index_sites(self):
        self.sites = {}
        for table in (self.self_, self.holds):
            for links in table.values():
                self.note(links)

    def copy(self):
        e = _Env()
        e.self_ = {k: dict(v) for k, v in self.self_.items()}
        e.holds = {k: dict(v) for k, v in self.holds.items()}
        e.bound = set(self.bound)
        return e

    def join(self, other):
        out = self.copy()
        for src, dst in ((other.self_, out.self_), (other.holds, out.holds)):
            for k, links in src.items():
                d = dst.setdefault(k, {})
                for o, link in links.items():
                    if o not in d or d[o][0] == SURE and link[0] == MAYBE:
                        d[o] = link
        out.bound = self.bound & other.bound
        return out

    def objs(self, n):
        """Every object n is or holds, with its link."""
        out = dict(self.holds.get(n, {}))
        out.update(self.self_.get(n, {}))
        return out


def check(body, info, params, hard, soft, temps, ad_name):
    """Raise for sure conflicts; insert ``ad.alias_guard`` checks for the others.

    ``hard``: names changed by ``y[i] = v``; ``soft``: names changed by ``y += v``
    that may be arrays; ``temps``: compiler temporaries (used once, right away).
    """
    guards = {}                 # id(stmt) -> [guard statement]
    literal_temps = {n.targets[0].id: n.value for s in body for n in A.statements(s)
                     if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name)
                     and n.targets[0].id in temps and
                     isinstance(n.value, (gast.Tuple, gast.List))}

    def link(kind, stmt, links):
        return {o: ((MAYBE if kind == MAYBE or k == MAYBE else SURE), stmt)
                for o, (k, _) in links.items()}

    allocated = set()           # id(stmt) of the statements alloc has seen
    read_from_containers = set()   # names assigned an item of a dict or list

    def alloc(env, stmt):
        site = ("site", id(stmt))
        old = ("old", id(stmt))
        if id(stmt) in allocated:   # (else no table holds this site yet: nothing to scan)
            # earlier objects of this site are others (renaming them in links no
            # longer in a table is harmless: nothing reads those)
            if env.sites is None:
                env.index_sites()
            for links in env.sites.pop(site, ()):
                if site in links:
                    links[old] = links.pop(site)
        allocated.add(id(stmt))
        return {site: (SURE, stmt)}

    def index_kind(index):
        nodes = list(gast.walk(index))
        if any(isinstance(n, (gast.List, gast.Compare)) for n in nodes):
            return None                     # fancy / boolean indexing: a copy
        if any(isinstance(n, gast.Slice) for n in nodes) or \
                any(isinstance(n, gast.Constant) and n.value in (None, Ellipsis)
                    for n in nodes):
            if all(isinstance(n, (gast.Constant, gast.Slice, gast.Tuple, gast.UnaryOp,
                                  gast.unaryop, gast.expr_context)) for n in nodes):
                return SURE                 # basic slicing: a view
        return MAYBE                        # an int: a view of a row, a scalar, an item

    def conflict(env, stmt, y, later, rebinds, mutated=None, label=None, skip=(),
                 callee=None):
        """``mutated``: the objects changed (y's own by default); ``label``: y as the
        user wrote it; ``skip``: names that see the change as it is (its container);
        ``callee``: the user function that changes y (then y itself is stale too)."""
        if mutated is None:
            mutated = env.self_.get(y, {})
        for n in sorted(later):
            if (n == y and callee is None) or n in temps or n in skip or \
                    (n not in env.self_ and n not in env.holds):
                continue
            observed = env.objs(n)
            shared = [o for o in mutated if o in observed]
            if not shared:
                continue
            o = shared[0]
            ky, sy = mutated[o]
            kn, sn = observed[o]
            sure = ky == SURE and kn == SURE and not rebinds
            held = o in env.holds.get(n, {}) and o not in env.self_.get(n, {})
            # the statement that made the two share: the alias, not the allocation
            where = sn if sn is not None and not _allocates(sn, o) else sy
            if where is None or callee is not None:
                where = stmt
            if callee is not None:
                core = _callee_message(callee, y, n, stmt)
            else:
                core = _message(label or y, n, where, stmt, held, info)
            other = n
            if n not in env.bound and rebinds:
                other = y       # n may not exist yet: refuse if y is an array at all
            elif sure or n not in env.bound:
                raise info.error(stmt if held else where, core + ADVICE)
            err = info.error(stmt if held else where, core)
            # the run-time check raises the same located error (``ADVICE`` appended)
            args = [A.name(y), A.name(other), A.const(core), A.const(err.filename),
                    A.const(err.lineno)]
            if rebinds:
                args.append(A.const(True))
            g = A.expr_stmt(A.call(A.attr(ad_name, "alias_guard"), args), like=stmt)
            from .activity import Op
            g.srcgrad_op = Op("nograd")
            lst = guards.setdefault(id(stmt), [])
            if not any(A.unparse(x) == A.unparse(g) for x in lst):
                lst.append(g)

    def call_writes(env, s, call, later, rebound=()):
        """A call of a user function that changes an argument in place: the argument
        and everything sharing its memory are stale afterwards (srcgrad differentiates
        the callee on a copy)."""
        target = _user_callee(s, call, info.func)
        if target is None:
            return
        func, pos, kws = target
        name = A.unparse_short(call.func, 40).strip()
        for a, kind in callee_writes.call_targets(func, pos, kws):
            soft = kind == callee_writes.SOFT      # ``a += v``: an array a list holds too
            conflict(env, s, a, later - set(rebound), soft,
                     env.objs(a) if soft else None, callee=name)

    def assign(env, s, later):
        t = s.targets[0]
        v = s.value
        if isinstance(t, gast.Subscript):
            y = t.value.id if isinstance(t.value, gast.Name) else None
            if y is None:
                return
            if y in hard:
                conflict(env, s, y, later, False)
            item = getattr(s, "srcgrad_inplace_item", None)
            if item is not None:
                # ``d[k] += v``: the item itself changes when it is an array that a list
                # or dict holds (an array's own rows are y's memory: checked above)
                own, held = env.self_.get(y, {}), env.holds.get(y, {})
                changed = {o: held[o] for o in env.self_.get(item, {})
                           if o not in own and o in held}
                conflict(env, s, item, later, True, changed,
                         A.unparse(t).strip(), skip={y})
            if isinstance(v, gast.Name):          # d[k] = e / lst[i] = e: d holds e
                held, added = env.holds.setdefault(y, {}), link(SURE, s, env.objs(v.id))
                held.update(added)
                env.note(held, added)
            return
        name = t.id
        if isinstance(v, gast.Call):
            call_writes(env, s, v, later, rebound=[name])
        if getattr(s, "srcgrad_field_write", False):
            # ``p.w = e`` (``p = ad.with_field(p, "w", e)``, and ``d.pop(k)``): in Python p
            # itself changes,
            # and every other name that holds p sees it; p now holds e
            conflict(env, s, name, later, False, label=name)
            e = v.args[2] if isinstance(v, gast.Call) and len(v.args) > 2 else None
            if isinstance(e, gast.Name):
                held, added = env.holds.setdefault(name, {}), link(SURE, s, env.objs(e.id))
                held.update(added)
                env.note(held, added)
            env.bound.add(name)
            return
        if getattr(s, "srcgrad_inplace", False):
            # ``y += v``: changes y in place when y is an array (it keeps its objects)
            if name in soft:
                conflict(env, s, name, later, True,
                         skip=getattr(s, "srcgrad_inplace_skip", ()))
            env.bound.add(name)
            return
        new_self, new_holds = None, {}
        if isinstance(v, gast.Name):
            new_self = link(SURE, s, env.self_.get(v.id, {}))
            new_holds = link(SURE, s, env.holds.get(v.id, {}))
        elif isinstance(v, gast.Subscript) and isinstance(v.value, gast.Name):
            base = v.value.id
            lit = literal_temps.get(base)
            kind = index_kind(v.slice)
            if lit is not None and isinstance(v.slice, gast.Constant) and \
                    isinstance(v.slice.value, int) and \
                    -len(lit.elts) <= v.slice.value < len(lit.elts):
                # ``a, b = x * 2, y`` unpacks normalize's tuple: a IS the item, as it
                # was when the tuple was made (``v2, x = x, v2`` rebinds v2 first)
                i = v.slice.value % len(lit.elts)
                if isinstance(lit.elts[i], gast.Name) and (base, i) in env.self_:
                    new_self = link(SURE, s, env.self_[(base, i)])
                    new_holds = link(SURE, s, env.holds.get((base, i), {}))
                else:
                    new_self = link(MAYBE, s, env.holds.get(base, {}))
                    new_holds = {}
            elif kind == SURE:
                new_self = link(SURE, s, env.self_.get(base, {}))
                new_holds = link(SURE, s, env.holds.get(base, {}))
            elif kind == MAYBE:
                new_self = link(MAYBE, s, env.objs(base))
                new_holds = link(MAYBE, s, env.holds.get(base, {}))
                read_from_containers.add(name)
        elif isinstance(v, (gast.Tuple, gast.List, gast.Dict)):
            elts = v.values if isinstance(v, gast.Dict) else v.elts
            for i, e in enumerate(elts):
                if isinstance(e, gast.Name):
                    new_holds.update(link(SURE, s, env.objs(e.id)))
                    if name in literal_temps:
                        # what each item is now, for the unpacking that follows (the
                        # key is no name: only the subscript above reads it)
                        env.self_[(name, i)] = link(SURE, s, env.self_.get(e.id, {}))
                        env.holds[(name, i)] = link(SURE, s, env.holds.get(e.id, {}))
                        env.note(env.self_[(name, i)])
                        env.note(env.holds[(name, i)])
        elif isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and \
                isinstance(v.func.value, gast.Name) and v.func.attr in ("setdefault", "get"):
            # ``d.setdefault(k, default)`` / ``d.get(k, default)``: maybe an item of d,
            # maybe the default (which setdefault puts in d)
            base = v.func.value.id
            new_self = link(MAYBE, s, env.holds.get(base, {}))
            new_holds = {}
            read_from_containers.add(name)
            if len(v.args) > 1:
                # (a default written in place, ``[]``, is this statement's new object)
                default = env.objs(v.args[1].id) if isinstance(v.args[1], gast.Name) \
                    else {("site", id(s)): (SURE, s)}
                new_self.update(link(MAYBE, s, default))
                if v.func.attr == "setdefault":
                    held = env.holds.setdefault(base, {})
                    added = link(MAYBE, s, default)
                    held.update(added)
                    env.note(held, added)
        elif isinstance(v, gast.Attribute) and isinstance(v.value, gast.Name) and \
                not rules.method_view(v.attr):
            # ``w = p.w``: a field of a record or namedtuple is one of what p holds
            new_self = link(MAYBE, s, env.holds.get(v.value.id, {}))
            new_holds = link(MAYBE, s, env.holds.get(v.value.id, {}))
        else:
            items, how = _container_items(s)
            for a in items:   # list(x) holds x's items; dict(a=x) holds x itself
                new_holds.update(link(MAYBE if how == "maybe" else SURE, s,
                                      env.holds.get(a, {}) if how == "copy"
                                      else env.objs(a)))
            src, kind = _view_source(s)
            if src:
                new_self = {}
                new_holds = {}
                for a in src:
                    new_self.update(link(kind, s, env.objs(a) if kind == MAYBE
                                         else env.self_.get(a, {})))
                    new_holds.update(link(kind, s, env.holds.get(a, {})))
        own = alloc(env, s)
        if new_self is None:
            new_self = own
        elif not any(k == SURE for k, _ in new_self.values()):
            new_self.update(own)               # maybe the item, maybe a new value
        env.self_[name] = new_self
        env.holds[name] = new_holds
        env.note(new_self)
        env.note(new_holds)
        env.bound.add(name)

    reads = {}                  # id(stmt) -> the names it reads (a loop's body is
                                # visited twice; guards are inserted after the visit)

    def names_read(s):
        r = reads.get(id(s))
        if r is None:
            r = reads[id(s)] = A.names_read(s)
        return r

    def exposed(loop):
        """The names a trip of ``loop`` may read before it assigns them: its condition,
        its iterable, and a statement's reads unless an earlier statement of the body
        (at its top level, so on every trip) assigned the name (``v_updated = v * v``
        then ``v = project(v_updated)``: the next trip sets v_updated again first)."""
        head = loop.test if isinstance(loop, gast.While) else loop.iter
        out = set(A.names_read(head))
        assigned = set(A.names_stored(loop.target)) if isinstance(loop, gast.For) else set()
        for st in loop.body:
            out |= names_read(st) - assigned
            if isinstance(st, gast.Assign) and \
                    all(isinstance(t, gast.Name) for t in st.targets):
                assigned.update(t.id for t in st.targets)
        for st in loop.orelse:
            out |= names_read(st)
        return out

    def visit(stmts, env, after):
        # the names read after statement i: those whose last reader comes after it
        last = {}
        for i, s in enumerate(stmts):
            for n in names_read(s):
                last[n] = i
        for i, s in enumerate(stmts):
            later = _ReadLater(last, i, after)
            if isinstance(s, gast.If):
                a = visit(s.body, env.copy(), later)
                b = visit(s.orelse, env.copy(), later)
                env = a.join(b)
                continue
            if isinstance(s, (gast.For, gast.While)):
                inner = later | exposed(s)        # what the next trip reads before it sets
                first = visit(s.body, env.copy(), inner)
                second = visit(s.body, env.join(first), inner)
                bound = env.bound
                env = env.join(second)
                env.bound = bound                  # the loop may not run at all
                continue
            if isinstance(s, gast.Assign):
                assign(env, s, later)
            elif isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
                call_writes(env, s, s.value, later)
            if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and \
                    isinstance(s.value.func, gast.Attribute) and \
                    isinstance(s.value.func.value, gast.Name) and \
                    s.value.func.attr in ("append", "insert", "extend") and s.value.args:
                lst = s.value.func.value.id
                # a list read out of a dict or list (``d[k].append(v)``,
                # ``d.setdefault(k, []).append(v)``): its holder, read later, would see
                # an item srcgrad's gradient of the holder does not (a list the body
                # made and put in a container itself is followed: ``box = [items]``)
                if lst in read_from_containers:
                    conflict(env, s, lst, later, False)
                for e in s.value.args:
                    if isinstance(e, gast.Name):
                        held = env.holds.setdefault(lst, {})
                        added = link(SURE, s, env.objs(e.id))
                        held.update(added)
                        env.note(held, added)
        return env

    env = _Env()
    for p in params:
        env.self_[p] = {("param", p): (SURE, None)}
        env.holds[p] = {("param-items", p): (SURE, None)}
        env.bound.add(p)
    visit(body, env, set())
    if guards:
        _insert(body, guards)


class _ReadLater:
    """The names read after statement ``i`` of a block (or after the block: ``after``),
    as a set made only when iterated or combined (most statements never ask)."""

    def __init__(self, last, i, after):
        self.last, self.i, self.after = last, i, after

    def __contains__(self, n):
        return self.last.get(n, -1) > self.i or n in self.after

    def _set(self):
        return {n for n, j in self.last.items() if j > self.i} | set(self.after)

    def __iter__(self):
        return iter(self._set())

    def __or__(self, other):
        return self._set() | set(other)

    def __sub__(self, other):
        return self._set() - set(other)


def _allocates(stmt, obj):
    return obj[0] in ("site", "old") and obj[1] == id(stmt)


def _view_source(s):
    """(names the value may be, SURE/MAYBE) for a call or attribute on the right."""
    v = s.value
    op = getattr(s, "srcgrad_op", None)
    if isinstance(v, gast.Attribute) and isinstance(v.value, gast.Name):
        if rules.method_view(v.attr):           # x.T, x.real: facets of their rules
            return [v.value.id], SURE
        return None, None
    if not isinstance(v, gast.Call):
        return None, None
    args = [a.id for a in list(v.args) + [k.value for k in v.keywords]
            if isinstance(a, gast.Name)]
    if op is not None and op.kind == "rule":
        # np.reshape(y, s) / y.reshape(s) (a method's rule binds y first)
        viewed = op.rule.facets.view_of
        if viewed is not None:
            names = _bound_names(op.args.get(viewed))
            return (names or None), SURE
        return None, None
    if isinstance(v.func, gast.Attribute) and isinstance(v.func.value, gast.Name) and \
            rules.method_view(v.func.attr):
        return [v.func.value.id], SURE
    if op is not None and op.kind in ("copy", "literal"):
        return None, None                    # a new container (see _container_items)
    if op is not None and op.kind == "pop":
        return [op.target], MAYBE
    method = isinstance(v.func, gast.Attribute) and isinstance(v.func.value, gast.Name)
    if op is not None and op.kind == "nograd":
        # x.detach(), x.numpy()...: may be x's data; len(x), np.shape(x): not arrays
        return ([v.func.value.id], MAYBE) if method else (None, None)
    if method and op is not None and op.kind == "unknown":
        args = [v.func.value.id] + args      # a method may return its object
    if op is not None and getattr(op, "constructs", False):
        return None, None                    # a new object (that may hold its arguments)
    if op is not None and op.kind in ("call", "unknown") and args:
        return args, MAYBE                   # a function may return an argument
    return None, None


def _bound_names(a):
    """The names bound to a rule parameter: one name, the items of a list or tuple
    literal, or the items bound to ``*arys`` (a Python tuple of nodes:
    ``np.atleast_1d(a, b)``)."""
    if isinstance(a, (gast.Tuple, gast.List)):
        a = a.elts
    items = a if isinstance(a, (tuple, list)) else [a]
    return [e.id for e in items if isinstance(e, gast.Name)]


def _container_items(s):
    """Names a new container built by ``list(x)`` / ``dict(a=x)`` holds (the items of)."""
    v = s.value
    op = getattr(s, "srcgrad_op", None)
    if isinstance(v, gast.Call) and op is not None and op.kind in ("copy", "literal"):
        return [a.id for a in list(v.args) + [k.value for k in v.keywords]
                if isinstance(a, gast.Name)], op.kind
    if isinstance(v, gast.Call) and op is not None and op.kind == "call" and \
            getattr(op, "dynamic", None) is not None:
        # a callee known only at run time (an object built, ``Dense(W, b)``; a method's
        # result) may hold what it is given, and what its object holds
        names = [a.value if isinstance(a, gast.Starred) else a
                 for a in list(v.args) + [k.value for k in v.keywords]]
        names = [a.id for a in names if isinstance(a, gast.Name)]
        receiver = getattr(op, "receiver", None)
        return names + ([receiver] if receiver else []), "maybe"
    return [], None




def callee_written_args(body, func):
    """The names given to user functions that change them in place (a parameter among
    them is copied first: srcgrad never changes its caller's arrays)."""
    out = set()
    for s in body:
        for n in A.statements(s):        # (assignments and call statements: no expression)
            if isinstance(n, (gast.Assign, gast.Expr)) and isinstance(n.value, gast.Call):
                target = _user_callee(n, n.value, func)
                if target is not None:
                    out.update(a for a, _ in callee_writes.call_targets(*target))
    return out


def changed_by_callee(s, func):
    """The argument names the user function a statement calls changes in place."""
    if not isinstance(s, (gast.Assign, gast.Expr)) or not isinstance(s.value, gast.Call):
        return []
    target = _user_callee(s, s.value, func)
    if target is None or getattr(target[0], "__srcgrad_transformable__", False):
        return []           # (generated code changes copies of its arguments only)
    return [a for a, _ in callee_writes.call_targets(*target)]


def _user_callee(s, call, func):
    """(function, positional atoms, [(keyword, atom)]) when ``call`` calls a user
    function (a Python function with source), else None."""
    op = getattr(s, "srcgrad_op", None)
    if op is not None and op.kind == "call" and op.callee_args is not None:
        if op.func is None:
            return None           # resolved at run time (compiler/dynamic.py checks it)
        pos, kws = op.callee_args
        return op.func, list(pos), list(kws)
    if not isinstance(s, gast.Expr) or not isinstance(call.func, (gast.Name, gast.Attribute)):
        return None               # an assignment's op says what it calls (a rule: facets)
    obj = resolve(call.func, func)
    # a call statement is not differentiated: find the user functions among them
    if (inspect.isfunction(obj) or inspect.ismethod(obj)) and rules.lookup(obj) is None \
            and rules.signature_of(obj) is None and not rules.is_nograd(obj) and \
            not getattr(obj, "__module__", "").startswith("srcgrad."):
        return obj, list(call.args), [(k.arg, k.value) for k in call.keywords]
    return None


def _callee_message(callee, y, n, stmt):
    line = getattr(stmt, "lineno", "?")
    seen = f"'{y}'" if n == y else f"'{n}' (which shares memory with '{y}')"
    return (f"'{callee}()' changes its argument '{y}' in place at line {line}, and "
            f"{seen} is still used after the call")


def _message(y, n, where, stmt, held, info):
    """What shares memory, where, and what changes it (ADVICE completes it)."""
    change = getattr(stmt, "lineno", "?")
    if held:
        return (f"'{y}' is changed in place at line {change}, but '{n}' (a tuple, list "
                f"or dict) holds the same array")
    text = (info.line(getattr(where, "lineno", None)) or "").strip()   # the user's line
    if not text or len(text) > 60:
        text = A.unparse_short(where, 60).strip() if isinstance(where, gast.Assign) else n
    return (f"'{text}' (line {getattr(where, 'lineno', '?')}) may make '{n}' share "
            f"memory with '{y}', which line {change} changes in place while '{n}' is "
            f"still used")


def _insert(stmts, guards):
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block and not isinstance(s, gast.FunctionDef):
                _insert(block, guards)
        out.extend(guards.get(id(s), ()))
        out.append(s)
    stmts[:] = out
