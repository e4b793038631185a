"""The layers, activations and losses of ``torch.nn``: Modules over :mod:`.functional`,
with PyTorch's constructor arguments, parameter shapes, initialisation and ``repr``."""
import math

from .. import factories
from . import functional as F
from . import init
from .module import Module, Parameter

__all__ = ["Identity", "Linear", "Bilinear", "Flatten", "Unflatten", "Dropout", "Dropout1d",
           "Dropout2d", "Dropout3d", "Embedding",
           "LayerNorm", "ReLU", "ReLU6", "LeakyReLU", "PReLU", "ELU", "SELU", "CELU", "GELU",
           "SiLU",
           "Mish", "Softplus", "Softsign", "Tanh", "Sigmoid", "Hardtanh", "Hardsigmoid",
           "Hardswish", "LogSigmoid", "Softmax", "LogSoftmax", "Softmin",
           "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "NLLLoss", "CrossEntropyLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "CosineSimilarity"]


def _empty(*shape, dtype=None):
    return Parameter(factories.empty(*shape, dtype=dtype))


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = _empty(out_features, in_features, dtype=dtype)
        if bias:
            self.bias = _empty(out_features, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1]
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = _empty(out_features, in1_features, in2_features, dtype=dtype)
        if bias:
            self.bias = _empty(out_features, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        bound = 1 / math.sqrt(in1_features)
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        d = self.dim % input.ndim
        return input.reshape(tuple(input.shape[:d]) + self.unflattened_size
                             + tuple(input.shape[d + 1:]))

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class Embedding(Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < num_embeddings, \
                    "Padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -num_embeddings, \
                    "Padding_idx must be within num_embeddings"
                padding_idx = num_embeddings + padding_idx
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx, self.max_norm = padding_idx, max_norm
        self.norm_type, self.scale_grad_by_freq = norm_type, scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = _empty(num_embeddings, embedding_dim, dtype=dtype)
            init.normal_(self.weight)
            if padding_idx is not None:
                self.weight._data[padding_idx] = 0
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, **kwargs):
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx=padding_idx, _weight=embeddings, _freeze=freeze)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(factories.ones(*self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(factories.zeros(*self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self._has_bias = bias and elementwise_affine

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self._has_bias}")


# -- activations -----------------------------------------------------------------------------

def _activation(name, function, params=(), defaults=(), repr_params=None, show_inplace=True):
    """A Module class whose forward is ``function(input, **its parameters)``."""
    keys = list(params)

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        values = dict(zip(keys, defaults))
        values.update(zip(keys, args))
        values.update(kwargs)
        for k, v in values.items():
            setattr(self, k, v)

    def forward(self, input):
        return function(input, **{k: getattr(self, k) for k in keys})

    def extra_repr(self):
        shown = repr_params if repr_params is not None else keys
        if show_inplace and getattr(self, "inplace", False) and "inplace" not in shown:
            shown = tuple(shown) + ("inplace",)        # PyTorch shows it only when set
        return ", ".join(f"{k}={getattr(self, k)!r}" if isinstance(getattr(self, k), str)
                         else f"{k}={getattr(self, k)}" for k in shown)

    return type(name, (Module,), {"__init__": __init__, "forward": forward,
                                  "extra_repr": extra_repr, "__module__": __name__})


ReLU = _activation("ReLU", F.relu, ("inplace",), (False,), ())
ReLU6 = _activation("ReLU6", F.relu6, ("inplace",), (False,), ())
LeakyReLU = _activation("LeakyReLU", F.leaky_relu, ("negative_slope", "inplace"), (0.01, False),
                        ("negative_slope",))
class PReLU(Module):
    """``max(0, x) + weight * min(0, x)`` with a learnt slope (one, or one per channel)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = _empty(num_parameters, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


ELU = _activation("ELU", F.elu, ("alpha", "inplace"), (1.0, False), ("alpha",))
CELU = _activation("CELU", F.celu, ("alpha", "inplace"), (1.0, False), ("alpha",))
SELU = _activation("SELU", F.selu, ("inplace",), (False,), ())
GELU = _activation("GELU", F.gelu, ("approximate",), ("none",))
SiLU = _activation("SiLU", F.silu, ("inplace",), (False,), ())
Mish = _activation("Mish", F.mish, ("inplace",), (False,), ())
Softplus = _activation("Softplus", F.softplus, ("beta", "threshold"), (1.0, 20.0))
Softsign = _activation("Softsign", F.softsign)
Tanh = _activation("Tanh", F.tanh)
Sigmoid = _activation("Sigmoid", F.sigmoid)
LogSigmoid = _activation("LogSigmoid", F.logsigmoid)
Hardtanh = _activation("Hardtanh", F.hardtanh, ("min_val", "max_val", "inplace"),
                       (-1.0, 1.0, False), ("min_val", "max_val"))
Hardsigmoid = _activation("Hardsigmoid", F.hardsigmoid, ("inplace",), (False,), (), False)
Hardswish = _activation("Hardswish", F.hardswish, ("inplace",), (False,), (), False)
Softmax = _activation("Softmax", F.softmax, ("dim",), (None,))
LogSoftmax = _activation("LogSoftmax", F.log_softmax, ("dim",), (None,))
Softmin = _activation("Softmin", F.softmin, ("dim",), (None,))
CosineSimilarity = _activation("CosineSimilarity", F.cosine_similarity, ("dim", "eps"),
                               (1, 1e-8), ())


# -- losses ----------------------------------------------------------------------------------

class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = F.legacy_reduction(size_average, reduce, reduction)


class MSELoss(_Loss):
    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class NLLLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class KLDivLoss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
