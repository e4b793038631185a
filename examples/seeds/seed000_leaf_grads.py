# Seed 000, "实例": leaf tensors keep .grad, non-leaves do not (input has requires_grad=False).
import torch

input = torch.tensor([[1., 2.], [3., 4.]], requires_grad=False)
w1 = torch.tensor(2.0, requires_grad=True)
w2 = torch.tensor(3.0, requires_grad=True)
l1 = input * w1
l2 = l1 + w2
loss = l2.mean()
loss.backward()
print(input.grad)  # None
print(w1.grad)  # tensor(2.5000)
print(w2.grad)  # tensor(1.)
print(l1.grad, l2.grad, loss.grad)  # None None None (non-leaves; PyTorch warns on stderr)
print(l1.grad_fn)  # <MulBackward0 object at 0x...>
print(loss.grad_fn)  # <MeanBackward0 object at 0x...>
