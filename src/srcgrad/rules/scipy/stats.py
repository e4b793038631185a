"""``scipy.stats``: the densities, distribution functions and mass functions that
likelihoods are written with, with respect to the value and every parameter.

``scipy.stats.norm.logpdf`` is a bound method (a new object at each attribute read);
the table knows it by its distribution instance and its method (``registry._key``),
so ``st.norm.logpdf(x, loc, scale)``, ``from scipy.stats import norm`` and
``scipy.stats.norm.logpdf`` all find the rule below.  SciPy computes the values; the
derivative templates are formulas in functions with rules (NumPy's and
``scipy.special``'s), so derivatives of every order follow.

A continuous distribution here is a location-scale family: with ``z = (x - loc) /
scale`` its density is ``f0(z; shapes) / scale``.  Each family below is given by the
standard log-density ``f0``'s partials; :func:`_family` derives the rules of
``logpdf``, ``pdf``, ``cdf``, ``logcdf``, ``sf`` and ``logsf`` from them.  A partial
with no closed form (the ``cdf`` of ``gamma`` with respect to its shape) is named
with ``no_derivative``, which raises where a gradient would flow through it.
"""
import ast
import math

import numpy as np
import scipy.stats as st
import scipy.stats._distn_infrastructure as _infrastructure
import scipy.stats._multivariate as _multivariate

from ..numpy.conventions import _fdtype
from ..registry import deflinear, defkernel, defnograd, defresolver, defrule, lookup

_Covariance = getattr(st, "Covariance", ())      # (SciPy >= 1.10)

__all__ = ['mvn_cov', 'mvn_cov_grad', 'mvn_resid', 'mvn_dim', 'mvn_precision', 'mvn_rows']


# -- kernels: the covariance and residual of multivariate_normal ------------------------

def mvn_cov(t, d):
    """The ``d x d`` covariance matrix SciPy reads from ``cov``: a scalar times the
    identity, a diagonal, or a matrix's lower triangle mirrored (SciPy reads no more); a
    ``scipy.stats.Covariance`` object (a constant) gives its matrix."""
    if isinstance(t, _Covariance):
        return t.covariance
    if np.ndim(t) == 0:
        return t * np.eye(d, dtype=_fdtype(t))
    if np.ndim(t) == 1:
        return np.diag(t)
    return np.tril(t) + np.swapaxes(np.tril(t, -1), -1, -2)


def mvn_cov_grad(t, cov):
    """The transpose of :func:`mvn_cov`: a ``d x d`` cotangent back to ``cov``'s form."""
    if np.ndim(cov) == 0:
        out = np.trace(t)
        return np.reshape(out, np.shape(cov)) if hasattr(cov, "shape") else out
    if np.ndim(cov) == 1:
        return np.diagonal(t)
    return np.tril(t) + np.tril(np.swapaxes(t, -1, -2), -1)


def mvn_dim(mean, cov):
    """The dimension of a multivariate normal given by ``mean`` and / or ``cov``, as
    SciPy reads it (without a mean, only a matrix ``cov`` gives more than one)."""
    if mean is not None:
        return np.size(mean)
    return np.shape(cov)[-1] if np.ndim(cov) == 2 else 1


def mvn_precision(c, allow_singular=False):
    """The precision matrix: ``inv(c)``, or with ``allow_singular`` the pseudo-inverse
    SciPy uses: of a singular ``c`` the derivatives are then those of the density on its
    support (for x and mean autograd's convention; for cov, along the changes of cov that
    keep its range: off it the density changes dimension and has no derivative)."""
    if allow_singular:
        return np.linalg.pinv(c)
    return np.linalg.inv(c)


def mvn_rows(t, mean=None, cov=1):
    """``x`` as SciPy reads it, one sample per row of the distribution's dimension: a
    scalar is one sample, and of a one-dimensional distribution a vector is one sample
    per entry (SciPy's ``_process_quantiles``).  Linear in ``t``."""
    if np.ndim(t) == 0:
        return np.reshape(t, (1,))
    if np.ndim(t) == 1 and mvn_dim(mean, cov) == 1:
        return t[:, None]
    return t


def mvn_resid(x, mean):
    """``x - mean`` (``x`` itself where the mean is None)."""
    return x if mean is None else x - mean


# -- building templates from formulas in z ----------------------------------------------

class _Substitute(ast.NodeTransformer):
    def __init__(self, names):
        self.names = {k: ast.parse(v, mode="eval").body for k, v in names.items()}

    def visit_Name(self, node):
        return self.names.get(node.id, node)


