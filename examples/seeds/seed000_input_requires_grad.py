# Seed 000, second sample: with input.requires_grad=True, input is a leaf that gets a gradient.
import torch

input = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
w1 = torch.tensor(2.0, requires_grad=True)
w2 = torch.tensor(3.0, requires_grad=True)
l1 = input * w1
l2 = l1 + w2
loss = l2.mean()
loss.backward()
print(input.grad)  # tensor([[0.5000, 0.5000], [0.5000, 0.5000]])
print(w1.grad)  # tensor(2.5000)
print(w2.grad)  # tensor(1.)
print(l1.grad, l2.grad, loss.grad)  # None None None
