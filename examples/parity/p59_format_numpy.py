# format() of tensors as PyTorch does; numpy() of a tensor that requires grad under no_grad.
import torch

loss = torch.tensor(-16.0)
print(f"{loss}", f"{loss:.4f}", "{:>8}".format(loss), f"{torch.tensor(3)}", f"{torch.tensor(2.5):e}")
print(f"loss: {torch.tensor(0.123456, requires_grad=True):.3f}")
try:
    print(f"{torch.ones(2):.2f}")
except TypeError as e:
    print(type(e).__name__, e)
print(f"{torch.ones(2)}", "[{}]".format(torch.zeros(1, 2)))
x = torch.ones(1, 3, requires_grad=True)
try:
    x.numpy()
except RuntimeError as e:
    print(type(e).__name__, e)
with torch.no_grad():
    print(x.numpy())


class Show(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        print("in forward", a.requires_grad, a.numpy())
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


print(Show.apply(x))
