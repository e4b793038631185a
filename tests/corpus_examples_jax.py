"""Programs in the style of JAX's shipped examples, on NumPy: a corpus, part 3.

A classifier whose loss takes ``(params, batch)`` with the batch a tuple, Gaussian-process
regression with a ``cov_map`` (JAX's nested ``vmap``, written as a nested comprehension
and as broadcasting), Cholesky factors and triangular solves, hyperparameters in a dict of
``(1, 1)`` arrays and the likelihood made by ``functools.partial`` with a keyword; a ball
bounced off a piecewise-linear board (a loop over segments with ``continue``, a
``return`` inside the loop, chained comparisons, the square root of a discriminant that
is negative for the segments missed); a polynomial least-squares objective written as
one lambda indexing its argument.  Written for this corpus; tests/test_corpus_examples.py
differentiates them.  Parts 1 and 2: tests/corpus_examples_models.py,
tests/corpus_examples_small.py.
"""
from functools import partial

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import logsumexp

from corpus_support import Corpus

_corpus = Corpus(20261204)
CASES, case, register = _corpus.cases, _corpus.case, _corpus.register
randn, uniform = _corpus.randn, _corpus.uniform


def init_params(scale, sizes):
    return [(scale * randn(m, n), scale * randn(n)) for m, n in zip(sizes[:-1], sizes[1:])]


def predict(params, inputs):
    activations = inputs
    for w, b in params[:-1]:
        activations = np.tanh(activations @ w + b)
    final_w, final_b = params[-1]
    logits = activations @ final_w + final_b
    return logits - logsumexp(logits, axis=1, keepdims=True)


BATCH = (randn(6, 4), np.eye(3)[[0, 1, 2, 1, 0, 2]])


@case(init_params(0.5, [4, 5, 3]), BATCH)
def loss_of_params_and_batch(params, batch):
    inputs, targets = batch
    return -np.mean(predict(params, inputs) * targets)


# -- Gaussian-process regression --------------------------------------------------------
def softplus(x):
    return np.logaddexp(x, 0.0)


def exp_quadratic(x1, x2):
    return np.exp(-np.sum((x1 - x2) ** 2))


def cov_map_nested(cov_func, xs, xs2=None):
    """a[i, j] = cov_func(xs[i], xs[j]): JAX's vmap of vmap, as a nested comprehension."""
    if xs2 is None:
        return np.array([[cov_func(x, y) for y in xs] for x in xs])
    return np.array([[cov_func(x, y) for y in xs] for x in xs2]).T


def cov_map_broadcast(cov_func, xs, xs2=None):
    """The same matrix for exp_quadratic, by broadcasting."""
    other = xs if xs2 is None else xs2
    return np.exp(-np.sum((xs[:, None, :] - other[None, :, :]) ** 2, axis=-1)).T


GP_X = uniform(0, 4, 5, 1) + 1
GP_Y = np.sin(GP_X) + 0.1 * randn(5, 1)
GP_TEST = np.linspace(0.0, 6.0, 3)[:, None]


def gp(params, x, y, xtest=None, marginal=False, cov_map=cov_map_nested):
    noise = softplus(params["noise"])
    amp = softplus(params["amplitude"])
    ls = softplus(params["lengthscale"])
    ymean = np.mean(y)
    y = y - ymean
    x = x / ls
    train_cov = amp * cov_map(exp_quadratic, x) + np.eye(len(x)) * (noise + 1e-6)
    chol = np.linalg.cholesky(train_cov)
    kinvy = solve_triangular(chol.T, solve_triangular(chol, y, lower=True))
    if marginal:
        ml = np.sum(-0.5 * np.dot(y.T, kinvy) - np.sum(np.log(np.diag(chol)))
                    - (len(x) / 2.0) * np.log(2.0 * np.pi))
        ml -= np.sum(-0.5 * np.log(2 * np.pi) - np.log(amp) ** 2)
        return -ml
    xtest = xtest / ls
    cross = amp * cov_map(exp_quadratic, x, xtest)
    mu = np.dot(cross.T, kinvy) + ymean
    v = solve_triangular(chol, cross, lower=True)
    return mu, amp * cov_map(exp_quadratic, xtest) - np.dot(v.T, v)


