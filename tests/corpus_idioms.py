"""The Python people really write: a corpus of differentiable programs, part 1.

Neural nets with lists of ``(W, b)`` tuples and comprehensions (as in autograd's
examples and the JAX tutorials), and closures from ``make_*`` factories.  The other
parts: tests/corpus_idioms_sequences.py (RNN / LSTM / GRU cells with ``*args``
helpers, mixture models with ``zip(*...)``, recursive tree and HMM-like code),
tests/corpus_idioms_objects.py (VAEs with starred shapes, object-oriented layers,
namedtuple / dataclass parameters) and tests/corpus_idioms_everyday.py (the everyday
idioms of scripts and answers on the web).

Each function is registered with its inputs (float64, fixed seeds, drawn in order by
this module's own RandomState) by ``case`` / ``register``;
tests/test_corpus_idioms.py differentiates it.  A module uses only ``np`` / ``npr`` /
``scipy.special``, so that the test can load a second copy of it on
``autograd.numpy`` (its import lines rewritten) and use HIPS autograd as an
independent oracle.
"""
import functools
from functools import partial, reduce

import numpy as np
import numpy.random as npr
from scipy.special import logsumexp

import srcgrad as sg

from corpus_support import Corpus

_corpus = Corpus(20261201)            # this module's programs and inputs
CASES, case, register = _corpus.cases, _corpus.case, _corpus.register
randn, uniform = _corpus.randn, _corpus.uniform


def init_layers(layer_sizes, scale=0.5):
    """autograd's init_random_params: a list of (weights, biases) tuples."""
    return [(scale * randn(m, n), scale * randn(n))
            for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]


def one_hot(labels, k):
    return np.eye(k)[labels]


X_SMALL = randn(6, 3)
Y_REG = randn(6, 2)
LABELS = np.array([0, 2, 1, 1, 0, 2])
T_ONEHOT = np.eye(3)[LABELS]


# =======================================================================================
# A. Neural networks, autograd / JAX style
# =======================================================================================
def neural_net_predict(params, inputs):
    """Implements a deep neural network for classification (log-probabilities out)."""
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs - logsumexp(outputs, axis=1, keepdims=True)


def l2_norm(params):
    """Sum of squares of every weight."""
    return sum(np.sum(W ** 2) + np.sum(b ** 2) for W, b in params)


@case(init_layers([3, 4, 3]), X_SMALL, T_ONEHOT, 0.1)
def nn_log_posterior(params, inputs, targets, L2_reg):
    log_prior = -L2_reg * l2_norm(params)
    log_lik = np.sum(neural_net_predict(params, inputs) * targets)
    return log_prior + log_lik


def relu(x):
    return np.maximum(0, x)


def jax_predict(params, image):
    # per-example predictions
    activations = image
    for w, b in params[:-1]:
        outputs = np.dot(w, activations) + b
        activations = relu(outputs)
    final_w, final_b = params[-1]
    logits = np.dot(final_w, activations) + final_b
    return logits - logsumexp(logits)


def init_network_params(sizes, scale=0.4):
    return [(scale * randn(n, m), scale * randn(n)) for m, n in zip(sizes[:-1], sizes[1:])]


@case(init_network_params([3, 5, 3]), X_SMALL + 0.05, T_ONEHOT)
def jax_batched_loss(params, images, targets):
    preds = np.stack([jax_predict(params, im) for im in images])
    return -np.mean(preds * targets)


@case(init_layers([3, 4, 4, 2]), X_SMALL, Y_REG)
def mlp_mse_comprehension_l2(params, X, y):
    *hidden, (W_out, b_out) = params
    h = X
    for W, b in hidden:
        h = np.tanh(h @ W + b)
    pred = h @ W_out + b_out
    penalty = sum([np.sum(W * W) for W, _ in params])
    return np.mean((pred - y) ** 2) + 1e-3 * penalty


@case({f"W{i}": randn(3, 3, scale=0.5) for i in range(3)} |
      {f"b{i}": randn(3, scale=0.1) for i in range(3)}, X_SMALL)
def dict_params_softplus_net(params, x):
    n_layers = len([k for k in params if k.startswith("W")])
    for i in range(n_layers):
        x = np.logaddexp(0.0, x @ params[f"W{i}"] + params[f"b{i}"])
    return np.sum(x ** 2) / x.shape[0]


