"""Programs that mix the idioms people write in one function: a corpus, part 4.

Nets with list-of-tuples parameters built and consumed by comprehensions, ``make_*``
factories returning closures that call each other, RNN and LSTM cells with ``*args``
helpers, mixture models with ``zip(*...)``, recursive tree code, plain objects,
dataclasses and namedtuples built and read in the body, generators, ``try``/``except``,
and ``sg.grad`` called inside the differentiated function.  Written for this corpus;
the first argument of most programs is a small flat array, so that
tests/test_corpus_examples.py also checks their Hessian-vector products.
"""
import functools
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

import srcgrad as sg
from corpus_support import Corpus

_corpus = Corpus(20261215)
CASES, case, register = _corpus.cases, _corpus.case, _corpus.register
randn, uniform = _corpus.randn, _corpus.uniform

X4 = randn(5, 4)
Y4 = randn(5)


def unflatten(theta, shapes):
    """A flat vector as a list of (W, b) pairs of these shapes."""
    out, start = [], 0
    for m, n in shapes:
        W = theta[start:start + m * n].reshape(m, n)
        start += m * n
        b = theta[start:start + n]
        start += n
        out.append((W, b))
    return out


# -- nets with list-of-tuples parameters -----------------------------------------------
@case(randn(4 * 2 + 2 + 2 * 1 + 1, scale=0.5), X4, Y4)
def flat_params_mlp_comprehension(theta, X, y):
    params = unflatten(theta, [(4, 2), (2, 1)])
    h = X
    for W, b in params[:-1]:
        h = np.tanh(h @ W + b)
    W, b = params[-1]
    pred = (h @ W + b)[:, 0]
    return np.mean((pred - y) ** 2) + 0.01 * sum(np.sum(W ** 2) for W, _ in params)


@case(randn(6, scale=0.5), X4[:, :3])
def layer_sizes_zip_pairs(theta, X):
    sizes = [3, 2]
    Ws = [theta[:6].reshape(3, 2)]
    acts = [np.tanh]
    h = X
    for W, act, n in zip(Ws, acts, sizes[1:]):
        h = act(h @ W) * (1.0 / n)
    return np.sum(h ** 2)


@case(randn(5), X4[:, :1] * np.ones((1, 5)))
def residual_blocks_enumerate(w, X):
    h = X
    for i, scale in enumerate([0.5, 0.25, 0.125]):
        h = h + scale * np.sin(h * w) * (i + 1)
    return np.mean(h)


@case(randn(4), X4)
def logistic_regression_dict_of_stats(w, X):
    logits = X @ w
    stats = {"pos": np.sum(np.logaddexp(0.0, -logits)), "neg": np.sum(logits ** 2) * 0.1}
    return sum(stats[k] for k in sorted(stats))


@case(randn(3), randn(4, 3))
def softmax_attention_list_of_rows(q, K):
    scores = [np.dot(q, k) for k in K]
    m = max(scores)
    weights = [np.exp(s - m) for s in scores]
    total = sum(weights)
    return sum(w / total * np.sum(k ** 2) for w, k in zip(weights, K))


# -- make_* factories ---------------------------------------------------------------------
def make_regularized_loss(X, y, lam):
    def predict(w):
        return np.tanh(X @ w)

    def data_term(w):
        return np.mean((predict(w) - y) ** 2)

    def loss(w):
        return data_term(w) + lam * np.sum(w ** 2)
    return loss


register("factory_closures_calling_each_other", make_regularized_loss(X4, Y4, 0.1), randn(4))


def make_schedule(n, decay):
    weights = [decay ** k for k in range(n)]

    def objective(w):
        return sum(c * np.sum(np.cos(w * (k + 1))) for k, c in enumerate(weights))
    return objective


register("factory_closure_over_a_list", make_schedule(3, 0.5), randn(3))


def make_penalized(base, penalty):
    return lambda w: base(w) + penalty(w)


