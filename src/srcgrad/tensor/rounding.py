"""Float32 transcendental functions as PyTorch's CPU kernels round them.

PyTorch's vectorised float32 routines are within an ulp of the true value and
mostly round it correctly, NumPy's float32 loops less often (exp: 1% of values
differ, not 39%); so in float32 these functions are computed in float64 and
rounded once.
"""
import numpy as np

__all__ = ["ROUNDED_ONCE", "rounded_once"]

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
