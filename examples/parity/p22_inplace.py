# In-place operations: add_, sub_, mul_, div_, zero_, fill_, +=, -=, *=, /=.
import torch

t = torch.tensor([1., 2., 3.])
print(t.add_(1), t._version)
print(t.sub_(0.5), t.mul_(2), t.div_(4), t._version)
t += 1
t -= torch.tensor([1., 1., 1.])
t *= 3
t /= 2
print(t, t._version)
print(t.zero_(), t.fill_(2.5), t._version)
i = torch.tensor([1, 2, 3])
i += 1
i *= 2
print(i)
try:
    i.add_(1.5)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    i /= 2
except RuntimeError as e:
    print(type(e).__name__, e)
same = t
t += 1
print(same is t, same)
u = torch.tensor([[1., 2.], [3., 4.]])
u[0].mul_(10)
print(u)
u.add_(torch.tensor([1., 2.]))
print(u)
print(u.exp_(), u.clamp_(max=100.))
