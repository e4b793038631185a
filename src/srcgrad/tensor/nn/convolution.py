"""Convolution, pooling and batch normalisation as functions of tensors (``nn.functional``).

Each is written with recorded Tensor operations, so its gradient comes from their
rules: a convolution pads its input (``pad``), takes one strided slice of it per
kernel offset (basic slicing: a cheap backward), stacks them and contracts them with
the weight in one ``einsum``; average pooling sums the same slices; max pooling
gathers the element each window keeps (one indexing operation), so its gradient goes
to that element only, as PyTorch's does.  The last node takes PyTorch's name
(``ConvolutionBackward0``).
"""
import itertools
import math

import numpy as np

from ..core import Tensor
from .. import grad_mode
from .padding import _named, pad

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "batch_norm"]


def _tuple(v, n, what="kernel_size"):
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return tuple(v) * n
        if len(v) != n:
            raise RuntimeError(f"expected {what} to be a single integer value or a list of "
                               f"{n} values to match the convolution dimensions, but got "
                               f"{what}={list(v)}")
        return tuple(int(i) for i in v)
    return (int(v),) * n


def _batched(input, n, name):
    """``input`` with a batch dimension, and whether one was added (unbatched input)."""
    if input.ndim == n + 2:
        return input, False
    if input.ndim == n + 1:
        return input.unsqueeze(0), True
    raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, "
                       f"but got input of size: {list(input.shape)}")


def _unbatched(out, added):
    return out.squeeze(0) if added else out


def _windows(x, kernel, stride, dilation, out_sizes):
    """Every window of ``x`` (N, C, *spatial): shape (N, C, O0, K0, O1, K1, ...)."""
    n = len(kernel)
    index = [slice(None), slice(None)]
    for d in range(n):
        rows = (np.arange(out_sizes[d]) * stride[d])[:, None] + \
            (np.arange(kernel[d]) * dilation[d])[None, :]
        shape = [1] * (2 * n)
        shape[2 * d], shape[2 * d + 1] = out_sizes[d], kernel[d]
        index.append(rows.reshape(shape))
    return x[tuple(index)]


def _offset_slices(x, kernel, stride, dilation, out_sizes):
    """One strided slice of ``x`` (N, C, *spatial) per kernel offset, each of shape
    (N, C, *out_sizes), in row-major order of the offsets."""
    out = []
    for offset in itertools.product(*[range(k) for k in kernel]):
        index = [slice(None), slice(None)]
        for d, k in enumerate(offset):
            start = k * dilation[d]
            index.append(slice(start, start + stride[d] * (out_sizes[d] - 1) + 1, stride[d]))
        out.append(x[tuple(index)])
    return out


def _out_size(length, k, s, p_left, p_right, d, ceil_mode=False):
    span = length + p_left + p_right - d * (k - 1) - 1
    if span < 0:
        return 0
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= length + p_left:
        out -= 1           # the last window would start inside the right padding
    return out


