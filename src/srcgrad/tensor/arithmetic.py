"""Tensor methods for elementwise arithmetic (operators with PyTorch's type promotion,
comparisons, unary math), casts to another dtype or device, and matrix products."""
import numbers

import numpy as np

from .. import runtime
from . import dtypes, grad_mode
from .autograd import fused
from .core import Tensor, _bool, _float, _int
from .device import move, to_device
from .dispatch import _as_tensor_like, apply
from .rounding import ROUNDED_ONCE, fma, rounded_once
from .rounding import lerp as rounding_lerp

__all__ = ["ArithmeticMethods"]


def _scalar_power(base, exponent):
    """``base ** exponent`` for a number ``exponent``, as PyTorch's CPU kernel computes it:
    products for 2 and 3, (reciprocal) square roots for +-0.5, reciprocals for -1 and -2;
    other float32 powers in float64, rounded once (nearer PyTorch's than float32 powf)."""
    if type(base) is not np.ndarray or base.dtype.kind != "f" or np.ndim(exponent):
        return np.power(base, exponent)
    e = float(exponent)
    with np.errstate(divide="ignore", invalid="ignore"):
        if e == 2:
            return base * base
        if e == 3:
            return base * base * base
        if e == 0.5:
            return np.sqrt(base)
        if e == -0.5:
            return 1 / np.sqrt(base)
        if e == -1:
            return 1 / base
        if e == -2:
            return 1 / (base * base)
        if base.dtype == np.float32 and e != int(e) or base.dtype == np.float32 and abs(e) > 3:
            return np.power(base.astype(np.float64), e).astype(np.float32)
    return np.power(base, exponent)


def _tensor_power(base, exponent):
    """``base ** exponent`` elementwise: float32 as PyTorch's CPU kernel, correctly rounded
    (computed in float64)."""
    if type(base) is np.ndarray and base.dtype == np.float32 and \
            getattr(exponent, "dtype", None) == np.float32:
        return np.power(base.astype(np.float64), exponent).astype(np.float32)
    return np.power(base, exponent)


# the C++ type names PyTorch's mm kernels print in their dtype mismatch message
_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                   "int64": "long int", "int32": "int", "int16": "short int",
                   "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
                   "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _matmul_dtype_message(a, b, a_ndim, b_ndim):
    """PyTorch's message for ``a @ b`` of two dtypes, worded by the kernel the ranks pick:
    dot (1-D, 1-D), addmv (2-D, 1-D), bmm (both above 2-D), mm otherwise."""
    if a_ndim == 1 and b_ndim == 1:
        return (f"dot : expected both vectors to have same dtype, but found {a.short} "
                f"and {b.short}")
    if a_ndim == 2 and b_ndim == 1:
        return (f"addmv input tensors must have the same dtype, but got {b.short}, "
                f"{a.short}, and {b.short}")
    if a_ndim > 2 and b_ndim > 2:
        return f"expected scalar type {a.short} but found {b.short}"
    return (f"expected m1 and m2 to have the same dtype, but got: "
            f"{_CPP_TYPE_NAMES.get(a.name, a.name)} != {_CPP_TYPE_NAMES.get(b.name, b.name)}")


