"""Sample calls with complex arrays of the norms, var / std and np.real_if_close: checked like every
sample (tests/test_rules.py reads them), with the pairing <g, dz> = Re(sum(g * dz)).
Complex results of complex arrays (np.vdot, slogdet) are checked end to end, in
tests/test_rules_end_to_end.py."""
import numpy as np

_rng = np.random.default_rng(12)


def C(*shape):
    """Random complex values, away from 0."""
    return _rng.uniform(0.3, 1.0, shape) * np.exp(1j * _rng.uniform(-3, 3, shape))


def add_samples(SAMPLES, *, S, A, P, M, B):
    SAMPLES["np.linalg.norm"] += [S(C(5)), S(C(3, 4)), S(C(3, 4), 3, 1), S(C(2, 3), axis=0),
                                  S(C(3, 3), "fro"), S(C(3, 4), 1), S(C(3, 4), np.inf, 1),
                                  S(C(2, 3, 4), None, (1, 2), keepdims=True)]
    # (the identity on these: a negligible imaginary part is its own branch, end to end)
    SAMPLES["np.real_if_close"] = [S(C(4)), S(C(2, 3)), S(A(5))]
    for name in ("np.var", "np.std"):
        SAMPLES[name] = SAMPLES.get(name, []) + [S(C(3, 4)), S(C(2, 3), axis=1, ddof=1)]
