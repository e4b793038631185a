# Examples in the style of PyTorch's API docs: one_hot, scatter/gather, meshgrid, cumsum,
# bincount, where, chunk, einsum, ModuleList, lr_scheduler, Dropout in eval, autograd.grad.
import torch
import torch.nn.functional as F
from torch import nn

print(F.one_hot(torch.arange(0, 5) % 3))
print(F.one_hot(torch.arange(0, 5) % 3, num_classes=5))
src = torch.arange(1, 11).reshape((2, 5))
index = torch.tensor([[0, 1, 2, 0]])
print(torch.zeros(3, 5, dtype=src.dtype).scatter_(0, index, src))
t = torch.tensor([[1, 2], [3, 4]])
print(torch.gather(t, 1, torch.tensor([[0, 0], [1, 0]])))
x = torch.tensor([1, 2, 3])
y = torch.tensor([4, 5, 6])
grid_x, grid_y = torch.meshgrid(x, y, indexing="ij")
print(grid_x, grid_y, sep="\n")
print(torch.cumsum(torch.tensor([0.5, 1.5, -2.0, 4.0]), dim=0))
print(torch.bincount(torch.tensor([4, 3, 6, 3, 4])))
a = torch.tensor([[-0.4, 1.2], [0.3, -2.1]])
print(torch.where(a > 0, a, 0.0))
print(torch.where(a > 0))
print(torch.arange(11).chunk(6))
print(torch.einsum("ii", torch.arange(9.).reshape(3, 3)))
print(torch.einsum("i,j->ij", torch.arange(3.), torch.arange(2.)))
print(torch.tril(torch.ones(3, 3)), torch.triu(torch.ones(3, 3), diagonal=1))
print(torch.argsort(torch.tensor([3.0, 1.0, 2.0]), descending=True))
print(torch.clamp(torch.tensor([-1.7, 0.2, 3.3]), min=-0.5, max=0.5))
print(torch.flatten(torch.arange(8).reshape(2, 2, 2), start_dim=1))
print(torch.topk(torch.arange(1., 6.), 3))
print(torch.sort(torch.tensor([[3, 1], [0, 2]]), dim=1))
print(torch.max(torch.tensor([[1.0, 5.0], [7.0, 2.0]]), dim=1))
print(torch.numel(torch.zeros(4, 4)), torch.is_tensor([1]), torch.is_floating_point(a))


class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.linears = nn.ModuleList([nn.Linear(4, 4) for i in range(3)])

    def forward(self, x):
        for i, l in enumerate(self.linears):
            x = self.linears[i // 2](x) + l(x)
        return x


torch.manual_seed(0)
m = MyModule()
print(m)
print(m(torch.ones(1, 4)))
drop = nn.Dropout(p=0.2)
drop.eval()
print(drop(torch.ones(2, 3)), drop)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for epoch in range(5):
    opt.step()
    sched.step()
    print(epoch, sched.get_last_lr())

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 2).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g)
(h,) = torch.autograd.grad(g.sum(), x)
print(h)
print(torch.autograd.grad((x * 3).sum(), [x]))
