"""Reading a field of a structured value: ``p.w`` for a namedtuple or a record (a
dataclass, or an object of a class of the user's own code: runtime/records.py).

Activity analysis gives an attribute read of a local value (one that is not an
array attribute with its own rule, like ``x.T``) the rule of :func:`field`; the
generated forward code keeps ``p.w`` as the user wrote it.  A gradient has its
value's structure, as JAX's pytrees do: a namedtuple's is a namedtuple of the same
type; a record's is built as a (sparse) dict of field gradients while the adjoint
sweep runs, and becomes an instance of the same class at the end (``fill_like``),
with zeros for the fields nothing flowed into.

Building one, ``State(h, c)`` or ``P(w=w, b=b)`` of a namedtuple class, is
``as_namedtuple(State, (h, c))`` of a tuple display in the fields' order (the lowering
binds the keywords): its gradient is the tuple's, item by item.

Anything else (an array's ``x.flat``, an installed library's object) is refused
with an error that names the attribute: srcgrad cannot know what a gradient of
that object is.
"""
import dataclasses
import inspect
import types

from ... import runtime as rt
from ...errors import NonDifferentiableError
from ..registry import defkernel, deflinear

__all__ = ["field", "field_grad", "field_of", "field_tangent", "structure_only",
           "with_field", "without_field", "field_cotangent", "single_field",
           "as_namedtuple", "namedtuple_items", "replaced", "unreplaced", "replaced_parts",
           "replaced_fill", "as_plain", "plain_grad", "plain_tangent"]


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


_is_record = rt.is_record


def _refuse(obj, name):
    what = "an array" if hasattr(obj, "shape") else f"a {type(obj).__name__} object"
    raise NonDifferentiableError(
        f"srcgrad cannot differentiate through attribute .{name} of {what}: gradients "
        f"flow through fields of namedtuples, dataclasses and objects of the user's own "
        f"classes (their gradients have the same type); pass the values as arguments, or "
        f"hold them in a namedtuple or a dataclass")


# how a property's getter is differentiated (compiler/dynamic.py installs these: the
# getter is a Python function srcgrad compiles like any callee)
PROPERTIES = {}


def _super_method(obj, name):
    """Is ``obj.name`` a method read through ``super()`` of a record?  (Generated code
    for ``super().forward(x)`` reads it, transformed again: its gradient is the
    object's, as a method's read from the object itself.)"""
    return isinstance(obj, super) and _is_record(obj.__self__) and \
        isinstance(getattr(obj, name, None), types.MethodType)


def field(obj, name):
    """``obj.name`` for a namedtuple or a record (the rule's primal)."""
    if _super_method(obj, name):
        return getattr(obj, name)
    if not (_is_namedtuple(obj) or _is_record(obj)):
        _refuse(obj, name)
    return getattr(obj, name)


def _class_attribute(obj, name):
    """What ``obj.name`` reads from obj's class, when obj does not hold it itself: a
    property, a method, ... (None for a field of obj's own)."""
    if _is_namedtuple(obj) or not _is_record(obj):
        return None
    own = getattr(obj, "__dict__", None)
    if own is not None and name in own:
        return None
    found = inspect.getattr_static(type(obj), name, None)
    if isinstance(found, types.MemberDescriptorType):       # a __slots__ field
        return None
    return found


def _property(obj, name, a, what):
    if isinstance(a, property) and a.fget is not None and what in PROPERTIES:
        return a.fget
    raise NonDifferentiableError(
        f"srcgrad cannot differentiate through .{name} of a {type(obj).__name__} object "
        f"({type(a).__name__}); read the values it is computed from instead")


def field_grad(g, obj, name):
    """Adjoint of ``obj.name``: obj's structure with ``g`` at the field (a namedtuple of
    obj's type, zeros elsewhere; for a record, a sparse dict ``{name: g}``).  A method
    read from the class (``layer.forward``) has its object's gradient; a property's
    is its getter's, differentiated by srcgrad."""
    if _super_method(obj, name):
        return g
    if _is_namedtuple(obj):
        return type(obj)._make(g if f == name else rt.zeros_like(v)
                               for f, v in zip(obj._fields, obj))
    if _is_record(obj):
        a = _class_attribute(obj, name)
        if a is None:
            return {name: g}
        if isinstance(a, types.FunctionType):
            return g
        if isinstance(a, (staticmethod, classmethod)) or _plain_class_value(a):
            return None                 # (a class's own constant: not the object's state)
        return PROPERTIES["vjp"](_property(obj, name, a, "vjp"), obj, g, name)
    if isinstance(obj, dict):           # a record's gradient, differentiated again
        return {name: g}
    _refuse(obj, name)