def _conv_padding(padding, kernel, stride, dilation):
    """(left, right) per spatial dimension; ``'same'`` puts the odd one on the right."""
    n = len(kernel)
    if isinstance(padding, str):
        if padding == "valid":
            return [(0, 0)] * n
        if padding != "same":
            raise ValueError(f"Invalid padding string '{padding}', should be one of "
                             "{'valid', 'same'}")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        out = []
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            out.append((total // 2, total - total // 2))
        return out
    return [(p, p) for p in _tuple(padding, n, "padding")]


def _convolution(input, weight, bias, stride, padding, dilation, groups, n):
    name = f"conv{n}d"
    x, added = _batched(input, n, name)
    if weight.ndim != n + 2:
        raise RuntimeError(f"weight should have {n + 2} dimensions for {name}, got "
                           f"{weight.ndim}")
    kernel = tuple(weight.shape[2:])
    stride = _tuple(stride, n, "stride")
    dilation = _tuple(dilation, n, "dilation")
    pads = _conv_padding(padding, kernel, stride, dilation)
    channels = x.shape[1]
    out_channels = weight.shape[0]
    if channels != weight.shape[1] * groups:
        shape = [out_channels, *weight.shape[1:]]
        raise RuntimeError(
            f"Given groups={groups}, weight of size {shape}, expected input"
            f"{list(x.shape)} to have {weight.shape[1] * groups} channels, but got {channels} "
            "channels instead")
    if out_channels % groups:
        raise RuntimeError("Given groups=%d, expected weight to be divisible by %d at "
                           "dimension 0, but got weight of size %s instead"
                           % (groups, groups, list(weight.shape)))
    if any(p for lr in pads for p in lr):
        flat = [p for lr in reversed(pads) for p in lr]
        x = pad(x, flat)
    sizes = [_out_size(x.shape[2 + d], kernel[d], stride[d], 0, 0, dilation[d])
             for d in range(n)]
    if any(s <= 0 for s in sizes):
        raise RuntimeError("Calculated output size is too small: kernel size can't be greater "
                           "than actual input size")
    from ..functions import stack
    win = stack(_offset_slices(x, kernel, stride, dilation, sizes), 2)   # N, C, K, *O
    batch, taps = x.shape[0], win.shape[2]
    win = win.reshape(batch, groups, channels // groups, taps, *sizes)
    w = weight.reshape(groups, out_channels // groups, channels // groups, taps)
    outs = "xyz"[:n]
    out = _einsum(f"ngck{outs},gock->ngo{outs}", win, w)
    out = out.reshape(batch, out_channels, *sizes)
    if bias is not None:
        out = out + bias.reshape(out_channels, *([1] * n))
    return _unbatched(_named(out, "ConvolutionBackward0"), added)


def _einsum(eq, *ops):
    """``einsum`` contracted in BLAS-sized steps (``optimize=True``)."""
    from ..dispatch import apply
    return apply(np.einsum, (eq, *ops), {"optimize": True})


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 3)


# -- transposed convolution ----------------------------------------------------------------------
#
# conv_transpose(x, w) is the gradient of a convolution with respect to its input: the
# convolution, with stride 1 and the kernel flipped (its in and out channels swapped), of
# ``x`` spread out by the stride (stride - 1 zeros between entries) and padded by
# dilation * (kernel - 1) - padding on each side (output_padding more on the right; a
# negative width crops).

def _spread(x, stride):
    """``x`` (N, C, *spatial) with ``stride - 1`` zeros between its entries along each
    spatial dimension (recorded: a stack with zeros, a reshape and a slice)."""
    from ..factories import zeros_like
    from ..functions import stack
    for d, s in enumerate(stride):
        if s == 1:
            continue
        axis = 2 + d
        length = x.shape[axis]
        parts = stack([x] + [zeros_like(x)] * (s - 1), axis + 1)      # ..., I, s, ...
        shape = list(x.shape)
        shape[axis] = length * s
        index = [slice(None)] * x.ndim
        index[axis] = slice(0, (length - 1) * s + 1)
        x = parts.reshape(shape)[tuple(index)]
    return x


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                    n, output_size=None):
    name = f"conv_transpose{n}d"
    x, added = _batched(input, n, name)
    if weight.ndim != n + 2:
        raise RuntimeError(f"weight should have {n + 2} dimensions for {name}, got "
                           f"{weight.ndim}")
    kernel = tuple(weight.shape[2:])
    stride = _tuple(stride, n, "stride")
    padding = _tuple(padding, n, "padding")
    dilation = _tuple(dilation, n, "dilation")
    if output_size is not None:
        output_padding = _output_padding(x, output_size, stride, padding, kernel, dilation)
    output_padding = _tuple(output_padding, n, "output_padding")
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= s and op >= d:
            raise RuntimeError("output padding must be smaller than either stride or "
                               f"dilation, but got output_padding={list(output_padding)}, "
                               f"stride={list(stride)} and dilation={list(dilation)}")
    channels = x.shape[1]
    if channels != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {weight.shape[0]} channels, but got {channels} "
            "channels instead")
    if channels % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size "
                           f"{list(weight.shape)} instead")
    x = _spread(x, stride)
    widths = [(dilation[d] * (kernel[d] - 1) - padding[d],
               dilation[d] * (kernel[d] - 1) - padding[d] + output_padding[d]) for d in range(n)]
    if any(w < 0 for lr in widths for w in lr):          # crop where the padding is larger
        index = [slice(None), slice(None)] + [
            slice(max(0, -left), x.shape[2 + d] - max(0, -right))
            for d, (left, right) in enumerate(widths)]
        x = x[tuple(index)]
    # (C_in, C_out/g, *K) -> (C_out, C_in/g, *K), flipped: the convolution's kernel
    out_group = weight.shape[1]
    w = weight.reshape(groups, channels // groups, out_group, *kernel).transpose(1, 2)
    w = w.reshape(groups * out_group, channels // groups, *kernel).flip(
        tuple(range(2, n + 2)))
    pads = [(max(0, left), max(0, right)) for left, right in widths]
    out = _conv_padded(x, w, bias, pads, dilation, groups, n)
    return _unbatched(out, added)


def _conv_padded(x, w, bias, pads, dilation, groups, n):
    """A stride-1 convolution of ``x`` padded by ``pads`` ((left, right) per dimension)."""
    if any(p for lr in pads for p in lr):
        x = pad(x, [p for lr in reversed(pads) for p in lr])
    return _convolution(x, w, bias, 1, 0, dilation, groups, n)


def _output_padding(x, output_size, stride, padding, kernel, dilation):
    """The output_padding that makes the output ``output_size`` (spatial, or with the
    batch and channel dimensions), as ``ConvTranspose``'s ``forward(output_size=...)``."""
    n = len(kernel)
    size = list(output_size)[-n:]
    out = []
    for d in range(n):
        smallest = (x.shape[2 + d] - 1) * stride[d] - 2 * padding[d] + \
            dilation[d] * (kernel[d] - 1) + 1
        if not smallest <= size[d] < smallest + stride[d]:
            raise ValueError(f"requested an output size of {size}, but valid sizes range from "
                             f"{smallest} to {smallest + stride[d] - 1} (for an input of "
                             f"{list(x.shape[2:])})")
        out.append(size[d] - smallest)
    return tuple(out)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 3)


