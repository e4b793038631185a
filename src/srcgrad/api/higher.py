"""Forward mode and higher derivatives: jvp, jacobian, hessian, hvp, gradcheck.

Thin operators over two primitives, each a generated function:

* forward mode, ``forward.forward_function(f, wrt)`` — ``(value, tangent)``;
* reverse mode, ``transform.reverse_function(f, wrt, "split")`` — ``(fwd, bwd)``.

A derivative made by srcgrad is itself a function with generated source, so
the operators compose: ``hessian`` is the forward-mode Jacobian of ``grad``,
``hvp`` the forward-mode JVP of ``grad`` (forward over reverse), and
``sg.grad(sg.grad(f))`` transforms the generated gradient again.
"""
import inspect
import types

import gast

import numpy as np

from .. import rules, runtime
from .gradients import (api_boundary, _Signature, _kind, _leaves, _resolve_wrt, _to_tensors,
                        _unwrap_tensors, grad, plain_function, vjp, refuse_generator,
                        refuse_unstructured, traced_function)
from ..compiler.modes.forward import _CACHE as _forward_cache, forward_function
from ..compiler.source import unwrap
from ..compiler.driver import reverse_function
from ..compiler.nested import fresh_record, holds_floats
from ..errors import NonDifferentiableError


# -- binding a call ------------------------------------------------------------

class _Call:
    """A call of ``f``: its bound arguments, the function to transform, and ``wrt``."""

    def __init__(self, f, args, kwargs, wrt=None, default_wrt=None):
        # a bound method (model.loss): its object is the first argument, never
        # differentiated; positions (wrt, tangents) count the visible parameters
        self.front = 0
        called_as_is = getattr(plain_function(f), "__srcgrad_called__", None) is f
        if isinstance(f, types.MethodType) and not called_as_is:
            args = (f.__self__,) + tuple(args)
            self.front = 1
            shift = (lambda w: w + 1 if isinstance(w, int) and w >= 0 else w)
            if isinstance(wrt, (int, tuple, list)):
                wrt = tuple(map(shift, wrt)) if isinstance(wrt, (tuple, list)) else shift(wrt)
            if isinstance(default_wrt, (int, tuple, list)):
                default_wrt = tuple(map(shift, default_wrt)) if isinstance(
                    default_wrt, (tuple, list)) else shift(default_wrt)
        refuse_generator(f)
        self.sig = _Signature(plain_function(f))
        bound = self.sig.bind(args, kwargs)
        self.bound, self.tensors = _unwrap_tensors(bound)
        self.func = traced_function(f, self.bound)
        self.kinds = {n: _kind(v) for n, v in self.bound.items()}
        names, single = _resolve_wrt(wrt if wrt is not None else default_wrt, self.sig,
                                     self.func)
        if names is None:
            names = _leaves(self.bound)
            single = len(names) == 1
        else:
            for n in names:
                refuse_unstructured(self.func, "the derivative", n, self.bound.get(n))
        self.wrt, self.single = names, single

    def run(self, fn, extra=None, bound=None):
        """Call a generated function with the bound arguments (and keyword extras)."""
        bound = self.bound if bound is None else bound
        extra = extra or {}
        if self.sig.simple:
            return fn(*bound.values(), **extra)
        b = inspect.BoundArguments(self.sig.sig, bound)
        return fn(*b.args, **b.kwargs, **extra)

    def out(self, value):
        return _to_tensors(value) if self.tensors else value


def _array(x):
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        return x.detach().numpy()
    return x


