"""torch.linalg decompositions with several results: svd, eigh, qr, slogdet as one node
each (LinalgSvdBackward0...), their named results and gradients of sign-invariant losses."""
import numpy as np
import torch
torch.manual_seed(0)
rng = np.random.default_rng(0)
A = torch.tensor(rng.standard_normal((4, 3)), requires_grad=True)
S0 = rng.standard_normal((3, 3)); S = torch.tensor(S0 @ S0.T + 3 * np.eye(3), requires_grad=True)
B = torch.tensor(rng.standard_normal((2, 3, 3)), requires_grad=True)
def show(tag, t):
    print(tag, [round(v, 6) for v in t.detach().reshape(-1).tolist()])
U, s, Vh = torch.linalg.svd(A, full_matrices=False)
print(type(torch.linalg.svd(A, full_matrices=False)).__name__, U.grad_fn.name(), s.grad_fn.name(), U.grad_fn is Vh.grad_fn)
# sign-invariant functions of the singular vectors
loss = s.pow(3).sum() + (U @ torch.diag(s) @ Vh).pow(2).sum() + (U[:, 0:1] @ Vh[0:1, :]).sum()
loss.backward(); show("svd grad", A.grad); A.grad = None
torch.linalg.svd(A, full_matrices=False).S.sum().backward(); show("svd S grad", A.grad); A.grad = None
w, V = torch.linalg.eigh(S)
show("eigvals", w)
print(w.grad_fn.name(), V.grad_fn is w.grad_fn)
((V @ torch.diag(w.exp()) @ V.T).sum() + (V[:, 0] * V[:, 0]).sum() * 2).backward(); show("eigh grad", S.grad); S.grad = None
w2, _ = torch.linalg.eigh(S, UPLO="U"); w2.sum().backward(); show("eigh U grad", S.grad); S.grad = None
Q, R = torch.linalg.qr(A)
print(Q.grad_fn.name(), tuple(Q.shape), tuple(R.shape))
show("R", R)
(Q.sum() + R.pow(2).sum()).backward(); show("qr grad", A.grad); A.grad = None
sign, logabsdet = torch.linalg.slogdet(B)
show("slogdet", torch.stack([sign, logabsdet]))
print(sign.grad_fn.name(), sign.requires_grad)
logabsdet.sum().backward(); show("slogdet grad", B.grad)
print(torch.linalg.qr(A, mode="r").Q.shape)
with torch.no_grad():
    print(torch.linalg.svd(A).U.requires_grad)
g, = torch.autograd.grad(torch.linalg.slogdet(S).logabsdet, S)
show("autograd.grad", g)
r = torch.linalg.qr(A)
print(repr(r).splitlines()[0], r.R.shape)
