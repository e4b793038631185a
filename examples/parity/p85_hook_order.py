# The order of hooks: tensor hooks, then retain_grad, then the node's prehooks, the node, its
# hooks; on a leaf: its tensor hooks, the AccumulateGrad's prehooks, .grad, post-accumulate
# hooks, the AccumulateGrad's hooks.
import torch

x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
y.retain_grad()
y.grad_fn.register_prehook(lambda gos: print("node pre", gos) or (gos[0] * 10,))
y.register_hook(lambda g: print("tensor hook", g) or g + 1)
y.grad_fn.register_hook(lambda gis, gos: print("node post", gis, gos))
y.sum().backward()
print(y.grad, x.grad)

a = torch.tensor([1., 2.], requires_grad=True)
acc = (a * 1).grad_fn.next_functions[0][0]
a.register_hook(lambda g: print("leaf hook", g) or g * 2)
acc.register_prehook(lambda gos: print("acc pre", gos) or (gos[0] + 1,))
a.register_post_accumulate_grad_hook(lambda t: print("post accumulate", t.grad))
acc.register_hook(lambda gis, gos: print("acc post", gis, gos))
(a * 1).sum().backward()
print(a.grad)
try:
    y2 = x * 3
    y2.grad_fn.register_prehook(lambda gos: (gos[0], gos[0]))
    y2.sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)
