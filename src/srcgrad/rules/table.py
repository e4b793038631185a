"""The derivative table: one entry per primitive, written once, as templates.

A rule says, for a primitive ``ans = f(x, y, ...)``:

* ``params``: the primitive's signature, as Python source (``"x, axis=None"``).
  The compiler binds a call's arguments to it; parameters the rule does not name
  in ``vjp``/``jvp`` carry no gradient (``axis``, ``dtype``, ...).
* ``vjp``: for each differentiable parameter ``x``, an expression for its
  cotangent contribution, in terms of ``g`` (the cotangent of ``ans``), ``ans``
  and the parameters.  ``sin``: ``x="g * np.cos(x)"``.
* ``jvp``: for each differentiable parameter ``x``, an expression for its
  contribution to the tangent of ``ans``, linear in ``dx`` (the tangent of
  ``x``).  ``sin``: ``x="dx * np.cos(x)"``.  The tangent of ``ans`` is the sum
  of the contributions of the parameters that have a tangent.

Templates are Python expressions.  They may use ``np`` (the array namespace:
numpy, or cupy through numpy's dispatch), ``math``, and the helpers of
:mod:`srcgrad.runtime` by bare name (``unbroadcast(g * y, x)``).  The compiler
inlines them into generated source with the user's names; the eager Tensor
runtime compiles each rule once into a function (:meth:`Rule.vjp_function`).
Nothing else in srcgrad knows a derivative.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import math
from dataclasses import dataclass, field

import numpy as np

from .. import runtime


def helper_names():
    """Names that templates may use without qualification (runtime helpers)."""
    return frozenset(runtime.__all__)


@dataclass
class Rule:
    func: object                      # the primitive object (np.sin, operator.mul, ...)
    name: str                         # how generated code and errors name it: "np.sin"
    params: str                       # "x, y" / "a, axis=None, keepdims=False"
    vjp: dict = field(default_factory=dict)
    jvp: dict = field(default_factory=dict)
    torch_name: str | None = None     # grad_fn name in the Tensor runtime ("SinBackward0")
    # filled in by __post_init__
    signature: inspect.Signature = None
    _vjp_fn: object = None
    _jvp_fn: object = None

    def __post_init__(self):
        self.signature = _parse_signature(self.params, self.name)
        names = set(self.signature.parameters)
        for kind, table in (("vjp", self.vjp), ("jvp", self.jvp)):
            for arg, expr in table.items():
                if arg not in names:
                    raise ValueError(f"rule {self.name}: {kind} names {arg!r}, not a parameter")
                ast.parse(expr, mode="eval")  # a template must be an expression

    # -- what the compiler asks ---------------------------------------------
    @property
    def diff_params(self):
        """Parameters that may carry a gradient, in signature order."""
        return [p for p in self.signature.parameters if p in self.vjp or p in self.jvp]

    def bind(self, args, kwargs):
        """Bind call arguments (any objects) to parameter names; defaults filled."""
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return dict(bound.arguments)

    # -- what the eager runtime asks ----------------------------------------
    def vjp_source(self):
        """Source of the function the Tensor runtime runs for this rule.

        ``f(g, ans, <params>, *, needs)`` returns one cotangent (or None) per
        differentiable parameter, in :attr:`diff_params` order.
        """
        sig = _runtime_signature(self, ["g", "ans"], [_P("needs", _P.KEYWORD_ONLY)])
        lines = [f"def {_ident(self.name)}_vjp({sig}):"]
        outs = []
        for i, p in enumerate(self.diff_params):
            expr = self.vjp.get(p)
            if expr is None:
                lines.append(f"    d{p} = _missing({self.name!r}, {p!r}, 'reverse') if needs[{i}] else None")
            else:
                lines.append(f"    d{p} = ({expr}) if needs[{i}] else None")
            outs.append(f"d{p}")
        lines.append(f"    return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
        return "\n".join(lines) + "\n"

    def vjp_function(self):
        if self._vjp_fn is None:
            self._vjp_fn = _compile_rule_source(self.vjp_source(), self.name, "vjp")
        return self._vjp_fn

    def jvp_source(self):
        """``f(ans, <params>, *, d<param>=None...)``: the tangent of ``ans`` (None if none)."""
        sig = _runtime_signature(self, ["ans"], [_P("d" + p, _P.KEYWORD_ONLY, default=None)
                                                 for p in self.diff_params])
        lines = [f"def {_ident(self.name)}_jvp({sig}):", "    _out = None"]
        for p in self.diff_params:
            expr = self.jvp.get(p)
            term = f"_missing({self.name!r}, {p!r}, 'forward')" if expr is None else f"({expr})"
            lines.append(f"    if d{p} is not None:")
            lines.append(f"        _t = {term}")
            lines.append("        _out = _t if _out is None else _out + _t")
        lines.append("    return _out")
        return "\n".join(lines) + "\n"

    def jvp_function(self):
        if self._jvp_fn is None:
            self._jvp_fn = _compile_rule_source(self.jvp_source(), self.name, "jvp")
        return self._jvp_fn


def _missing(name, param, direction):
    from ..errors import NonDifferentiableError
    raise NonDifferentiableError(
        f"{name} has no {direction}-mode derivative for its argument {param!r}; "
        f"register one with @sg.{'adjoint' if direction == 'reverse' else 'tangent'}({name.split('.')[-1]})")


def template_namespace():
    ns = {"np": np, "math": math, "_missing": _missing, "__builtins__": builtins}
    for name in helper_names():
        ns[name] = getattr(runtime, name)
    return ns


def _compile_rule_source(src, name, kind):
    import linecache
    filename = f"<srcgrad rule {name} {kind}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns = template_namespace()
    exec(compile(src, filename, "exec"), ns)
    fn = ns[f"{_ident(name)}_{kind}"]
    fn.source = src
    return fn


def _parse_signature(params, name):
    try:
        fn = ast.parse(f"def _f({params}): pass").body[0]
    except SyntaxError as e:
        raise ValueError(f"rule {name}: bad params {params!r}") from e
    ns = {}
    exec(compile(ast.Module([fn], []), "<rule>", "exec"), {"np": np}, ns)
    return inspect.signature(ns["_f"])


_P = inspect.Parameter


def _runtime_signature(rule, lead, extra):
    """The rule's parameters with ``lead`` (positional-only) before and ``extra`` after."""
    params = list(rule.signature.parameters.values())
    front = [_P(n, _P.POSITIONAL_ONLY) for n in lead]
    kw = [p for p in params if p.kind == _P.VAR_KEYWORD]
    rest = [p for p in params if p.kind != _P.VAR_KEYWORD]
    return str(inspect.Signature(front + rest + extra + kw))[1:-1]


