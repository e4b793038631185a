"""``torch.nn.functional``: activations, losses and layers as functions of tensors.

Each is written with recorded Tensor operations, so its gradient comes from the
rules of those operations (nothing here knows a derivative); the result's node
takes the name PyTorch gives it (``MseLossBackward0``), so printed tensors match.
"""
import math
import warnings

import numpy as np

from ..arithmetic import scipy_special
from ..autograd import fused
from ..autograd.composite import composite
from ..autograd.nodes import RuleNode
from ..core import Tensor
from ..dispatch import apply
from ..functions import einsum, erf
from ..indexing import where
from .padding import _named, pad

__all__ = ["linear", "bilinear", "relu", "relu_", "leaky_relu", "prelu", "elu", "selu", "celu",
           "gelu",
           "silu", "mish", "softplus", "softsign", "tanh", "sigmoid", "hardtanh", "relu6",
           "hardsigmoid", "hardswish", "logsigmoid", "softmax", "log_softmax", "softmin",
           "dropout", "dropout1d", "dropout2d", "dropout3d", "embedding", "layer_norm",
           "normalize", "one_hot", "pad",
           "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
           "cosine_similarity", "pairwise_distance"]


def _scalar_like(value, ref):
    return Tensor._make(np.asarray(value, dtype=ref._data.dtype))


# -- layers --------------------------------------------------------------------------------------

def _addmm(input, wt, bias):
    return input @ wt + bias


def linear(input, weight, bias=None):
    if input.ndim == 2 and weight.ndim == 2 and bias is not None:
        return fused.addmm(input, weight.t(), bias, _addmm)     # one node unless composed
    out = input @ weight.t() if weight.ndim == 2 else input @ weight
    if bias is not None:
        out = out + bias
    if weight.ndim == 2:           # PyTorch's last node (1-D input without bias: the matmul's)
        if bias is not None:
            _named(out, "AddmmBackward0" if input.ndim == 2 else "ViewBackward0")
        elif input.ndim >= 2:
            _named(out, "MmBackward0" if input.ndim == 2 else "UnsafeViewBackward0")
    return out


def bilinear(input1, input2, weight, bias=None):
    out = einsum("...i,oij,...j->...o", input1, weight, input2)
    if bias is not None:
        out = out + bias
    return out


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if scale_grad_by_freq:
        raise NotImplementedError("srcgrad: embedding(scale_grad_by_freq=True) is not supported")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    rows = weight[input]
    if padding_idx is not None:         # the padding row's reads pass no gradient back
        if padding_idx < 0:
            padding_idx += weight.shape[0]
        padded = np.asarray(input._data if isinstance(input, Tensor) else input) == padding_idx
        if padded.any():
            rows = where(Tensor._make(padded[..., None]), rows.detach(), rows)
    return _named(rows, "EmbeddingBackward0")


def _renorm_rows(weight, input, max_norm, norm_type):
    """PyTorch's ``embedding_renorm_``: each row ``input`` reads whose ``norm_type``-norm
    exceeds ``max_norm`` is scaled, in place and without a gradient, by
    ``max_norm / (norm + 1e-7)``."""
    from .. import grad_mode
    w = weight._data
    rows = np.unique(np.asarray(input._data if isinstance(input, Tensor) else input).ravel())
    norms = np.linalg.norm(w[rows], ord=norm_type, axis=1)
    big = norms > max_norm
    if not big.any():
        return
    scale = (max_norm / (norms[big].astype(np.float64) + 1e-7)).astype(w.dtype)
    with grad_mode.no_grad():
        weight[Tensor._make(rows[big])] = Tensor._make(w[rows[big]] * scale[:, None])


