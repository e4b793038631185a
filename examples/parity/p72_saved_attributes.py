# grad_fn._saved_* attributes as PyTorch names them, before and after backward.
import torch

x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
y = torch.tensor([[.5, 1.5], [2.5, .25]], requires_grad=True)
m = x * y
print(m.grad_fn.name(), m.grad_fn._saved_self is x, m.grad_fn._saved_other is y)
m1 = x * 3
print(m1.grad_fn._saved_other, m1.grad_fn._saved_self)
m2 = x * y.detach()
print(m2.grad_fn._saved_self, m2.grad_fn._saved_other is None)
d = x / y
print(d.grad_fn.name(), d.grad_fn._saved_self is x, d.grad_fn._saved_other is y)
p = x ** 2
print(p.grad_fn, p.grad_fn._saved_self is x, p.grad_fn._saved_exponent)
p = x.pow(3.5)
print(p.grad_fn._saved_exponent, type(p.grad_fn._saved_exponent).__name__)
p = x ** y
print(p.grad_fn, p.grad_fn._saved_self is x, p.grad_fn._saved_exponent is y)
print(p.grad_fn._saved_result)
for name in ["exp", "tanh", "sigmoid", "sqrt", "relu", "reciprocal", "rsqrt", "expm1"]:
    out = getattr(x, name)()
    r = out.grad_fn._saved_result
    print(out.grad_fn.name(), r, r is out, torch.equal(r, out))
for name in ["sin", "cos", "log", "abs", "log1p"]:
    out = getattr(x, name)()
    print(out.grad_fn.name(), out.grad_fn._saved_self is x)
mm = x @ y
print(mm.grad_fn, mm.grad_fn._saved_self is x, mm.grad_fn._saved_mat2 is y)
mx = torch.maximum(x, y)
print(mx.grad_fn, mx.grad_fn._saved_self is x, mx.grad_fn._saved_other is y)
a = x + y
print(a.grad_fn._saved_alpha, (x - y).grad_fn._saved_alpha)
e = x.exp()
e.sum().backward()
try:
    e.grad_fn._saved_result
except RuntimeError as err:
    print("RuntimeError", str(err)[:60])
print(m.grad_fn.next_functions[0][0].name(), m.grad_fn.metadata)
m.grad_fn.metadata["tag"] = 1
print(m.grad_fn.metadata)
try:
    m.grad_fn._saved_nothing
except AttributeError as err:
    print("AttributeError", err)

# sizes, dims and numbers: kept after backward
z = torch.ones(2, 3, requires_grad=True)
for out in [z.sum(), z.sum(0), z.mean(), z.mean(1, keepdim=True), z.view(6), z.reshape(3, 2)]:
    fn = out.grad_fn
    print(fn.name(), {n: getattr(fn, n) for n in dir(fn) if n.startswith("_saved")})
s = (z * 2).sum()
p = z ** 3
(s + p.sum()).backward()
print(s.grad_fn._saved_self_sym_sizes, p.grad_fn._saved_exponent)
