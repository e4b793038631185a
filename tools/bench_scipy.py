"""Benchmarks of gradients through SciPy's functions: srcgrad's generated gradient next
to a hand-written NumPy gradient of the same function, side by side in one process.

Each row prints the median time of each (value and gradient together) and the median,
over rounds that time them in turn, of the ratio srcgrad / hand-written, for two
hand-written versions: NumPy only, and the function's own SciPy calls for the value
with the gradient written in NumPy (SciPy's functions cost more than the NumPy
expressions a person would write by hand, and srcgrad's generated code calls the
function's SciPy calls as written); the last column, the function itself (no gradient)
over the NumPy-only hand-written value and gradient, is the floor of the first ratio.
The benchmarks: a Gaussian mixture's log-likelihood (``scipy.special.logsumexp``,
``scipy.stats.norm.logpdf``), a logistic-normal one (a Bayesian logistic regression's
marginal likelihood by importance sampling: ``log_expit``, ``norm.logpdf``,
``logsumexp``) and a Gaussian process's marginal likelihood
(``scipy.linalg.cholesky``, ``cho_solve``, and ``np.linalg.slogdet`` or the factor's
diagonal for ``log det K``).
Run: `python tools/bench_scipy.py [--quick] [--source]` (``--source`` prints the
generated code of each benchmark), or `python tools/bench.py scipy` (the same table, one
core, single-threaded BLAS).
"""
import argparse
import statistics
import sys
import time

import numpy as np
import scipy.linalg as sl
import scipy.special as sc
import scipy.stats as st

import srcgrad as sg


def _calls_for(fn, min_time):
    """How many calls of ``fn`` take at least ``min_time`` seconds."""
    fn()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 > min_time or n > 1e6:
            return n
        n *= 2


def interleaved_times(fns, rounds=9, min_time=0.03):
    """Per-call times of ``fns`` timed in turn, round after round (the machine's load
    changes alike for all of them): the median time of each and, for each ``fns[i]``,
    the median over rounds of its time / ``fns[0]``'s."""
    counts = [_calls_for(fn, min_time) for fn in fns]
    samples = [[] for _ in fns]
    for _ in range(rounds):
        for fn, n, out in zip(fns, counts, samples):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            out.append((time.perf_counter() - t0) / n)
    ratios = [statistics.median(a / b for a, b in zip(samples[0], s)) for s in samples]
    return [statistics.median(s) for s in samples], ratios


# -- a Gaussian mixture's log-likelihood ---------------------------------------------------

def mixture_loglik(mu, log_sigma, logits, x):
    """log p(x) of a 1-D Gaussian mixture: means ``mu``, scales ``exp(log_sigma)``,
    weights ``softmax(logits)``."""
    log_w = logits - sc.logsumexp(logits)
    comp = st.norm.logpdf(x[:, None], mu, np.exp(log_sigma)) + log_w
    return np.sum(sc.logsumexp(comp, axis=1))


def mixture_hand(mu, log_sigma, logits, x):
    """The value and gradient of :func:`mixture_loglik`, written out in NumPy."""
    sigma = np.exp(log_sigma)
    top = np.max(logits)
    w = np.exp(logits - top)
    log_w = logits - (top + np.log(np.sum(w)))
    w = w / np.sum(w)
    z = (x[:, None] - mu) / sigma
    comp = -0.5 * z * z - log_sigma - 0.5 * np.log(2 * np.pi) + log_w
    m = np.max(comp, axis=1, keepdims=True)
    e = np.exp(comp - m)
    s = np.sum(e, axis=1, keepdims=True)
    value = np.sum(m[:, 0] + np.log(s[:, 0]))
    r = e / s                                   # responsibilities, d value / d comp
    d_mu = np.sum(r * z, axis=0) / sigma
    d_log_sigma = np.sum(r * (z * z - 1), axis=0)
    d_logits = np.sum(r, axis=0) - len(x) * w
    return value, (d_mu, d_log_sigma, d_logits)


def mixture_hand_scipy(mu, log_sigma, logits, x):
    """The same, the value by the same SciPy calls as :func:`mixture_loglik` (what the
    gradient costs on top of the function itself)."""
    sigma = np.exp(log_sigma)
    log_w = logits - sc.logsumexp(logits)
    comp = st.norm.logpdf(x[:, None], mu, sigma) + log_w
    lse = sc.logsumexp(comp, axis=1)
    value = np.sum(lse)
    r = np.exp(comp - lse[:, None])
    z = (x[:, None] - mu) / sigma
    d_mu = np.sum(r * z, axis=0) / sigma
    d_log_sigma = np.sum(r * (z * z - 1), axis=0)
    d_logits = np.sum(r, axis=0) - len(x) * np.exp(log_w)
    return value, (d_mu, d_log_sigma, d_logits)


def mixture_inputs(n, k, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=k), rng.normal(scale=0.3, size=k), rng.normal(size=k),
            rng.normal(scale=2.0, size=n))