# -- pooling -----------------------------------------------------------------------------------

def _pool_geometry(x, n, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _tuple(kernel_size, n)
    stride = kernel if stride is None or stride == [] or stride == () else _tuple(stride, n,
                                                                                  "stride")
    padding = _tuple(padding, n, "padding")
    dilation = _tuple(dilation, n, "dilation")
    for k, p in zip(kernel, padding):
        if p > k // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation=1")
    sizes = [_out_size(x.shape[2 + d], kernel[d], stride[d], padding[d], padding[d],
                       dilation[d], ceil_mode) for d in range(n)]
    if any(s <= 0 for s in sizes):
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, x.shape[1:]))}). Calculated "
                           f"output size: ({'x'.join(map(str, [x.shape[1], *sizes]))}). "
                           "Output size is too small")
    # right padding so that every window lies inside the padded input (ceil_mode)
    right = [max(padding[d], (sizes[d] - 1) * stride[d] + dilation[d] * (kernel[d] - 1) + 1
                 - x.shape[2 + d] - padding[d]) for d in range(n)]
    return kernel, stride, padding, dilation, sizes, right


def _padded(x, padding, right, value):
    if not any(padding) and not any(right):
        return x
    flat = [p for d in reversed(range(len(padding))) for p in (padding[d], right[d])]
    return pad(x, flat, value=value)


