"""The Python people really write, part 2: recurrent cells with ``*args`` helpers,
mixture models with ``zip(*...)``, recursive trees, HMMs and state-space models.

See tests/corpus_idioms.py (the same conventions: ``case`` registers a function with its
float64 inputs; only ``np`` / ``npr`` / ``scipy.special`` are used, so that the test can
load a copy of the module on autograd.numpy).
"""
from functools import reduce

import numpy as np
from scipy.special import gammaln, logsumexp

import srcgrad as sg

from corpus_support import Corpus

_corpus = Corpus(20261202)            # this module's programs and inputs
CASES, case, register = _corpus.cases, _corpus.case, _corpus.register
randn, uniform = _corpus.randn, _corpus.uniform


def sigmoid(x):
    return 0.5 * (np.tanh(x / 2.0) + 1)


X_SMALL = randn(6, 3)
Y_REG = randn(6, 2)

# =======================================================================================
# C. Recurrent cells with *args helpers
# =======================================================================================
def concat_and_multiply(weights, *args):
    cat_state = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(cat_state, weights)


def create_rnn_params(input_size, state_size, output_size, scale=0.3):
    return {'init hiddens': scale * randn(1, state_size),
            'change': scale * randn(input_size + state_size + 1, state_size),
            'predict': scale * randn(state_size + 1, output_size)}


SEQ = randn(5, 2, 3)                       # time, batch, features
SEQ_TARGETS = np.eye(3)[np.array([[0, 1], [2, 2], [1, 0], [0, 0], [2, 1]])]


@case(create_rnn_params(3, 4, 3), SEQ, SEQ_TARGETS)
def rnn_log_likelihood(params, inputs, targets):
    """autograd's rnn example: predictions of every step, then their log-likelihood."""
    def update_rnn(input, hiddens):
        return np.tanh(concat_and_multiply(params['change'], input, hiddens))

    def hiddens_to_output_probs(hiddens):
        output = concat_and_multiply(params['predict'], hiddens)
        return output - logsumexp(output, axis=1, keepdims=True)

    num_sequences = inputs.shape[1]
    hiddens = np.repeat(params['init hiddens'], num_sequences, axis=0)
    output = [hiddens_to_output_probs(hiddens)]
    for input in inputs:
        hiddens = update_rnn(input, hiddens)
        output.append(hiddens_to_output_probs(hiddens))
    logprobs = output[1:]
    return np.sum([np.sum(lp * t) for lp, t in zip(logprobs, targets)]) / targets.shape[1]


def create_lstm_params(input_size, state_size, output_size, scale=0.3):
    def rp(*shape):
        return randn(*shape) * scale
    return {'init cells': rp(1, state_size), 'init hiddens': rp(1, state_size),
            'change': rp(input_size + state_size + 1, state_size),
            'forget': rp(input_size + state_size + 1, state_size),
            'ingate': rp(input_size + state_size + 1, state_size),
            'outgate': rp(input_size + state_size + 1, state_size),
            'predict': rp(state_size + 1, output_size)}


@case(create_lstm_params(3, 3, 3), SEQ, SEQ_TARGETS)
def lstm_log_likelihood(params, inputs, targets):
    def update_lstm(input, hiddens, cells):
        change = np.tanh(concat_and_multiply(params['change'], input, hiddens))
        forget = sigmoid(concat_and_multiply(params['forget'], input, hiddens))
        ingate = sigmoid(concat_and_multiply(params['ingate'], input, hiddens))
        outgate = sigmoid(concat_and_multiply(params['outgate'], input, hiddens))
        cells = cells * forget + ingate * change
        hiddens = outgate * np.tanh(cells)
        return hiddens, cells

    num_sequences = inputs.shape[1]
    hiddens = np.repeat(params['init hiddens'], num_sequences, axis=0)
    cells = np.repeat(params['init cells'], num_sequences, axis=0)
    loglik = 0.0
    for t, input in enumerate(inputs):
        hiddens, cells = update_lstm(input, hiddens, cells)
        out = concat_and_multiply(params['predict'], hiddens)
        loglik = loglik + np.sum((out - logsumexp(out, axis=1, keepdims=True)) * targets[t])
    return -loglik


def gru_cell(params, h, x):
    Wz, Uz, bz, Wr, Ur, br, Wh, Uh, bh = params
    z = sigmoid(x @ Wz + h @ Uz + bz)
    r = sigmoid(x @ Wr + h @ Ur + br)
    h_tilde = np.tanh(x @ Wh + (r * h) @ Uh + bh)
    return (1 - z) * h + z * h_tilde


