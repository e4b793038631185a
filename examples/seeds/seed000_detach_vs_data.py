# Seed 000, "参考一": detach() checks in-place changes at backward time, .data does not.
import torch

a = torch.tensor([1., 2., 3.], requires_grad=True)
out = a.sigmoid()
c = out.data            # shares data, not the version counter: the change goes unnoticed
c.zero_()
print(out)              # the zeros show through out
out.sum().backward()
print(a.grad)           # silently wrong: sigmoid's derivative computed from the zeroed output

a = torch.tensor([1., 2., 3.], requires_grad=True)
out = a.sigmoid()
c = out.detach()        # shares data AND the version counter
c.zero_()
print(out)
try:
    out.sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)

# tensor.item() gives a Python number; no_grad stops recording
x = torch.tensor([2.0], requires_grad=True)
print(x.item(), type(x.item()))
with torch.no_grad():
    y = x * 2
print(y.requires_grad)
