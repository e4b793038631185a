"""Sample calls of the complex parts and numpy.fft (rules/numpy/spectral.py; tests/test_rules.py
reads them): real and complex inputs, lengths ``n`` / shapes ``s`` that pad and truncate, the
three norms."""
import numpy as np

_rng = np.random.default_rng(11)


def C(*shape):
    """Random complex values, away from 0."""
    return (_rng.uniform(0.3, 1.0, shape) * np.exp(1j * _rng.uniform(-3, 3, shape)))


def add_samples(SAMPLES, *, S, A, P, M, B):
    SAMPLES["np.absolute"] = SAMPLES.get("np.absolute", []) + [S(C(4)), S(C(2, 3))]
    SAMPLES["np.imag"] = [S(C(4)), S(C(2, 3)), S(A(3))]
    SAMPLES["np.ndarray.imag"] = [S(C(4))]
    SAMPLES["np.ndarray.real"] = [S(C(4)), S(A(3))]
    SAMPLES["np.angle"] = [S(C(4)), S(C(2, 3), deg=True), S(A(3) + 2.0)]
    for name in ("fft", "ifft"):
        SAMPLES[f"np.fft.{name}"] = [S(A(6)), S(C(5)), S(A(3, 4), axis=0), S(A(5), 8),
                                     S(C(6), 4, norm="ortho"), S(A(2, 5), norm="forward")]
    SAMPLES["np.fft.rfft"] = [S(A(6)), S(A(7)), S(A(3, 4), axis=0), S(A(5), 8),
                              S(A(6), 4, norm="ortho"), S(A(2, 5), norm="forward")]
    SAMPLES["np.fft.irfft"] = [S(C(4)), S(C(4), 7), S(C(3, 4), axis=0), S(C(4), 4),
                               S(C(5), 10, norm="ortho"), S(C(2, 4), norm="forward")]
    for name in ("fft2", "ifft2", "fftn", "ifftn"):
        SAMPLES[f"np.fft.{name}"] = [S(A(3, 4)), S(C(2, 3, 4)), S(A(3, 4), (4, 2), (0, 1)),
                                     S(C(2, 3), norm="ortho")]
    SAMPLES["np.fft.fftn"].append(S(A(2, 3, 4), axes=(0, 2)))
    SAMPLES["np.fft.fftshift"] = SAMPLES["np.fft.ifftshift"] = [S(A(5)), S(C(3, 4)),
                                                                S(A(3, 4), axes=0)]
    # the n-D real transforms: odd and even last lengths, s that pads and truncates, axes
    for name in ("rfft2", "rfftn"):
        SAMPLES[f"np.fft.{name}"] = [S(A(3, 4)), S(A(2, 3, 5)), S(A(3, 4), (5, 2), (0, 1)),
                                     S(A(4, 4), norm="ortho"), S(A(3, 6), norm="forward")]
    SAMPLES["np.fft.rfftn"] += [S(A(3, 4, 4), axes=(0, 2)), S(A(4, 3, 4), (6, 2), (0, 2))]
    for name in ("irfft2", "irfftn"):
        SAMPLES[f"np.fft.{name}"] = [S(C(3, 3)), S(C(2, 3, 4)), S(C(3, 3), (4, 5), (0, 1)),
                                     S(C(4, 3), norm="ortho"), S(C(3, 4), norm="forward"),
                                     S(A(3, 3))]
    SAMPLES["np.fft.irfftn"] += [S(C(4, 3, 3), axes=(0, 2)), S(C(4, 3, 3), (6, 4), (0, 2))]
