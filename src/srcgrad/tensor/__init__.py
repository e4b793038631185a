"""The Tensor runtime: PyTorch's autograd semantics over NumPy (CPU) and CuPy (GPU).

``import srcgrad as torch`` runs PyTorch tutorial code: this package's ``__all__``
is the ``sg.``/``torch.`` namespace for tensors (``tensor``, ``ones``, ``no_grad``,
``float32``...).  The compiler's transformations (``sg.grad``, ``sg.compile``...)
live in :mod:`srcgrad.api`.

Modules: ``tensor`` (the class and its operations), ``autograd`` (grad_fn nodes and
the backward engine), ``grad_mode``, ``printing``, ``factories``, ``functions``,
``dtypes``, ``device``.
"""
from . import autograd  # noqa: F401  (torch.autograd: backward, grad, Function)
from .device import cuda, device
from .dtypes import (bool, cdouble, cfloat, complex64, complex128, double, dtype, float,
                     float16, float32, float64, get_default_dtype, half, int, int8, int16, int32,
                     int64, long, promote_types, set_default_dtype, short, uint8)
from .factories import (Generator, arange, as_tensor, empty, empty_like, eye, from_numpy, full,
                        full_like, initial_seed, linspace, logspace, manual_seed, normal, ones,
                        ones_like, rand, rand_like, randint, randint_like, randn, randn_like,
                        randperm, seed, tensor, zeros, zeros_like)
from .functions import *  # noqa: F401,F403
from .functions import __all__ as _functions_all
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .printing import get_printoptions, set_printoptions
from .tensor import Size, Tensor, is_tensor

__all__ = [
    "Tensor", "Size", "tensor", "as_tensor", "from_numpy", "is_tensor",
    "ones", "zeros", "full", "empty", "eye", "arange", "linspace", "logspace",
    "ones_like", "zeros_like", "full_like", "empty_like",
    "randn", "rand", "randint", "randperm", "normal", "rand_like", "randn_like",
    "randint_like", "manual_seed", "seed", "initial_seed", "Generator",
    "dtype", "float16", "half", "float32", "float", "float64", "double", "complex64",
    "cfloat", "complex128", "cdouble", "uint8", "int8", "int16", "short", "int32", "int",
    "int64", "long", "bool", "get_default_dtype", "set_default_dtype", "promote_types",
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
    "device", "cuda", "autograd", "set_printoptions", "get_printoptions",
] + _functions_all