# -- a logistic-normal likelihood ----------------------------------------------------------

def logistic_normal(mu, log_s, x, y, eps):
    """The importance-weighted log marginal likelihood of a Bayesian logistic regression
    (labels ``y`` in {-1, 1}, prior N(0, 1) on the weights), with the proposal N(mu, s^2)
    sampled as ``mu + s * eps``."""
    s = np.exp(log_s)
    w = mu + s * eps
    logits = w @ x.T
    loglik = np.sum(sc.log_expit(y * logits), axis=1)
    log_prior = np.sum(st.norm.logpdf(w), axis=1)
    log_q = np.sum(st.norm.logpdf(w, mu, s), axis=1)
    return sc.logsumexp(loglik + log_prior - log_q) - np.log(len(eps))


def _logistic_normal_grad(w, yl, lw, x, y, eps, s):
    """The gradient of :func:`logistic_normal` from its log-weights ``lw``: the weights'
    softmax times the gradient of each sample's log-weight (``log q``'s own dependence on
    ``mu`` and ``s`` leaves only ``-sum(log s)``)."""
    r = np.exp(lw - np.max(lw))
    r = r / np.sum(r)
    gw = r[:, None] * ((y * sc.expit(-yl)) @ x - w)
    return np.sum(gw, axis=0), np.sum(gw * eps, axis=0) * s + 1.0


def logistic_normal_hand(mu, log_s, x, y, eps):
    """The value and gradient of :func:`logistic_normal`, written out in NumPy."""
    s = np.exp(log_s)
    w = mu + s * eps
    yl = y * (w @ x.T)
    loglik = np.sum(np.minimum(yl, 0) - np.log1p(np.exp(-np.abs(yl))), axis=1)
    # (prior and proposal: their log(2 pi) / 2 terms cancel)
    lw = loglik - 0.5 * np.sum(w * w, axis=1) + 0.5 * np.sum(eps * eps, axis=1) + np.sum(log_s)
    m = np.max(lw)
    value = m + np.log(np.sum(np.exp(lw - m))) - np.log(len(eps))
    return value, _logistic_normal_grad(w, yl, lw, x, y, eps, s)


def logistic_normal_hand_scipy(mu, log_s, x, y, eps):
    """The same, the value by the same SciPy calls as :func:`logistic_normal`."""
    s = np.exp(log_s)
    w = mu + s * eps
    logits = w @ x.T
    lw = (np.sum(sc.log_expit(y * logits), axis=1) + np.sum(st.norm.logpdf(w), axis=1)
          - np.sum(st.norm.logpdf(w, mu, s), axis=1))
    value = sc.logsumexp(lw) - np.log(len(eps))
    return value, _logistic_normal_grad(w, y * logits, lw, x, y, eps, s)


