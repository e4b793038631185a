"""``numpy.fft`` and the complex parts: values that pass through complex numbers on the way
to a real result (``abs``, ``real``, ``imag``, ``angle``, ``conj``, FFT round trips).

The convention is autograd's and JAX's: a cotangent is paired with a tangent by the real
part of their product, ``<g, dz> = Re(sum(g * dz))`` (no conjugation), so a reverse rule
is the transpose of the forward one, and a complex cotangent that reaches a real
parameter keeps its real part (:func:`spectral_fit`); a rule whose result is real takes
the real part of its cotangent first (a real value used in complex arithmetic downstream
gets a complex one, whose imaginary part pairs with nothing).  With it, the DFT's matrix is its
own transpose: the adjoint of ``fft`` is ``fft`` (same ``norm``), of ``ifft`` ``ifft``;
``rfft`` keeps the first ``n // 2 + 1`` rows of ``fft`` (its adjoint pads ``g`` with zeros
first); ``irfft`` reads each entry but the first (and, for even ``n``, the last) twice; ``rfftn`` /
``irfftn`` are the n-D ``fftn`` / ``ifftn`` with those rules along their last axis.
A length ``n`` other than the input's pads or truncates it: the adjoint truncates or pads
back.  Every kernel here is written in functions with rules, so derivatives of every
order follow.
"""
import numpy as np

from ...runtime.backends import array_ns, dtype_kind
from .conventions import _fdtype
from ..registry import defnograd, defrule, deftransformable

__all__ = ['spectral_fit', 'abs_grad', 'abs_tangent', 'angle_partial', 'angle_tangent',
           'irfft_weights', 'fft_axes', 'fft_length', 'rfftn_grad', 'irfftn_grad', 'real_like']


# -- kernels ----------------------------------------------------------------------------

def fft_axes(x, axes, s=None, one_axis=None):
    """The axes a transform runs along: ``one_axis`` for the 1-D ones, else ``axes``
    (None: the last ``len(s)`` axes, or all), as non-negative ints."""
    nd = np.ndim(x)
    if one_axis is not None:
        return (one_axis % nd,)
    if axes is None:
        count = nd if s is None else len(s)
        return tuple(range(nd - count, nd))
    return tuple(a % nd for a in axes)


def fft_length(a, n, axis):
    """The length a 1-D transform of ``a`` along ``axis`` reads: ``n``, else ``a``'s."""
    return np.shape(a)[axis] if n is None else n


def spectral_fit(t, x, axes):
    """``t`` truncated or padded with zeros along ``axes`` to ``x``'s lengths, and real
    where ``x`` is real (its cotangent: the real part)."""
    for axis in axes:
        have, want = np.shape(t)[axis], np.shape(x)[axis]
        if have > want:
            t = np.take(t, np.arange(want), axis=axis)
        elif have < want:
            shape = list(np.shape(t))
            shape[axis] = want - have
            t = np.concatenate([t, np.zeros(tuple(shape), dtype=t.dtype)], axis=axis)
    if not np.iscomplexobj(x):
        t = np.real(t)
    return t


