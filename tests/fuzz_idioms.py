"""Random programs made of Python/NumPy *idioms*, for fuzzing srcgrad (second generator).

tests/fuzz_programs.py writes arithmetic, control flow and array expressions; this
one writes what it does not: containers and builtins (every form of ``dict(...)``,
``list``/``tuple`` calls, tuple and list concatenation, ``zip``, ``enumerate``,
``sorted`` of Python floats, ``reversed``, ``min``/``max``/``sum`` of lists, NumPy
functions of Python lists of active values), module-level helpers with defaults,
keywords, ``*args``, ``**kwargs`` and keyword-only parameters, starred calls,
closures (late-binding reads of enclosing locals, defaults that are enclosing locals,
same-name nested defs in two helpers), NumPy views written through in place (and
bases written then read through the view), and float32 inputs.

``generate(seed, disabled=())`` returns a :class:`Program`.  Every program is a
sequence of *snippets*; each snippet is validated by running the whole program on
stand-in inputs (so it is valid Python, its shapes broadcast, its writes land on
writable arrays, and its values are tame) and is tagged with *features*: a snippet
carrying a feature in ``disabled`` is never written (tests/test_fuzz_idioms.py keeps
the features srcgrad is known to get wrong there).  All NumPy use goes through the
module-global ``np``, so the checker can rebind it to ``autograd.numpy``.

    python tests/fuzz_idioms.py SEED      # print one program
"""
import random
import warnings

import numpy as np

SHAPES = [(3,), (3,), (2, 3), (2, 3), (4,), (1, 3), (3, 1)]
CONSTS = ["0.5", "2.0", "1.5", "0.25", "-0.5", "0.75", "-1.25"]


class Program:
    prefix = "fuzz_idiom"      # module names of loaded programs (test_fuzz.load)

    def __init__(self, source, params, seed, features):
        self.source = source
        self.params = params        # [(name, kind)], kind: "float" | ("arr", shape, dtype)
        self.seed = seed
        self.features = features    # set of feature tags of the snippets used

    @property
    def float32(self):
        return any(k != "float" and k[2] == "float32" for _, k in self.params)

    def draw_args(self, rng):
        out = []
        for _, kind in self.params:
            if kind == "float":
                out.append(float(rng.normal() * 0.9))
            else:
                out.append(np.asarray(rng.normal(size=kind[1]) * 0.9, dtype=kind[2]))
        return out


class _Reject(Exception):
    pass


def _numeric(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, float) or isinstance(v, np.floating):
        return "s"
    if isinstance(v, np.ndarray) and v.dtype.kind == "f":
        return "s" if v.ndim == 0 else "a"
    return None


