"""Sample calls of the ``scipy.integrate`` rules (tests/test_rules.py reads them): the
dynamics are module-level functions, differentiated by srcgrad inside the rules."""
import numpy as np


def decay(y, t, k):
    return -k * y + np.sin(t)


def oscillator(y, t, w, damping):
    return np.array([y[1], -w * w * y[0] - damping * y[1]])


def logistic(t, y, r):
    return r * y * (1.0 - y)


def lotka(y, t, theta, scale):
    prey, pred = y[0], y[1]
    return scale * np.array([theta[0] * prey - theta[1] * prey * pred,
                             -theta[2] * pred + theta[3] * prey * pred])


def add_samples(SAMPLES, *, S, A, P, M, B):
    add_quad_samples(SAMPLES, S=S)
    try:
        import scipy.integrate  # noqa: F401
    except ImportError:          # SciPy is optional: no rules, no samples
        return
    tol = dict(rtol=1e-11, atol=1e-11, _rtol=1e-5, _crtol=1e-6)
    SAMPLES["scipy.integrate.trapezoid"] = [
        S(A(6)), S(A(3, 5), np.cumsum(P(5))), S(A(4, 3), dx=0.3, axis=0),
        S(A(3, 5), np.cumsum(P(3, 5), axis=1))]
    SAMPLES["scipy.integrate.odeint"] = [
        S(decay, np.array([1.0, 0.5]), np.array([0.0, 0.4, 1.0]), (0.7,), **tol),
        S(oscillator, np.array([1.0, 0.0]), np.linspace(0.0, 2.0, 4), args=(1.3, 0.2), **tol),
        S(logistic, np.array([0.2]), np.array([0.0, 0.5, 1.5]), (1.1,), tfirst=True, **tol),
        S(lotka, np.array([1.0, 0.5]), np.array([0.0, 0.3, 0.8]),
          (np.array([1.0, 0.4, 0.8, 0.3]), 1), **tol)]


def bump(x, k, c):
    return np.exp(-k * x * x) * np.sin(c * x + 0.3)


def add_quad_samples(SAMPLES, *, S):
    try:
        import scipy.integrate  # noqa: F401
    except ImportError:
        return
    tol = dict(epsabs=1e-13, epsrel=1e-13, _rtol=1e-5, _crtol=1e-6)
    SAMPLES["scipy.integrate.quad"] = [S(bump, 0.2, 1.7, (0.8, 1.3), **tol),
                                       S(np.cos, -0.4, 0.9, **tol)]
