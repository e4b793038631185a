"""Programs in the style of the example programs that ship with an AD library: a corpus,
part 1 (models).

Each is a whole small program of the kind those examples are: a classifier with a list
of ``(W, b)`` tuples, a character RNN / LSTM with a dict of parameters and helpers
taking ``*args``, a convolutional net whose layers are objects with a parameter parser,
Gaussian-process regression built by a ``make_*`` factory, black-box variational
inference with the reparameterization trick, a mixture model unpacked with
``zip(*...)``, a VAE and a GAN, a neural ODE, an HMM's forward recursion, a fluid
simulation, a Bayesian-optimization acquisition function.  Written for this corpus,
with small sizes; noise is drawn once, here, or from a ``RandomState`` seeded inside
the program, so that every run of a program computes the same function.

tests/test_corpus_examples.py differentiates each one against finite differences and
against HIPS autograd on a second copy of this module (its import lines rewritten).
Part 2: tests/corpus_examples_small.py (the small test functions of a source-
transformation AD's suite, in its style).
"""
from functools import partial

import numpy as np
import numpy.random as npr
from numpy.linalg import solve
from scipy.integrate import odeint
from scipy.signal import convolve
from scipy.special import expit, gammaln, logsumexp
from scipy.stats import multivariate_normal as mvn
from scipy.stats import norm

import srcgrad as sg

from corpus_support import Corpus

_corpus = Corpus(20261202)
CASES, case, register = _corpus.cases, _corpus.case, _corpus.register
randn, uniform = _corpus.randn, _corpus.uniform


def layer_list(sizes, scale=0.5):
    """A list of (weights, biases), one per layer."""
    return [(scale * randn(m, n), scale * randn(n)) for m, n in zip(sizes[:-1], sizes[1:])]


def one_hot(labels, k):
    return np.array(labels[:, None] == np.arange(k)[None, :], dtype=float)


IMAGES = randn(6, 4)
CLASSES = one_hot(np.array([0, 1, 2, 1, 0, 2]), 3)


# =======================================================================================
# Classifiers
# =======================================================================================
def mlp_log_probs(params, inputs):
    for W, b in params:
        activations = inputs @ W + b
        inputs = np.tanh(activations)
    return activations - logsumexp(activations, axis=1, keepdims=True)


@case(layer_list([4, 5, 3]), IMAGES, CLASSES, 0.05)
def mlp_log_posterior(params, inputs, targets, l2):
    prior = -l2 * sum(np.sum(W ** 2) + np.sum(b ** 2) for W, b in params)
    return prior + np.sum(mlp_log_probs(params, inputs) * targets)


def make_minibatch_objective(images, labels, batch_size):
    batches = int(np.ceil(len(images) / batch_size))

    def batch(i):
        k = i % batches
        return slice(k * batch_size, (k + 1) * batch_size)

    def objective(params, i):
        rows = batch(i)
        return -mlp_log_posterior(params, images[rows], labels[rows], 0.1)
    return objective


register("minibatch_objective_closure", make_minibatch_objective(IMAGES, CLASSES, 4),
         layer_list([4, 3, 3]), 5)


def sigmoid(z):
    return 0.5 * (np.tanh(z) + 1.0)


LOGIT_X = randn(8, 3)
LOGIT_T = np.array([1, 0, 0, 1, 1, 0, 1, 0]) > 0


@case(randn(3), LOGIT_X, LOGIT_T)
def logistic_nll_boolean_targets(w, inputs, targets):
    p = sigmoid(inputs @ w)
    return -(np.sum(np.log(p) * targets) + np.sum(np.log(1 - p) * (1 - targets)))


# =======================================================================================
# Recurrent nets: dict parameters, *args helpers, nested defs, a list of outputs
# =======================================================================================
def stack_and_multiply(weights, *args):
    """Concatenate the arguments and a column of ones, then multiply."""
    joined = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return joined @ weights


def rnn_params(n_in, n_state, n_out, scale=0.4):
    return {"init hiddens": scale * randn(1, n_state),
            "change": scale * randn(n_in + n_state + 1, n_state),
            "predict": scale * randn(n_state + 1, n_out)}


