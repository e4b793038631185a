"""``torch.nn.utils``: gradient clipping and parameter vectors."""
import math

import numpy as np

from .. import grad_mode
from ..core import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    grads = _grads(parameters)
    if not grads:
        return Tensor._make(np.asarray(0.0, dtype=np.float32))
    if norm_type == math.inf:
        total = max(float(np.abs(g._data).max()) for g in grads)
    else:
        total = sum(float((np.abs(g._data.astype(np.float64)) ** norm_type).sum())
                    for g in grads) ** (1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {float(norm_type)} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    coef = min(max_norm / (total + 1e-6), 1.0)
    with grad_mode.no_grad():
        for g in grads:
            g._data *= np.asarray(coef, dtype=g._data.dtype)
            g._vc.value += 1
    return Tensor._make(np.asarray(total, dtype=grads[0]._data.dtype))


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