def _max_pool(input, n, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    x, added = _batched(input, n, f"max_pool{n}d")
    kernel, stride, padding, dilation, sizes, right = _pool_geometry(
        x, n, kernel_size, stride, padding, dilation, ceil_mode)
    xp = _padded(x, padding, right, -math.inf)
    # which element of each window is largest (the first, as PyTorch), found on the values
    win = _windows(Tensor._make(xp._data), kernel, stride, dilation, sizes)._data
    order = [0, 1] + [2 + 2 * d for d in range(n)] + [3 + 2 * d for d in range(n)]
    win = win.transpose(order).reshape(*win.shape[:2], *sizes, -1)
    pick = np.unravel_index(np.argmax(win, axis=-1), kernel)   # offsets inside the window
    grids = np.meshgrid(*[np.arange(s) for s in sizes], indexing="ij")
    coords = [grids[d] * stride[d] + pick[d] * dilation[d] for d in range(n)]
    batch, channels = x.shape[0], x.shape[1]
    flat_padded = np.ravel_multi_index(coords, xp.shape[2:])
    rows = np.arange(batch * channels).reshape(batch, channels, *([1] * n))
    out = xp.reshape(batch * channels, -1)[rows, flat_padded]
    name = "MaxPool2DWithIndicesBackward0" if n == 2 else "SqueezeBackward1"
    out = _unbatched(_named(out, name), added)
    if not return_indices:
        return out
    unpadded = [c - p for c, p in zip(coords, padding)]
    indices = np.ravel_multi_index(unpadded, x.shape[2:]).astype(np.int64)
    return out, _unbatched(Tensor._make(indices), added)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return _max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def _avg_pool(input, n, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override):
    x, added = _batched(input, n, f"avg_pool{n}d")
    kernel, stride, padding, dilation, sizes, right = _pool_geometry(
        x, n, kernel_size, stride, padding, 1, ceil_mode)
    xp = _padded(x, padding, right, 0.0)
    total = None
    for part in _offset_slices(xp, kernel, stride, dilation, sizes):
        total = part if total is None else total + part
    if divisor_override:
        divisor = np.asarray(float(divisor_override))
    else:
        divisor = np.ones(sizes)
        for d in range(n):
            start = np.arange(sizes[d]) * stride[d] - padding[d]
            end = np.minimum(start + kernel[d], x.shape[2 + d] + padding[d])
            if not count_include_pad:
                end = np.minimum(end, x.shape[2 + d])
                start = np.maximum(start, 0)
            shape = [1] * n
            shape[d] = sizes[d]
            divisor = divisor * (end - start).reshape(shape)
    out = total / Tensor._make(divisor.astype(xp._data.dtype))
    name = "AvgPool2DBackward0" if n == 2 else "SqueezeBackward1"
    return _unbatched(_named(out, name), added)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    return _avg_pool(input, 1, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def _bins(length, size, dtype):
    """The (size, length) 0/1 matrix of adaptive pooling's bins along one dimension, and
    each bin's length."""
    m = np.zeros((size, length), dtype=dtype)
    for i in range(size):
        start, end = (i * length) // size, -(-((i + 1) * length) // size)
        m[i, start:end] = 1.0
    return Tensor._make(m), m.sum(1)


def _adaptive_avg_pool(input, n, output_size):
    x, added = _batched(input, n, f"adaptive_avg_pool{n}d")
    sizes = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size] * n
    sizes = [x.shape[2 + d] if s is None else int(s) for d, s in enumerate(sizes)]
    if all(s == 1 for s in sizes):
        out = x.mean(tuple(range(2, 2 + n)), keepdim=True)
        return _unbatched(out, added)
    dtype = x._data.dtype
    bins = [_bins(x.shape[2 + d], sizes[d], dtype) for d in range(n)]
    eq = "nc" + "ij"[:n] + "," + ",".join(o + i for o, i in zip("ab", "ij"[:n])) + \
        "->nc" + "ab"[:n]
    counts = bins[0][1] if n == 1 else np.multiply.outer(bins[0][1], bins[1][1])
    out = _einsum(eq, x, *[m for m, _ in bins]) / Tensor._make(counts)   # sums, then means
    name = "AdaptiveAvgPool2DBackward0" if n == 2 else "SqueezeBackward1"
    return _unbatched(_named(out, name), added)


def adaptive_avg_pool1d(input, output_size):
    return _adaptive_avg_pool(input, 1, output_size)


def adaptive_avg_pool2d(input, output_size):
    return _adaptive_avg_pool(input, 2, output_size)


# -- batch normalisation -------------------------------------------------------------------

def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dimension 1) over the batch and the spatial dimensions;
    in training, with the batch's statistics (and update the running ones: the mean,
    and the unbiased variance), else with the running statistics."""
    dims = (0,) + tuple(range(2, input.ndim))
    shape = [1, input.shape[1]] + [1] * (input.ndim - 2)
    count = input.numel() // input.shape[1]
    if training:
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got "
                             f"input size {input.shape}")
        mean = input.mean(dims, keepdim=True)
        centred = input - mean
        var = (centred * centred).mean(dims, keepdim=True)
        if running_mean is not None or running_var is not None:
            with grad_mode.no_grad():
                if running_mean is not None:
                    running_mean.mul_(1 - momentum).add_(mean.reshape(-1).detach() * momentum)
                if running_var is not None:
                    unbiased = var.reshape(-1).detach() * (count / (count - 1))
                    running_var.mul_(1 - momentum).add_(unbiased * momentum)
        out = centred * (var + eps).rsqrt()
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation "
                               "mode")
        out = (input - running_mean.reshape(shape)) * \
            (running_var.reshape(shape) + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return _named(out, "NativeBatchNormBackward0")
