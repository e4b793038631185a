# "Automatic differentiation with torch.autograd" (the basics tutorial).
import torch

x = torch.ones(5)
y = torch.zeros(3)
w = torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [0.7, -0.8, 0.9],
                  [-1.0, 1.1, 1.2], [0.13, 0.14, -0.15]], requires_grad=True)
b = torch.tensor([0.01, -0.02, 0.03], requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")
loss.backward()
print(w.grad)
print(b.grad)

z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)
z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

try:
    out.sum().backward()
    out.sum().backward()
except RuntimeError as e:
    print("second", str(e)[:60])
q = torch.tensor([1.0, 2.0], requires_grad=True) * 2
try:
    q.backward()
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.ones(2).grad, x.requires_grad, x.is_leaf, z.is_leaf, w.is_leaf)