def rnn_outputs(params, inputs):
    def step(x, hiddens):
        return np.tanh(stack_and_multiply(params["change"], x, hiddens))

    def readout(hiddens):
        out = stack_and_multiply(params["predict"], hiddens)
        return out - logsumexp(out, axis=1, keepdims=True)

    hiddens = np.repeat(params["init hiddens"], inputs.shape[1], axis=0)
    outputs = [readout(hiddens)]
    for x in inputs:
        hiddens = step(x, hiddens)
        outputs.append(readout(hiddens))
    return outputs


SEQS = np.stack([one_hot(np.array(row), 4) for row in ([0, 1], [2, 3], [1, 1])])


@case(rnn_params(4, 3, 4), SEQS)
def char_rnn_log_likelihood(params, seqs):
    log_probs = rnn_outputs(params, seqs)
    total = 0.0
    steps, examples, _ = seqs.shape
    for t in range(steps):
        total += np.sum(log_probs[t] * seqs[t])
    return total / (steps * examples)


def lstm_params(n_in, n_state, n_out, scale=0.4):
    params = {"init cells": scale * randn(1, n_state), "init hiddens": scale * randn(1, n_state)}
    for gate in ("change", "forget", "ingate", "outgate"):
        params[gate] = scale * randn(n_in + n_state + 1, n_state)
    params["predict"] = scale * randn(n_state + 1, n_out)
    return params


@case(lstm_params(4, 3, 4), SEQS)
def char_lstm_log_likelihood(params, seqs):
    def cell(x, hiddens, cells):
        change = np.tanh(stack_and_multiply(params["change"], x, hiddens))
        forget, ingate, outgate = (sigmoid(stack_and_multiply(params[g], x, hiddens))
                                   for g in ("forget", "ingate", "outgate"))
        cells = cells * forget + ingate * change
        return outgate * np.tanh(cells), cells

    n = seqs.shape[1]
    hiddens = np.repeat(params["init hiddens"], n, axis=0)
    cells = np.repeat(params["init cells"], n, axis=0)
    total = 0.0
    for x in seqs:
        out = stack_and_multiply(params["predict"], hiddens)
        total = total + np.sum((out - logsumexp(out, axis=1, keepdims=True)) * x)
        hiddens, cells = cell(x, hiddens, cells)
    return total / seqs.size


# =======================================================================================
# A convolutional net: layers are objects with a parameter parser; one flat vector
# =======================================================================================
class SliceParser:
    """Names slices of a flat parameter vector."""

    def __init__(self):
        self.where = {}
        self.size = 0

    def add(self, name, shape):
        start = self.size
        self.size += int(np.prod(shape))
        self.where[name] = (slice(start, self.size), shape)

    def get(self, vector, name):
        rows, shape = self.where[name]
        return np.reshape(vector[rows], shape)


class ConvLayer:
    def __init__(self, kernel, filters):
        self.kernel, self.filters = kernel, filters

    def build(self, in_shape):
        self.parser = SliceParser()
        self.parser.add("kernels", (in_shape[0], self.filters) + self.kernel)
        self.parser.add("biases", (1, self.filters, 1, 1))
        out = tuple(a - b + 1 for a, b in zip(in_shape[1:], self.kernel))
        return self.parser.size, (self.filters,) + out

    def forward(self, x, vector):
        kernels = self.parser.get(vector, "kernels")
        biases = self.parser.get(vector, "biases")
        maps = []
        for image in x:
            maps.append(np.stack([sum(convolve(image[c], kernels[c, f], mode="valid")
                                      for c in range(image.shape[0]))
                                  for f in range(self.filters)]))
        return np.stack(maps) + biases


