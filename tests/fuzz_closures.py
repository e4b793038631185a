"""Random programs of functional Python, for fuzzing srcgrad (the idiom fuzzer's third mode).

tests/fuzz_idioms.py writes containers, helpers, closures and views; this generator
adds (on top of those snippets, which it still draws, less often) the constructs that
hide a loop or a function: list / dict / set comprehensions and generator expressions
(nested, with ``if``, over ``zip``, ``enumerate``, ``range`` and lists of ``(W, b)``
pairs, as arguments of ``sum``, ``max``, ``np.stack``...), lambdas assigned, passed
and called at once, ``map`` / ``filter`` / ``functools.reduce``, ``sorted`` / ``max`` /
``min`` with ``key=``; function values (module-level factories returning closures,
closures calling closures, function-valued parameters and defaults, lists and dicts
of functions, ``functools.partial``, methods of objects held in a list); varargs
(``*args`` / ``**kwargs`` helpers called with starred arguments, ``a, *rest = xs``,
``[*a, x]``, ``zip(*pairs)``); ``:=`` in conditions; ``with np.errstate(...)``;
``import`` inside the function; recursion (refused by srcgrad, with a located error).

Each snippet carries feature tags as in fuzz_idioms.py.  The tags of constructs that
srcgrad documents as refused (a function value holding a value that carries a
gradient, recursion) end in ``_refused``: tests/test_fuzz_idioms.py draws them in one
seed of four, like the idiom fuzzer's refused features.

    python tests/fuzz_closures.py SEED      # print one program
"""
import fuzz_idioms
from fuzz_idioms import CONSTS, _Gen


class Program(fuzz_idioms.Program):
    prefix = "fuzz_closure"      # module names of loaded programs