class _Tidy(ast.NodeTransformer):
    """``--e`` -> ``e``: what substituting ``-z`` into ``-dz`` writes."""

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.UnaryOp) and \
                isinstance(node.operand.op, ast.USub):
            return node.operand.operand
        return node


def _sub(expr, **names):
    """``expr`` (source) with each name in ``names`` replaced by its expression."""
    return ast.unparse(_Substitute(names).visit(ast.parse(expr, mode="eval")))


def _tidy(expr):
    return ast.unparse(_Tidy().visit(ast.parse(expr, mode="eval")))


_Z = "(x - loc) / scale"


def _register(func, name, params, partials):
    """A rule from ``{param: partial derivative of ans}``: reverse ``g * partial``
    un-broadcast to the parameter, forward ``d<param> * partial`` broadcast to ``ans``.
    (``cast_like``: ``gammaln(2.5)`` of a Python float shape is a float64 scalar, which
    would promote a float32 gradient.)"""
    vjp, jvp = {}, {}
    for p, d in partials.items():
        if d.startswith("no_derivative("):
            vjp[p] = jvp[p] = d
            continue
        vjp[p] = _tidy(f"unbroadcast(cast_like(g * ({d}), {p}), {p})")
        jvp[p] = _tidy(f"expand(cast_like(d{p} * ({d}), ans), ans)")
    return defrule(func, params, name=name, vjp=vjp, jvp=jvp, elementwise=True)


def _family(name, shapes, logpdf, dz, dshape, cdf_dshape=None, log_density_written=None):
    """The six rules of the location-scale family ``scipy.stats.<name>``.

    ``logpdf``: the standard log-density in ``z`` and the shapes; ``dz`` and ``dshape``
    (one per shape): its partials; ``cdf_dshape``: the partials of the standard cdf
    with respect to the shapes where they have a closed form; ``log_density_written``: the
    partials of ``logpdf`` itself written out, where they take fewer operations than
    the ones derived from ``dz``."""
    dist = getattr(st, name)
    cdf_dshape = cdf_dshape or {}
    params = ", ".join(["x", *shapes, "loc=0", "scale=1"])

    def z(expr):
        return _sub(expr, z=f"({_Z})")

    def none(method, p):
        return f"no_derivative('scipy.stats.{name}.{method}', {p!r})"

    lz, l0, zz = f"({z(dz)})", f"({z(logpdf)})", f"({_Z})"
    log_density = dict(x=f"{lz} / scale", loc=f"-{lz} / scale",
                       scale=f"-({lz} * {zz} + 1) / scale",
                       **{s: f"({z(dshape[s])})" for s in shapes})
    log_density.update(log_density_written or {})
    # d cdf / dz is the standard density; over cdf (logcdf) it is exp(logpdf0 - ans)
    for method, density, over, sign in [("cdf", f"np.exp{l0}", "", ""),
                                        ("logcdf", f"np.exp({l0} - ans)", " * np.exp(-ans)", ""),
                                        ("sf", f"np.exp{l0}", "", "-"),
                                        ("logsf", f"np.exp({l0} - ans)", " * np.exp(-ans)", "-")]:
        minus = "" if sign else "-"
        partials = dict(x=f"{sign}{density} / scale", loc=f"{minus}{density} / scale",
                        scale=f"{minus}{density} * {zz} / scale")
        for s in shapes:
            partials[s] = (f"{sign}({z(cdf_dshape[s])}){over}" if s in cdf_dshape
                           else none(method, s))
        _register(getattr(dist, method), f"scipy.stats.{name}.{method}", params, partials)
    # the quantile functions: q = cdf0(z) (or sf0), z = (ans - loc) / scale
    zq = "((ans - loc) / scale)"
    inv = f"np.exp(-({_sub(logpdf, z=zq)}))"               # 1 / the standard density
    q_params = ", ".join(["q", *shapes, "loc=0", "scale=1"])
    for method, sign in (("ppf", ""), ("isf", "-")):
        partials = dict(q=f"{sign}scale * {inv}", loc="1 + 0 * ans", scale=zq)
        for s in shapes:        # (the same for isf: d sf0 / ds = -d cdf0 / ds)
            partials[s] = (f"-scale * ({_sub(cdf_dshape[s], z=zq)}) * {inv}"
                           if s in cdf_dshape else none(method, s))
        _register(getattr(dist, method), f"scipy.stats.{name}.{method}", q_params, partials)
    _register(dist.logpdf, f"scipy.stats.{name}.logpdf", params, log_density)
    _register(dist.pdf, f"scipy.stats.{name}.pdf", params,
              {p: f"ans * {d}" for p, d in log_density.items()})


