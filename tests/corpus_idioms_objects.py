"""The Python people really write, part 3: VAEs and variational inference with starred
shapes (``rs.randn(*shape)``), and object-oriented models: layer classes with methods,
lists of layer objects, namedtuple and dataclass parameters.

See tests/corpus_idioms.py for the conventions.
"""
from collections import namedtuple
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.random as npr
from scipy.special import logsumexp

from corpus_support import Corpus

_corpus = Corpus(20261203)            # this module's programs and inputs
CASES, case, register = _corpus.cases, _corpus.case, _corpus.register
randn, uniform = _corpus.randn, _corpus.uniform


def init_layers(layer_sizes, scale=0.5):
    return [(scale * randn(m, n), scale * randn(n))
            for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]


X_DATA = randn(5, 4)
X_SMALL = randn(6, 3)
Y_REG = randn(6, 2)


# =======================================================================================
# F. Variational autoencoders and variational inference
# =======================================================================================
def diag_gaussian_log_density(x, mu, log_std):
    return np.sum(-0.5 * ((x - mu) / np.exp(log_std)) ** 2 - log_std - 0.5 * np.log(2 * np.pi),
                  axis=-1)


def unpack_gaussian_params(params):
    # Params of a diagonal Gaussian.
    D = np.shape(params)[-1] // 2
    mean, log_std = params[:, :D], params[:, D:]
    return mean, log_std


def sample_diag_gaussian(mean, log_std, rs):
    return rs.randn(*mean.shape) * np.exp(log_std) + mean


def net_predict(params, inputs):
    for W, b in params[:-1]:
        inputs = np.tanh(inputs @ W + b)
    W, b = params[-1]
    return inputs @ W + b


@case(init_layers([2, 3, 4]), init_layers([4, 3, 4]), X_DATA, 0)
def vae_lower_bound(gen_params, rec_params, data, seed):
    """autograd's vae example, with a Gaussian likelihood."""
    rs = npr.RandomState(seed)
    q_means, q_log_stds = unpack_gaussian_params(net_predict(rec_params, data))
    latents = sample_diag_gaussian(q_means, q_log_stds, rs)
    q_latents = diag_gaussian_log_density(latents, q_means, q_log_stds)
    p_latents = diag_gaussian_log_density(latents, 0, 0)
    recon = net_predict(gen_params, latents)
    likelihood = diag_gaussian_log_density(data, recon, np.zeros(data.shape[1]))
    return -np.mean(p_latents + likelihood - q_latents)


@case(randn(4, 4, scale=0.5), randn(2, 4, scale=0.5), X_DATA, (5, 2))
def vae_starred_shape_tuple(W_enc, W_dec, x, shape):
    rs = npr.RandomState(1)
    h = x @ W_enc
    mu, log_var = h[:, :2], h[:, 2:]
    eps = rs.randn(*shape)
    z = mu + np.exp(0.5 * log_var) * eps
    recon = z @ W_dec
    kl = -0.5 * np.sum(1 + log_var - mu ** 2 - np.exp(log_var))
    return np.sum((recon - x) ** 2) + kl


@case(randn(4, 4, scale=0.5), randn(2, 4, scale=0.5), X_DATA, 3)
def iwae_bound(W_enc, W_dec, x, k):
    rs = npr.RandomState(2)
    h = x @ W_enc
    mu, log_std = h[:, :2], h[:, 2:]
    eps = rs.randn(k, *mu.shape)
    z = mu + np.exp(log_std) * eps                      # (k, batch, latent)
    log_q = diag_gaussian_log_density(z, mu, log_std)
    log_p = diag_gaussian_log_density(z, 0.0, 0.0) + \
        diag_gaussian_log_density(x, z @ W_dec, np.zeros(x.shape[1]))
    return -np.mean(logsumexp(log_p - log_q, axis=0) - np.log(k))


@case(randn(5, 2), randn(5, 2, scale=0.3), 4.0)
def beta_vae_kl(mu, log_var, beta):
    kl_per_dim = 0.5 * (np.exp(log_var) + mu ** 2 - 1.0 - log_var)
    return beta * np.mean(np.sum(kl_per_dim, axis=1))