def _tangent_like(t, x, name):
    """A tangent for the primal ``x``, checked: the same structure and shapes, floats.

    Inside a container, None stands for a zero tangent."""
    t = _array(t)
    if isinstance(x, dict):
        if not isinstance(t, dict) or set(t) != set(x):
            raise ValueError(f"the tangent for {name!r} must be a dict with the keys {sorted(x)}")
        return {k: _tangent_like(t[k], x[k], f"{name}[{k!r}]") for k in x}
    if isinstance(x, (list, tuple)):
        if not isinstance(t, (list, tuple)) or len(t) != len(x):
            raise ValueError(f"the tangent for {name!r} must be a {type(x).__name__} of "
                             f"length {len(x)}")
        return runtime.same_sequence(x, [_tangent_like(ti, xi, f"{name}[{i}]")
                                         for i, (ti, xi) in enumerate(zip(t, x))])
    if runtime.is_record(x):
        if type(t) is not type(x):
            raise ValueError(f"the tangent for {name!r} must be a {type(x).__name__} "
                             f"(the argument's own class)")
        fields = runtime.fields_of(t)
        return runtime.fill_like({k: _tangent_like(fields.get(k), v, f"{name}.{k}")
                                  for k, v in runtime.fields_of(x).items()
                                  if runtime.carries_gradient(v)}, x)
    if t is None:
        return runtime.zeros_like(x)
    if np.shape(t) != np.shape(x):
        raise ValueError(f"the tangent for {name!r} has shape {np.shape(t)}, but the "
                         f"argument has shape {np.shape(x)}")
    if not hasattr(x, "shape"):
        return complex(t) if isinstance(x, complex) or isinstance(t, complex) else float(t)
    dtype = getattr(x, "dtype", None)
    if dtype is not None and runtime.dtype_kind(dtype) in "fc":
        return runtime.array_ns(x, t).asarray(t, dtype=dtype)   # on x's backend
    return np.asarray(t, dtype=float)


# -- forward mode ----------------------------------------------------------------

@api_boundary
def jvp(f, primals, tangents):
    """``(f(*primals), J @ tangents)`` by forward-mode source transformation.

    ``tangents`` has one entry per primal (None: no tangent), each the shape of
    its primal.  The output tangent has the structure of the output.
    """
    primals = tuple(primals) if isinstance(primals, (tuple, list)) else (primals,)
    tangents = tuple(tangents) if isinstance(tangents, (tuple, list)) else (tangents,)
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    call = _Call(f, primals, {}, wrt=())
    params = list(call.sig.sig.parameters.values())
    given, starred = {}, []
    for i, t in enumerate(tangents):
        j = i + call.front
        p = params[min(j, len(params) - 1)] if params else None
        if p is not None and p.kind is p.VAR_POSITIONAL:
            # primals that ``*args`` gathers: one tangent, a tuple (zeros for None)
            starred.append(runtime.zeros_like(primals[i]) if t is None else t)
            given[p.name] = tuple(starred)
        elif t is not None:
            given[params[j].name] = t
    out, dout = _forward(call, given)
    return call.out(out), call.out(dout)


_ADAPTERS = {}


