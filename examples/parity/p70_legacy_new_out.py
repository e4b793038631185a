# Tensor.new_*, torch.FloatTensor and friends, autograd.Variable, out= keywords, torch.sin_.
import torch
from torch.autograd import Variable
x = torch.tensor([[1., 2.]], dtype=torch.float64)
print(x.new_ones(2), x.new_zeros((1, 2)), x.new_full((2,), 7), x.new_empty(0).shape, x.new_tensor([1, 2]), x.new_tensor([1., 2.]), x.new_ones(2, dtype=torch.int32, requires_grad=False))
print(torch.ones(2, dtype=torch.int64).new_tensor([1.5]), x.new_ones(2, requires_grad=True))
v = Variable(torch.ones(2), requires_grad=True); print(v, type(v), v.is_leaf, Variable(torch.ones(1)))
print(torch.FloatTensor([1, 2]), torch.DoubleTensor([[1]]), torch.LongTensor([1, 2]), torch.FloatTensor(2, 3).shape, torch.IntTensor([3]), torch.BoolTensor([1, 0]), torch.ByteTensor([1]))
print(isinstance(torch.ones(2), torch.FloatTensor), isinstance(torch.ones(2, dtype=torch.float64), torch.FloatTensor), isinstance(torch.ones(2), torch.Tensor), torch.ones(2).type())
print(type(torch.ones(1)), torch.Tensor, torch.FloatTensor, type(torch.nn.Parameter(torch.ones(1))))
a = torch.ones(2); b = torch.empty(2)
r = torch.add(a, a, out=b); print(r is b, b)
c = torch.empty(0); torch.exp(a, out=c); print(c)
d = torch.empty(3)
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    torch.mul(a, 3, out=d); print(d, [str(x.message)[:80] for x in w])
try: torch.exp(torch.ones(2, requires_grad=True), out=torch.empty(2))
except RuntimeError as ex: print(type(ex).__name__, ex)
f = torch.empty(2, dtype=torch.int64)
try: torch.exp(a, out=f)
except RuntimeError as ex: print(type(ex).__name__, ex)
print(torch.cat([a, a], out=torch.empty(4)), torch.matmul(torch.ones(2,2), a, out=torch.empty(2)))
g = torch.empty(2); torch.sin_(g.fill_(1.)); print(g, torch.exp_(torch.zeros(1)))
print(torch.zeros(2).new(2).shape, x.new([1,2]))
