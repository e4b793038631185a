"""``torch.nn.utils``: gradient clipping and parameter vectors."""
import math

import numpy as np

from .. import dtypes, grad_mode
from ..core import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    grads = _grads(parameters)
    if not grads:                       # PyTorch's torch.tensor(0.0): the default dtype
        return Tensor._make(np.asarray(0.0, dtype=dtypes.get_default_dtype().numpy))
    # PyTorch's order: each gradient's norm in its dtype, then the norm of those norms
    dtype = grads[0]._data.dtype
    norms = np.array([_vector_norm(g._data, norm_type) for g in grads], dtype=dtype)
    total = _vector_norm(norms, norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {float(norm_type)} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    coef = min(dtype.type(max_norm) / (total + dtype.type(1e-6)), 1.0)
    with grad_mode.no_grad():
        for g in grads:
            g._data *= np.asarray(coef, dtype=g._data.dtype)
            g._vc.value += 1
    return Tensor._make(np.asarray(total, dtype=grads[0]._data.dtype))


def _vector_norm(a, p):
    """``torch.linalg.vector_norm(a, p)`` of an array, in its dtype."""
    a = np.abs(a)
    if p == math.inf:
        return a.max() if a.size else a.dtype.type(0)
    if p == 2:
        return np.sqrt((a * a).sum())
    if p == 1:
        return a.sum()
    return (a ** p).sum() ** (1.0 / p)


def clip_grad_value_(parameters, clip_value, foreach=None):
    for g in _grads(parameters):
        np.clip(g._data, -clip_value, clip_value, out=g._data)
        g._vc.value += 1


def parameters_to_vector(parameters):
    from ..functions import cat
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    start = 0
    with grad_mode.no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[start:start + n].reshape(p.shape))
            start += n
