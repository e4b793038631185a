# A small CNN trained with SGD on fixed data: Conv2d, BatchNorm2d, ReLU, MaxPool2d,
# AdaptiveAvgPool2d, Flatten, Linear, cross entropy; losses step by step, then eval outputs.
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)
model = nn.Sequential(
    nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(4, 6, 3, padding="same", groups=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
    nn.Flatten(), nn.Linear(6, 3))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.sin(torch.arange(p.numel()) * 1.3 + i).reshape(p.shape) * 0.5)
print(model)
images = torch.cos(torch.arange(6 * 1 * 6 * 6).reshape(6, 1, 6, 6) * 0.37)
labels = torch.tensor([0, 1, 2, 0, 1, 2])
opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
for step in range(6):
    opt.zero_grad()
    loss = loss_fn(model(images), labels)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 6))
print(model[1].running_mean, model[1].num_batches_tracked)
model.eval()
with torch.no_grad():
    print(model(images).argmax(1), model(images[:2]))
print(model[0].weight.grad[0, 0], model[8].bias.grad)
