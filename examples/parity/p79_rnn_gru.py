# nn.RNN and nn.GRU: one and two layers, batch_first, bidirectional, an initial hidden state,
# unbatched input; parameter names and shapes; outputs, final states and gradients.
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)


def fill(module):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.sin(torch.arange(p.numel()) * 0.7 + i).reshape(p.shape) * 0.5)


x = torch.cos(torch.arange(4 * 2 * 3).reshape(4, 2, 3) * 0.3).requires_grad_()
for cls in (nn.RNN, nn.GRU):
    for kw in [dict(), dict(num_layers=2), dict(batch_first=True), dict(bidirectional=True),
               dict(num_layers=2, bidirectional=True, batch_first=True), dict(bias=False)]:
        m = cls(3, 2, **kw)
        fill(m)
        x.grad = None
        out, h = m(x)
        (out.pow(2).sum() + h.sum()).backward()
        print(m, tuple(out.shape), tuple(h.shape), h.grad_fn)
        print(out[-1].detach(), h[-1].detach())
        print(x.grad[0], m.weight_hh_l0.grad)
    print([(n, tuple(p.shape)) for n, p in cls(3, 2, num_layers=2, bidirectional=True).named_parameters()])
    m = cls(3, 2)
    fill(m)
    out, h = m(x[:, 0], torch.tensor([[0.5, -0.5]]))
    print(out.grad_fn, out.shape, h)
    out2, h2 = m(x[:, :1], torch.tensor([[[0.5, -0.5]]]))
    print(torch.allclose(out2[:, 0], out), torch.allclose(h2[:, 0], h))
relu = nn.RNN(3, 2, nonlinearity="relu")
fill(relu)
print(relu, relu(x)[1])
