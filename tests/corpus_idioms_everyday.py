"""The Python people really write, part 4: everyday idioms of scripts and answers on
the web -- enumerate, zip, sorted, max with a key, dict comprehensions, f-strings,
print, assert, isinstance branches, early returns, while loops, nested helpers with
defaults and keyword-only arguments, functools.partial / reduce, map / filter,
decorators that forward ``*args`` / ``**kwargs``, imports inside functions, ``with``
blocks, ``try``, generators, ``global`` reads.

See tests/corpus_idioms.py for the conventions.
"""
import functools
import itertools
import math
import operator
from functools import partial, reduce

import numpy as np

import srcgrad as sg

from corpus_support import Corpus

_corpus = Corpus(20261204)            # this module's programs and inputs
CASES, case, register = _corpus.cases, _corpus.case, _corpus.register
randn, uniform = _corpus.randn, _corpus.uniform


X_SMALL = randn(6, 3)
Y = randn(6)
XS = [randn(3), randn(3), randn(3), randn(3)]


@case(randn(3), randn(4))
def enumerate_weighted_powers(ws, x):
    return sum(w * np.sum(x ** (i + 1)) for i, w in enumerate(ws))


@case(XS, [randn(3) for _ in range(4)])
def zip_two_lists_of_arrays(xs, ys):
    total = 0.0
    for x, y in zip(xs, ys):
        total += np.dot(x, y) ** 2
    return total


@case(XS)
def sorted_with_key_top_two(xs):
    ranked = sorted(xs, key=lambda v: np.sum(v ** 2), reverse=True)
    return sum(np.sum(np.sin(v)) for v in ranked[:2])


@case(XS)
def max_with_key(candidates):
    best = max(candidates, key=lambda c: np.sum(c))
    worst = min(candidates, key=np.sum)
    return np.sum(best ** 2) - np.sum(np.exp(worst))


@case(randn(5), {"mse": 1.0, "l1": 0.5, "cos": 0.2})
def dict_comprehension_of_losses(x, weights):
    losses = {"mse": lambda v: np.mean(v ** 2),
              "l1": lambda v: np.sum(np.sqrt(v ** 2 + 1e-2)),
              "cos": lambda v: np.sum(np.cos(v))}
    values = {name: fn(x) for name, fn in losses.items()}
    return sum(weights[k] * v for k, v in values.items())


@case(randn(4), False)
def fstrings_and_print(x, verbose):
    loss = np.sum(np.tanh(x) ** 2)
    msg = f"loss={loss:.4f} over {x.size} values"
    if verbose:
        print(msg)
    print(f"{len(msg)} characters", end="")
    return loss


@case(X_SMALL, randn(3))
def assert_shape_checks(X, w):
    assert X.ndim == 2, f"expected a matrix, got shape {X.shape}"
    assert X.shape[1] == w.shape[0], "dimensions do not match"
    return np.sum(np.log1p(np.exp(X @ w)))


def as_array(x):
    if isinstance(x, (list, tuple)):
        return np.stack(x)
    elif isinstance(x, float):
        return np.array([x])
    return x


@case(XS, 0.7, randn(2, 3))
def isinstance_branches(a, b, c):
    return sum(np.sum(as_array(v) ** 2) for v in (a, b, c))


def safe_log_barrier(x, t):
    if np.any(x <= 0):
        return np.inf
    return -np.sum(np.log(x)) / t


@case(uniform(0.5, 2.0, 4), 2.0)
def early_returns(x, t):
    if t > 10:
        return np.sum(x)
    value = safe_log_barrier(x, t)
    if not np.isfinite(value):
        return 0.0
    return value + np.sum(x ** 2)


@case(uniform(1.0, 3.0, 3))
def newton_sqrt_while_loop(a):
    x = np.ones_like(a)
    while np.max(np.abs(x * x - a)) > 1e-12:
        x = 0.5 * (x + a / x)
    return np.sum(x ** 3)


def smooth_l1(d, *, beta=1.0):
    ad = np.abs(d)
    return np.where(ad < beta, 0.5 * d ** 2 / beta, ad - 0.5 * beta)


def robust_loss(pred, target, scale=1.0, *, kind="huber", beta=0.5):
    r = (pred - target) / scale
    if kind == "huber":
        return np.sum(smooth_l1(r, beta=beta))
    return np.sum(np.log1p(r ** 2))