def _dropout(input, p, training, inplace, noise_shape):
    """PyTorch's CPU dropout: ``input * noise``, where ``noise`` of ``noise_shape`` is a
    Bernoulli(1 - p) draw divided by ``1 - p`` (the same draws, so the same mask)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        noise = Tensor._make(np.zeros((), dtype=input._data.dtype))
    else:
        from ..generator import _rng
        keep = _rng().bernoulli(noise_shape, 1.0 - p).astype(input._data.dtype)
        noise = Tensor._make(keep / input._data.dtype.type(1.0 - p))
    return input.mul_(noise) if inplace else input * noise


def dropout(input, p=0.5, training=True, inplace=False):
    return _dropout(input, p, training, inplace, tuple(input.shape))


def _feature_dropout(input, p, training, inplace):
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return _dropout(input, p, training, inplace, shape)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Whole channels zeroed: ``input`` is (N, C, L) or (C, L)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an optional "
                           "batch dimension (i.e. 2D or 3D inputs).")
    if input.ndim == 3:
        return _feature_dropout(input, p, training, inplace)
    if inplace:
        return _feature_dropout(input.unsqueeze_(0), p, training, True).squeeze_(0)
    return _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Whole channels zeroed: ``input`` is (N, C, H, W); a 3-D input is read as (N, C, L)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is "
                      "deprecated and will result in an error in a future release. To retain the "
                      "behavior and silence this warning, please use dropout instead. Note that "
                      "dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D "
                      "or 4D inputs).", UserWarning, stacklevel=2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "where C is the channel dim. This behavior will change in a future release "
                      "to interpret the input as one without a batch dimension, i.e. shape "
                      "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch "
                      "to using dropout1d instead.", UserWarning, stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Whole channels zeroed: ``input`` is (N, C, D, H, W) or (C, D, H, W)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is "
                      "deprecated and will result in an error in a future release. To retain the "
                      "behavior and silence this warning, please use dropout instead. Note that "
                      "dropout3d exists to provide channel-wise dropout on inputs with 3 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D "
                      "or 5D inputs).", UserWarning, stacklevel=2)
    if input.ndim == 5:
        return _feature_dropout(input, p, training, inplace)
    if inplace:
        return _feature_dropout(input.unsqueeze_(0), p, training, True).squeeze_(0)
    return _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    dims = tuple(range(-len(normalized_shape), 0))
    mean = input.mean(dims, keepdim=True)
    centred = input - mean
    var = (centred * centred).mean(dims, keepdim=True)
    out = centred * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return _named(out, "NativeLayerNormBackward0")


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    norm = input.norm(p, dim, keepdim=True).clamp_min(eps)
    return input / norm


def one_hot(tensor, num_classes=-1):
    idx = tensor._data
    n = int(idx.max()) + 1 if num_classes < 0 else num_classes
    return Tensor._make((idx[..., None] == np.arange(n)).astype(np.int64))


# -- activations ---------------------------------------------------------------------------------

def _inplace_or(input, inplace, compute):
    """``compute(input)``, written into ``input`` when ``inplace`` (PyTorch's ``*_`` forms)."""
    return input._inplace(compute) if inplace else compute(input)


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def relu_(input):
    return input.relu_()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _inplace_or(input, inplace, lambda input: _named(
        where(input > 0, input, input * negative_slope), "LeakyReluBackward0"))


def prelu(input, weight):
    """``input`` where positive, else ``weight * input``; ``weight`` holds one slope, or one
    per channel (dimension 1; an input of fewer than two dimensions has one channel)."""
    if weight.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    count = weight.numel()
    if count != 1 and count != channels:
        raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {count} and channel size = {channels}.")
    slope = weight.reshape(()) if count == 1 else \
        weight.reshape((channels,) + (1,) * (input.ndim - 2))
    return _named(where(input > 0, input, slope * input), "PreluKernelBackward0")


def elu(input, alpha=1.0, inplace=False):
    return _inplace_or(input, inplace, lambda input: _named(
        where(input > 0, input, alpha * input.expm1()), "EluBackward0"))


def celu(input, alpha=1.0, inplace=False):
    return _inplace_or(input, inplace, lambda input: _named(
        where(input > 0, input, alpha * (input / alpha).expm1()), "CeluBackward0"))


def selu(input, inplace=False):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return _inplace_or(input, inplace, lambda input: _named(
        scale * where(input > 0, input, alpha * input.expm1()), "EluBackward0"))


def _gelu(input, approximate):
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (input + 0.044715 * input ** 3)
        return 0.5 * input * (1.0 + inner.tanh())
    return input * 0.5 * (1.0 + erf(input * (1.0 / math.sqrt(2.0))))


# gelu, silu, mish and softplus are one node each, as PyTorch records them (composite: the
# composed operations' rules give the derivative); the node checks the version of its
# input, which PyTorch's saves
def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return composite("GeluBackward0", _gelu, [input], approximate)


def _silu(input):
    return input * input.sigmoid()


def silu(input, inplace=False):
    return _inplace_or(input, inplace, lambda input: composite("SiluBackward0", _silu, [input]))


def _mish(input):
    return input * _softplus(input, 1.0, 20.0).tanh()


def mish(input, inplace=False):
    return _inplace_or(input, inplace, lambda input: composite("MishBackward0", _mish, [input]))


def _softplus(input, beta, threshold):
    scaled = input * beta
    soft = (scaled.clamp_max(threshold).exp()).log1p() / beta
    return where(scaled > threshold, input, soft)


def softplus(input, beta=1.0, threshold=20.0):
    return composite("SoftplusBackward0", _softplus, [input], beta, threshold)


def softsign(input):
    return input / (1 + input.abs())


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def logsigmoid(input):
    special = scipy_special(input)
    if special is None:                 # without SciPy, or on another device
        return _named(-softplus(-input), "LogSigmoidBackward0")
    # one node, scipy.special.log_expit's rule (g * expit(-x): it saves the input, as
    # PyTorch's does); the value by PyTorch's formula, exact for large |x|
    return apply(special.log_expit, (input,), name="LogSigmoidBackward0", floating=True,
                 forward=_logsigmoid_value)


def _logsigmoid_value(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _strict_clamp(input, min_val, max_val):
    """``clamp``'s value; the gradient passes only strictly inside ``(min_val, max_val)``
    (PyTorch's hardtanh/hardsigmoid/hardswish backward: 0 at the ends, where clamp's
    passes it)."""
    inside = (input > min_val) & (input < max_val)
    return where(inside, input, input.detach().clamp(min_val, max_val))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _inplace_or(input, inplace, lambda input: _named(
        _strict_clamp(input, min_val, max_val), "HardtanhBackward0"))


def relu6(input, inplace=False):
    return _inplace_or(input, inplace, lambda input: _named(
        _strict_clamp(input, 0.0, 6.0), "HardtanhBackward0"))


def hardsigmoid(input, inplace=False):
    return _inplace_or(input, inplace, lambda input: _named(
        _strict_clamp(input + 3, 0.0, 6.0) / 6, "HardsigmoidBackward0"))


def hardswish(input, inplace=False):
    return _inplace_or(input, inplace, lambda input: _named(
        input * _strict_clamp(input + 3, 0.0, 6.0) / 6, "HardswishBackward0"))


def _softmax_dim(dim, ndim):
    if dim is None:
        warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the "
                      "call to include dim=X as an argument.", UserWarning, stacklevel=3)
        return 0 if ndim in (0, 1, 3) else 1
    return dim


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return input.softmax(_softmax_dim(dim, input.ndim), dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return input.log_softmax(_softmax_dim(dim, input.ndim), dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return (-input).softmax(_softmax_dim(dim, input.ndim), dtype=dtype)


# -- losses ---------------------------------------------------------------------------------------

_LEGACY_WARNING = "size_average and reduce args will be deprecated, please use reduction='{}' instead."


def legacy_reduction(size_average, reduce, reduction, stacklevel=3):
    """The ``reduction`` that the deprecated ``size_average`` / ``reduce`` flags ask for, as
    PyTorch reads them (either given: they win over ``reduction``, with its warning)."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(_LEGACY_WARNING.format(reduction), UserWarning, stacklevel=stacklevel)
    return reduction


def _reduce(loss, reduction, name):
    if reduction == "none":
        return _named(loss, name) if loss.grad_fn is not None else loss
    if reduction == "mean":
        return _named(loss.mean(), name)
    if reduction == "sum":
        return _named(loss.sum(), name)
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_sizes(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.",
                      UserWarning, stacklevel=3)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_sizes(input, target)
    return fused.mse_loss(input, target, reduction, _mse_loss)


def _mse_loss(input, target, reduction):
    diff = input - target
    return _reduce(diff * diff, reduction, "MseLossBackward0")


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_sizes(input, target)
    out = (input - target).abs()
    if reduction == "none":
        return out
    return out.mean() if reduction == "mean" else out.sum()


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    diff = (input - target).abs()
    loss = where(diff < delta, 0.5 * diff * diff, delta * (diff - 0.5 * delta))
    return _reduce(loss, reduction, "HuberLossBackward0")


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if beta == 0.0:                     # PyTorch's l1_loss (0.5 * d * d / 0 has no gradient)
        return l1_loss(input, target, reduction=reduction)
    diff = (input - target).abs()
    loss = where(diff < beta, 0.5 * diff * diff / beta, diff - 0.5 * beta)
    return _reduce(loss, reduction, "SmoothL1LossBackward0")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """``-input[n, target[n]]``, weighted by class; ``mean`` divides by the total weight.
    Recorded as one node (``fused.nll_loss``) unless its parts' nodes are needed."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_classes(input, target, ignore_index)
    out = fused.nll_loss(input, target, weight, ignore_index, reduction, _nll_loss)
    if input.ndim > 2:     # PyTorch's nll_loss2d (other ranks viewed as 4-D, then back)
        _renamed(out, "ViewBackward0" if reduction == "none" and input.ndim != 4
                 else "NllLoss2DBackward0")
    return out


def _renamed(t, name, _classes={}):
    """``t``'s node, a rule's or a fused one, printed as ``name`` (display only)."""
    node = t._grad_fn
    if node is None or type(node).__name__ == name:
        return t
    if isinstance(node, RuleNode):
        return _named(t, name)
    cls = type(node)
    if (cls, name) not in _classes:
        _classes[cls, name] = type(name, (cls,), {"__slots__": (), "__module__": cls.__module__})
    node.__class__ = _classes[cls, name]
    return t


def _check_classes(input, target, ignore_index):
    """PyTorch's errors for class indices of the wrong dtype or out of range."""
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{target.dtype.short}")
    n = input.shape[1 if input.ndim > 1 else 0]
    idx = target._data
    bad = (idx != ignore_index) & ((idx < 0) | (idx >= n))
    if bad.any():
        raise IndexError(f"Target {idx[bad].ravel()[0]} is out of bounds.")


def _nll_loss(input, target, weight, ignore_index, reduction):
    if input.ndim == 1 and reduction == "none":       # one row: a 0-d loss, as PyTorch's
        loss = _nll_loss(input.unsqueeze(0), target.reshape(1), weight, ignore_index, reduction)
        return _named(loss.reshape(()), "NllLossBackward0")
    if input.ndim == 1:
        input, target = input.unsqueeze(0), target.reshape(1)
    idx = target._data.astype(np.int64)
    keep = idx != ignore_index
    safe = np.where(keep, idx, 0)
    moved = input.movedim(1, -1) if input.ndim > 2 else input
    picked = -moved.take_along_dim(Tensor._make(safe[..., None]), -1).squeeze(-1)
    if weight is None and keep.all():          # every weight 1: no product to record
        if reduction == "mean":
            return _named(picked.sum() / _scalar_like(idx.size, input), "NllLossBackward0")
        return _named(picked.sum() if reduction == "sum" else picked, "NllLossBackward0")
    w = np.ones(idx.shape, dtype=input._data.dtype) if weight is None else \
        weight._data[safe].astype(input._data.dtype)
    w = np.where(keep, w, 0).astype(input._data.dtype)
    loss = picked * Tensor._make(w)
    if reduction == "none":
        return _named(loss, "NllLossBackward0")
    if reduction == "sum":
        return _named(loss.sum(), "NllLossBackward0")
    if reduction == "mean":
        return _named(loss.sum() / _scalar_like(w.sum(), input), "NllLossBackward0")
    raise ValueError(f"{reduction} is not a valid value for reduction")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    reduction = legacy_reduction(size_average, reduce, reduction)
    logp = input.log_softmax(1 if input.ndim > 1 else 0)
    if tuple(target.shape) == tuple(input.shape):      # class probabilities
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {target.dtype.short}")
        if label_smoothing:
            n = input.shape[1 if input.ndim > 1 else 0]
            target = target * (1 - label_smoothing) + label_smoothing / n
        per = logp * target if weight is None else logp * target * \
            weight.reshape((-1,) + (1,) * (input.ndim - 2))
        loss = -per.sum(1 if input.ndim > 1 else 0)
        if reduction == "mean":         # over the batch and any further dimensions
            n = loss.numel() if input.ndim > 1 else 1
            return _named(loss.sum() / n, "DivBackward1")
        return loss.sum() if reduction == "sum" else loss
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    n = input.shape[1 if input.ndim > 1 else 0]
    idx = target._data
    keep = Tensor._make((idx != ignore_index).astype(input._data.dtype))
    moved = logp.movedim(1, -1) if logp.ndim > 2 else logp
    w = 1.0 if weight is None else weight
    smooth = -(moved * w).sum(-1) * keep
    if reduction == "mean":
        denom = keep.sum() if weight is None else \
            _scalar_like((weight._data[np.where(idx != ignore_index, idx, 0)]
                          * keep._data).sum(), input)
        smooth = smooth.sum() / denom
    elif reduction == "sum":
        smooth = smooth.sum()
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / n)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the "
                         "same size.")
    if not ((input._data >= 0) & (input._data <= 1)).all():      # (NaN too, as PyTorch)
        raise RuntimeError("all elements of input should be between 0 and 1")
    loss = -(target * input.log().clamp_min(-100)
             + (1 - target) * (1 - input).log().clamp_min(-100))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "BinaryCrossEntropyBackward0")


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    log_sig_neg = softplus(-input)            # -log(sigmoid(x)) = softplus(-x)
    if pos_weight is None:
        loss = (1 - target) * input + log_sig_neg
    else:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * log_sig_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "BinaryCrossEntropyWithLogitsBackward0")


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """PyTorch's pointwise ``exp(t) * (t - input)`` (log targets) or ``xlogy(t, t) - t *
    input``, then a plain mean or sum (``batchmean``: the sum over the batch size)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:                               # xlogy(t, t): 0 where t is 0
        loss = where(target == 0, target * 0, target * target.clamp_min(1e-38).log()) \
            - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0]
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    num = (x1 * x2).sum(dim)
    den = (x1.norm(2, dim) * x2.norm(2, dim)).clamp_min(eps)
    return num / den


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)



# convolution, pooling and batch normalisation (they build on the functions above)
from .convolution import *  # noqa: E402,F401,F403
from .convolution import __all__ as _convolution_all  # noqa: E402
__all__ += _convolution_all
