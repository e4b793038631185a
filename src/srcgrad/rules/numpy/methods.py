"""Array methods and attributes: ``x.sum(...)`` is ``np.ndarray.sum(x, ...)``.

A method gets the templates and the facets of the function it spells
(``x.reshape(s)``: those of ``np.reshape``), with ``x`` bound first.
"""
import numpy as np

from ..registry import (declare, defmethod, defnograd_attributes, defnograd_methods, defrule,
                        lookup)


def _method(method, func, params, name, attribute=False, jvp=None, **facets):
    """``x.method(...)`` with the templates and facets of ``func``'s rule."""
    rule = lookup(func)
    declared = {k: v for k, v in vars(rule.facets).items() if v} if not facets else facets
    rule = defrule(method, params, vjp=rule.vjp, jvp=jvp or rule.jvp,
                   torch_name=rule.torch_name, name=f"np.ndarray.{name}", **declared)
    defmethod(name, method, attribute=attribute)
    return rule


# ---------------------------------------------------------------------------------------
# Array methods and attributes: x.sum(...) is np.ndarray.sum(x, ...)
# ---------------------------------------------------------------------------------------
_method(np.ndarray.sum, np.sum, "a, axis=None, dtype=None, out=None, keepdims=False, initial=None",
        "sum")
_method(np.ndarray.mean, np.mean, "a, axis=None, dtype=None, out=None, keepdims=False", "mean")
_method(np.ndarray.prod, np.prod, "a, axis=None, dtype=None, out=None, keepdims=False", "prod")
_method(np.ndarray.max, np.max, "a, axis=None, out=None, keepdims=False", "max")
_method(np.ndarray.min, np.min, "a, axis=None, out=None, keepdims=False", "min")
_method(np.ndarray.var, np.var, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", "var")
_method(np.ndarray.std, np.std, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", "std")
_method(np.ndarray.cumsum, np.cumsum, "a, axis=None, dtype=None, out=None", "cumsum")
_method(np.ndarray.cumprod, np.cumprod, "a, axis=None, dtype=None, out=None", "cumprod")
_method(np.ndarray.trace, np.trace, "a, offset=0, axis1=0, axis2=1, dtype=None, out=None", "trace")
_method(np.ndarray.dot, np.dot, "a, b, out=None", "dot")
_method(np.ndarray.reshape, np.reshape, "a, *shape, order='C', copy=None", "reshape")
_method(np.ndarray.ravel, np.ravel, "a, order='C'", "ravel")
_method(np.ndarray.flatten, np.ravel, "a, order='C'", "flatten", linear_in="a")  # a copy
_method(np.ndarray.transpose, np.transpose, "a, *axes", "transpose",
        jvp=dict(a="da.transpose(*axes)"))
_method(np.ndarray.T, np.transpose, "a, axes=None", "T", attribute=True)
if hasattr(np.ndarray, "mT"):
    _method(np.ndarray.mT, np.matrix_transpose, "x", "mT", attribute=True)
_method(np.ndarray.swapaxes, np.swapaxes, "a, axis1, axis2", "swapaxes")
_method(np.ndarray.squeeze, np.squeeze, "a, axis=None", "squeeze")
_method(np.ndarray.diagonal, np.diagonal, "a, offset=0, axis1=0, axis2=1", "diagonal")
_method(np.ndarray.repeat, np.repeat, "a, repeats, axis=None", "repeat")
_method(np.ndarray.take, np.take, "a, indices, axis=None, out=None, mode='raise'", "take")
_method(np.ndarray.copy, np.copy, "a, order='C'", "copy")
defrule(np.ndarray.conj, "x", view_of="x", linear_in="x", name="np.ndarray.conj",
                vjp=dict(x="np.conjugate(g)"), jvp=dict(x="np.conjugate(dx)"))
defmethod("conj", np.ndarray.conj)
_method(np.ndarray.conjugate, np.ndarray.conj, "x", "conjugate")
# x.tolist(): a (nested) list of the values, which carry their gradient
defrule(np.ndarray.tolist, "a", name="np.ndarray.tolist", vjp=dict(a="tolist_grad(g, a)"),
        jvp=dict(a="np.asarray(da).tolist()"))
defmethod("tolist", np.ndarray.tolist)
defrule(np.ndarray.astype, "a, dtype, order='K', casting='unsafe', subok=True, copy=True",
        name="np.ndarray.astype", vjp=dict(a="cast_like(g, a)"), jvp=dict(a="cast_like(da, ans)"),
        torch_name="ToCopyBackward0")
defmethod("astype", np.ndarray.astype)

for _name in ("argmax", "argmin", "argsort", "nonzero", "all", "any", "round", "item"):
    defmethod(_name, getattr(np.ndarray, _name))
for _name in ("shape", "ndim", "size", "dtype"):
    defmethod(_name, getattr(np.ndarray, _name), attribute=True)

# x.view(): a view without a rule of its own; x.real, x.imag: np.real's and np.imag's
declare(np.ndarray.view, "a, dtype=None, type=None", name="np.ndarray.view", view_of="a",
        method="view")
_method(np.ndarray.real, np.real, "val", "real", attribute=True)
_method(np.ndarray.imag, np.imag, "val", "imag", attribute=True)

# attributes and methods whose result carries no gradient (on arrays and Tensors)
defnograd_attributes("shape", "ndim", "dtype", "size", "itemsize", "nbytes", "device", "strides",
                     "flags", "is_leaf", "requires_grad", "grad_fn")
defnograd_attributes("data", metadata=False)        # the values, cut from the graph
defnograd_methods("item", "detach", "numpy", "argmax", "argmin", "argsort", "nonzero", "size",
                  "dim", "numel", "any", "all", "get_device", "cpu", "is_contiguous")
# (not "tolist": a list of the values carries their gradient; it has a rule above)