@case(randn(7, 4, scale=0.4), randn(5, 4, scale=0.4), X_DATA, np.eye(3)[[0, 1, 2, 1, 0]])
def conditional_vae(W_enc, W_dec, x, y):
    rs = npr.RandomState(3)
    h = np.concatenate([x, y], axis=1) @ W_enc
    mu, log_std = np.split(h, 2, axis=1)
    z = mu + np.exp(log_std) * rs.randn(*mu.shape)
    recon = np.concatenate([z, y], axis=1) @ W_dec
    return np.sum((recon - x) ** 2) + np.sum(np.exp(2 * log_std) + mu ** 2 - 2 * log_std)


def black_box_variational_inference(logprob, D, num_samples):
    """As autograd's black_box_svi example: a factory of the variational objective."""
    def unpack_params(params):
        mean, log_std = params[:D], params[D:]
        return mean, log_std

    def gaussian_entropy(log_std):
        return 0.5 * D * (1.0 + np.log(2 * np.pi)) + np.sum(log_std)

    def variational_objective(params, t):
        rs = npr.RandomState(t)
        mean, log_std = unpack_params(params)
        samples = rs.randn(num_samples, D) * np.exp(log_std) + mean
        lower_bound = gaussian_entropy(log_std) + np.mean(logprob(samples, t))
        return -lower_bound
    return variational_objective


def banana_log_density(x, t):
    mu, log_sigma = x[:, 0], x[:, 1]
    return -0.5 * mu ** 2 / np.exp(2 * log_sigma) - log_sigma - 0.5 * log_sigma ** 2 / 1.35 ** 2


register("bbvi_objective_factory", black_box_variational_inference(banana_log_density, 2, 8),
         np.array([0.3, -0.2, -0.5, -0.4]), 4)


@case([(randn(2, scale=0.5), randn(2, scale=0.5), 0.1 * randn()) for _ in range(2)], randn(6, 2))
def planar_flow_log_det(flows, z):
    log_det = 0.0
    for u, w, b in flows:
        a = np.tanh(z @ w + b)
        psi = (1 - a ** 2)[:, None] * w
        log_det = log_det + np.log(np.abs(1 + psi @ u))
        z = z + a[:, None] * u
    return np.mean(0.5 * np.sum(z ** 2, axis=1) - log_det)


@case(randn(4, 6, scale=0.4), randn(2, 3, 4))
def decoder_reshape_starred(W, x):
    batch_shape = x.shape[:-1]
    flat = x.reshape(-1, x.shape[-1]) @ W
    out = flat.reshape(*batch_shape, -1)
    ones = np.ones((*out.shape[:-1], 1))
    return np.sum(np.concatenate([out, ones], axis=-1) ** 2)


@case(randn(3), randn(3, scale=0.2), randn(2, 3), 4)
def kl_to_mixture_prior_by_sampling(mu, log_std, prior_means, n):
    rs = npr.RandomState(4)
    z = mu + np.exp(log_std) * rs.randn(n, *mu.shape)
    log_q = diag_gaussian_log_density(z, mu, log_std)
    comps = [diag_gaussian_log_density(z, m, 0.0) for m in prior_means]
    log_p = logsumexp(np.stack(comps), axis=0) - np.log(len(comps))
    return np.mean(log_q - log_p)


# =======================================================================================
# G. Object-oriented models
# =======================================================================================
class Dense:
    def __init__(self, W, b, activation=np.tanh):
        self.W = W
        self.b = b
        self.activation = activation

    def forward(self, x):
        return self.activation(x @ self.W + self.b)


@case(randn(3, 4, scale=0.5), randn(4), randn(4, 2, scale=0.5), randn(2), X_SMALL)
def layer_objects_built_inside(W1, b1, W2, b2, x):
    layers = [Dense(W1, b1), Dense(W2, b2, activation=np.sin)]
    for layer in layers:
        x = layer.forward(x)
    return np.sum(x ** 2)


