"""Sample calls of the ``scipy.linalg`` rules (tests/test_rules.py reads them)."""
import numpy as np


def add_samples(SAMPLES, *, S, A, P, M, B):
    try:
        import scipy.linalg as sl
    except ImportError:          # SciPy is optional: no rules, no samples
        return

    def spd(n):
        a = A(n, n)
        return a @ a.T + n * np.eye(n) + np.diag(np.arange(n))

    def sym(n):
        a = A(n, n)
        return a + a.T + np.diag(np.arange(n) * 1.5)

    # nearly singular: eigenvalues 1e-3, 1, 2 in a random basis
    q, _ = np.linalg.qr(A(3, 3))
    near = q @ np.diag([1e-3, 1.0, 2.0]) @ q.T
    # a factor whose other triangle is random: the rules read only the factor's
    c3 = np.linalg.cholesky(spd(3)) + np.triu(A(3, 3), 1)
    u3 = np.linalg.cholesky(spd(3)).T + np.tril(A(3, 3), -1)
    lu3 = sl.lu_factor(A(3, 3) + 0.5 * np.eye(3))
    lu4 = sl.lu_factor(M(4)[::-1].copy())               # with row swaps

    SAMPLES["scipy.linalg.cholesky"] = [
        S(spd(3)), S(spd(4), lower=True), S(spd(3), True),
        S(near, lower=True, _eps=1e-8, _rtol=1e-5)]
    SAMPLES["scipy.linalg.cho_factor"] = [
        S(spd(3)), S(spd(3), lower=True), S(spd(4), True)]
    SAMPLES["scipy.linalg.cho_solve"] = [
        S((c3, True), A(3)), S((u3, False), A(3, 2)), S((c3, True), A(3, 1))]
    SAMPLES["ad.sl_cho_solve"] = [S((c3, True), A(3)), S((u3, False), A(3, 2))]
    SAMPLES["scipy.linalg.solve_triangular"] = [
        S(M(3), A(3)), S(M(3), A(3, 2), lower=True), S(M(3), A(3), trans=1),
        S(M(3), A(3, 2), trans="T", lower=True), S(M(3), A(3), 2, True, True),
        S(M(3), A(3, 2), unit_diagonal=True)]
    SAMPLES["scipy.linalg.solve"] = [
        S(M(3), A(3)), S(M(3), A(3, 2)), S(M(3), A(3), transposed=True),
        S(spd(3), A(3, 2), assume_a="pos"), S(spd(3), A(3), lower=True, assume_a="pos"),
        S(sym(3), A(3), assume_a="sym"), S(M(3), A(3), assume_a="gen"),
        S(M(3), A(3, 2), assume_a="lower triangular"), S(M(3), A(3), assume_a="diagonal")]
    # (assume_a="diagonal": SciPy 1.17 keeps the other entries of a non-diagonal a)
    SAMPLES["scipy.linalg.inv"] = [S(M(3)), S(M(1)), S(spd(3), assume_a="pos"),
                                   S(spd(3), assume_a="pos", lower=True),
                                   S(M(3), assume_a="diagonal"),
                                   S(M(3), assume_a="upper triangular"),
                                   S(M(3), assume_a="lower triangular")]
    SAMPLES["scipy.linalg.det"] = [S(M(3)), S(M(1)), S(-M(2))]
    SAMPLES["scipy.linalg.lu_factor"] = [S(A(3, 3) + 0.5 * np.eye(3)),
                                                     S(M(4)[::-1].copy())]
    SAMPLES["scipy.linalg.lu_solve"] = [
        S(lu3, A(3)), S(lu4, A(4, 2)), S(lu4, A(4), trans=1), S(lu3, A(3, 2), 2)]
    SAMPLES["scipy.linalg.eigh"] = [
        S(spd(3), driver="evd"), S(sym(4), lower=False, driver="evd"),
        S(sym(3), eigvals_only=True),
        S(spd(3), eigvals_only=True, lower=False)]
    SAMPLES["scipy.linalg.svd"] = [
        S(A(3, 4), full_matrices=False), S(A(4, 3), full_matrices=False), S(A(3, 3)),
        S(A(3, 4), compute_uv=False)]
    SAMPLES["scipy.linalg.qr"] = [
        S(A(4, 3), mode="economic"), S(A(3, 3)), S(A(4, 3), mode="r"), S(A(3, 3), mode="r")]
    SAMPLES["scipy.linalg.expm"] = [S(A(3, 3)), S(A(1, 1)), S(2 * A(4, 4)),
                                               S(A(2, 3, 3))]
    SAMPLES["scipy.linalg.sqrtm"] = [S(spd(3)), S(M(3), _rtol=1e-5)]
    SAMPLES["scipy.linalg.logm"] = [S(spd(3), _rtol=1e-5),
                                              S(spd(3) + 0.3 * A(3, 3), _rtol=1e-5)]
    SAMPLES["scipy.linalg.solve_sylvester"] = [S(M(3), M(3), A(3, 3)), S(M(2), M(3), A(2, 3))]
    # (the main diagonal, ab's row `upper`, kept away from 0: a well-conditioned matrix)
    def band(rows, n, upper):
        ab = A(rows, n)
        ab[upper] += 3.0
        return ab
    SAMPLES["scipy.linalg.solve_banded"] = [
        S((1, 1), band(3, 5, 1), A(5)), S((1, 2), band(4, 4, 2), A(4, 2)),
        S((0, 1), band(2, 3, 1), A(3)), S((2, 0), band(3, 4, 0), A(4))]
    SAMPLES["scipy.linalg.block_diag"] = [
        S(A(2, 2), A(3, 1)), S(A(2), 1.5, A(2, 3)), S(A(3, 3))]
    SAMPLES["scipy.linalg.toeplitz"] = [
        S(A(3)), S(A(3), A(4)), S(A(4), A(2)), S(A(1))]
    SAMPLES["scipy.linalg.circulant"] = [S(A(3)), S(A(5)), S(A(1))]
    SAMPLES["scipy.linalg.hankel"] = [S(A(3)), S(A(3), A(4)), S(A(4), A(2)), S(A(1), A(3))]
    SAMPLES["scipy.linalg.eigvalsh"] = [S(sym(3)), S(sym(4), lower=False), S(spd(3))]
    SAMPLES["scipy.linalg.svdvals"] = [S(A(3, 3)), S(A(4, 2)), S(A(2, 4))]
    SAMPLES["scipy.linalg.pinv"] = [S(A(3, 3) + 2 * np.eye(3)), S(A(4, 2)), S(A(2, 4)),
                                    S(A(3, 2), return_rank=True), S(A(3, 3), atol=1e-12)]
    SAMPLES["ad.sl_toeplitz_grad"] = [S(A(3, 3), A(3)), S(A(3, 4), A(3), A(4), 0),
                                      S(A(3, 4), A(3), A(4), 1)]
    SAMPLES["ad.sl_toeplitz_part"] = [S(A(3), A(3)), S(A(3), A(3), A(4), 0),
                                      S(A(4), A(3), A(4), 1)]
    SAMPLES["ad.sl_circulant_grad"] = [S(A(3, 3), A(3)), S(A(4, 4), A(4))]
    # cholesky's adjoint: a factor's cotangent (its triangle), the factor, upper or not
    l3, l4 = np.linalg.cholesky(spd(3)), np.linalg.cholesky(spd(4))
    SAMPLES["ad.sl_cholesky_adjoint"] = [S(np.tril(A(3, 3)), l3), S(np.triu(A(4, 4)), l4.T, True),
                                         S(np.diag(A(3)), l3)]