_HALF_LOG_2PI = "math.log(2 * math.pi) / 2"

# (the partials of norm.logpdf, a likelihood's inner loop, in the fewest array operations)
_family("norm", (), f"-z ** 2 / 2 - {_HALF_LOG_2PI}", "-z", {},
        log_density_written=dict(x="(loc - x) / scale ** 2", loc="(x - loc) / scale ** 2",
                                 scale="((x - loc) ** 2 - scale ** 2) / scale ** 3"))
_family("cauchy", (), "-math.log(math.pi) - np.log1p(z ** 2)", "-2 * z / (1 + z ** 2)", {})
_family("laplace", (), "-math.log(2) - np.abs(z)", "-np.sign(z)", {})
_family("logistic", (), "-np.abs(z) - 2 * np.log1p(np.exp(-np.abs(z)))", "-np.tanh(z / 2)", {})
_family("expon", (), "np.where(z >= 0, -z, -np.inf)", "(z >= 0) * -np.ones_like(z)", {})
_family("uniform", (), "np.where((z >= 0) & (z <= 1), 0 * z, -np.inf)", "0 * z", {})
_family("gamma", ("a",), "(a - 1) * np.log(z) - z - gammaln(a)", "(a - 1) / z - 1",
        {"a": "np.log(z) - digamma(a)"})
_family("beta", ("a", "b"), "(a - 1) * np.log(z) + (b - 1) * np.log1p(-z) - betaln(a, b)",
        "(a - 1) / z - (b - 1) / (1 - z)",
        {"a": "np.log(z) - digamma(a) + digamma(a + b)",
         "b": "np.log1p(-z) - digamma(b) + digamma(a + b)"})
_family("chi2", ("df",), "(df / 2 - 1) * np.log(z) - z / 2 - df / 2 * math.log(2) - gammaln(df / 2)",
        "(df / 2 - 1) / z - 0.5", {"df": "(np.log(z) - math.log(2) - digamma(df / 2)) / 2"})
_family("t", ("df",),
        "gammaln((df + 1) / 2) - gammaln(df / 2) - np.log(df * math.pi) / 2"
        " - (df + 1) / 2 * np.log1p(z ** 2 / df)",
        "-(df + 1) * z / (df + z ** 2)",
        {"df": "(digamma((df + 1) / 2) - digamma(df / 2) - 1 / df - np.log1p(z ** 2 / df)"
               " + (df + 1) * z ** 2 / (df * (df + z ** 2))) / 2"})
# log z is normal with standard deviation s: cdf0 = ndtr(log(z) / s)
_family("lognorm", ("s",),
        f"-np.log(s * z) - {_HALF_LOG_2PI} - np.log(z) ** 2 / (2 * s ** 2)",
        "-(1 + np.log(z) / s ** 2) / z", {"s": "(np.log(z) ** 2 / s ** 2 - 1) / s"},
        {"s": f"-np.exp(-(np.log(z) / s) ** 2 / 2 - {_HALF_LOG_2PI}) * np.log(z) / s ** 2"})

_family("halfnorm", (), f"math.log(2) - z ** 2 / 2 - {_HALF_LOG_2PI}", "-z", {})
_family("rayleigh", (), "np.log(z) - z ** 2 / 2", "1 / z - z", {})
_family("gumbel_r", (), "-z - np.exp(-z)", "np.exp(-z) - 1", {})
_family("gumbel_l", (), "z - np.exp(z)", "1 - np.exp(z)", {})
_family("invgamma", ("a",), "-(a + 1) * np.log(z) - 1 / z - gammaln(a)", "(1 / z - a - 1) / z",
        {"a": "-np.log(z) - digamma(a)"})
# cdf0 = 1 - exp(-z^c), 1 - z^(-b): closed forms in the shape too
_family("weibull_min", ("c",), "np.log(c) + (c - 1) * np.log(z) - z ** c",
        "(c - 1) / z - c * z ** (c - 1)", {"c": "1 / c + np.log(z) * (1 - z ** c)"},
        {"c": "np.exp(-z ** c) * z ** c * np.log(z)"})
_family("pareto", ("b",), "np.log(b) - (b + 1) * np.log(z)", "-(b + 1) / z",
        {"b": "1 / b - np.log(z)"}, {"b": "z ** -b * np.log(z)"})

