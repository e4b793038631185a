"""Sample calls of NumPy-family rules and kernels added with the second-order work
(tests/test_rules.py reads them)."""
import numpy as np


def add_samples(SAMPLES, *, S, A, P, M, B):
    SAMPLES["ad.transpose_apply"] = [S(A(2, 3, 4), (1, 2, 0)), S(A(3, 4)), S(A(3, 4), ()),
                                     S(A(2, 3, 4), ((2, 0, 1),)), S(A(2, 3), (None,))]

    def real_spectrum(*eigs):
        """A non-symmetric matrix with the given (real, distinct) eigenvalues."""
        v = A(len(eigs), len(eigs)) + 2 * np.eye(len(eigs))
        return v @ np.diag(eigs) @ np.linalg.inv(v)
    SAMPLES["np.linalg.eig"] = [S(real_spectrum(1.0, 2.0, 3.5)), S(real_spectrum(-1.0, 0.5)),
                                S(np.stack([real_spectrum(1.0, 2.5, -1.5),
                                            real_spectrum(0.5, 1.5, 3.0)]))]
    # constant data: the standard deviation is 0, its gradient 0 (not NaN)
    for name in ("np.std", "np.nanstd", "np.ndarray.std"):
        SAMPLES[name] = SAMPLES.get(name, []) + [S(np.ones((3, 4))), S(np.full(5, 2.0), axis=0)]
    # (the spacings have no derivative: a located error, tests/test_numpy_gaps.py)
    f_only = ("f",)
    SAMPLES["np.gradient"] = [S(A(5)), S(A(5), 0.5, _wrt=f_only), S(A(4, 5)), S(A(4, 5), axis=1),
                              S(A(4, 5), 0.5, 2.0, _wrt=f_only), S(A(6), edge_order=2),
                              S(A(3, 4, 5), axis=(0, 2), edge_order=2),
                              S(A(5), np.array([0.0, 0.5, 1.5, 2.0, 3.5]), _wrt=f_only)]
