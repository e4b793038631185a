"""Arrays built from differentiable values: array, asarray, copy, casts, full,
linspace, arange (w.r.t. its start and step), ``x.astype``, ``x.tolist``, and the ranges
``a:b:c`` of ``np.r_`` / ``np.c_`` (:func:`index_range`)."""
import numpy as np

from ...runtime.backends import array_ns, dtype_kind

from ..registry import defkernel, deflinear, defmethod, defnograd, defrule
from .conventions import _fdtype, _like, _sum_to, _zeros

__all__ = ['array_grad', 'array_jvp', 'linspace_grad', 'tolist_grad', 'linspace_grad_t',
           'index_range', 'range_weights']


# -- kernels ----------------------------------------------------------------------------

def array_grad(g, obj):
    """Adjoint of ``np.array(obj)`` / ``np.asarray``: the cotangent in ``obj``'s structure
    (an array for an array, a list of cotangents for a list of arrays or floats)."""
    np = array_ns(g, obj)
    if hasattr(obj, "shape"):
        grad = np.reshape(g, obj.shape)
        return grad.astype(obj.dtype) if obj.dtype.kind == "f" and grad.dtype != obj.dtype \
            else grad
    if isinstance(obj, (list, tuple)):
        g = np.reshape(g, np.shape(obj))
        grads = [array_grad(g[i], x) for i, x in enumerate(obj)]
        return tuple(grads) if isinstance(obj, tuple) else grads
    return g[()] if hasattr(g, "shape") else g


def array_jvp(dobj, obj, dtype=None, ndmin=0):
    """Tangent of ``np.array(obj)``: the array of the tangents (zeros where None)."""
    np = array_ns(dobj, obj, dtype, ndmin)
    def fill(d, x):
        if isinstance(x, (list, tuple)):
            ds = d if d is not None else [None] * len(x)
            return [fill(di, xi) for di, xi in zip(ds, x)]
        return _zeros(x) if d is None else d
    t = fill(dobj, obj)
    if isinstance(t, list) and t and all(hasattr(v, "shape") for v in t):
        t = np.stack(t)                         # works for cupy tangents too
    return np.array(t, dtype=dtype, ndmin=ndmin)


def linspace_grad(g, start, stop, num=50, endpoint=True, axis=0, which=0):
    """Adjoint of ``np.linspace(start, stop, num, endpoint, axis=axis)`` for start
    (which=0) or stop (which=1); sample i is ``start + (stop - start) * i / div``."""
    np = array_ns(g, start, stop, num, endpoint, axis, which)
    div = (num - 1 if endpoint else num) or 1
    w = _like((np.arange(num) / div).astype(_fdtype(g)), g)
    w = 1.0 - w if which == 0 else w
    total = np.sum(np.moveaxis(g, axis, -1) * w, axis=-1)
    return _sum_to(total, start if which == 0 else stop)


def tolist_grad(g, a):
    """Adjoint of ``a.tolist()``: the nested list of cotangents (None: zero) as an array."""
    np = array_ns(g, a)
    def fill(gi, shape):
        if gi is None:
            return np.zeros(shape)
        if isinstance(gi, (list, tuple)):
            return np.stack([fill(x, shape[1:]) for x in gi]) if len(gi) else np.zeros(shape)
        return np.broadcast_to(np.asarray(gi, dtype=np.float64), shape)
    out = fill(g, np.shape(a))
    return np.reshape(out, np.shape(a)).astype(_fdtype(a), copy=False)


def linspace_grad_t(g, t, num=50, endpoint=True, axis=0, which=0):
    """Adjoint, for ``t``, of ``linspace_grad(t, ...)``: the samples' weights times ``g``."""
    np = array_ns(g, t, num, endpoint, axis, which)
    z = np.zeros_like(g, dtype=_fdtype(g)) if hasattr(g, "shape") else 0.0
    out = np.linspace(g, z, num, endpoint, axis=axis) if which == 0 else \
        np.linspace(z, g, num, endpoint, axis=axis)
    return np.broadcast_to(out, np.shape(t)) if np.shape(out) != np.shape(t) else out


def index_range(start, stop, step):
    """The array a slice ``start:stop:step`` stands for inside ``np.r_[...]`` /
    ``np.c_[...]``: ``np.arange(start, stop, step)``, or ``np.linspace(start, stop, n)``
    for a complex step ``nj`` (NumPy's reading; start 0 and step 1 when left out)."""
    start = 0 if start is None else start
    step = 1 if step is None else step
    if isinstance(step, (complex, np.complexfloating)):
        return np.linspace(start, stop, num=int(abs(step)))
    return np.arange(start, stop, step)


def range_weights(ans, start, stop=None, step=None, which="start"):
    """d ans / d ``which`` for ``ans = np.arange(start, stop, step)`` (or the linspace of
    :func:`index_range`'s complex step): entry k is ``start + k * step``, so 1 for the
    start, k for the step and 0 for the stop (which only sets the length).
    ``np.arange(n)`` (one argument, bound to ``start`` here) is the stop alone: 0.  A
    linspace's entry k is ``start + (stop - start) k / (n - 1)``."""
    xp = array_ns(ans)
    n = ans.shape[0]
    dt = _fdtype(ans)
    k = xp.arange(n, dtype=dt)
    zero = xp.zeros(n, dtype=dt)
    if isinstance(step, (complex, np.complexfloating)):     # a linspace: n points
        w = k / (n - 1) if n > 1 else zero
        return {"start": 1 - w, "stop": w, "step": zero}[which]
    if stop is None or which == "stop" or dtype_kind(ans.dtype) not in "fc":
        return zero
    return xp.ones(n, dtype=dt) if which == "start" else k


