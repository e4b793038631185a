"""The Tensor runtime: PyTorch's autograd semantics over NumPy (CPU) and CuPy (GPU).

``import srcgrad as torch`` runs PyTorch tutorial code: this package's ``__all__``
is the ``sg.``/``torch.`` namespace for tensors (``tensor``, ``ones``, ``no_grad``,
``float32``...).  The compiler's transformations (``sg.grad``, ``sg.compile``...)
live in :mod:`srcgrad.api`.

Modules, from the bottom up (each imports only modules above it in this list):

    grad_mode, device, dtypes, printing, generator   no tensors: modes, devices, dtypes, repr
    core         the Tensor class: its data and attributes
    autograd     grad_fn nodes, the backward engine, autograd.Function
    dispatch     apply(): run a primitive on tensors' arrays and record its node
    arithmetic, reductions, shape, indexing   Tensor's operations, by concern
    methods      attaches the operations to Tensor
    factories    tensor(), ones(), randn()...
    functions    torch.exp(x), torch.cat(...)...
    nn, optim    torch.nn (Module, layers, losses, functional, init), torch.optim
    data         torch.utils.data (datasets, samplers, DataLoader)
    serialization   torch.save / torch.load
    torch_names  ``import torch.nn`` when ``sys.modules["torch"]`` is srcgrad

``sg.compile`` (one node running the compiler's generated backward) is in
:mod:`srcgrad.api.compiled`: it uses both this runtime and the compiler.
"""
from . import autograd  # noqa: F401  (torch.autograd: backward, grad, Function)
from . import methods  # noqa: F401  (gives Tensor its operations)
from .autograd import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .core import Size, Tensor, is_tensor
from .device import cuda, device, get_default_device, set_default_device
from .dtypes import (bool, cdouble, cfloat, channels_last, complex64, complex128,
                     contiguous_format, double, dtype, finfo, float, float16, float32, float64,
                     get_default_dtype, half, iinfo, int, int8, int16, int32, int64, layout, long,
                     memory_format, preserve_format, promote_types, set_default_dtype, short,
                     strided, uint8)
from .factories import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                        linspace, logspace, normal, ones, ones_like, rand, rand_like, randint,
                        randint_like, randn, randn_like, randperm, tensor, zeros, zeros_like)
from .functions import *  # noqa: F401,F403
from .functions import __all__ as _functions_all
from .generator import Generator, initial_seed, manual_seed, seed
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .printing import get_printoptions, set_printoptions
from .legacy import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor,
                     IntTensor, LongTensor, ShortTensor)
from . import nn, optim  # noqa: E402  (torch.nn, torch.optim: built on everything above)
from .serialization import load, save
from . import accelerator, func, linalg  # noqa: E402
from .summation import get_num_threads, set_num_threads
from . import data as _data
import types as _types

utils = _types.ModuleType("torch.utils", "torch.utils: ``torch.utils.data`` (datasets, DataLoader)")
utils.data = _data
utils.__path__ = []      # a package: ``import torch.utils.data``

__all__ = [
    "Tensor", "Size", "tensor", "as_tensor", "from_numpy", "is_tensor",
    "ones", "zeros", "full", "empty", "eye", "arange", "linspace", "logspace",
    "ones_like", "zeros_like", "full_like", "empty_like",
    "randn", "rand", "randint", "randperm", "normal", "rand_like", "randn_like",
    "randint_like", "manual_seed", "seed", "initial_seed", "Generator",
    "dtype", "float16", "half", "float32", "float", "float64", "double", "complex64",
    "cfloat", "complex128", "cdouble", "uint8", "int8", "int16", "short", "int32", "int",
    "int64", "long", "bool", "get_default_dtype", "set_default_dtype", "promote_types",
    "finfo", "iinfo", "layout", "strided", "memory_format", "contiguous_format",
    "preserve_format", "channels_last",
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
    "is_inference_mode_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "device", "cuda", "set_default_device", "get_default_device", "autograd",
    "set_printoptions", "get_printoptions", "nn", "optim",
    "save", "load", "utils", "accelerator", "func", "linalg", "get_num_threads", "set_num_threads",
    "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
    "CharTensor", "ByteTensor", "BoolTensor",
] + _functions_all
