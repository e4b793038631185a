# A second backward without retain_graph: multiplying or dividing by a Python number saves it.
import torch

w = torch.tensor([1., 2.], requires_grad=True)
for name, f in [("mul", lambda: (w * 3).sum()), ("rmul", lambda: (3 * w).sum()),
                ("div", lambda: (w / 3).sum()), ("add", lambda: (w + 3).sum()),
                ("sub", lambda: (w - 3).sum()), ("rsub", lambda: (3 - w).sum()),
                ("pow", lambda: (w ** 2).sum()), ("neg", lambda: (-w).sum()),
                ("index", lambda: w[0] * 1), ("sum1", lambda: w.view(1, 2).sum(1).sum()),
                ("mean", lambda: w.mean())]:
    s = f()
    s.backward()
    try:
        s.backward()
        print(name, "twice ok", w.grad)
    except RuntimeError as e:
        print(name, type(e).__name__, str(e)[:60])
    w.grad = None