def irfft_weights(n, m, ndim, axis, like=None):
    """How many times ``irfft`` reads each of its ``m`` inputs (``n`` outputs): 2, but 1
    for the first and, for even ``n``, the one at ``n / 2``; 0 past ``n // 2``; shaped to
    broadcast along ``axis`` of an ``ndim``-dimensional array (in ``like``'s real dtype:
    float32 stays float32)."""
    k = np.arange(m)
    w = np.where((k == 0) | (2 * k == n), 1.0, np.where(k <= n // 2, 2.0, 0.0))
    if like is not None:
        w = w.astype(np.real(like).dtype)
    shape = [1] * ndim
    shape[axis] = m
    return np.reshape(w, shape)


def _complex(x):
    """Whether ``x`` (an array of any library, or a scalar) holds complex numbers."""
    return dtype_kind(getattr(x, "dtype", None)) == "c" or isinstance(x, complex)


def abs_grad(g, x, ans):
    """The cotangent of ``x`` from ``ans = |x|``'s: ``g sign(x)`` for real ``x``,
    ``Re(g) conj(x) / |x|`` for complex ``x`` (0 where ``x`` is 0)."""
    np = array_ns(g, x, ans)
    if _complex(x):
        return np.real(g) * np.conj(x) / np.where(ans == 0, 1.0, ans)
    return g * np.sign(x)


def abs_tangent(dx, x, ans):
    """The tangent of ``|x|`` along ``dx``: ``Re(conj(x) dx) / |x|`` (real ``x``:
    ``sign(x) dx``)."""
    np = array_ns(dx, x, ans)
    if _complex(x) or _complex(dx):
        return np.real(np.conj(x) * dx) / np.where(ans == 0, 1.0, ans)
    return dx * np.sign(x)


def angle_partial(z, deg=False):
    """``d angle(z)`` paired with a cotangent: ``-i conj(z) / |z|^2`` (0 for real ``z``,
    where the angle is piecewise constant)."""
    scale = 180 / np.pi if deg else 1.0
    if not np.iscomplexobj(z):
        return np.zeros_like(z, dtype=_fdtype(z))
    r2 = np.real(z) ** 2 + np.imag(z) ** 2
    return (-1j * scale) * np.conjugate(z) / np.where(r2 == 0, 1.0, r2)


def angle_tangent(dz, z, deg=False):
    """The tangent of ``angle(z)`` along ``dz``: ``Im(conj(z) dz) / |z|^2``."""
    scale = 180 / np.pi if deg else 1.0
    if not np.iscomplexobj(z):
        return np.zeros_like(z, dtype=_fdtype(z))
    r2 = np.real(z) ** 2 + np.imag(z) ** 2
    return scale * np.imag(np.conjugate(z) * dz) / np.where(r2 == 0, 1.0, r2)


def rfftn_grad(g, a, s=None, axes=None, norm=None):
    """Adjoint of ``rfftn(a, s, axes, norm)``: ``fftn`` truncated to ``n // 2 + 1`` along
    the last axis, so ``g`` padded back with zeros, ``fftn`` again (the DFT is its own
    transpose), then cut or padded to ``a``'s lengths."""
    ax = fft_axes(a, axes, s)
    last = ax[-1]
    n_last = np.shape(a)[last] if s is None else s[-1]
    shape = list(np.shape(g))
    shape[last] = n_last - shape[last]
    full = np.concatenate([g, np.zeros(tuple(shape), dtype=g.dtype)], axis=last)
    return spectral_fit(np.fft.fftn(full, axes=ax, norm=norm), a, ax)


def irfftn_grad(g, ans, a, s=None, axes=None, norm=None):
    """Adjoint of ``irfftn(a, s, axes, norm) = Re(ifftn(w * a))`` (``w``: how many times
    the last axis' entries are read, :func:`irfft_weights`): ``w * ifftn(Re g)``, cut or
    padded to ``a``'s lengths."""
    ax = fft_axes(a, axes, s)
    last = ax[-1]
    t = spectral_fit(np.fft.ifftn(np.real(g), axes=ax, norm=norm), a, ax)
    return t * irfft_weights(np.shape(ans)[last], np.shape(a)[last], np.ndim(a), last, t)


def real_like(t, like):
    """``t``, real where ``like`` is: the tangent of ``np.real_if_close``, which drops the
    imaginary part only when every one is negligible."""
    if _complex(like):
        return t
    return np.real(t)


deftransformable(spectral_fit, abs_grad, abs_tangent, angle_partial, angle_tangent,
                 rfftn_grad, irfftn_grad, real_like)
defnograd(fft_axes, fft_length, irfft_weights, _complex)


# -- rules: the complex parts -----------------------------------------------------------
defrule(np.absolute, "x, out=None", torch_name="AbsBackward0", elementwise=True,   # np.abs
        vjp=dict(x="abs_grad(g, x, ans)"), jvp=dict(x="abs_tangent(dx, x, ans)"))
defrule(np.imag, "val", name="np.imag", linear_in="val", view_of="val", elementwise=True,
        vjp=dict(val="spectral_fit(-1j * np.real(g), val, ())"), jvp=dict(val="np.imag(dval)"))
defrule(np.angle, "z, deg=False", name="np.angle", elementwise=True,
        vjp=dict(z="spectral_fit(np.real(g) * angle_partial(z, deg), z, ())"),
        jvp=dict(z="angle_tangent(dz, z, deg)"))

# (real_if_close: np.real where it drops the imaginary parts, else the identity; either
# way the cotangent of a complex input is g, of a real one its real part)
defrule(np.real_if_close, "a, tol=100", name="np.real_if_close", elementwise=True, view_of="a",
        vjp=dict(a="spectral_fit(g, a, ())"), jvp=dict(a="real_like(da, ans)"))

# -- rules: numpy.fft -------------------------------------------------------------------
_ONE = "a, n=None, axis=-1, norm=None, out=None"
_MANY = "a, s=None, axes=None, norm=None, out=None"
for _f, _inv in ((np.fft.fft, "fft"), (np.fft.ifft, "ifft")):
    defrule(_f, _ONE, name=f"np.fft.{_f.__name__}", linear_in="a",
            vjp=dict(a=f"spectral_fit(np.fft.{_inv}(g, axis=axis, norm=norm), a, "
                       f"fft_axes(a, None, None, axis))"),
            jvp=dict(a=f"np.fft.{_f.__name__}(da, n, axis, norm)"))
for _f, _adjoint in ((np.fft.fft2, "fftn"), (np.fft.ifft2, "ifftn"), (np.fft.fftn, "fftn"),
                    (np.fft.ifftn, "ifftn")):
    _name = _f.__name__
    _params = _MANY.replace("axes=None", "axes=(-2, -1)") if _name.endswith("2") else _MANY
    defrule(_f, _params, name=f"np.fft.{_name}", linear_in="a",
            vjp=dict(a=f"spectral_fit(np.fft.{_adjoint}(g, axes=fft_axes(a, axes, s), "
                       f"norm=norm), a, fft_axes(a, axes, s))"),
            jvp=dict(a=f"np.fft.{_name}(da, s, axes, norm)"))
defrule(np.fft.rfft, _ONE, name="np.fft.rfft", linear_in="a",
        vjp=dict(a="spectral_fit(np.fft.fft(g, n=fft_length(a, n, axis), axis=axis, norm=norm), "
                   "a, fft_axes(a, None, None, axis))"),
        jvp=dict(a="np.fft.rfft(da, n, axis, norm)"))
defrule(np.fft.irfft, _ONE, name="np.fft.irfft", linear_in="a",
        vjp=dict(a="spectral_fit(irfft_weights(np.shape(ans)[axis], np.shape(a)[axis], "
                   "np.ndim(a), fft_axes(a, None, None, axis)[0]) * spectral_fit("
                   "np.fft.ifft(np.real(g), axis=axis, norm=norm), a, "
                   "fft_axes(a, None, None, axis)), a, ())"),
        jvp=dict(a="np.fft.irfft(da, n, axis, norm)"))
for _f in (np.fft.rfft2, np.fft.rfftn):
    _name = _f.__name__
    _params = _MANY.replace("axes=None", "axes=(-2, -1)") if _name.endswith("2") else _MANY
    defrule(_f, _params, name=f"np.fft.{_name}", linear_in="a",
            vjp=dict(a="rfftn_grad(g, a, s, axes, norm)"),
            jvp=dict(a=f"np.fft.{_name}(da, s, axes, norm)"))
for _f in (np.fft.irfft2, np.fft.irfftn):
    _name = _f.__name__
    _params = _MANY.replace("axes=None", "axes=(-2, -1)") if _name.endswith("2") else _MANY
    defrule(_f, _params, name=f"np.fft.{_name}", linear_in="a",
            vjp=dict(a="irfftn_grad(g, ans, a, s, axes, norm)"),
            jvp=dict(a=f"np.fft.{_name}(da, s, axes, norm)"))
defrule(np.fft.fftshift, "x, axes=None", name="np.fft.fftshift", linear_in="x",
        vjp=dict(x="np.fft.ifftshift(g, axes)"), jvp=dict(x="np.fft.fftshift(dx, axes)"))
defrule(np.fft.ifftshift, "x, axes=None", name="np.fft.ifftshift", linear_in="x",
        vjp=dict(x="np.fft.fftshift(g, axes)"), jvp=dict(x="np.fft.ifftshift(dx, axes)"))