def gru_params(n_in, n_h, scale=0.4):
    return tuple(scale * randn(*s) for _ in range(3) for s in [(n_in, n_h), (n_h, n_h), (n_h,)])


@case(gru_params(3, 2), SEQ[:, 0, :])
def gru_sequence_loss(params, xs):
    h = np.zeros(2)
    states = []
    for x in xs:
        h = gru_cell(params, h, x)
        states.append(h)
    return np.sum(np.stack(states) ** 2)


@case(randn(3, 4, scale=0.4), randn(4, 4, scale=0.4), randn(4), SEQ[:, 1, :])
def rnn_reduce_over_time(W, U, b, xs):
    def cell(h, x):
        return np.tanh(x @ W + h @ U + b)
    h = reduce(cell, xs, np.zeros(4))
    return np.sum(h)


def scan(f, init, xs):
    """jax.lax.scan, the Python way."""
    carry = init
    ys = []
    for x in xs:
        carry, y = f(carry, x)
        ys.append(y)
    return carry, np.stack(ys)


@case((randn(3, 3, scale=0.5), randn(3, 3, scale=0.5), randn(3, 1, scale=0.5)), SEQ[:, 0, :],
      randn(5))
def scan_rnn_regression(params, xs, ys):
    W_x, W_h, W_y = params

    def step(h, x):
        h = np.tanh(x @ W_x + h @ W_h)
        return h, (h @ W_y)[0]
    _, preds = scan(step, np.zeros(3), xs)
    return np.mean((preds - ys) ** 2)


@case(randn(3, 2, scale=0.5), randn(2, 2, scale=0.5), randn(3, 2, scale=0.5),
      randn(2, 2, scale=0.5), SEQ[:, 0, :])
def bidirectional_rnn(Wf, Uf, Wb, Ub, xs):
    def run(W, U, seq):
        h, hs = np.zeros(W.shape[1]), []
        for x in seq:
            h = np.tanh(x @ W + h @ U)
            hs.append(h)
        return hs
    forward = run(Wf, Uf, xs)
    backward = list(reversed(run(Wb, Ub, xs[::-1])))
    both = [np.concatenate([f, b]) for f, b in zip(forward, backward)]
    return np.sum(np.stack(both) ** 2)


def lstm_layer(params, xs):
    W, b = params
    n = W.shape[1] // 4
    h, c = np.zeros(n), np.zeros(n)
    outs = []
    for x in xs:
        gates = np.concatenate([x, h]) @ W + b
        i, f, o, g = (gates[k * n:(k + 1) * n] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs)


def stacked_lstm(xs, *layers):
    for p in layers:
        xs = lstm_layer(p, xs)
    return xs


@case([(randn(5, 8, scale=0.4), randn(8, scale=0.1)), (randn(4, 8, scale=0.4), randn(8, scale=0.1))],
      SEQ[:, 0, :])
def stacked_lstm_star_layers(params, xs):
    return np.sum(stacked_lstm(xs, *params) ** 2)


def elman_cell(h, x, W, U, b, act=np.tanh, **opts):
    z = x @ W + h @ U + b
    if opts.get("layer_norm", False):
        z = (z - z.mean()) / np.sqrt(z.var() + 1e-5)
    return act(z)


@case(randn(3, 4, scale=0.5), randn(4, 4, scale=0.5), randn(4), SEQ[:, 0, :])
def elman_kwargs_forwarded(W, U, b, xs):
    opts = {"layer_norm": True}
    h = np.zeros(4)
    for x in xs:
        h = elman_cell(h, x, W, U, b, act=np.sin, **opts)
    return np.sum(h ** 2)


@case(randn(3, 3, scale=0.8), randn(3, 3, scale=0.8), SEQ[:, 0, :])
def rnn_while_norm_bound(W, U, xs):
    h = np.zeros(3)
    t = 0
    while t < len(xs) and np.linalg.norm(h) < 1.2:
        h = np.tanh(xs[t] @ W + h @ U)
        t += 1
    return np.sum(h) + t


@case(randn(3, 4, scale=0.5), randn(4, 4, scale=0.5), randn(4), SEQ[:, 0, :])
def rnn_attention_readout(W, U, v, xs):
    h, hs = np.zeros(4), []
    for x in xs:
        h = np.tanh(x @ W + h @ U)
        hs.append(h)
    scores = np.array([np.dot(v, s) for s in hs])
    alphas = np.exp(scores - logsumexp(scores))
    context = sum(a * s for a, s in zip(alphas, hs))
    return np.sum(context ** 2)


