# A two-layer perceptron by hand: tanh hidden layer, MSE loss, gradients of every weight.
import torch

X = torch.tensor([[0., 0.], [0., 1.], [1., 0.], [1., 1.]])
Y = torch.tensor([[0.], [1.], [1.], [0.]])
W1 = torch.tensor([[0.5, -0.4, 0.3], [0.2, 0.6, -0.1]], requires_grad=True)
b1 = torch.tensor([0.1, -0.1, 0.05], requires_grad=True)
W2 = torch.tensor([[0.7], [-0.5], [0.2]], requires_grad=True)
b2 = torch.tensor([0.0], requires_grad=True)
params = [W1, b1, W2, b2]
for step in range(5):
    h = torch.tanh(X @ W1 + b1)
    out = torch.sigmoid(h @ W2 + b2)
    loss = ((out - Y) ** 2).mean()
    for p in params:
        p.grad = None
    loss.backward()
    print(step, round(loss.item(), 6))
    with torch.no_grad():
        for p in params:
            p -= 0.5 * p.grad
print(W1.grad)
print(b1.grad)
print(W2.grad)
print(b2.grad)
print(out)