class ArithmeticMethods:
    """Attached to :class:`~.core.Tensor` by :mod:`.methods`."""

    # -- devices and dtypes -----------------------------------------------------------------
    def to(self, *args, **kwargs):
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other_tensor)``."""
        dev, dt = kwargs.get("device"), kwargs.get("dtype")
        copy = kwargs.get("copy", False)
        for a in args:
            if isinstance(a, Tensor):
                dev, dt = a.device, a.dtype
            elif isinstance(a, dtypes.dtype) or (isinstance(a, type) and a in (_float, _int, _bool)):
                dt = dtypes.to_dtype(a)
            elif a is not None:
                dev = a
        out = self
        if dt is not None:
            dt = dtypes.to_dtype(dt)
            if dt is not out.dtype or copy:
                out = apply(np.ndarray.astype, (out, dt.numpy), name="ToCopyBackward0",
                            forward=_astype)
        if dev is not None:
            dev = to_device(dev)
            if dev != out.device:
                out = _to_device(out, dev)
        return out

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False):
        return self.to(device if device is not None else "cuda")

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def half(self):
        return self.to(dtypes.float16)

    def long(self):
        return self.to(dtypes.int64)

    def int(self):
        return self.to(dtypes.int32)

    def bool(self):
        return self.to(dtypes.bool)

    def type_as(self, other):
        return self.to(other.dtype)

    # -- arithmetic (elementwise, with PyTorch's type promotion) ----------------------------
    def _binary(self, func, other, name, reflected=False):
        args = (other, self) if reflected else (self, other)
        return apply(func, args, name=name, promote=True)

    def __add__(self, other):
        return self._binary(np.add, other, "AddBackward0")

    def __radd__(self, other):
        return self._binary(np.add, other, "AddBackward0")

    def __sub__(self, other):
        return self._binary(np.subtract, other, "SubBackward0")

    def __rsub__(self, other):
        name = "RsubBackward0" if isinstance(other, Tensor) else "RsubBackward1"
        return self._binary(np.subtract, other, name, reflected=True)

    def __mul__(self, other):
        return self._binary(np.multiply, other, "MulBackward0")

    def __rmul__(self, other):
        return self._binary(np.multiply, other, "MulBackward0")

    def __truediv__(self, other):
        return apply(np.true_divide, (self, other), name="DivBackward0", promote=True,
                     floating=True)

    def __rtruediv__(self, other):
        return self.reciprocal() * other

    def __floordiv__(self, other):
        return apply(np.floor_divide, (self, other), name="FloorDivideBackward0", promote=True)

    def __rfloordiv__(self, other):
        return apply(np.floor_divide, (other, self), name="FloorDivideBackward0", promote=True)

    def __mod__(self, other):
        return apply(np.remainder, (self, other), name="RemainderBackward0", promote=True)

    def __rmod__(self, other):
        return apply(np.remainder, (other, self), name="RemainderBackward1", promote=True)

    def __pow__(self, other):
        if isinstance(other, Tensor):
            return apply(np.power, (self, other), name="PowBackward1", promote=True,
                         forward=_tensor_power)
        return apply(np.power, (self, other), name="PowBackward0", promote=True,
                     forward=_scalar_power)

    def __rpow__(self, other):
        return apply(np.power, (other, self), name="PowBackward2", promote=True)

    def __matmul__(self, other):
        return self.matmul(other)

    def __rmatmul__(self, other):
        return _as_tensor_like(other, self).matmul(self)

    def __neg__(self):
        if self._data.dtype.kind == "b":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        return apply(np.negative, (self,), name="NegBackward0")

    def __pos__(self):
        return self

    def __abs__(self):
        return self.abs()

    def __invert__(self):
        return apply(np.invert, (self,))

    def __and__(self, other):
        return apply(np.bitwise_and, (self, other), promote=True)

    def __or__(self, other):
        return apply(np.bitwise_or, (self, other), promote=True)

    def __xor__(self, other):
        return apply(np.bitwise_xor, (self, other), promote=True)

    def __lshift__(self, other):
        return apply(np.left_shift, (self, other), promote=True)

    def __rshift__(self, other):
        return apply(np.right_shift, (self, other), promote=True)

    def __rlshift__(self, other):
        return apply(np.left_shift, (other, self), promote=True)

    def __rrshift__(self, other):
        return apply(np.right_shift, (other, self), promote=True)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__
    bitwise_and, bitwise_or, bitwise_xor, bitwise_not = __and__, __or__, __xor__, __invert__
    bitwise_left_shift, bitwise_right_shift = __lshift__, __rshift__

    def _compare(self, func, other):
        return apply(func, (self, other), promote=True)

    def __eq__(self, other):
        if not isinstance(other, (Tensor, numbers.Number, np.ndarray)):
            return False
        return self._compare(np.equal, other)

    def __ne__(self, other):
        if not isinstance(other, (Tensor, numbers.Number, np.ndarray)):
            return True
        return self._compare(np.not_equal, other)

    def __lt__(self, other):
        return self._compare(np.less, other)

    def __le__(self, other):
        return self._compare(np.less_equal, other)

    def __gt__(self, other):
        return self._compare(np.greater, other)

    def __ge__(self, other):
        return self._compare(np.greater_equal, other)

    eq, ne, lt, le, gt, ge = __eq__, __ne__, __lt__, __le__, __gt__, __ge__
    greater, less, greater_equal, less_equal, not_equal = __gt__, __lt__, __ge__, __le__, __ne__

    def equal(self, other):
        return self.shape == other.shape and bool((self._data == other._data).all())

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return bool(np.allclose(self._data, other._data, rtol=rtol, atol=atol,
                                equal_nan=equal_nan))

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return Tensor._make(np.isclose(self._data, other._data, rtol=rtol, atol=atol,
                                       equal_nan=equal_nan))

    def add(self, other, alpha=1):
        if alpha == 1:
            return self + other
        return _fused_alpha(self + other * alpha, self, other, alpha)

    def sub(self, other, alpha=1):
        if alpha == 1:
            return self - other
        return _fused_alpha(self - other * alpha, self, other, -alpha)

    subtract = sub

    def mul(self, other):
        return self * other

    multiply = mul

    def div(self, other, rounding_mode=None):
        if rounding_mode == "floor":
            return self // other
        if rounding_mode == "trunc":
            return (self / other).trunc()
        return self / other

    divide = true_divide = div

    def pow(self, exponent):
        return self ** exponent

    def remainder(self, other):
        return self % other

    def floor_divide(self, other):
        return self // other

    def rsub(self, other):
        return other - self

    def maximum(self, other):
        return apply(np.maximum, (self, other), name="MaximumBackward0", promote=True)

    def minimum(self, other):
        return apply(np.minimum, (self, other), name="MinimumBackward0", promote=True)

    def logical_not(self):
        return apply(np.logical_not, (self,))

    def logical_and(self, other):
        return apply(np.logical_and, (self, other))

    def logical_or(self, other):
        return apply(np.logical_or, (self, other))

    def logical_xor(self, other):
        return apply(np.logical_xor, (self, other))

    def isnan(self):
        return apply(np.isnan, (self,))

    def isinf(self):
        return apply(np.isinf, (self,))

    def isfinite(self):
        return apply(np.isfinite, (self,))

    # -- unary math -------------------------------------------------------------------------
    def _unary(self, func, name):
        return apply(func, (self,), name=name, floating=True)

    def square(self):
        return apply(np.power, (self, 2), name="PowBackward0", promote=True)

    def rsqrt(self):
        return apply(np.power, (self, -0.5), name="RsqrtBackward0", promote=True, floating=True)

    def relu(self):
        return fused.relu(self, _composed_relu)

    def sigmoid(self):
        special = scipy_special(self)
        if special is not None:
            # one node, scipy.special.expit's rule (g * ans * (1 - ans)): it saves the
            # result, as PyTorch's does, so changing the result in place makes backward raise
            return apply(special.expit, (self,), name="SigmoidBackward0", floating=True)
        # without SciPy: 1 / (1 + exp(-x)), the last node (which saves its result) named
        # as PyTorch's
        return apply(np.reciprocal, ((-self).exp() + 1,), name="SigmoidBackward0",
                     floating=True)

    def clamp(self, min=None, max=None):
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            out = self
            if min is not None:
                out = out.maximum(min)
            if max is not None:
                out = out.minimum(max)
            return out
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return apply(np.clip, (self, min, max), name="ClampBackward1")

    clip = clamp

    def clamp_min(self, min):
        return self.clamp(min=min)

    def clamp_max(self, max):
        return self.clamp(max=max)

    def sign(self):
        return _step_function(np.sign, (self,), "SignBackward0")

    def floor(self):
        return _step_function(np.floor, (self,), "FloorBackward0")

    def ceil(self):
        return _step_function(np.ceil, (self,), "CeilBackward0")

    def round(self, decimals=0):
        return _step_function(np.round, (self, decimals), "RoundBackward0" if not decimals
                              else "RoundBackward1")

    def trunc(self):
        return _step_function(np.trunc, (self,), "TruncBackward0")

    def atan2(self, other):
        return apply(np.arctan2, (self, other), name="Atan2Backward0", promote=True,
                     floating=True)

    arctan2 = atan2

    def hypot(self, other):
        return apply(np.hypot, (self, other), name="HypotBackward0", promote=True)

    def fmod(self, other):
        return apply(np.fmod, (self, other), promote=True,
                     name="FmodBackward1" if isinstance(other, Tensor) else "FmodBackward0")

    def copysign(self, other):
        return apply(np.copysign, (self, other), promote=True, floating=True,
                     name="CopysignBackward0" if isinstance(other, Tensor)
                     else "CopysignBackward1")

    def sinc(self):
        return apply(np.sinc, (self,), name="SincBackward0", floating=True)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return apply(np.nan_to_num, (self,), {"nan": nan, "posinf": posinf, "neginf": neginf},
                     name="NanToNumBackward0")

    def frac(self):
        return _renamed(self - self.trunc(), "FracBackward0")

    def logit(self, eps=None):
        x = self if eps is None else self.clamp(eps, 1 - eps)
        return _renamed((x / (1 - x)).log(), "LogitBackward0")

    def xlogy(self, other):
        """``self * log(other)``, 0 where ``self`` is 0 (its log read at 1 there, so no
        0 * inf reaches the gradient)."""
        name = "XlogyBackward0" if isinstance(other, Tensor) else "XlogyBackward2"
        other = other if isinstance(other, Tensor) else _as_tensor_like(other, self)
        zero = (self == 0) & (other == other)          # (a NaN other stays NaN)
        safe = apply(np.where, (zero, 1.0, other), name="WhereBackward0")
        return _renamed((self * safe.log()).masked_fill(zero, 0.0), name)

    def dist(self, other, p=2):
        return _renamed((self - other).norm(p), "DistBackward0")

    def det(self):
        return apply(np.linalg.det, (self,), name="LinalgDetBackward0")

    def logdet(self):
        """``log(det)``: NaN for a negative determinant, as PyTorch."""
        return _renamed(self.det().log(), "WhereBackward0")

    def matrix_power(self, n):
        return apply(np.linalg.matrix_power, (self, n),
                     name="MmBackward0" if n >= 2 else "CloneBackward0" if n == 1
                     else "LinalgInvExBackward0")

    def inner(self, other):
        return apply(np.inner, (self, other), promote=True, name="ViewBackward0")

    def signbit(self):
        return Tensor._make(np.signbit(self._data))

    def logaddexp(self, other):
        return apply(np.logaddexp, (self, other), name="LogaddexpBackward0", promote=True)

    def lerp(self, end, weight):
        out = self + weight * (end - self)
        if not isinstance(weight, Tensor) and isinstance(end, Tensor) and \
                type(out._data) is np.ndarray and out._data.dtype in (np.float32, np.float64) \
                and self._data.dtype == end._data.dtype == out._data.dtype:
            # PyTorch's value: its two formulas, each a fused multiply-add
            out._data = np.asarray(rounding_lerp(np.broadcast_to(self._data, out._data.shape),
                                                 end._data, out._data.dtype.type(weight)),
                                   dtype=out._data.dtype)
        return _renamed(out, "LerpBackward1" if isinstance(weight, Tensor) else "LerpBackward0")

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        prod = mat1.matmul(mat2)
        out = (self if beta == 1 else self * beta) + (prod if alpha == 1 else prod * alpha)
        return _renamed(out, "AddmmBackward0")

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return _added_product(self, batch1.bmm(batch2), beta, alpha, "BaddbmmBackward0")

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return _added_product(self, batch1.bmm(batch2).sum(0), beta, alpha, "AddbmmBackward0")

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        return _added_product(self, mat.mv(vec), beta, alpha, "AddmvBackward0")

    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        return _added_product(self, vec1.outer(vec2), beta, alpha, "AddrBackward0")

    def kron(self, other):
        return apply(np.kron, (self, other), name="UnsafeViewBackward0", promote=True)

    def abs(self):
        return apply(np.absolute, (self,), name="AbsBackward0")

    absolute = abs

    def neg(self):
        return -self

    negative = neg

    # -- linear algebra ---------------------------------------------------------------------
    def matmul(self, other):
        other = _as_tensor_like(other, self)
        a, b = self.ndim, other.ndim
        if a == 0 or b == 0:
            raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                               f"{a}D and {b}D")
        if self.dtype is not other.dtype:
            raise RuntimeError(_matmul_dtype_message(self.dtype, other.dtype, a, b))
        ka, kb = self.shape[-1], other.shape[0] if b == 1 else other.shape[-2]
        if ka != kb:
            if a == 1 and b == 1:
                raise RuntimeError(f"inconsistent tensor size, expected tensor [{self.shape[0]}] "
                                   f"and src [{other.shape[0]}] to have the same number of "
                                   "elements, but got "
                                   f"{self.shape[0]} and {other.shape[0]} elements respectively")
            sa = "x".join(map(str, (self.shape if a == 2 else (1, ka) if a == 1 else
                                    (np.prod(self.shape[:-1]), ka))))
            sb = "x".join(map(str, other.shape if b == 2 else (kb, 1) if b == 1 else other.shape[-2:]))
            if a == 2 and b == 1:
                raise RuntimeError(f"size mismatch, got input ({self.shape[0]}), mat "
                                   f"({self.shape[0]}x{ka}), vec ({other.shape[0]})")
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})")
        name = {(2, 2): "MmBackward0", (1, 1): "DotBackward0", (2, 1): "MvBackward0",
                (1, 2): "SqueezeBackward4"}.get((a, b), "UnsafeViewBackward0")
        return apply(np.matmul, (self, other), name=name)

    def mm(self, mat2):
        if self.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if mat2.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        return self.matmul(mat2)

    def mv(self, vec):
        return self.matmul(vec)

    def dot(self, other):
        if self.ndim != 1 or other.ndim != 1:
            raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {other.ndim}D "
                               "tensors")
        if self.dtype is not other.dtype:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{self.dtype.short} and {other.dtype.short}")
        return self.matmul(other)

    def bmm(self, mat2):
        if self.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor")
        if mat2.ndim != 3:
            raise RuntimeError("batch2 must be a 3D tensor")
        return _renamed(self.matmul(mat2), "BmmBackward0")

    def outer(self, vec2):
        return self.reshape(-1, 1) * vec2

    ger = outer


def scipy_special(tensor):
    """``scipy.special``, whose rules give sigmoid and logsigmoid one node each, or None
    without SciPy (imported on first use: it is optional and slow to import) or for a
    tensor on another device (SciPy's functions take NumPy arrays)."""
    if type(tensor._data) is not np.ndarray:
        return None
    try:
        from scipy import special
    except ImportError:         # pragma: no cover - SciPy is installed with srcgrad's extras
        return None
    return special


def _composed_relu(x):
    """relu as a recorded ``np.where`` (the path of forward-mode AD, saved-tensor hooks,
    other devices and integer tensors)."""
    zero = 0.0 if x._data.dtype.kind in "fc" else 0
    return apply(np.where, (x > 0, x, zero), name="ReluBackward0")


def _fused_alpha(out, self, other, alpha):
    """``out`` (``self + alpha * other``, recorded) with PyTorch's value: one rounding
    of the product-sum (its CPU kernel's fused multiply-add)."""
    if isinstance(other, Tensor) and type(out._data) is np.ndarray and \
            out._data.dtype in (np.float32, np.float64) and \
            self._data.dtype == other._data.dtype == out._data.dtype:
        out._data = np.asarray(fma(np.broadcast_to(other._data, out._data.shape),
                                   out._data.dtype.type(alpha), self._data),
                               dtype=out._data.dtype)
    return out


def _added_product(input, prod, beta, alpha, name):
    """``beta * input + alpha * prod`` (``addmm``'s family), its node named ``name``; with
    ``beta == 0`` the input is not read (its NaNs do not propagate), as PyTorch."""
    prod = prod if alpha == 1 else prod * alpha
    if beta == 0:
        shape = np.broadcast_shapes(tuple(input.shape), tuple(prod.shape))
        return _renamed(prod.expand(shape).clone(), name)
    return _renamed((input if beta == 1 else input * beta) + prod, name)


def _renamed(out, name):
    """``out`` with its node named as PyTorch names the operation (display only)."""
    from .autograd.nodes import RuleNode, _node_class
    if isinstance(out._grad_fn, RuleNode):
        out._grad_fn.__class__ = _node_class(name)
    return out


def _step_function(func, args, name):
    """A piecewise-constant function: its gradient is zero, but, as in PyTorch, its result
    has a node (so it requires grad when its input does)."""
    from .autograd.nodes import InputMeta, zero_gradient_class
    with grad_mode.no_grad():
        out = apply(func, args)
    x = args[0]
    if grad_mode.is_grad_enabled() and x._requires_grad and out._data.dtype.kind in "fc":
        out._grad_fn = zero_gradient_class(name)(((x._grad_node(), InputMeta(x._data)),))
        out._requires_grad = True
    return out


# -- elementwise math, as a table: method -> (NumPy primitive, PyTorch's node name) -----------

_UNARY_FLOAT = {
    "exp": (np.exp, "ExpBackward0"), "exp2": (np.exp2, "Exp2Backward0"),
    "expm1": (np.expm1, "Expm1Backward0"), "log": (np.log, "LogBackward0"),
    "log2": (np.log2, "Log2Backward0"), "log10": (np.log10, "Log10Backward0"),
    "log1p": (np.log1p, "Log1PBackward0"), "sqrt": (np.sqrt, "SqrtBackward0"),
    "sin": (np.sin, "SinBackward0"), "cos": (np.cos, "CosBackward0"),
    "tan": (np.tan, "TanBackward0"), "asin": (np.arcsin, "AsinBackward0"),
    "acos": (np.arccos, "AcosBackward0"), "atan": (np.arctan, "AtanBackward0"),
    "sinh": (np.sinh, "SinhBackward0"), "cosh": (np.cosh, "CoshBackward0"),
    "tanh": (np.tanh, "TanhBackward0"), "reciprocal": (np.reciprocal, "ReciprocalBackward0"),
}
_ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan"}


def _unary_method(method_name, func, name):
    forward = rounded_once(func) if method_name in ROUNDED_ONCE else None

    def method(self):
        return apply(func, (self,), name=name, floating=True, forward=forward)
    method.__name__ = method_name
    method.__qualname__ = f"Tensor.{method_name}"
    return method


for _m, (_f, _n) in _UNARY_FLOAT.items():
    setattr(ArithmeticMethods, _m, _unary_method(_m, _f, _n))
for _a, _m in _ALIASES.items():
    setattr(ArithmeticMethods, _a, getattr(ArithmeticMethods, _m))


def _astype(array, dtype):
    return array.astype(dtype)          # the method: works for numpy and cupy arrays alike


def _to_device(t, dev):
    """A copy of ``t`` on ``dev`` (cupy <-> numpy).  Recorded with the rule of ``np.copy``
    (the gradient passes through); the engine moves the gradient back to ``t``'s device."""
    return apply(np.copy, (t,), name="ToCopyBackward0", forward=lambda a: move(a, dev))

