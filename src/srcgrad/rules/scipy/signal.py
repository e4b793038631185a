"""``scipy.signal``: convolve, correlate and fftconvolve, N-D, modes full / same / valid;
convolve2d and correlate2d with ``boundary="fill"`` and ``fillvalue=0``.

A convolution is bilinear: the adjoint for one input is the full-size cotangent (``g``
placed in the full result at the window ``mode`` keeps, zeros around) convolved,
``"valid"``, with the other input reversed (no conjugate, also for complex input: in
srcgrad's convention the adjoint of a linear map is its transpose).
``correlate(a, b, mode)`` is ``convolve(a, conj(flip(b)), mode)`` (SciPy's identity).
``convolve2d`` is ``convolve`` of two matrices; ``correlate2d`` is the full correlation
with its ``same`` window rounded the other way (``_window_pad(..., ceil=True)``).  The kernels call
the function that was called (``fftconvolve`` stays FFT-based) and are written in
differentiable primitives, so every order works.

``lfilter(b, a, x)`` (``zi=None``) is ``y = H_a(B x)``: the FIR filter ``b``, then the
all-pole filter ``1/a``, along ``axis``.  Its adjoint starts from ``q = H_a^T g``, the
all-pole filter run backwards in time; then ``x`` gets ``B^T q`` (``sum_k b_k q[n+k]``),
``b_k`` gets ``sum_n q[n] x[n-k]`` and ``a_j`` gets ``-sum_n q[n] y[n-j]`` (from ``A y =
B x``).  Its tangent is ``lfilter(db, a, x) + lfilter(b, a, dx) - lfilter(da, a, y)``.
"""
import numpy as np
import scipy.signal as ss
from scipy.signal import lfilter

from ..numpy.conventions import _is_complex
from ..registry import defnograd, defrule, deftransformable
from .linalg import sl_refuse

__all__ = ['sig_convolve_grad', 'sig_correlate_grad', 'sig_fftconvolve_grad',
           'sig_convolve_jvp', 'sig_correlate_jvp', 'sig_fftconvolve_jvp',
           'sig_convolve2d_grad', 'sig_correlate2d_grad', 'sig_convolve2d_jvp',
           'sig_correlate2d_jvp', 'sig_lfilter_grad', 'sig_lfilter_jvp',
           'lfilter']   # (SciPy's, which the tangents call: it has the rule here)