@case(randn(4, 5, scale=0.4), randn(5, 5, scale=0.4), randn(5, 4, scale=0.4),
      np.array([0, 3, 1, 2, 2, 0]))
def char_rnn_loss(Wxh, Whh, Why, text):
    xs = np.eye(4)[text[:-1]]
    h = np.zeros(5)
    loss = 0.0
    for x, target in zip(xs, text[1:]):
        h = np.tanh(x @ Wxh + h @ Whh)
        logits = h @ Why
        loss = loss - (logits[target] - logsumexp(logits))
    return loss / (len(text) - 1)


def rnn_cell_args(*args):
    x, h, W, U = args
    return np.tanh(x @ W + h @ U)


@case(randn(3, 3, scale=0.5), randn(3, 3, scale=0.5), SEQ[:, 1, :])
def rnn_cell_star_args_only(W, U, xs):
    h = np.zeros(3)
    for x in xs:
        h = rnn_cell_args(*(x, h), *[W, U])
    return np.sum(h ** 3)


# =======================================================================================
# D. Mixture models with zip(*...)
# =======================================================================================
GMM_DATA = np.concatenate([randn(6) - 1.5, randn(6) + 1.0])


def init_gmm(k):
    return [(0.1 * randn(), randn(), 0.1 * randn()) for _ in range(k)]


@case(init_gmm(3), GMM_DATA)
def gmm_log_likelihood_zip_star(components, data):
    logits, means, log_stds = zip(*components)
    logits, means, log_stds = np.array(logits), np.array(means), np.array(log_stds)
    log_weights = logits - logsumexp(logits)
    z = (data[:, None] - means[None, :]) / np.exp(log_stds)
    log_dens = -0.5 * z ** 2 - log_stds - 0.5 * np.log(2 * np.pi)
    return -np.sum(logsumexp(log_weights + log_dens, axis=1))


@case({"logits": randn(3), "means": randn(3), "log_stds": randn(3, scale=0.1)}, GMM_DATA)
def gmm_dict_comprehension(params, data):
    comps = {k: (params["means"][k], np.exp(params["log_stds"][k])) for k in range(3)}
    log_w = params["logits"] - logsumexp(params["logits"])
    per_k = [log_w[k] - 0.5 * ((data - mu) / s) ** 2 - np.log(s) for k, (mu, s) in comps.items()]
    return -np.sum(logsumexp(np.stack(per_k), axis=0))


@case([(randn(3), 0.1 * randn()) for _ in range(2)], randn(3, 2, scale=0.5), X_SMALL, Y_REG[:, 0])
def mixture_of_linear_experts(experts, W_gate, X, y):
    weights, biases = zip(*experts)
    preds = np.stack([X @ w + b for w, b in zip(weights, biases)], axis=1)
    gate_logits = X @ W_gate
    log_gates = gate_logits - logsumexp(gate_logits, axis=1, keepdims=True)
    log_lik = log_gates - 0.5 * (preds - y[:, None]) ** 2
    return -np.sum(logsumexp(log_lik, axis=1))


@case(init_gmm(2), GMM_DATA)
def em_q_function_detached_responsibilities(components, data):
    logits, means, log_stds = map(np.array, zip(*components))
    log_w = logits - logsumexp(logits)
    log_joint = log_w - 0.5 * ((data[:, None] - means) / np.exp(log_stds)) ** 2 - log_stds
    resp = sg.detach(np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True)))
    return -np.sum(resp * log_joint)


def mvn_logpdf(x, mean, L):
    """log N(x; mean, L L^T) with L lower triangular."""
    cov = L @ L.T + 1e-6 * np.eye(len(mean))
    d = x - mean
    sign, logdet = np.linalg.slogdet(cov)
    maha = np.sum(d * np.linalg.solve(cov, d.T).T, axis=1)
    return -0.5 * (maha + logdet + len(mean) * np.log(2 * np.pi))


@case([(randn(2), np.tril(randn(2, 2, scale=0.3)) + np.eye(2)) for _ in range(2)], randn(2),
      randn(7, 2))
def gmm_full_covariance(components, logits, X):
    means, chols = zip(*components)
    log_w = logits - logsumexp(logits)
    logps = np.stack([mvn_logpdf(X, m, np.tril(L)) for m, L in zip(means, chols)], axis=1)
    return -np.sum(logsumexp(logps + log_w, axis=1))


def student_t_logpdf(x, mu, log_scale, nu):
    s = np.exp(log_scale)
    z = (x - mu) / s
    return (gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi) - log_scale
            - (nu + 1) / 2 * np.log1p(z ** 2 / nu))


