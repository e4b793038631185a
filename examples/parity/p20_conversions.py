# item(), tolist(), numpy(), float(), int(), bool(): Python values out of tensors.
import torch

x = torch.tensor([[1.5, 2.], [3., 4.]], requires_grad=True)
print(x[0, 0].item(), type(x[0, 0].item()))
print(torch.tensor([3]).item(), type(torch.tensor([3]).item()), torch.tensor(True).item())
print(x.tolist(), torch.tensor([1, 2]).tolist(), torch.tensor(2.5).tolist())
try:
    x.numpy()
except RuntimeError as e:
    print(type(e).__name__, e)
print(x.detach().numpy(), x.detach().numpy().dtype)
try:
    x.item()
except RuntimeError as e:
    print(type(e).__name__, e)
print(float(torch.tensor(2.5)), int(torch.tensor(3.9)), bool(torch.tensor(0.)))
try:
    bool(torch.tensor([1., 2.]))
except RuntimeError as e:
    print(type(e).__name__, e)
loss = (x * x).sum()
print(f"loss = {loss.item():.3f}", f"{torch.tensor(1.23456):.2f}")
print("%.2f" % torch.tensor(2.5).item())