# ---------------------------------------------------------------------------------------
# Discrete distributions: with respect to the probability or rate (k, n, loc: none)
# ---------------------------------------------------------------------------------------
def _discrete(name, params, methods, fixed):
    dist = getattr(st, name)
    for method, partials in methods.items():
        full = dict(partials)
        for p in fixed:
            full[p] = f"no_derivative('scipy.stats.{name}.{method}', {p!r})"
        _register(getattr(dist, method), f"scipy.stats.{name}.{method}", params, full)


_K = "(k - loc)"
_POISSON_PMF_FLOOR = f"np.exp(np.floor({_K}) * np.log(mu) - mu - gammaln(np.floor({_K}) + 1))"
_discrete("poisson", "k, mu, loc=0", {
    "logpmf": {"mu": f"{_K} / mu - 1"}, "pmf": {"mu": f"ans * ({_K} / mu - 1)"},
    "cdf": {"mu": f"-{_POISSON_PMF_FLOOR}"}, "sf": {"mu": _POISSON_PMF_FLOOR}}, ("k", "loc"))
_BINOM = f"{_K} / p - (n - {_K}) / (1 - p)"
_discrete("binom", "k, n, p, loc=0", {"logpmf": {"p": _BINOM}, "pmf": {"p": f"ans * ({_BINOM})"}},
          ("k", "n", "loc"))
_BERNOULLI = f"{_K} / p - (1 - {_K}) / (1 - p)"
_discrete("bernoulli", "k, p, loc=0",
          {"logpmf": {"p": _BERNOULLI}, "pmf": {"p": f"ans * ({_BERNOULLI})"}}, ("k", "loc"))
_GEOM = f"1 / p - ({_K} - 1) / (1 - p)"
_GEOM_CDF = f"np.floor({_K}) * (1 - p) ** (np.floor({_K}) - 1)"     # d/dp of 1 - (1 - p)^k
_discrete("geom", "k, p, loc=0", {"logpmf": {"p": _GEOM}, "pmf": {"p": f"ans * ({_GEOM})"},
                                  "cdf": {"p": _GEOM_CDF}, "sf": {"p": f"-{_GEOM_CDF}"}},
          ("k", "loc"))


# ---------------------------------------------------------------------------------------
# multivariate_normal: x (..., d), mean (d,), cov (d, d), (d,) or a scalar
# ---------------------------------------------------------------------------------------
_X = "mvn_rows(x, mean, cov)"                               # x, one sample per row
_D = f"np.shape({_X})[-1]"
_P = f"mvn_precision(mvn_cov(cov, {_D}), allow_singular)"   # the precision matrix
_V = f"(mvn_resid({_X}, mean) @ {_P})"                      # precision @ (x - mean), per row
_GB = "np.reshape({g}, np.shape(%s)[:-1] + (1,))" % _X      # one cotangent per row


def _mvn(func, method, weight):
    """``weight``: the factor of the log-density's cotangent (``ans`` for the pdf)."""
    gw = f"g * {weight}" if weight else "g"
    gb = _GB.format(g=f"({gw})")
    dcov = f"mvn_cov(dcov, {_D})"
    w = f"{weight} * " if weight else ""
    defrule(func, "x, mean=None, cov=1, allow_singular=False",
            name=f"scipy.stats.multivariate_normal.{method}",
            vjp=dict(x=f"np.reshape(unbroadcast(-{gb} * {_V}, {_X}), np.shape(x))", mean=f"unbroadcast({gb} * {_V}, mean)",
                     cov=f"mvn_cov_grad(0.5 * (np.swapaxes(np.reshape({gb} * {_V}, (-1, {_D})), "
                         f"-1, -2) @ np.reshape({_V}, (-1, {_D})) - np.sum({gw}) * {_P}), cov)"),
            jvp=dict(x=f"{w}np.reshape(-np.sum(mvn_rows(dx, mean, cov) * {_V}, axis=-1), "
                       f"np.shape(ans))",
                     mean=f"{w}np.reshape(np.sum(dmean * {_V}, axis=-1), np.shape(ans))",
                     cov=f"{w}np.reshape(0.5 * (np.sum(({_V} @ {dcov}) * {_V}, axis=-1) - "
                         f"np.sum({_P} * {dcov})), np.shape(ans))"))


