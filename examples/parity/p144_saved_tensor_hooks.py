# Adapted from "Hooks for saved tensors" (autograd tutorial): pack/unpack hooks that log,
# that move to "cpu", that save to files (by a dict here), save_on_cpu, the nesting and
# disable_saved_tensors_hooks errors, _saved_self / _raw_saved_self attributes.
import torch

torch.manual_seed(0)


def pack_hook(x):
    print("Packing", x.shape)
    return x


def unpack_hook(x):
    print("Unpacking", x.shape)
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
print(a.grad)

store = {}
counter = [0]


def pack_to_store(x):
    counter[0] += 1
    key = f"t{counter[0]}"
    store[key] = x.detach().clone()
    return key


def unpack_from_store(key):
    return store.pop(key)


x = torch.randn(3, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_to_store, unpack_from_store):
    y = x.pow(2).sin()
print(sorted(store), len(store))
y.sum().backward()
print(x.grad, store)

with torch.autograd.graph.save_on_cpu(pin_memory=False):
    z = (x * x).exp().sum()
z.backward()
print(x.grad)

x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(y.grad_fn._saved_self.equal(x), y.grad_fn._saved_exponent)
y = x.exp()
print(y.grad_fn._saved_result.equal(y))
y = x.pow(2)
y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 0 + 1, lambda t: t * 10)
y.sum().backward()
print(x.grad)


def only_pack(t):
    return t


with torch.autograd.graph.saved_tensors_hooks(only_pack, lambda t: t):
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        w = (x * 2).sin()
w.sum().backward()
print(x.grad.shape)
try:
    with torch.autograd.graph.disable_saved_tensors_hooks("not allowed here"):
        with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            pass
except RuntimeError as e:
    print("RuntimeError:", e)
v = torch.randn(2, requires_grad=True)
y = v.sin()
y.sum().backward()
try:
    y.grad_fn._saved_self
except RuntimeError as e:
    print("RuntimeError:", str(e)[:120])