class MaxPoolLayer:
    def __init__(self, pool):
        self.pool = pool

    def build(self, in_shape):
        return 0, (in_shape[0], in_shape[1] // self.pool, in_shape[2] // self.pool)

    def forward(self, x, vector):
        n, c, h, w = x.shape
        tiles = x.reshape((n, c, h // self.pool, self.pool, w // self.pool, self.pool))
        return np.max(np.max(tiles, axis=3), axis=4)


class DenseLayer:
    def __init__(self, size, last=False):
        self.size, self.last = size, last

    def build(self, in_shape):
        self.parser = SliceParser()
        self.parser.add("weights", (int(np.prod(in_shape)), self.size))
        self.parser.add("biases", (self.size,))
        return self.parser.size, (self.size,)

    def forward(self, x, vector):
        if x.ndim > 2:
            x = x.reshape((x.shape[0], -1))
        z = x @ self.parser.get(vector, "weights") + self.parser.get(vector, "biases")
        return z - logsumexp(z, axis=1, keepdims=True) if self.last else np.tanh(z)


def make_convnet(in_shape, layers):
    parser = SliceParser()
    shape = in_shape
    for i, layer in enumerate(layers):
        count, shape = layer.build(shape)
        parser.add(i, (count,))

    def loss(vector, x, targets):
        units = x
        for i, layer in enumerate(layers):
            units = layer.forward(units, parser.get(vector, i))
        return 0.01 * np.dot(vector, vector) - np.sum(units * targets)
    return parser.size, loss


_CONV_SIZE, _conv_loss = make_convnet(
    (1, 5, 5), [ConvLayer((2, 2), 2), MaxPoolLayer(2), DenseLayer(3), DenseLayer(2, last=True)])
register("convnet_objects_in_a_list", _conv_loss, randn(_CONV_SIZE, scale=0.4),
         randn(2, 1, 5, 5), one_hot(np.array([0, 1]), 2))


# =======================================================================================
# Gaussian processes: a factory taking the covariance function
# =======================================================================================
def make_gp(cov_func):
    def unpack(params):
        return params[0], params[2:], np.exp(params[1]) + 1e-4

    def predict(params, x, y, xstar):
        mean, cov_params, noise = unpack(params)
        k_ss = cov_func(cov_params, xstar, xstar)
        k_xs = cov_func(cov_params, x, xstar)
        k_xx = cov_func(cov_params, x, x) + noise * np.eye(len(y))
        mu = mean + solve(k_xx, k_xs).T @ (y - mean)
        return mu, k_ss - solve(k_xx, k_xs).T @ k_xs

    def log_marginal_likelihood(params, x, y):
        mean, cov_params, noise = unpack(params)
        k_xx = cov_func(cov_params, x, x) + noise * np.eye(len(y))
        return mvn.logpdf(y, mean * np.ones(len(y)), k_xx)
    return predict, log_marginal_likelihood


def squared_exp(kernel_params, x, xp):
    scale = np.exp(kernel_params[0])
    lengths = np.exp(kernel_params[1:])
    diffs = np.expand_dims(x / lengths, 1) - np.expand_dims(xp / lengths, 0)
    return scale * np.exp(-0.5 * np.sum(diffs ** 2, axis=2))


GP_X = np.linspace(-1.5, 1.5, 6).reshape(6, 1)
GP_Y = np.cos(2 * GP_X[:, 0]) + 0.1 * randn(6)
_gp_predict, _gp_lml = make_gp(squared_exp)


@case(0.1 * randn(4))
def gp_negative_log_marginal(params):
    return -_gp_lml(params, GP_X, GP_Y)


@case(0.1 * randn(4), np.linspace(-1, 1, 3).reshape(3, 1))
def gp_predictive_mean_and_variance(params, xstar):
    mu, cov = _gp_predict(params, GP_X, GP_Y, xstar)
    return np.sum(mu) + np.sum(np.diag(cov))


@case(0.1 * randn(4 + 4 + 6))
def deep_gp_two_layers(all_params):
    first, second, hiddens = all_params[:4], all_params[4:8], all_params[8:]
    return -(_gp_lml(first, GP_X, hiddens) + _gp_lml(second, np.atleast_2d(hiddens).T, GP_Y))


LATENT_DATA = randn(4, 2)


@case(0.3 * randn(2 * 5 + 4 * 2))
def gplvm_objective(params):
    gp_params = np.reshape(params[:10], (2, 5))
    latents = np.reshape(params[10:], (4, 2))
    fit = sum([_gp_lml(gp_params[i], latents, LATENT_DATA[:, i]) for i in range(2)])
    return -fit - np.sum(norm.logpdf(latents))


def expected_new_max(mean, std, best):
    return best - (mean - best) * norm.cdf(mean, best, std) + std * norm.pdf(mean, best, std)


def best_so_far(values, default=-np.inf):
    if values.size == 0:
        return default
    return np.max(values)


def make_acquisition(model_params):
    def acquisition(xstar):
        xstar = np.atleast_2d(xstar)
        mean, cov = _gp_predict(model_params, GP_X, GP_Y, xstar)
        return expected_new_max(mean, np.sqrt(np.diag(cov)), best_so_far(GP_Y))
    return acquisition


_acquisition = make_acquisition(0.1 * randn(4))
register("bayes_opt_acquisition", lambda x: -np.sum(_acquisition(x)), np.array([0.3]))


# =======================================================================================
# Variational inference: reparameterized samples, mixtures, zip(*...)
# =======================================================================================
def black_box_vi(logprob, dim, noise):
    def unpack(params):
        return params[:dim], params[dim:]

    def entropy(log_std):
        return 0.5 * dim * (1.0 + np.log(2 * np.pi)) + np.sum(log_std)

    def objective(params, t):
        mean, log_std = unpack(params)
        samples = noise * np.exp(log_std) + mean
        return -(entropy(log_std) + np.mean(logprob(samples, t)))
    return objective


def funnel_log_density(x, t):
    mu, log_sigma = x[:, 0], x[:, 1]
    return norm.logpdf(log_sigma, 0, 1.35) + norm.logpdf(mu, 0, np.exp(log_sigma))


register("bbvi_reparameterized_objective", black_box_vi(funnel_log_density, 2, randn(5, 2)),
         np.array([-1.0, -0.8, -1.2, -0.9]), 0)


def make_bayesian_net(sizes, noise_variance, nonlinearity=np.tanh):
    shapes = list(zip(sizes[:-1], sizes[1:]))
    count = sum((m + 1) * n for m, n in shapes)

    def layers(weights):
        sets = len(weights)
        for m, n in shapes:
            yield (weights[:, :m * n].reshape((sets, m, n)),
                   weights[:, m * n:m * n + n].reshape((sets, 1, n)))
            weights = weights[:, (m + 1) * n:]

    def logprob(weights, inputs, targets):
        inputs = np.expand_dims(inputs, 0)
        for W, b in layers(weights):
            outputs = np.einsum("mnd,mdo->mno", inputs, W) + b
            inputs = nonlinearity(outputs)
        fit = -np.sum((outputs - targets) ** 2, axis=1)[:, 0] / noise_variance
        return -0.01 * np.sum(weights ** 2, axis=1) + fit
    return count, logprob


_BNN_X = np.linspace(-1, 1, 4).reshape(4, 1)
_BNN_COUNT, _bnn_logprob = make_bayesian_net([1, 3, 1], 0.1)
register("bayesian_net_generator_layers",
         black_box_vi(lambda w, t: _bnn_logprob(w, _BNN_X, np.cos(3 * _BNN_X)), _BNN_COUNT,
                      randn(3, _BNN_COUNT)),
         np.concatenate([randn(_BNN_COUNT), -2.0 * np.ones(_BNN_COUNT)]), 0)

_RBF_COUNT, _rbf_logprob = make_bayesian_net([1, 3, 1], 0.1,
                                             nonlinearity=lambda z: norm.pdf(z, 0, 1))
register("bayesian_net_rbf_nonlinearity",
         black_box_vi(lambda w, t: _rbf_logprob(w, _BNN_X, np.cos(3 * _BNN_X)), _RBF_COUNT,
                      randn(3, _RBF_COUNT)),
         np.concatenate([randn(_RBF_COUNT), -2.0 * np.ones(_RBF_COUNT)]), 0)


def normalize_log_weights(x):
    return x - logsumexp(x)


def make_mixture_elbo(logprob, k, noise):
    def unpack(mixture_params):
        return normalize_log_weights(mixture_params[:k]), np.reshape(mixture_params[k:], (k, -1))

    def component_log_density(params, x):
        d = len(params) // 2
        return np.sum(norm.logpdf(x, params[:d], np.exp(params[d:])), axis=-1)

    def mixture_log_density(mixture_params, x):
        log_weights, components = unpack(mixture_params)
        each = np.vstack([component_log_density(p, x) for p in components]).T
        return logsumexp(each + log_weights, axis=1)

    def elbo(mixture_params, t):
        def bound(params):
            d = len(params) // 2
            samples = noise * np.exp(params[d:]) + params[:d]
            return np.mean(logprob(samples, t) - mixture_log_density(mixture_params, samples))

        log_weights, components = unpack(mixture_params)
        return np.sum(np.stack([bound(p) for p in components]) * np.exp(log_weights))
    return elbo


register("mixture_vi_elbo", make_mixture_elbo(funnel_log_density, 2, randn(4, 2)),
         np.concatenate([np.zeros(2), randn(8, scale=0.3)]), 0)


def gmm_params(k, d):
    return {"log proportions": randn(k, scale=0.3), "means": randn(k, d),
            "lower triangles": np.zeros((k, d, d)) + np.eye(d) + 0.1 * randn(k, d, d)}


def unpack_gmm(params):
    return normalize_log_weights(params["log proportions"]), params["means"], \
        params["lower triangles"]


GMM_DATA = randn(5, 2)


@case(gmm_params(2, 2), GMM_DATA)
def gmm_zip_star_unpack(params, data):
    lls = []
    for log_p, mean, root in zip(*unpack_gmm(params)):
        lls.append(log_p + mvn.logpdf(data, mean, root.T @ root))
    return -np.sum(logsumexp(np.vstack(lls), axis=0))


@case(gmm_params(2, 2), GMM_DATA)
def gmm_inline_normalization(params, data):
    log_props = params["log proportions"] - logsumexp(params["log proportions"])
    lls = [lp + mvn.logpdf(data, m, r.T @ r)
           for lp, m, r in zip(log_props, params["means"], params["lower triangles"])]
    return -np.sum(logsumexp(np.vstack(lls), axis=0))


# =======================================================================================
# Generative models: a VAE (tuple of two nets), a GAN
# =======================================================================================
def normalize_batch(a):
    return (a - np.mean(a, axis=0, keepdims=True)) / (np.std(a, axis=0, keepdims=True) + 1)


def relu(x):
    return np.maximum(0, x)


def net_with_batch_norm(params, inputs):
    for W, b in params[:-1]:
        inputs = relu(normalize_batch(inputs @ W + b))
    W_out, b_out = params[-1]
    return inputs @ W_out + b_out


def gaussian_log_density(x, mu, log_std):
    return np.sum(-0.5 * ((x - mu) / np.exp(log_std)) ** 2 - log_std
                  - 0.5 * np.log(2 * np.pi), axis=-1)


def vae_bound(gen_params, rec_params, data, seed):
    rs = npr.RandomState(seed)
    q = net_with_batch_norm(rec_params, data)
    d = np.shape(q)[-1] // 2
    q_means, q_log_stds = q[:, :d], q[:, d:]
    latents = rs.randn(*q_means.shape) * np.exp(q_log_stds) + q_means
    logits = net_with_batch_norm(gen_params, latents)
    likelihood = np.sum(-np.logaddexp(0, -logits * data), axis=-1)
    return np.mean(gaussian_log_density(latents, 0, 0) + likelihood
                   - gaussian_log_density(latents, q_means, q_log_stds))


BINARY = np.where(randn(4, 5) > 0, 1.0, -1.0)


@case((layer_list([2, 3, 5]), layer_list([5, 3, 4])), BINARY)
def vae_objective_seeded_noise(combined, data):
    gen_params, rec_params = combined
    return -vae_bound(gen_params, rec_params, data, 0) / data.shape[1]


def vae_bound_scipy_density(gen_params, rec_params, data, seed):
    rs = npr.RandomState(seed)
    q = net_with_batch_norm(rec_params, data)
    q_means, q_log_stds = q[:, :2], q[:, 2:]
    latents = rs.randn(*q_means.shape) * np.exp(q_log_stds) + q_means
    q_latents = scipy_diag_density(latents, q_means, q_log_stds)
    likelihood = np.sum(-np.logaddexp(0, -net_with_batch_norm(gen_params, latents) * data), -1)
    return np.mean(likelihood - q_latents)


def scipy_diag_density(x, mu, log_std):
    return np.sum(norm.logpdf(x, mu, np.exp(log_std)), axis=-1)


@case((layer_list([2, 3, 5]), layer_list([5, 3, 4])), BINARY)
def vae_objective_scipy_density(combined, data):
    return -vae_bound_scipy_density(combined[0], combined[1], data, 1)


GAN_NOISE = uniform(0, 1, 3, 2)


def log_sigmoid(x):
    return x - np.logaddexp(0, x)


@case(layer_list([2, 4, 4, 5]), layer_list([5, 4, 1]), expit(randn(3, 5)))
def gan_minimax_objective(gen_params, dsc_params, real):
    fake = sigmoid(net_with_batch_norm(gen_params, GAN_NOISE))
    return np.mean(log_sigmoid(net_with_batch_norm(dsc_params, real))) - \
        np.mean(log_sigmoid(net_with_batch_norm(dsc_params, fake)))


# =======================================================================================
# Dynamics: a neural ODE, an HMM, a fluid simulation
# =======================================================================================
def ode_field(y, t, W1, b1, W2, b2):
    return np.tanh(y @ W1 + b1) @ W2 + b2


ODE_T = np.linspace(0.0, 0.4, 3)
ODE_TARGET = np.array([[2.0, 0.0], [1.9, 0.5], [1.6, 0.9]])


@case(*[a for W, b in layer_list([2, 3, 2]) for a in (W, b)])
def neural_ode_l1_loss(W1, b1, W2, b2):
    pred = odeint(ode_field, np.array([2.0, 0.0]), ODE_T, args=(W1, b1, W2, b2),
                  rtol=1e-10, atol=1e-10)
    return np.mean(np.abs(pred - ODE_TARGET))


def hmm_log_partition(natural_params, data):
    if isinstance(data, list):
        return sum(map(partial(hmm_log_partition, natural_params), data))
    log_pi, log_A, log_B = natural_params
    log_alpha = log_pi
    for y in data:
        log_alpha = logsumexp(log_alpha[:, None] + log_A, axis=0) + log_B[:, y]
    return logsumexp(log_alpha)


def hmm_natural_params():
    rows = [uniform(0.2, 1, 3), uniform(0.2, 1, 3, 3), uniform(0.2, 1, 3, 4)]
    return [np.log(r / r.sum(-1, keepdims=True)) for r in rows]


register("hmm_partition_one_sequence", hmm_log_partition, hmm_natural_params(),
         np.array([0, 2, 1, 3]))
register("hmm_partition_list_recursion", hmm_log_partition, hmm_natural_params(),
         [np.array([0, 2, 1]), np.array([3, 3])])


@case(hmm_natural_params(), [np.array([0, 2, 1]), np.array([3, 3])])
def hmm_partition_lambda_map(natural_params, sequences):
    def one(seq):
        log_pi, log_A, log_B = natural_params
        alpha = log_pi
        for y in seq:
            alpha = logsumexp(alpha[:, None] + log_A, axis=0) + log_B[:, y]
        return logsumexp(alpha)
    return sum(map(lambda s: one(s), sequences))


def advect(f, vx, vy):
    rows, cols = f.shape
    ys, xs = np.meshgrid(np.arange(rows), np.arange(cols))
    cx = (xs - vx).ravel()
    cy = (ys - vy).ravel()
    left = np.floor(cx).astype(int)
    top = np.floor(cy).astype(int)
    rw, bw = cx - left, cy - top
    left, top = np.mod(left, rows), np.mod(top, cols)
    right, bottom = np.mod(left + 1, rows), np.mod(top + 1, cols)
    flat = (1 - rw) * ((1 - bw) * f[left, top] + bw * f[left, bottom]) + \
        rw * ((1 - bw) * f[right, top] + bw * f[right, bottom])
    return np.reshape(flat, (rows, cols))


def pressure(vx, vy):
    h = 1.0 / vx.shape[0]
    div = -0.5 * h * (np.roll(vx, -1, axis=0) - np.roll(vx, 1, axis=0) +
                      np.roll(vy, -1, axis=1) - np.roll(vy, 1, axis=1))
    p = np.zeros(vx.shape)
    for _ in range(4):
        p = (div + np.roll(p, 1, axis=0) + np.roll(p, -1, axis=0) +
             np.roll(p, 1, axis=1) + np.roll(p, -1, axis=1)) / 4.0
    return p, h


def project_in_place(vx, vy):
    p, h = pressure(vx, vy)
    vx -= 0.5 * (np.roll(p, -1, axis=0) - np.roll(p, 1, axis=0)) / h
    vy -= 0.5 * (np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)) / h
    return vx, vy


def project(vx, vy):
    p, h = pressure(vx, vy)
    return (vx - 0.5 * (np.roll(p, -1, axis=0) - np.roll(p, 1, axis=0)) / h,
            vy - 0.5 * (np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)) / h)


SMOKE = uniform(0, 1, 3, 3)
SMOKE_TARGET = uniform(0, 1, 3, 3)


def make_smoke_loss(projection):
    def smoke_loss(params):
        vx, vy = np.reshape(params[:9], (3, 3)), np.reshape(params[9:], (3, 3))
        smoke = SMOKE
        for _ in range(2):
            vx_new, vy_new = advect(vx, vx, vy), advect(vy, vx, vy)
            vx, vy = projection(vx_new, vy_new)
            smoke = advect(smoke, vx, vy)
        return np.mean((SMOKE_TARGET - smoke) ** 2)
    return smoke_loss


register("fluid_simulation_in_place_projection", make_smoke_loss(project_in_place),
         randn(18, scale=0.1))
register("fluid_simulation", make_smoke_loss(project), randn(18, scale=0.1))


# =======================================================================================
# Likelihoods and nested derivatives
# =======================================================================================
COUNTS = np.array([3.0, 7.0, 1.0, 4.0, 9.0, 2.0])


def negbin_loglike(r, p, x):
    return gammaln(r + x) - gammaln(r) - gammaln(x + 1) + x * np.log(p) + r * np.log(1 - p)


@case(3.0, 0.4)
def negative_binomial_loglike(r, p):
    return np.sum(negbin_loglike(r, p, COUNTS))


def make_profile_score(x):
    loglike = lambda r, p: np.sum(negbin_loglike(r, p, x))
    p_hat = lambda r: np.sum(x) / np.sum(r + x)
    return lambda r: sg.grad(loglike, wrt=0)(r, p_hat(r))


_score = make_profile_score(COUNTS)
register("profile_score_calls_sg_grad", lambda r: _score(r) ** 2, 3.0)


def softplus_sum(x):
    return np.sum(np.log1p(np.exp(x)))


@sg.adjoint(softplus_sum)
def _softplus_sum_adjoint(g, ans, x):
    return g * expit(x)


@sg.tangent(softplus_sum)
def _softplus_sum_tangent(ans, x, dx):
    return np.sum(expit(x) * dx)


@case(randn(5))
def custom_adjoint_in_a_model(y):
    return softplus_sum(y ** 2) + np.sum(y)


def fixed_point(make_step, a, x0, tol):
    step = make_step(a)
    x, previous = step(x0), x0
    while np.abs(x - previous) > tol:
        x, previous = step(x), x
    return x


@case(2.0)
def fixed_point_newton_sqrt(a):
    return fixed_point(lambda c: (lambda x: 0.5 * (x + c / x)), a, 10.0, 1e-12)


@case(np.linspace(-2.0, 2.0, 5))
def taylor_sine_with_break(x):
    total = 0.0
    for v in x:
        term = v
        value = term
        for i in range(100):
            term = -term * v ** 2 / ((2 * i + 3) * (2 * i + 2))
            value = value + term
            if np.abs(term) < 0.2:
                break
        total = total + value
    return total


def logistic_tanh(x):
    return (1.0 - np.exp(-x)) / (1.0 + np.exp(-x))


def elementwise_grad(f):
    return sg.grad(lambda v: np.sum(f(v)))


@case(np.linspace(-2.0, 2.0, 5))
def elementwise_grad_twice_inside(x):
    return np.sum(elementwise_grad(elementwise_grad(logistic_tanh))(x) ** 2)


def elementwise_grad_by_vjp(f):
    return lambda v: sg.vjp(f, v)[1](np.ones_like(v))


@case(np.linspace(-2.0, 2.0, 5))
def elementwise_grad_by_vjp_inside(x):
    return np.sum(elementwise_grad_by_vjp(logistic_tanh)(x) ** 2)


OBSERVED = randn(3)


def product_density(x, t):
    mu, log_sigma = x[:, :3], x[:, 3:]
    return np.sum(norm.logpdf(log_sigma, 0, 1.35), axis=1) + \
        np.sum(norm.logpdf(OBSERVED, mu, np.exp(log_sigma)), axis=1)


register("bbvi_product_density_closure", black_box_vi(product_density, 6, randn(4, 6)),
         np.concatenate([-np.ones(6), -np.ones(6)]) + randn(12, scale=0.1), 0)


ICA_OBS = randn(3, 4)


@case(randn(4 * 2 + 2 * 3 + 1, scale=0.5))
def ica_student_t_objective(params):
    weights = np.reshape(params[:8], (4, 2))
    latents = np.reshape(params[8:14], (2, 3))
    noise_std = np.exp(params[-1])
    from scipy.stats import t as student_t
    return -np.sum(student_t.logpdf((weights @ latents).T, 2.4, ICA_OBS, noise_std)) / 3


@case(np.array([0.3, -0.4]))
def rosenbrock(x):
    return 100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2