@case(init_layers([3, 3, 3, 3]), X_SMALL)
def residual_mlp(params, x):
    for W, b in params:
        x = x + 0.5 * np.tanh(x @ W + b)
    return np.sum(np.sin(x))


@case(init_layers([3, 4, 3]), X_SMALL, LABELS)
def cross_entropy_integer_labels(params, X, labels):
    logits = X
    for i, (W, b) in enumerate(params):
        logits = logits @ W + b
        if i < len(params) - 1:
            logits = np.tanh(logits)
    log_probs = logits - logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(log_probs[np.arange(len(labels)), labels])


@case(init_layers([3, 4, 4, 1]), X_SMALL)
def mlp_activation_list(params, x):
    activations = [np.tanh, np.sin, lambda z: z]
    for (W, b), act in zip(params, activations):
        x = act(x @ W + b)
    return np.sum(x ** 2)


@case(init_layers([3, 5, 2]), X_SMALL)
def batchnorm_mlp(params, x):
    (W1, b1), (W2, b2) = params
    h = x @ W1 + b1
    h = (h - h.mean(axis=0)) / np.sqrt(h.var(axis=0) + 1e-5)
    h = np.tanh(h)
    return np.sum((h @ W2 + b2) ** 2)


@case(init_layers([3, 6, 2]), X_SMALL, 7)
def dropout_mlp_fixed_seed(params, x, seed):
    rs = npr.RandomState(seed)
    (W1, b1), (W2, b2) = params
    h = np.tanh(x @ W1 + b1)
    mask = rs.rand(*h.shape) > 0.3
    h = h * mask / 0.7
    return np.mean((h @ W2 + b2) ** 2)


def attention_head(q, k, v):
    d = q.shape[-1]
    scores = q @ k.T / np.sqrt(d)
    weights = np.exp(scores - logsumexp(scores, axis=-1, keepdims=True))
    return weights @ v


@case(randn(4, 4, scale=0.5), randn(4, 4, scale=0.5), randn(4, 4, scale=0.5), randn(5, 4), 2)
def multi_head_attention(Wq, Wk, Wv, x, n_heads):
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    d = q.shape[1] // n_heads
    heads = [attention_head(q[:, i * d:(i + 1) * d], k[:, i * d:(i + 1) * d],
                            v[:, i * d:(i + 1) * d]) for i in range(n_heads)]
    out = np.concatenate(heads, axis=1)
    return np.sum(out ** 2)


@case(randn(9), randn(3))
def conv1d_comprehension(x, w):
    k = len(w)
    y = np.array([np.sum(x[i:i + k] * w) for i in range(len(x) - k + 1)])
    return np.sum(np.tanh(y))


@case([randn(3, 4) for _ in range(3)], X_SMALL)
def maxout_layer(Ws, x):
    z = np.max(np.stack([x @ W for W in Ws]), axis=0)
    return np.sum(z ** 2)


def sigmoid(x):
    return 0.5 * (np.tanh(x / 2.0) + 1)


def logistic_predictions(weights, inputs):
    # Outputs probability of a label being true according to logistic model.
    return sigmoid(np.dot(inputs, weights))


TUTORIAL_INPUTS = np.array([[0.52, 1.12, 0.77],
                            [0.88, -1.08, 0.15],
                            [0.52, 0.06, -1.30],
                            [0.74, -2.49, 1.39]])
TUTORIAL_TARGETS = np.array([True, True, False, True])


@case(randn(3, scale=0.3))
def logistic_training_loss(weights):
    # Training loss is the negative log-likelihood of the training labels.
    preds = logistic_predictions(weights, TUTORIAL_INPUTS)
    label_probabilities = preds * TUTORIAL_TARGETS + (1 - preds) * (1 - TUTORIAL_TARGETS)
    return -np.sum(np.log(label_probabilities))


@case(randn(3), -0.3, X_SMALL, Y_REG[:, 0])
def bayes_linreg_neg_log_joint(w, log_noise, X, y):
    noise_var = np.exp(2 * log_noise)
    resid = y - X @ w
    nll = 0.5 * np.sum(resid ** 2) / noise_var + 0.5 * len(y) * np.log(2 * np.pi * noise_var)
    prior = 0.5 * np.dot(w, w)
    return nll + prior


