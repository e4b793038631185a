"""Random differentiable Python/NumPy programs, for fuzzing srcgrad's compiler.

``generate(seed)`` returns a :class:`Program`: the source text of a module holding
a function ``f`` (and, often, module-level helpers that ``f`` calls), with the
kinds of ``f``'s parameters so that inputs can be drawn for it.  Programs are
deterministic in ``seed``, valid Python, and numerically tame on purpose: every
operation works on any real input (``log(1 + e*e)``, ``sqrt(e*e + 1)``,
``e / (1 + e*e)``, ``abs(e) ** 1.5``, ``exp`` of a bounded value ...).

The generator tracks every variable's *type* (a Python float, or a float64
array of a shape) by evaluating each expression it writes on stand-in values
(``_Gen.ev``): an expression that NumPy rejects (shapes that do not broadcast,
a bad index or axis) is never written.  Loops and branches keep the types of the
variables they reassign, so a second trip of a loop sees the types of the first.

Programs never change their arguments in place (a variable that may share memory
with an argument is never the target of ``+=`` on an array or ``y[i] = v``), but
they do alias their own locals (``w = v``, views, dict entries), as real code
does: the function's own Python semantics is the oracle (``check_program`` in
test_fuzz.py compares srcgrad to finite differences of the real function).

Run ``python tests/fuzz_programs.py SEED`` to print one program.
"""
import math
import random

import numpy as np

SHAPES = [(), (3,), (3,), (2, 3), (2, 3), (2, 1), (1, 3), (4,)]
CONSTS = ["0.5", "2.0", "1.5", "0.25", "3.0", "0.1", "-0.5", "-1.25", "0.75"]
THRESH = ["0.0", "0.3", "-0.3", "0.5", "-0.2", "1.0", "0.1"]


class Program:
    def __init__(self, source, params, seed, features):
        self.source = source
        self.params = params        # [(name, kind)], kind: "float" | ("arr", shape) | ("int", n)
        self.seed = seed
        self.features = features    # set of construct names used (for statistics)

    def draw_args(self, rng):
        """Random arguments for f (numpy Generator ``rng``)."""
        out = []
        for _, kind in self.params:
            if kind == "float":
                out.append(float(rng.normal() * 0.9))
            elif kind[0] == "arr":
                out.append(np.asarray(rng.normal(size=kind[1]) * 0.9, dtype=np.float64))
            else:
                out.append(kind[1])
        return out


class Var:
    __slots__ = ("val", "mut", "kind")

    def __init__(self, val, mut, kind="val"):
        self.val = val       # stand-in value: its type and shape are the variable's
        self.mut = mut       # may be changed in place (never shares memory with an argument)
        self.kind = kind     # "val" | "dict" | "list" | "tuple" | "int"


def tkey(v):
    """A value's type: ("f",) for a Python float, ("a", shape) for a NumPy value."""
    if type(v) is float:
        return ("f",)
    return ("a", np.shape(v))


def ok_value(v):
    if type(v) is float:
        return math.isfinite(v) and abs(v) < 1e3
    if isinstance(v, np.floating):
        return bool(np.isfinite(v)) and abs(float(v)) < 1e3
    if isinstance(v, np.ndarray):
        return v.dtype == np.float64 and 0 < v.size <= 36 and v.ndim <= 3 and \
            bool(np.all(np.isfinite(v))) and float(np.max(np.abs(v))) < 1e3
    return False


