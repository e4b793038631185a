"""``torch.linalg``: each function runs NumPy's ``np.linalg`` primitive through its rule.

An ``..._ex`` function also returns ``info`` (zeros: NumPy raises on a singular matrix
instead).  The decompositions with several results (``qr``, ``svd``, ``eigh``,
``slogdet``) record one node for all of them, as PyTorch (:mod:`.autograd.multi`), and
return PyTorch's named tuples.
"""

import numpy as np

from . import grad_mode
from .autograd.multi import several_results
from .core import Tensor, _return_type
from .dispatch import _dims, apply
from .nn.padding import _named

__all__ = ["matmul", "cross", "vecdot", "multi_dot", "norm", "vector_norm", "matrix_norm",
           "inv", "inv_ex", "det", "solve", "solve_ex", "cholesky", "cholesky_ex", "svdvals",
           "eigvalsh", "pinv", "matrix_rank",
           "matrix_power", "svd", "eigh", "qr", "slogdet", "LinAlgError"]



class _LinAlgError(RuntimeError):
    """PyTorch's error for a singular or not positive-definite matrix (a RuntimeError)."""


LinAlgError = _LinAlgError


_INV_EX = _return_type("linalg_inv_ex", "inverse info")
_SOLVE_EX = _return_type("linalg_solve_ex", "result info")
_CHOL_EX = _return_type("linalg_cholesky_ex", "L info")
_SVD = _return_type("linalg_svd", "U S Vh")
_EIGH = _return_type("linalg_eigh", "eigenvalues eigenvectors")
_QR = _return_type("linalg_qr", "Q R")
_SLOGDET = _return_type("linalg_slogdet", "sign logabsdet")


def _square(A, what):
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{what}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.ndim > 1 else 1} by {A.shape[-1]} matrices")


def _decompose(what, message, func, *args, **kwargs):
    try:
        return apply(func, *args, **kwargs)
    except np.linalg.LinAlgError:
        raise _LinAlgError(f"{what}: {message}") from None


def _singular_diagonal(A):
    """The 1-based position PyTorch names: the first zero pivot of A's LU factorization."""
    u = np.array(A._data, dtype=np.float64).reshape(-1, A.shape[-1], A.shape[-1])[0]
    n = u.shape[0]
    for k in range(n):
        pivot = k + int(np.argmax(np.abs(u[k:, k])))
        if u[pivot, k] == 0:
            return k + 1
        u[[k, pivot]] = u[[pivot, k]]
        u[k + 1:] -= np.outer(u[k + 1:, k] / u[k, k], u[k])
    return n


def _info(a):
    return Tensor._make(np.zeros(a.shape[:-2], dtype=np.int32))


def matmul(input, other, *, out=None):
    return input.matmul(other)


def cross(input, other, *, dim=-1):
    return apply(np.cross, (input, other), {"axis": dim}, name="LinalgCrossBackward0",
                 promote=True)


def vecdot(x, y, *, dim=-1):
    return (x.conj() * y).sum(dim) if x.is_complex() else (x * y).sum(dim)


