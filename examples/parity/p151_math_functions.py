# Elementwise and matrix functions of the math docs' examples: fmod, copysign, sinc,
# nan_to_num, frac, logit, xlogy, rot90, tensordot, inner, dist, cdist, det, logdet,
# matrix_power and trapezoid, their node names and gradients (values to 12 digits: a
# matrix product's last bits follow the BLAS).
import torch

torch.manual_seed(0)
x = torch.tensor([[0.3, -1.2, 2.5], [1.0, 0.5, -0.7]], dtype=torch.float64, requires_grad=True)
y = torch.tensor([[0.5, 2.0, 1.5], [3.0, 0.2, 1.1]], dtype=torch.float64, requires_grad=True)
A = torch.tensor([[2.0, 0.3, 0.1], [0.2, 1.5, -0.4], [0.0, 0.7, 3.0]], dtype=torch.float64,
                 requires_grad=True)
cases = [
    ("fmod", lambda: x.fmod(0.7)), ("fmodt", lambda: torch.fmod(x, y)),
    ("sinc", lambda: x.sinc()), ("copysign", lambda: x.copysign(y.detach())),
    ("copysign1", lambda: torch.copysign(x, -1.0)),
    ("nan2num", lambda: (x / (x - 0.3)).nan_to_num(posinf=9.0)), ("frac", lambda: x.frac()),
    ("logit", lambda: y.sigmoid().logit()),
    ("logit_eps", lambda: torch.logit(y.sigmoid(), eps=0.2)),
    ("xlogy", lambda: torch.xlogy(x * (x > 0), y)), ("xlogy_s", lambda: x.xlogy(2.0)),
    ("rot90", lambda: x.rot90()), ("rot90k", lambda: torch.rot90(x, 2, [1, 0])),
    ("tensordot", lambda: torch.tensordot(x, y.T, 1)),
    ("tensordot2", lambda: torch.tensordot(x, y, dims=([0, 1], [0, 1]))),
    ("inner", lambda: torch.inner(x, y)), ("inner1", lambda: x[0].inner(y[1])),
    ("dist", lambda: x.dist(y)), ("dist1", lambda: torch.dist(x, y, 1)),
    ("cdist", lambda: torch.cdist(x, y)), ("cdist1", lambda: torch.cdist(x, y, p=1)),
    ("det", lambda: A.det()), ("tdet", lambda: torch.det(A * 2)),
    ("logdet", lambda: A.logdet()), ("mpow", lambda: A.matrix_power(3)),
    ("mpow_t", lambda: torch.matrix_power(A, 2)), ("trap", lambda: torch.trapezoid(x)),
    ("trapdx", lambda: torch.trapezoid(x, dx=0.5, dim=0)),
    ("trapx", lambda: torch.trapezoid(x, y)),
]
for name, f in cases:
    out = f()
    gs = torch.autograd.grad((out * out.detach().cos()).sum(), [x, y, A], allow_unused=True)
    print(name, out.grad_fn.name(), [round(v, 12) for v in out.detach().flatten()[:4].tolist()],
          [None if g is None else round(g.sum().item(), 10) for g in gs])
print(x.signbit(), torch.signbit(torch.tensor([-0.0, 0.0])),
      torch.xlogy(torch.tensor([0., 1., 0.]), torch.tensor([0., 2., float("nan")])))
