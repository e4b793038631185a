# Writes through views of views and += on an element while recording.
import torch
w = torch.tensor([1., 2., 3.], requires_grad=True)
h = torch.zeros(2, 3)
h[0][1:].add_(w[:2])
print(h)
h.sum().backward(); print(w.grad)
g = torch.zeros(2, 2)
g[1][0] = w[2] * 5
print(g)
g.sum().backward(); print(w.grad)
m = torch.zeros(3)
for i in range(3):
    m[i] += w[i] ** 2
print(m); m.sum().backward(); print(w.grad)
