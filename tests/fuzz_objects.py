"""Random programs of the user's own classes, closures and try/except, for fuzzing
srcgrad (the third generator; tests/test_fuzz_objects.py runs and checks them).

Each program defines, at the module level of its file, one to three classes: a plain
class whose constructor stores its arguments (and maybe a constant, a function value,
or -- refused when built inside -- an attribute it computes), with methods
(``pre``/``forward``, a method calling another, ``__call__``), a property, a
classmethod and a staticmethod; a subclass whose ``forward`` goes through
``super().forward`` (and maybe its own ``__init__`` calling ``super().__init__``); a
dataclass with methods.  ``f`` takes arrays, maybe a float, an object of one of those
classes and maybe a list of two, and is a sequence of *snippets*: methods called on
objects passed in or built inside, lists of objects iterated, bound methods kept in
names, lists and dicts, attribute writes then reads (on copies, and through a second
name: an alias srcgrad may refuse), closures and lambdas over differentiated locals
passed to a ``scan`` helper, factories' closures, lambdas with ``c=c`` defaults made in
a loop (and without them: refused), try / except / else / finally with a condition that
raises on some inputs (``if np.sum(x) > 0: raise ValueError``), raised inside a method,
or a KeyError of a dict, handlers reading earlier values; ``sorted`` without key and
``d.pop``.  Every snippet is validated on stand-in inputs (valid, tame values) and
tagged with features (``object_built`` for any snippet that calls a class of the
program: refused at second order); a feature in ``disabled`` is never written.

All arrays of a program have one shape (elementwise arithmetic everywhere), float64
or, in one program in four, float32.

    python tests/fuzz_objects.py SEED      # print one program
"""
import random
import re
import warnings

import numpy as np

SHAPES = [(3,), (3,), (4,), (2, 3)]
CONSTS = ["0.5", "2.0", "1.5", "0.25", "-0.5", "0.75", "-1.25"]

# features whose programs srcgrad documents as refused (a located error is right)
REFUSED = {"ctor_computed", "closure_loop_nodefault", "attr_alias", "try_assigned_before"}


class Program:
    prefix = "fuzz_obj"       # module names of loaded programs (test_fuzz.load)

    def __init__(self, source, params, seed, features):
        self.source = source
        # [(name, kind)], kind: "float" | ("arr", shape, dtype)
        #   | ("obj", class name, [ctor argument kinds]) | ("objs", [("obj", ...), ...])
        self.params = params
        self.seed = seed
        self.features = features

    @property
    def float32(self):
        def is32(k):
            if k == "float":
                return False
            if k[0] == "arr":
                return k[2] == "float32"
            if k[0] == "obj":
                return any(is32(a) for a in k[2])
            return any(is32(o) for o in k[1])
        return any(is32(k) for _, k in self.params)

    def draw_args(self, rng, module):
        """Arguments for ``module.f`` (objects built with their class's constructor)."""
        def draw(kind):
            if kind == "float":
                return float(rng.normal() * 0.9)
            if kind[0] == "arr":
                return np.asarray(rng.normal(size=kind[1]) * 0.9, dtype=kind[2])
            if kind[0] == "obj":
                return getattr(module, kind[1])(*[draw(a) for a in kind[2]])
            return [draw(o) for o in kind[1]]
        return [draw(k) for _, k in self.params]


def _numeric(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (float, np.floating)):
        return "s"
    if isinstance(v, np.ndarray) and v.dtype.kind == "f":
        return "s" if v.ndim == 0 else "a"
    return None


def _tame(v, depth=0):
    if depth > 4:
        return True
    if isinstance(v, dict):
        return all(_tame(x, depth + 1) for x in v.values())
    if isinstance(v, (list, tuple)):
        return all(_tame(x, depth + 1) for x in v)
    if hasattr(v, "__dict__") and type(v).__module__.startswith("fuzz_obj"):
        return all(_tame(x, depth + 1) for x in vars(v).values())
    if _numeric(v) is None:
        return True
    a = np.asarray(v)
    return bool(np.all(np.isfinite(a))) and float(np.max(np.abs(a))) < 1e3


class _Class:
    def __init__(self, name, args, methods, base=None, dataclass=False):
        self.name = name
        self.args = args             # [(name, "arr" | "float")] of the constructor
        self.methods = methods       # set: pre, mix, call, energy, sq, make
        self.base = base
        self.dataclass = dataclass
        self.source = ""


