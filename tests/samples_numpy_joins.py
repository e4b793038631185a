"""Sample calls of the joins given one array instead of a sequence of arrays: NumPy
joins the array's rows (``np.vstack(x)`` of a 1-D ``x`` is a column), and the gradient
is one array shaped like ``x`` (tests/test_rules.py reads them)."""


def add_samples(SAMPLES, *, S, A, P, M, B):
    SAMPLES["np.vstack"] += [S(A(3)), S(A(2, 3))]
    SAMPLES["np.row_stack"] += [S(A(3)), S(A(2, 3))]
    SAMPLES["np.hstack"] += [S(A(3)), S(A(2, 3))]
    SAMPLES["np.column_stack"] += [S(A(3)), S(A(3, 2))]
    SAMPLES["np.dstack"] += [S(A(2, 3))]
    SAMPLES["np.concatenate"] += [S(A(2, 3)), S(A(2, 3, 2), axis=1)]
    SAMPLES["np.stack"] += [S(A(2, 3)), S(A(3, 2), axis=1)]
