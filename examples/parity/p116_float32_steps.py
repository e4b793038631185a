# Float32 training loops printed in full (every digit): PyTorch's optimisers round
# param.add_(grad, alpha=-lr), addcmul and lerp once (a fused multiply-add), and so does
# srcgrad. A polynomial model of scalar parameters (the tutorial's Polynomial3 shape, with a
# target free of transcendental functions), SGD with and without momentum, Tensor.add/lerp.
import torch
import torch.nn as nn


class Cubic(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(torch.tensor(0.3))
        self.b = nn.Parameter(torch.tensor(-0.7))
        self.c = nn.Parameter(torch.tensor(0.11))
        self.d = nn.Parameter(torch.tensor(0.05))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3


x = torch.linspace(-2, 2, 300)
y = 0.5 * x ** 3 - x + 0.25
for make in (lambda ps: torch.optim.SGD(ps, lr=1e-4),
             lambda ps: torch.optim.SGD(ps, lr=1e-4, momentum=0.9),
             lambda ps: torch.optim.SGD(ps, lr=1e-4, momentum=0.9, nesterov=True,
                                        weight_decay=0.01),
             lambda ps: torch.optim.SGD(ps, lr=1e-4, momentum=0.5, dampening=0.1)):
    model = Cubic()
    opt = make(model.parameters())
    loss_fn = nn.MSELoss(reduction="sum")
    for t in range(60):
        loss = loss_fn(model(x), y)
        if t % 20 == 19:
            print(t, loss.item())
        opt.zero_grad()
        loss.backward()
        opt.step()
    print([p.item() for p in model.parameters()])

# the hand-written update of the tutorials, with alpha
w = torch.tensor([0.5, -1.5, 2.25], requires_grad=True)
for t in range(3):
    loss = ((w * x[:3]) ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w.add_(w.grad, alpha=-1e-3)
        w.grad.zero_()
    print(w.tolist())
u, v = torch.linspace(0, 1, 7), torch.linspace(3, -2, 7)
print(u.add(v, alpha=0.3).tolist(), u.sub(v, alpha=1.7).tolist(), torch.add(u, v, alpha=-3).tolist())
print(u.lerp(v, 0.3).tolist(), u.lerp(v, 0.75).tolist(), u.clone().lerp_(v, 0.1).tolist())
