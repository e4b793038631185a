"""srcgrad: automatic differentiation of Python/NumPy by source transformation.

    import srcgrad as sg

    @sg.grad
    def loss(w, x):
        return np.sum(np.tanh(x @ w) ** 2)

    print(loss.source)      # the generated gradient, as Python

The README and docs/ describe the API.  The Tensor runtime (``sg.tensor``,
``backward``, ``no_grad``...) gives PyTorch's autograd semantics, so that
``import srcgrad as torch`` runs PyTorch tutorial code.
"""
from .errors import UnsupportedSyntaxError, NonDifferentiableError  # noqa: F401
from . import rules  # noqa: F401  (registers the derivative table)

from .api.gradients import (grad, value_and_grad, vjp, make_vjp, source, adjoint,  # noqa: F401,E402
                  detach)
from .api.higher import jvp, jacobian, hessian, hvp, gradcheck, GradcheckError, tangent  # noqa: F401,E402
from .tensor import *  # noqa: F401,F403,E402  (the PyTorch-style Tensor runtime)
from .tensor import torch_names as _torch_names  # noqa: E402
from .api.compiled import compile  # noqa: F401,E402,A004
from .api.memory import memory_report  # noqa: F401,E402
from .compiler.source import transform_library  # noqa: F401,E402

_torch_names.install()   # import torch.nn, torch.optim... when torch is srcgrad

__version__ = "0.1.0"
