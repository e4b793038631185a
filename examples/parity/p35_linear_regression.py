# A training loop by hand: linear regression with gradient descent under no_grad.
import torch

X = torch.tensor([[1.], [2.], [3.], [4.]])
Y = torch.tensor([[2.], [4.], [6.], [8.]])
w = torch.tensor([[0.5]], requires_grad=True)
b = torch.tensor([0.], requires_grad=True)
lr = 0.05
for epoch in range(8):
    pred = X @ w + b
    loss = ((pred - Y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    print(f"epoch {epoch}: loss {loss.item():.4f}", w, b)
print(loss, loss.grad_fn)
print(w.is_leaf, w.requires_grad, w._version)
