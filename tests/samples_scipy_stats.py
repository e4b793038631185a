"""Sample calls of the ``scipy.stats`` rules (src/srcgrad/rules/scipy/stats.py), for the
rule-table test: values inside each distribution's support, parameters by position and
by keyword, broadcasting, and the tails (``norm.logcdf`` far left, ``logsf`` far right)."""
import numpy as np

try:
    import scipy.stats as st
except ImportError:         # SciPy is optional: its rules are not registered either
    st = None

METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")


def add_samples(SAMPLES, S, A, P, M, B):
    if st is None:
        return

    def family(name, x_of, shapes, tails=(), cdf_shapes=()):
        """``x_of(*shape)``: values in the standard support; ``shapes``: shape parameters
        (those not in ``cdf_shapes`` have no derivative of the cdf: not checked there)."""
        loc, scale = A(4) * 0.3, P(4)
        for method in METHODS:
            wrt = None if method in ("logpdf", "pdf") else ("x", "loc", "scale", *cdf_shapes)
            SAMPLES[f"scipy.stats.{name}.{method}"] = [
                S(x_of(3, 4), *shapes, _wrt=wrt),
                S(x_of(3, 4) * scale + loc, *shapes, loc, scale, _wrt=wrt),           # broadcasting
                S(x_of(4) * 1.5 + 0.25, *shapes, loc=0.25, scale=1.5, _wrt=wrt),
                S(float(x_of()) * 2.0 - 1.0, *shapes, -1.0, 2.0, _wrt=wrt),
                *(S(np.array(t), *shapes, _wrt=wrt) for t in tails)]
        for method in ("ppf", "isf"):
            wrt = ("q", "loc", "scale", *cdf_shapes)
            SAMPLES[f"scipy.stats.{name}.{method}"] = [
                S(A(3, 4, lo=0.05, hi=0.95), *shapes, _wrt=wrt),
                S(A(3, 4, lo=0.05, hi=0.95), *shapes, loc, scale, _wrt=wrt),
                S(A(4, lo=0.1, hi=0.9), *shapes, loc=0.25, scale=1.5, _wrt=wrt),
                S(float(A(lo=0.1, hi=0.9)), *shapes, -1.0, 2.0, _wrt=wrt)]

    def positive(*shape):
        return A(*shape, lo=0.2, hi=3.0)

    def unit(*shape):
        return A(*shape, lo=0.1, hi=0.9)

    family("norm", A, (), tails=([-12.0, -3.0, 4.0], [6.0, 9.0]))
    family("cauchy", lambda *s: 3 * A(*s), ())
    family("laplace", lambda *s: A(*s) + 0.05 * np.sign(A(*s)), ())
    family("logistic", lambda *s: 3 * A(*s), (), tails=([-25.0, 30.0],))
    family("expon", positive, ())
    family("uniform", unit, ())
    family("gamma", positive, (P(4) + 0.5,))
    family("beta", unit, (P(4) + 0.5, P(4) + 0.5))
    family("chi2", positive, (P(4) * 3,))
    family("t", lambda *s: 3 * A(*s), (P(4) * 3,))
    family("lognorm", positive, (P(4) * 0.7,), cdf_shapes=("s",))
    family("halfnorm", positive, ())
    family("rayleigh", positive, ())
    family("gumbel_r", lambda *s: 2 * A(*s), ())
    family("gumbel_l", lambda *s: 2 * A(*s), ())
    family("invgamma", positive, (P(4) + 0.5,))
    family("weibull_min", positive, (P(4) + 0.3,), cdf_shapes=("c",))
    family("pareto", lambda *s: 1 + positive(*s), (P(4) + 0.5,), cdf_shapes=("b",))
    for name, method in [(n, m) for n in ("gamma", "beta", "chi2", "t") for m in METHODS]:
        SAMPLES[f"scipy.stats.{name}.{method}"].append(   # scalar shapes, given by keyword
            S(unit(5), **{"gamma": {"a": 2.5}, "beta": {"a": 2.0, "b": 3.0},
                          "chi2": {"df": 4.0}, "t": {"df": 3.0}}[name],
              _wrt=None if method in ("logpdf", "pdf") else ("x",)))

    # discrete: k (an integer), the probability or rate by position and by keyword
    k = np.array([0, 1, 3, 5])
    for method in ("logpmf", "pmf", "cdf", "sf"):
        SAMPLES[f"scipy.stats.poisson.{method}"] = [S(k, P(3, 4) * 2), S(k, 1.7), S(k + 2, mu=2.5, loc=2),
                                                    S(np.array([[0], [4]]), P(4) * 3)]
    for method in ("logpmf", "pmf"):
        SAMPLES[f"scipy.stats.binom.{method}"] = [S(k, 6, A(3, 4, lo=0.1, hi=0.9)), S(k, 8, 0.3),
                                                  S(k, np.array([5, 6, 7, 8]), p=A(4, lo=0.2, hi=0.8))]
        SAMPLES[f"scipy.stats.bernoulli.{method}"] = [S(np.array([0, 1, 1, 0]), A(4, lo=0.1, hi=0.9)),
                                                      S(np.array([1, 0]), 0.35), S(1, p=0.6)]
    for method in ("logpmf", "pmf", "cdf", "sf"):
        SAMPLES[f"scipy.stats.geom.{method}"] = [S(k + 1, A(3, 4, lo=0.1, hi=0.9)), S(k + 1, 0.3),
                                                 S(k + 3, p=0.45, loc=2)]

    # multivariate_normal: x (..., d), mean (d,), cov a matrix (its lower triangle is read),
    # a diagonal or a scalar
    def spd(d):
        a = A(d, d)
        return a @ a.T + d * np.eye(d)
    for method in ("logpdf", "pdf"):
        SAMPLES[f"scipy.stats.multivariate_normal.{method}"] = [
            S(A(3), A(3), spd(3)), S(A(5, 3), A(3), spd(3)), S(A(2, 4, 3), mean=A(3), cov=spd(3)),
            S(A(4, 2), A(2), P(2)), S(A(3), A(3), 1.5), S(A(3), cov=spd(3)),
            S(A(1, 3), A(3), spd(3)),
            S(A(2, 3), A(3), spd(3), allow_singular=True)]    # (the pseudo-inverse's path)
    SAMPLES["scipy.stats.multivariate_normal.entropy"] = [
        S(A(3), spd(3)), S(cov=spd(2)), S(A(3), P(3)), S(A(3), 1.5), S(cov=2.5),
        S(np.array(0.5), 2.0)]
    # dirichlet: x on the simplex, in eighths so that it sums to 1 exactly in float32 too
    # (only alpha is perturbed: SciPy refuses an x off the simplex)
    eighths = np.array([[1, 2, 3, 1, 4], [2, 1, 1, 5, 1], [4, 1, 2, 1, 2], [1, 4, 2, 1, 1]]) / 8
    for method in ("logpdf", "pdf"):
        SAMPLES[f"scipy.stats.dirichlet.{method}"] = [
            S(np.array([0.25, 0.5, 0.25]), P(3) + 0.5, _wrt=("alpha",)),
            S(eighths, P(4) * 2, _wrt=("alpha",)),
            S(np.array([0.375, 0.625]), np.array([0.7, 3.0]), _wrt=("alpha",))]

    # the kernels of multivariate_normal's rules, differentiated again
    SAMPLES["ad.mvn_cov"] = [S(A(3, 3), 3), S(A(3), 3), S(1.5, 2), S(np.array(0.7), 3)]
    SAMPLES["ad.mvn_cov_grad"] = [S(A(3, 3), A(3, 3)), S(A(3, 3), A(3)), S(A(2, 2), 1.5),
                                  S(A(3, 3), np.array(0.7))]
    SAMPLES["ad.mvn_resid"] = [S(A(4, 3), A(3)), S(A(3), None), S(A(3), A(3))]
    # (x as SciPy reads it: a scalar, a vector of a one-dimensional distribution, rows)
    SAMPLES["ad.mvn_rows"] = [S(np.array(0.4), 0.5, 1.5), S(A(3), None, 2.0),
                              S(A(3), A(3), A(3, 3)), S(A(4, 3), A(3))]
    # (the pseudo-inverse of a full-rank matrix: its inverse, and the same derivative)
    SAMPLES["ad.mvn_precision"] = [S(spd(3)), S(spd(2), True), S(spd(4), allow_singular=True)]
