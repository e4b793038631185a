# The deprecated size_average / reduce flags of the losses (old tutorials pass them):
# they choose the reduction and win over reduction=..., modules and functions alike.
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.simplefilter("ignore")
pred = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
target = torch.tensor([[1.0, 0.0, 1.5], [0.5, 0.5, -1.0]])
labels = torch.tensor([2, 0])
probs = torch.tensor([[0.2, 0.7, 0.9], [0.4, 0.1, 0.6]], requires_grad=True)
bits = torch.tensor([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]])

for flags in [dict(size_average=False), dict(size_average=True), dict(reduce=False),
              dict(size_average=False, reduce=True), dict(size_average=True, reduce=False),
              dict(size_average=False, reduction="mean")]:
    print(flags)
    print(" mse", nn.MSELoss(**flags)(pred, target), F.mse_loss(pred, target, **flags))
    print(" l1", nn.L1Loss(**flags)(pred, target), F.l1_loss(pred, target, **flags))
    print(" smooth", nn.SmoothL1Loss(**flags)(pred, target))
    print(" ce", nn.CrossEntropyLoss(**flags)(pred, labels), F.cross_entropy(pred, labels, **flags))
    print(" nll", nn.NLLLoss(**flags)(pred.log_softmax(1), labels))
    print(" bce", nn.BCELoss(**flags)(probs, bits))
    print(" bcel", nn.BCEWithLogitsLoss(**flags)(pred, bits))
    print(" reduction attribute", nn.MSELoss(**flags).reduction)

# the tutorial's two-layer net with MSELoss(size_average=False): a sum, not a mean
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 2))
x = torch.randn(8, 5)
y = torch.randn(8, 2)
loss_fn = nn.MSELoss(size_average=False)
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
for t in range(3):
    loss = loss_fn(model(x), y)
    print(t, round(loss.item(), 4))
    opt.zero_grad()
    loss.backward()
    opt.step()
print(model[0].bias.grad)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    nn.MSELoss(size_average=False)
    F.l1_loss(pred, target, reduce=False)
print([str(w.message) for w in caught])