def field_tangent(t, obj, name):
    """Tangent of ``obj.name`` from obj's tangent ``t`` (forward mode; the transpose of
    :func:`field_grad`)."""
    if _super_method(obj, name):
        return t
    a = _class_attribute(obj, name)
    if a is None:
        v = getattr(obj, name, None) if t is None or \
            isinstance(t, dict) and name not in t else None
        if v is not None and not isinstance(v, (bool, int)) and rt.carries_gradient(v):
            # a field with no tangent (an object built from arguments of which only some
            # have one): zeros that index and slice as the field does
            return rt.zeros_like(v)
        return field_of(t, name)
    if isinstance(a, types.FunctionType):
        return t
    if isinstance(a, (staticmethod, classmethod)):
        return None
    if _plain_class_value(a):
        return rt.zeros_like(a)
    return PROPERTIES["jvp"](_property(obj, name, a, "jvp"), obj, t, name)


def _plain_class_value(a):
    """A value the class itself holds (``scale = 2.0`` in its body), not a descriptor."""
    return not hasattr(type(a), "__get__") or isinstance(a, (int, float, complex)) or \
        hasattr(a, "shape")


def structure_only(obj, name, zero):
    """The derivative of :func:`field_grad` / :func:`field_tangent` in ``obj``: ``zero``
    for a field or a method (they use obj's structure only); a property's getter would
    need its second derivative, which is refused rather than dropped."""
    if _super_method(obj, name):
        return zero
    a = _class_attribute(obj, name)
    if a is None or isinstance(a, (types.FunctionType, staticmethod, classmethod)) or \
            _plain_class_value(a):
        return zero
    code = getattr(getattr(a, "fget", None), "__code__", None)
    where = f"{code.co_filename}:{code.co_firstlineno}: " if code is not None else ""
    raise NonDifferentiableError(
        f"{where}srcgrad cannot take a second derivative through the property "
        f"{type(obj).__qualname__}.{name}; read the values it is computed from instead")


def field_of(t, name):
    """The field ``name`` of a tangent or cotangent in a structured value's form (a
    namedtuple, a dataclass, or the sparse dict of one: a missing key is zero)."""
    if isinstance(t, dict):
        return t.get(name, 0.0)
    if t is None:
        return 0.0
    return getattr(t, name)


defkernel(field, "obj, name", vjp=dict(obj="field_grad(g, obj, name)"),
          jvp=dict(obj="field_tangent(dobj, obj, name)"), linear_in=("obj",), view_of="obj")
defkernel(field_grad, "t, obj, name",
          vjp=dict(t="field_tangent(g, obj, name)",
                   obj="structure_only(obj, name, zeros_like(obj))"),
          jvp=dict(t="field_grad(dt, obj, name)", obj="structure_only(obj, name, zeros_like(ans))"),
          linear_in=("t",), container=True)
defkernel(field_tangent, "t, obj, name",
          vjp=dict(t="field_grad(g, obj, name)", obj="structure_only(obj, name, zeros_like(obj))"),
          jvp=dict(t="field_tangent(dt, obj, name)",
                   obj="structure_only(obj, name, zeros_like(ans))"),
          linear_in=("t",))
deflinear(field_of, "t, name", "field_grad(g, t, name)", "field_of(dt, name)")
# (the third order through a field: linear in ``zero``, obj gives structure only)
defkernel(structure_only, "obj, name, zero",
          vjp=dict(zero="structure_only(obj, name, g)", obj="zeros_like(obj)"),
          jvp=dict(zero="structure_only(obj, name, dzero)", obj="zeros_like(ans)"),
          linear_in=("zero",))


def with_field(obj, name, value):
    """``obj.name = value`` in differentiated code: a copy of record ``obj`` with the
    field set (the lowering rebinds ``obj`` to it, so the user's own object is never
    changed; the alias check refuses the write where another name still sees obj)."""
    if not _is_record(obj):
        raise NonDifferentiableError(
            f"srcgrad cannot follow the assignment of attribute .{name} of a "
            f"{type(obj).__name__} object with a gradient: it follows attribute writes on "
            f"dataclasses and objects of the user's own classes")
    return rt.with_fields(obj, {name: value})


def without_field(t, name):
    """A record's cotangent (or tangent) with nothing at field ``name``: what flows to
    the object before ``obj.name = value`` replaced that field."""
    if t is None:
        return None
    if isinstance(t, dict):
        out = dict(t)
        out.pop(name, None)
        return out
    if _is_record(t):
        out = rt.grad_fields(t)
        out.pop(name, None)
        return out
    return t