@case(randn(2), randn(2, scale=0.1), np.array([3.0, 5.0]), GMM_DATA)
def student_t_mixture(mus, log_scales, nus, data):
    comps = [student_t_logpdf(data, m, ls, nu) for m, ls, nu in zip(mus, log_scales, nus)]
    return -np.sum(logsumexp(np.stack(comps) + np.log(0.5), axis=0))


@case(randn(3, 9, scale=0.4), X_SMALL, Y_REG[:, 0])
def mixture_density_network(W, X, y):
    out = X @ W
    logit_pi, mu, log_sigma = np.split(out, 3, axis=1)
    log_pi = logit_pi - logsumexp(logit_pi, axis=1, keepdims=True)
    log_n = -0.5 * ((y[:, None] - mu) / np.exp(log_sigma)) ** 2 - log_sigma
    return -np.mean(logsumexp(log_pi + log_n, axis=1))


PAIRS = [(float(a), float(b)) for a, b in zip(randn(6), randn(6))]


@case(0.5, -0.3, PAIRS)
def regression_on_zip_star_pairs(slope, intercept, data):
    xs, ys = zip(*data)
    xs, ys = np.array(xs), np.array(ys)
    return np.sum((slope * xs + intercept - ys) ** 2)


@case(0.4, randn(8), randn(5))
def kernel_density_log_likelihood(log_bw, samples, test_points):
    bw = np.exp(log_bw)
    diffs = (test_points[:, None] - samples[None, :]) / bw
    log_k = -0.5 * diffs ** 2 - np.log(bw) - 0.5 * np.log(2 * np.pi)
    return -np.sum(logsumexp(log_k, axis=1) - np.log(len(samples)))


@case(np.array([1.5, 2.0, 0.8]), np.array([0.2, 0.5, 0.3]))
def dirichlet_log_density(alpha, p):
    return np.sum(gammaln(alpha)) - gammaln(np.sum(alpha)) - np.sum((alpha - 1) * np.log(p))


@case(init_gmm(3), GMM_DATA)
def gmm_dominant_component_max_key(components, data):
    logits = np.array([c[0] for c in components])
    weights = np.exp(logits - logsumexp(logits))
    k = max(range(len(components)), key=lambda j: weights[j])
    _, mu, log_std = components[k]
    return np.sum(((data - mu) / np.exp(log_std)) ** 2) + np.sum(weights ** 2)


@case([(randn(3), randn(3, scale=0.2)) for _ in range(3)])
def zip_star_of_comprehension(comps):
    sums, spreads = zip(*[(np.sum(m), np.sum(np.exp(s))) for m, s in comps])
    return np.dot(np.array(sums), np.array(spreads))


# =======================================================================================
# E. Recursive trees, HMMs and state-space models
# =======================================================================================
TREE = ((randn(2), (randn(3), randn(2))), randn(1))


def tree_sum_squares(t):
    if isinstance(t, tuple):
        return sum(tree_sum_squares(c) for c in t)
    return np.sum(t ** 2)


@case(TREE)
def recursive_tree_sum(tree):
    return tree_sum_squares(tree)


def encode(node, E, W, b):
    if isinstance(node, int):
        return E[node]
    left, right = node
    children = np.concatenate([encode(left, E, W, b), encode(right, E, W, b)])
    return np.tanh(W @ children + b)


@case(randn(4, 3, scale=0.5), randn(3, 6, scale=0.5), randn(3), ((0, 1), (2, (3, 0))))
def tree_rnn_encoder(E, W, b, tree):
    return np.sum(encode(tree, E, W, b) ** 2)


def power(x, n):
    return 1.0 if n == 0 else x * power(x, n - 1)


@case(randn(3))
def recursive_power(x):
    return np.sum(power(x, 4))


def even_terms(x, n):
    return 0.0 if n == 0 else np.cos(n * x) + odd_terms(x, n - 1)


def odd_terms(x, n):
    return 0.0 if n == 0 else np.sin(n * x) + even_terms(x, n - 1)


@case(randn(3))
def mutual_recursion_series(x):
    return np.sum(even_terms(x, 5))


HMM_OBS = np.array([0, 1, 1, 2, 0, 2])


@case(randn(3, 3, scale=0.5), randn(3, 3, scale=0.5), randn(3, scale=0.5), HMM_OBS)
def hmm_forward_algorithm(A_logits, B_logits, pi_logits, obs):
    log_A = A_logits - logsumexp(A_logits, axis=1, keepdims=True)
    log_B = B_logits - logsumexp(B_logits, axis=1, keepdims=True)
    log_alpha = pi_logits - logsumexp(pi_logits) + log_B[:, obs[0]]
    for o in obs[1:]:
        log_alpha = logsumexp(log_alpha[:, None] + log_A, axis=0) + log_B[:, o]
    return -logsumexp(log_alpha)


