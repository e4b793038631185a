"""Sample calls of the ``scipy.special`` rules (src/srcgrad/rules/scipy/special.py), for
the rule-table test: each in its function's domain, and at its edges (logsumexp with
-inf entries, gammaln near 0 and near its poles, Bessel functions at 0)."""
import numpy as np

try:
    import scipy.special  # noqa: F401
except ImportError:         # SciPy is optional: its rules are not registered either
    scipy = None


def add_samples(SAMPLES, S, A, P, M, B):
    if scipy is None:
        return

    def sp(name):
        return f"scipy.special.{name}"

    def unary(name, lo, hi, *extra):
        SAMPLES[sp(name)] = [S(A(3, 4, lo=lo, hi=hi)), S(float(A(lo=lo, hi=hi))),
                             S(A(2, 1, 3, lo=lo, hi=hi))] + [S(np.array(e)) for e in extra]

    for name, lo, hi, *extra in [
            ("gammaln", 0.2, 4.0, [1e-3, 0.05, 7.5], [-0.5, -1.5, -2.7]),    # near 0, poles
            ("loggamma", 0.2, 4.0, [0.01, 10.0]),
            ("gamma", 0.3, 3.0, [-0.5, -1.5]), ("rgamma", 0.3, 3.0, [-0.5, -2.5]),
            ("digamma", 0.3, 4.0, [0.01, -0.5]),
            ("erf", -2, 2), ("erfc", -2, 2), ("erfinv", -0.9, 0.9), ("erfcinv", 0.1, 1.9),
            ("erfcx", -1.5, 3), ("erfi", -1.5, 1.5), ("dawsn", -3, 3),
            ("ndtr", -3, 3, [-8.0, 8.0]), ("log_ndtr", -3, 3, [-20.0, -6.0, 5.0]),
            ("ndtri", 0.05, 0.95, [1e-3, 0.999]), ("ndtri_exp", -5, -0.1),
            ("expit", -4, 4, [-30.0, 30.0]), ("logit", 0.05, 0.95),
            ("log_expit", -4, 4, [-40.0, 40.0]),
            ("i0", -3, 3, [0.0]), ("i1", -3, 3, [0.0]), ("i0e", 0.1, 5, [-2.0, 0.5]),
            ("i1e", 0.1, 5, [-2.0, 0.5]),
            ("k0", 0.2, 4), ("k1", 0.2, 4), ("k0e", 0.2, 4), ("k1e", 0.2, 4),
            ("j0", -5, 5, [0.0]), ("j1", -5, 5, [0.0]), ("y0", 0.3, 5), ("y1", 0.3, 5),
            ("ellipk", 0.05, 0.9, [-1.5]), ("ellipe", 0.05, 0.9, [-1.5]),
            ("spence", 0.1, 0.9, [1.5, 3.0]), ("wrightomega", -2, 3),
            ("entr", 0.1, 2.0), ("cbrt", 0.2, 3), ("exp2", -2, 2), ("exp10", -1, 1),
            ("expm1", -2, 2, [1e-8]), ("log1p", -0.5, 2), ("cosm1", -3, 3, [1e-5]),
            ("sindg", -200, 200), ("cosdg", -200, 200), ("tandg", -60, 60),
            ("cotdg", 20, 160)]:
        unary(name, lo, hi, *extra)

    def binary(name, dx, dy, *extra):
        (lx, hx), (ly, hy) = dx, dy
        SAMPLES[sp(name)] = [
            S(A(3, 4, lo=lx, hi=hx), A(3, 4, lo=ly, hi=hy)),
            S(A(3, 4, lo=lx, hi=hx), A(4, lo=ly, hi=hy)),                   # broadcasting
            S(A(2, 1, 3, lo=lx, hi=hx), A(4, 1, lo=ly, hi=hy)),
            S(float(A(lo=lx, hi=hx)), A(3, lo=ly, hi=hy))] + list(extra)

    SAMPLES[sp("softplus")] = [S(A(3, 4) * 4), S(1.5), S(np.array([-40.0, 0.0, 40.0]))]
    SAMPLES[sp("betainc")] = [S(P(3, 4), P(4), A(3, 4, lo=0.1, hi=0.9), _wrt=("x",)),
                              S(2.0, 3.0, A(4, lo=0.1, hi=0.9), _wrt=("x",)),
                              S(np.array([0.5, 2.0]), 1.5, 0.3, _wrt=("x",))]
    binary("beta", (0.5, 3), (0.5, 3))
    binary("betaln", (0.5, 3), (0.5, 3), S(np.array([1e-3, 0.02]), np.array([2.0, 50.0])))
    binary("poch", (0.5, 3), (-0.4, 2))
    binary("binom", (3, 6), (0.5, 2.5))
    binary("xlogy", (-2, 2), (0.2, 3), S(np.array([0.0, 1.5]), np.array([0.5, 2.0])))
    binary("xlog1py", (-2, 2), (-0.5, 3), S(np.array([0.0, 1.5]), np.array([0.5, -0.5])))
    binary("rel_entr", (0.1, 2), (0.1, 2))
    binary("kl_div", (0.1, 2), (0.1, 2))
    binary("huber", (0.5, 1.5), (-3, 3), S(1.0, np.array([-2.0, -0.5, 0.3, 1.7])))
    binary("pseudo_huber", (0.5, 1.5), (-3, 3))
    binary("powm1", (0.3, 3), (-2, 2), S(np.array([1.5, 0.7]), np.array([1e-9, -1e-7])))

    # integer or order parameters carry no derivative: only x is checked
    def order(name, orders, lo, hi, *extra):
        SAMPLES[sp(name)] = [S(orders, A(3, len(orders), lo=lo, hi=hi), _wrt=("x",)),
                             S(orders[0], A(4, lo=lo, hi=hi), _wrt=("x",)),
                             S(orders[-1], float(A(lo=lo, hi=hi)), _wrt=("x",))] + list(extra)

    order("polygamma", np.array([0, 1, 2]), 0.3, 4, S(1, np.array([0.01, 5.0]), _wrt=("x",)))
    SAMPLES["ad.polygamma_of"] = [S(1, A(3, lo=0.3, hi=4), _wrt=("x",)),
                                  S(2, float(A(lo=0.3, hi=4)), _wrt=("x",))]
    order("iv", np.array([0.5, 1.0, 2.5]), 0.1, 3, S(2, np.array([-2.0, 0.0, 1.5]), _wrt=("x",)))
    order("ive", np.array([0.5, 1.0, 2.5]), 0.2, 4, S(1.0, np.array([-2.0, -0.5]), _wrt=("x",)))
    order("kv", np.array([0.5, 1.0, 2.5]), 0.2, 4)
    order("kve", np.array([0.5, 1.0, 2.5]), 0.2, 4)
    order("jv", np.array([0.0, 1.0, 2.5]), 0.1, 6)
    order("yv", np.array([0.0, 1.0, 2.5]), 0.5, 6)
    order("yn", np.array([0, 1, 3]), 0.5, 6)
    order("gammainc", np.array([0.5, 1.0, 3.0]), 0.1, 4)
    order("gammaincc", np.array([0.5, 1.0, 3.0]), 0.1, 4)
    SAMPLES[sp("zeta")] = [S(np.array([2.0, 3.5, 1.5]), A(2, 3, lo=0.5, hi=3)),
                           S(3.0, A(4, lo=0.5, hi=3)), S(A(3, lo=1.2, hi=12.0), 0.4),
                           S(np.array([2.0, 4.0]), q=np.array([1.0, 0.7])),
                           S(np.array([-0.5, 0.5, 2.5]))]                # Riemann's
    SAMPLES[sp("multigammaln")] = [S(A(3, 4, lo=2.0, hi=4.0), 3), S(2.5, 4), S(A(5, lo=0.6, hi=3), 1),
                                   S(np.array([1.2, 3.0]), d=2)]

    # reductions along axis: -inf entries get zero weight
    ninf = A(3, 4)
    ninf[0, 1] = ninf[2, 0] = ninf[2, 3] = -np.inf
    SAMPLES[sp("logsumexp")] = [
        S(A(3, 4)), S(A(3, 4), axis=0), S(A(3, 4), 1), S(A(3, 4), axis=-1, keepdims=True),
        S(A(2, 3, 4), axis=(0, 2)), S(A(2, 3), axis=None, keepdims=True), S(A(5) * 30),
        S(ninf), S(ninf, axis=1), S(ninf, axis=0, keepdims=True),
        S(A(3, 4), axis=1, b=P(3, 4)), S(A(3, 4), 0, P(4)), S(A(3, 4), b=P(3, 1), keepdims=True),
        S(A(3, 4), axis=1, b=A(3, 4) + np.array([2.0, 2.0, -3.0, 0.5]), return_sign=True),
        S(A(3, 4), return_sign=True), S(A(2, 3, 4), axis=-1, b=P(4), keepdims=True,
                                         return_sign=True)]
    soft = [S(A(3, 4)), S(A(3, 4), axis=0), S(A(3, 4), 1), S(A(2, 3, 4), axis=(0, 2)),
            S(A(5) * 20), S(A(2, 3, 4), axis=-1)]
    SAMPLES[sp("softmax")] = list(soft)
    SAMPLES[sp("log_softmax")] = list(soft)

    # the kernels of logsumexp's rule, differentiated again
    pair = (A(3), np.sign(A(3)))
    SAMPLES["ad.lse_value"] = [S(A(3), A(3)), S((A(3), A(3)), pair, True), S(1.5, 0.5)]
    SAMPLES["ad.lse_pack"] = [S(A(3), A(3)), S(A(3), pair, True)]
    lse = scipy.special.logsumexp

    def weights(a, b=None, axis=None, keepdims=False, return_sign=False, **kw):
        like = lse(a, axis=axis, b=b, keepdims=keepdims, return_sign=return_sign)
        return S(a, b, like, axis, keepdims, return_sign, **kw)
    a34, b34 = A(3, 4), A(3, 4) + np.array([2.0, 2.0, -3.0, 0.5])
    SAMPLES["ad.lse_weights"] = [weights(A(3, 4)), weights(A(3, 4), P(4), axis=1),
                                 weights(A(2, 3, 4), None, (0, 2), True), weights(ninf, axis=0),
                                 weights(a34, b34, 1, False, True, _wrt=("a", "b"))]