def gp_hyperparameters():
    return {"amplitude": np.zeros((1, 1)) + 0.2, "noise": np.zeros((1, 1)) - 2.0,
            "lengthscale": np.zeros((1, 1)) + 0.1}


register("gp_marginal_likelihood_partial_nested_map", partial(gp, marginal=True),
         gp_hyperparameters(), GP_X, GP_Y)
register("gp_marginal_likelihood_broadcast_map",
         partial(gp, marginal=True, cov_map=cov_map_broadcast), gp_hyperparameters(), GP_X, GP_Y)


@case(gp_hyperparameters(), GP_X)
def gp_predictive_summary(params, x):
    mu, var = gp(params, x, GP_Y, GP_TEST)
    return np.sum(mu) + np.sum(np.diag(var))


# -- a ball bounced off a piecewise-linear board -----------------------------------------
GRAVITY, STEP, TOP = -9.8, 0.1, 10.0
HOOP = (10.0, 8.0)


def board_lines(board):
    lines = []
    for i, (a, b) in enumerate(zip(board, board[1:])):
        y0, y1 = TOP - i * STEP, TOP - (i + 1) * STEP
        slope = (y1 - y0) / ((b + 10) - (a + 10))
        lines.append([slope, y1 - (b + 10) * slope])
    return lines


def hit_times(k, l, x0, y0, vx, vy):
    c = y0 - k * x0 - l
    b = vy - k * vx
    a = 0.5 * GRAVITY
    root = np.sqrt(b ** 2 - 4 * a * c)
    t1, t2 = (-b - root) / (2 * a), (-b + root) / (2 * a)
    return t1, t2, y0 + vy * t1 + 0.5 * GRAVITY * t1 ** 2, y0 + vy * t2 + 0.5 * GRAVITY * t2 ** 2


def miss_distance(t, y, x0, vx, vy):
    xb = x0 + vx * t - 0.81 * vx * 0.1
    yb = y - 0.81 * (vy + GRAVITY * t) * 0.1 + 0.5 * GRAVITY * 0.01
    return np.sqrt((xb - HOOP[0]) ** 2 + (yb - HOOP[1]) ** 2)


def bounce(board, x0, y0, vx, vy):
    for i, (k, l) in enumerate(board_lines(board)):
        t1, t2, y1, y2 = hit_times(k, l, x0, y0, vx, vy)
        low, high = TOP - (i + 1) * STEP, TOP - i * STEP
        if t1 > 0 and low < y1 < high:
            t, y = t1, y1
        elif t2 > 0 and low < y2 < high:
            t, y = t2, y2
        else:
            continue
        return miss_distance(t, y, x0, vx, vy)
    return 0.0


BOARD = uniform(0, 1, 6)
register("bounce_off_a_board_all_missed", bounce, BOARD, 0.0, 5.0, 8.0, 8.5)


@case(uniform(-0.05, 0.05, 4), 7.0, 1.0)
def bounce_off_a_board_hit(board, vx, vy):
    # a board near x = 10 below height 10: thrown from (9.5, 9.9), the ball meets a segment
    return bounce(board, 9.5, 9.9, vx, vy)


# -- least squares as one lambda ------------------------------------------------------------
freudenstein_roth = lambda x: (
    (-13 + x[0] + ((5 - x[1]) * x[1] - 2) * x[1]) ** 2
    + (-29 + x[0] + ((x[1] + 1) * x[1] - 14) * x[1]) ** 2
    + (-13 + x[2] + ((5 - x[3]) * x[3] - 2) * x[3]) ** 2
    + (-29 + x[2] + ((x[3] + 1) * x[3] - 14) * x[3]) ** 2)
register("least_squares_lambda", freudenstein_roth, np.array([1.0, -1.0, 1.0, -1.0]))
