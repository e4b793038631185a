# nn.LSTM (layers, bidirectional, batch_first, (h0, c0)) and RNNCell / LSTMCell / GRUCell:
# values, final states, gradients of inputs, states and weights; node names.
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)


def fill(module):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.cos(torch.arange(p.numel()) * 0.9 + i).reshape(p.shape) * 0.4)


x = torch.sin(torch.arange(3 * 2 * 3).reshape(3, 2, 3) * 0.4).requires_grad_()
for kw in [dict(num_layers=2), dict(bidirectional=True, batch_first=True)]:
    m = nn.LSTM(3, 2, **kw)
    fill(m)
    x.grad = None
    h0 = torch.full((m.num_layers * (2 if m.bidirectional else 1), 3 if m.batch_first else 2, 2), 0.1,
                    requires_grad=True)
    out, (h, c) = m(x, (h0, torch.zeros_like(h0)))
    (out.sum() + (h * c).sum()).backward()
    print(m, tuple(out.shape), h.grad_fn, c.grad_fn)
    print(out[0].detach(), c.detach())
    print(x.grad[2], h0.grad, m.bias_ih_l0.grad)
out, (h, c) = m(x[0])
print(out.shape, h.shape, out.grad_fn)

for cell in (nn.RNNCell(3, 2), nn.LSTMCell(3, 2), nn.GRUCell(3, 2), nn.RNNCell(3, 2, nonlinearity="relu", bias=False)):
    fill(cell)
    inp = x[0].detach().requires_grad_()
    state = None
    for t in range(3):
        state = cell(inp * (t + 1), state)
    h = state[0] if isinstance(state, tuple) else state
    h.sum().backward()
    print(cell, [n for n, _ in cell.named_parameters()], h.grad_fn)
    print(h.detach(), inp.grad, cell.weight_hh.grad)
    one = cell(x[0, 0])
    print(one[0].shape if isinstance(one, tuple) else one.shape)