@case(init_layers([3, 2, 3]), X_SMALL)
def autoencoder_reduce(params, x):
    reconstruction = reduce(lambda h, Wb: np.tanh(h @ Wb[0] + Wb[1]), params, x)
    return np.mean((reconstruction - x) ** 2)


@case(init_network_params([3, 4, 3]), (X_SMALL, T_ONEHOT))
def jax_loss_batch_tuple(params, batch):
    inputs, targets = batch
    preds = np.stack([jax_predict(params, x) for x in inputs])
    return -np.mean(np.sum(preds * targets, axis=1))


@case(randn(3, 2, scale=0.5), randn(2, scale=0.1), randn(3, scale=0.1), X_SMALL)
def tied_autoencoder(W, b_enc, b_dec, x):
    code = np.tanh(x @ W + b_enc)
    recon = code @ W.T + b_dec
    return np.sum((recon - x) ** 2)


@case([(randn(3, 3, scale=0.5), randn(3), randn(3, 3, scale=0.5), randn(3)) for _ in range(2)],
      X_SMALL)
def highway_network(layers, x):
    for W_h, b_h, W_t, b_t in layers:
        h = np.tanh(x @ W_h + b_h)
        t = sigmoid(x @ W_t + b_t)
        x = t * h + (1.0 - t) * x
    return np.sum(x ** 2)


def expert(params, x):
    W, b = params
    return np.tanh(x @ W + b)


@case([(randn(3, 2), randn(2)) for _ in range(3)], randn(3, 3), X_SMALL)
def mixture_of_experts(experts, W_gate, x):
    logits = x @ W_gate
    gates = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
    out = sum(gates[:, i:i + 1] * expert(p, x) for i, p in enumerate(experts))
    return np.sum(out ** 2)


@case(init_layers([3, 3, 2]), X_SMALL, Y_REG, 0.1)
def maml_one_inner_step(params, X, y, lr):
    def loss(p):
        h = X
        for W, b in p[:-1]:
            h = np.tanh(h @ W + b)
        W, b = p[-1]
        return np.mean((h @ W + b - y) ** 2)
    grads = sg.grad(loss)(params)
    adapted = [(W - lr * dW, b - lr * db) for (W, b), (dW, db) in zip(params, grads)]
    return loss(adapted)


@case(randn(5, 5), randn(2, 2, 3, scale=0.5))
def conv2d_nested_comprehension(image, kernels):
    kh, kw = kernels.shape[1], kernels.shape[2]
    feature_maps = [np.array([[np.sum(image[i:i + kh, j:j + kw] * k)
                               for j in range(image.shape[1] - kw + 1)]
                              for i in range(image.shape[0] - kh + 1)])
                    for k in kernels]
    return sum(np.sum(np.tanh(fm)) for fm in feature_maps)


@case(randn(7, 3, scale=0.5), np.array([[1, 4, 2], [0, 6, 6]]), randn(3, 2))
def embedding_bag_classifier(E, tokens, W):
    pooled = np.mean(E[tokens], axis=1)
    logits = pooled @ W
    return np.sum(logits - logsumexp(logits, axis=1, keepdims=True))


@case(randn(4, 3), 0.8, randn(4), X_SMALL)
def rbf_network(centers, width, weights, x):
    sq = np.sum((x[:, None, :] - centers[None, :, :]) ** 2, axis=-1)
    phi = np.exp(-sq / (2 * width ** 2))
    return np.sum((phi @ weights) ** 2)


@case(randn(3), 0.2, X_SMALL, np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0]))
def squared_hinge_svm(w, b, X, y):
    margins = np.maximum(0.0, 1.0 - y * (X @ w + b)) ** 2
    return np.mean(margins) + 0.5 * np.dot(w, w)


# =======================================================================================
# B. Closures from make_* factories
# =======================================================================================
def make_loss(X, y):
    def predict(params, X):
        for W, b in params[:-1]:
            X = np.tanh(X @ W + b)
        W, b = params[-1]
        return X @ W + b

    def loss(params):
        return np.mean((predict(params, X) - y) ** 2)
    return loss


register("make_loss_closure", make_loss(X_SMALL, Y_REG), init_layers([3, 4, 2]))