def _tame(v):
    if isinstance(v, (dict,)):
        return all(_tame(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return all(_tame(x) for x in v)
    k = _numeric(v)
    if k is None:
        return True
    a = np.asarray(v)
    return 0 < a.size <= 48 and bool(np.all(np.isfinite(a))) and float(np.max(np.abs(a))) < 1e3


class _Gen:
    def __init__(self, seed, disabled):
        self.r = random.Random(seed)
        self.seed = seed
        self.disabled = set(disabled)
        self.n = 0
        self.helpers = []           # module-level source texts
        self.body = []              # lines of f's body (without f's own indentation)
        self.outs = []              # names contributing to the return value
        self.features = set()
        self.env = {}               # name -> stand-in value (after the last snippet)

    # -- utilities -------------------------------------------------------------
    def fresh(self, base="v"):
        self.n += 1
        return f"{base}{self.n}"

    def source(self, body, helpers, ret):
        src = "import numpy as np\n\n\n"
        for h in helpers:
            src += h + "\n\n\n"
        src += f"def f({', '.join(p for p, _ in self.params)}):\n"
        src += "".join("    " + ln + "\n" for ln in body)
        src += f"    return {ret}\n"
        return src

    def run(self, body, helpers):
        """Run the program (returning its locals) on stand-in inputs; None if it fails."""
        src = self.source(body, helpers, "locals()")
        ns = {"__name__": "fuzz_idiom_standin"}
        try:
            with np.errstate(all="raise"), warnings.catch_warnings():
                warnings.simplefilter("error")
                exec(compile(src, "<standin>", "exec"), ns)
                env = ns["f"](*self.standins())
        except Exception:
            return None
        if not all(_tame(v) for v in env.values()):
            return None
        return env

    def standins(self):
        rng = np.random.default_rng(self.seed + 11)
        prog = Program("", self.params, self.seed, set())
        return prog.draw_args(rng)

    def scalars(self):
        return [k for k, v in self.env.items() if _numeric(v) == "s"]

    def arrays(self):
        return [k for k, v in self.env.items() if _numeric(v) == "a"]

    def shape(self, name):
        return np.shape(self.env[name])

    # -- expressions -------------------------------------------------------------
    def sc(self):
        """A scalar expression (Python float or NumPy scalar) of the active values."""
        r = self.r
        c = r.choice(CONSTS)
        opts = []
        for n in self.scalars():
            opts += [f"np.sin({n})", f"{n} * {n}", f"np.tanh({n}) * {c}", f"{n} * {c} + 0.25", n]
        for n in self.arrays():
            idx = ", ".join(r.choice(["0", "-1"]) for _ in self.shape(n))
            opts += [f"np.sum({n})", f"np.mean(np.sin({n}))", f"{n}.sum() * {c}",
                     f"{n}[{idx}]", f"np.sum({n} * {n}) * 0.5"]
        return r.choice(opts)

    def ar(self, name=None):
        """An array expression of the shape of array ``name`` (a random one if None)."""
        r = self.r
        n = name or r.choice(self.arrays())
        c = r.choice(CONSTS)
        opts = [n, f"np.sin({n})", f"{n} * {c}", f"np.tanh({n}) + {n}", f"{n} * {n}",
                f"np.cos({n}) * {c}"]
        for s in self.scalars()[:4]:
            opts.append(f"{n} * np.tanh({s})")
        return r.choice(opts)

    def ex(self):
        return self.sc() if self.r.random() < 0.5 else self.ar()

    def pyfloat(self):
        """A Python float of the active values (``float(...)`` of a NumPy scalar)."""
        pf = [k for k, v in self.env.items() if type(v) is float]
        if pf and self.r.random() < 0.5:
            return self.r.choice(pf)
        return f"float({self.sc()})"

    # -- snippets ----------------------------------------------------------------
    # each returns (main-body lines, helper sources, output name, feature tags)

    def s_dict(self):
        r = self.r
        d, e1, e2 = self.fresh("d"), self.ex(), self.ex()
        form = r.choice(["kw", "pairs_kw", "pairs", "dict", "dict_kw", "zip", "zip_var",
                         "copy"])
        lines = []
        if form == "kw":
            lines.append(f"{d} = dict(a={e1}, b={e2})")
        elif form == "pairs_kw":
            lines.append(f"{d} = dict([('a', {e1})], b={e2})")
        elif form == "pairs":
            lines.append(f"{d} = dict([('a', {e1}), ('b', {e2})])")
        elif form == "dict":
            lines.append(f"{d} = dict({{'a': {e1}, 'b': {e2}}})")
        elif form == "dict_kw":
            lines.append(f"{d} = dict({{'a': {e1}}}, b={e2})")
        elif form == "zip":
            lines.append(f"{d} = dict(zip(['a', 'b'], [{e1}, {e2}]))")
        elif form == "zip_var":
            k, vs = self.fresh("keys"), self.fresh("vals")
            lines += [f"{k} = ('a', 'b')", f"{vs} = [{e1}, {e2}]", f"{d} = dict(zip({k}, {vs}))"]
        else:
            d0 = self.fresh("d")
            lines += [f"{d0} = {{'a': {e1}, 'b': {e2}}}", f"{d} = dict({d0})"]
        out = self.fresh()
        read = r.choice(["mul", "get", "loop_keys", "items", "values", "sin"])
        if read == "mul":
            lines.append(f"{out} = {d}['a'] * {d}['b']")
        elif read == "sin":
            lines.append(f"{out} = np.sin({d}['b']) + {d}['a']")
        elif read == "get":
            lines.append(f"{out} = {d}.get('b', 0.0) * 2.0 + {d}.get('c', 1.0) * {d}['a']")
        elif read == "loop_keys":
            lines += [f"{out} = 0.0", f"for k in {d}:", f"    {out} = {out} + np.sum({d}[k] * {d}[k])"]
        elif read == "items":
            v = self.fresh("t")
            lines += [f"{out} = 0.0", f"for k, {v} in {d}.items():",
                      f"    {out} = {out} + np.sum(np.sin({v}))"]
        else:
            lines.append(f"{out} = sum(np.sum(t) for t in {d}.values())")
        return lines, [], out, {"dict_" + form, "dict_read_" + read}

    def _seq(self):
        """(lines, name, tags): a list or tuple of active values."""
        r = self.r
        l = self.fresh("l")
        e1, e2, e3 = self.ex(), self.ex(), self.ex()
        form = r.choice(["list_call", "tuple_call", "list_of_array", "tuple_of_array",
                         "tuple_concat", "tuple_concat_ones", "list_concat", "list_iadd",
                         "literal", "list_repeat"])
        if form == "list_call":
            return [f"{l} = list(({e1}, {e2}))"], l, {form}
        if form == "tuple_call":
            return [f"{l} = tuple([{e1}, {e2}, {e3}])"], l, {form}
        if form in ("list_of_array", "tuple_of_array"):
            fn = form.split("_")[0]
            return [f"{l} = {fn}({self.ar()})"], l, {form}
        if form == "tuple_concat":
            return [f"{l} = ({e1},) + ({e2},)"], l, {form}
        if form == "tuple_concat_ones":
            a = self.ar()
            return [f"{l} = ({a},) + (np.ones({self.shape(self._root(a))}),)"], l, {form}
        if form == "list_concat":
            return [f"{l} = [{e1}] + [{e2}, {e3}]"], l, {form}
        if form == "list_iadd":
            return [f"{l} = [{e1}]", f"{l} += [{e2}]"], l, {form}
        if form == "list_repeat":
            return [f"{l} = [{e1}] * 2"], l, {form}
        return [f"{l} = [{e1}, {e2}, {e3}]"], l, {form}

    def _root(self, code):
        for n in sorted(self.arrays(), key=len, reverse=True):
            if n in code:
                return n
        return self.arrays()[0]

    def s_seq(self):
        r = self.r
        lines, l, tags = self._seq()
        out = self.fresh()
        use = r.choice(["index", "sum", "sum_start", "zip", "enumerate", "enumerate_start",
                        "reversed", "reversed_list", "unpack2"])
        if use == "index":
            lines.append(f"{out} = {l}[0] * {l}[-1]")
        elif use == "sum":
            lines.append(f"{out} = sum({l})")
        elif use == "sum_start":
            lines.append(f"{out} = sum({l}, {self.sc()})")
        elif use == "zip":
            l2, t2, tags2 = self._seq()
            lines += l2
            tags = tags | tags2
            p, q = self.fresh("p"), self.fresh("q")
            lines += [f"{out} = 0.0", f"for {p}, {q} in zip({l}, {t2}):",
                      f"    {out} = {out} + {p} * np.sin({q})"]
        elif use in ("enumerate", "enumerate_start"):
            i, p = self.fresh("i"), self.fresh("p")
            start = ", start=1" if use == "enumerate_start" else ""
            lines += [f"{out} = 0.0", f"for {i}, {p} in enumerate({l}{start}):",
                      f"    {out} = {out} + ({i} + 0.5) * {p}"]
        elif use == "reversed":
            p = self.fresh("p")
            lines += [f"{out} = 0.0", f"for {p} in reversed({l}):",
                      f"    {out} = {out} * 0.5 + np.tanh({p})"]
        elif use == "reversed_list":
            l3 = self.fresh("l")
            lines += [f"{l3} = list(reversed({l}))", f"{out} = {l3}[0] - 2.0 * {l3}[-1]"]
        else:
            u, w = self.fresh("u"), self.fresh("w")
            lines += [f"{u}, {w} = {l}[0], {l}[1]", f"{out} = {u} * {w}"]
        return lines, [], out, tags | {"seq_" + use}

    def s_sorted(self):
        r = self.r
        l, out = self.fresh("l"), self.fresh()
        a, b, c = self.pyfloat(), self.pyfloat(), self.pyfloat()
        form = r.choice(["list", "reverse", "tuple_var", "key"])
        if form == "list":
            lines = [f"{l} = sorted([{a}, {b}, {c}])"]
        elif form == "reverse":
            lines = [f"{l} = sorted([{a}, {b}, {c}], reverse=True)"]
        elif form == "key":
            lines = [f"{l} = sorted(({a}, {b}, {c}), key=abs)"]
        else:
            t = self.fresh("t")
            lines = [f"{t} = ({a}, {b}, {c})", f"{l} = sorted({t})"]
        lines.append(f"{out} = {l}[0] * 2.0 + {l}[1] * {l}[-1]")
        return lines, [], out, {"sorted_" + form}

    def s_minmax(self):
        r = self.r
        out = self.fresh()
        s1, s2, s3 = self.sc(), self.sc(), self.sc()
        fn = r.choice(["max", "min", "sum"])
        form = r.choice(["list", "args", "var"])
        lines = []
        if form == "list":
            lines.append(f"{out} = {fn}([{s1}, {s2}, {s3}])")
        elif form == "args" and fn != "sum":
            lines.append(f"{out} = {fn}({s1}, {s2})")
        else:
            l = self.fresh("l")
            lines += [f"{l} = [{s1}, {s2}]", f"{l}.append({s3})", f"{out} = {fn}({l})"]
            form = "var"
        tags = {f"builtin_{fn}_{form}"}
        if fn != "sum" and self.f32:
            tags.add("minmax_float32")
        return lines, [], out, tags

    def s_npseq(self):
        r = self.r
        out = self.fresh()
        a = r.choice(self.arrays())
        a1, a2 = self.ar(a), self.ar(a)
        s1, s2 = self.sc(), self.sc()
        form = r.choice(["mean_axis0", "sum_consts", "sum_scalars", "mean_tuple", "stack",
                         "stack_axis", "concatenate", "concatenate_tuple", "array_scalars",
                         "array_arrays", "asarray", "max_list", "prod_list", "vstack",
                         "hstack"])
        code = {
            "mean_axis0": f"np.mean([{a1}, {a2}], axis=0)",
            "sum_consts": f"np.sum([1, {s1} * {s1}, 2])",
            "sum_scalars": f"np.sum([{s1}, {s2}])",
            "mean_tuple": f"np.mean(({s1}, {s2}, 0.5))",
            "stack": f"np.stack([{a1}, {a2}])",
            "stack_axis": f"np.stack(({a1}, {a2}), axis=-1)",
            "concatenate": f"np.concatenate([{a1}, {a2}])",
            "concatenate_tuple": f"np.concatenate(({a1}, {a2}), axis=0)",
            "array_scalars": f"np.array([{s1}, {s2}, 1.0])",
            "array_arrays": f"np.array([{a1}, {a2}])",
            "asarray": f"np.asarray([{s1}, {s2}])",
            "max_list": f"np.max([{s1}, {s2}])",
            "prod_list": f"np.prod([{s1}, {s2}])",
            "vstack": f"np.vstack([{a1}, {a2}])",
            "hstack": f"np.hstack(({a1}, {a2}))",
        }[form]
        tags = {"np_" + form}
        if form == "max_list" and self.f32:
            tags.add("minmax_float32")
        return [f"{out} = {code}"], [], out, tags

    # -- helpers -------------------------------------------------------------------
    def _body_expr(self, names):
        """A smooth expression of the helper's parameters ``names``."""
        r = self.r
        terms = []
        for n in names:
            terms.append(r.choice([f"np.sin({n})", f"{n} * {r.choice(CONSTS)}",
                                   f"np.tanh({n})", f"{n} * {n}"]))
        if len(names) >= 2 and r.random() < 0.6:
            terms.append(f"{names[0]} * {names[1]}")
        return " + ".join(terms)

    def s_helper(self):
        r = self.r
        h, out = self.fresh("h"), self.fresh()
        form = r.choice(["defaults", "keywords", "varargs", "varargs_rest", "kwargs",
                         "kwargs_get", "kwargs_loop", "kwonly", "starred", "starred_mixed",
                         "kwargs_splat"])
        e1, e2, e3 = self.ex(), self.ex(), self.ex()
        lines = []
        if form in ("defaults", "keywords"):
            src = f"def {h}(p, q={r.choice(CONSTS)}, s=2.0):\n    return {self._body_expr(['p', 'q'])} * s"
            if form == "defaults":
                call = r.choice([f"{h}({e1})", f"{h}({e1}, {e2})", f"{h}({e1}, {e2}, {e3})",
                                 f"{h}({e1}, s={e2})"])
            else:
                call = r.choice([f"{h}(q={e2}, p={e1})", f"{h}({e1}, s={e3}, q={e2})",
                                 f"{h}(p={e1})"])
        elif form == "varargs":
            src = (f"def {h}(*args):\n    total = 0.0\n    for a in args:\n"
                   f"        total = total + np.sum(np.sin(a) * a)\n    return total")
            call = r.choice([f"{h}({e1}, {e2})", f"{h}({e1})", f"{h}({e1}, {e2}, {e3})"])
        elif form == "varargs_rest":
            src = (f"def {h}(p, *rest):\n    out = p * 0.5\n    for t in rest:\n"
                   f"        out = out + t * p\n    return out")
            call = r.choice([f"{h}({e1}, {e2})", f"{h}({e1}, {e2}, {e3})"])
        elif form == "kwargs":
            src = (f"def {h}(p, **kw):\n    return p * kw['s'] + kw['t'] * np.sin(p)")
            call = f"{h}({e1}, s={e2}, t={e3})"
        elif form == "kwargs_get":
            src = (f"def {h}(p, **kw):\n    return p * kw['s'] + kw.get('t', 1.0) * np.sin(p)")
            call = r.choice([f"{h}({e1}, s={e2}, t={e3})", f"{h}({e1}, s={e2})"])
        elif form == "kwargs_loop":
            src = (f"def {h}(p, **kw):\n    acc = p\n    for k in kw:\n"
                   f"        acc = acc + kw[k] * np.tanh(p)\n    return acc")
            call = f"{h}({e1}, s={e2}, t={e3})"
        elif form == "kwargs_splat":
            src = (f"def {h}(p, **kw):\n    return p * kw['s'] + np.sum(kw['s'] * kw['s'])")
            d = self.fresh("kw")
            lines.append(r.choice([f"{d} = dict(s={e2})", f"{d} = {{'s': {e2}}}"]))
            call = r.choice([f"{h}({e1}, **{d})", f"{h}(p={e1}, **{d})"])
        elif form == "kwonly":
            src = (f"def {h}(p, *, scale, shift=0.5):\n    return {self._body_expr(['p'])} * scale + shift")
            call = r.choice([f"{h}({e1}, scale={e2})", f"{h}({e1}, shift={e3}, scale={e2})",
                             f"{h}(scale={e2}, p={e1})"])
        else:
            src = f"def {h}(p, q):\n    return {self._body_expr(['p', 'q'])}"
            xs = self.fresh("xs")
            if form == "starred":
                lines.append(r.choice([f"{xs} = [{e1}, {e2}]", f"{xs} = ({e1}, {e2})"]))
                call = f"{h}(*{xs})"
            else:
                call = r.choice([f"{h}({e1}, *[{e2}])", f"{h}(*({e1}, {e2}))"])
        lines.append(f"{out} = {call}")
        return lines, [src], out, {"helper_" + form}

    # -- closures ------------------------------------------------------------------
    def s_closure(self):
        r = self.r
        out, c, g = self.fresh(), self.fresh("c"), self.fresh("g")
        e1, e2, e3 = self.ex(), self.ex(), self.ex()
        form = r.choice(["read", "late_binding", "default", "default_rebound",
                         "same_name", "in_helper"])
        lines, helpers = [], []
        if form == "read":
            lines += [f"{c} = {e1}", f"def {g}(t):", f"    return t * {c} + np.sin(t)",
                      f"{out} = {g}({e2}) + {g}({e3})"]
        elif form == "late_binding":
            lines += [f"{c} = {e1}", f"def {g}(t):", f"    return t * np.sin({c})",
                      f"{c} = {e2}", f"{out} = {g}({e3})"]
        elif form == "default":
            lines += [f"{c} = {e1}", f"def {g}(t, k={c}):", f"    return t * k + np.tanh(k)",
                      f"{out} = {g}({e2})" + r.choice(["", f" + {g}({e3}, {c})"])]
        elif form == "default_rebound":
            lines += [f"{c} = {e1}", f"def {g}(t, k={c}):", f"    return t * k",
                      f"{c} = {e2}", f"{out} = {g}({e3}) + {g}({e3}, k={c})"]
        elif form == "same_name":
            h1, h2 = self.fresh("h"), self.fresh("h")
            helpers += [f"def {h1}(p):\n    c = p * 2.0\n\n    def inner(t):\n"
                        f"        return t * c\n    return inner(p) + inner(1.0)",
                        f"def {h2}(p):\n    c = np.sin(p)\n\n    def inner(t):\n"
                        f"        return t + c * c\n    return inner(p) * 0.5"]
            lines.append(f"{out} = {h1}({e1}) + {h2}({e2})")
        else:
            h1 = self.fresh("h")
            helpers.append(f"def {h1}(p, q):\n    c = p * q\n\n    def inner(t):\n"
                           f"        return np.sin(t) * c\n    return inner(p) + inner(q)")
            lines.append(f"{out} = {h1}({e1}, {e2})")
        return lines, helpers, out, {"closure_" + form}

    # -- aliasing ------------------------------------------------------------------
    VIEWS = [
        # (template, min ndim, writable, tag)
        ("{b}.reshape(-1)", 1, True, "reshape"),
        ("np.reshape({b}, {rev})", 1, True, "np_reshape"),
        ("{b}.ravel()", 1, True, "ravel"),
        ("np.ravel({b})", 1, True, "np_ravel"),
        ("{b}.transpose()", 2, True, "transpose"),
        ("np.transpose({b})", 2, True, "np_transpose"),
        ("{b}.T", 1, True, "T"),
        ("np.swapaxes({b}, 0, 1)", 2, True, "swapaxes"),
        ("{b}.swapaxes(0, 1)", 2, True, "swapaxes_method"),
        ("np.moveaxis({b}, 0, -1)", 2, True, "moveaxis"),
        ("np.rollaxis({b}, 1)", 2, True, "rollaxis"),
        ("np.squeeze({b})", 1, True, "squeeze"),
        ("{b}.squeeze()", 1, True, "squeeze_method"),
        ("np.expand_dims({b}, 0)", 1, True, "expand_dims"),
        ("{b}[1:]", 1, True, "slice"),
        ("{b}[::2]", 1, True, "slice_step"),
        ("{b}[0]", 2, True, "row"),
        ("{b}[:, 1:]", 2, True, "slice2"),
        ("{b}[..., 0]", 2, True, "ellipsis"),
        ("np.diagonal({b})", 2, False, "diagonal"),
        ("{b}.diagonal()", 2, False, "diagonal_method"),
        ("np.asarray({b})", 1, True, "asarray"),
        ("np.atleast_1d({b})", 1, True, "atleast_1d"),
        ("np.atleast_2d({b})", 1, True, "atleast_2d"),
        ("np.broadcast_to({b}, (2,) + {b}.shape)", 1, False, "broadcast_to"),
        ("{b}[...]", 1, True, "ellipsis_all"),
    ]

    def s_view(self):
        r = self.r
        a = r.choice(self.arrays())
        shape = self.shape(a)
        b, y, out = self.fresh("b"), self.fresh("y"), self.fresh()
        views = [v for v in self.VIEWS if len(shape) >= v[1]]
        tmpl, _, writable, vtag = r.choice(views)
        on_param = a in dict(self.params) and r.random() < 0.15
        lines = []
        if on_param:
            b = a                # writes reach the caller's array: Python semantics
        else:
            lines.append(r.choice([f"{b} = {a} * 1.0", f"{b} = np.array({a})", f"{b} = {a}.copy()",
                                   f"{b} = np.sin({a})"]))
        lines.append(f"{y} = " + tmpl.format(b=b, rev=tuple(reversed(shape))))
        mode = "write_view" if writable and r.random() < 0.6 else "write_base"
        tgt = y if mode == "write_view" else b
        s = self.sc()
        w = r.choice(["item0", "item_last", "iadd", "imul", "iadd_arr", "slice_set", "ellipsis_set"])
        lines.append({
            "item0": f"{tgt}[0] = {s}",
            "item_last": f"{tgt}[-1] = {tgt}[-1] * {s}",
            "iadd": f"{tgt} += {s}",
            "imul": f"{tgt} *= np.tanh({s})",
            "iadd_arr": f"{tgt} += np.sin({tgt})",
            "slice_set": f"{tgt}[:1] = {s}",
            "ellipsis_set": f"{tgt}[...] = {tgt} * {s}",
        }[w])
        read = y if mode == "write_base" else b
        lines.append(r.choice([f"{out} = np.sum(np.sin({read}) * {read})", f"{out} = {read} * 2.0",
                               f"{out} = np.sum({read} * {read}) + np.sum({y if read == b else b})"]))
        tags = {f"view_{vtag}_{mode}", f"view_{w}", "view_write"}
        if on_param:
            tags.add("view_of_param")
        return lines, [], out, tags

    SNIPPETS = [("s_dict", 3), ("s_seq", 3), ("s_sorted", 1), ("s_minmax", 1), ("s_npseq", 3),
                ("s_helper", 3), ("s_closure", 2), ("s_view", 4)]

    # -- the program ---------------------------------------------------------------
    def main(self):
        r = self.r
        self.f32 = r.random() < 0.25
        dt = "float32" if self.f32 else "float64"
        params = [("x", ("arr", r.choice(SHAPES), dt))]
        if r.random() < 0.5:
            params.append(("y", ("arr", r.choice(SHAPES), dt)))
        if r.random() < 0.5:
            params.append(("p", "float"))
        self.params = params
        self.env = self.run([], [])
        if self.f32:
            self.features.add("float32")
        names = [n for n, w in self.SNIPPETS for _ in range(w)]
        n_snip = r.randint(2, 6)
        done = 0
        for _ in range(n_snip * 12):
            if done >= n_snip:
                break
            lines, helpers, out, tags = getattr(self, r.choice(names))()
            if tags & self.disabled:
                continue
            env = self.run(self.body + lines, self.helpers + helpers)
            if env is None or _numeric(env.get(out)) is None:
                continue
            if self.f32 and any(_numeric(v) and not isinstance(v, float) and
                                np.asarray(v).dtype == np.float64 for v in env.values()):
                # a float32 program that computes in float64 somewhere (a NumPy float64
                # scalar or array met a float32 one): its gradients are still float32
                tags = tags | {"float32_promoted"}
                if tags & self.disabled:
                    continue
            self.body += lines
            self.helpers += helpers
            self.env = env
            self.outs.append(out)
            self.features |= tags
            done += 1
        if not self.outs:
            self.outs = ["x"]
        terms = []
        for o in self.outs:
            terms.append(r.choice([f"np.sum({o})", f"np.sum({o}) * {r.choice(CONSTS)}",
                                   f"np.sum(np.sin({o}))"]))
        ret = " + ".join(terms)
        src = self.source(self.body, self.helpers, ret)
        return Program(src, params, self.seed, set(self.features))


def generate(seed, disabled=()):
    return _Gen(seed, disabled).main()


if __name__ == "__main__":
    import sys
    for s in sys.argv[1:] or ["0"]:
        p = generate(int(s))
        print(f"# seed {s}: params {p.params} features {sorted(p.features)}\n{p.source}")
