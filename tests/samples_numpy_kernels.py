"""Sample calls of NumPy-family kernels added with the second-order work
(tests/test_rules.py reads them)."""


def add_samples(SAMPLES, *, S, A, P, M, B):
    SAMPLES["ad.transpose_apply"] = [S(A(2, 3, 4), (1, 2, 0)), S(A(3, 4)), S(A(3, 4), ()),
                                     S(A(2, 3, 4), ((2, 0, 1),)), S(A(2, 3), (None,))]
