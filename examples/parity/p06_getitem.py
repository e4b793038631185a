# Indexing: views, grad_fn names (Select, Slice, Index), gradients scattered back.
import torch

x = torch.arange(12.).reshape(3, 4).requires_grad_()
for name, r in [("x[0]", x[0]), ("x[-1]", x[-1]), ("x[0, 1]", x[0, 1]), ("x[:, 1]", x[:, 1]),
                ("x[1:]", x[1:]), ("x[:, ::2]", x[:, ::2]), ("x[..., 0]", x[..., 0]),
                ("x[None]", x[None]), ("x[[0, 2]]", x[[0, 2]]), ("x[x > 5]", x[x > 5]),
                ("x[0, 1:3]", x[0, 1:3])]:
    print(name, r, r.shape)
    print("   ", r.grad_fn.name(), [n.name() if n is not None else None
                                      for n, _ in r.grad_fn.next_functions])
loss = x[0].sum() + x[:, 1].sum() * 2 + x[[0, 0, 2]].sum() + x[x > 9].sum()
loss.backward()
print(x.grad)
idx = torch.tensor([2, 0])
print(x[idx], x[idx, 1], x[1, idx])
try:
    x[3]
except IndexError as e:
    print(type(e).__name__, e)
