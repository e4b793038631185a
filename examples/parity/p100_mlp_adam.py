# An MLP classifier (Linear, ReLU, Linear) trained with Adam on synthetic data, batch 64.
import torch
from torch import nn

torch.manual_seed(0)
X = torch.randn(256, 20)
w_true = torch.randn(20, 5)
y = (X @ w_true).argmax(dim=1)
model = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Linear(128, 5))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
print(model)
print(sum(p.numel() for p in model.parameters()))
for epoch in range(5):
    perm = torch.randperm(256)
    total = 0.0
    for i in range(0, 256, 64):
        idx = perm[i:i + 64]
        xb, yb = X[idx], y[idx]
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item()
    with torch.no_grad():
        acc = (model(X).argmax(1) == y).float().mean().item()
    print(f"epoch {epoch}: loss {total / 4:.4f} acc {acc:.4f}")
model.eval()
with torch.no_grad():
    probs = torch.softmax(model(X[:3]), dim=1)
print(probs, probs.sum(1))
print(optimizer.state_dict()["state"][0]["exp_avg"].shape, optimizer.state_dict()["state"][0]["step"])
print(optimizer)
