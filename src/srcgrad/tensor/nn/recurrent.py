"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their cells, as PyTorch defines them.

One step of each is a few recorded Tensor operations (so its gradient comes from
their rules), written once and used by both the cell and the layer:

    RNN   h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)            (or relu)
    LSTM  i, f, g, o = chunks of (x W_ih^T + b_ih + h W_hh^T + b_hh)
          c' = sigmoid(f) c + sigmoid(i) tanh(g),  h' = sigmoid(o) tanh(c')
    GRU   r, z = sigmoid(chunks of x W_ih^T + b_ih + h W_hh^T + b_hh)
          n = tanh(x W_in^T + b_in + r (h W_hn^T + b_hn)),  h' = (1 - z) n + z h

Parameters are named, shaped, ordered and initialised (uniform in +-1/sqrt(hidden_size))
as PyTorch's, so a state dict moves between the two.
"""
import math

from .. import factories
from ..functions import cat, stack
from . import functional as F
from . import init
from .module import Module, Parameter

__all__ = ["RNNCell", "LSTMCell", "GRUCell", "RNN", "LSTM", "GRU"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_step(x_proj, h, w_hh, b_hh, relu=False):
    pre = x_proj + F.linear(h, w_hh, b_hh)
    return pre.relu() if relu else pre.tanh()


def _lstm_step(x_proj, state, w_hh, b_hh):
    h, c = state
    gates = x_proj + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def _gru_step(x_proj, h, w_hh, b_hh):
    h_proj = F.linear(h, w_hh, b_hh)
    xr, xz, xn = x_proj.chunk(3, -1)
    hr, hz, hn = h_proj.chunk(3, -1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return (1 - z) * n + z * h


def _step(mode, x_proj, state, w_hh, b_hh):
    if mode == "LSTM":
        return _lstm_step(x_proj, state, w_hh, b_hh)
    if mode == "GRU":
        return _gru_step(x_proj, state, w_hh, b_hh)
    return _rnn_step(x_proj, state, w_hh, b_hh, mode == "RNN_RELU")


def _reset(module):
    stdv = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -stdv, stdv)


# -- cells -------------------------------------------------------------------------------------

class _CellBase(Module):
    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        gates = _GATES[self._mode] * hidden_size
        self.weight_ih = Parameter(factories.empty(gates, input_size, dtype=dtype))
        self.weight_hh = Parameter(factories.empty(gates, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(factories.empty(gates, dtype=dtype))
            self.bias_hh = Parameter(factories.empty(gates, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset(self)

    def _prepare(self, input, hx, name):
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D "
                             "instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = factories.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros) if self._mode == "LSTM" else zeros
        elif not batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if self._mode == "LSTM" else hx.unsqueeze(0)
        return input, hx, batched

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx, type(self).__name__)
        x_proj = F.linear(input, self.weight_ih, self.bias_ih)
        out = _step(self._mode, x_proj, hx, self.weight_hh, self.bias_hh)
        if batched:
            return out
        return tuple(o.squeeze(0) for o in out) if isinstance(out, tuple) else out.squeeze(0)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(_CellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        object.__setattr__(self, "_mode", "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        super().__init__(input_size, hidden_size, bias, device, dtype)
        self.nonlinearity = nonlinearity


class LSTMCell(_CellBase):
    _mode = "LSTM"


class GRUCell(_CellBase):
    _mode = "GRU"


# -- layers ------------------------------------------------------------------------------------

class _RNNBase(Module):
    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if proj_size:
            raise NotImplementedError("srcgrad: LSTM(proj_size=...) is not supported")
        if not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first = bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, 0
        self.mode = self._mode
        gates = _GATES[self._mode] * hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names = []
        for layer in range(num_layers):
            for d in range(directions):
                suffix = "_reverse" if d == 1 else ""
                width = input_size if layer == 0 else hidden_size * directions
                names = [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
                setattr(self, names[0], Parameter(factories.empty(gates, width, dtype=dtype)))
                setattr(self, names[1], Parameter(factories.empty(gates, hidden_size,
                                                                  dtype=dtype)))
                if bias:
                    names += [f"bias_ih_l{layer}{suffix}", f"bias_hh_l{layer}{suffix}"]
                    for n in names[2:]:
                        setattr(self, n, Parameter(factories.empty(gates, dtype=dtype)))
                self._flat_weights_names.extend(names)
        self.reset_parameters()

    def reset_parameters(self):
        _reset(self)

    def _weights(self, layer, d):
        suffix = "_reverse" if d == 1 else ""
        get = lambda n: getattr(self, f"{n}_l{layer}{suffix}", None)   # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh")

    def forward(self, input, hx=None):
        lstm = self._mode == "LSTM"
        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                             f"{input.ndim}D instead")
        batched = input.ndim == 3
        if not batched:
            input = input.unsqueeze(1)
            if hx is not None:
                hx = tuple(h.unsqueeze(1) for h in hx) if lstm else hx.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        steps, batch = input.shape[0], input.shape[1]
        directions = 2 if self.bidirectional else 1
        if hx is None:
            zeros = factories.zeros(self.num_layers * directions, batch, self.hidden_size,
                                    dtype=input.dtype)
            hx = (zeros, zeros) if lstm else zeros
        h0, c0 = hx if lstm else (hx, None)
        finals_h, finals_c = [], []
        layer_input = input
        for layer in range(self.num_layers):
            outs = []
            for d in range(directions):
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, d)
                k = layer * directions + d
                state = (h0[k], c0[k]) if lstm else h0[k]
                x_proj = F.linear(layer_input, w_ih, b_ih)        # every step at once
                hs = [None] * steps
                for t in (range(steps - 1, -1, -1) if d == 1 else range(steps)):
                    state = _step(self._mode, x_proj[t], state, w_hh, b_hh)
                    hs[t] = state[0] if lstm else state
                outs.append(stack(hs))
                finals_h.append(state[0] if lstm else state)
                if lstm:
                    finals_c.append(state[1])
            layer_input = outs[0] if directions == 1 else cat(outs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        output = layer_input
        h_n = stack(finals_h)
        if not batched:
            output = output.squeeze(1)
            h_n = h_n.squeeze(1)
        elif self.batch_first:
            output = F._named(output.transpose(0, 1),
                              "TransposeBackward0" if lstm else "TransposeBackward1")
        if not lstm:
            return output, h_n
        c_n = stack(finals_c)
        return output, (h_n, c_n.squeeze(1) if not batched else c_n)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:             # (PyTorch does not show the nonlinearity)
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(_RNNBase):
    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        object.__setattr__(self, "_mode", "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        super().__init__(*args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(_RNNBase):
    _mode = "LSTM"


class GRU(_RNNBase):
    _mode = "GRU"
