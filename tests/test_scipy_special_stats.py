"""scipy.special and scipy.stats through the compiler: user functions that call them as
people write them (``from scipy.special import gammaln``, ``import scipy.stats as st``,
``scipy.special.logsumexp(...)``), differentiated in reverse and forward mode and to
second order, checked against central differences and, where autograd has the function
(autograd.scipy.special / autograd.scipy.stats), against autograd."""
import importlib.util

import numpy as np
import pytest

pytest.importorskip("scipy")

import scipy.special                                   # noqa: E402
import scipy.special as sps                            # noqa: E402
import scipy.stats as st                               # noqa: E402
from scipy.special import gammaln, digamma, logsumexp, expit, xlogy, log_softmax  # noqa: E402
from scipy.stats import norm, multivariate_normal, dirichlet, poisson  # noqa: E402

import srcgrad as sg                                   # noqa: E402

EPS = 1e-6


def fd_grad(f, x, eps=EPS):
    """Central differences of a scalar function of one array."""
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


def fd_jacobian(g, x, eps=1e-5):
    """Central differences of an array-valued function (the Hessian from a gradient)."""
    cols = []
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        cols.append(np.ravel(g(x + e) - g(x - e)) / (2 * eps))
    return np.stack(cols, axis=-1)


def check_all_orders(f, x, rtol=1e-6, hrtol=1e-5):
    """sg.grad vs differences; sg.jvp vs the gradient; sg.hessian vs differences of sg.grad."""
    grad = sg.grad(f)(x)
    np.testing.assert_allclose(grad, fd_grad(f, x), rtol=rtol, atol=rtol)
    t = np.random.default_rng(1).normal(size=np.shape(x))
    _, tangent = sg.jvp(f, (x,), (t,))
    np.testing.assert_allclose(tangent, np.sum(grad * t), rtol=1e-10, atol=1e-12)
    hess = np.reshape(sg.hessian(f)(x), (np.size(x), np.size(x)))
    np.testing.assert_allclose(hess, fd_jacobian(sg.grad(f), x), rtol=hrtol, atol=hrtol)
    np.testing.assert_allclose(hess, hess.T, rtol=1e-9, atol=1e-12)
    return grad, hess


# -- scipy.special ----------------------------------------------------------------------

def special_mix(x):
    a = gammaln(x) + scipy.special.expit(x) * sps.i1(x) + digamma(x + 1.0)
    b = sps.erf(x / 2) * sps.ndtr(x) - sps.log_ndtr(-x) + xlogy(x, x + 1.0)
    return np.sum(a + b) + logsumexp(x * 2.0) + np.sum(sps.polygamma(1, x)) + \
        np.sum(sps.jv(1.5, x) + sps.iv(2, x) + sps.betaln(x, 2.0 - x / 3))


def test_special_functions_all_orders():
    check_all_orders(special_mix, np.array([0.4, 1.3, 2.2, 3.1]))


def test_special_functions_match_autograd():
    ag = pytest.importorskip("autograd")
    import autograd.numpy as anp
    import autograd.scipy.special as asp

    def with_autograd(x):
        a = asp.gammaln(x) + asp.expit(x) * asp.i1(x) + asp.digamma(x + 1.0)
        b = asp.erf(x / 2) * 1.0
        return anp.sum(a + b) + asp.logsumexp(x * 2.0) + anp.sum(asp.polygamma(1, x)) + \
            anp.sum(asp.iv(2, x) + asp.betaln(x, 2.0 - x / 3))

    def ours(x):
        a = gammaln(x) + expit(x) * sps.i1(x) + digamma(x + 1.0)
        b = sps.erf(x / 2) * 1.0
        return np.sum(a + b) + logsumexp(x * 2.0) + np.sum(sps.polygamma(1, x)) + \
            np.sum(sps.iv(2, x) + sps.betaln(x, 2.0 - x / 3))
    x = np.array([0.4, 1.3, 2.2, 3.1])
    np.testing.assert_allclose(sg.grad(ours)(x), ag.grad(with_autograd)(x), rtol=1e-10)
    np.testing.assert_allclose(sg.hessian(ours)(x), ag.hessian(with_autograd)(x), rtol=1e-8,
                               atol=1e-10)