def make_nn_funs(layer_sizes, L2_reg, noise_variance, nonlinearity=np.tanh):
    """As autograd's bayesian_neural_net example: the weights are one flat vector."""
    shapes = list(zip(layer_sizes[:-1], layer_sizes[1:]))
    num_weights = sum((m + 1) * n for m, n in shapes)

    def unpack_layers(weights):
        layers = []
        for m, n in shapes:
            layers.append((weights[:m * n].reshape((m, n)), weights[m * n:m * n + n]))
            weights = weights[(m + 1) * n:]
        return layers

    def predictions(weights, inputs):
        for W, b in unpack_layers(weights):
            outputs = np.dot(inputs, W) + b
            inputs = nonlinearity(outputs)
        return outputs

    def logprob(weights, inputs, targets):
        log_prior = -L2_reg * np.sum(weights ** 2)
        preds = predictions(weights, inputs)
        log_lik = -np.sum((preds - targets) ** 2) / noise_variance
        return log_prior + log_lik

    return num_weights, predictions, logprob


_nw, _bnn_predictions, _bnn_logprob = make_nn_funs([3, 4, 1], 0.1, 0.5)
register("bnn_flat_weights_logprob", _bnn_logprob, randn(_nw, scale=0.5), X_SMALL, Y_REG[:, :1])


def make_nn_funs_yield(layer_sizes):
    shapes = list(zip(layer_sizes[:-1], layer_sizes[1:]))

    def unpack_layers(weights):
        for m, n in shapes:
            yield weights[:m * n].reshape((m, n)), weights[m * n:m * n + n]
            weights = weights[(m + 1) * n:]

    def objective(weights, inputs):
        for W, b in unpack_layers(weights):
            inputs = np.tanh(np.dot(inputs, W) + b)
        return np.sum(inputs ** 2)
    return objective


register("bnn_unpack_layers_generator", make_nn_funs_yield([3, 3, 2]), randn(20, scale=0.5), X_SMALL)


def make_gaussian_model(prior_std, data, noise_std):
    def log_prior(theta):
        return -0.5 * np.sum(theta ** 2) / prior_std ** 2

    def log_likelihood(theta):
        return -0.5 * np.sum((data - theta[0] - theta[1] * np.arange(len(data))) ** 2) / noise_std ** 2

    def log_posterior(theta):
        return log_prior(theta) + log_likelihood(theta)
    return log_prior, log_likelihood, log_posterior


_prior, _lik, _post = make_gaussian_model(2.0, randn(5), 0.7)
register("closures_calling_each_other", _post, randn(2))


def compose(*fs):
    def composed(x):
        for f in reversed(fs):
            x = f(x)
        return x
    return composed


def square(x):
    return x * x


register("compose_closure_of_closures",
         compose(np.sum, compose(np.sin, square), lambda z: 0.5 * z + 1.0), randn(4))


@case(randn(5), [0.5, -1.0, 2.0])
def polynomial_from_lambda_list(x, coeffs):
    terms = [lambda x, k=k, c=c: c * x ** (k + 1) for k, c in enumerate(coeffs)]
    return np.sum(sum(t(x) for t in terms))


@case(randn(5), [0.5, -1.0, 2.0])
def polynomial_nested_defs_loop(x, coeffs):
    fns = []
    for k, c in enumerate(coeffs):
        def term(x, k=k, c=c):
            return c * np.sin(x) ** (k + 1)
        fns.append(term)
    return np.sum(sum(f(x) for f in fns))


def make_regularizer(kind, strength):
    if kind == "l2":
        def reg(w):
            return strength * np.sum(w ** 2)
    elif kind == "l1_smooth":
        def reg(w):
            return strength * np.sum(np.sqrt(w ** 2 + 1e-3))
    else:
        raise ValueError(f"unknown regularizer {kind!r}")
    return reg


_regs = [make_regularizer("l2", 0.1), make_regularizer("l1_smooth", 0.05)]


@case(randn(3), X_SMALL, Y_REG[:, 0])
def regularized_least_squares(w, X, y):
    return np.sum((X @ w - y) ** 2) + sum(r(w) for r in _regs)


def scale_by(c):
    def f(x):
        return c * x
    return f


@case(randn(4))
def curried_scalers(x):
    double, halve = scale_by(2.0), scale_by(0.5)
    return np.sum(double(np.sin(halve(x))) ** 2)


def make_accumulator():
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
        return total
    return add