def logistic_normal_inputs(n, d, samples, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    y = np.where(rng.uniform(size=n) < sc.expit(x @ rng.normal(size=d)), 1.0, -1.0)
    return rng.normal(scale=0.1, size=d), np.full(d, -1.0), x, y, rng.normal(size=(samples, d))


# -- a Gaussian process's marginal likelihood ---------------------------------------------

def gp_nll(log_ell, log_sf, log_sn, d2, y):
    """The negative log marginal likelihood of a GP with a squared-exponential kernel
    (length scale ``exp(log_ell)``, signal and noise scales ``exp(log_sf)``,
    ``exp(log_sn)``), ``d2`` the squared distances between the inputs."""
    k = np.exp(2 * log_sf - 0.5 * d2 / np.exp(2 * log_ell)) + np.exp(2 * log_sn) * np.eye(len(y))
    low = sl.cholesky(k, lower=True)
    alpha = sl.cho_solve((low, True), y)
    sign, logdet = np.linalg.slogdet(k)
    return 0.5 * (y @ alpha) + 0.5 * logdet + 0.5 * len(y) * np.log(2 * np.pi)


def gp_nll_factor(log_ell, log_sf, log_sn, d2, y):
    """:func:`gp_nll` with ``log det K`` read from the Cholesky factor's diagonal (as
    GPML writes it) instead of ``slogdet``."""
    k = np.exp(2 * log_sf - 0.5 * d2 / np.exp(2 * log_ell)) + np.exp(2 * log_sn) * np.eye(len(y))
    low = sl.cholesky(k, lower=True)
    alpha = sl.cho_solve((low, True), y)
    logdet = 2 * np.sum(np.log(np.diag(low)))
    return 0.5 * (y @ alpha) + 0.5 * logdet + 0.5 * len(y) * np.log(2 * np.pi)


def gp_hand(log_ell, log_sf, log_sn, d2, y):
    """The value and gradient of :func:`gp_nll`, written out (GPML's formulas): one
    Cholesky factor, ``log det`` from its diagonal, ``dL/dK = (K^-1 - a a^T) / 2``."""
    n = len(y)
    kf = np.exp(2 * log_sf - 0.5 * d2 / np.exp(2 * log_ell))
    k = kf + np.exp(2 * log_sn) * np.eye(n)
    low = sl.cholesky(k, lower=True)
    alpha = sl.cho_solve((low, True), y)
    value = 0.5 * (y @ alpha) + np.sum(np.log(np.diag(low))) + 0.5 * n * np.log(2 * np.pi)
    dk = 0.5 * (sl.cho_solve((low, True), np.eye(n)) - np.outer(alpha, alpha))
    d_ell = np.sum(dk * kf * d2) / np.exp(2 * log_ell)
    d_sf = 2 * np.sum(dk * kf)
    d_sn = 2 * np.exp(2 * log_sn) * np.trace(dk)
    return value, (d_ell, d_sf, d_sn)


def gp_hand_scipy(log_ell, log_sf, log_sn, d2, y):
    """The same, the value by the same calls as :func:`gp_nll` (``slogdet`` too)."""
    n = len(y)
    kf = np.exp(2 * log_sf - 0.5 * d2 / np.exp(2 * log_ell))
    k = kf + np.exp(2 * log_sn) * np.eye(n)
    low = sl.cholesky(k, lower=True)
    alpha = sl.cho_solve((low, True), y)
    sign, logdet = np.linalg.slogdet(k)
    value = 0.5 * (y @ alpha) + 0.5 * logdet + 0.5 * n * np.log(2 * np.pi)
    dk = 0.5 * (sl.cho_solve((low, True), np.eye(n)) - np.outer(alpha, alpha))
    d_ell = np.sum(dk * kf * d2) / np.exp(2 * log_ell)
    d_sf = 2 * np.sum(dk * kf)
    d_sn = 2 * np.exp(2 * log_sn) * np.trace(dk)
    return value, (d_ell, d_sf, d_sn)


def gp_inputs(n, d, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, (n, d))
    y = np.sin(x[:, 0]) + 0.1 * rng.normal(size=n)
    d2 = np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    return np.log(0.8), np.log(1.2), np.log(0.1), d2, y


# (name, function, hand-written value and gradient: NumPy only / the function's own SciPy
#  calls for the value, inputs, wrt, sizes)
BENCHES = [("gaussian mixture", mixture_loglik, mixture_hand, mixture_hand_scipy,
            mixture_inputs, (0, 1, 2), [(10_000, 8), (1_000, 4), (100_000, 16)]),
           ("logistic-normal", logistic_normal, logistic_normal_hand,
            logistic_normal_hand_scipy, logistic_normal_inputs, (0, 1),
            [(1000, 10, 64), (200, 5, 16), (10_000, 20, 128)]),
           ("GP, slogdet", gp_nll, gp_hand, gp_hand_scipy, gp_inputs, (0, 1, 2),
            [(200, 2), (50, 2), (800, 3)]),
           ("GP, factor logdet", gp_nll_factor, gp_hand, gp_hand, gp_inputs, (0, 1, 2),
            [(200, 2), (50, 2), (800, 3)])]


def check(value_grad, hand, args):
    v1, g1 = value_grad(*args)
    v2, g2 = hand(*args)
    np.testing.assert_allclose(v1, v2, rtol=1e-10)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


def scipy_section(quick=False, source=False):
    """The table: each benchmark at each size (``quick``: the first), one row each."""
    print("SciPy: value and gradient, srcgrad next to hand-written (ratios: srcgrad / hand)")
    print(f"{'benchmark':<19}{'size':>10}{'srcgrad':>11}{'hand':>11}{'ratio':>7}"
          f"{'hand (SciPy value)':>21}{'ratio':>7}{'f alone / hand':>16}")
    for name, f, hand, hand_scipy, inputs, wrt, sizes in BENCHES:
        value_grad = sg.value_and_grad(f, wrt=wrt)
        if source:
            print(sg.source(f, wrt=wrt))
        for size in sizes[:1] if quick else sizes:
            args = inputs(*size)
            check(value_grad, hand, args)
            check(hand_scipy, hand, args)
            (t_sg, t_hand, t_scipy, _), (_, r_hand, r_scipy, r_f) = interleaved_times(
                [lambda: value_grad(*args), lambda: hand(*args), lambda: hand_scipy(*args),
                 lambda: f(*args)])
            print(f"{name:<19}{'x'.join(map(str, size)):>10}{t_sg * 1e3:>9.3f}ms"
                  f"{t_hand * 1e3:>9.3f}ms{r_hand:>7.2f}{t_scipy * 1e3:>19.3f}ms{r_scipy:>7.2f}"
                  f"{r_hand / r_f:>16.2f}")
            sys.stdout.flush()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="the first size of each benchmark")
    p.add_argument("--source", action="store_true", help="print the generated gradients")
    opts = p.parse_args(argv)
    scipy_section(opts.quick, opts.source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
