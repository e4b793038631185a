"""The registry of primitives: each one's derivative templates and its facets.

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
* its facets (:mod:`.facets`): elementwise, linear, a view of which argument,
  a reduction over which axes, which arguments it reads only the shape of.

Templates are Python expressions.  They may use ``np`` (the array namespace:
numpy, or cupy through numpy's dispatch), ``math``, and the kernels of
:func:`srcgrad.rules.namespace` by bare name (``unbroadcast(g * y, x)``).  The
compiler inlines them into generated source with the user's names; the eager
Tensor runtime compiles each rule once into a function (:meth:`Rule.vjp_function`).
Nothing else in srcgrad knows a derivative, and no pass keeps a list of names:
passes ask the queries at the end of this module.
"""
from __future__ import annotations

import ast
import inspect
import sys
import types
from dataclasses import dataclass, field

import numpy as np

from .facets import ALL_PARAMS, NONE, Facets, make as _facets


@dataclass
class Rule:
    func: object                      # the primitive object (np.sin, operator.mul, ...)
    name: str                         # how generated code and errors name it: "np.sin"
    params: str                       # "x, y" / "a, axis=None, keepdims=False"
    vjp: dict = field(default_factory=dict)
    jvp: dict = field(default_factory=dict)
    torch_name: str | None = None     # grad_fn name in the Tensor runtime ("SinBackward0")
    facets: Facets = NONE             # what else it is (facets.py): a view, linear, ...
    user: bool = False                # registered by the user (@sg.adjoint / @sg.tangent)
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
        self.facets.check(list(names), f"rule {self.name}")

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
        lines = [f"def {_ident(self.name)}_vjp({sig}):", _namespace_line(self, ["g", "ans"])]
        outs = []
        for i, p in enumerate(self.diff_params):
            # (``_d_<p>``: ``d<p>`` may be a parameter, np.trapezoid's ``dx``)
            expr = self.vjp.get(p)
            if expr is None:
                lines.append(f"    _d_{p} = _missing({self.name!r}, {p!r}, 'reverse') if needs[{i}] else None")
            else:
                lines.append(f"    _d_{p} = ({expr}) if needs[{i}] else None")
            outs.append(f"_d_{p}")
        lines.append(f"    return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
        return "\n".join(lines) + "\n"

    def vjp_function(self):
        if self._vjp_fn is None:
            self._vjp_fn = _compile_rule_source(self.vjp_source(), self.name, "vjp")
        return self._vjp_fn

    def jvp_source(self):
        """``f(ans, <params>, *, d<param>=None...)``: the tangent of ``ans`` (None if none).
        Where a tangent's name is a parameter's (np.trapezoid's ``dx``, the tangent of
        ``x``, and its step ``dx``), the parameters are positional-only, the tangents come
        in ``**_tangents``, and each term is a function of its own tangent (the template's
        ``dx`` is the tangent in x's term, the step in dx's)."""
        clash = any("d" + p in self.signature.parameters for p in self.diff_params)
        if clash:
            params = list(self.signature.parameters.values())
            if any(q.kind not in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD) for q in params):
                raise NotImplementedError(f"rule {self.name}: a tangent named like a "
                                          f"parameter, and keyword parameters")
            sig = str(inspect.Signature([_P(n, _P.POSITIONAL_ONLY) for n in ["ans"]] + [
                q.replace(kind=_P.POSITIONAL_ONLY) for q in params] + [
                _P("_tangents", _P.VAR_KEYWORD)]))[1:-1]
        else:
            sig = _runtime_signature(self, ["ans"], [_P("d" + p, _P.KEYWORD_ONLY, default=None)
                                                     for p in self.diff_params])
        lines = [f"def {_ident(self.name)}_jvp({sig}):", _namespace_line(self, ["ans"]),
                 "    _out = None"]
        for p in self.diff_params:
            expr = self.jvp.get(p)
            term = f"_missing({self.name!r}, {p!r}, 'forward')" if expr is None else f"({expr})"
            if clash:
                lines.append(f"    def _term(d{p}):")
                lines.append(f"        return {term}")
                lines.append(f"    if _tangents.get('d{p}') is not None:")
                lines.append(f"        _t = _term(_tangents['d{p}'])")
            else:
                lines.append(f"    if d{p} is not None:")
                lines.append(f"        _t = {term}")
            # (terms that are tuples or lists add item by item: ``+`` would concatenate)
            lines.append("        _out = _t if _out is None else _out + _t if not "
                         "isinstance(_out, (tuple, list, dict)) else add_grads(_out, _t)")
        lines.append("    return _out")
        return "\n".join(lines) + "\n"

    def jvp_function(self):
        if self._jvp_fn is None:
            self._jvp_fn = _compile_rule_source(self.jvp_source(), self.name, "jvp")
        return self._jvp_fn