register("factory_of_lambdas_over_closures",
         make_penalized(make_regularized_loss(X4, Y4, 0.0), lambda w: np.sum(np.abs(w) ** 1.5)),
         randn(4))


def make_counter_model(coeffs):
    def poly(x):
        acc = 0.0
        for c in reversed(coeffs):
            acc = acc * x + c
        return acc
    return poly


@case(randn(4, scale=0.5))
def horner_closure_mapped(x):
    poly = make_counter_model([0.3, -1.2, 0.7, 0.25])
    return np.sum(np.array(list(map(poly, x))))


@case(randn(3), 2.0)
def partial_of_a_closure(w, c):
    def scaled_norm(s, v):
        return s * np.sum(v ** 2) + np.sum(np.sin(v))
    f = functools.partial(scaled_norm, c)
    return f(w) + f(w * 0.5)


# -- RNN / LSTM with *args helpers ------------------------------------------------------
def sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1.0)


def concat_and_multiply(weights, *args):
    cat_state = np.concatenate(args + (np.ones((args[0].shape[0], 1)),), axis=1)
    return cat_state @ weights


@case(randn(4 * 2 * 4, scale=0.3), randn(3, 2, 1))
def lstm_starred_helper(theta, seq):
    hidden = 2
    Ws = [theta[k * 8:(k + 1) * 8].reshape(4, 2) for k in range(4)]
    h = np.zeros((2, hidden))
    c = np.zeros((2, hidden))
    for x in seq:
        gates = [concat_and_multiply(W, x, h) for W in Ws]
        i, f, o = (sigmoid(g) for g in gates[:3])
        c = f * c + i * np.tanh(gates[3])
        h = o * np.tanh(c)
    return np.sum(h ** 2) + np.sum(c)


def gru_step(params, h, x):
    Wz, Wr, Wh = params
    z = sigmoid(concat_and_multiply(Wz, x, h))
    r = sigmoid(concat_and_multiply(Wr, x, h))
    cand = np.tanh(concat_and_multiply(Wh, x, r * h))
    return (1 - z) * h + z * cand


@case(randn(3 * 4 * 2, scale=0.4), randn(4, 1, 1))
def gru_reduce_over_steps(theta, seq):
    params = tuple(theta[k * 8:(k + 1) * 8].reshape(4, 2) for k in range(3))
    h0 = np.zeros((1, 2))
    h = functools.reduce(lambda h, x: gru_step(params, h, x), seq, h0)
    return np.sum(h)


@case(randn(3), randn(2, 3, scale=0.5))
def rnn_kwargs_helper(w, xs):
    def cell(h, x, **opts):
        return np.tanh(opts.get("gain", 1.0) * (h * w + x))
    h = np.zeros(3)
    for x in xs:
        h = cell(h, x, gain=1.5)
    return np.sum(h * w)


@case(randn(2), randn(5))
def scan_with_starred_targets(w, xs):
    first, *rest = xs
    state = first * w
    for x in rest:
        state = np.sin(state) + x * w[::-1]
    *_, last = list(state)
    return last + np.sum(state)


# -- mixture models with zip(*...) ------------------------------------------------------
@case(randn(3), randn(3, scale=0.3), randn(6))
def gmm_zip_star_components(means, log_stds, data):
    comps = [(m, s, 1.0 / 3) for m, s in zip(means, log_stds)]
    mus, sigs, pis = zip(*comps)
    logps = [np.log(p) - 0.5 * ((data - m) / np.exp(s)) ** 2 - s
             for m, s, p in zip(mus, sigs, pis)]
    stacked = np.stack(logps)
    mx = np.max(stacked, axis=0)
    return -np.sum(mx + np.log(np.sum(np.exp(stacked - mx), axis=0)))


