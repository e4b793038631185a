# PyTorch's "learning PyTorch with examples", nn and optim versions: a cubic fit of sin(x).
# (Initial weights are set by the script: the random generators of the two libraries differ;
# losses print to 2 decimals: float32 sums of 2000 terms are added in a different order.)
import math

import torch

x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape, xx.dtype)



def make_model():
    model = torch.nn.Sequential(
        torch.nn.Linear(3, 1),
        torch.nn.Flatten(0, 1)
    )
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor([[0.2, -0.1, 0.05]]))
        model[0].bias.fill_(0.1)
    return model


model = make_model()
print(model)
loss_fn = torch.nn.MSELoss(reduction='sum')

learning_rate = 1e-6
for t in range(400):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.2f}")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.5f} + {linear_layer.weight[:, 0].item():.5f} x + '
      f'{linear_layer.weight[:, 1].item():.5f} x^2 + {linear_layer.weight[:, 2].item():.5f} x^3')

model = make_model()
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.2f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(y_pred.grad_fn, loss.grad_fn, loss.detach().round(decimals=1))
print({k: v.shape for k, v in optimizer.state_dict()["state"][0].items()})
print(optimizer.state_dict()["param_groups"])