_mvn(st.multivariate_normal.logpdf, "logpdf", "")
_mvn(st.multivariate_normal.pdf, "pdf", "ans")
# entropy = (d log(2 pi e) + log det cov) / 2: the mean carries no gradient
_PE = "np.linalg.inv(mvn_cov(cov, mvn_dim(mean, cov)))"
defrule(st.multivariate_normal.entropy, "mean=None, cov=1",
        name="scipy.stats.multivariate_normal.entropy",
        vjp=dict(mean="zeros_like(mean)", cov=f"mvn_cov_grad(0.5 * g * {_PE}, cov)"),
        jvp=dict(mean="zeros_like(ans)",
                 cov=f"0.5 * np.sum({_PE} * mvn_cov(dcov, mvn_dim(mean, cov)))"))


# ---------------------------------------------------------------------------------------
# dirichlet: x (K,) or (K, N) on the simplex (components along the first axis), alpha (K,)
# ---------------------------------------------------------------------------------------
_XT = "np.moveaxis(x, 0, -1)"
_DALPHA = f"(np.log({_XT}) - digamma(alpha) + digamma(np.sum(alpha)))"


def _dirichlet(func, method, weight):
    gw = f"g * {weight}" if weight else "g"
    gb = f"np.reshape({gw}, np.shape({_XT})[:-1] + (1,))"
    w = f"{weight} * " if weight else ""
    defrule(func, "x, alpha", name=f"scipy.stats.dirichlet.{method}",
            vjp=dict(x=f"np.moveaxis({gb} * (alpha - 1) / {_XT}, -1, 0)",
                     alpha=f"unbroadcast({gb} * {_DALPHA}, alpha)"),
            jvp=dict(x=f"{w}np.reshape(np.sum(np.moveaxis(dx, 0, -1) * (alpha - 1) / {_XT}, "
                       f"axis=-1), np.shape(ans))",
                     alpha=f"{w}np.reshape(np.sum(dalpha * {_DALPHA}, axis=-1), np.shape(ans))"))


_dirichlet(st.dirichlet.logpdf, "logpdf", "")
_dirichlet(st.dirichlet.pdf, "pdf", "ans")

# the kernels' own rules (grad of grad)
deflinear(mvn_cov, "t, d", "mvn_cov_grad(g, t)", "mvn_cov(dt, d)")
deflinear(mvn_cov_grad, "t, cov", "mvn_cov(g, np.shape(t)[-1])", "mvn_cov_grad(dt, cov)")
deflinear(mvn_rows, "t, mean=None, cov=1", "np.reshape(g, np.shape(t))",
          "mvn_rows(dt, mean, cov)", constant=("mean", "cov"))
defnograd(mvn_dim, names=["ad.mvn_dim"])
# (d inv(c) = -P dc P; for the pseudo-inverse, the same along changes that keep c's range)
defkernel(mvn_precision, "c, allow_singular=False",
          vjp=dict(c="-np.swapaxes(ans, -1, -2) @ g @ np.swapaxes(ans, -1, -2)"),
          jvp=dict(c="-ans @ dc @ ans"))
defkernel(mvn_resid, "x, mean", vjp=dict(x="unbroadcast(g, x)", mean="unbroadcast(-g, mean)"),
          jvp=dict(x="expand(dx, ans)", mean="expand(-dmean, ans)"))


# -- frozen distributions: st.norm(loc, scale).logpdf(x) ------------------------------------
# A frozen distribution holds its parameters (constants: the compiler refuses to build
# one from values that carry a gradient); its methods are the distribution's methods
# with those parameters appended, so they resolve to the same rules.

# the parameters a frozen multivariate distribution holds, by its class
_MULTIVARIATE = {
    _multivariate.multivariate_normal_frozen: (st.multivariate_normal, lambda o: dict(
        mean=o.mean, cov=o.cov_object.covariance, allow_singular=o.allow_singular)),
    _multivariate.dirichlet_frozen: (st.dirichlet, lambda o: dict(alpha=o.alpha)),
}


def _frozen(callee, args, kwargs):
    owner = getattr(callee, "__self__", None)
    if type(owner) in _MULTIVARIATE:
        dist, params = _MULTIVARIATE[type(owner)]
        method = getattr(dist, callee.__name__, None)
        if method is None or lookup(method) is None:
            return None
        return method, tuple(args), {**params(owner), **kwargs}
    if not isinstance(owner, _infrastructure.rv_frozen):
        return None
    # (the frozen object holds its own copy of the distribution: the registered one is
    # the module's instance of that name, of the same class)
    public = getattr(st, getattr(owner.dist, "name", ""), None)
    if type(public) is not type(owner.dist):
        return None
    method = getattr(public, callee.__name__, None)
    if method is None or lookup(method) is None:
        return None
    return method, tuple(args) + tuple(owner.args), {**owner.kwds, **kwargs}


defresolver(_frozen)