class _FunGen(_Gen):
    _files = [0]

    def run(self, body, helpers):
        """fuzz_idioms' stand-in run, from a file when the program calls srcgrad itself
        (srcgrad reads the source of what it differentiates)."""
        if "sg." not in "".join(body + helpers):
            return super().run(body, helpers)
        import importlib.util
        import os
        import tempfile
        import warnings
        import numpy as np
        if not hasattr(_FunGen, "_dir"):
            _FunGen._dir = tempfile.mkdtemp(prefix="srcgrad_fuzz_standin_")
        self._files[0] += 1
        name = f"fuzz_closure_standin_{self.seed}_{self._files[0]}"
        path = os.path.join(_FunGen._dir, name + ".py")
        with open(path, "w") as fh:
            fh.write(self.source(body, helpers, "locals()"))
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            with np.errstate(all="raise"), warnings.catch_warnings():
                warnings.simplefilter("error")
                spec.loader.exec_module(mod)
                env = mod.f(*self.standins())
        except Exception:
            return None
        if not all(fuzz_idioms._tame(v) for v in env.values()):
            return None
        return env

    def source(self, body, helpers, ret):
        src = "import functools\n\nimport numpy as np\n\nimport srcgrad as sg\n\n\n"
        for h in helpers:
            src += h + "\n\n\n"
        src += f"def f({', '.join(p for p, _ in self.params)}):\n"
        src += "".join("    " + ln + "\n" for ln in body)
        src += f"    return {ret}\n"
        return src

    # -- small pieces ------------------------------------------------------------
    def fn_body(self, t="t"):
        """A smooth expression of one variable ``t`` (no other active value)."""
        r = self.r
        return r.choice([f"np.sin({t}) * {r.choice(CONSTS)}", f"np.tanh({t}) + {t} * {t}",
                         f"{t} * {r.choice(CONSTS)} + np.cos({t})", f"{t} * {t} * 0.5",
                         f"np.sin({t}) * {t}"])

    def arr_list(self, n=None):
        """(code of a list literal, a name of it, lines): arrays of one shape."""
        a = self.r.choice(self.arrays())
        n = n or self.r.randint(2, 3)
        items = [self.ar(a) for _ in range(n)]
        lst = self.fresh("l")
        return [f"{lst} = [{', '.join(items)}]"], lst, a

    def sc_list(self, n=3):
        lst = self.fresh("l")
        return [f"{lst} = [{', '.join(self.sc() for _ in range(n))}]"], lst

    def reduce_to_scalar(self, v):
        return self.r.choice([f"np.sum({v})", f"np.sum(np.sin({v}))", f"np.mean({v} * {v})"])

    # -- comprehensions ------------------------------------------------------------
    def s_comp(self):
        r = self.r
        out, t, u, i = self.fresh(), self.fresh("t"), self.fresh("u"), self.fresh("i")
        lines, l1, a = self.arr_list()
        form = r.choice(["sum_gen", "list_if_index", "list_if_data", "nested", "nested_if",
                         "nested_list", "zip", "enumerate", "range", "wb_pairs", "dict",
                         "dict_items", "set_floats", "stack", "concatenate", "np_array",
                         "max_gen", "tuple_gen", "dict_call", "sum_list_of_lists"])
        body = self.fn_body(t)
        if form == "sum_gen":
            lines.append(f"{out} = sum({self.reduce_to_scalar(body)} for {t} in {l1})")
        elif form == "list_if_index":
            lines += [f"{u} = [{body} for {i}, {t} in enumerate({l1}) if {i} != 1]",
                      f"{out} = sum({u})"]
        elif form == "list_if_data":
            lines += [f"{u} = [{body} for {t} in {l1} if np.sum({t}) > "
                      f"{r.choice(['0.0', '-0.5', '0.5'])}]",
                      f"{out} = sum({u}) + np.sum({l1}[0]) * 0.5"]
        elif form in ("nested", "nested_if"):
            lines2, l2, _ = self.arr_list()
            lines += lines2
            cond = f" if np.sum({t} * {u}) < 2.0" if form == "nested_if" else ""
            lines.append(f"{out} = sum(np.sum({t} * np.sin({u})) for {t} in {l1} "
                         f"for {u} in {l2}{cond}) + 0.0")
        elif form == "nested_list":
            lines += [f"{u} = [[{t} * c for c in ({r.choice(CONSTS)}, {r.choice(CONSTS)})]"
                      f" for {t} in {l1}]",
                      f"{out} = sum(np.sum(np.tanh(q)) for row in {u} for q in row)"]
        elif form == "zip":
            lines2, l2, _ = self.arr_list()
            lines += lines2
            lines.append(f"{out} = sum([np.sum({t} * np.cos({u})) for {t}, {u} in "
                         f"zip({l1}, {l2})])")
        elif form == "enumerate":
            lines.append(f"{out} = np.sum([({i} + 1.0) * {t} for {i}, {t} in "
                         f"enumerate({l1})], axis=0)")
        elif form == "range":
            lines.append(f"{out} = [{self.ar(a)} * ({i} + 0.5) for {i} in range(3)][-1] + "
                         f"sum({l1}[{i}] for {i} in range(len({l1})))")
        elif form == "wb_pairs":
            s1, s2 = self.sc(), self.sc()
            ps, h, W, b = self.fresh("params"), self.fresh("h"), self.fresh("W"), self.fresh("b")
            lines += [f"{ps} = [({l1}[0], {s1}), ({l1}[1], {s2})]",
                      f"{h} = {self.ar(a)}",
                      f"{out} = sum(np.sum(np.tanh({W} * {h} + {b})) for {W}, {b} in {ps})"]
        elif form == "dict":
            d = self.fresh("d")
            lines += [f"{d} = {{k: {body} for k, {t} in zip(('a', 'b'), {l1})}}",
                      f"{out} = {d}['a'] * {d}['b']"]
        elif form == "dict_items":
            d, e = self.fresh("d"), self.fresh("e")
            lines += [f"{d} = {{'a': {l1}[0], 'b': {l1}[1]}}",
                      f"{e} = {{k: v * 2.0 for k, v in {d}.items() if k != 'b'}}",
                      f"{out} = sum(np.sum(v) for v in {e}.values()) + np.sum({d}['b'])"]
        elif form == "set_floats":
            lines2, l2 = self.sc_list()
            lines = lines2
            lines.append(f"{out} = sum({{float({t}) * 2.0 for {t} in {l2}}})")
        elif form == "stack":
            lines.append(f"{out} = np.stack([{body} for {t} in {l1}]" +
                         r.choice(["", ", axis=-1"]) + ")")
        elif form == "concatenate":
            lines.append(f"{out} = np.concatenate([np.atleast_1d({body}) for {t} in {l1}])")
        elif form == "np_array":
            lines.append(f"{out} = np.array([np.sum({body}) for {t} in {l1}])")
        elif form == "max_gen":
            lines.append(f"{out} = {r.choice(['max', 'min'])}(np.sum({body}) for {t} in {l1})")
        elif form == "tuple_gen":
            lines += [f"{u} = tuple({body} for {t} in {l1})", f"{out} = {u}[0] * {u}[-1]"]
        elif form == "dict_call":
            d = self.fresh("d")
            lines += [f"{d} = dict((k, {body}) for k, {t} in zip('ab', {l1}))",
                      f"{out} = {d}['a'] + {d}['b']"]
        else:
            lines.append(f"{out} = sum([[np.sum({t})] * 2 for {t} in {l1}], [])[1]")
        return lines, [], out, {"comp_" + form}

    # -- lambdas and functional builtins -------------------------------------------
    def s_lambda(self):
        r = self.r
        out, g = self.fresh(), self.fresh("g")
        e1, e2 = self.ex(), self.ex()
        form = r.choice(["assigned", "assigned_capture", "two_args", "default",
                         "immediate", "passed", "passed_capture", "returned_by_helper"])
        lines, helpers = [], []
        if form == "assigned":
            lines += [f"{g} = lambda t: {self.fn_body('t')}", f"{out} = {g}({e1}) + {g}({e2})"]
        elif form == "assigned_capture":
            c = self.fresh("c")
            lines += [f"{c} = {self.sc()}", f"{g} = lambda t: t * {c} + np.sin({c})",
                      f"{out} = {g}({e1})"]
        elif form == "two_args":
            lines += [f"{g} = lambda p, q: p * np.sin(q) + q * {r.choice(CONSTS)}",
                      f"{out} = {g}({e1}, {e2})"]
        elif form == "default":
            lines += [f"{g} = lambda t, k={r.choice(CONSTS)}: t * k + np.tanh(t)",
                      f"{out} = {g}({e1}) + {g}({e2}, k=2.0)"]
        elif form == "immediate":
            lines.append(f"{out} = (lambda t: {self.fn_body('t')})({e1})")
        elif form in ("passed", "passed_capture"):
            h = self.fresh("apply")
            helpers.append(f"def {h}(fn, a):\n    return fn(a) + fn(a * 0.5)")
            if form == "passed":
                lines.append(f"{out} = {h}(lambda t: {self.fn_body('t')}, {e1})")
            else:    # the lambda holds an active value: srcgrad documents a refusal
                c = self.fresh("c")
                lines += [f"{c} = {self.sc()}", f"{out} = {h}(lambda t: t * {c}, {e1})"]
                form = "passed_capture_refused"
        else:
            h = self.fresh("make")
            helpers.append(f"def {h}(s):\n    return lambda t: {self.fn_body('t')} * s")
            lines.append(f"{out} = {h}({r.choice(CONSTS)})({e1})")
        return lines, helpers, out, {"lambda_" + form}

    def s_functional(self):
        r = self.r
        out, u = self.fresh(), self.fresh("u")
        lines, l1, a = self.arr_list()
        form = r.choice(["map_lambda", "map_ufunc", "map_helper", "map_two", "filter_lambda",
                         "filter_helper", "reduce_lambda", "reduce_init", "reduce_np_add",
                         "reduce_helper", "sorted_key", "sorted_key_reverse", "max_key",
                         "min_key", "max_key_ufunc", "sum_map"])
        helpers = []
        h = self.fresh("h")
        if form == "map_lambda":
            lines += [f"{u} = list(map(lambda t: {self.fn_body('t')}, {l1}))",
                      f"{out} = {u}[0] * {u}[-1]"]
        elif form == "map_ufunc":
            lines += [f"{u} = list(map({r.choice(['np.sin', 'np.tanh', 'np.exp'])}, {l1}))",
                      f"{out} = sum({u})"]
        elif form == "map_helper":
            helpers.append(f"def {h}(t):\n    return {self.fn_body('t')}")
            lines.append(f"{out} = sum(map({h}, {l1}))")
        elif form == "map_two":
            lines2, l2, _ = self.arr_list()
            lines += lines2
            lines.append(f"{out} = sum(map(lambda p, q: p * np.sin(q), {l1}, {l2}))")
        elif form == "filter_lambda":
            lines += [f"{u} = list(filter(lambda t: np.sum(t) > -1.0, {l1}))",
                      f"{out} = sum({u}) + {l1}[0]"]
        elif form == "filter_helper":
            helpers.append(f"def {h}(t):\n    return np.max(t) < 1.5")
            lines += [f"{u} = [np.sin(t) for t in filter({h}, {l1})]",
                      f"{out} = sum({u}, np.sum({l1}[-1]))"]
        elif form == "reduce_lambda":
            lines.append(f"{out} = functools.reduce(lambda acc, t: acc * 0.5 + np.sin(t), {l1})")
        elif form == "reduce_init":
            lines.append(f"{out} = functools.reduce(lambda acc, t: acc + np.sum(t * t), {l1}, "
                         f"{self.sc()})")
        elif form == "reduce_np_add":
            lines.append(f"{out} = functools.reduce(np.{r.choice(['add', 'multiply'])}, {l1})")
        elif form == "reduce_helper":
            helpers.append(f"def {h}(acc, t):\n    return acc * np.tanh(t) + t")
            lines.append(f"{out} = functools.reduce({h}, {l1})")
        elif form in ("sorted_key", "sorted_key_reverse"):
            rev = ", reverse=True" if form == "sorted_key_reverse" else ""
            lines += [f"{u} = sorted({l1}, key=lambda t: float(np.sum(t)){rev})",
                      f"{out} = {u}[0] * 2.0 + {u}[-1]"]
        elif form in ("max_key", "min_key"):
            fn = form.split("_")[0]
            lines.append(f"{out} = {fn}({l1}, key=lambda t: np.sum(np.sin(t))) * 1.5")
        elif form == "max_key_ufunc":
            lines.append(f"{out} = max({l1}, key=np.sum) + min({l1}, key=np.sum)")
        else:
            lines.append(f"{out} = sum(map(np.sum, {l1}))")
        return lines, helpers, out, {"fn_" + form}

    # -- function values -------------------------------------------------------------
    def s_factory(self):
        r = self.r
        out, g, mk = self.fresh(), self.fresh("g"), self.fresh("make")
        e1, e2 = self.ex(), self.ex()
        form = r.choice(["one", "two_calls", "pair", "closure_of_closure", "lambda",
                         "list_of_closures", "loop_defaults", "active_data"])
        lines, helpers = [], []
        c1, c2 = r.choice(CONSTS), r.choice(CONSTS)
        if form in ("one", "two_calls", "list_of_closures", "active_data"):
            helpers.append(f"def {mk}(c):\n    def inner(t):\n"
                           f"        return {self.fn_body('t')} * c\n    return inner")
            if form == "one":
                lines.append(f"{out} = {mk}({c1})({e1})")
            elif form == "two_calls":
                g2 = self.fresh("g")
                lines += [f"{g} = {mk}({c1})", f"{g2} = {mk}({c2})",
                          f"{out} = {g}({e1}) + {g2}({e2}) * {g}({e2})"]
            elif form == "list_of_closures":
                fs = self.fresh("fs")
                lines += [f"{fs} = [{mk}(k) for k in ({c1}, {c2}, 1.0)]",
                          f"{out} = sum(fn({e1}) for fn in {fs})"]
            else:     # the closure holds an active value: srcgrad documents a refusal
                lines += [f"{g} = {mk}({self.sc()})", f"{out} = {g}({e1})"]
                form = "active_data_refused"
        elif form == "pair":
            helpers.append(f"def {mk}(c):\n    def first(t):\n        return np.sin(t) * c\n\n"
                           f"    def second(t):\n        return first(t) * t + c\n"
                           f"    return first, second")
            a, b = self.fresh("g"), self.fresh("g")
            lines += [f"{a}, {b} = {mk}({c1})", f"{out} = {a}({e1}) + {b}({e2})"]
        elif form == "closure_of_closure":
            helpers.append(f"def {mk}(c):\n    def inner(t):\n        return np.tanh(t) * c\n\n"
                           f"    def outer(t):\n        return inner(inner(t)) + t\n"
                           f"    return outer")
            lines.append(f"{out} = {mk}({c1})({e1})")
        elif form == "lambda":
            helpers.append(f"def {mk}(c, d={c2}):\n    return lambda t: np.sin(t * c) + d * t")
            lines.append(f"{out} = {mk}({c1})({e1}) + {mk}({c2}, d={c1})({e2})")
        else:
            # the loop variable is ``k`` (the name the dict snippets loop with) in one
            # program of three: a loop with no derivative rebinding a name that earlier
            # adjoints read (tests/test_regressions_fuzz9.py)
            fs, k = self.fresh("fs"), "k" if r.random() < 0.33 else self.fresh("k")
            lines += [f"{fs} = []", f"for {k} in range(3):",
                      f"    def {g}(t, k={k}):", "        return t * (k + 0.5) + np.sin(t)",
                      f"    {fs}.append({g})", f"{out} = {fs}[2]({e1}) * {fs}[0]({e2})"]
            if k == "k":
                form = "loop_defaults_k"
        return lines, helpers, out, {"factory_" + form}

    def s_fnvalue(self):
        r = self.r
        out, h = self.fresh(), self.fresh("h")
        e1, e2 = self.ex(), self.ex()
        form = r.choice(["param_ufunc", "param_helper", "param_twice", "default",
                         "default_override", "list", "dict", "loop_index", "partial",
                         "partial_passed", "methods", "methods_active", "callable_object",
                         "grad_inside", "value_and_grad_inside"])
        lines, helpers = [], []
        uf = r.choice(["np.sin", "np.tanh", "np.cos"])
        if form in ("param_ufunc", "param_helper", "param_twice"):
            ap = self.fresh("apply")
            if form == "param_twice":
                helpers.append(f"def {ap}(fn, a):\n    return fn(fn(a)) * 0.5")
            else:
                helpers.append(f"def {ap}(fn, a, b):\n    return fn(a) * b + fn(b)")
            arg = uf
            if form == "param_helper":
                helpers.append(f"def {h}(t):\n    return {self.fn_body('t')}")
                arg = h
            lines.append(f"{out} = {ap}({arg}, {e1})" if form == "param_twice" else
                         f"{out} = {ap}({arg}, {e1}, {e2})")
        elif form in ("default", "default_override"):
            ly = self.fresh("layer")
            helpers.append(f"def {ly}(t, w={r.choice(CONSTS)}, act={uf}):\n"
                           f"    return act(t * w) + t")
            if form == "default":
                lines.append(f"{out} = {ly}({e1})")
            else:
                helpers.append(f"def {h}(t):\n    return {self.fn_body('t')}")
                lines.append(r.choice([f"{out} = {ly}({e1}, act={h})",
                                       f"{out} = {ly}({e1}, 2.0, np.sin)",
                                       f"{out} = {ly}({e1}, act=lambda t: t * t)"]))
        elif form in ("list", "dict", "loop_index"):
            helpers.append(f"def {h}(t):\n    return {self.fn_body('t')}")
            fs = self.fresh("fs")
            if form == "list":
                lines += [f"{fs} = [np.sin, {h}, {uf}]",
                          f"{out} = 0.0", f"for fn in {fs}:", f"    {out} = {out} + fn({e1})"]
            elif form == "dict":
                lines += [f"{fs} = {{'a': {uf}, 'b': {h}}}",
                          f"{out} = {fs}['a']({e1}) * {fs}['b']({e2})"]
            else:
                v = self.fresh("z")
                lines += [f"{fs} = ({h}, np.tanh)", f"{v} = {e1}", "for i in range(3):",
                          f"    {v} = {fs}[i % 2]({v}) + 0.5 * {v}", f"{out} = {v}"]
        elif form in ("partial", "partial_passed"):
            helpers.append(f"def {h}(t, s=1.0, u=0.0):\n    return np.sin(t) * s + u * t")
            pf = self.fresh("pf")
            lines.append(f"{pf} = functools.partial({h}, s={r.choice(CONSTS)})")
            if form == "partial":
                lines.append(f"{out} = {pf}({e1}) + {pf}({e2}, u=2.0)")
            else:
                ap = self.fresh("apply")
                helpers.append(f"def {ap}(fn, a):\n    return fn(a)")
                lines.append(f"{out} = {ap}({pf}, {e1})")
        elif form in ("methods", "methods_active"):
            cls, ls, z = self.fresh("Layer"), self.fresh("layers"), self.fresh("z")
            helpers.append(f"class {cls}:\n    def __init__(self, w):\n        self.w = w\n\n"
                           f"    def forward(self, t):\n        return np.tanh(t * self.w) + t"
                           f"\n\n    def __call__(self, t):\n        return self.forward(t) * 0.5")
            w1 = self.sc() if form == "methods_active" else r.choice(CONSTS)
            lines += [f"{ls} = [{cls}({w1}), {cls}({r.choice(CONSTS)})]", f"{z} = {e1}",
                      f"for lyr in {ls}:", f"    {z} = lyr.forward({z})",
                      f"{out} = {z} + {ls}[1]({e2})"]
            if form == "methods_active":
                form = "methods_active_refused"
        elif form in ("grad_inside", "value_and_grad_inside"):
            # srcgrad called inside the differentiated function (a derivative of a derivative)
            gf = self.fresh("gf")
            if form == "grad_inside":
                lines += [f"{gf} = sg.grad(lambda t: np.sum({self.fn_body('t')}))",
                          f"{out} = {gf}({e1}) * {e2}"]
            else:
                helpers.append(f"def {h}(t):\n    return np.sum({self.fn_body('t')})")
                v, d = self.fresh("val"), self.fresh("dv")
                lines += [f"{v}, {d} = sg.value_and_grad({h})({e1})",
                          f"{out} = {v} * 0.5 + np.sum({d} * {d})"]
        else:
            cls = self.fresh("Sq")
            helpers.append(f"class {cls}:\n    def __call__(self, t):\n        return t * t")
            ap = self.fresh("apply")
            helpers.append(f"def {ap}(fn, a):\n    return fn(a) + fn(a * 2.0)")
            lines.append(f"{out} = {ap}({cls}(), {e1})")
        return lines, helpers, out, {"fnvalue_" + form}

    # -- varargs and starred forms ------------------------------------------------------
    def s_star(self):
        r = self.r
        out, h = self.fresh(), self.fresh("h")
        form = r.choice(["call_star", "call_star_kw", "call_star_dict", "forwarding",
                         "unpack_rest", "unpack_mid", "literal", "literal_tuple",
                         "zip_star", "stack_star", "kwonly_star"])
        lines, helpers = [], []
        if form in ("call_star", "call_star_kw", "call_star_dict"):
            lines, l1, _ = self.arr_list() if r.random() < 0.5 else (*self.sc_list(), None)
            helpers.append(f"def {h}(*args, **kw):\n    acc = args[0]\n    for k in kw:\n"
                           f"        acc = acc * kw[k]\n    for a in args[1:]:\n"
                           f"        acc = acc + np.sin(a) * a\n    return acc")
            if form == "call_star":
                lines.append(f"{out} = {h}(*{l1})")
            elif form == "call_star_kw":
                lines.append(f"{out} = {h}({self.ex()}, *{l1}, s={self.sc()})")
            else:
                d = self.fresh("kw")
                lines += [f"{d} = {{'s': {self.sc()}}}", f"{out} = {h}(*{l1}, **{d})"]
        elif form == "forwarding":
            inner, wrap = self.fresh("h"), self.fresh("wrap")
            helpers += [f"def {inner}(p, q, scale=1.0):\n    return np.sin(p) * q * scale",
                        f"def {wrap}(*args, **kwargs):\n    return {inner}(*args, **kwargs) + 1.0"]
            lines.append(r.choice([f"{out} = {wrap}({self.ex()}, {self.ex()})",
                                   f"{out} = {wrap}({self.ex()}, {self.ex()}, scale=0.5)",
                                   f"{out} = {wrap}({self.ex()}, q={self.ex()})"]))
        elif form in ("unpack_rest", "unpack_mid"):
            lines, l1, _ = self.arr_list(3)
            a, rest = self.fresh("a"), self.fresh("rest")
            if form == "unpack_rest":
                lines += [f"{a}, *{rest} = {l1}", f"{out} = {a} * sum({rest})"]
            else:
                z = self.fresh("z")
                lines += [f"{a}, *{rest}, {z} = {l1}",
                          f"{out} = {a} * {z} + np.sum({rest}[0])"]
        elif form in ("literal", "literal_tuple"):
            lines, l1, a = self.arr_list()
            u = self.fresh("u")
            if form == "literal":
                lines += [f"{u} = [*{l1}, {self.ar(a)}]", f"{out} = {u}[-1] * {u}[0]"]
            else:
                lines2, l2, _ = self.arr_list()
                lines += lines2 + [f"{u} = (*{l1}, *{l2})",
                                   f"{out} = sum(np.sum(np.sin(t)) for t in {u})"]
        elif form == "zip_star":
            ps, qs, pairs = self.fresh("ps"), self.fresh("qs"), self.fresh("pairs")
            lines += [f"{pairs} = [({self.ex()}, {self.sc()}), ({self.ex()}, {self.sc()})]",
                      f"{ps}, {qs} = zip(*{pairs})",
                      f"{out} = sum({ps}) * {qs}[0] + {qs}[1]"]
        elif form == "stack_star":
            lines, l1, a = self.arr_list()
            lines.append(f"{out} = np.stack([*{l1}, {self.ar(a)}])")
        else:
            helpers.append(f"def {h}(*xs, scale=2.0):\n    return sum(xs) * scale")
            lines.append(f"{out} = {h}({self.ex()}, {self.ex()}, scale={self.sc()})")
        return lines, helpers, out, {"star_" + form}

    # -- statements -------------------------------------------------------------------
    def s_stmt(self):
        r = self.r
        out, m = self.fresh(), self.fresh("m")
        e1 = self.ex()
        form = r.choice(["walrus_if", "walrus_while_free", "walrus_comp", "errstate",
                         "errstate_multi", "import_inside", "from_import", "recursion"])
        lines, helpers = [], []
        if form == "walrus_if":
            lines += [f"if ({m} := {self.sc()}) > {r.choice(['0.0', '0.3', '-0.2'])}:",
                      f"    {out} = {m} * {e1}", "else:", f"    {out} = {e1} - {m}"]
        elif form == "walrus_while_free":
            lines += [f"{out} = ({m} := np.sin({self.sc()})) * {m} + {e1}"]
        elif form == "walrus_comp":
            lines2, l1, _ = self.arr_list()
            lines = lines2 + [f"{out} = sum([{m} * 2.0 for t in {l1} if "
                              f"({m} := np.sum(np.tanh(t))) > -5.0])"]
        elif form == "errstate":
            lines += [f"with np.errstate({r.choice(['all', 'divide', 'invalid'])}='ignore'):",
                      f"    {out} = np.sin({e1}) * 2.0"]
        elif form == "errstate_multi":
            lines += ["with np.errstate(divide='ignore', invalid='ignore'):",
                      f"    {m} = np.log(np.exp({e1}) + 1.0)", f"    {out} = {m} * {m}"]
        elif form == "import_inside":
            lines += ["import math", f"{out} = {e1} * math.cos({self.pyfloat()})"]
        elif form == "from_import":
            lines += ["from numpy import tanh as th", f"{out} = th({e1}) + 1.0"]
        else:     # srcgrad documents recursion as refused
            h = self.fresh("rec")
            helpers.append(f"def {h}(t, n):\n    if n == 0:\n        return t\n"
                           f"    return {h}(np.sin(t) * 0.9, n - 1)")
            lines.append(f"{out} = {h}({e1}, 2)")
            form = "recursion_refused"
        return lines, helpers, out, {"stmt_" + form}

    SNIPPETS = _Gen.SNIPPETS[:] + [("s_comp", 8), ("s_lambda", 5), ("s_functional", 6),
                                   ("s_factory", 5), ("s_fnvalue", 6), ("s_star", 5),
                                   ("s_stmt", 4)]

    def main(self):
        p = super().main()
        return Program(p.source, p.params, p.seed, p.features)


def generate(seed, disabled=()):
    return _FunGen(seed, disabled).main()


if __name__ == "__main__":
    import sys
    for s in sys.argv[1:] or ["0"]:
        p = generate(int(s))
        print(f"# seed {s}: params {p.params} features {sorted(p.features)}\n{p.source}")
