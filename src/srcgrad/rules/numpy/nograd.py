"""NumPy functions whose result carries no gradient.

Piecewise constant, integer- or boolean-valued, or independent of the values
(shapes, dtypes, random numbers, constants).
"""
import numpy as np

from ..facets import ALL_PARAMS
from ..registry import defnograd

# ---------------------------------------------------------------------------------------
# No gradient: piecewise constant, integer- or boolean-valued, or independent of values.
# Left out on purpose, because their values can carry a gradient (so a call must get a
# rule or an error, never a silent zero): np.unique, np.random.choice / permutation
# (of an array), np.histogram (weights=), np.bincount (weights=), np.arange (a float
# start or step: creation.py).
# ---------------------------------------------------------------------------------------
defnograd(
    np.sign, np.signbit, np.heaviside, np.floor, np.ceil, np.trunc, np.rint, np.round,
    np.around, np.fix, np.floor_divide,
    np.argmax, np.argmin, np.argsort, np.nonzero, np.flatnonzero, np.argwhere,
    np.searchsorted, np.digitize, np.count_nonzero,
    np.isnan, np.isinf, np.isfinite, np.isposinf, np.isneginf, np.isreal, np.iscomplex,
    np.equal, np.not_equal, np.greater, np.greater_equal, np.less, np.less_equal,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor,
    np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert, np.left_shift, np.right_shift,
    np.gcd, np.lcm,
    np.allclose, np.isclose, np.array_equal, np.array_equiv, np.all, np.any,
    np.zeros, np.ones, np.empty, np.eye,
    np.identity, np.tri, np.indices, np.diag_indices, np.tril_indices,
    np.triu_indices, np.unravel_index, np.ravel_multi_index,
    np.can_cast, np.promote_types, np.min_scalar_type,
    np.issubdtype, np.broadcast_shapes,
    np.finfo, np.iinfo, np.dtype,
    np.random.seed, np.random.rand, np.random.randn, np.random.randint, np.random.random,
    np.random.random_sample, np.random.normal, np.random.uniform, np.random.standard_normal,
    np.random.shuffle, np.random.binomial,
    np.random.poisson, np.random.exponential, np.random.default_rng,
    np.ndarray.argmax, np.ndarray.argmin, np.ndarray.argsort, np.ndarray.nonzero,
    np.ndarray.all, np.ndarray.any, np.ndarray.round, np.ndarray.item,
    np.ndarray.shape, np.ndarray.ndim, np.ndarray.size, np.ndarray.dtype,
    # integer and boolean casts (np.int64(x): an index; the float casts have rules)
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.intp, np.bool_,
)

# they read only shapes, dtypes or types: changing an argument's values changes nothing
defnograd(np.zeros_like, np.ones_like, np.empty_like, np.shape, np.ndim, np.size, np.result_type,
          np.isscalar, np.iscomplexobj, np.isrealobj, shape_only=ALL_PARAMS)