# -- rules ------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------
# Array creation from differentiable values, copies and casts
# ---------------------------------------------------------------------------------------
defrule(np.array, "object, dtype=None, copy=True, order='K', subok=False, ndmin=0", linear_in="object",
        sequence="object",
        vjp=dict(object="array_grad(g, object)"),
        jvp=dict(object="array_jvp(dobject, object, dtype, ndmin)"))
for _f, _p in ((np.asarray, "a, dtype=None, order=None, device=None, copy=None"),
               (np.asanyarray, "a, dtype=None, order=None"),
               (np.ascontiguousarray, "a, dtype=None"),
               (np.asfortranarray, "a, dtype=None")):
    defrule(_f, _p, linear_in="a", view_of="a", sequence="a",
            vjp=dict(a="array_grad(g, a)"), jvp=dict(a="array_jvp(da, a, dtype)"))
_copy = defrule(np.copy, "a, order='K', subok=False", linear_in="a", vjp=dict(a="g"), jvp=dict(a="da"),
                torch_name="CloneBackward0")
for _t in (np.float64, np.float32):
    # (np.float64(x) of a float64 array is x itself; float32 rounds, so it is not linear)
    defrule(_t, "x=0.0", view_of="x", linear_in="x" if _t is np.float64 else (), vjp=dict(x="cast_like(g, x)"), jvp=dict(x="cast_like(dx, ans)"),
            torch_name="ToCopyBackward0")
# values built from a differentiable fill value or end points
defrule(np.full, "shape, fill_value, dtype=None, order='C'",
        vjp=dict(fill_value="unbroadcast(g, fill_value)"),
        jvp=dict(fill_value="expand(dfill_value, ans)"), torch_name="FillBackward0")
defrule(np.full_like, "a, fill_value, dtype=None, order='K', subok=True, shape=None",
        vjp=dict(fill_value="unbroadcast(g, fill_value)"),
        jvp=dict(fill_value="expand(dfill_value, ans)"), torch_name="FillBackward0")
defrule(np.linspace, "start, stop, num=50, endpoint=True, dtype=None, axis=0",
        vjp=dict(start="linspace_grad(g, start, stop, num, endpoint, axis, 0)",
                 stop="linspace_grad(g, start, stop, num, endpoint, axis, 1)"),
        jvp=dict(start="np.linspace(dstart, zeros_like(stop), num, endpoint, axis=axis)",
                 stop="np.linspace(zeros_like(start), dstop, num, endpoint, axis=axis)"))


# an arange is start + k * step (its length is piecewise constant in stop)
defrule(np.arange, "start, stop=None, step=None, dtype=None, *, device=None, like=None",
        vjp=dict(start="unbroadcast(g * range_weights(ans, start, stop, step, 'start'), start)",
                 stop="zeros_like(stop)",
                 step="unbroadcast(g * range_weights(ans, start, stop, step, 'step'), step)"),
        jvp=dict(start="dstart * range_weights(ans, start, stop, step, 'start')",
                 stop="zeros_like(ans)",
                 step="dstep * range_weights(ans, start, stop, step, 'step')"))
defkernel(index_range, "start, stop, step",
          vjp={p: f"unbroadcast(g * range_weights(ans, start, stop, step, {p!r}), {p})"
               for p in ("start", "stop", "step")},
          jvp={p: f"d{p} * range_weights(ans, start, stop, step, {p!r})"
               for p in ("start", "stop", "step")})
defnograd(range_weights, names=["ad.range_weights"])

# values gathered into / read out of containers (linear; the container is structure)
defkernel(array_grad, "t, obj",
             vjp=dict(t="np.reshape(array_jvp(g, obj), np.shape(t))", obj="zeros_like(obj)"),
             jvp=dict(t="array_grad(dt, obj)", obj="zeros_like(ans)"))
defkernel(array_jvp, "t, obj, dtype=None, ndmin=0",
             vjp=dict(t="array_grad(g, obj)", obj="zeros_like(obj)"),
             jvp=dict(t="array_jvp(dt, obj, dtype, ndmin)", obj="zeros_like(ans)"))

defkernel(linspace_grad, "t, start, stop, num=50, endpoint=True, axis=0, which=0",
             vjp=dict(t="linspace_grad_t(g, t, num, endpoint, axis, which)",
                      start="zeros_like(start)", stop="zeros_like(stop)"),
             jvp=dict(t="linspace_grad(dt, start, stop, num, endpoint, axis, which)",
                      start="zeros_like(ans)", stop="zeros_like(ans)"))
deflinear(tolist_grad, "t, a", "np.asarray(g).tolist()", "tolist_grad(dt, a)", constant=["a"])
