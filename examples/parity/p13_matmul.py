# Matrix products: mm, mv, dot, matmul / @ in 1-D, 2-D and batched forms.
import torch

A = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
B = torch.tensor([[1., 0., -1.], [2., 1., 0.]], requires_grad=True)
v = torch.tensor([1., -1.], requires_grad=True)
for name, r in [("A@B", A @ B), ("A.mm(B)", A.mm(B)), ("A@v", A @ v), ("A.mv(v)", A.mv(v)),
                ("v@v", v @ v), ("v.dot(v)", v.dot(v)), ("matmul", torch.matmul(B, A)),
                ("mm", torch.mm(A, B))]:
    print(name, r, r.grad_fn.name())
(A @ B).sum().backward()
print(A.grad)
print(B.grad)
A.grad = None
(A @ v).pow(2).sum().backward()
print(A.grad, v.grad)
batch = torch.ones(2, 3, 2)
print((batch @ B).shape, (batch @ v).shape)
try:
    A @ A
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    A.mm(v)
except RuntimeError as e:
    print(type(e).__name__, e)