def log_alpha_rec(t, log_A, log_B, log_pi, obs):
    if t == 0:
        return log_pi + log_B[:, obs[0]]
    prev = log_alpha_rec(t - 1, log_A, log_B, log_pi, obs)
    return logsumexp(prev[:, None] + log_A, axis=0) + log_B[:, obs[t]]


@case(randn(3, 3, scale=0.5), randn(3, 3, scale=0.5), HMM_OBS)
def hmm_forward_recursive(A_logits, B_logits, obs):
    log_A = A_logits - logsumexp(A_logits, axis=1, keepdims=True)
    log_B = B_logits - logsumexp(B_logits, axis=1, keepdims=True)
    log_pi = np.log(np.ones(3) / 3)
    return -logsumexp(log_alpha_rec(len(obs) - 1, log_A, log_B, log_pi, obs))


@case(randn(3, 3, scale=0.5), randn(3, 3, scale=0.5), HMM_OBS)
def hmm_backward_reversed_range(A_logits, B_logits, obs):
    log_A = A_logits - logsumexp(A_logits, axis=1, keepdims=True)
    log_B = B_logits - logsumexp(B_logits, axis=1, keepdims=True)
    log_beta = np.zeros(3)
    for t in reversed(range(len(obs) - 1)):
        log_beta = logsumexp(log_A + log_B[:, obs[t + 1]] + log_beta, axis=1)
    return -logsumexp(np.log(1 / 3) + log_B[:, obs[0]] + log_beta)


@case(randn(3, 3, scale=2.0), randn(3, 3), HMM_OBS)
def viterbi_path_score(log_A, log_B, obs):
    score = log_B[:, obs[0]]
    for o in obs[1:]:
        cand = score[:, None] + log_A
        best_prev = np.argmax(cand, axis=0)
        score = cand[best_prev, np.arange(3)] + log_B[:, o]
    return max(score)


def tree_map(f, tree):
    if isinstance(tree, dict):
        return {k: tree_map(f, v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(tree_map(f, v) for v in tree)
    return f(tree)


@case({"enc": [randn(2, 2), randn(2)], "dec": (randn(3),)})
def recursive_tree_map(params):
    squared = tree_map(lambda p: np.sum(np.sin(p) ** 2), params)
    return sum(squared["enc"]) + squared["dec"][0]


def horner(coeffs, x):
    return coeffs[0] if len(coeffs) == 1 else coeffs[0] + x * horner(coeffs[1:], x)


@case(randn(4), randn(3))
def recursive_horner(coeffs, x):
    return np.sum(horner(coeffs, x))


def continued_fraction(x, depth):
    if depth == 0:
        return x
    return x + 1.0 / (2.0 + continued_fraction(x, depth - 1))


@case(uniform(0.5, 1.5, 3))
def recursive_continued_fraction(x):
    return np.sum(continued_fraction(x, 4))


@case(np.array([[0.9, 0.1], [0.0, 0.95]]), -1.0, -0.5, randn(6, 2))
def kalman_filter_log_likelihood(F, log_q, log_r, ys):
    Q, R = np.exp(log_q) * np.eye(2), np.exp(log_r) * np.eye(2)
    m, P = np.zeros(2), np.eye(2)
    ll = 0.0
    for y in ys:
        m, P = F @ m, F @ P @ F.T + Q
        S = P + R
        v = y - m
        K = P @ np.linalg.inv(S)
        ll = ll - 0.5 * (v @ np.linalg.solve(S, v) + np.linalg.slogdet(S)[1])
        m, P = m + K @ v, P - K @ S @ K.T
    return -ll


def weighted_fib(n, a, b, memo):
    if n in memo:
        return memo[n]
    memo[n] = a * weighted_fib(n - 1, a, b, memo) + b * weighted_fib(n - 2, a, b, memo)
    return memo[n]


@case(0.6, 0.3)
def memoized_recursion(a, b):
    return weighted_fib(6, a, b, {0: 1.0, 1: 1.0})


def depth_by_data(x, tol):
    if np.abs(x).max() < tol:
        return np.sum(x)
    return np.sum(x) + depth_by_data(0.5 * np.tanh(x), tol)


@case(randn(3))
def recursion_depth_decided_by_data(x):
    return depth_by_data(x, 0.05)
