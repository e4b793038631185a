"""``torch.nn``: Modules, Parameters, layers, activations and losses over the Tensor runtime.

    module      Parameter, Module (registration, traversal, state dicts, hooks, repr)
    container   Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
    layers      Linear, Bilinear, Embedding, LayerNorm, Dropout, activations, losses
    functional  the same as functions of tensors (nn.functional)
    init        in-place initialisers (nn.init)

Convolutions and recurrent layers are not provided yet.
"""
from . import functional, init  # noqa: F401
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .layers import *  # noqa: F401,F403
from .layers import __all__ as _layers_all
from .module import Buffer, Module, Parameter
from . import utils  # noqa: F401

__all__ = ["Module", "Parameter", "Buffer", "Sequential", "ModuleList", "ModuleDict",
           "ParameterList", "ParameterDict", "functional", "init", "utils"] + _layers_all
