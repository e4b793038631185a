# _version: in-place changes count; views and detach() share the counter, .data does not.
import torch

z = torch.zeros(3)
print(z._version)
z.add_(1)
z[0] = 3
z += 1
print(z._version)
d = z.detach()
d.add_(1)
print(z._version, d._version)
dd = z.data
dd.add_(1)
print(z._version, dd._version)
v = z.view(3, 1)
v.mul_(2)
print(z._version, v._version, z)
r = z[1:]
r.zero_()
print(z._version, z)
y = z * 2
print(y._version)