class _Gen:
    def __init__(self, seed, disabled):
        self.r = random.Random(seed)
        self.seed = seed
        self.disabled = set(disabled)
        self.n = 0
        self.helpers = []            # module-level source texts (functions)
        self.helper_names = set()
        self.body = []
        self.outs = []
        self.features = set()
        self.env = {}

    def fresh(self, base="v"):
        self.n += 1
        return f"{base}{self.n}"

    def on(self, tag):
        return tag not in self.disabled

    # -- classes -----------------------------------------------------------------
    def make_classes(self):
        r = self.r
        k = self.seed % 97
        classes = []
        # the plain base class
        b_kind = r.choice(["arr", "float"])
        methods = {"pre"} | {m for m in ("mix", "call", "energy", "sq", "make")
                             if r.random() < 0.6}
        A = _Class(f"Layer{k}", [("W", "arr"), ("b", b_kind)], methods)
        lines = [f"class {A.name}:"]
        tags = set()
        if r.random() < 0.3:
            lines.append(f"    gain = {r.choice(CONSTS)}")
            tags.add("class_constant")
        act = r.random() < 0.4
        lines.append(f"    def __init__(self, W, b{', act=np.tanh' if act else ''}):")
        if r.random() < 0.5:
            lines.append("        self.W, self.b = W, b")
        else:
            lines += ["        self.W = W", "        self.b = b"]
        if act:
            lines.append("        self.act = act")
            tags.add("ctor_function_value")
        const = r.random() < 0.4
        if const:
            lines.append(f"        self.scale = {r.choice(CONSTS)}")
            tags.add("ctor_constant")
        computed = self.on("ctor_computed") and r.random() < 0.25
        if computed:
            lines.append("        self.W2 = W * 2.0")
            tags.add("ctor_computed")
        lines += ["", "    def pre(self, x):",
                  "        return x * self.W + " + r.choice(["self.b", "np.sin(self.b)"])]
        fwd = ("self.act(self.pre(x))" if act else
               r.choice(["np.tanh(self.pre(x))", "np.sin(self.pre(x)) + x",
                         "self.pre(x) * np.cos(x)"]))
        if const:
            fwd += " * self.scale"
        if "gain" in lines[1]:
            fwd += " * self.gain"
        if computed:
            fwd += " + self.W2 * 0.5"
        lines += ["", "    def forward(self, x):", f"        return {fwd}"]
        if "mix" in methods:
            lines += ["", "    def mix(self, x, y):",
                      "        return self.forward(x) * np.tanh(y) + self.pre(y)"]
        if "call" in methods:
            extra = " + self.sq(x) * 0.25" if "sq" in methods else ""
            lines += ["", "    def __call__(self, x):", f"        return self.forward(x){extra}"]
        if "energy" in methods:
            lines += ["", "    @property", "    def energy(self):",
                      "        return np.sum(self.W * self.W) * 0.5 + np.sum(self.b * self.b)"]
        if "sq" in methods:
            lines += ["", "    @staticmethod", "    def sq(z):", "        return z * z"]
        if "make" in methods:
            lines += ["", "    @classmethod", "    def make(cls, W, b):",
                      "        return cls(W, b)"]
        A.source = "\n".join(lines)
        A.tags = tags
        classes.append(A)
        # a subclass through super()
        if r.random() < 0.6:
            own_init = r.random() < 0.5
            args = A.args + ([("c", r.choice(["arr", "float"]))] if own_init else [])
            B = _Class(f"Scaled{k}", args, set(A.methods) | {"super"}, base=A.name)
            lines = [f"class {B.name}({A.name}):"]
            if own_init:
                lines += ["    def __init__(self, W, b, c):", "        super().__init__(W, b)",
                          "        self.c = c", ""]
            c_term = " + np.sin(x) * self.c" if own_init else ""
            lines += ["    def forward(self, x):",
                      f"        return {r.choice(CONSTS)} * super().forward(x){c_term}"]
            if "mix" in A.methods and r.random() < 0.5:
                lines += ["", "    def mix(self, x, y):",
                          "        return super().mix(y, x) - self.forward(y) * 0.5"]
            B.source = "\n".join(lines)
            B.tags = A.tags | {"subclass_super"} | ({"subclass_init_super"} if own_init
                                                     else set())
            classes.append(B)
        # a dataclass
        if r.random() < 0.5:
            kinds = [("W", "arr"), ("b", r.choice(["arr", "float"]))]
            D = _Class(f"Params{k}", kinds, {"energy"} | ({"mix"} if r.random() < 0.5 else set()),
                       dataclass=True)
            lines = ["@dataclass", f"class {D.name}:", "    W: np.ndarray", "    b: float", "",
                     "    def forward(self, x):",
                     "        return " + r.choice(["np.sin(x * self.W) + self.b",
                                                   "np.tanh(x + self.W) * self.b"]),
                     "", "    @property", "    def energy(self):",
                     "        return np.sum(np.cos(self.W)) + np.sum(self.b) * 0.5"]
            if "mix" in D.methods:
                lines += ["", "    def mix(self, x, y):",
                          "        return self.forward(x) + self.forward(y) * self.energy"]
            D.source = "\n".join(lines)
            D.tags = {"dataclass"}
            classes.append(D)
        # a container of layers and a cell whose __call__ is a scan step (not in
        # ``classes``: their own snippets use them)
        self.chain = f"Chain{k}"
        self.cell = f"Cell{k}"
        self.extra_classes = [
            f"class {self.chain}:\n    def __init__(self, *layers):\n"
            f"        self.layers = list(layers)\n\n    def __call__(self, x):\n"
            f"        for layer in self.layers:\n            x = layer.forward(x) * 0.5\n"
            f"        return x",
            f"class {self.cell}:\n    def __init__(self, U, c):\n        self.U = U\n"
            f"        self.c = c\n\n    def __call__(self, h, t):\n        try:\n"
            f"            if np.sum(h) > {r.choice(['0.0', '1.0', '-0.5'])}:\n"
            f"                raise ValueError('big')\n"
            f"            out = np.tanh(h * self.U + t)\n        except ValueError:\n"
            f"            out = h * 0.5 + t * self.c\n        return out"]
        return classes

    # -- program text ------------------------------------------------------------------
    def source(self, body, helpers, ret):
        src = "from dataclasses import dataclass\n\nimport numpy as np\n\n\n"
        for c in self.classes:
            src += c.source + "\n\n\n"
        for c in self.extra_classes:
            if re.search(rf"\b{c.split(':')[0][6:]}\b", "\n".join(body + helpers) +
                         " ".join(str(k) for _, k in self.params)):
                src += c + "\n\n\n"
        for h in helpers:
            src += h + "\n\n\n"
        src += f"def f({', '.join(p for p, _ in self.params)}):\n"
        src += "".join("    " + ln + "\n" for ln in body)
        src += f"    return {ret}\n"
        return src

    def run(self, body, helpers):
        """Run the program on stand-in inputs; its locals, or None if it fails."""
        import types
        src = self.source(body, helpers, "locals()")
        mod = types.ModuleType("fuzz_obj_standin")
        try:
            with np.errstate(all="raise"), warnings.catch_warnings():
                warnings.simplefilter("error")
                exec(compile(src, "<standin>", "exec"), mod.__dict__)
                prog = Program("", self.params, self.seed, set())
                args = prog.draw_args(np.random.default_rng(self.seed + 11), mod)
                env = mod.f(*args)
        except Exception:
            return None
        if not all(_tame(v) for v in env.values()):
            return None
        return env

    # -- what the body has -------------------------------------------------------------
    def arrays(self):
        return [k for k, v in self.env.items() if _numeric(v) == "a" and np.shape(v) == self.S]

    def scalars(self):
        return [k for k, v in self.env.items() if _numeric(v) == "s"]

    def objects(self, cls=None):
        names = {c.name: c for c in self.classes}
        out = []
        for k, v in self.env.items():
            c = names.get(type(v).__name__)
            if c is not None and (cls is None or c is cls):
                out.append((k, c))
        return out

    def cls(self, name):
        return {c.name: c for c in self.classes}[name]

    def sc(self):
        r, c = self.r, self.r.choice(CONSTS)
        opts = []
        for n in self.scalars():
            opts += [f"np.sin({n})", f"{n} * {c}", n]
        for n in self.arrays():
            opts += [f"np.sum({n}) * {c}", f"np.mean(np.sin({n}))", f"np.sum({n} * {n}) * 0.5"]
        for n, k in self.objects():
            if "energy" in k.methods:
                opts.append(f"{n}.energy")
        return r.choice(opts)

    def ar(self):
        r, c = self.r, self.r.choice(CONSTS)
        n = r.choice(self.arrays())
        opts = [n, f"np.sin({n})", f"{n} * {c}", f"np.tanh({n}) + {n}", f"np.cos({n}) * {c}"]
        for s in self.scalars()[:3]:
            opts.append(f"{n} * np.tanh({s})")
        return r.choice(opts)

    def ctor_args(self, k):
        return ", ".join(self.ar() if kind == "arr" else self.sc() for _, kind in k.args)

    def obj(self, closure=False):
        """(code, class, lines, tags): an object of the program, passed in or built (for
        a closure, not a loop's variable: a free name assigned more than once is refused)."""
        r = self.r
        have = [(n, k) for n, k in self.objects() if not (closure and re.match(r"L\d", n))]
        if have and r.random() < 0.6:
            n, k = r.choice(have)
            return n, k, [], set()
        k = r.choice(self.classes)
        o = self.fresh("m")
        if "make" in k.methods and k.base is None and r.random() < 0.4:
            return o, k, [f"{o} = {k.name}.make({self.ctor_args(k)})"], {"build_classmethod"}
        if k.dataclass and r.random() < 0.5:
            kw = ", ".join(f"{a}={self.ar() if kind == 'arr' else self.sc()}" for a, kind in k.args)
            return o, k, [f"{o} = {k.name}({kw})"], {"build_dataclass_kw"}
        return o, k, [f"{o} = {k.name}({self.ctor_args(k)})"], {"build_inside"}

    def use(self, o, k):
        """An array expression calling a method of object ``o`` of class ``k``."""
        r = self.r
        a = self.ar()
        opts = [(f"{o}.forward({a})", "method_forward"), (f"{o}.pre({a})" if "pre" in k.methods
                                                          else f"{o}.forward({a})", "method_pre")]
        if "mix" in k.methods:
            opts.append((f"{o}.mix({a}, {self.ar()})", "method_mix"))
        if "call" in k.methods:
            opts.append((f"{o}({a})", "callable_object"))
        if "sq" in k.methods:
            opts.append((f"{o}.sq({a}) + {k.name}.sq({o}.W)", "staticmethod"))
        if "energy" in k.methods:
            opts.append((f"{o}.forward({a}) * {o}.energy", "property"))
        opts.append((f"{o}.W * {a} + {o}.b", "attribute_read"))
        code, tag = r.choice(opts)
        return code, {tag} | (k.tags if hasattr(k, "tags") else set()) | (
            {"super_call"} if k.base else set())

    # -- snippets: (lines, helpers, output name, tags) --------------------------------
    def s_method(self):
        o, k, lines, tags = self.obj()
        out = self.fresh()
        code, t2 = self.use(o, k)
        return lines + [f"{out} = {code}"], [], out, tags | t2

    def s_objlist(self):
        r = self.r
        o1, k1, l1, t1 = self.obj()
        o2, k2, l2, t2 = self.obj()
        lst, h, L, out = self.fresh("layers"), self.fresh("h"), self.fresh("L"), self.fresh()
        lines = l1 + l2 + [f"{lst} = [{o1}, {o2}]"]
        form = r.choice(["chain", "energy_sum", "enumerate", "index"])
        if form == "chain":
            lines += [f"{h} = {self.ar()}", f"for {L} in {lst}:",
                      f"    {h} = {L}.forward({h}) * 0.5", f"{out} = {h}"]
        elif form == "energy_sum" and all("energy" in k.methods for k in (k1, k2)):
            lines += [f"{out} = sum({L}.energy for {L} in {lst})"]
        elif form == "enumerate":
            i = self.fresh("i")
            a = self.ar()
            lines += [f"{out} = 0.0", f"for {i}, {L} in enumerate({lst}):",
                      f"    {out} = {out} + ({i} + 1.0) * np.sum({L}.forward({a}))"]
        else:
            form = "index"
            lines += [f"{out} = {lst}[0].forward({lst}[-1].forward({self.ar()}))"]
        return lines, [], out, t1 | t2 | {"objlist_" + form}

    def s_param_list(self):
        if "ms" not in dict(self.params):
            return [], [], None, set()
        r = self.r
        out, L = self.fresh(), self.fresh("L")
        form = r.choice(["chain", "methods"])
        if form == "chain":
            h = self.fresh("h")
            return ([f"{h} = {self.ar()}", f"for {L} in ms:", f"    {h} = {L}.forward({h})",
                     f"{out} = {h}"], [], out, {"param_objlist_chain"})
        return ([f"{out} = ms[0].pre({self.ar()}) * ms[1].forward({self.ar()})"], [], out,
                {"param_objlist_methods"})

    def s_method_value(self):
        r = self.r
        o, k, lines, tags = self.obj()
        out = self.fresh()
        form = r.choice(["name", "list", "dict", "passed"])
        if form == "name":
            fn = self.fresh("fn")
            lines += [f"{fn} = {o}.forward", f"{out} = {fn}({self.ar()}) + {fn}({self.ar()})"]
        elif form == "list":
            fns, g = self.fresh("fns"), self.fresh("g")
            meth = "pre" if "pre" in k.methods else "forward"
            lines += [f"{fns} = [{o}.forward, {o}.{meth}]",
                      f"{out} = sum(np.sum({g}({self.ar()})) for {g} in {fns})"]
        elif form == "dict":
            d = self.fresh("ops")
            lines += [f"{d} = {{'f': {o}.forward, 'p': {o}.pre}}" if "pre" in k.methods else
                      f"{d} = {{'f': {o}.forward, 'p': {o}.forward}}",
                      f"{out} = {d}['f']({self.ar()}) - {d}['p']({self.ar()}) * 0.5"]
        else:
            self.need("apply_twice", "def apply_twice(fn, a):\n    return fn(fn(a) * 0.5)")
            lines += [f"{out} = apply_twice({o}.forward, {self.ar()})"]
        return lines, [], out, tags | {"method_value_" + form}

    def s_attr_write(self):
        r = self.r
        have = [(n, k) for n, k in self.objects()]
        out = self.fresh()
        form = r.choice(["built", "built", "param", "augmented", "augmented_alias", "alias",
                         "new_attr"])
        if form == "param":
            ps = [(n, k) for n, k in have if n in dict(self.params)]
            if not ps:
                form = "built"
            else:
                o, k = r.choice(ps)
                tags = {"attr_write_param"}
                if any(f"return {o}.forward(h)" in ln for ln in self.body):
                    tags.add("closure_object_written")     # a closure before reads it
                return ([f"{o}.b = {o}.b * {r.choice(CONSTS)} + {self.sc()}",
                         f"{out} = {o}.forward({self.ar()})"], [], out, tags)
        k = r.choice([c for c in self.classes])
        o = self.fresh("m")
        lines = [f"{o} = {k.name}({self.ctor_args(k)})"]
        if form == "built":
            lines += [f"{o}.W = {o}.W * {r.choice(CONSTS)} + {self.ar()}",
                      f"{out} = {o}.forward({self.ar()})"]
        elif form in ("augmented", "augmented_alias"):
            # the array held is a new one (no alias), or an array of f (an alias: the
            # write changes it, which srcgrad may refuse)
            rest = ", ".join(self.ar() if kind == "arr" else self.sc() for _, kind in k.args[1:])
            w = r.choice(self.arrays()) if form == "augmented_alias" else f"np.sin({self.ar()})"
            lines = [f"{o} = {k.name}({w}, {rest})", f"{o}.W += {self.ar()}",
                     f"{out} = {o}.forward({self.ar()}) + {o}.W"]
        elif form == "new_attr":
            lines += [f"{o}.extra = {self.ar()}", f"{out} = {o}.extra * {o}.forward({self.ar()})"]
        else:
            o2 = self.fresh("m")
            lines += [f"{o2} = {o}", f"{o2}.W = {o2}.W * 2.0",
                      f"{out} = {o}.forward({self.ar()})"]
        return lines, [], out, {"attr_write_" + form} | ({"attr_alias"} if "alias" in form
                                                         else set()) | getattr(k, "tags", set())

    def need(self, name, src):
        if name not in self.helper_names:
            self.helper_names.add(name)
            self.pending.append(src)

    def s_closure(self):
        r = self.r
        out, c = self.fresh(), self.fresh("c")
        form = r.choice(["scan_def", "scan_lambda", "scan_object", "factory", "loop_defaults",
                         "comp_defaults", "loop_nodefault", "returned_lambda"])
        lines = []
        self.need("scan", "def scan(step, h, xs):\n    for t in xs:\n        h = step(h, t)\n"
                          "    return h")
        xs = f"[{self.ar()}, {self.ar()}]" + r.choice(["", f" + [{self.ar()}]"])
        if form == "scan_def":
            step = self.fresh("step")
            lines += [f"{c} = {self.sc()}", f"def {step}(h, t):",
                      f"    return np.tanh(h * {c} + t) + np.sin(t) * 0.5",
                      f"{out} = scan({step}, {self.ar()}, {xs})"]
        elif form == "scan_lambda":
            lines += [f"{c} = {self.ar()}",
                      f"{out} = scan(lambda h, t: np.tanh(h + t * {c}), {self.ar()}, {xs})"]
        elif form == "scan_object":
            o, k, l2, t2 = self.obj(closure=True)
            step = self.fresh("step")
            lines += l2 + [f"def {step}(h, t):", f"    return {o}.forward(h) * 0.5 + t",
                           f"{out} = scan({step}, {self.ar()}, {xs})"]
            if any(re.match(rf"\s*{o}\.\w+ \+?= ", ln) for ln in self.body + l2):
                t2 = t2 | {"closure_object_written"}    # an attribute of it written before
            return lines, [], out, t2 | {"closure_scan_object"}
        elif form == "factory":
            self.need("make_kernel", "def make_kernel(a, s):\n    def kernel(t):\n"
                                     "        return a * np.sin(t * s) + s\n    return kernel")
            kn = self.fresh("k")
            lines += [f"{kn} = make_kernel({self.sc()}, {self.ar()})",
                      f"{out} = {kn}({self.ar()}) + {kn}({self.ar()}) * 0.5"]
        elif form == "returned_lambda":
            self.need("make_affine", "def make_affine(w, b):\n    return lambda t: t * w + b")
            kn = self.fresh("k")
            lines += [f"{kn} = make_affine({self.ar()}, {self.sc()})",
                      f"{out} = scan(lambda h, t: {kn}(h) * 0.5 + t, {self.ar()}, {xs})"]
        elif form == "loop_defaults":
            fs, g = self.fresh("fs"), self.fresh("g")
            lines += [f"{fs} = []", f"for {c} in [{self.sc()}, {self.ar()}]:",
                      f"    {fs}.append(lambda t, {c}={c}: np.sin(t) * {c})",
                      f"{out} = sum({g}({self.ar()}) for {g} in {fs})"]
        elif form == "comp_defaults":
            fs, g = self.fresh("fs"), self.fresh("g")
            lines += [f"{fs} = [lambda t, {c}={c}: t * {c} for {c} in ({self.sc()}, {self.sc()})]",
                      f"{out} = {fs}[0]({self.ar()}) + {fs}[1]({self.ar()})"]
        else:
            fs, g = self.fresh("fs"), self.fresh("g")
            lines += [f"{fs} = []", f"for {c} in [{self.sc()}, {self.sc()}]:",
                      f"    {fs}.append(lambda t: np.sin(t) * {c})",
                      f"{out} = sum({g}({self.ar()}) for {g} in {fs})"]
        tags = {"closure_" + form}
        if form == "loop_nodefault":
            tags.add("closure_loop_nodefault")
        return lines, [], out, tags

    def s_try(self):
        r = self.r
        out, t, k = self.fresh(), self.fresh("t"), self.fresh("k")
        a = r.choice(self.arrays())
        prev = self.sc()
        form = r.choice(["raise_if", "raise_if", "method_raises", "key_error", "in_loop",
                         "assigned_before", "tuple_handler"])
        lines, tags = [], {"try_" + form}
        cond = r.choice([f"np.sum({a}) > 0.0", f"np.mean(np.sin({a})) < 0.0", f"{a}[0] > 0.0"
                         if len(self.S) == 1 else f"{a}[0, 0] > 0.0"])
        if form == "method_raises":
            self.need("checked", "def checked(v):\n    if np.sum(v) > 0.0:\n"
                                 "        raise ValueError('positive')\n    return np.sin(v) * 2.0")
            lines += ["try:", f"    {t} = checked({self.ar()})",
                      "except ValueError:", f"    {t} = {a} * {prev}"]
        elif form == "key_error":
            d = self.fresh("d")
            lines += [f"{d} = {{'a': {self.ar()}}}", "try:",
                      f"    {t} = {d}['a' if {cond} else 'z'] * 2.0",
                      "except KeyError:", f"    {t} = np.cos({a}) * {prev}"]
        elif form == "in_loop":
            i = self.fresh("i")
            lines += [f"{t} = {self.ar()}", f"for {i} in range(3):", "    try:",
                      f"        if np.sum({t}) > {i} - 1.0:",
                      "            raise ValueError('big')",
                      f"        {t} = {t} + np.sin({t}) * 0.5",
                      "    except ValueError:",
                      f"        {t} = {t} * 0.5 - {prev} * 0.1"]
        elif form == "assigned_before":
            lines += ["try:", f"    {t} = {self.ar()}", f"    if {cond}:",
                      "        raise ValueError('x')", f"    {t} = {t} * 2.0",
                      "except ValueError:", f"    {t} = {t} + {prev}"]
        else:
            exc = "(KeyError, ValueError) as e" if form == "tuple_handler" else "ValueError"
            lines += ["try:", f"    if {cond}:", "        raise ValueError('positive')",
                      f"    {t} = np.sin({self.ar()}) * {self.sc()}", f"except {exc}:",
                      f"    {t} = np.cos({a}) * {prev}"]
        if r.random() < 0.5 and form not in ("in_loop",):
            lines += ["else:", f"    {t} = {t} * 1.5"]
            tags.add("try_else")
        if r.random() < 0.4 and form not in ("in_loop",):
            lines += ["finally:", f"    {k} = 2.0"]
            lines.append(f"{out} = {t} * {k}")
            tags.add("try_finally")
        else:
            lines.append(f"{out} = {t}")
        if form == "assigned_before":
            tags.add("try_assigned_before")
        return lines, [], out, tags

    def s_sorted(self):
        r = self.r
        l, out = self.fresh("l"), self.fresh()
        vals = [f"float({self.sc()})" if r.random() < 0.5 else self.sc() for _ in range(3)]
        form = r.choice(["list", "reverse"])
        rev = ", reverse=True" if form == "reverse" else ""
        return ([f"{l} = sorted([{', '.join(vals)}]{rev})",
                 f"{out} = {l}[0] * 2.0 + {l}[1] * {l}[-1]"], [], out, {"sorted_" + form})

    def s_pop(self):
        r = self.r
        d, u, out = self.fresh("d"), self.fresh("u"), self.fresh()
        form = r.choice(["pop", "pop_default", "pop_missing"])
        lines = [f"{d} = {{'a': {self.ar()}, 'b': {self.sc()}}}"]
        if form == "pop":
            lines += [f"{u} = {d}.pop('a')"]
        elif form == "pop_default":
            lines += [f"{u} = {d}.pop('a', {self.ar()})"]
        else:
            lines += [f"{u} = {d}.pop('z', {self.ar()})"]
        lines.append(f"{out} = {u} * {d}['b'] + len({d})")
        return lines, [], out, {"dict_" + form}

    def s_chain(self):
        r = self.r
        out, net, L = self.fresh(), self.fresh("net"), self.fresh("L")
        lines, tags = [], {"chain_object"}
        if "net" in dict(self.params) and r.random() < 0.6:
            net = "net"
            tags.add("chain_param")
        else:
            o1, k1, l1, t1 = self.obj()
            o2, k2, l2, t2 = self.obj()
            lines += l1 + l2 + [f"{net} = {self.chain}({o1}, {o2})"]
            tags |= t1 | t2
            if o1 == o2 or re.match(r"L\d", o1) or re.match(r"L\d", o2):
                tags.add("chain_same_object")      # one object twice (maybe, a loop's)
            elif "ctor_constant" in getattr(k1, "tags", set()) | getattr(k2, "tags", set()):
                tags.add("chain_shared_constant")  # two objects, one constant's float
        form = r.choice(["call", "layers", "index"])
        if form == "call":
            lines.append(f"{out} = {net}({self.ar()})")
        elif form == "layers":
            lines.append(f"{out} = sum(np.sum({L}.forward({self.ar()})) for {L} in {net}.layers)")
        else:
            lines.append(f"{out} = {net}.layers[-1].forward({net}.layers[0].pre({self.ar()}))"
                         if all("pre" in c.methods for c in self.classes) else
                         f"{out} = {net}.layers[-1].forward({self.ar()})")
        return lines, [], out, tags | {"chain_" + form}

    def s_cell(self):
        out, cell = self.fresh(), self.fresh("cell")
        self.need("scan", "def scan(step, h, xs):\n    for t in xs:\n        h = step(h, t)\n"
                          "    return h")
        return ([f"{cell} = {self.cell}({self.ar()}, {self.sc()})",
                 f"{out} = scan({cell}, {self.ar()}, [{self.ar()}, {self.ar()}, {self.ar()}])"],
                [], out, {"cell_object_step", "try_in_method"})

    def s_shared(self):
        k = self.r.choice([c for c in self.classes if c.args[0][1] == "arr"])
        a = self.r.choice(self.arrays())
        o1, o2, out = self.fresh("m"), self.fresh("m"), self.fresh()
        rest1 = ", ".join(self.ar() if kd == "arr" else self.sc() for _, kd in k.args[1:])
        rest2 = ", ".join(self.ar() if kd == "arr" else self.sc() for _, kd in k.args[1:])
        return ([f"{o1} = {k.name}({a}, {rest1})", f"{o2} = {k.name}({a}, {rest2})",
                 f"{out} = {o1}.forward({self.ar()}) * {o2}.forward({self.ar()})"], [], out,
                {"shared_array"} | getattr(k, "tags", set()))

    def s_loop_write(self):
        k = self.r.choice(self.classes)
        o, i, out = self.fresh("m"), self.fresh("i"), self.fresh()
        return ([f"{o} = {k.name}({self.ctor_args(k)})", f"for {i} in range(3):",
                 f"    {o}.W = np.tanh({o}.W) + {self.ar()} * 0.5",
                 f"{out} = {o}.forward({self.ar()})"], [], out,
                {"attr_write_loop"} | getattr(k, "tags", set()))

    def s_obj_factory(self):
        r = self.r
        k = r.choice(self.classes)
        out = self.fresh()
        if r.random() < 0.5:
            name = f"build_{k.name.lower()}"
            args = ", ".join(a for a, _ in k.args)
            self.need(name, f"def {name}({args}):\n    return {k.name}({args})")
            return ([f"{out} = {name}({self.ctor_args(k)}).forward({self.ar()})"], [], out,
                    {"object_from_helper"} | getattr(k, "tags", set()))
        objs, sv, L, h = self.fresh("objs"), self.fresh("s"), self.fresh("L"), self.fresh("h")
        rest = ", ".join((f"{self.ar()} * {sv}" if kd == "arr" else sv) for _, kd in k.args)
        return ([f"{objs} = []", f"for {sv} in [{self.sc()}, {self.sc()}]:",
                 f"    {objs}.append({k.name}({rest}))",
                 f"{h} = {self.ar()}", f"for {L} in {objs}:", f"    {h} = {L}.forward({h})",
                 f"{out} = {h}"], [], out, {"objects_built_in_loop"} | getattr(k, "tags", set()))

    SNIPPETS = [("s_chain", 2), ("s_cell", 1), ("s_shared", 1), ("s_loop_write", 1),
                ("s_obj_factory", 2), ("s_method", 4), ("s_objlist", 2), ("s_param_list", 1),
                ("s_method_value", 2),
                ("s_attr_write", 2), ("s_closure", 3), ("s_try", 3), ("s_sorted", 1),
                ("s_pop", 1)]

    def main(self):
        r = self.r
        self.f32 = r.random() < 0.25
        dt = "float32" if self.f32 else "float64"
        self.S = r.choice(SHAPES)
        self.classes = self.make_classes()
        self.features |= set().union(*(getattr(c, "tags", set()) for c in self.classes))
        self.features -= {"ctor_computed"}       # only when an object is built inside
        self.computed = [c for c in self.classes if "ctor_computed" in c.tags or
                         c.base and "ctor_computed" in self.cls(c.base).tags]

        def okind(c):
            return ("obj", c.name, [("arr", self.S, dt) if kd == "arr" else "float"
                                    for _, kd in c.args])
        params = [("x", ("arr", self.S, dt))]
        if r.random() < 0.4:
            params.append(("y", ("arr", self.S, dt)))
        if r.random() < 0.3:
            params.append(("p", "float"))
        if r.random() < 0.75:
            params.append(("m", okind(r.choice(self.classes))))
        if r.random() < 0.3:
            params.append(("ms", ("objs", [okind(r.choice(self.classes)) for _ in range(2)])))
        if r.random() < 0.2:
            params.append(("net", ("obj", self.chain, [okind(r.choice(self.classes))
                                                       for _ in range(2)])))
        self.params = params
        self.pending = []
        self.env = self.run([], [])
        if self.env is None:
            raise RuntimeError(f"seed {self.seed}: the empty program does not run")
        if self.f32:
            self.features.add("float32")
        names = [n for n, w in self.SNIPPETS for _ in range(w)]
        n_snip = r.randint(2, 5)
        done = 0
        for _ in range(n_snip * 12):
            if done >= n_snip:
                break
            self.pending = []
            helper_names = set(self.helper_names)
            lines, helpers, out, tags = getattr(self, r.choice(names))()
            tags = set(tags) - {"ctor_computed"}
            new_helpers = helpers + self.pending
            if any(re.search(rf"\b{c.name}(\.make)?\(", "\n".join(lines + new_helpers))
                   for c in self.computed):
                tags.add("ctor_computed")        # a constructor computing an attribute runs
            if any(re.search(rf"\b{c.name}(\.make)?\(", "\n".join(lines + new_helpers))
                   for c in self.classes):
                tags.add("object_built")         # refused at second order, on purpose
            bad = out is None or (tags & self.disabled)
            env = None if bad else self.run(self.body + lines, self.helpers + new_helpers)
            if env is None or _numeric(env.get(out)) is None:
                self.helper_names = helper_names
                continue
            if self.f32 and any(_numeric(v) and type(v) is not float and
                                np.asarray(v).dtype == np.float64 for v in env.values()):
                # a float32 program that computes in float64 somewhere (a method adds
                # np.sin of a Python float): its gradients are still float32
                tags = tags | {"float32_promoted"}
                if tags & self.disabled:
                    self.helper_names = helper_names
                    continue
            self.body += lines
            self.helpers += new_helpers
            self.env = env
            self.outs.append(out)
            self.features |= tags
            done += 1
        if not self.outs:
            self.outs = ["x"]
        terms = [r.choice([f"np.sum({o})", f"np.sum({o}) * {r.choice(CONSTS)}",
                           f"np.sum(np.sin({o}))"]) for o in self.outs]
        src = self.source(self.body, self.helpers, " + ".join(terms))
        return Program(src, params, self.seed, set(self.features))


def generate(seed, disabled=()):
    return _Gen(seed, disabled).main()


if __name__ == "__main__":
    import sys
    for s in sys.argv[1:] or ["0"]:
        p = generate(int(s))
        print(f"# seed {s}: params {p.params}\n# features {sorted(p.features)}\n{p.source}")