def multi_dot(tensors):
    out = tensors[0]
    for t in tensors[1:]:
        out = out.matmul(t)
    return _named(out, "ViewBackward0") if len(tensors) > 2 else out


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    return x.norm(ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    x = A if dtype is None else A.to(dtype)
    # PyTorch's last operation: a vector norm, the sum of the singular values, or an
    # amax / amin (of singular values or of column / row sums)
    name = {"fro": "LinalgVectorNormBackward0", "nuc": "SumBackward1"}.get(
        ord, "AmaxBackward0" if not isinstance(ord, str) and ord > 0 else "AminBackward0")
    return apply(np.linalg.norm, (x,), {"ord": ord, "axis": _dims(dim, x.ndim),
                                        "keepdims": keepdim}, name=name, floating=True)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm for a vector (or ``dim`` an int), a matrix norm for a matrix."""
    if isinstance(dim, int) or (dim is None and (A.ndim == 1 or ord is None)):
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    return matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim,
                       keepdim, dtype=dtype)


def inv(A, *, out=None):
    _square(A, "linalg.inv")
    try:
        return apply(np.linalg.inv, (A,), name="LinalgInvExBackward0", floating=True)
    except np.linalg.LinAlgError:
        raise _LinAlgError(f"linalg.inv: The diagonal element {_singular_diagonal(A)} is zero, "
                           "the inversion could not be completed because the input matrix is "
                           "singular.") from None


def inv_ex(A, *, check_errors=False, out=None):
    return _INV_EX(inv(A), _info(A))


def det(A, *, out=None):
    _square(A, "linalg.det")
    return apply(np.linalg.det, (A,), name="LinalgDetBackward0", floating=True)


def solve(A, B, *, left=True, out=None):
    if not left:
        return solve(A.mT, B.mT).mT
    return _decompose("torch.linalg.solve", "The solver failed because the input matrix is "
                      "singular.", np.linalg.solve, (A, B), name="LinalgSolveExBackward0",
                      promote=True, floating=True)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    return _SOLVE_EX(solve(A, B, left=left), _info(A))


def cholesky(A, *, upper=False, out=None):
    try:
        L = apply(np.linalg.cholesky, (A,), name="LinalgCholeskyExBackward0", floating=True)
    except np.linalg.LinAlgError:
        order = next(k for k in range(1, A.shape[-1] + 1)
                     if np.linalg.det(np.asarray(A._data, dtype=np.float64)
                                      .reshape(-1, *A.shape[-2:])[0][:k, :k]) <= 0)
        raise _LinAlgError("linalg.cholesky: The factorization could not be completed because "
                           "the input is not positive-definite (the leading minor of order "
                           f"{order} is not positive-definite).") from None
    return L.mT.conj() if upper else L


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    return _CHOL_EX(cholesky(A, upper=upper), _info(A))


def svdvals(A, *, driver=None, out=None):
    return apply(np.linalg.svdvals, (A,), name="LinalgSvdBackward0", floating=True)


def eigvalsh(A, UPLO="L", *, out=None):
    # as PyTorch: with the eigenvectors when a gradient is needed (its gradient symmetric)
    if A.requires_grad and grad_mode.is_grad_enabled():
        return eigh(A, UPLO).eigenvalues
    return apply(np.linalg.eigvalsh, (A,), {"UPLO": UPLO}, name="LinalgEighBackward0",
                 floating=True)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    if atol is not None or rtol is not None:
        raise NotImplementedError("srcgrad: linalg.pinv(atol=..., rtol=...) is not supported")
    return apply(np.linalg.pinv, (A,), {"hermitian": hermitian}, name="LinalgPinvBackward0",
                 floating=True)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The number of singular values above ``max(atol, rtol * largest)`` (PyTorch's
    default: ``rtol = eps * max(m, n)`` when neither is given); an int64 tensor, no node."""
    from . import dtypes
    a = _floating(A).detach()
    s = np.abs(np.linalg.eigvalsh(a._data)) if hermitian else np.linalg.svd(a._data,
                                                                            compute_uv=False)
    if atol is None and rtol is None:
        rtol = np.finfo(s.dtype).eps * max(A.shape[-2:])
    largest = s.max(axis=-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    tol = np.maximum(atol or 0.0, (rtol or 0.0) * largest)
    return Tensor._make(np.asarray((s > tol).sum(axis=-1), dtype=dtypes.int64.numpy))


def matrix_power(A, n, *, out=None):
    # PyTorch multiplies (its last node an MmBackward0); n < 0 inverts first
    return apply(np.linalg.matrix_power, (A, n), name="MmBackward0" if n > 1 else None)


def _floating(A):
    from . import dtypes
    return A if A.is_floating_point() or A.is_complex() else A.to(dtypes.get_default_dtype())


def svd(A, full_matrices=True, *, driver=None, out=None):
    """``(U, S, Vh)``, one ``LinalgSvdBackward0`` node.  (With ``full_matrices=True`` and a
    non-square ``A``, a gradient reaching the extra singular vectors is refused: they are
    not functions of ``A``.)"""
    if A.ndim < 2:
        raise RuntimeError(f"linalg.svd: The input tensor A must have at least 2 dimensions.")
    return _SVD(*_decomposed("linalg.svd", np.linalg.svd, "LinalgSvdBackward0", _floating(A),
                             full_matrices=full_matrices))


def eigh(A, UPLO="L", *, out=None):
    """``(eigenvalues, eigenvectors)``, one ``LinalgEighBackward0`` node.  Its gradient is
    symmetric, as PyTorch's (NumPy's rule puts it on the triangle that ``eigh`` reads)."""
    _square(A, "linalg.eigh")
    return _EIGH(*_decomposed("linalg.eigh", np.linalg.eigh, "LinalgEighBackward0",
                              _floating(A), UPLO, adjust=_symmetric_part))


def _symmetric_part(g):
    return 0.5 * (g + np.conj(np.swapaxes(g, -1, -2)))


def qr(A, mode="reduced", *, out=None):
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    if mode == "r":            # PyTorch: Q is an empty tensor
        q, r = qr(A, "reduced")
        return _QR(Tensor._make(np.zeros((0,), dtype=q._data.dtype)), r)
    return _QR(*_decomposed("linalg.qr", np.linalg.qr, "LinalgQrBackward0", _floating(A),
                            mode))


def slogdet(A, *, out=None):
    _square(A, "linalg.slogdet")
    return _SLOGDET(*_decomposed("linalg.slogdet", np.linalg.slogdet, "LinalgSlogdetBackward0",
                                 _floating(A)))


def _decomposed(what, func, name, A, *args, adjust=None, **kwargs):
    try:
        return several_results(func, name, A, *args, adjust=adjust, **kwargs)
    except np.linalg.LinAlgError as err:
        raise _LinAlgError(f"{what}: {err}") from None