def lse_options(a, b):
    v, s = logsumexp(a, axis=1, b=b, keepdims=True, return_sign=True)
    return np.sum(v * s) + np.sum(logsumexp(a, axis=0, b=b) ** 2) + \
        np.sum(log_softmax(a, axis=1) * sps.softmax(a, axis=0))


def test_logsumexp_b_keepdims_return_sign_all_orders():
    a = np.random.default_rng(0).normal(size=(3, 4))
    b = np.array([[1.0, 0.5, -0.3, 2.0], [0.7, 1.0, 1.5, -0.2], [1.2, 0.4, 1.0, 2.0]])
    check_all_orders(lambda x: lse_options(x, b), a)
    check_all_orders(lambda y: lse_options(a, y), b, hrtol=1e-4)


def lse_inf(a):
    return np.sum(logsumexp(a, axis=1) ** 2)


def test_logsumexp_with_minus_infinity_entries():
    a = np.array([[0.3, -np.inf, 1.2], [-np.inf, -0.5, 0.1]])
    g = sg.grad(lse_inf)(a)
    assert np.all(g[np.isneginf(a)] == 0) and np.all(np.isfinite(g))
    finite = np.isfinite(a)
    fd = fd_grad(lambda v: lse_inf(np.where(finite, v, -np.inf)), np.where(finite, a, 0.0))
    np.testing.assert_allclose(g[finite], fd[finite], rtol=1e-6)
    h = sg.hessian(lse_inf)(a)
    assert np.all(h.reshape(6, 6)[np.ravel(~finite)] == 0)


def gammaln_near_zero(x):
    return np.sum(gammaln(x) * x)


def test_gammaln_near_zero_and_poles():
    x = np.array([1e-3, 0.02, -0.4, -1.7])
    check_all_orders(gammaln_near_zero, x, rtol=1e-5, hrtol=1e-3)


def polygamma_of_float_order(n, x):
    return np.sum(sps.polygamma(n, x))


def zeta_exponent(x):
    return np.sum(sps.zeta(x, 2.0))


def zeta_q(q):
    return np.sum(sps.zeta(3.0, q))


def test_orders_have_no_derivative():
    """A gradient through an order raises: never a silent zero."""
    with pytest.raises(sg.NonDifferentiableError, match="polygamma.*'n'"):
        sg.grad(polygamma_of_float_order, wrt=0)(1.0, np.array([1.5, 2.0]))
    # with respect to x only, the order is a constant: fine
    np.testing.assert_allclose(sg.grad(polygamma_of_float_order, wrt=1)(1.0, np.array([1.5, 2.0])),
                               sps.polygamma(2, np.array([1.5, 2.0])), rtol=1e-12)
    q = np.array([0.5, 1.5])
    np.testing.assert_allclose(sg.grad(zeta_q)(q), fd_grad(zeta_q, q), rtol=1e-6)


def zeta_both(v):
    return np.sum(sps.zeta(v[:2], v[2:]) + sps.zeta(v[:2] + 1.5))


def test_zeta_exponent_to_second_order():
    # zeta'(2) = -0.93754825431584375 (Riemann's; a published value)
    np.testing.assert_allclose(sg.grad(lambda x: sps.zeta(x))(2.0), -0.93754825431584375,
                               rtol=1e-13)
    check_all_orders(zeta_exponent, np.array([1.3, 2.5, 7.0]), hrtol=1e-4)
    check_all_orders(zeta_both, np.array([1.6, 4.0, 0.7, 2.5]), hrtol=1e-4)


# -- scipy.stats ------------------------------------------------------------------------