def _signature_source(sig):
    # the rule's own parameter list, re-rendered (keyword-only marker kept)
    return str(sig)[1:-1]


def _ident(name):
    return "".join(c if c.isalnum() else "_" for c in name).strip("_")


# -- the registry --------------------------------------------------------------

_RULES = {}          # id(func) -> Rule
_NOGRAD = {}         # id(func) -> display name: calls whose result carries no gradient
_KEEP = []           # keep registered objects alive so ids stay unique
METHODS = {}         # array method / attribute name -> (Rule, how to bind)


def defrule(func, params, *, name=None, vjp=None, jvp=None, torch_name=None):
    """Register the derivative of ``func``.  See the module docstring."""
    rule = Rule(func=func, name=name or _display_name(func), params=params,
                vjp=dict(vjp or {}), jvp=dict(jvp or {}), torch_name=torch_name)
    _RULES[id(func)] = rule
    _KEEP.append(func)
    return rule


def defnograd(*funcs, names=None):
    """Functions whose output never carries a gradient (sign, floor, argmax, shape...)."""
    for i, f in enumerate(funcs):
        _NOGRAD[id(f)] = names[i] if names else _display_name(f)
        _KEEP.append(f)


def defmethod(method, func, *, attribute=False):
    """``x.method(...)`` behaves as ``func(x, ...)``; ``attribute``: ``x.T`` has no call."""
    METHODS[method] = (func, attribute)


def lookup(func):
    """The Rule for ``func`` or None."""
    try:
        return _RULES.get(id(func))
    except TypeError:
        return None


def is_nograd(func):
    return id(func) in _NOGRAD


def all_nograd():
    """Display names of the functions whose result carries no gradient."""
    return sorted(_NOGRAD.values())


def all_rules():
    return list(_RULES.values())


def _display_name(f):
    mod = getattr(f, "__module__", None) or ""
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
    if isinstance(f, np.ufunc):
        return f"np.{f.__name__}"
    if mod.startswith("numpy"):
        sub = mod.split(".")
        if len(sub) > 1 and sub[1] in ("linalg", "fft", "random"):
            return f"np.{sub[1]}.{name}"
        return f"np.{name}"
    if mod in ("math", "builtins", "_operator", "operator"):
        prefix = {"builtins": "", "_operator": "operator.", "operator": "operator."}.get(mod, mod + ".")
        return prefix + name
    return f"{mod}.{name}" if mod else name