@case(randn(4), randn(8))
def mixture_pairs_unzipped(params, data):
    pairs = [(params[0], params[1]), (params[2], params[3])]
    locs, scales = zip(*pairs)
    dens = sum(np.exp(-0.5 * (data - l) ** 2 / (1.0 + s ** 2)) / np.sqrt(1.0 + s ** 2)
               for l, s in zip(locs, scales))
    return -np.sum(np.log(dens + 1e-3))


@case(randn(3), randn(3, 2))
def transposed_rows_with_zip_star(w, M):
    cols = [np.array(c) for c in zip(*M)]
    return sum(np.sum(np.tanh(c * w)) for c in cols)


# -- recursion over trees -------------------------------------------------------------------
TREE = ((0, 1), (2, (3, 0)))


def tree_value(node, leaves, w):
    if isinstance(node, int):
        return leaves[node]
    left, right = node
    return np.tanh(w[0] * tree_value(left, leaves, w) + w[1] * tree_value(right, leaves, w))


@case(randn(2), randn(4), TREE)
def recursive_tree_net(w, leaves, tree):
    return tree_value(tree, leaves, w) ** 2


def depth_sum(x, depth):
    if depth == 0:
        return np.sum(x)
    return depth_sum(np.sin(x) * 0.9, depth - 1) + 0.1 * np.sum(x ** 2)


@case(randn(3), 3)
def recursion_depth_from_data(x, depth):
    return depth_sum(x, depth)


def hmm_forward(log_alpha, trans, emissions):
    if not emissions:
        return log_alpha
    e, *rest = emissions
    m = np.max(log_alpha)
    alpha = np.log(np.exp(log_alpha - m) @ trans) + m + e
    return hmm_forward(alpha, trans, rest)


@case(randn(2), [randn(2) for _ in range(3)])
def recursive_hmm_with_starred_rest(init, emissions):
    trans = np.array([[0.9, 0.1], [0.2, 0.8]])
    la = hmm_forward(init, trans, emissions)
    return np.log(np.sum(np.exp(la)))


# -- objects, dataclasses, namedtuples --------------------------------------------------
class Affine:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return x @ self.W + self.b


class Chain:
    def __init__(self, layers, act=np.tanh):
        self.layers = layers
        self.act = act

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = self.act(layer(x))
        return self.layers[-1](x)


@case(randn(4 * 3 + 3, scale=0.5), X4)
def chain_of_callable_objects(theta, X):
    (W1, b1), = unflatten(theta, [(4, 3)])
    model = Chain([Affine(W1, b1), Affine(W1[:3, :], b1)])
    return np.sum(model.forward(X) ** 2)


@dataclass
class Normal:
    loc: np.ndarray
    log_scale: np.ndarray

    def log_prob(self, x):
        return np.sum(-0.5 * ((x - self.loc) / np.exp(self.log_scale)) ** 2 - self.log_scale)


@case(randn(4), randn(4, scale=0.2))
def dataclass_built_inside(theta, x):
    q = Normal(theta[:2], theta[2:])
    p = Normal(np.zeros(2), np.zeros(2))
    return q.log_prob(x[:2]) - p.log_prob(x[2:]) + np.sum(q.loc * q.log_scale)


Params = namedtuple("Params", ["w", "b"])


@case(randn(3), randn(4, 3))
def namedtuple_built_and_replaced(w, X):
    p = Params(w=w, b=0.5)
    p = p._replace(b=p.b + np.sum(w))
    return np.sum(np.tanh(X @ p.w + p.b))


class Accumulator:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def add(self, v):
        self.total = self.total + v
        self.count += 1
        return self


@case(randn(4))
def object_attribute_writes_inside(x):
    acc = Accumulator()
    for v in x:
        acc.total = acc.total + v ** 2
        acc.count += 1
    return acc.total / acc.count


class Scaled:
    scale = 2.0

    def __init__(self, v):
        self.v = v

    def energy(self):
        return self.scale * np.sum(self.v ** 2) + self.other()

    def other(self):
        return np.sum(np.sin(self.v))


