# In-place changes of a leaf that requires grad are errors (outside no_grad).
import torch

w = torch.tensor([1., 2.], requires_grad=True)
for name, f in [("add_", lambda: w.add_(1)), ("zero_", lambda: w.zero_()),
                ("setitem", lambda: w.__setitem__(0, 5.)),
                ("view add_", lambda: w[0].add_(1)), ("mul_", lambda: w.mul_(2))]:
    try:
        f()
    except RuntimeError as e:
        print(name, type(e).__name__, e)
try:
    w += 1
except RuntimeError as e:
    print("+=", type(e).__name__, e)
with torch.no_grad():
    w += 1
    w[0] = 10.
print(w, w._version, w.requires_grad, w.is_leaf)