@case(randn(3))
def nonlocal_accumulator(x):
    acc = make_accumulator()
    for xi in x:
        s = acc(xi ** 2)
    return s


def make_objective(X, y):
    def obj(w):
        return np.sum(np.log1p(np.exp(-y * (X @ w))))
    return obj, sg.grad(obj)


_obj, _grad_obj = make_objective(X_SMALL, np.sign(Y_REG[:, 0]))


@case(randn(3, scale=0.5))
def gradient_penalty_closure(w):
    return _obj(w) + 0.1 * np.sum(_grad_obj(w) ** 2)


_batches = [(X_SMALL[:3], Y_REG[:3]), (X_SMALL[3:], Y_REG[3:])]
_batch_losses = [make_loss(Xb, yb) for Xb, yb in _batches]


@case(init_layers([3, 2, 2]))
def sum_of_batch_closures(params):
    return sum(l(params) for l in _batch_losses) / len(_batch_losses)


def make_layer(n_in, n_out, activation=np.tanh, *, use_bias=True):
    def layer(x, W, b=None):
        z = x @ W
        if use_bias:
            z = z + b
        return activation(z)
    return layer


_l1 = make_layer(3, 4)
_l2 = make_layer(4, 2, activation=np.sin, use_bias=False)


@case(randn(3, 4), randn(4), randn(4, 2), X_SMALL)
def factory_layers_kwonly(W1, b1, W2, x):
    return np.sum(_l2(_l1(x, W1, b1), W2) ** 2)


def with_l2(lam):
    def deco(f):
        @functools.wraps(f)
        def wrapped(w, *args, **kwargs):
            return f(w, *args, **kwargs) + lam * np.sum(w ** 2)
        return wrapped
    return deco


@with_l2(0.3)
def decorated_logistic_loss(w, X, y):
    return np.sum(np.logaddexp(0.0, -y * (X @ w)))


register("decorated_loss_wraps", decorated_logistic_loss, randn(3), X_SMALL, np.sign(Y_REG[:, 1]))


def make_ar_model(p):
    def predict(coefs, series):
        return np.array([np.dot(coefs, series[t - p:t][::-1]) for t in range(p, len(series))])

    def residuals(coefs, series):
        return series[p:] - predict(coefs, series)
    return predict, residuals


_ar_predict, _ar_residuals = make_ar_model(2)


@case(randn(2, scale=0.3), randn(8))
def ar_model_residuals(coefs, series):
    r = _ar_residuals(coefs, series)
    return np.dot(r, r)


_lsq = lambda w: np.sum((X_SMALL @ w - Y_REG[:, 0]) ** 2)
register("lambda_closure_over_data", _lsq, randn(3))


def loss_fn(w, X, y, reg=0.0):
    return np.mean((X @ w - y) ** 2) + reg * np.sum(w ** 2)


register("partial_with_keywords", partial(loss_fn, X=X_SMALL, y=Y_REG[:, 1], reg=0.1), randn(3))


def make_rbf(lengthscale, variance):
    def kernel(A, B):
        d2 = np.sum(A ** 2, 1)[:, None] + np.sum(B ** 2, 1)[None, :] - 2 * A @ B.T
        return variance * np.exp(-0.5 * d2 / lengthscale ** 2)
    return kernel


@case(0.1, -0.2, -1.0, X_SMALL[:5], Y_REG[:5, 0])
def gp_nll_kernel_factory_inside(log_ls, log_sf, log_noise, X, y):
    k = make_rbf(np.exp(log_ls), np.exp(2 * log_sf))
    K = k(X, X) + np.exp(2 * log_noise) * np.eye(len(X))
    alpha = np.linalg.solve(K, y)
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ alpha + 0.5 * logdet + 0.5 * len(y) * np.log(2 * np.pi)


@case(0.7, randn(4))
def nested_def_capturing_parameter(w, xs):
    def g(x):
        return np.sin(w * x) + w ** 2
    return sum(g(x) for x in xs)


def make_step(lr):
    def step(w, g):
        return w - lr * g
    return step


@case(randn(3), X_SMALL, Y_REG[:, 0])
def unrolled_gradient_descent_closure(w, X, y):
    step = make_step(0.05)
    for _ in range(3):
        g = 2 * X.T @ (X @ w - y) / len(y)
        w = step(w, g)
    return np.sum((X @ w - y) ** 2)
