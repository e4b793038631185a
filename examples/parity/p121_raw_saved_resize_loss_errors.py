# A node's _raw_saved_* tensors with their own hooks, resize_/resize_as_, the loss functions'
# errors for bad class indices and probabilities, gradcheck without an input needing grad,
# torch.cuda on a machine without a GPU.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = torch.randn(3, requires_grad=True)
z = x * y
print(z.grad_fn._raw_saved_self, z.grad_fn._raw_saved_other)
print([k for k in dir(z.grad_fn) if k.startswith(("_saved_", "_raw_saved_"))])


def pack(t):
    print("pack", t.shape, t.requires_grad)
    return t * 1


def unpack(t):
    print("unpack")
    return t * 10


z.grad_fn._raw_saved_self.register_hooks(pack, unpack)
try:
    z.grad_fn._raw_saved_self.register_hooks(pack, unpack)
except RuntimeError as e:
    print(type(e).__name__, e)
z.sum().backward()
print(x.grad, y.grad, torch.allclose(y.grad, 10 * x.detach()))
e = x.exp()
e.grad_fn._raw_saved_result.register_hooks(lambda t: t.detach().clone(), lambda t: t + 1)
x.grad = None
e.sum().backward()
print(x.grad, torch.allclose(x.grad, x.detach().exp() + 1))
print(x.sum().grad_fn._raw_saved_self if hasattr(x.sum().grad_fn, "_raw_saved_self")
      else "no _raw_saved_self")

a = torch.arange(6.0)
a.resize_(2, 2)
print(a, a._version)
a.resize_(3, 1)
print(a)
b = torch.ones(2, 3)
b.resize_as_(torch.ones(3, 2))
print(b)
try:
    torch.ones(2, requires_grad=True).resize_(4)
except RuntimeError as e:
    print(type(e).__name__, e)

logits = torch.randn(3, 4)
for target in [torch.tensor([1, 2, 3], dtype=torch.int32), torch.tensor([1.0, 2, 3]),
               torch.tensor([1, 2, -1]), torch.tensor([1, 7, 9]),
               torch.tensor([1, 2, 3], dtype=torch.uint8), torch.tensor([0, -100, 3])]:
    for loss in (F.nll_loss, F.cross_entropy):
        if loss is F.cross_entropy and target.is_floating_point():
            continue
        try:
            print(loss.__name__, loss(logits, target))
        except (RuntimeError, IndexError) as e:
            print(loss.__name__, type(e).__name__, e)
p = torch.rand(3)
for inp in (p * 0.5, p + 1, p - 1, torch.tensor([0.5, float("nan"), 0.1])):
    try:
        print(F.binary_cross_entropy(inp, p))
    except RuntimeError as e:
        print(type(e).__name__, e)
try:
    torch.autograd.gradcheck(torch.sin, (torch.randn(3, dtype=torch.double),))
except ValueError as e:
    print(type(e).__name__, e)
print(torch.cuda.is_available(), torch.cuda.device_count())