def field_cotangent(t, name, value):
    """Field ``name`` of a record's cotangent ``t`` (sparse dict, instance or None), or
    zeros like ``value`` where nothing flowed to it."""
    part = t.get(name) if isinstance(t, dict) else getattr(t, name, None) \
        if t is not None else None
    return rt.zeros_like(value) if part is None else part


def single_field(t, name):
    """The sparse record cotangent (or tangent) holding ``t`` at field ``name`` only."""
    return {name: t}


defkernel(with_field, "obj, name, value",
          vjp=dict(obj="without_field(g, name)", value="field_cotangent(g, name, value)"),
          jvp=dict(obj="without_field(dobj, name)", value="single_field(dvalue, name)"),
          linear_in=("obj", "value"))
deflinear(without_field, "t, name", "without_field(g, name)", "without_field(dt, name)",
          container=True)
deflinear(field_cotangent, "t, name, value", "single_field(g, name)",
          "field_cotangent(dt, name, value)")
deflinear(single_field, "t, name", "field_of(g, name)", "single_field(dt, name)",
          container=True)


def as_namedtuple(cls, items):
    """``cls(*items)`` for a namedtuple class (items in the fields' order)."""
    return cls._make(items)


def namedtuple_items(t, cls):
    """The cotangent of a namedtuple built by :func:`as_namedtuple` as the tuple of its
    items' cotangents (a missing one, None, is zero)."""
    return tuple(t) if t is not None else None


defkernel(as_namedtuple, "cls, items", vjp=dict(items="namedtuple_items(g, cls)"),
          jvp=dict(items="as_namedtuple(cls, ditems)"), linear_in=("items",), view_of="items",
          container=True)
deflinear(namedtuple_items, "t, cls", "as_namedtuple(cls, g)", "namedtuple_items(dt, cls)",
          container=True)


# -- a namedtuple's or a dataclass's copy with fields changed, and its plain forms -------
# ``p._replace(b=v)``, ``dataclasses.replace(d, b=v)``: ``replaced(p, ("b",), (v,))``;
# ``p._asdict()``, ``dataclasses.asdict(d)`` / ``astuple(d)``: ``as_plain(d, kind)``
# (the lowering writes them so: compiler/lower/expressions.py).  Each gradient has its
# value's structure: a namedtuple's a namedtuple, a dataclass's a sparse dict by field.

def _is_dataclass_instance(x):
    return dataclasses.is_dataclass(x) and not isinstance(x, type)


def replaced(obj, names, values):
    """``obj`` with the fields ``names`` set to ``values``: ``obj._replace(...)`` of a
    namedtuple, ``dataclasses.replace(obj, ...)`` of a dataclass (which runs the class's
    ``__init__``: a copy whose other fields are not obj's own, recomputed by
    ``__post_init__``, is refused rather than differentiated as a copy)."""
    changes = dict(zip(names, values))
    if _is_namedtuple(obj):
        return obj._replace(**changes)
    if _is_dataclass_instance(obj):
        new = dataclasses.replace(obj, **changes)
        for k, v in rt.fields_of(new).items():
            kept = changes[k] if k in changes else getattr(obj, k, None)
            if v is not kept and rt.carries_gradient(v):
                raise NonDifferentiableError(
                    f"dataclasses.replace of a {type(obj).__qualname__}: its __init__ or "
                    f"__post_init__ computes .{k} from the fields, and srcgrad cannot "
                    f"follow a gradient through that computation; compute the value in a "
                    f"method, or set the fields with attribute assignments")
        return new
    raise NonDifferentiableError(
        f"srcgrad differentiates ._replace(...) of namedtuples and dataclasses.replace of "
        f"dataclasses, not of a {type(obj).__name__} object")


def unreplaced(t, names):
    """A cotangent (or tangent) of a ``replaced`` copy with nothing at ``names``: what
    flows back to the object the copy was made from."""
    if t is None:
        return None
    if _is_namedtuple(t):
        return t._replace(**{n: rt.zeros_like(getattr(t, n)) for n in names})
    if _is_record(t):
        t = rt.grad_fields(t)
    if isinstance(t, dict):
        return {k: v for k, v in t.items() if k not in names}
    return t


def replaced_parts(t, names, values):
    """The parts at ``names`` of a cotangent (or tangent) ``t`` (zeros like ``values``
    where nothing flowed): what flows to the new values."""
    return tuple(field_cotangent(t, n, v) for n, v in zip(names, values))


def replaced_fill(t, names, like):
    """The transpose of :func:`replaced_parts`: ``like``'s structure (a namedtuple, or a
    record's sparse dict) holding the items of ``t`` at ``names``."""
    parts = dict(zip(names, t if t is not None else [None] * len(names)))
    if _is_namedtuple(like):
        return like._make(parts[f] if parts.get(f) is not None else rt.zeros_like(v)
                          for f, v in zip(like._fields, like))
    return {n: p for n, p in parts.items() if p is not None}