def _window_pad(mode, s1, s2, gs, ceil=False):
    """``np.pad`` widths placing a result of shape ``gs`` in the full convolution of
    shapes ``s1`` and ``s2`` (SciPy centres ``same`` and ``valid`` in it, an odd margin's
    extra entry after the window; ``ceil``: before it, as ``correlate2d`` does)."""
    if len(s1) != len(s2):
        sl_refuse("scipy.signal: inputs with different numbers of dimensions")
    if mode not in ("full", "same", "valid"):
        sl_refuse(f"scipy.signal: no derivative for mode={mode!r}")
    full = [a + b - 1 for a, b in zip(s1, s2)]
    lead = [(f - n + 1) // 2 if ceil else (f - n) // 2 for f, n in zip(full, gs)]
    return [(k, f - n - k) for k, f, n in zip(lead, full, gs)]


def _fill_check(boundary, fillvalue, name):
    if boundary != "fill" or fillvalue != 0:
        sl_refuse(f"scipy.signal.{name}(boundary={boundary!r}, fillvalue={fillvalue!r}): "
                  f"derivative for boundary='fill' with fillvalue=0 only")


def _axes_check(axes):
    if axes is not None:
        sl_refuse("scipy.signal.fftconvolve(axes=...): derivative for axes=None only")


defnograd(_window_pad, _axes_check, _fill_check)


def sig_convolve_grad(g, in1, in2, mode="full", method="auto", which=0):
    """Adjoint of ``scipy.signal.convolve(in1, in2, mode, method)``."""
    gfull = np.pad(g, _window_pad(mode, np.shape(in1), np.shape(in2), np.shape(g)))
    other = in2 if which == 0 else in1
    return ss.convolve(gfull, np.flip(other), "valid", method)


def sig_fftconvolve_grad(g, in1, in2, mode="full", axes=None, which=0):
    """Adjoint of ``scipy.signal.fftconvolve(in1, in2, mode)``."""
    _axes_check(axes)
    gfull = np.pad(g, _window_pad(mode, np.shape(in1), np.shape(in2), np.shape(g)))
    other = in2 if which == 0 else in1
    return ss.fftconvolve(gfull, np.flip(other), "valid")


def sig_correlate_grad(g, in1, in2, mode="full", method="auto", which=0):
    """Adjoint of ``scipy.signal.correlate(in1, in2, mode, method)``: that of
    ``convolve(in1, conj(flip(in2)), mode)``, reversed (and conjugated) back for ``in2``."""
    cx = _is_complex(in2)
    other = np.conj(np.flip(in2)) if cx else np.flip(in2)
    if which == 0:
        return sig_convolve_grad(g, in1, other, mode, method, 0)
    grad = np.flip(sig_convolve_grad(g, in1, other, mode, method, 1))
    return np.conj(grad) if cx else grad


def sig_convolve_jvp(d1, d2, in1, in2, mode="full", method="auto"):
    """Tangent of a bilinear convolution: ``conv(d1, in2) + conv(in1, d2)``."""
    out = 0.0
    if d1 is not None:
        out = out + ss.convolve(d1, in2, mode, method)
    if d2 is not None:
        out = out + ss.convolve(in1, d2, mode, method)
    return out


def sig_correlate_jvp(d1, d2, in1, in2, mode="full", method="auto"):
    out = 0.0
    if d1 is not None:
        out = out + ss.correlate(d1, in2, mode, method)
    if d2 is not None:
        out = out + ss.correlate(in1, d2, mode, method)
    return out


def sig_fftconvolve_jvp(d1, d2, in1, in2, mode="full", axes=None):
    _axes_check(axes)
    out = 0.0
    if d1 is not None:
        out = out + ss.fftconvolve(d1, in2, mode)
    if d2 is not None:
        out = out + ss.fftconvolve(in1, d2, mode)
    return out


def sig_convolve2d_grad(g, in1, in2, mode="full", boundary="fill", fillvalue=0, which=0):
    """Adjoint of ``scipy.signal.convolve2d``: ``convolve``'s (the same windows)."""
    _fill_check(boundary, fillvalue, "convolve2d")
    return sig_convolve_grad(g, in1, in2, mode, "auto", which)


def sig_correlate2d_grad(g, in1, in2, mode="full", boundary="fill", fillvalue=0, which=0):
    """Adjoint of ``scipy.signal.correlate2d``: ``g`` placed in the full correlation at
    correlate2d's window, then the full correlation's adjoint."""
    _fill_check(boundary, fillvalue, "correlate2d")
    gfull = np.pad(g, _window_pad(mode, np.shape(in1), np.shape(in2), np.shape(g), True))
    return sig_correlate_grad(gfull, in1, in2, "full", "auto", which)


def _bilinear_2d_jvp(op, d1, d2, in1, in2, mode, boundary, fillvalue):
    """The tangent of ``op(in1, in2)`` (convolve2d / correlate2d: bilinear)."""
    _fill_check(boundary, fillvalue, op.__name__)
    out = 0.0
    if d1 is not None:
        out = out + op(d1, in2, mode)
    if d2 is not None:
        out = out + op(in1, d2, mode)
    return out


def sig_convolve2d_jvp(d1, d2, in1, in2, mode="full", boundary="fill", fillvalue=0):
    return _bilinear_2d_jvp(ss.convolve2d, d1, d2, in1, in2, mode, boundary, fillvalue)


def sig_correlate2d_jvp(d1, d2, in1, in2, mode="full", boundary="fill", fillvalue=0):
    return _bilinear_2d_jvp(ss.correlate2d, d1, d2, in1, in2, mode, boundary, fillvalue)


def _lfilter_zi(zi):
    if zi is not None:
        sl_refuse("scipy.signal.lfilter with initial conditions zi: srcgrad differentiates "
                  "zi=None only (prepend the past samples to x instead)")


def _delayed(v, k):
    """``v`` delayed by ``k`` samples along its last axis (zeros first, length kept)."""
    if k == 0:
        return v
    n = np.shape(v)[-1]
    zeros = np.zeros_like(v[..., :min(k, n)])
    return np.concatenate((zeros, v[..., :max(n - k, 0)]), axis=-1)


def _advanced(v, k):
    """``v`` advanced by ``k`` samples along its last axis (zeros last, length kept)."""
    if k == 0:
        return v
    n = np.shape(v)[-1]
    zeros = np.zeros_like(v[..., :min(k, n)])
    return np.concatenate((v[..., min(k, n):], zeros), axis=-1)


def sig_lfilter_grad(g, ans, b, a, x, axis=-1, zi=None, which=0):
    """Adjoint of ``lfilter(b, a, x, axis)`` for ``b`` (which=0), ``a`` (1) or ``x`` (2)."""
    _lfilter_zi(zi)
    one = np.ones(1, dtype=np.result_type(np.asarray(a).dtype, np.float32))
    q = np.flip(lfilter(one, a, np.flip(g, axis), axis), axis)
    qm = np.moveaxis(q, axis, -1)
    if which == 2:
        bs = np.atleast_1d(b)
        out = 0.0
        for k in range(np.shape(bs)[0]):
            out = out + bs[k] * _advanced(qm, k)
        return np.moveaxis(out * np.ones_like(qm), -1, axis)
    other = np.moveaxis(x if which == 0 else ans, axis, -1)
    size = np.shape(np.atleast_1d(b if which == 0 else a))[0]
    parts = [np.sum(qm * _delayed(other, k)) for k in range(size)]
    out = np.stack(parts) if which == 0 else -np.stack(parts)
    return np.reshape(out, np.shape(b if which == 0 else a))


def sig_lfilter_jvp(t, ans, b, a, x, axis=-1, zi=None, which=0):
    """Tangent of ``lfilter(b, a, x, axis)`` along a tangent ``t`` of ``b`` (which=0),
    ``a`` (1) or ``x`` (2)."""
    _lfilter_zi(zi)
    if which == 0:
        return lfilter(t, a, x, axis)
    if which == 1:
        return -lfilter(t, a, ans, axis)
    return lfilter(b, a, t, axis)


deftransformable(sig_lfilter_grad, sig_lfilter_jvp, _delayed, _advanced)
defnograd(_lfilter_zi)


deftransformable(sig_convolve_grad, sig_fftconvolve_grad, sig_correlate_grad,
                 sig_convolve_jvp, sig_correlate_jvp, sig_fftconvolve_jvp,
                 sig_convolve2d_grad, sig_correlate2d_grad, sig_convolve2d_jvp,
                 sig_correlate2d_jvp)


# -- rules ------------------------------------------------------------------------------
def _rule(func, params, **kw):
    return defrule(func, params, name=f"scipy.signal.{func.__name__}", **kw)


for _f, _grad, _jvp in ((ss.convolve, "sig_convolve_grad", "sig_convolve_jvp"),
                        (ss.correlate, "sig_correlate_grad", "sig_correlate_jvp")):
    _rule(_f, "in1, in2, mode='full', method='auto'", bilinear_in=("in1", "in2"),
          vjp=dict(in1=f"{_grad}(g, in1, in2, mode, method, 0)",
                   in2=f"{_grad}(g, in1, in2, mode, method, 1)"),
          jvp=dict(in1=f"{_jvp}(din1, None, in1, in2, mode, method)",
                   in2=f"{_jvp}(None, din2, in1, in2, mode, method)"))
_rule(ss.fftconvolve, "in1, in2, mode='full', axes=None", bilinear_in=("in1", "in2"),
      vjp=dict(in1="sig_fftconvolve_grad(g, in1, in2, mode, axes, 0)",
               in2="sig_fftconvolve_grad(g, in1, in2, mode, axes, 1)"),
      jvp=dict(in1="sig_fftconvolve_jvp(din1, None, in1, in2, mode, axes)",
               in2="sig_fftconvolve_jvp(None, din2, in1, in2, mode, axes)"))
for _f, _grad, _jvp in ((ss.convolve2d, "sig_convolve2d_grad", "sig_convolve2d_jvp"),
                        (ss.correlate2d, "sig_correlate2d_grad", "sig_correlate2d_jvp")):
    _rule(_f, "in1, in2, mode='full', boundary='fill', fillvalue=0",
          bilinear_in=("in1", "in2"),
          vjp=dict(in1=f"{_grad}(g, in1, in2, mode, boundary, fillvalue, 0)",
                   in2=f"{_grad}(g, in1, in2, mode, boundary, fillvalue, 1)"),
          jvp=dict(in1=f"{_jvp}(din1, None, in1, in2, mode, boundary, fillvalue)",
                   in2=f"{_jvp}(None, din2, in1, in2, mode, boundary, fillvalue)"))
_rule(ss.lfilter, "b, a, x, axis=-1, zi=None",
      vjp=dict(b="sig_lfilter_grad(g, ans, b, a, x, axis, zi, 0)",
               a="sig_lfilter_grad(g, ans, b, a, x, axis, zi, 1)",
               x="sig_lfilter_grad(g, ans, b, a, x, axis, zi, 2)"),
      jvp=dict(b="sig_lfilter_jvp(db, ans, b, a, x, axis, zi, 0)",
               a="sig_lfilter_jvp(da, ans, b, a, x, axis, zi, 1)",
               x="sig_lfilter_jvp(dx, ans, b, a, x, axis, zi, 2)"))