@case([Dense(randn(3, 3, scale=0.5), randn(3)), Dense(randn(3, 2, scale=0.5), randn(2))], X_SMALL)
def layer_objects_as_parameters(layers, x):
    for layer in layers:
        x = layer.forward(x)
    return np.sum(x ** 2)


_FIXED_LAYERS = [Dense(randn(3, 3, scale=0.5), randn(3)), Dense(randn(3, 2, scale=0.5), randn(2))]


@case(X_SMALL)
def fixed_layer_objects_wrt_input(x):
    for layer in _FIXED_LAYERS:
        x = layer.forward(x)
    return np.sum(x ** 2)


LinearParams = namedtuple("LinearParams", ["W", "b"])


@case(LinearParams(randn(3, 2), randn(2)), X_SMALL, Y_REG)
def namedtuple_params(p, x, y):
    return np.sum((x @ p.W + p.b - y) ** 2)


@case([LinearParams(randn(3, 3, scale=0.5), randn(3)), LinearParams(randn(3, 2, scale=0.5), randn(2))],
      X_SMALL)
def list_of_namedtuple_layers(params, x):
    for layer in params[:-1]:
        x = np.tanh(x @ layer.W + layer.b)
    return np.sum((x @ params[-1].W + params[-1].b) ** 2)


@case([LinearParams(randn(3, 3, scale=0.5), randn(3)), LinearParams(randn(3, 2, scale=0.5), randn(2))],
      X_SMALL)
def namedtuple_unpacked_like_tuples(params, x):
    for W, b in params:
        x = np.tanh(x @ W + b)
    return np.sum(x ** 2)


@dataclass
class MLPParams:
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray


@case(MLPParams(randn(3, 4, scale=0.5), randn(4), randn(4, 2, scale=0.5), randn(2)), X_SMALL, Y_REG)
def dataclass_params(p, x, y):
    h = np.tanh(x @ p.W1 + p.b1)
    return np.mean((h @ p.W2 + p.b2 - y) ** 2)


@dataclass
class RidgeModel:
    w: np.ndarray
    l2: float = 0.1

    def loss(self, X, y):
        return np.sum((X @ self.w - y) ** 2) + self.l2 * np.sum(self.w ** 2)


@case(RidgeModel(randn(3)), X_SMALL, Y_REG[:, 0])
def dataclass_method_loss(model, X, y):
    return model.loss(X, y)


@case(randn(3), X_SMALL, Y_REG[:, 0])
def dataclass_built_inside(w, X, y):
    model = RidgeModel(w, l2=0.5)
    return model.loss(X, y)


class Sequential:
    def __init__(self, *layers):
        self.layers = list(layers)

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Linear:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return x @ self.W + self.b


class Tanh:
    def __call__(self, x):
        return np.tanh(x)


@case(randn(3, 4, scale=0.5), randn(4), randn(4, 1, scale=0.5), randn(1), X_SMALL)
def sequential_module_call(W1, b1, W2, b2, x):
    model = Sequential(Linear(W1, b1), Tanh(), Linear(W2, b2))
    return np.sum(model(x) ** 2)


class Model:
    def __init__(self, X, y):
        self.X, self.y = X, y

    def predict(self, w):
        return self.X @ w

    def residuals(self, w):
        return self.predict(w) - self.y

    def loss(self, w):
        r = self.residuals(w)
        return r @ r / len(r)


_model = Model(X_SMALL, Y_REG[:, 1])
register("bound_method_self_calls", _model.loss, randn(3))


class Layer:
    def __init__(self, W):
        self.W = W

    def pre(self, x):
        return x @ self.W

    def forward(self, x):
        return self.pre(x)


class TanhLayer(Layer):
    def forward(self, x):
        return np.tanh(super().forward(x))


class SoftplusLayer(Layer):
    def forward(self, x):
        return np.logaddexp(0.0, self.pre(x))


@case(randn(3, 3, scale=0.5), randn(3, 2, scale=0.5), X_SMALL)
def inherited_layers_super(W1, W2, x):
    for layer in [TanhLayer(W1), SoftplusLayer(W2)]:
        x = layer.forward(x)
    return np.sum(x)