defkernel(replaced, "obj, names, values",
          vjp=dict(obj="unreplaced(g, names)", values="replaced_parts(g, names, values)"),
          jvp=dict(obj="unreplaced(dobj, names)", values="replaced_fill(dvalues, names, obj)"),
          linear_in=("obj", "values"), container=True)
deflinear(unreplaced, "t, names", "unreplaced(g, names)", "unreplaced(dt, names)",
          container=True)
deflinear(replaced_parts, "t, names, values", "replaced_fill(g, names, t)",
          "replaced_parts(dt, names, values)", constant=("values",), container=True)
deflinear(replaced_fill, "t, names, like", "replaced_parts(g, names, t)",
          "replaced_fill(dt, names, like)", constant=("like",), container=True)


def as_plain(obj, kind):
    """``obj._asdict()`` of a namedtuple (``kind`` "fields"), ``dataclasses.asdict(obj)``
    ("dict") or ``dataclasses.astuple(obj)`` ("tuple")."""
    if kind == "fields":
        if not _is_namedtuple(obj):
            raise NonDifferentiableError(
                f"srcgrad differentiates ._asdict() of namedtuples, not of a "
                f"{type(obj).__name__} object")
        return obj._asdict()
    return dataclasses.asdict(obj) if kind == "dict" else dataclasses.astuple(obj)


def _part(t, key):
    """The part of a cotangent or tangent at a field (None: zero)."""
    if t is None:
        return None
    if isinstance(t, dict):
        return t.get(key)
    return getattr(t, key, None)


def plain_grad(t, obj, kind):
    """The cotangent of ``obj`` from the cotangent ``t`` of ``as_plain(obj, kind)``:
    a dataclass's as the sparse dict of its fields, a namedtuple's a namedtuple."""
    if t is None:
        return None
    if kind == "fields":
        return obj._make(t.get(f) if t.get(f) is not None else rt.zeros_like(v)
                         for f, v in zip(obj._fields, obj))
    return _plain_back(t, obj, kind)


def _plain_back(t, v, kind):
    if t is None:
        return None
    if _is_dataclass_instance(v):
        fs = dataclasses.fields(v)
        items = [t.get(f.name) for f in fs] if kind == "dict" else list(t)
        return {f.name: _plain_back(p, getattr(v, f.name), kind)
                for f, p in zip(fs, items) if p is not None}
    if isinstance(v, (list, tuple)):
        return rt.same_sequence(v, [_plain_back(p, x, kind) for p, x in zip(t, v)])
    if isinstance(v, dict):
        return {k: _plain_back(t.get(k), x, kind) for k, x in v.items()}
    return t


def plain_tangent(t, obj, kind):
    """The tangent of ``as_plain(obj, kind)`` from obj's tangent ``t`` (the transpose of
    :func:`plain_grad`): the plain form's structure, zeros where nothing flowed."""
    if kind == "fields":
        parts = [None] * len(obj) if t is None else \
            [t.get(f) for f in obj._fields] if isinstance(t, dict) else list(t)
        return {f: p if p is not None else rt.zeros_like(v)
                for f, p, v in zip(obj._fields, parts, obj)}
    return _plain_push(t, obj, kind)


def _plain_push(t, v, kind):
    if _is_dataclass_instance(v):
        parts = [(f.name, _plain_push(_part(t, f.name), getattr(v, f.name), kind))
                 for f in dataclasses.fields(v)]
        return dict(parts) if kind == "dict" else tuple(p for _, p in parts)
    if isinstance(v, (list, tuple)):
        items = list(t) if t is not None else [None] * len(v)
        return rt.same_sequence(v, [_plain_push(p, x, kind) for p, x in zip(items, v)])
    if isinstance(v, dict):
        return {k: _plain_push(_part(t, k), x, kind) for k, x in v.items()}
    if t is None:
        return rt.zeros_like(v) if rt.carries_gradient(v) else v
    return t


defkernel(as_plain, "obj, kind", vjp=dict(obj="plain_grad(g, obj, kind)"),
          jvp=dict(obj="plain_tangent(dobj, obj, kind)"), linear_in=("obj",),
          container=True)
deflinear(plain_grad, "t, obj, kind", "plain_tangent(g, obj, kind)",
          "plain_grad(dt, obj, kind)", constant=("obj",), container=True)
deflinear(plain_tangent, "t, obj, kind", "plain_grad(g, obj, kind)",
          "plain_tangent(dt, obj, kind)", constant=("obj",), container=True)
