"""Reading a field of a structured value: ``p.w`` for a namedtuple or a dataclass.

Activity analysis gives an attribute read of a local value (one that is not an
array attribute with its own rule, like ``x.T``) the rule of :func:`field`; the
generated forward code keeps ``p.w`` as the user wrote it.  A gradient has its
value's structure, as JAX's pytrees do: a namedtuple's is a namedtuple of the same
type; a dataclass's is built as a (sparse) dict of field gradients while the
adjoint sweep runs, and becomes an instance of the same class at the end
(``fill_like``), with zeros for the fields nothing flowed into.

Building one, ``State(h, c)`` or ``P(w=w, b=b)`` of a namedtuple class, is
``as_namedtuple(State, (h, c))`` of a tuple display in the fields' order (the lowering
binds the keywords): its gradient is the tuple's, item by item.

Anything else (an array's ``x.flat``, an arbitrary object's attribute) is refused
with an error that names the attribute: srcgrad cannot know what a gradient of
that object is.
"""
import dataclasses

from ... import runtime as rt
from ...errors import NonDifferentiableError
from ..registry import defkernel, deflinear

__all__ = ["field", "field_grad", "field_of", "as_namedtuple", "namedtuple_items"]


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _is_dataclass_value(x):
    return dataclasses.is_dataclass(x) and not isinstance(x, type)


def _refuse(obj, name):
    what = "an array" if hasattr(obj, "shape") else f"a {type(obj).__name__} object"
    raise NonDifferentiableError(
        f"srcgrad cannot differentiate through attribute .{name} of {what}: gradients "
        f"flow through fields of namedtuples and dataclasses (their gradients have the "
        f"same type); pass the values as arguments, or hold them in a namedtuple or a "
        f"dataclass")


def field(obj, name):
    """``obj.name`` for a namedtuple or a dataclass (the rule's primal)."""
    if not (_is_namedtuple(obj) or _is_dataclass_value(obj)):
        _refuse(obj, name)
    return getattr(obj, name)


def field_grad(g, obj, name):
    """Adjoint of ``obj.name``: obj's structure with ``g`` at the field (a namedtuple of
    obj's type, zeros elsewhere; for a dataclass, a sparse dict ``{name: g}``)."""
    if _is_namedtuple(obj):
        return type(obj)._make(g if f == name else rt.zeros_like(v)
                               for f, v in zip(obj._fields, obj))
    if _is_dataclass_value(obj):
        return {name: g}
    if isinstance(obj, dict):           # a dataclass's gradient, differentiated again
        return {name: g}
    _refuse(obj, name)


def field_of(t, name):
    """The field ``name`` of a tangent or cotangent in a structured value's form (a
    namedtuple, a dataclass, or the sparse dict of one: a missing key is zero)."""
    if isinstance(t, dict):
        return t.get(name, 0.0)
    if t is None:
        return 0.0
    return getattr(t, name)


defkernel(field, "obj, name", vjp=dict(obj="field_grad(g, obj, name)"),
          jvp=dict(obj="field_of(dobj, name)"), linear_in=("obj",), view_of="obj")
deflinear(field_grad, "t, obj, name", "field_of(g, name)", "field_grad(dt, obj, name)",
          container=True)
deflinear(field_of, "t, name", "field_grad(g, t, name)", "field_of(dt, name)")


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