def mixture_loglik(theta, x):
    """A two-component normal mixture: log weights, means and log scales in theta."""
    w = log_softmax(theta[:2])
    comp = np.stack([st.norm.logpdf(x, theta[2], np.exp(theta[4])),
                     norm.logpdf(x, loc=theta[3], scale=np.exp(theta[5]))])
    return np.sum(logsumexp(comp + w[:, None], axis=0))


def test_logistic_normal_likelihood_all_orders():
    x = np.random.default_rng(2).normal(size=9)
    theta = np.array([0.2, -0.3, -0.6, 0.8, 0.1, -0.2])
    grad, hess = check_all_orders(lambda t: mixture_loglik(t, x), theta)
    ag = pytest.importorskip("autograd")
    import autograd.numpy as anp
    import autograd.scipy.special as asp
    import autograd.scipy.stats as ast_

    def with_autograd(t):
        w = t[:2] - asp.logsumexp(t[:2])
        comp = anp.stack([ast_.norm.logpdf(x, t[2], anp.exp(t[4])),
                          ast_.norm.logpdf(x, t[3], anp.exp(t[5]))])
        return anp.sum(asp.logsumexp(comp + w[:, None], axis=0))
    np.testing.assert_allclose(grad, ag.grad(with_autograd)(theta), rtol=1e-10)
    np.testing.assert_allclose(hess, ag.hessian(with_autograd)(theta), rtol=1e-8, atol=1e-10)


CONTINUOUS = [  # (name, value, shapes): each method w.r.t. x, loc, scale and shapes
    ("norm", 0.3, ()), ("cauchy", 0.3, ()), ("logistic", 0.3, ()), ("laplace", 0.4, ()),
    ("expon", 1.3, ()), ("t", 0.3, (4.0,)), ("gamma", 1.3, (2.5,)), ("beta", 0.9, (2.0, 3.0)),
    ("chi2", 1.3, (3.0,)), ("lognorm", 1.3, (0.6,)), ("halfnorm", 0.9, ()),
    ("rayleigh", 0.9, ()), ("gumbel_r", 0.4, ()), ("gumbel_l", 0.4, ()),
    ("invgamma", 1.3, (2.5,)), ("weibull_min", 1.3, (1.7,)), ("pareto", 1.6, (2.5,))]
CDF_SHAPES = {"lognorm", "weibull_min", "pareto"}    # the cdf has a closed-form shape partial


def _probe(tmp_path, name, method, shapes, closed):
    """A module-level probe ``f(v) = st.<name>.<method>(x, shapes, loc, scale) ** 2`` with
    ``v = (x, loc, scale, <the shapes with a closed-form derivative>)``; the other
    shapes are constants."""
    args = [f"v[{3 + i}]" if 3 + i < closed else repr(a) for i, a in enumerate(shapes)]
    src = (f"import scipy.stats as st\n\n\ndef probe(v):\n"
           f"    return st.{name}.{method}(v[0], {', '.join(args + ['v[1]', 'v[2]'])}) ** 2\n")
    path = tmp_path / f"probe_{name}_{method}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.probe