class Ctx:
    """Where a statement is being generated."""

    def __init__(self, depth=0, loop=False, frozen=frozenset(), loopvars=(), fn="main",
                 rtype=None, can_jump=False):
        self.depth = depth          # nesting of compound statements
        self.loop = loop            # inside a loop body
        self.frozen = frozen        # names that must keep their type (loop-carried, branches)
        self.loopvars = loopvars    # int loop variables in scope: [(name, bound)]
        self.fn = fn                # "main" or "helper"
        self.rtype = rtype          # a helper's return type (tkey)
        self.can_jump = can_jump    # break/continue allowed here

    def inner(self, **kw):
        c = Ctx(self.depth, self.loop, self.frozen, self.loopvars, self.fn, self.rtype,
                self.can_jump)
        for k, v in kw.items():
            setattr(c, k, v)
        return c


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seed = seed
        self.ns = {"np": np, "math": math}
        self.n = 0
        self.features = set()
        self.helpers = []           # (name, [param tkeys], return tkey, source)
        self.vrng = np.random.default_rng(seed + 7)
        self.used = set()

    # -- utilities -------------------------------------------------------------
    # names generated code also uses (adjoints ``d<name>``, the record stack, the
    # helpers' module ``ad``...): a user's variable may be called so too
    TRICKY = ["dx", "dw", "da", "stack", "result", "cond", "value", "mul", "dv1", "seq",
              "trips", "sum_", "ad", "dresult", "popped", "grads", "steps", "stop", "skip",
              "returned", "x_arg", "dmul", "add", "saved", "index", "item", "choice"]

    def fresh(self, base="v"):
        self.n += 1
        if base == "v" and self.r.random() < 0.06:
            unused = [t for t in self.TRICKY if t not in self.used]
            if unused:
                name = self.r.choice(unused)
                self.used.add(name)
                self.feat("tricky_name")
                return name
        return f"{base}{self.n}"

    def ev(self, code, env, extra=None):
        """Evaluate ``code`` on the stand-in values; None if NumPy rejects it."""
        loc = {k: v.val for k, v in env.items()}
        if extra:
            loc.update(extra)
        try:
            with np.errstate(all="ignore"):
                import warnings
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = eval(code, self.ns, loc)
        except Exception:
            return None
        return out if ok_value(out) else None

    def standin(self, t):
        if t == ("f",):
            return float(self.vrng.normal())
        if t[1] == ():
            return np.float64(self.vrng.normal())
        return self.vrng.normal(size=t[1])

    def vals(self, env):
        return [k for k, v in env.items() if v.kind == "val"]

    def feat(self, name):
        self.features.add(name)

    # -- expressions -------------------------------------------------------------
    def atom(self, env, ctx):
        """(code, value, mutable-alias flag) of a leaf of an expression."""
        r = self.r
        choices = []
        names = self.vals(env)
        if names:
            choices += ["var"] * 8
        if any(v.kind == "dict" for v in env.values()):
            choices += ["dict"] * 2
        if any(v.kind in ("list", "tuple") for v in env.values()):
            choices += ["seq"] * 2
        if ctx.loopvars:
            choices += ["loopvar"]
        choices += ["const"]
        c = r.choice(choices)
        if c == "var":
            n = r.choice(names)
            return n, env[n].val, env[n].mut
        if c == "dict":
            d = r.choice([k for k, v in env.items() if v.kind == "dict"])
            key = r.choice(sorted(env[d].val))
            self.feat("dict_read")
            return f"{d}[{key!r}]", env[d].val[key], False
        if c == "seq":
            s = r.choice([k for k, v in env.items() if v.kind in ("list", "tuple")])
            seq = env[s].val
            j = r.choice([0, -1, len(seq) - 1] if len(seq) > 1 else [0, -1])
            self.feat(env[s].kind + "_read")
            return f"{s}[{j}]", seq[j], False
        if c == "loopvar":
            i, _ = r.choice(ctx.loopvars)
            self.feat("loopvar_arith")
            return f"({i} * 0.5 + 1.0)", 1.0, True
        k = r.choice(CONSTS)
        return k, float(k), True

    def expr(self, env, ctx, depth=0):
        """(code, value, mut): a random expression valid on env's types."""
        for _ in range(12):
            out = self._expr(env, ctx, depth)
            if out is not None:
                code, val, mut = out
                val = self.ev(code, env, self._loopvals(ctx))
                if val is not None:
                    return code, val, mut
        n = self.r.choice(self.vals(env)) if self.vals(env) else None
        if n is None:
            return "0.5", 0.5, True
        return f"np.tanh({n})", self.ev(f"np.tanh({n})", env) if self.ev(
            f"np.tanh({n})", env) is not None else np.tanh(env[n].val), True

    def _loopvals(self, ctx):
        return {i: 0 for i, _ in ctx.loopvars}

    def _expr(self, env, ctx, depth):
        r = self.r
        if depth >= 3 or r.random() < 0.2 + 0.2 * depth:
            code, val, mut = self.atom(env, ctx)
            if not isinstance(val, (float, np.floating, np.ndarray)):
                return None
            return code, val, mut
        kind = r.choices(["unary", "binary", "reduce", "index", "shape", "matmul", "where",
                          "call", "ifexp", "floatfn", "pow", "einsum"],
                         [10, 12, 6, 5, 4, 2, 2, 2 if self.helpers else 0, 1, 3, 2, 1])[0]
        sub = lambda: self._expr(env, ctx, depth + 1)  # noqa: E731
        a = sub()
        if a is None:
            return None
        ac, av, am = a
        if kind == "unary":
            if type(av) is float:
                fn = r.choice(["math.sin({})", "math.cos({})", "math.tanh({})",
                               "math.exp(math.tanh({}))", "math.log(1.0 + {0} * {0})",
                               "math.sqrt({0} * {0} + 1.0)", "abs({})", "-{}", "{} ** 2",
                               "math.atan({})", "abs({}) ** 1.5", "math.sinh(math.tanh({}))",
                               "float({})"])
                self.feat("math")
            else:
                fn = r.choice(["np.sin({})", "np.cos({})", "np.tanh({})",
                               "np.exp(np.tanh({}))", "np.exp(-{0} * {0})",
                               "np.log(1.0 + {0} * {0})", "np.sqrt({0} * {0} + 1.0)",
                               "np.abs({})", "abs({}) ** 1.5", "-{}", "{} ** 2", "{} ** 3",
                               "np.square({})", "np.arctan({})", "np.log1p({0} * {0})",
                               "{0} / (1.0 + {0} * {0})", "np.maximum({}, 0.1)",
                               "np.minimum({}, -0.2)", "np.clip({}, -0.8, 0.8)",
                               "np.sinh(np.tanh({}))", "np.hypot({}, 1.0)",
                               "np.logaddexp({}, 0.5)", "np.arctan2({}, 1.5)",
                               "np.where({0} > 0.0, {0}, 0.1 * {0})", "np.sign({}) * 0.5",
                               "np.tanh({}).copy()", "+{}", "np.fabs({})", "np.cbrt({0} * {0} + 1.0)"])
                self.feat("np_unary")
            code = fn.format(_paren(ac))
            return code, None, True
        if kind == "pow":
            b = sub()
            if b is None:
                return None
            bc = b[0]
            fn = r.choice(["(1.0 + {0} * {0}) ** {1}", "(1.0 + {0} * {0}) ** np.tanh({1})",
                           "2.0 ** np.tanh({0})", "np.power(1.0 + {0} * {0}, 0.5)",
                           "(2.0 + np.cos({0})) ** (1.0 + 0.5 * np.sin({1}))"])
            self.feat("pow")
            return fn.format(_paren(ac), _paren(bc)), None, True
        if kind == "floatfn":
            fn = r.choice(["float(np.sum({}))", "max({}, {})", "min({}, {})",
                           "math.exp(math.tanh(float(np.mean({}))))"])
            if fn.count("{}") == 2:
                b = sub()
                if b is None:
                    return None
                code = fn.format(ac, b[0])
            else:
                code = fn.format(ac)
            self.feat("floatfn")
            return code, None, True
        if kind == "binary":
            b = sub()
            if b is None:
                return None
            bc = b[0]
            op = r.choice(["+", "-", "*", "*", "/", "div1", "div2", "+", "-"])
            if op == "div1":
                code = f"{_paren(ac)} / (1.0 + {_paren(bc)} * {_paren(bc)})"
            elif op == "div2":
                code = f"{_paren(ac)} / (2.0 + np.cos({bc}))"
            elif op == "/":
                code = f"{_paren(ac)} / {r.choice(['3.0', '2.0', '-4.0'])}"
            else:
                code = f"{_paren(ac)} {op} {_paren(bc)}"
            self.feat("binop")
            return code, None, True
        if kind == "reduce":
            if not isinstance(av, np.ndarray) or av.ndim == 0:
                return None
            fname = r.choice(["sum", "sum", "mean", "max", "min", "prod", "var", "norm",
                              "cumsum", "sort", "diff"])
            nd = av.ndim
            axis = r.choice([None, None, 0, -1] + ([1, (0, 1), (-1, 0)] if nd == 2 else []))
            keep = r.random() < 0.3
            kw = []
            if axis is not None:
                kw.append(f"axis={axis}")
            if keep and fname not in ("cumsum", "sort", "diff"):
                kw.append("keepdims=True")
            if fname in ("cumsum", "sort", "diff"):
                if isinstance(axis, tuple):
                    return None
                kw = [f"axis={axis if axis is not None else -1}"]
                if fname == "cumsum" and axis is None:
                    kw = []
            kws = ", ".join(kw)
            if fname == "norm":
                if isinstance(axis, tuple) and nd == 2:
                    return None
                code = f"np.linalg.norm({ac}{', ' + kws if kws else ''})"
            elif fname in ("cumsum", "sort", "diff", "var") or r.random() < 0.6:
                code = f"np.{fname}({ac}{', ' + kws if kws else ''})"
            else:
                code = f"{_paren(ac)}.{fname}({kws})"
            self.feat("reduce_" + fname)
            return code, None, True
        if kind == "index":
            if not isinstance(av, np.ndarray) or av.ndim == 0:
                return None
            if not _is_name(ac) and r.random() < 0.7:
                return None
            sh = av.shape
            nd = av.ndim
            opts = []
            n0 = sh[0]
            opts += [(f"[{r.randrange(-n0, n0)}]", "int", True)]
            opts += [(f"[{r.randrange(0, n0)}:]", "slice", True)]
            opts += [(f"[:{r.randrange(1, n0 + 1)}]", "slice", True)]
            opts += [("[::-1]", "slice_neg_step", True)]
            k = [r.randrange(n0) for _ in range(r.randint(1, 4))]
            opts += [(f"[{k}]", "fancy", False)]
            if ctx.loopvars:
                i, _ = r.choice(ctx.loopvars)
                opts += [(f"[{i} % {n0}]", "loopvar_index", True)]
            if nd == 2:
                n1 = sh[1]
                opts += [(f"[:, {r.randrange(-n1, n1)}]", "col", True)]
                opts += [(f"[{r.randrange(n0)}, {r.randrange(-n1, n1)}]", "int2", True)]
                opts += [(f"[:, {r.randrange(0, n1)}:]", "slice2", True)]
                opts += [(f"[..., {r.randrange(n1)}]", "ellipsis", True)]
                opts += [("[None]", "newaxis", True)]
                k1 = [r.randrange(n1) for _ in range(len(k))]
                opts += [(f"[{k}, {k1}]", "fancy2", False)]
            idx, feat, view = r.choice(opts)
            self.feat("index_" + feat)
            if r.random() < 0.1:
                self.feat("index_mask")
                return f"np.sum({ac}[{ac} > {r.choice(THRESH)}])", None, True
            return f"{_paren(ac)}{idx}", None, am if view else True
        if kind == "shape":
            if not isinstance(av, np.ndarray) or av.ndim == 0:
                return None
            nd = av.ndim
            size = av.size
            opts = ["{}.reshape(-1)", "np.ravel({})", "np.expand_dims({}, 0)", "np.flip({}, 0)",
                    "np.tile({}, 2)", "np.roll({}, 1)", "np.concatenate([{0}, {0}])",
                    "np.stack([{0}, {0} * 2.0])", "np.copy({})", "np.array({})"]
            if nd == 2:
                opts += ["{}.T", "np.transpose({})", "np.swapaxes({}, 0, 1)",
                         "np.concatenate([{0}, {0}], axis=1)", "np.stack([{0}, {0}], axis=-1)"]
                if 1 in av.shape:
                    opts += ["np.squeeze({})"]
            if size == 6:
                opts += ["{}.reshape(3, 2)", "np.reshape({}, (2, 3))", "{}.reshape((6, 1))"]
            if size == 4:
                opts += ["{}.reshape(2, 2)"]
            b = sub()
            if b is not None and isinstance(b[1], np.ndarray):
                opts += ["np.concatenate([{0}, {1}])", "np.stack([{0}, {1}])",
                         "np.concatenate([{0}, {1}], axis=-1)", "np.outer({0}, {1})"]
            fn = r.choice(opts)
            self.feat("shape_" + fn.split("(")[0].replace("{}", "").replace("{0}", "")[:14])
            code = fn.format(ac, b[0] if b else ac)
            view = fn.startswith(("{}.reshape", "np.ravel", "np.expand", "np.flip", "{}.T",
                                  "np.transpose", "np.swapaxes", "np.squeeze", "np.reshape"))
            return code, None, am if view else True
        if kind == "matmul":
            b = sub()
            if b is None:
                return None
            bc = b[0]
            fn = r.choice(["{} @ {}", "np.dot({}, {})", "np.matmul({}, {})", "{}.T @ {}",
                           "{} @ {}.T", "np.inner({}, {})"])
            if fn.startswith("{}.") or fn.startswith("{} @ {}."):
                fn = fn.replace("{}.", "{}.")
            self.feat("matmul")
            return fn.format(_paren(ac), _paren(bc)), None, True
        if kind == "where":
            b = sub()
            if b is None:
                return None
            bc = b[0]
            fn = r.choice(["np.where({0} > {1}, {0}, {1})", "np.maximum({0}, {1})",
                           "np.minimum({0}, {1})", f"np.where({{0}} > {r.choice(THRESH)}, {{1}}, {{0}} * 0.5)"])
            self.feat("where")
            return fn.format(ac, bc), None, True
        if kind == "call":
            hs = [h for h in self.helpers if h[2][0] != "tuple"]
            if not hs:
                return None
            name, ptypes, rt, _ = r.choice(hs)
            args = self.call_args(ptypes, env)
            if args is None:
                return None
            self.feat("helper_call")
            return f"{name}({args})", None, False
        if kind == "einsum":
            b = sub()
            if b is None:
                return None
            spec = r.choice(["'ij,j->i'", "'i,i->'", "'ij,ij->'", "'ij,kj->ik'", "'i,j->ij'",
                             "'ij->j'"])
            self.feat("einsum")
            if spec == "'ij->j'":
                return f"np.einsum({spec}, {ac})", None, True
            return f"np.einsum({spec}, {ac}, {b[0]})", None, True
        if kind == "ifexp":
            b = sub()
            if b is None:
                return None
            bv = self.ev(b[0], env, self._loopvals(ctx))
            av2 = self.ev(ac, env, self._loopvals(ctx))
            if bv is None or av2 is None or tkey(av2) != tkey(bv):
                return None
            cond = self.cond(env, ctx)
            self.feat("ifexp")
            return f"({ac} if {cond} else {b[0]})", None, am and b[2]
        return None

    def call_args(self, ptypes, env):
        """Arguments for a helper: a variable of each parameter's type; a parameter
        with a default (``("f", "default")``) is left out or passed by keyword."""
        args = []
        for j, t in enumerate(ptypes):
            if len(t) == 2 and t[1] == "default":
                if self.r.random() < 0.5:
                    continue
                cand = [n for n in self.vals(env) if tkey(env[n].val) == ("f",)]
                val = self.r.choice(cand) if cand else self.r.choice(CONSTS)
                args.append(f"p{j}={val}")
                self.feat("keyword_arg")
                continue
            cand = [n for n in self.vals(env) if tkey(env[n].val) == t]
            if not cand:
                return None
            args.append(self.r.choice(cand))
        return ", ".join(args)

    def expr_of(self, t, env, ctx):
        """An expression of type ``t``."""
        for _ in range(40):
            code, val, mut = self.expr(env, ctx)
            if tkey(val) == t:
                return code, val, mut
        if t == ("f",):
            k = self.r.choice(CONSTS)
            return k, float(k), True
        same = [n for n in self.vals(env) if tkey(env[n].val) == t]
        if same:
            n = self.r.choice(same)
            return f"np.tanh({n})", np.tanh(env[n].val), True
        shape = t[1]
        for n in self.vals(env):
            try:
                if np.broadcast_shapes(np.shape(env[n].val), shape) == shape:
                    code = f"np.sin({n}) + np.zeros({shape})"
                    v = self.ev(code, env)
                    if v is not None and tkey(v) == t:
                        return code, v, True
            except ValueError:
                pass
        code = f"np.full({shape}, 0.5)" if shape else "np.float64(0.5)"
        return code, self.ev(code, env), True

    def scalar_expr(self, env, ctx):
        """A scalar that depends on several variables (for return)."""
        names = self.vals(env)
        picks = self.r.sample(names, min(len(names), self.r.randint(1, 3)))
        terms = []
        for n in picks:
            v = env[n].val
            w = self.r.choice(["", "0.5 * ", "2.0 * ", "-1.5 * "])
            if type(v) is float or np.ndim(v) == 0:
                form = self.r.choice(["{}", "{} ** 2", "np.sin({})"])
            else:
                form = self.r.choice(["np.sum({})", "np.sum({} ** 2)", "np.mean(np.sin({}))",
                                      "{}.sum()", "np.sum(np.tanh({}) * {})"])
            terms.append(w + form.format(n, n))
        if not terms:
            return "0.0"
        code = " + ".join(terms)
        return code

    def cond(self, env, ctx):
        r = self.r
        names = self.vals(env)
        forms = []
        if names:
            n = r.choice(names)
            v = env[n].val
            t = r.choice(THRESH)
            if type(v) is float or np.ndim(v) == 0:
                forms += [f"{n} > {t}", f"{n} < {t}", f"abs({n}) < 0.7"]
            else:
                forms += [f"np.sum({n}) > {t}", f"np.mean({n}) < {t}", f"{n}.max() > {t}",
                          f"np.min({n}) < {t}", f"{n}[0].sum() > {t}" if np.ndim(v) else
                          f"{n} > {t}"]
        if ctx.loopvars:
            i, _ = r.choice(ctx.loopvars)
            forms += [f"{i} % 2 == 0", f"{i} > 0", f"{i} == 1"]
        if not forms:
            return "True"
        c = r.choice(forms)
        if r.random() < 0.15:
            c2 = self.cond(env, ctx)
            c = f"{c} {r.choice(['and', 'or'])} {c2}"
            self.feat("boolop")
        elif r.random() < 0.05:
            c = f"not ({c})"
        if self.ev(f"bool({c})", env, self._loopvals(ctx)) is None:
            # ev rejects non-float results: check truthiness directly
            try:
                loc = {k: v.val for k, v in env.items()}
                loc.update(self._loopvals(ctx))
                with np.errstate(all="ignore"):
                    bool(eval(c, self.ns, loc))
            except Exception:
                return "True"
        return c

    # -- statements ------------------------------------------------------------
    def block(self, env, ctx, n):
        """Up to ``n`` statements; returns (lines, returned) where lines are
        (indent, text) pairs relative to the block."""
        out = []
        for _ in range(n):
            lines, ret = self.stmt(env, ctx)
            out += lines
            if ret:
                return out, True
        return out, False

    def stmt(self, env, ctx):
        r = self.r
        kinds = ["assign"] * 10 + ["reassign"] * 5 + ["aug"] * 4 + ["unpack"] * 2
        kinds += ["setitem"] * 3 + ["dict"] + ["tuple"]
        if ctx.depth < 2:
            kinds += ["if"] * 4 + ["for"] * 3 + ["while"] + ["listbuild"] * 2 + ["accum"] * 2
            kinds += ["rows", "monotone_while", "index_loop"]
        if any(h[2][0] == "tuple" for h in self.helpers):
            kinds += ["callunpack"] * 2
        if ctx.fn == "main" and ctx.depth == 0:
            kinds += ["closure", "param_inplace"]
        if ctx.fn == "main":
            kinds += ["const", "while_true"]
        if ctx.can_jump:
            kinds += ["jump"] * 2
        if ctx.depth >= 1 or ctx.loop:
            kinds += ["return"]
        k = r.choice(kinds)
        fn = getattr(self, "s_" + k)
        res = fn(env, ctx)
        if res is None:
            return self.s_assign(env, ctx), False
        return res if isinstance(res, tuple) else (res, False)

    def _set(self, env, ctx, name, val, mut, kind="val"):
        env[name] = Var(val, mut, kind)

    def s_assign(self, env, ctx):
        code, val, mut = self.expr(env, ctx)
        name = self.fresh()
        self._set(env, ctx, name, val, mut)
        return [(0, f"{name} = {code}")]

    def s_reassign(self, env, ctx):
        names = self.vals(env)
        if not names:
            return None
        n = self.r.choice(names)
        old = env[n]
        sub = dict(env)
        if n in ctx.frozen:
            code, val, mut = self.expr_of(tkey(old.val), env, ctx)
            if old.mut and not mut:
                return None   # a loop-carried variable must stay safe to change in place
        else:
            code, val, mut = self.expr(env, ctx)
        del sub
        self._set(env, ctx, n, val, mut)
        self.feat("reassign")
        return [(0, f"{n} = {code}")]

    def s_aug(self, env, ctx):
        names = self.vals(env)
        if not names:
            return None
        n = self.r.choice(names)
        v = env[n]
        op = self.r.choice(["+=", "-=", "*=", "+=", "/="])
        code, val, mut = self.expr(env, ctx)
        if op == "/=":
            code = f"2.0 + np.cos({code})" if type(val) is not float else \
                f"2.0 + math.cos({code})"
        inplace = isinstance(v.val, np.ndarray)
        if inplace and not v.mut:
            return None
        new = self.ev(f"{n} {op[0]} {_paren(code)}", env, self._loopvals(ctx))
        if new is None or tkey(new) != tkey(v.val):
            return None
        if inplace and np.shape(new) != np.shape(v.val):
            return None
        if op == "*=" and self.r.random() < 0.5:
            code = f"np.tanh({code})" if type(val) is not float else f"math.tanh({code})"
            new = self.ev(f"{n} * {code}", env, self._loopvals(ctx))
            if new is None or tkey(new) != tkey(v.val):
                return None
        self.feat("augassign")
        env[n] = Var(new, v.mut)
        return [(0, f"{n} {op} {code}")]

    def s_unpack(self, env, ctx):
        c1, v1, m1 = self.expr(env, ctx)
        c2, v2, m2 = self.expr(env, ctx)
        a, b = self.fresh(), self.fresh()
        form = self.r.random()
        self.feat("unpack")
        if form < 0.5:
            env[a] = Var(v1, m1)
            env[b] = Var(v2, m2)
            return [(0, f"{a}, {b} = {c1}, {c2}")]
        if form < 0.75:
            t = self.fresh("t")
            env[a] = Var(v1, False)
            env[b] = Var(v2, False)
            env[t] = Var((v1, v2), False, "tuple")
            return [(0, f"{t} = ({c1}, {c2})"), (0, f"{a}, {b} = {t}")]
        # swap two variables of the same type
        names = [n for n in self.vals(env)]
        pairs = [(p, q) for p in names for q in names if p < q and
                 tkey(env[p].val) == tkey(env[q].val)]
        if not pairs:
            env[a] = Var(v1, m1)
            env[b] = Var(v2, m2)
            return [(0, f"{a}, {b} = {c1}, {c2}")]
        p, q = self.r.choice(pairs)
        if ctx.frozen and env[p].mut != env[q].mut:
            return None   # a loop would carry an alias of an argument into the other name
        env[p], env[q] = env[q], env[p]
        self.feat("swap")
        return [(0, f"{p}, {q} = {q}, {p}")]

    def s_setitem(self, env, ctx):
        """``y = v.copy(); y[idx] = e`` (or ``y[idx] += e``) on an array we own."""
        r = self.r
        cands = [n for n in self.vals(env) if isinstance(env[n].val, np.ndarray) and
                 env[n].val.ndim >= 1]
        if not cands:
            return None
        lines = []
        own = [n for n in cands if env[n].mut and r.random() < 0.5]
        if own:
            y = r.choice(own)
        else:
            src = r.choice(cands)
            y = self.fresh("y")
            form = r.choice(["{}.copy()", "np.array({})", "np.copy({})", "{} * 1.0"])
            lines.append((0, f"{y} = {form.format(src)}"))
            env[y] = Var(np.array(env[src].val, dtype=np.float64), True)
        sh = env[y].val.shape
        n0 = sh[0]
        idxs = [f"{r.randrange(-n0, n0)}", f"{r.randrange(n0)}:", f":{r.randrange(1, n0 + 1)}",
                f"[{r.randrange(n0)}, {r.randrange(n0)}]"]
        if ctx.loopvars:
            i, _ = r.choice(ctx.loopvars)
            idxs.append(f"{i} % {n0}")
        if len(sh) == 2:
            n1 = sh[1]
            idxs += [f":, {r.randrange(n1)}", f"{r.randrange(n0)}, {r.randrange(-n1, n1)}",
                     f"{r.randrange(n0)}, :"]
        if r.random() < 0.1:
            idxs = [f"{y} > 0.0"]       # a boolean mask of y itself
            self.feat("setitem_mask")
        idx = r.choice(idxs)
        target = self.ev(f"{y}[{idx}]", env, self._loopvals(ctx))
        if target is None:
            return lines or None
        for _ in range(10):
            code, val, mut = self.expr(env, ctx)
            try:
                if np.broadcast_shapes(np.shape(val), np.shape(target)) == np.shape(target):
                    break
            except ValueError:
                pass
        else:
            code = r.choice(CONSTS)
        op = "=" if r.random() < 0.7 else r.choice(["+=", "-=", "*="])
        if idx.startswith("[") and op != "=":
            op = "="     # y[[0, 0]] += v adds once (NumPy semantics): keep it simple
        lines.append((0, f"{y}[{idx}] {op} {code}"))
        self.feat("setitem" + ("_aug" if op != "=" else ""))
        # the value after the change (same type)
        env[y] = Var(env[y].val, env[y].mut)
        return lines

    def s_dict(self, env, ctx):
        d = self.fresh("d")
        keys = ["a", "b", "c"][: self.r.randint(1, 3)]
        items, val = [], {}
        for k in keys:
            code, v, m = self.expr(env, ctx)
            items.append(f"{k!r}: {code}")
            val[k] = v
        env[d] = Var(val, False, "dict")
        lines = [(0, f"{d} = {{{', '.join(items)}}}")]
        self.feat("dict")
        if self.r.random() < 0.4:
            k = self.r.choice(keys + ["z"])
            code, v, m = self.expr(env, ctx)
            lines.append((0, f"{d}[{k!r}] = {code}"))
            val[k] = v
            self.feat("dict_setitem")
        return lines

    def s_tuple(self, env, ctx):
        t = self.fresh("t")
        items, val = [], []
        for _ in range(self.r.randint(2, 3)):
            code, v, m = self.expr(env, ctx)
            items.append(code)
            val.append(v)
        env[t] = Var(tuple(val), False, "tuple")
        self.feat("tuple")
        return [(0, f"{t} = ({', '.join(items)},)")]

    def _frozen_env(self, env, ctx):
        return ctx.frozen | frozenset(env)

    def s_if(self, env, ctx):
        r = self.r
        cond = self.cond(env, ctx)
        inner = ctx.inner(depth=ctx.depth + 1, frozen=self._frozen_env(env, ctx))
        e1 = dict(env)
        body, ret1 = self.block(e1, inner, r.randint(1, 3))
        lines = [(0, f"if {cond}:")] + [(i + 1, t) for i, t in body]
        self.feat("if")
        if ctx.depth == 0 and ctx.fn == "main" and not ret1 and r.random() < 0.2:
            # an early return, then the rest of the function
            lines.append((1, f"return {self.scalar_expr(e1, ctx)}"))
            self.feat("early_return")
            return lines
        if ret1 and r.random() < 0.5:
            return lines     # the rest of the code runs when the condition is false
        e2 = dict(env)
        orelse = []
        ret2 = False
        if r.random() < 0.75:
            new = [n for n in e1 if n not in env and e1[n].kind == "val"]
            if r.random() < 0.3:
                c2 = self.cond(env, ctx)
                self.feat("elif")
                e3 = dict(env)
                b3, _ = self.block(e3, inner, r.randint(1, 2))
                orelse = [(0, f"elif {c2}:")] + [(i + 1, t) for i, t in b3]
                # only names both branches define are kept: keep it simple
                for n in list(e3):
                    if n not in env:
                        del e3[n]
            else:
                b2, ret2 = self.block(e2, inner, r.randint(0, 2))
                if not ret2:
                    for n in new:
                        if ret1:
                            break
                        code, v, m = self.expr_of(tkey(e1[n].val), e2, inner)
                        b2.append((0, f"{n} = {code}"))
                        e2[n] = Var(v, m and e1[n].mut)
                if b2:
                    orelse = [(0, "else:")] + [(i + 1, t) for i, t in b2]
        if orelse and orelse[0][1].startswith("elif"):
            lines += orelse
            merged = {n: e1[n] for n in env}
        else:
            lines += orelse
            if ret1 and ret2:
                return lines, True
            if ret1:
                merged = e2
            elif ret2:
                merged = e1
            else:
                merged = {}
                for n in set(e1) & set(e2):
                    a, b = e1[n], e2[n]
                    if a.kind != b.kind:
                        continue
                    if a.kind == "val" and tkey(a.val) != tkey(b.val):
                        continue
                    merged[n] = Var(a.val, a.mut and b.mut, a.kind)
        for n in list(env):
            if n not in merged:
                del env[n]
        env.update(merged)
        return lines

    def _loop_body(self, env, ctx, loopvars, header, extra_env=None):
        r = self.r
        inner = ctx.inner(depth=ctx.depth + 1, loop=True, frozen=self._frozen_env(env, ctx),
                          loopvars=ctx.loopvars + tuple(loopvars), can_jump=True)
        e1 = dict(env)
        if extra_env:
            e1.update(extra_env)
        body, ret = self.block(e1, inner, r.randint(1, 4))
        lines = [(0, header)] + [(i + 1, t) for i, t in body]
        for n in list(env):
            if n in e1 and e1[n].kind == env[n].kind == "val":
                env[n] = Var(env[n].val, env[n].mut and e1[n].mut)
        return lines

    def s_for(self, env, ctx):
        r = self.r
        i = self.fresh("i")
        k = r.randint(1, 4)
        form = r.choice(["range({k})", "range({k})", "range(1, {k1})", "range({k1} - 1, -1, -1)",
                         "range(0, {k2}, 2)"])
        header = f"for {i} in {form.format(k=k, k1=k + 1, k2=2 * k)}:"
        self.feat("for_range")
        return self._loop_body(env, ctx, [(i, k)], header)

    def s_rows(self, env, ctx):
        """for row in v / for j, row in enumerate(v) / for a, b in zip(v, w)."""
        r = self.r
        cands = [n for n in self.vals(env) if isinstance(env[n].val, np.ndarray) and
                 env[n].val.ndim >= 1]
        lists = [n for n, v in env.items() if v.kind in ("list", "tuple") and
                 all(isinstance(x, (float, np.floating, np.ndarray)) for x in v.val)]
        if not cands and not lists:
            return None
        row = self.fresh("row")
        form = r.random()
        if lists and form < 0.3:
            s = r.choice(lists)
            item = env[s].val[0]
            if not all(tkey(x) == tkey(item) for x in env[s].val):
                return None
            self.feat("for_list")
            return self._loop_body(env, ctx, [], f"for {row} in {s}:",
                                   {row: Var(item, False)})
        if not cands:
            return None
        v = r.choice(cands)
        item = env[v].val[0]
        if form < 0.6:
            self.feat("for_array")
            return self._loop_body(env, ctx, [], f"for {row} in {v}:", {row: Var(item, False)})
        if form < 0.8:
            j = self.fresh("j")
            self.feat("for_enumerate")
            return self._loop_body(env, ctx, [(j, len(env[v].val))],
                                   f"for {j}, {row} in enumerate({v}):", {row: Var(item, False)})
        others = [w for w in cands if w != v]
        if not others:
            return None
        w = r.choice(others)
        row2 = self.fresh("row")
        self.feat("for_zip")
        return self._loop_body(env, ctx, [], f"for {row}, {row2} in zip({v}, {w}):",
                               {row: Var(item, False), row2: Var(env[w].val[0], False)})

    def s_while(self, env, ctx):
        r = self.r
        k = self.fresh("k")
        bound = r.randint(1, 4)
        cond = self.cond(env, ctx)
        inner = ctx.inner(depth=ctx.depth + 1, loop=True, frozen=self._frozen_env(env, ctx),
                          can_jump=True)
        e1 = dict(env)
        body, _ = self.block(e1, inner, r.randint(1, 3))
        self.feat("while")
        lines = [(0, f"{k} = 0"), (0, f"while {k} < {bound} and ({cond}):"), (1, f"{k} += 1")]
        lines += [(i + 1, t) for i, t in body]
        for n in list(env):
            if n in e1 and e1[n].kind == "val" and env[n].kind == "val":
                env[n] = Var(env[n].val, env[n].mut and e1[n].mut)
        return lines

    def s_listbuild(self, env, ctx):
        r = self.r
        lst = self.fresh("lst")
        code0, v0, _ = self.expr(env, ctx)
        if type(v0) is float:
            v0 = v0
        lines = [(0, f"{lst} = [{code0}]")]
        i = self.fresh("i")
        k = r.randint(1, 3)
        lines.append((0, f"for {i} in range({k}):"))
        ictx = ctx.inner(depth=ctx.depth + 1, loop=True, loopvars=ctx.loopvars + ((i, k),),
                         frozen=self._frozen_env(env, ctx))
        e1 = dict(env)
        body, _ = self.block(e1, ictx, r.randint(0, 2)) if r.random() < 0.5 else ([], False)
        code, val, _ = self.expr_of(tkey(v0), e1, ictx)
        cond_append = r.random() < 0.2
        body_lines = [(1 + d, t) for d, t in body]
        if cond_append:
            c = self.cond(e1, ictx)
            body_lines += [(1, f"if {c}:"), (2, f"{lst}.append({code})")]
        else:
            body_lines.append((1, f"{lst}.append({code})"))
        lines += body_lines
        for n in list(env):
            if n in e1 and e1[n].kind == env[n].kind == "val":
                env[n] = Var(env[n].val, env[n].mut and e1[n].mut)
        self.feat("list_append")
        out = self.fresh()
        n_items = 1 + k
        items = [v0] * n_items
        if cond_append:
            form = r.choice(["sum({})", "np.sum(np.stack({}), axis=0)"])
            if form.startswith("np") and type(v0) is float:
                form = "sum({})"
        else:
            forms = ["np.stack({})", "sum({})", "np.sum(np.stack({}), axis=0)",
                     "np.mean(np.stack({}), axis=0)", "np.array({})"]
            if isinstance(v0, np.ndarray) and v0.ndim >= 1:
                forms += ["np.concatenate({})"]
            form = r.choice(forms)
            env[lst] = Var(items, False, "list")
        self.feat("list_" + form.split("(")[0])
        with np.errstate(all="ignore"):
            val = eval(form.format("items"), {"np": np}, {"items": items})
        if type(val) is not float and not isinstance(val, np.ndarray):
            val = np.float64(val)
        if isinstance(val, int):
            val = float(val)
        if not ok_value(val):
            return lines
        env[out] = Var(val, True)
        lines.append((0, f"{out} = {form.format(lst)}"))
        return lines

    def s_accum(self, env, ctx):
        r = self.r
        acc = self.fresh("acc")
        i = self.fresh("i")
        k = r.randint(1, 4)
        ictx = ctx.inner(depth=ctx.depth + 1, loop=True, loopvars=ctx.loopvars + ((i, k),),
                         frozen=self._frozen_env(env, ctx))
        e1 = dict(env)
        code, val, _ = self.expr(e1, ictx)
        init = r.choice(["0.0", "0", "0.0 * {}"])
        if "{}" in init:
            init = init.format(code) if False else "0.0"
        lines = [(0, f"{acc} = {init}"), (0, f"for {i} in range({k}):")]
        guarded = r.random() < 0.3
        op = r.choice(["{a} = {a} + {e}", "{a} += {e}", "{a} = {e} + {a}"])
        if guarded:
            c = self.cond(e1, ictx)
            lines += [(1, f"if {c}:"), (2, op.format(a=acc, e=code))]
            out = self.fresh()
            lines.append((0, f"{out} = np.sum({acc})"))
            env[out] = Var(np.float64(0.5), True)
        else:
            lines += [(1, op.format(a=acc, e=code))]
            env[acc] = Var(val + 0.0 if isinstance(val, np.ndarray) else val, True)
        self.feat("accumulate")
        return lines

    def s_callunpack(self, env, ctx):
        hs = [h for h in self.helpers if h[2][0] == "tuple"]
        name, ptypes, rt, _ = self.r.choice(hs)
        args = self.call_args(ptypes, env)
        if args is None:
            return None
        a, b = self.fresh(), self.fresh()
        val = self.ev(f"{name}({args})", env, self._loopvals(ctx)) if False else None
        try:
            loc = {k: v.val for k, v in env.items()}
            loc.update(self._loopvals(ctx))
            with np.errstate(all="ignore"):
                val = eval(f"{name}({args})", self.ns, loc)
        except Exception:
            return None
        if not (isinstance(val, tuple) and len(val) == 2 and all(ok_value(x) for x in val)):
            return None
        env[a] = Var(val[0], False)
        env[b] = Var(val[1], False)
        self.feat("helper_tuple_unpack")
        return [(0, f"{a}, {b} = {name}({args})")]

    def s_closure(self, env, ctx):
        """A function defined inside f, reading one of f's variables (inlined)."""
        names = self.vals(env)
        if not names:
            return None
        cap = self.r.choice(names)
        g = self.fresh("g")
        u = self.fresh("u")
        sub = {u: Var(self.standin(tkey(env[cap].val)), False), cap: env[cap]}
        code, val, _ = self.expr(sub, Ctx(fn="helper"))
        arg = self.r.choice([n for n in names if tkey(env[n].val) == tkey(env[cap].val)])
        out = self.fresh()
        res = self.ev(code, {u: env[arg], cap: env[cap]})
        if res is None:
            return None
        env[out] = Var(res, False)
        self.feat("closure")
        return [(0, f"def {g}({u}):"), (1, f"return {code}"), (0, f"{out} = {g}({arg})")]

    def s_monotone_while(self, env, ctx):
        """``while s < bound``: s grows by at least 0.3 a trip (a data-dependent count)."""
        names = self.vals(env)
        scal = [n for n in names if np.ndim(env[n].val) == 0]
        if not scal:
            return None
        src = self.r.choice(scal)
        s_ = self.fresh("s")
        k = self.r.choice(["1.0", "1.5", "2.5"])
        lines = [(0, f"{s_} = 0.0"), (0, f"while {s_} < {k}:"),
                 (1, f"{s_} = {s_} + abs({src}) * 0.5 + 0.3")]
        inner = ctx.inner(depth=ctx.depth + 1, loop=True, frozen=self._frozen_env(env, ctx))
        e1 = dict(env)
        body, _ = self.block(e1, inner, self.r.randint(0, 2))
        lines += [(d + 1, t) for d, t in body]
        for n in list(env):
            if n in e1 and e1[n].kind == "val" and env[n].kind == "val":
                env[n] = Var(env[n].val, env[n].mut and e1[n].mut)
        env[s_] = Var(float(k) if type(env[src].val) is float else np.float64(float(k)), True)
        self.feat("monotone_while")
        return lines

    def s_index_loop(self, env, ctx):
        """``for i in range(len(v))``: reads v[i] (and maybe writes a copy's y[i])."""
        cands = [n for n in self.vals(env) if isinstance(env[n].val, np.ndarray) and
                 env[n].val.ndim >= 1]
        if not cands:
            return None
        v = self.r.choice(cands)
        i = self.fresh("i")
        bound = self.r.choice([f"len({v})", f"{v}.shape[0]"])
        lines = [(0, f"for {i} in range({bound}):")]
        inner = ctx.inner(depth=ctx.depth + 1, loop=True, frozen=self._frozen_env(env, ctx),
                          loopvars=ctx.loopvars + ((i, len(env[v].val)),), can_jump=True)
        e1 = dict(env)
        row = self.fresh()
        e1[row] = Var(env[v].val[0], False)
        body, _ = self.block(e1, inner, self.r.randint(1, 3))
        lines.append((1, f"{row} = {v}[{i}]"))
        lines += [(d + 1, t) for d, t in body]
        for n in list(env):
            if n in e1 and e1[n].kind == "val" and env[n].kind == "val":
                env[n] = Var(env[n].val, env[n].mut and e1[n].mut)
        self.feat("range_len_loop")
        return lines

    def s_while_true(self, env, ctx):
        """``while True:`` ending by ``break`` after a few trips."""
        k = self.fresh("k")
        # no continue in the body: it would skip the break below (an endless loop)
        inner = ctx.inner(depth=ctx.depth + 1, loop=True, frozen=self._frozen_env(env, ctx),
                          can_jump=False)
        e1 = dict(env)
        body, _ = self.block(e1, inner, self.r.randint(1, 2))
        c = self.cond(e1, inner)
        bound = self.r.randint(1, 3)
        lines = [(0, f"{k} = 0"), (0, "while True:"), (1, f"{k} += 1")]
        lines += [(d + 1, t) for d, t in body]
        lines += [(1, f"if {k} >= {bound} or ({c}):"), (2, "break")]
        for n in list(env):
            if n in e1 and e1[n].kind == "val" and env[n].kind == "val":
                env[n] = Var(env[n].val, env[n].mut and e1[n].mut)
        self.feat("while_true")
        return lines

    def s_param_inplace(self, env, ctx):
        """``x += e`` / ``x[i] = e`` on an array argument: Python changes the caller's
        array; srcgrad must compute the same value and gradient without doing so."""
        cands = [p for p in self.params if p in env and isinstance(env[p].val, np.ndarray)
                 and env[p].val.ndim >= 1 and tkey(env[p].val) == self.param_types[p]]
        if not cands:
            return None
        p = self.r.choice(cands)
        code, val, _ = self.expr_of(("a", ()), env, ctx) if self.r.random() < 0.5 else \
            self.expr_of(tkey(env[p].val), env, ctx)
        self.feat("param_inplace")
        self.mutates = True
        if self.r.random() < 0.5:
            return [(0, f"{p} += {code}")]
        return [(0, f"{p}[0] = {code}" if np.ndim(val) == 0 or np.ndim(env[p].val) > 1
                 and np.shape(val) == np.shape(env[p].val[0]) else f"{p} *= 0.5")]

    def s_const(self, env, ctx):
        """A module-level constant array (read as a constant)."""
        if not self.consts:
            return None
        c, val = self.r.choice(self.consts)
        out = self.fresh()
        cands = [n for n in self.vals(env) if isinstance(env[n].val, np.ndarray)]
        if not cands:
            return None
        n = self.r.choice(cands)
        form = self.r.choice(["{n} * {c}", "np.tanh({n} + {c})", "{n} - {c}"])
        code = form.format(n=n, c=c)
        res = self.ev(code, env, {c: val, **self._loopvals(ctx)})
        if res is None:
            return None
        env[out] = Var(res, True)
        self.feat("module_constant")
        return [(0, f"{out} = {code}")]

    def s_jump(self, env, ctx):
        c = self.cond(env, ctx)
        j = self.r.choice(["break", "continue"])
        self.feat(j)
        return [(0, f"if {c}:"), (1, j)]

    def s_return(self, env, ctx):
        if ctx.fn == "main":
            code = self.scalar_expr(env, ctx)
        else:
            code, _, _ = self.expr_of(ctx.rtype, env, ctx)
        c = self.cond(env, ctx)
        self.feat("return_in_" + ("loop" if ctx.loop else "branch"))
        return [(0, f"if {c}:"), (1, f"return {code}")]

    # -- functions ---------------------------------------------------------------
    def helper(self):
        r = self.r
        name = f"h{len(self.helpers)}"
        nparams = r.randint(1, 3)
        params, env = [], {}
        for j in range(nparams):
            t = ("f",) if r.random() < 0.25 else ("a", r.choice(SHAPES))
            p = f"p{j}"
            params.append((p, t))
            env[p] = Var(self.standin(t), False)
        sig = [p for p, _ in params]
        if r.random() < 0.3:
            # a float parameter with a default: callers leave it out or pass it by keyword
            p = f"p{nparams}"
            d = r.choice(CONSTS)
            params.append((p, ("f", "default")))
            env[p] = Var(float(d), False)
            sig.append(f"{p}={d}")
        ctx = Ctx(fn="helper")
        code, val, _ = self.expr(env, ctx)
        rt = tkey(val)
        ctx.rtype = rt
        tuple_ret = r.random() < 0.25
        body, ret = self.block(env, ctx, r.randint(0, 3)) if not tuple_ret else \
            self.block(env, ctx.inner(depth=2), r.randint(0, 2))
        lines = [f"def {name}({', '.join(sig)}):"]
        lines += ["    " * (1 + d) + t for d, t in body]
        if tuple_ret and not ret:
            c1, v1, _ = self.expr(env, ctx)
            c2, v2, _ = self.expr(env, ctx)
            lines.append(f"    return {c1}, {c2}")
            rt = ("tuple", (tkey(v1), tkey(v2)))
        elif not ret:
            code, val, _ = self.expr_of(rt, env, ctx)
            lines.append(f"    return {code}")
        src = "\n".join(lines) + "\n"
        ns = {}
        try:
            exec(compile(src, "<helper>", "exec"), self.ns, ns)
        except Exception:
            return
        self.ns[name] = ns[name]
        self.helpers.append((name, [t for _, t in params], rt, src))
        self.feat("helper")

    def main(self):
        r = self.r
        self.mutates = False
        self.consts = []
        for j in range(r.choice([0, 0, 1])):
            shape = r.choice([(3,), (2, 3), (2, 1)])
            vals = np.round(self.vrng.normal(size=shape), 2)
            self.consts.append((f"C{j}", vals))
            self.ns[f"C{j}"] = vals
        for _ in range(r.choice([0, 0, 1, 1, 2])):
            self.helper()
        nparams = r.randint(1, 3)
        params, env = [], {}
        for j, pname in enumerate(["x", "w", "a"][:nparams]):
            kind = "float" if r.random() < 0.25 else ("arr", r.choice(SHAPES))
            t = ("f",) if kind == "float" else ("a", kind[1])
            params.append((pname, kind))
            val = self.standin(t)
            if kind != "float" and kind[1] == ():
                val = np.array(val)
            env[pname] = Var(val, False)
        if r.random() < 0.1:
            params.append(("n", ("int", r.randint(1, 3))))
            self.feat("int_param")
        self.params = [p for p, _ in params]
        self.param_types = {p: tkey(env[p].val) for p, _ in params if p in env}
        ctx = Ctx(fn="main")
        body, ret = self.block(env, ctx, r.randint(3, 9))
        lines = [f"def f({', '.join(p for p, _ in params)}):"]
        if r.random() < 0.2:
            lines.append('    """A generated function."""')
            self.feat("docstring")
        if any(p == "n" for p, _ in params):
            lines.append("    for _i in range(n):")
            lines.append("        x = x * 0.9 + 0.1" if params[0][1] == "float" or
                         params[0][1][1] == () else "        x = np.tanh(x)")
            env["x"] = Var(env["x"].val, False)
        lines += ["    " * (1 + d) + t for d, t in body]
        if not ret:
            lines.append(f"    return {self.scalar_expr(env, ctx)}")
        src = "import math\n\nimport numpy as np\n\n"
        for c, val in self.consts:
            src += f"{c} = np.array({val.tolist()!r})\n"
        src += "\n\n"
        for _, _, _, hs in self.helpers:
            src += hs + "\n\n"
        src += "\n".join(lines) + "\n"
        prog = Program(src, params, self.seed, set(self.features))
        prog.mutates = self.mutates
        return prog


def _paren(code):
    return code if _is_name(code) or _is_number(code) else f"({code})"


def _is_name(code):
    return code.isidentifier()


def _is_number(code):
    try:
        float(code)
        return not code.startswith("-")
    except ValueError:
        return False


def generate(seed):
    return _Gen(seed).main()


if __name__ == "__main__":
    import sys
    for s in sys.argv[1:] or ["0"]:
        p = generate(int(s))
        print(f"# seed {s}: params {p.params}\n{p.source}")