@case(randn(3))
def method_calling_method_with_class_constant(x):
    return Scaled(x * 1.5).energy() + Scaled(x).other()


@case([Affine(randn(3, 2, scale=0.5), randn(2)), Affine(randn(2, 2, scale=0.5), randn(2))],
      randn(4, 3))
def objects_in_a_list_parameter(layers, X):
    h = X
    for layer in layers:
        h = np.tanh(layer(h))
    return np.sum(h)


# -- generators, try/except, with, statements ------------------------------------------------
def minibatches(X, size):
    for start in range(0, X.shape[0], size):
        yield X[start:start + size]


@case(randn(4), X4)
def generator_of_minibatches(w, X):
    total = 0.0
    for Xb in minibatches(X, 2):
        total = total + np.sum(np.tanh(Xb @ w))
    return total


def pairs_of(xs):
    prev = None
    for x in xs:
        if prev is not None:
            yield prev, x
        prev = x


@case(randn(5))
def generator_of_pairs(x):
    return sum((b - a) ** 2 * np.cos(a) for a, b in pairs_of(x))


@case(randn(3), randn(3, 3))
def try_cholesky_else_jitter(x, A):
    K = A @ A.T + np.eye(3)
    try:
        L = np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(K + 1e-3 * np.eye(3))
    z = np.linalg.solve(L, x)
    return np.sum(z ** 2) + 2 * np.sum(np.log(np.diag(L)))


def safe_log(v):
    try:
        if np.any(v <= 0):
            raise ValueError("non-positive")
        return np.log(v)
    except ValueError:
        return np.log(np.abs(v) + 1.0)


@case(randn(4))
def try_raise_inside_helper(x):
    return np.sum(safe_log(x ** 2 + 0.1)) + np.sum(safe_log(x))


@case(randn(4))
def walrus_and_errstate(x):
    with np.errstate(divide="ignore"):
        if (n := np.sum(x ** 2)) > 1.0:
            y = x / np.sqrt(n)
        else:
            y = x * n
    return np.sum(y * np.arange(4.0))


@case(randn(4), {"a": 0.5, "b": -1.5})
def dict_params_comprehension(x, coeffs):
    terms = {k: c * np.sum(np.sin(x * (i + 1))) for i, (k, c) in enumerate(sorted(coeffs.items()))}
    return sum(terms.values()) + coeffs["a"] * coeffs["b"]


@case(randn(5))
def sorted_and_filtered_lambdas(x):
    vals = sorted([x[i] * (i + 1) for i in range(5)], key=lambda v: -abs(v))
    kept = list(filter(lambda v: v > -10.0, vals))
    return sum(v ** 2 * 0.1 for v in kept[:3]) + max(kept) - min(kept)


# -- sg.grad inside the differentiated function --------------------------------------------
def energy(x):
    return np.sum(np.cos(x) * x ** 2)


@case(randn(3))
def gradient_norm_penalty(x):
    g = sg.grad(energy)(x)
    return energy(x) + 0.5 * np.sum(g ** 2)


@case(randn(3))
def elementwise_grad_of_grad(x):
    d1 = sg.grad(lambda v: np.sum(np.tanh(v)))
    d2 = sg.grad(lambda v: np.sum(d1(v)))
    return np.sum(d2(x) * x)


@case(randn(3), randn(3))
def closure_gradient_inside(w, x):
    def inner(v):
        return np.sum(np.sin(w * v))
    return np.sum(sg.grad(inner)(x) ** 2)


@case(randn(3), randn(4, 3), randn(4))
def meta_learning_inner_step(w, X, y):
    def loss(v):
        return np.mean((X @ v - y) ** 2)
    w1 = w - 0.1 * sg.grad(loss)(w)
    w2 = w1 - 0.1 * sg.grad(loss)(w1)
    return loss(w2)


@case(randn(3))
def value_and_grad_inside(x):
    v, g = sg.value_and_grad(lambda u: np.sum(np.exp(0.3 * u) * u))(x)
    return v * np.sum(g)