@pytest.mark.parametrize("name,x,shapes", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
@pytest.mark.parametrize("method", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"])
def test_continuous_distributions_all_orders(name, method, x, shapes, tmp_path):
    x = 0.35 if method in ("ppf", "isf") else x                 # a probability
    v = np.array([x, 0.2, 1.3, *shapes])
    closed = 3 if method not in ("logpdf", "pdf") and name not in CDF_SHAPES else v.size
    check_all_orders(_probe(tmp_path, name, method, shapes, closed), v[:closed], hrtol=2e-5)


def test_cdf_with_respect_to_a_shape_without_closed_form_raises():
    def f(a):
        return st.gamma.cdf(1.5, a)
    with pytest.raises(sg.NonDifferentiableError, match=r"scipy\.stats\.gamma\.cdf.*'a'"):
        sg.grad(f)(2.0)


def test_stats_match_autograd():
    ag = pytest.importorskip("autograd")
    import autograd.scipy.stats as ast_
    pairs = [
        (lambda u: st.norm.logpdf(u, 0.2, 1.3), lambda u: ast_.norm.logpdf(u, 0.2, 1.3)),
        (lambda u: st.norm.cdf(u, 0.2, 1.3), lambda u: ast_.norm.cdf(u, 0.2, 1.3)),
        (lambda u: st.norm.logpdf(0.4, 0.2, u), lambda u: ast_.norm.logpdf(0.4, 0.2, u)),
        (lambda u: st.t.logpdf(u, 4.0, 0.1, 2.0), lambda u: ast_.t.logpdf(u, 4.0, 0.1, 2.0)),
        (lambda u: st.t.logpdf(0.7, u), lambda u: ast_.t.logpdf(0.7, u)),
        (lambda u: st.gamma.logpdf(u, 2.5), lambda u: ast_.gamma.logpdf(u, 2.5)),
        (lambda u: st.gamma.logpdf(1.3, u), lambda u: ast_.gamma.logpdf(1.3, u)),
        (lambda u: st.gamma.cdf(u, 2.5), lambda u: ast_.gamma.cdf(u, 2.5)),
        (lambda u: st.beta.logpdf(0.3, u, 2.0), lambda u: ast_.beta.logpdf(0.3, u, 2.0)),
        (lambda u: st.chi2.pdf(u, 3.0), lambda u: ast_.chi2.pdf(u, 3.0)),
        (lambda u: st.chi2.cdf(u, 3.0), lambda u: ast_.chi2.cdf(u, 3.0))]
    for ours, theirs in pairs:
        for u in (0.8, 1.3):
            assert np.isclose(sg.grad(ours)(u), ag.grad(theirs)(u), rtol=1e-10)
            assert np.isclose(sg.grad(sg.grad(ours))(u), ag.grad(ag.grad(theirs))(u), rtol=1e-8)


def poisson_loglik(mu, k):
    return np.sum(poisson.logpmf(k, mu)) + np.sum(st.poisson.cdf(k, mu * 0.5))


def discrete_loglik(p, k):
    return np.sum(st.binom.logpmf(k, 6, p) + st.bernoulli.logpmf(k > 2, p) +
                  st.geom.logpmf(k + 1, p))


def test_discrete_distributions_all_orders():
    k = np.array([0, 2, 3, 5])
    check_all_orders(lambda m: poisson_loglik(m, k), np.array([1.5, 2.5, 0.7, 4.0]))
    check_all_orders(lambda p: discrete_loglik(p, k), np.array([0.3, 0.5, 0.45, 0.7]))
    ag = pytest.importorskip("autograd")
    import autograd.numpy as anp
    import autograd.scipy.stats as ast_
    mu = np.array([1.5, 2.5, 0.7, 4.0])
    np.testing.assert_allclose(sg.grad(lambda m: np.sum(poisson.logpmf(k, m)))(mu),
                               ag.grad(lambda m: anp.sum(ast_.poisson.logpmf(k, m)))(mu), rtol=1e-10)


def mvn_loglik(x, mean, c):
    cov = c @ c.T + np.eye(3)
    return np.sum(multivariate_normal.logpdf(x, mean, cov)) + \
        np.sum(st.multivariate_normal.pdf(x[0], mean=mean, cov=np.diag(cov)))


def test_multivariate_normal_all_orders():
    rng = np.random.default_rng(4)
    x, mean, c = rng.normal(size=(5, 3)), rng.normal(size=3), rng.normal(size=(3, 3))
    check_all_orders(lambda u: mvn_loglik(u, mean, c), x)
    check_all_orders(lambda u: mvn_loglik(x, u, c), mean)
    check_all_orders(lambda u: mvn_loglik(x, mean, u), c, hrtol=1e-4)
    ag = pytest.importorskip("autograd")
    import autograd.numpy as anp
    import autograd.scipy.stats as ast_

    def theirs(u):
        return anp.sum(ast_.multivariate_normal.logpdf(x, mean, anp.dot(u, u.T) + anp.eye(3)))

    def ours(u):
        return np.sum(multivariate_normal.logpdf(x, mean, u @ u.T + np.eye(3)))
    np.testing.assert_allclose(sg.grad(ours)(c), ag.grad(theirs)(c), rtol=1e-10)
    np.testing.assert_allclose(sg.hessian(ours)(c), ag.hessian(theirs)(c), rtol=1e-8, atol=1e-10)


def dirichlet_loglik(x, alpha):
    return dirichlet.logpdf(x, alpha) + st.dirichlet.pdf(x, alpha)


def test_dirichlet_with_respect_to_alpha_and_x():
    x, alpha = np.array([0.2, 0.3, 0.5]), np.array([1.5, 2.0, 3.0])
    check_all_orders(lambda a: dirichlet_loglik(x, a), alpha)
    ag = pytest.importorskip("autograd")
    import autograd.scipy.stats as ast_
    # x lives on the simplex (SciPy refuses any other): compare with autograd's formula
    np.testing.assert_allclose(sg.grad(lambda u: dirichlet.logpdf(u, alpha))(x),
                               ag.grad(lambda u: ast_.dirichlet.logpdf(u, alpha))(x), rtol=1e-10)
    # along the simplex, against differences
    t = np.array([1.0, -0.4, -0.6])
    g = sg.grad(lambda u: dirichlet_loglik(u, alpha))(x)
    fd = (dirichlet_loglik(x + EPS * t, alpha) - dirichlet_loglik(x - EPS * t, alpha)) / (2 * EPS)
    assert np.isclose(g @ t, fd, rtol=1e-6)


def float32_likelihood(x):
    return np.sum(norm.logpdf(x, 0.5, 2.0) + gammaln(x + 1) + expit(x))


def test_float32_inputs_keep_float32_gradients():
    x = np.array([0.3, 1.2, 2.0], dtype=np.float32)
    assert sg.grad(float32_likelihood)(x).dtype == np.float32
    # (SciPy's norm.logpdf with Python float parameters computes in float64: the tangent
    # has the value's dtype)
    out, t = sg.jvp(float32_likelihood, (x,), (np.ones(3, dtype=np.float32),))
    assert np.asarray(t).dtype == np.asarray(out).dtype
    _, t = sg.jvp(lambda u: np.sum(gammaln(u) * expit(u)), (x,), (np.ones(3, dtype=np.float32),))
    assert np.asarray(t).dtype == np.float32


def frozen_distribution(mu, x):
    return np.sum(st.norm(mu, 1.0).logpdf(x))


def test_frozen_distribution_is_refused_with_a_location():
    """Frozen distributions are refused where they are called, never descended into."""
    with pytest.raises(sg.NonDifferentiableError) as e:
        sg.grad(frozen_distribution)(0.3, np.array([0.1, 0.5]))
    assert __file__ in str(e.value) and "logpdf" in str(e.value)
    assert "_process_parameters" not in str(e.value)


def mvn_entropy(c):
    return st.multivariate_normal.entropy(np.zeros(3), c @ c.T + np.eye(3)) + \
        multivariate_normal.entropy(np.ones(3), cov=np.sum(c ** 2, axis=0) + 1.0)


def test_multivariate_normal_entropy_all_orders_and_autograd():
    c = np.random.default_rng(5).normal(size=(3, 3))
    grad, hess = check_all_orders(mvn_entropy, c, hrtol=1e-4)
    ag = pytest.importorskip("autograd")
    import autograd.numpy as anp
    import autograd.scipy.stats as ast_

    def theirs(u):
        return ast_.multivariate_normal.entropy(anp.zeros(3), anp.dot(u, u.T) + anp.eye(3)) + \
            ast_.multivariate_normal.entropy(anp.zeros(3), anp.diag(anp.sum(u ** 2, axis=0) + 1.0))
    np.testing.assert_allclose(grad, ag.grad(theirs)(c), rtol=1e-10)
    np.testing.assert_allclose(hess, ag.hessian(theirs)(c).reshape(9, 9), rtol=1e-8, atol=1e-10)


def no_rule(x):
    return np.sum(sps.exprel(x))


def test_a_special_function_without_a_rule_is_named_as_scipy_names_it():
    with pytest.raises(sg.NonDifferentiableError, match=r"scipy\.special\.exprel\(\)") as e:
        sg.grad(no_rule)(np.array([0.5, 1.0]))
    assert "np.exprel" not in str(e.value) and __file__ in str(e.value)


def binom_of_float_n(p, n):
    return st.binom.logpmf(2, n * 1.0, p)


def test_integer_parameters_given_a_gradient_raise():
    with pytest.raises(sg.NonDifferentiableError, match=r"scipy\.stats\.binom\.logpmf.*'n'"):
        sg.grad(binom_of_float_n, wrt=1)(0.3, 6.0)
    assert np.isclose(sg.grad(binom_of_float_n, wrt=0)(0.3, 6.0), 2 / 0.3 - 4 / 0.7)


def frozen_multivariate(x, mean, cov):
    return np.sum(multivariate_normal(mean=mean, cov=cov).logpdf(x)) + \
        np.sum(multivariate_normal(mean, cov, allow_singular=True).pdf(x)) + \
        multivariate_normal(mean, cov).entropy()


def covariance_object(x, mean, var):
    return np.sum(multivariate_normal.logpdf(x, mean, st.Covariance.from_diagonal(var)))


def test_frozen_multivariate_distributions_and_covariance_objects():
    """multivariate_normal(mean, cov) and dirichlet(alpha) frozen with constants resolve
    to the rules, as do scipy.stats.Covariance objects (the covariance they hold)."""
    rng = np.random.default_rng(6)
    x, mean, c = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=(3, 3))
    cov, var = c @ c.T + np.eye(3), np.array([1.0, 2.0, 0.5])
    check_all_orders(lambda u: frozen_multivariate(u, mean, cov), x)
    for f, u in [(lambda u: covariance_object(u, mean, var), x),
                 (lambda u: covariance_object(x, u, var), mean)]:
        grad = sg.grad(f)(u)
        np.testing.assert_allclose(grad, fd_grad(f, u), rtol=1e-6, atol=1e-6)
        t = rng.normal(size=u.shape)
        np.testing.assert_allclose(sg.jvp(f, (u,), (t,))[1], np.sum(grad * t), rtol=1e-10)
    alpha = np.array([1.5, 2.0, 3.0])
    check_all_orders(lambda u: dirichlet(alpha).logpdf(u / np.sum(u)), np.array([0.2, 0.3, 0.5]))
    ag = pytest.importorskip("autograd")
    import autograd.numpy as anp
    import autograd.scipy.stats as ast_
    np.testing.assert_allclose(
        sg.grad(lambda u: covariance_object(u, mean, var))(x),
        ag.grad(lambda u: anp.sum(ast_.multivariate_normal.logpdf(u, mean, np.diag(var))))(x),
        rtol=1e-10)


def one_dimensional_normal(x, v):
    # a one-dimensional distribution reads a vector as one sample per entry, a scalar
    # as one sample
    return np.sum(multivariate_normal.logpdf(x, 0.5, v)) + \
        multivariate_normal.pdf(x[0], mean=0.2, cov=v) + \
        np.sum(multivariate_normal.logpdf(x[:, None], cov=np.reshape(v, (1, 1))))


def test_multivariate_normal_of_one_dimension_reads_samples_per_entry():
    x, v = np.array([0.1, 0.6, 1.0]), np.array(1.7)
    check_all_orders(lambda u: one_dimensional_normal(u, v), x)
    check_all_orders(lambda u: one_dimensional_normal(x, u), v)
    # the same numbers as the univariate density (a closed form of its gradient)
    np.testing.assert_allclose(sg.grad(lambda u: np.sum(multivariate_normal.logpdf(u, 0.5, v)))(x),
                               -(x - 0.5) / v, rtol=1e-12)


_CW = np.random.default_rng(8).normal(size=4)


def _complex_loss(y):
    return np.sum(np.real(y) * _CW[:np.size(y)]) + np.sum(np.imag(y) ** 2)


COMPLEX_SPECIAL = {
    "ive": lambda z: _complex_loss(sps.ive(1.0, z) + sps.ive(0.5, -z)),   # reads |Re z|
    "iv_kve_jv": lambda z: _complex_loss(sps.iv(1.0, z) + sps.kve(1.0, z) + sps.jv(1.5, z)),
    # (gamma's second derivative needs polygamma(1, z), which SciPy has for real z only)
    "erf": lambda z: _complex_loss(sps.erf(z) + sps.erfcx(z) + sps.log_ndtr(z)),
    "logsumexp": lambda z: _complex_loss(logsumexp(z, b=np.array([1.0, 2.0, 0.5, 1.0]))),
}


@pytest.mark.parametrize("name", list(COMPLEX_SPECIAL))
def test_special_functions_of_complex_arguments_to_second_order(name):
    f = COMPLEX_SPECIAL[name]
    rng = np.random.default_rng(9)
    z = rng.uniform(0.5, 2, 4) + 1j * rng.uniform(-1, 1, 4)
    dz = rng.normal(size=4) + 1j * rng.normal(size=4)
    fd = (f(z + EPS * dz) - f(z - EPS * dz)) / (2 * EPS)
    gr = sg.grad(f)
    np.testing.assert_allclose(np.real(np.sum(dz * gr(z))), fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sg.jvp(f, (z,), (dz,))[1], fd, rtol=1e-6, atol=1e-8)
    fd2 = (gr(z + 1e-5 * dz) - gr(z - 1e-5 * dz)) / 2e-5
    np.testing.assert_allclose(sg.jvp(gr, (z,), (dz,))[1], fd2, rtol=1e-5, atol=1e-7)


def test_zeta_of_a_complex_argument_is_refused():
    with pytest.raises(sg.NonDifferentiableError, match="complex"):
        sg.grad(lambda z: np.real(np.sum(sps.zeta(z, 2.0))))(np.array([2.5 + 0.3j, 3.0 - 1j]))


def digamma_complex(x):
    z = x * (1.0 + 0.5j) - 0.7j
    return np.sum(np.real(digamma(z)) + np.imag(digamma(z * z + 0.3)))


def test_complex_digamma_all_orders():
    # (SciPy's polygamma takes real arguments only: the derivative is srcgrad's series)
    check_all_orders(digamma_complex, np.array([0.4, 1.3, -2.2, 3.1]))


def test_polygamma_of_a_complex_argument_matches_mpmath():
    mpmath = pytest.importorskip("mpmath")
    from srcgrad.rules.scipy.special import polygamma_of
    z = np.array([1.5 + 0.5j, 0.3 - 1.2j, -2.7 + 0.4j, 20 + 3j, 0.01 + 0.02j, 3j, -8.5 - 7j])
    for n in range(6):
        ref = np.array([complex(mpmath.polygamma(n, complex(v))) for v in z])
        np.testing.assert_allclose(polygamma_of(n, z), ref, rtol=1e-13)
    x = np.linspace(0.2, 6.0, 9)
    for n in range(1, 5):
        np.testing.assert_allclose(polygamma_of(n, x + 0j).real, sps.polygamma(n, x),
                                   rtol=1e-14)
    assert polygamma_of(2, z.astype(np.complex64)).dtype == np.complex64