class Gaussian:
    def __init__(self, mean, log_std):
        self.mean, self.log_std = mean, log_std

    @classmethod
    def from_vector(cls, theta):
        d = len(theta) // 2
        return cls(theta[:d], theta[d:])

    @property
    def std(self):
        return np.exp(self.log_std)

    def log_prob(self, x):
        return np.sum(-0.5 * ((x - self.mean) / self.std) ** 2 - self.log_std)


@case(randn(6, scale=0.5), randn(4, 3))
def classmethod_and_property(theta, data):
    q = Gaussian.from_vector(theta)
    return -sum(q.log_prob(x) for x in data)


@case(randn(3, 3, scale=0.5), randn(3), randn(3, 2, scale=0.5), randn(2), X_SMALL)
def dict_of_layer_objects(We, be, Wd, bd, x):
    net = {"encoder": Dense(We, be), "decoder": Dense(Wd, bd, activation=lambda z: z)}
    return np.sum(net["decoder"].forward(net["encoder"].forward(x)) ** 2)


class Conv1D:
    def __init__(self, w):
        self.w = w


@case(randn(3), randn(3, 2, scale=0.5), randn(2), randn(8))
def isinstance_dispatch_on_layers(kernel, W, b, x):
    layers = [Conv1D(kernel), Dense(W, b)]
    for layer in layers:
        if isinstance(layer, Conv1D):
            k = len(layer.w)
            x = np.array([np.dot(x[i:i + k], layer.w) for i in range(0, len(x) - k + 1, 2)])
        elif isinstance(layer, Dense):
            x = layer.forward(x)
    return np.sum(x ** 2)


@dataclass(frozen=True)
class Spring:
    k: float
    rest: float

    def energy(self, x):
        return 0.5 * self.k * (x - self.rest) ** 2


@case(randn(4))
def frozen_dataclass_energy(x):
    springs = [Spring(1.5, 0.2), Spring(0.7, -0.1)]
    return sum(np.sum(s.energy(x)) for s in springs)


class LSTMState(NamedTuple):
    h: np.ndarray
    c: np.ndarray


def lstm_step(W, state, x):
    n = state.h.shape[0]
    g = np.concatenate([x, state.h]) @ W
    i, f, o, u = g[:n], g[n:2 * n], g[2 * n:3 * n], g[3 * n:]
    c = np.tanh(f) * state.c + np.tanh(i) * np.tanh(u)
    return LSTMState(h=np.tanh(o) * np.tanh(c), c=c)


@case(randn(5, 8, scale=0.4), randn(4, 3))
def typed_namedtuple_state(W, xs):
    state = LSTMState(np.zeros(2), np.zeros(2))
    for x in xs:
        state = lstm_step(W, state, x)
    return np.sum(state.h ** 2) + np.sum(state.c)


class Polynomial:
    def __init__(self, coeffs):
        self.coeffs = coeffs

    def __call__(self, x):
        return sum(c * x ** i for i, c in enumerate(self.coeffs))

    def derivative(self):
        return Polynomial([i * c for i, c in enumerate(self.coeffs)][1:])


@case(randn(4), randn(3))
def callable_object_with_method_returning_object(coeffs, x):
    p = Polynomial(coeffs)
    return np.sum(p(x) ** 2 + p.derivative()(x))


class Counter:
    def __init__(self):
        self.calls = 0
        self.total = 0.0

    def add(self, v):
        self.calls += 1
        self.total = self.total + v


@case(randn(4))
def attribute_writes_on_local_object(x):
    acc = Counter()
    for xi in x:
        acc.add(np.sin(xi) ** 2)
    return acc.total / acc.calls


class Params:
    """A plain object holding arrays (no dataclass)."""
    def __init__(self, W, b):
        self.W = W
        self.b = b


@case(Params(randn(3, 2), randn(2)), X_SMALL)
def plain_object_params(p, x):
    return np.sum(np.tanh(x @ p.W + p.b) ** 2)


@case(randn(3, 2), randn(2), X_SMALL)
def attribute_write_then_read(W, b, x):
    p = Params(W, b)
    p.W = p.W * 2.0
    p.b = p.b + 1.0
    return np.sum(np.tanh(x @ p.W + p.b))
