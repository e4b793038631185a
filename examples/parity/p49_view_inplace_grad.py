# In-place writes into a view of a tensor that does not require grad: gradients flow.
import torch

w = torch.tensor([1., 2., 3.], requires_grad=True)
h = torch.zeros(2, 3)
h[0] = w
h[1] = w * w
print(h)
(h * torch.tensor([[1.], [10.]])).sum().backward()
print(w.grad)
out = torch.zeros(4)
for i in range(4):
    out[i] = w[i % 3] * i
print(out)
out.sum().backward()
print(w.grad)
