# Walking the graph: grad_fn, name(), next_functions, AccumulateGrad.variable.
import torch

a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
c = torch.tensor([5., 6.])
loss = ((a * b + c).exp() / 2).sum()


def walk(fn, depth=0):
    print("  " * depth + (fn.name() if fn is not None else "None"))
    if fn is None:
        return
    for nxt, idx in fn.next_functions:
        walk(nxt, depth + 1)


walk(loss.grad_fn)
acc = (a * b).grad_fn.next_functions[0][0]
print(acc, type(acc).__name__)
print(acc.variable is a, acc.next_functions)
print(acc is (a + 1).grad_fn.next_functions[0][0])
print(loss.grad_fn)
print(type(loss.grad_fn).__name__, str(loss.grad_fn) == repr(loss.grad_fn))
print(a.grad_fn, c.grad_fn)
