"""``torch.nn``: Modules, Parameters, layers, activations and losses over the Tensor runtime.

    module      Parameter, Module (registration, traversal, state dicts, hooks, repr)
    container   Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
    layers      Linear, Bilinear, Embedding, LayerNorm, Dropout, activations, losses
    spatial_layers  Conv1d/2d/3d, ConvTranspose1d/2d/3d, MaxPool, AvgPool, AdaptiveAvgPool,
                    BatchNorm1d/2d
    recurrent   RNN, LSTM, GRU and their cells
    attention   scaled_dot_product_attention, MultiheadAttention
    transformer Transformer, its encoder and decoder layers and stacks
    functional  the same as functions of tensors (nn.functional; convolution holds the
                convolutions, pooling and batch_norm)
    init        in-place initialisers (nn.init)
"""
from . import functional, init  # noqa: F401
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .layers import *  # noqa: F401,F403
from .layers import __all__ as _layers_all
from .module import Buffer, Module, Parameter
from .spatial_layers import *  # noqa: F401,F403
from .spatial_layers import __all__ as _spatial_all
from .recurrent import *  # noqa: F401,F403
from .recurrent import __all__ as _recurrent_all
from .attention import MultiheadAttention, scaled_dot_product_attention
# nn.functional.scaled_dot_product_attention (attention builds on functional: no cycle)
functional.scaled_dot_product_attention = scaled_dot_product_attention
functional.__all__.append("scaled_dot_product_attention")
del scaled_dot_product_attention
from .transformer import *  # noqa: F401,F403
from .transformer import __all__ as _transformer_all
from . import utils  # noqa: F401

__all__ = ["Module", "Parameter", "Buffer", "Sequential", "ModuleList", "ModuleDict",
           "ParameterList", "ParameterDict", "functional", "init", "utils",
           "MultiheadAttention"] + _layers_all + \
    _spatial_all + _recurrent_all + _transformer_all