@case(randn(3), randn(3))
def vjp_inside_along_data(x, u):
    out, pullback = sg.vjp(lambda v: np.sin(v) * v[0], x)
    return np.sum(pullback(u) * out)


@case(randn(3), randn(3))
def jvp_inside_a_loss(x, t):
    _, tangent = sg.jvp(lambda v: np.tanh(v) * np.sum(v), (x,), (t,))
    return np.sum(tangent ** 2)


# -- mixes ----------------------------------------------------------------------------------
@case(randn(4), X4, Y4)
def lambda_dispatch_table(w, X, y):
    losses = {"mse": lambda p: np.mean((p - y) ** 2),
              "huber": lambda p: np.mean(np.sqrt(1.0 + (p - y) ** 2) - 1.0)}
    pred = X @ w
    return sum(losses[name](pred) * weight for name, weight in [("mse", 0.5), ("huber", 2.0)])


@case(randn(3), [randn(3) for _ in range(3)])
def list_of_arrays_stack_and_star(w, rows):
    M = np.stack([r * w for r in rows])
    a, b, c = M
    return np.sum(np.maximum(a, b) * c) + np.sum(np.vstack([*rows, w]) ** 2)


@case(randn(4))
def nested_comprehension_outer_product(x):
    rows = [[x[i] * x[j] for j in range(4) if j != i] for i in range(4)]
    return np.sum(np.array(rows) ** 2) + sum(sum(r) for r in rows)


@case(randn(3), randn(3))
def kwargs_forwarding_wrapper(x, y):
    def base(a, b, *, scale=1.0, shift=0.0):
        return scale * np.sum(a * b) + shift * np.sum(a)

    def wrapped(*args, **kwargs):
        return base(*args, **kwargs) ** 2
    return wrapped(x, y, scale=0.5, shift=1.5) + wrapped(y, x)


@case(randn(4))
def isinstance_branches_on_values(x):
    items = [x[:2], float(0.5), (x[2], x[3])]
    total = 0.0
    for it in items:
        if isinstance(it, tuple):
            total = total + it[0] * it[1]
        elif isinstance(it, float):
            total = total + it
        else:
            total = total + np.sum(np.exp(it))
    return total


@case(randn(3))
def while_loop_on_the_data(x):
    y = x
    n = 0
    while np.sum(y ** 2) > 0.1 and n < 20:
        y = 0.7 * np.sin(y)
        n += 1
    return np.sum(y) + n * 0.0


@case(randn(2, 3), randn(3))
def matrix_first_argument_einsum(A, v):
    B = np.einsum("ij,j->ij", A, v)
    return np.sum(np.tanh(B) @ v) + np.trace(A @ A.T)


# -- closures over loop variables (Python's late binding) ------------------------------------
@case(randn(3))
def lambdas_in_a_loop_bind_late(x):
    fs = []
    for k in range(3):
        fs.append(lambda v: np.sum(np.sin(v * k)))       # every lambda sees the last k
    return sum(f(x) for f in fs)


@case(randn(3))
def lambdas_with_default_bind_early(x):
    fs = [lambda v, k=k: np.sum(np.sin(v * (k + 1))) for k in range(3)]
    return sum(f(x) for f in fs)


@case(randn(3))
def closures_from_a_factory_in_a_loop(x):
    def make(k):
        return lambda v: np.sum(v ** (k + 1))
    fs = [make(k) for k in range(3)]
    return fs[2](x) + fs[0](x) * fs[1](x)


# -- state built up in loops ------------------------------------------------------------------
@case(randn(4), randn(3, 4))
def append_then_stack(w, X):
    outs = []
    for row in X:
        outs.append(np.tanh(row * w))
        if len(outs) > 1:
            outs[-1] = outs[-1] + 0.5 * outs[-2]
    return np.sum(np.stack(outs) ** 2)