def _inline_jvp(analysis, args, kws, stmt):
    """``sg.jvp(g, primals, tangents)`` inside a function srcgrad transforms.

    Becomes a call of a small generated function (source and all) that calls g's
    forward-mode code, so that the outer transformation reads it like any callee:
    ``sg.grad`` of a function that calls ``sg.jvp`` is reverse over forward."""
    info = analysis.info
    if len(args) != 3 or kws:
        raise info.error(stmt, "inside a transformed function, call sg.jvp(f, primals, "
                               "tangents) with three positional arguments")
    g = analysis.static(args[0]) if isinstance(args[0], gast.AST) else None
    if isinstance(g, types.FunctionType) and unwrap(g) is not g:
        g = plain_function(g)   # (sg.jacobian's result: the code it is transformed as)
    if not isinstance(g, types.FunctionType):
        return None         # a function value: resolved when the call runs
    n = None
    seq = args[1]
    if isinstance(seq, gast.Name):
        for s in analysis.body:
            for node in gast.walk(s):
                if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name) \
                        and node.targets[0].id == seq.id and \
                        isinstance(node.value, (gast.Tuple, gast.List)):
                    n = len(node.value.elts)
    elif isinstance(seq, (gast.Tuple, gast.List)):
        n = len(seq.elts)
    params = [p for p in inspect.signature(g, follow_wrapped=False).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if n is None:
        if any(p.kind is p.VAR_POSITIONAL for p in
               inspect.signature(g, follow_wrapped=False).parameters.values()):
            return None     # how many primals *args takes: seen when the call runs
        n = len([p for p in params if p.default is p.empty])
    return _jvp_adapter(g, n), [args[1], args[2]], {}


def _jvp_adapter(g, n):
    key = (g, n)
    if key not in _ADAPTERS:
        from ..compiler import codegen
        names = [p.name for p in inspect.signature(g, follow_wrapped=False).parameters.values()][:n]
        fwd = forward_function(g, tuple(names))
        label = "".join(c if c.isalnum() or c == "_" else "_" for c in g.__name__).strip("_") \
            or "f"         # (a lambda's name is "<lambda>")
        callee = f"jvp_{label}"
        pos = ", ".join(f"primals[{i}]" for i in range(n))
        kw = ", ".join(f"{fwd.tangent_params[p]}=tangents[{i}]" for i, p in enumerate(names))
        src = (f"def jvp_of_{label}(primals, tangents):\n"
               f"    \"\"\"sg.jvp({g.__name__}, primals, tangents) as code srcgrad can "
               f"transform again.\"\"\"\n"
               f"    return {callee}({pos}{', ' if pos and kw else ''}{kw})\n")
        fn = codegen.build({f"jvp_of_{label}": src}, {callee: fwd}, g,
                           f"sg.jvp of {g.__qualname__}")[f"jvp_of_{label}"]
        fn.__srcgrad_transformable__ = True
        _ADAPTERS[key] = fn
    return _ADAPTERS[key]


def _forward(call, tangents, tangent_only=False):
    """Run the forward-mode code of ``call`` with ``tangents``: {param: tangent}."""
    wrt = tuple(n for n in call.bound if n in tangents)
    fn = forward_function(call.func, wrt, call.kinds, tangent_only)
    for n in wrt:
        refuse_unstructured(call.func, "jvp", n, call.bound[n])
    extra = {fn.tangent_params[n]: _tangent_like(tangents[n], call.bound[n], n) for n in wrt}
    return call.run(fn, extra)


# -- Jacobians --------------------------------------------------------------------

def _basis(x):
    """One-hot arrays (or floats) of ``x``'s shape, one per element, in C order."""
    shape = np.shape(x)
    dt = getattr(x, "dtype", None)          # (a Python float has none)
    dtype = dt if dt is not None and getattr(dt, "kind", "") in "fc" else np.float64
    for idx in np.ndindex(*shape):
        e = np.zeros(shape, dtype=dtype)
        e[idx] = 1
        yield e if shape or hasattr(x, "shape") else float(e)


def _outputs(out):
    """The output as a list of array parts (a tuple output has several)."""
    return list(out) if isinstance(out, tuple) else [out]


def _tree(x):
    """(leaves, rebuild): the arrays of a dict / list / tuple (nested), in order, and a
    function putting values of the same count back in ``x``'s structure."""
    if isinstance(x, dict):
        keys = list(x)
        return _joined([_tree(x[k]) for k in keys], lambda vals: dict(zip(keys, vals)))
    if isinstance(x, (list, tuple)):
        return _joined([_tree(v) for v in x], lambda vals: runtime.same_sequence(x, vals))
    return [x], lambda vals: vals[0]


def _joined(parts, make):
    leaves = [leaf for p in parts for leaf in p[0]]

    def rebuild(vals):
        out, i = [], 0
        for p_leaves, p_rebuild in parts:
            out.append(p_rebuild(vals[i:i + len(p_leaves)]))
            i += len(p_leaves)
        return make(out)
    return leaves, rebuild


def _flat_leaves(value, like):
    """The leaves of ``value`` (a tangent or gradient shaped like ``like``), each
    raveled; zeros where it has none."""
    if isinstance(like, (dict, list, tuple)):
        value = runtime.fill_like(value, like)
    return [np.ravel(np.zeros(np.shape(q)) if v is None else v)
            for v, q in zip(_tree(value)[0], _tree(like)[0])]


def _assemble(out, slices, in_trees, single_in):
    """Jacobians of shape ``out_leaf.shape + in_leaf.shape``, in the structure of the
    output, each in the structure of its input, from flat slices: ``slices[j][i]`` is
    a 2-D array (size of output leaf i, size of all of input j's leaves)."""
    out_leaves, out_rebuild = _tree(out)
    result = []
    for i, o in enumerate(out_leaves):
        per_in = []
        for j, (leaves, rebuild) in enumerate(in_trees):
            blocks, start = [], 0
            for leaf in leaves:
                m = int(np.size(leaf))
                blocks.append(np.reshape(slices[j][i][:, start:start + m],
                                         np.shape(o) + np.shape(leaf)))
                start += m
            per_in.append(rebuild(blocks))
        result.append(per_in[0] if single_in else tuple(per_in))
    return out_rebuild(result)


def _jacobian_forward(call):
    slices, in_trees, out = [], [], None
    for n in call.wrt:
        x = call.bound[n]
        leaves, rebuild = _tree(x)
        cols = []
        for k, leaf in enumerate(leaves):
            for e in _basis(leaf):
                t = rebuild([e if q == k else None for q in range(len(leaves))])
                out, dout = _forward(call, {n: t})
                cols.append(_flat_leaves(dout, out))
        if out is None:                    # an empty input: run once for the output
            out = call.run(forward_function(call.func, (), call.kinds))[0]
        parts = _tree(out)[0]
        slices.append([np.stack([c[i] for c in cols], axis=-1) if cols else
                       np.zeros((np.size(parts[i]), 0)) for i in range(len(parts))])
        in_trees.append((leaves, rebuild))
    return out, slices, in_trees


def _jacobian_reverse(call):
    fwd, bwd = reverse_function(call.func, call.wrt, "split", call.kinds)
    out, saved = call.run(fwd)
    parts, out_rebuild = _tree(out)
    rows = [[] for _ in call.wrt]          # rows[j]: one flat gradient per output element
    count = sum(int(np.size(p)) for p in parts)
    k = 0
    for i, p in enumerate(parts):
        for e in _basis(p):
            k += 1
            cot = out_rebuild([e if j == i else runtime.zeros_like(q)
                               for j, q in enumerate(parts)])
            # the backward sweep pops its records and restores overwritten values:
            # each cotangent but the last gets its own copy of them
            grads = bwd(saved if k == count else fresh_record(saved), cot)
            for j, n in enumerate(call.wrt):
                flat = _flat_leaves(grads[j], call.bound[n])
                rows[j].append(np.concatenate(flat) if flat else np.zeros(0))
    slices, in_trees = [], []
    for j, n in enumerate(call.wrt):
        leaves, rebuild = _tree(call.bound[n])
        size = sum(int(np.size(leaf)) for leaf in leaves)
        flat, start = [], 0
        for p in parts:
            m = int(np.size(p))
            block = rows[j][start:start + m]
            flat.append(np.stack(block) if block else np.zeros((0, size)))
            start += m
        slices.append(flat)
        in_trees.append((leaves, rebuild))
    return out, slices, in_trees


# -- Jacobians differentiated again ------------------------------------------------
# ``sg.jacobian(f)`` called at the top level runs the loops above; transformed again
# (``sg.jacobian(sg.jacobian(f))``, ``sg.hessian`` of a function calling
# ``sg.jacobian``) it is this Python, which srcgrad reads like the user's code: one
# ``sg.vjp`` pullback per output element, or one ``sg.jvp`` per input element.

_REVERSE_CODE = """\
def jacobian_reverse({signature}):
    \"\"\"sg.jacobian({name}, wrt={wrt}) as Python srcgrad transforms again: one
    sg.vjp per output element (each pullback called once).\"\"\"
    args = ({params},)
    out = f({params})
    refuse_tuple_output(out, f)
    floats = [slot for slot in range({n}) if holds_floats(args[slot])]
    rows = [vjp(f, {params})[1](unit) for unit in units(out)]
    if len(floats) == 1:
        rows = [(row,) for row in rows]
    jacs = [np.reshape(np.stack([row[floats.index(pos)] for row in rows]),
                       np.shape(out) + np.shape(args[pos])) for pos in {positions}]
    return {result}
"""

_FORWARD_CODE = """\
def jacobian_forward({signature}):
    \"\"\"sg.jacobian({name}, wrt={wrt}, mode="forward") as Python srcgrad transforms
    again: one sg.jvp per input element.\"\"\"
    args = ({params},)
    jacs = []
    for pos in {positions}:
        primal = args[pos]
        cols = [jvp(f, args, tuple([unit if slot == pos else zeros_like(args[slot])
                                    for slot in range({n})]))[1]
                for unit in units(primal)]
        refuse_tuple_output(cols[0], f)
        jacs.append(np.reshape(np.stack(cols, axis=-1), np.shape(cols[0]) + np.shape(primal)))
    return {result}
"""

# the names the code above uses: a parameter of f with one of them keeps the loops
_CODE_NAMES = {"f", "vjp", "jvp", "np", "holds_floats", "zeros_like", "refuse_tuple_output",
               "args", "out", "floats", "rows", "row", "jacs", "pos", "primal",
               "cols", "unit", "units", "slot", "tuple", "range", "len"}


def _signature_text(params, closure):
    """``q, k=default_k``: f's parameters, each default a value of the closure."""
    out = []
    for p in params:
        if p.default is p.empty:
            out.append(p.name)
        else:
            closure[f"default_{p.name}"] = p.default
            out.append(f"{p.name}=default_{p.name}")
    return ", ".join(out)


def _jacobian_code(f, params, positions, single, mode, held=False):
    """``jacobian(f, wrt=positions, mode=mode)`` as a function srcgrad transforms (its
    parameters ``params``, those of f; ``held``: f is its first parameter, not a value
    it holds, so that a gradient can flow into what f holds)."""
    from ..compiler import codegen
    label = getattr(unwrap(f), "__qualname__", "f")
    text = _REVERSE_CODE if mode == "reverse" else _FORWARD_CODE
    closure = dict(vjp=vjp, jvp=jvp, np=np, holds_floats=holds_floats, units=_units,
                   zeros_like=runtime.zeros_like, refuse_tuple_output=_refuse_tuple_output)
    if not held:
        closure["f"] = f
    src = text.format(signature=("f, " if held else "") + _signature_text(params, closure),
                      params=", ".join(p.name for p in params), name=label, n=len(params),
                      wrt=positions[0] if single else positions,
                      positions=positions, result="jacs[0]" if single else "tuple(jacs)")
    fname = "jacobian_reverse" if mode == "reverse" else "jacobian_forward"
    code = codegen.build({fname: src}, closure, _refuse_tuple_output,
                         f"sg.jacobian of {label}")[fname]
    code.__srcgrad_transformable__ = True
    return code


_HVP_CODE = """\
def hvp({signature}, *, v):
    \"\"\"sg.hvp({name}, wrt={wrt}) as Python srcgrad transforms again: sg.jvp of the
    gradient along v.\"\"\"
    args = ({params},)
    return jvp(g, args, ({tangents},))[1]
"""


def _hvp_code(f, g, params, positions, single, held=False):
    """``hvp(f, wrt=positions)`` (``g`` its gradient) as a function srcgrad transforms
    (``held``: g is its first parameter, see :func:`_jacobian_code`)."""
    from ..compiler import codegen
    label = getattr(unwrap(f), "__qualname__", "f")
    closure = dict(jvp=jvp, zeros_like=runtime.zeros_like)
    if not held:
        closure["g"] = g
    tangents = [("v" if single else f"v[{positions.index(k)}]") if k in positions else
                f"zeros_like({p.name})" for k, p in enumerate(params)]
    signature = ("g, " if held else "") + _signature_text(params, closure)
    src = _HVP_CODE.format(signature=signature,
                           params=", ".join(p.name for p in params), name=label,
                           wrt=positions[0] if single else positions,
                           tangents=", ".join(tangents))
    code = codegen.build({"hvp": src}, closure, _refuse_tuple_output,
                         f"sg.hvp of {label}")["hvp"]
    code.__srcgrad_transformable__ = True
    return code


def _transformed_as(api_fn, code, what, f, why, held=None):
    """What a transformation of ``api_fn`` (sg.jacobian's or sg.hvp's result) reads:
    ``code`` (at the top level, ``sg.grad(api_fn)``); called inside differentiated
    code, ``held`` = (the code taking ``f`` as its first argument, f), so that a
    gradient flows into what f holds (a lambda over the differentiated value: its
    gradient is api_fn's own, compiler/dynamic.py); without code, an error that says
    why."""
    if code is None:
        message = (f"srcgrad cannot differentiate {what} of "
                   f"{getattr(unwrap(f), '__qualname__', f)} again: {why}")

        def refuse(args, kwargs):
            raise NonDifferentiableError(message)
        api_fn.__srcgrad_trace__ = refuse
        api_fn.__srcgrad_refused__ = message       # (api/gradients.py, plain_function)
        return
    api_fn.__srcgrad_wrapped__ = code
    if held is None:
        api_fn.__srcgrad_trace__ = lambda args, kwargs: (code, tuple(args), dict(kwargs), 0)
    else:
        api_fn.__srcgrad_trace__ = lambda args, kwargs: (held[0], (held[1],) + tuple(args),
                                                         dict(kwargs), 1)


def _units(x):
    """The one-hot arrays (or floats) of ``x``'s shape and floating dtype: constants."""
    if isinstance(x, (dict, list, tuple)):
        raise NonDifferentiableError(
            f"srcgrad differentiates sg.jacobian again only with respect to arrays, not "
            f"a {type(x).__name__} (sg.jacobian of a container works at the top level)")
    return list(_basis(x))


_units.__srcgrad_stop_gradient__ = True


def _refuse_tuple_output(out, f):
    if isinstance(out, (tuple, list, dict)):
        raise NonDifferentiableError(
            f"srcgrad differentiates sg.jacobian of {getattr(f, '__qualname__', f)} again "
            f"only for an array output, not a {type(out).__name__}; return one array "
            f"(np.concatenate the parts)")


_refuse_tuple_output.__srcgrad_stop_gradient__ = True


_CODE_REFUSED = ("its code for a transformation needs a function whose parameters are "
                 "plain (positional, no *args / **kwargs, not a bound method), with wrt "
                 "naming them; wrap the call in a def")


def _code_positions(f, wrt, taken=_CODE_NAMES):
    """(``f``'s parameters, ``wrt`` as positions of them) for :func:`_jacobian_code`,
    or None where the code form does not apply (a bound method, names that are not
    parameters, ``*args``, keyword-only parameters, a name the code uses itself)."""
    if isinstance(f, types.MethodType) or not callable(f):
        return None
    try:
        params = list(inspect.signature(unwrap(f)).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params):
        return None
    names = [p.name for p in params]
    if taken & set(names) or {f"default_{n}" for n in names} & set(names):
        return None
    items = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    out = []
    for w in items:
        if isinstance(w, str) and w in names:
            out.append(names.index(w))
        elif isinstance(w, int) and not isinstance(w, bool) and -len(names) <= w < len(names):
            out.append(w % len(names))
        else:
            return None
    return params, tuple(out)


def jacobian(f, wrt=0, mode="reverse"):
    """A function returning the Jacobian of ``f``: shape ``out.shape + in.shape``.

    ``wrt``: an int position, a name, or a tuple of them (then a tuple of
    Jacobians); a tuple output gives a tuple over the outputs.  ``mode``:
    "reverse" (one backward sweep per output element) or "forward" (one
    forward-mode run per input element).
    """
    if mode not in ("reverse", "forward"):
        raise ValueError(f"mode must be 'reverse' or 'forward', not {mode!r}")

    @api_boundary
    def jac(*args, **kwargs):
        call = _Call(f, args, kwargs, wrt=wrt)
        if mode == "forward":
            out, slices, in_trees = _jacobian_forward(call)
        else:
            out, slices, in_trees = _jacobian_reverse(call)
        return call.out(_assemble(out, slices, in_trees, call.single))
    jac.__name__ = f"jacobian_{getattr(unwrap(f), '__name__', 'f')}"
    jac.__doc__ = f"Jacobian ({mode} mode) of {getattr(unwrap(f), '__qualname__', f)}."
    found = _code_positions(f, wrt)
    code = held = None
    if found is not None:
        code = _jacobian_code(f, *found, not isinstance(wrt, (tuple, list)), mode)
        held = (_jacobian_code(f, *found, not isinstance(wrt, (tuple, list)), mode,
                               held=True), f)
    _transformed_as(jac, code, "sg.jacobian", f, _CODE_REFUSED, held)
    return jac


def hessian(f, wrt=0):
    """A function returning the Hessian of scalar ``f``: shape ``in.shape + in.shape``.

    Forward over reverse: the forward-mode Jacobian of the generated gradient.
    A tuple ``wrt`` gives the blocks ``H[i][j]``.
    """
    h = jacobian(grad(f, wrt=wrt), wrt=wrt, mode="forward")
    h.__name__ = f"hessian_{getattr(unwrap(f), '__name__', 'f')}"
    return h


def hvp(f, wrt=0):
    """A function ``hvp(*args, v)`` returning the Hessian of scalar ``f`` times ``v``.

    Forward over reverse: one forward-mode run of the generated gradient, with
    tangent ``v``; the Hessian is never formed.  A tuple ``wrt`` takes a tuple ``v``.
    """
    g = grad(f, wrt=wrt)

    @api_boundary
    def hvp_fn(*args, v, **kwargs):
        call = _Call(g, args, kwargs, wrt=wrt)
        vs = (v,) if call.single else tuple(v)
        if len(vs) != len(call.wrt):
            raise ValueError(f"hvp: {len(call.wrt)} arguments in wrt but {len(vs)} vectors")
        _, dout = _forward(call, dict(zip(call.wrt, vs)), tangent_only=True)
        return call.out(dout)
    hvp_fn.__name__ = f"hvp_{getattr(unwrap(f), '__name__', 'f')}"
    found = _code_positions(f, wrt, {"g", "jvp", "zeros_like", "args", "tuple", "v"})
    code = held = None
    if found is not None:
        code = _hvp_code(f, g, *found, not isinstance(wrt, (tuple, list)))
        held = (_hvp_code(f, g, *found, not isinstance(wrt, (tuple, list)), held=True), g)
    _transformed_as(hvp_fn, code, "sg.hvp", f, _CODE_REFUSED, held)
    return hvp_fn


# -- gradcheck -----------------------------------------------------------------------

class GradcheckError(AssertionError):
    """Analytic and numerical derivatives disagree (see the message for where)."""


def _as_float64(x):
    if isinstance(x, float):
        return x
    if hasattr(x, "dtype") and getattr(x.dtype, "kind", "") in "fc":
        return np.asarray(x, dtype=np.float64)
    return x


def _numerical_jacobian(f, args, kwargs, pos, eps):
    """Central differences: ``(f(x + eps e) - f(x - eps e)) / (2 eps)`` per element."""
    x = args[pos]
    cols = []
    for e in _basis(x):
        a_plus, a_minus = list(args), list(args)
        a_plus[pos] = x + eps * e
        a_minus[pos] = x - eps * e
        hi = _outputs(f(*a_plus, **kwargs))
        lo = _outputs(f(*a_minus, **kwargs))
        cols.append([np.ravel((np.asarray(h, dtype=float) - np.asarray(lo_, dtype=float))
                              / (2 * eps)) for h, lo_ in zip(hi, lo)])
    return cols


def gradcheck(f, *args, wrt=None, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              modes=("reverse", "forward"), **kwargs):
    """Check f's derivatives: reverse mode, forward mode and central finite differences.

    Float arguments are promoted to float64.  ``wrt`` as in ``sg.grad`` (None: every
    float argument).  Any output shape works (a tuple output too): every element
    of every Jacobian is compared, ``|a - n| <= atol + rtol * |n|``.  On a
    mismatch, raises :class:`GradcheckError` naming the mode, the input, and the
    input and output elements (or returns False with ``raise_exception=False``).
    """
    func = unwrap(f)
    args = tuple(_as_float64(a) for a in args)
    kwargs = {k: _as_float64(v) for k, v in kwargs.items()}
    call = _Call(f, args, kwargs, wrt=wrt)
    names = list(call.sig.names)
    if not call.wrt:
        raise ValueError("gradcheck: no float argument to check (pass wrt=...)")
    out = f(*args, **kwargs)
    parts = _outputs(out)
    wrt_tuple = tuple(call.wrt)
    analytic = {}      # mode -> [output][input] Jacobian
    for mode in modes:
        jac = jacobian(f, wrt=wrt_tuple, mode=mode)(*args, **kwargs)
        analytic[mode] = jac if isinstance(out, tuple) else (jac,)
    for j, n in enumerate(wrt_tuple):
        pos = names.index(n)
        if pos >= len(args):
            raise ValueError(f"gradcheck: pass {n!r} positionally to check it")
        numeric = _numerical_jacobian(f, args, kwargs, pos, eps)
        for i, part in enumerate(parts):
            num = np.stack([c[i] for c in numeric], axis=-1) if numeric else \
                np.zeros((np.size(part), 0))
            flat = {m: np.reshape(np.asarray(analytic[m][i][j], dtype=float), num.shape)
                    for m in modes}
            for mode in modes:
                bad = ~(np.abs(flat[mode] - num) <= atol + rtol * np.abs(num))
                if not bad.any():
                    continue
                o, k = np.argwhere(bad)[0]
                out_el = _element(o, np.shape(part))
                in_el = _element(k, np.shape(args[pos]))
                which = f" of output {i}" if isinstance(out, tuple) else ""
                others = "; ".join(f"{m} mode gives {flat[m][o, k]:.10g}"
                                   for m in modes if m != mode)
                msg = (f"gradcheck failed for {func.__qualname__}: d(output{which}){out_el}"
                       f" / d{n}{in_el} (input {n!r}, argument {pos}): {mode} mode gives "
                       f"{flat[mode][o, k]:.10g}, finite differences give {num[o, k]:.10g}"
                       + (f" ({others})" if others else "") +
                       f"; max difference over all elements "
                       f"{np.max(np.abs(flat[mode] - num)):.3g} (atol={atol}, rtol={rtol})")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def _element(flat_index, shape):
    """``[i, j]`` for a flat index into ``shape`` ("" for a scalar)."""
    if not shape:
        return ""
    return "[" + ", ".join(map(str, np.unravel_index(flat_index, shape))) + "]"


# -- user-supplied forward derivatives --------------------------------------------------

_USER_TANGENTS = {}


def tangent(func):
    """Register the user's own forward derivative of ``func``; it is inlined in generated code.

        @sg.tangent(my_op)
        def my_op_tangent(ans, x, y, dx, dy):
            return dx * y + x * dy      # the tangent of ans

    The tangent function gets ``ans``, the parameters of ``func``, then one
    tangent per parameter (zeros for arguments without one), and returns the
    tangent of ``ans``.  It must be linear in the tangents: srcgrad calls it once
    per argument that has a tangent and adds the results.
    """
    def register(tan):
        existing = rules.lookup(func)
        params = list(inspect.signature(func, follow_wrapped=False).parameters.values())
        pnames = [p.name for p in params]
        key = f"_tangent_{len(_USER_TANGENTS)}"
        checked = _checked_tangent(tan, func)
        _USER_TANGENTS[key] = checked
        rules.add_kernel(key, checked)
        jvp_templates = {}
        for p in pnames:
            ds = ", ".join(f"d{q}" if q == p else f"zeros_like({q})" for q in pnames)
            jvp_templates[p] = f"{key}(ans, {', '.join(pnames)}, {ds})"
        params_src = existing.params if existing else ", ".join(str(p) for p in params)
        rules.defrule(func, params_src, vjp=existing.vjp if existing else {},
                      jvp=jvp_templates, torch_name=existing.torch_name if existing else None,
                      name=existing.name if existing else getattr(func, "__name__", None),
                      user=True)
        _forward_cache.clear()     # code generated before inlined the old rule
        return tan
    return register


def _checked_tangent(tan, func):
    """``tan`` with its result checked against ``ans`` (shape and structure)."""
    from .gradients import check_like, _qualname
    where = f"the tangent {_qualname(tan)} of {_qualname(func)}"

    def tangent_checked(ans, *args):
        out = tan(ans, *args)
        if out is None:
            raise TypeError(f"{where} returned None; it must return the tangent of "
                            f"{_qualname(func)}'s result")
        check_like(out, ans, "the result", where)
        return out
    tangent_checked.__wrapped__ = tan
    tangent_checked.__srcgrad_transformable__ = True    # (as checked_adjoint's)
    return tangent_checked


jvp.__srcgrad_inline__ = _inline_jvp
# inside differentiated code, ``sg.jacobian(lambda x: ...)`` of a lambda holding the
# differentiated value holds what the lambda holds (as sg.grad, api/gradients.py)
jacobian.__srcgrad_wraps_function__ = True
hessian.__srcgrad_wraps_function__ = True
hvp.__srcgrad_wraps_function__ = True
