"""Sample calls of the ``scipy.signal`` rules (tests/test_rules.py reads them)."""


def add_samples(SAMPLES, *, S, A, P, M, B):
    try:
        import scipy.signal  # noqa: F401
    except ImportError:          # SciPy is optional: no rules, no samples
        return
    conv = [S(A(5), A(3)), S(A(3), A(5)), S(A(4), A(4), "same"), S(A(3), A(6), "same"),
            S(A(6), A(3), mode="valid"), S(A(2), A(5), "valid"),
            S(A(4, 5), A(2, 3)), S(A(4, 5), A(2, 3), "same"), S(A(2, 3), A(4, 5), "same"),
            S(A(4, 5), A(2, 3), "valid"), S(A(2, 3), A(4, 5), mode="valid"),
            S(A(3, 4, 3), A(2, 2, 2), "same"), S(A(6), A(3), "full", "direct"),
            S(A(4, 5), A(2, 3), "same", method="fft")]
    SAMPLES["scipy.signal.convolve"] = conv
    SAMPLES["scipy.signal.correlate"] = conv
    SAMPLES["scipy.signal.fftconvolve"] = [
        S(A(5), A(3)), S(A(3), A(5), "same"), S(A(6), A(3), mode="valid"),
        S(A(4, 5), A(2, 3), "same"), S(A(2, 3), A(4, 5), "valid"), S(A(3, 3, 2), A(2, 2, 2))]
    conv2d = [S(A(4, 5), A(2, 3)), S(A(4, 5), A(2, 3), "same"), S(A(2, 3), A(4, 5), "same"),
              S(A(4, 5), A(3, 2), mode="valid"), S(A(2, 3), A(4, 5), "valid"),
              S(A(4, 4), A(4, 4), "same"), S(A(5, 4), A(3, 3), "same", "fill", 0)]
    SAMPLES["scipy.signal.convolve2d"] = conv2d
    SAMPLES["scipy.signal.correlate2d"] = conv2d
    # (b, a, x; a[0] away from 0 and the poles inside the unit circle: a stable filter)
    SAMPLES["scipy.signal.lfilter"] = [
        S(A(3), A(3, lo=0.1, hi=0.3) + [1.0, 0.0, 0.0], A(6)),
        S(A(2), A(2, lo=-0.3, hi=0.3) + [1.5, 0.0], A(3, 5), 0),
        S(A(4), 1.25, A(2, 6)), S(0.7, A(2, lo=-0.3, hi=0.3) + [1.0, 0.0], A(5), axis=-1)]
