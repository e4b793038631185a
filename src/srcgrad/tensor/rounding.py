"""Float arithmetic rounded as PyTorch's CPU kernels round it.

PyTorch's vectorised float32 routines are within an ulp of the true value and
mostly round it correctly, NumPy's float32 loops less often (exp: 1% of values
differ, not 39%); so in float32 these functions are computed in float64 and
rounded once.

Some of PyTorch's kernels multiply and add with one rounding (a fused multiply-add):
``add(other, alpha=a)`` is ``fma(other, a, self)``, ``addcmul(t1, t2, value=v)`` is
``fma(v * t1, t2, self)``, ``lerp(end, w)`` is ``fma(w, end - self, self)`` (for
``|w| < 0.5``); :func:`fma` computes that on NumPy arrays.
"""
import sys

import numpy as np

__all__ = ["ROUNDED_ONCE", "rounded_once", "fma", "fma64", "lerp"]

# the Tensor methods computed so
ROUNDED_ONCE = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
                "asin", "acos", "atan", "sinh", "cosh", "tanh"}


def rounded_once(func):
    """``func`` for arrays, a float32 array computed in float64 and rounded once."""
    def forward(a):
        if type(a) is np.ndarray and a.dtype == np.float32:
            with np.errstate(all="ignore"):
                return func(a.astype(np.float64)).astype(np.float32)
        return func(a)
    return forward


def fma64(a, b, c):
    """``a * b + c`` rounded once (float64): Dekker's exact product, then an exact sum."""
    p = a * b
    ta, tb = a * 134217729.0, b * 134217729.0           # 2**27 + 1 splits 53 bits in two
    ah, bh = ta - (ta - a), tb - (tb - b)
    al, bl = a - ah, b - bh
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    back = s - p
    return s + (((p - (s - back)) + (c - back)) + err)


def _fma32(a, b, c):
    """``a * b + c`` rounded once, for float32.  The product is exact in float64; the sum
    rounded to float64 then to float32 is rounded once unless the float64 sum landed on a
    float32 midpoint (or in float32's subnormal range, where midpoints lie elsewhere): only
    those entries are redone exactly (:func:`_fma32_exact`).  (An infinite operand gives
    the infinity, as a fused multiply-add does.)"""
    s = np.asarray(np.multiply(a, b, dtype=np.float64))
    np.add(s, c, out=s)
    out = s.astype(np.float32)
    words = np.reshape(s, -1).view(np.uint32)       # a midpoint: the low 29 bits 1 << 28
    low = words[::2] if _LITTLE else words[1::2]
    suspect = np.reshape((low & np.uint32(0x1FFFFFFF)) == np.uint32(0x10000000), s.shape)
    if (np.abs(out) < _TINY32).any():
        suspect |= (np.abs(out) < _TINY32) & (s != 0)
    if suspect.any():
        a, b, c = np.broadcast_arrays(a, b, c)
        out = np.array(np.broadcast_to(out, suspect.shape))
        out[suspect] = _fma32_exact(a[suspect], b[suspect], c[suspect])
    return out


_LITTLE = sys.byteorder == "little"
_TINY32 = np.float32(2.0 ** -126)


def _fma32_exact(a, b, c):
    """``a * b + c`` rounded once, for float32: the product is exact in float64, the sum
    is rounded to float64 *to odd* (so rounding that to float32 is rounding once)."""
    p = np.multiply(a, b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    s = p + c
    back = s - p
    err = (p - (s - back)) + (c - back)          # s + err is p + c exactly
    bits = np.asarray(s).view(np.int64)
    inexact = (err != 0) & ((bits & 1) == 0)
    if inexact.any():
        step = np.where((err > 0) == (s > 0), 1, -1)
        bits = np.where(inexact, bits + step, bits)
    return np.asarray(bits).view(np.float64).astype(np.float32)


def fma(a, b, c):
    """``a * b + c`` with one rounding, on NumPy float arrays or numbers (float32 or
    float64, the dtype of the result of ``a * b + c``); other arrays: ``a * b + c``."""
    dtype = np.result_type(a, b, c)
    if not all(type(v) is np.ndarray or np.isscalar(v) or isinstance(v, np.generic)
               for v in (a, b, c)):
        return a * b + c
    with np.errstate(all="ignore"):
        if dtype == np.float32:
            return _fma32(a, b, c)
        if dtype == np.float64:
            return np.asarray(fma64(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                    np.asarray(c, np.float64)))
    return a * b + c


def lerp(start, end, weight):
    """PyTorch's ``lerp``: ``start + weight * (end - start)`` for ``|weight| < 0.5``, else
    ``end - (end - start) * (1 - weight)``, each with one rounding of its product-sum."""
    diff = end - start
    if abs(float(weight)) < 0.5:
        return fma(weight, diff, start)
    return fma(-diff, type(weight)(1) - weight if isinstance(weight, np.generic) else 1 - weight,
               end)