def _namespace_line(rule, lead):
    """``np = array_ns(...)``: a rule function computes in its operands' array namespace
    (NumPy itself for NumPy operands)."""
    names = lead + [p.name for p in rule.signature.parameters.values()
                    if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return f"    np = array_ns({', '.join(names)})"


_TEMPLATE_GLOBALS = []      # the provider of the globals templates run in (namespace.py)


def use_template_globals(provider):
    """Rule functions compile in ``provider()``'s globals (installed by namespace.py,
    which knows every family's kernels; the registry imports none of them)."""
    _TEMPLATE_GLOBALS[:] = [provider]


def _compile_rule_source(src, name, kind):
    import linecache
    filename = f"<srcgrad rule {name} {kind}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns = _TEMPLATE_GLOBALS[0]()
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


def _ident(name):
    return "".join(c if c.isalnum() else "_" for c in name).strip("_")


# -- the registry --------------------------------------------------------------

_RULES = {}          # _key(func) -> Rule
_NOGRAD = {}         # _key(func) -> display name: calls whose result carries no gradient
_FACTS = {}          # _key(func) -> (display name, Signature or None, Facets): every entry
_KEEP = []           # keep registered objects alive so ids stay unique
METHODS = {}         # array method / attribute name -> (function with a rule, is attribute)
_METHOD_FACTS = {}   # method / attribute name -> the function that declares its facets
_NOGRAD_METHODS = set()      # ``x.item()``, ``s.upper()``: results without a gradient
_NOGRAD_ATTRIBUTES = {}      # ``x.shape``, ``t.grad_fn`` -> whether only metadata is read


def _key(func):
    """How the table knows ``func``: its identity; a bound method (a new object at each
    attribute read, as ``scipy.stats.norm.logpdf`` is) by its instance and function;
    an array library's function named as the array API names it (``xp.tanh``,
    ``array_api_strict.sum``) as the NumPy function of that name (:func:`defaliases`).
    Every question to the table comes through here, so the families registered lazily
    (:func:`deflazy`) whose library has been imported since are loaded first."""
    if _LAZY and len(sys.modules) != _SEEN_MODULES[0]:
        load_imported()
    if isinstance(func, types.MethodType):
        return (id(func.__self__), id(func.__func__))
    key = id(func)
    if key in _FACTS or not _ALIASES:
        return key
    target = _alias_target(func)
    return key if target is None else id(target)


_ALIASES = {}        # array API name -> the NumPy function it means
_ALIAS_LIBRARIES = set()     # top-level modules whose functions those names may be


def defaliases(libraries, names):
    """Functions of the array ``libraries`` (top-level module names) called ``name``
    are ``names[name]`` (a NumPy function with a rule): one table for every array-API
    namespace, declared once."""
    _ALIAS_LIBRARIES.update(libraries)
    _ALIASES.update(names)


def _alias_target(func):
    try:
        mod = getattr(func, "__module__", None) or type(func).__module__
        name = func.__name__
    except (AttributeError, TypeError):
        return None
    if not isinstance(mod, str) or mod.split(".", 1)[0] not in _ALIAS_LIBRARIES:
        return None
    if name.startswith("cupy_"):            # cupy's ufuncs are named cupy_tanh
        name = name[5:]
    return _ALIASES.get(name)


_LAZY = {}           # module name -> the loader that registers its functions' rules
_SEEN_MODULES = [0]  # len(sys.modules) when the lazy families were last checked


def deflazy(module, loader):
    """The rules of ``module``'s functions (``"scipy.special"``) are registered by
    ``loader()``, on the first question to the table after ``module`` is imported (by
    anyone: a function of it can be called only then).  Importing srcgrad then does not
    import the library; :func:`load_all` loads every family now."""
    _LAZY[module] = loader
    _SEEN_MODULES[0] = 0


def load_imported():
    """Load the lazy families whose module has been imported (:func:`deflazy`)."""
    _SEEN_MODULES[0] = len(sys.modules)
    for module in [m for m in _LAZY if m in sys.modules]:
        loader = _LAZY.pop(module, None)    # popped first: a loader asks the table too
        if loader is not None:
            loader()
    _SEEN_MODULES[0] = len(sys.modules)


def load_all():
    """Register every lazy family now (what a question about the whole table needs)."""
    while _LAZY:
        module = next(iter(_LAZY))
        _LAZY.pop(module)()


def defrule(func, params, *, name=None, vjp=None, jvp=None, torch_name=None, user=False,
            **facets):
    """Register the derivative of ``func`` and its facets.  See the module docstring.
    ``user``: a user's own derivative (``@sg.adjoint``), not a rule of the table."""
    rule = Rule(func=func, name=name or _display_name(func), params=params,
                vjp=dict(vjp or {}), jvp=dict(jvp or {}), torch_name=torch_name,
                facets=_facets(**facets), user=user)
    _RULES[_key(func)] = rule
    _FACTS[_key(func)] = (rule.name, rule.signature, rule.facets)
    _KEEP.append(func)
    return rule


def defkernel(func, params, vjp, jvp, **facets):
    """The rule of a kernel that generated code calls as ``ad.<name>`` (grad of grad)."""
    return defrule(func, params, name=f"ad.{func.__name__}", vjp=vjp, jvp=jvp, **facets)


def deflinear(func, params, vjp, jvp, *, constant=(), **facets):
    """A kernel linear in its first parameter ``t`` (its other parameters give shapes,
    indices or masks): ``vjp``/``jvp`` are the transposed map of ``g`` and the kernel
    applied to ``dt``; the parameters in ``constant`` get zero derivatives."""
    v = dict(t=vjp, **{p: f"zeros_like({p})" for p in constant})
    j = dict(t=jvp, **{p: "zeros_like(ans)" for p in constant})
    return defkernel(func, params, v, j, linear_in=("t",), **facets)


def deftransformable(*funcs):
    """Kernels written in differentiable primitives (and kernels with rules): the
    compiler differentiates their source, to any order, instead of asking for a rule
    (``cholesky_grad`` called by a gradient that is differentiated again)."""
    for func in funcs:
        func.__srcgrad_transformable__ = True
    return funcs[0] if len(funcs) == 1 else funcs


def defnograd(*funcs, names=None, **facets):
    """Functions whose output never carries a gradient (sign, floor, argmax, shape...)."""
    f = _facets(nograd=True, **facets)
    for i, func in enumerate(funcs):
        shown = names[i] if names else _display_name(func)
        _NOGRAD[_key(func)] = shown
        _FACTS[_key(func)] = (shown, None, f)
        _KEEP.append(func)


def declare(func, params, *, name=None, method=None, attribute=False, **facets):
    """Facets of a function that has no derivative rule (``np.copyto`` writes its
    ``dst``; ``x.view()`` is a view); ``method``: also what ``x.<method>`` means."""
    shown = name or _display_name(func)
    sig = _parse_signature(params, shown)
    f = _facets(**facets)
    f.check(list(sig.parameters), shown)
    _FACTS[_key(func)] = (shown, sig, f)
    _KEEP.append(func)
    if method:
        _METHOD_FACTS[method] = (func, attribute)


def defmethod(method, func, *, attribute=False):
    """``x.method(...)`` behaves as ``func(x, ...)``; ``attribute``: ``x.T`` has no call."""
    METHODS[method] = (func, attribute)
    _METHOD_FACTS[method] = (func, attribute)


def defnograd_methods(*methods):
    """Method names whose result carries no gradient on any object (``x.item()``)."""
    _NOGRAD_METHODS.update(methods)


def defnograd_attributes(*attributes, metadata=True):
    """Attributes without a gradient; ``metadata``: reading one reads no values
    (``x.shape``), unlike ``x.data`` (the values, cut from the graph)."""
    for a in attributes:
        _NOGRAD_ATTRIBUTES[a] = metadata


# -- the queries passes ask ------------------------------------------------------

def lookup(func):
    """The Rule for ``func`` or None."""
    try:
        return _RULES.get(_key(func))
    except TypeError:
        return None


_RESOLVERS = []     # callables whose objects stand for a call of another (a frozen distribution)


def defresolver(resolver):
    """``resolver(callee, args, kwargs)`` returns ``(function, args, kwargs)`` when a call
    of ``callee`` is a call of ``function`` (which has a rule) with those arguments, else
    None.  Calls resolved at run time (``st.norm(0, 2).logpdf(x)``) ask each one."""
    _RESOLVERS.append(resolver)
    return resolver


def resolve_call(callee, args, kwargs):
    """The ``(function, args, kwargs)`` a resolver maps a call to, or None."""
    if _LAZY and len(sys.modules) != _SEEN_MODULES[0]:
        load_imported()
    for r in _RESOLVERS:
        hit = r(callee, args, kwargs)
        if hit is not None:
            return hit
    return None


def is_nograd(func):
    return _key(func) in _NOGRAD


def facets_of(func):
    """The declared :class:`Facets` of ``func`` (a rule, a no-gradient or a declared
    function); the empty facets for anything else."""
    entry = _FACTS.get(_key(func))
    return entry[2] if entry else NONE


def signature_of(func):
    entry = _FACTS.get(_key(func))
    return entry[1] if entry else None


def view_of(func):
    """The parameter whose memory ``func``'s result may share, or None."""
    return facets_of(func).view_of


def method_view(name):
    """Is ``x.<name>`` / ``x.<name>(...)`` (an array method or attribute) a view of x?"""
    entry = _METHOD_FACTS.get(name)
    return entry is not None and facets_of(entry[0]).view_of is not None


def nograd_method(name):
    """Does ``x.<name>(...)`` carry no gradient, whatever x is?"""
    return name in _NOGRAD_METHODS


def nograd_attribute(name):
    """Does ``x.<name>`` carry no gradient, whatever x is?"""
    return name in _NOGRAD_ATTRIBUTES


def metadata_attribute(name):
    """Is ``x.<name>`` metadata (shape, dtype...), read without reading x's values?"""
    return _NOGRAD_ATTRIBUTES.get(name, False)


def in_place_target(func):
    """The parameter ``func`` writes into (``np.copyto``: ``"dst"``), or None.  A
    ufunc's ``.at`` method (``np.add.at(a, i, v)``) writes its first argument."""
    owner = getattr(func, "__self__", None)
    if isinstance(owner, np.ufunc) and getattr(func, "__name__", "") == "at":
        return "a"
    return facets_of(func).in_place


def writes_first_argument(func):
    """Does ``func`` write in place into its first positional argument?"""
    target = in_place_target(func)
    if target is None:
        return False
    sig = signature_of(func)
    first = next(iter(sig.parameters)) if sig is not None and sig.parameters else "a"
    return target == first


def reads_only_shape(func, arg):
    """Does ``func`` read only the shape / dtype / type of its argument ``arg`` (a
    position or a keyword name)?  False for anything not declared so."""
    f = facets_of(func)
    if not f.shape_only:
        return False
    if f.shape_only == ALL_PARAMS:
        return True
    if isinstance(arg, int):
        sig = signature_of(func)
        if sig is None:
            return False
        names = [p.name for p in sig.parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if arg >= len(names):
            return False
        arg = names[arg]
    return arg in f.shape_only


def reduction_param(rule):
    """The parameter naming the reduced axes of ``rule`` (``"axis"``), ``ALL_AXES`` for
    a rule that always reduces to a scalar, or None for no reduction."""
    return rule.facets.reduction if rule is not None else None


def all_nograd():
    """Display names of the functions whose result carries no gradient (every family's:
    the lazy ones are loaded)."""
    load_all()
    return sorted(_NOGRAD.values())


def all_rules():
    """Every rule, the lazy families' included (they are loaded)."""
    load_all()
    return list(_RULES.values())


def all_declared():
    """(func, display name, Signature or None, Facets) of every registered function
    (the lazy families' included)."""
    load_all()
    objs = {_key(o): o for o in _KEEP}
    return [(objs[k], name, sig, f) for k, (name, sig, f) in _FACTS.items() if k in objs]


def _display_name(f):
    entry = _FACTS.get(_key(f))
    if entry is not None:           # registered or declared under its public name
        return entry[0]
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
