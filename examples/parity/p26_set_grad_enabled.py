# set_grad_enabled: a plain call, a context manager, a decorator.
import torch

x = torch.tensor([1., 2.], requires_grad=True)
torch.set_grad_enabled(False)
print(torch.is_grad_enabled(), (x * 2).requires_grad)
torch.set_grad_enabled(True)
print(torch.is_grad_enabled(), (x * 2).requires_grad)
for mode in (False, True):
    with torch.set_grad_enabled(mode):
        print(mode, torch.is_grad_enabled(), (x * 2).requires_grad)
print(torch.is_grad_enabled())


@torch.set_grad_enabled(False)
def f():
    return torch.is_grad_enabled()


print(f(), torch.is_grad_enabled())
with torch.no_grad():
    with torch.set_grad_enabled(True):
        print((x * 2).requires_grad)
    print((x * 2).requires_grad)
is_train = False
with torch.set_grad_enabled(is_train):
    y = x * 2
print(y.requires_grad)