@case(randn(3))
def dict_of_arrays_updated_in_a_loop(x):
    state = {"h": x, "c": np.zeros(3)}
    for _ in range(3):
        state = {"h": np.tanh(state["h"] + state["c"]), "c": state["c"] + 0.5 * state["h"]}
    return np.sum(state["h"] * state["c"])


@case(randn(4))
def preallocated_rows_filled(x):
    out = np.zeros((3, 4))
    for i in range(3):
        out[i] = np.sin(x * (i + 1))
    out[1] *= 2.0
    return np.sum(out ** 2) + out[2, 1]


@case(randn(3), randn(3))
def list_of_tuples_sorted_by_value(x, y):
    pairs = sorted(zip(x, y), key=lambda p: p[0])
    return sum(a * b ** 2 for a, b in pairs[:2])


# -- objects with nested structure ----------------------------------------------------------
@dataclass
class Gaussian:
    mean: np.ndarray
    log_std: np.ndarray

    def sample(self, eps):
        return self.mean + np.exp(self.log_std) * eps

    def entropy(self):
        return np.sum(self.log_std) + 0.5 * self.mean.size * (1 + np.log(2 * np.pi))


@case(Gaussian(randn(3), randn(3, scale=0.2)), randn(4, 3))
def dataclass_parameter_reparameterized(q, eps):
    z = q.sample(eps)
    return np.mean(np.sum(z ** 2, axis=1)) - q.entropy()


class Tree:
    def __init__(self, value, children=()):
        self.value = value
        self.children = list(children)

    def total(self, w):
        return np.tanh(self.value * w) + sum(c.total(w) for c in self.children)


@case(randn(2))
def recursive_method_over_an_object_tree(w):
    tree = Tree(0.5, [Tree(-1.0), Tree(2.0, [Tree(0.3)])])
    return np.sum(tree.total(w))


LayerParams = namedtuple("LayerParams", "W b")


@case([LayerParams(randn(3, 2, scale=0.5), randn(2)), LayerParams(randn(2, 1, scale=0.5), randn(1))],
      randn(4, 3))
def namedtuple_layers_parameter(layers, X):
    h = X
    for layer in layers[:-1]:
        h = np.tanh(h @ layer.W + layer.b)
    return np.sum((h @ layers[-1].W + layers[-1].b) ** 2)


# -- higher order inside ----------------------------------------------------------------------
@case(randn(3))
def hessian_trace_inside(x):
    H = sg.hessian(lambda v: np.sum(np.sin(v) * v[0]))(x)
    return np.trace(H) + np.sum(x ** 2)


@case(randn(3), randn(3))
def grad_of_a_method_inside(x, c):
    sc = Scaled(c)
    return np.sum(sg.grad(lambda v: Scaled(v).energy() + np.sum(v * sc.v))(x) ** 2)


@case(randn(2))
def nested_grad_three_deep_inside(x):
    f = lambda v: np.sum(np.exp(0.5 * v) * v)
    g = sg.grad(lambda v: np.sum(sg.grad(f)(v) ** 2))
    return np.sum(g(x) * x)


@case(randn(3), randn(2, 3))
def grad_inside_a_comprehension(w, X):
    losses = [lambda v, r=r: np.sum(np.tanh(r * v)) for r in X]
    return sum(np.sum(sg.grad(l)(w) ** 2) for l in losses)


# -- generators with state ----------------------------------------------------------------------
def running_means(xs, decay):
    m = 0.0
    for x in xs:
        m = decay * m + (1 - decay) * x
        yield m


@case(randn(5))
def generator_with_running_state(x):
    return sum(m ** 2 for m in running_means(x, 0.7)) + max(running_means(x, 0.5))


@case(randn(4))
def generator_expression_in_np_array(x):
    v = np.array([np.sin(t) * t for t in x if t > -5])
    return np.sum(v[::-1] * np.arange(1.0, 5.0)) + np.prod(np.cos(x))
