"""The array API standard's functions are NumPy's: ``xp.tanh``, ``cp.tanh``, ``da.exp``,
``array_api_strict.sum`` differentiate with the rule of ``np.tanh``, ``np.exp``,
``np.sum``.  One table, by name: the standard's function names (and the linear-algebra
extension's), each mapped to the NumPy function of the same meaning.  The call itself
still runs in the user's library; the derivative templates compute in the arguments'
namespace (``runtime.backends``).

Names whose NumPy function means something else are left out (``linalg.trace`` and
``linalg.diagonal`` work on the last two axes, NumPy's on the first two), so a call of
them has no rule and is refused where it is written.
"""
import numpy as np

from ..registry import defaliases

# the libraries whose functions are looked up by name (top-level module names)
LIBRARIES = ("array_api_strict", "array_api_compat", "dask", "cupy", "cupyx")

# the array API's name -> NumPy's, where they differ
_NUMPY_NAME = {
    "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
    "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh", "pow": "power",
    "concat": "concatenate", "permute_dims": "transpose",
    "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift",
}

# the standard's functions (2023.12): elementwise, creation, data types, manipulation,
# searching, sorting, statistics, utilities, and the linalg extension
STANDARD_NAMES = """
abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_invert
bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor ceil clip conj copysign cos
cosh divide equal exp expm1 floor floor_divide greater greater_equal hypot imag isfinite
isinf isnan less less_equal log log1p log2 log10 logaddexp logical_and logical_not
logical_or logical_xor maximum minimum multiply negative nextafter not_equal positive pow
real reciprocal remainder round sign signbit sin sinh square sqrt subtract tan tanh trunc
arange asarray empty empty_like eye full full_like linspace meshgrid ones ones_like tril
triu zeros zeros_like astype result_type matmul matrix_transpose tensordot vecdot
broadcast_arrays broadcast_to concat expand_dims flip moveaxis permute_dims repeat reshape
roll squeeze stack tile argmax argmin count_nonzero nonzero searchsorted where argsort sort
cumulative_sum cumulative_prod max mean min prod std sum var all any diff take
take_along_axis
""".split()

LINALG_NAMES = "cholesky det inv solve slogdet eigh eigvalsh qr svd svdvals pinv " \
               "matrix_power matrix_rank outer cross".split()


def _table():
    names = {}
    for name in STANDARD_NAMES:
        target = getattr(np, _NUMPY_NAME.get(name, name), None)
        if target is not None:
            names[name] = target
    for name in LINALG_NAMES:
        target = getattr(np.linalg, name, None) or getattr(np, name, None)
        if target is not None:
            names.setdefault(name, target)
    return names


ALIASES = _table()
defaliases(LIBRARIES, ALIASES)