@case(randn(3), X_SMALL, Y)
def keyword_only_helpers(w, X, y):
    pred = X @ w
    return robust_loss(pred, y, kind="huber", beta=0.8) + robust_loss(pred, y, 2.0, kind="cauchy")


def huber(r, delta):
    return np.where(np.abs(r) <= delta, 0.5 * r ** 2, delta * (np.abs(r) - 0.5 * delta))


@case(randn(3), X_SMALL, Y)
def partial_of_named_function(w, X, y):
    h = partial(huber, delta=0.7)
    return np.sum(h(X @ w - y))


@case(XS)
def reduce_operator_add(xs):
    total = reduce(operator.add, [x ** 2 for x in xs])
    prod = reduce(lambda a, b: a * b, xs, np.ones(3))
    return np.sum(total) + np.sum(prod)


@case(XS)
def map_with_named_functions(xs):
    squashed = list(map(np.tanh, xs))
    return sum(map(np.sum, squashed)) + np.sum(np.stack(list(map(np.square, xs))))


@case([randn(2), randn(4), randn(3), randn(5)])
def filter_with_lambda(arrays):
    big = filter(lambda v: v.shape[0] > 2, arrays)
    return sum(np.sum(v ** 2) for v in big)


def clip_output(lo, hi):
    def deco(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            return np.clip(f(*args, **kwargs), lo, hi)
        return wrapper
    return deco


def logged(f):
    def wrapper(*args, **kwargs):
        result = f(*args, **kwargs)
        return result
    return wrapper


@clip_output(-5.0, 5.0)
def linear(x, w, bias=0.0):
    return x @ w + bias


@logged
def squared_error(pred, y):
    return (pred - y) ** 2


@case(randn(3, scale=0.5), X_SMALL, Y)
def decorators_forwarding_varargs(w, X, y):
    return np.sum(squared_error(linear(X, w, bias=0.1), y))


@case(randn(4), 1.3)
def imports_inside_function(x, s):
    import math
    from scipy.special import logsumexp
    return logsumexp(x * s) + math.pi * s ** 2


@case(uniform(0.2, 2.0, 4))
def with_np_errstate(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x) / x
    return np.sum(y ** 2)


@case(XS)
def walrus_in_comprehension(xs):
    kept = [y for v in xs if (y := np.sum(v ** 2)) > 0.5]
    return sum(kept)


@case(randn(5))
def any_all_guards(x):
    if all(abs(v) < 10 for v in x) and any(v > 0 for v in x):
        return np.sum(x ** 3)
    return np.sum(x)


@case(randn(3, 3, scale=0.5), randn(4, 3))
def append_then_stack(W, xs):
    outs = []
    for x in xs:
        outs.append(np.tanh(W @ x))
    H = np.stack(outs)
    return np.sum(H.T @ H)


@case(0.3, 0.8)
def tuple_swap_fibonacci_like(a, b):
    for _ in range(5):
        a, b = b, a * b + 0.5
    return a + b


@case({f"layer{i}": randn(3, 3, scale=0.5) for i in range(3)}, randn(3))
def fstring_keyed_params(params, x):
    for i in range(len(params)):
        x = np.sin(params[f"layer{i}"] @ x)
    return np.sum(x)


@case({"w": randn(3), "b": 0.4}, X_SMALL)
def dict_get_with_default(params, X):
    scale = params.get("scale", 1.0)
    bias = params.get("b", 0.0)
    return np.sum(np.tanh(scale * (X @ params["w"]) + bias))


@case(randn(6), 0.2)
def np_where_masks(x, thresh):
    y = np.where(x > thresh, x ** 2, np.sin(x))
    return np.sum(y * (x < 1.5))


@case(randn(7))
def reversed_slices(x):
    return np.sum(x[::-1] * x) + np.sum(x[::2] ** 2) - np.sum(x[-3:] * x[:3])


@case(randn(4, 3))
def array_methods(A):
    G = A.T @ A
    return G.trace() + A.ravel().dot(A.reshape(-1)) + A.sum(axis=0).max() + A.mean()


@case(1.3, 0.4)
def math_module_on_floats(a, b):
    return math.sqrt(a * a + b * b) + math.sin(a) * math.exp(-b) + math.log(a) + math.pi * b


@case(randn(5), 2)
def conditional_expression_in_comprehension(x, p):
    vals = [v ** p if v > 0 else -np.abs(v) ** 1.5 for v in x]
    return sum(vals)


@case(randn(5))
def nested_comprehension_two_fors(x):
    n = len(x)
    return sum(x[i] * x[j] for i in range(n) for j in range(i + 1, n))


@case(randn(4, 2), np.array([3, 1, 4, 1, 5]))
def set_comprehension_of_indices(E, labels):
    idx = sorted({int(i) % 4 for i in labels})
    return np.sum(E[idx] ** 2)


@case(randn(3), randn(3))
def enumerate_zip_start(a, b):
    return sum(k * ai * bi for k, (ai, bi) in enumerate(zip(a, b), start=1))


@case(randn(4, 2))
def itertools_combinations_pairwise(points):
    energy = 0.0
    for p, q in itertools.combinations(points, 2):
        energy = energy + 1.0 / np.sqrt(np.sum((p - q) ** 2) + 0.1)
    return energy


LEARNING_RATE = 0.1
CONFIG = {"l2": 0.01, "steps": 3}


@case(randn(3), X_SMALL, Y)
def global_config_reads(w, X, y):
    for _ in range(CONFIG["steps"]):
        w = w - LEARNING_RATE * (X.T @ (X @ w - y) / len(y) + CONFIG["l2"] * w)
    return np.sum((X @ w - y) ** 2)


def check_positive(x):
    if np.any(x <= 0):
        raise ValueError("expected positive values")
    return x


@case(uniform(0.5, 2.0, 4))
def raise_branch_not_taken(x):
    return np.sum(np.log(check_positive(x)) ** 2)


@case(randn(3, 3), randn(3))
def try_except_cholesky(A, b):
    K = A @ A.T + 0.5 * np.eye(3)
    try:
        L = np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        L = np.eye(3)
    z = np.linalg.solve(L, b)
    return np.sum(z ** 2) + 2 * np.sum(np.log(np.diag(L)))


@case(randn(4), 2.0)
def try_finally_in_loss(x, s):
    out = 0.0
    try:
        out = np.sum(np.sin(s * x))
    finally:
        steps = 1
    return out * steps


def minibatches(X, y, size):
    for i in range(0, len(X), size):
        yield X[i:i + size], y[i:i + size]


@case(randn(3), X_SMALL, Y)
def generator_minibatches(w, X, y):
    total = 0.0
    for Xb, yb in minibatches(X, y, 2):
        total = total + np.sum((Xb @ w - yb) ** 2)
    return total


@case(randn(3), X_SMALL)
def generator_expression_into_tuple(w, X):
    feats = tuple(np.tanh(row @ w) for row in X)
    return sum(feats[::2]) - max(feats)


@case(randn(4))
def lambda_returning_tuple(x):
    stats = lambda v: (np.mean(v), np.std(v))
    m, s = stats(np.exp(x))
    return m / s


MATRIX_ROWS = [[float(v) for v in randn(3)] for _ in range(3)]


@case(MATRIX_ROWS)
def zip_star_transpose_list_of_lists(rows):
    cols = [list(c) for c in zip(*rows)]
    return sum(sum(a * b for a, b in zip(r, c)) for r, c in zip(rows, cols))


@case(1.1, -0.4, 0.3)
def np_array_of_scalars(a, b, c):
    v = np.array([a * b, b + c, np.sin(c), a ** 2])
    M = np.array([[a, b], [c, a]])
    return np.sum(v ** 2) + np.linalg.det(M)


@case(randn(6))
def consecutive_differences(xs):
    return sum((xs[i + 1] - xs[i]) ** 2 for i in range(len(xs) - 1))


@case(randn(2, 2), randn(2), randn(3))
def dict_from_zip(W, b, c):
    names = ["W", "b", "c"]
    params = dict(zip(names, [W, b, c]))
    return np.sum(params["W"] @ params["b"]) + np.sum(params["c"] ** 2)


def total(*terms):
    return sum(terms)


@case(randn(3), 0.5)
def star_args_sum(x, s):
    parts = [np.sum(x ** 2), s * np.sum(x), np.sum(np.cos(x))]
    return total(*parts) + total(s, s ** 2)


def scaled(x, **kwargs):
    scale = kwargs.get("scale", 1.0)
    shift = kwargs.pop("shift", 0.0)
    return scale * x + shift


@case(randn(3), 2.0)
def kwargs_get_and_pop(x, s):
    opts = {"scale": s, "shift": 0.5}
    return np.sum(scaled(x, **opts) ** 2) + np.sum(scaled(x))


def energy(*, w, x):
    return np.sum((w * x) ** 2)


@case(randn(3), randn(3))
def call_by_keyword(w, x):
    return energy(x=x, w=w) + energy(w=x, x=w)


@case(randn(4), randn(4, 3))
def norms_and_clips(v, A):
    return (np.linalg.norm(v) + np.linalg.norm(A, ord="fro") + np.sum(np.clip(v, -0.5, 0.5))
            + np.linalg.norm(v, ord=1))


@case(randn(5), randn(3))
def inplace_accumulation_in_loop(x, w):
    out = np.zeros(len(x) - 2)
    for i in range(len(out)):
        out[i] = np.dot(x[i:i + 3], w)
    out += 0.1 * x[:len(out)]
    return np.sum(out ** 2)


@case(randn(3, 4), randn(4, 2), randn(3, 2))
def einsum_contraction(A, B, C):
    return np.einsum("ij,jk,ik->", A, B, C) + np.sum(np.einsum("ij,ij->i", A @ B, C) ** 2)


@case(uniform(0.1, 0.9, 4))
def chained_comparisons(t):
    total = 0.0
    for ti in t:
        if 0.0 < ti < 0.5:
            total = total + ti ** 2
        elif 0.5 <= ti < 1.0:
            total = total + np.sqrt(ti)
    return total


@case(randn(4), "tanh")
def function_chosen_by_string(x, kind):
    act = np.tanh if kind == "tanh" else np.sin
    return np.sum(act(x) ** 2)


@case(randn(4), ["tanh", "exp", "sin"])
def getattr_numpy_by_name(x, names):
    return sum(np.sum(getattr(np, name)(x)) for name in names)


@case(randn(4))
def operator_module_functions(x):
    return np.sum(reduce(operator.mul, [x, np.cos(x), x + 1])) + operator.neg(np.sum(x))


@case(randn(4), randn(4))
def sorted_pairs_of_scores(scores, values):
    pairs = sorted(zip(scores, values))
    return sum(k * v for k, (_, v) in enumerate(pairs))


@case(randn(3))
def grad_inside_function(x):
    f = lambda v: np.sum(np.sin(v) * v)
    g = sg.grad(f)(x)
    return np.sum(g * x)


@case(randn(3))
def elementwise_grad_of_grad(x):
    d1 = sg.grad(lambda v: np.sum(np.tanh(v)))
    d2 = sg.grad(lambda v: np.sum(d1(v)))
    return np.sum(d2(x) ** 2)


@case(randn(3), randn(3))
def jvp_inside_function(x, v):
    _, tangent = sg.jvp(lambda u: np.sin(u) * u, (x,), (v,))
    return np.sum(tangent ** 2)


@case(randn(3), X_SMALL, Y)
def value_and_grad_inside_function(w, X, y):
    loss = lambda w: np.mean((X @ w - y) ** 2)
    value, g = sg.value_and_grad(loss)(w)
    return value + np.dot(g, g)


@case(randn(4))
def ufunc_grad_passed_directly(x):
    dsin = sg.grad(np.sin)
    return sum(dsin(float(v)) for v in x) + np.sum(np.sin(x))


@case(randn(4))
def running_max_with_builtin(x):
    best = -np.inf
    for v in x:
        best = max(best, v)
    return best ** 2 + sum(x)


@case(randn(3, 3))
def list_index_and_count_idioms(M):
    rows = [M[i] for i in range(3)]
    norms = [float(np.sum(r ** 2)) for r in rows]
    i = norms.index(max(norms))
    return np.sum(rows[i] ** 2) + len(rows) * np.sum(rows[0])


@case(randn(4))
def local_helper_with_default_closure(x, eps=1e-3):
    def soft_abs(v, e=eps):
        return np.sqrt(v * v + e)
    return np.sum(soft_abs(x)) + np.sum(soft_abs(x, e=0.1))
