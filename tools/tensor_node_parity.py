"""grad_fn graphs of about 135 Tensor operations, srcgrad against real torch (float64):
the node names and next_functions, depth 6, of each result (first order) and of its
gradient taken with create_graph=True (double backward).  Prints the ones that differ.

    .venv/bin/python tools/tensor_node_parity.py
"""
import sys
import numpy as np
import torch
import srcgrad as sg

def walk(fn, depth=0, maxd=6):
    if fn is None:
        return None
    name = type(fn).__name__
    if depth >= maxd:
        return name
    return (name, tuple(walk(n, depth + 1, maxd) for n, _ in fn.next_functions))

def X(L, shape=(3, 4), seed=0, rg=True):
    r = np.random.default_rng(seed).standard_normal(shape)
    return L.tensor(r.tolist(), dtype=L.float64, requires_grad=rg)

F = lambda L: L.nn.functional
FIRST = {
 "sigmoid": lambda L, x: L.sigmoid(x),
 "m.sigmoid": lambda L, x: x.sigmoid(),
 "gelu": lambda L, x: F(L).gelu(x),
 "gelu_tanh": lambda L, x: F(L).gelu(x, approximate="tanh"),
 "softplus": lambda L, x: F(L).softplus(x),
 "neg": lambda L, x: -x,
 "m.neg": lambda L, x: x.neg(),
 "mul_scalar": lambda L, x: x * 3,
 "rmul_scalar": lambda L, x: 3 * x,
 "add_scalar": lambda L, x: x + 3,
 "radd_scalar": lambda L, x: 3 + x,
 "sub_scalar": lambda L, x: x - 3,
 "rsub_scalar": lambda L, x: 3 - x,
 "div_scalar": lambda L, x: x / 3,
 "rdiv_scalar": lambda L, x: 3 / x,
 "pow_scalar": lambda L, x: x ** 2,
 "rpow_scalar": lambda L, x: 2 ** x,
 "pow_t": lambda L, x: x.abs() ** x,
 "t": lambda L, x: x.t(),
 "T": lambda L, x: x.T,
 "mT": lambda L, x: x.mT,
 "transpose": lambda L, x: x.transpose(0, 1),
 "permute": lambda L, x: x.permute(1, 0),
 "reshape": lambda L, x: x.reshape(12),
 "view": lambda L, x: x.view(4, 3),
 "flatten": lambda L, x: x.flatten(),
 "unsqueeze": lambda L, x: x.unsqueeze(0),
 "squeeze": lambda L, x: x.unsqueeze(0).squeeze(0),
 "squeeze_dim": lambda L, x: x.unsqueeze(0).squeeze(),
 "expand": lambda L, x: x[:1].expand(3, 4),
 "index": lambda L, x: x[1],
 "slice": lambda L, x: x[:, 1:3],
 "fancy": lambda L, x: x[[0, 2]],
 "mask": lambda L, x: x[x > 0],
 "exp": lambda L, x: x.exp(), "log": lambda L, x: x.abs().log(), "sin": lambda L, x: x.sin(),
 "cos": lambda L, x: x.cos(), "tanh": lambda L, x: x.tanh(), "sqrt": lambda L, x: x.abs().sqrt(),
 "rsqrt": lambda L, x: x.abs().rsqrt(), "abs": lambda L, x: x.abs(), "relu": lambda L, x: x.relu(),
 "F.relu": lambda L, x: F(L).relu(x), "leaky_relu": lambda L, x: F(L).leaky_relu(x),
 "elu": lambda L, x: F(L).elu(x), "silu": lambda L, x: F(L).silu(x),
 "mish": lambda L, x: F(L).mish(x), "hardtanh": lambda L, x: F(L).hardtanh(x),
 "logsigmoid": lambda L, x: F(L).logsigmoid(x),
 "softmax": lambda L, x: x.softmax(1), "log_softmax": lambda L, x: x.log_softmax(1),
 "F.softmax": lambda L, x: F(L).softmax(x, dim=1),
 "sum": lambda L, x: x.sum(), "sum_dim": lambda L, x: x.sum(1), "mean": lambda L, x: x.mean(),
 "mean_dim": lambda L, x: x.mean(0), "prod": lambda L, x: x.prod(), "max": lambda L, x: x.max(),
 "max_dim": lambda L, x: x.max(1)[0], "min": lambda L, x: x.min(), "amax": lambda L, x: x.amax(1),
 "var": lambda L, x: x.var(), "std": lambda L, x: x.std(), "norm": lambda L, x: x.norm(),
 "logsumexp": lambda L, x: x.logsumexp(1), "cumsum": lambda L, x: x.cumsum(0),
 "matmul": lambda L, x: x @ x.t(), "mm": lambda L, x: x.mm(x.t()),
 "matvec": lambda L, x: x @ x[0], "dot": lambda L, x: x[0].dot(x[1]),
 "bmm": lambda L, x: x.unsqueeze(0).bmm(x.t().unsqueeze(0)),
 "mul": lambda L, x: x * x, "add": lambda L, x: x + x, "sub": lambda L, x: x - x.exp(),
 "div": lambda L, x: x / x.exp(), "clamp": lambda L, x: x.clamp(-0.5, 0.5),
 "clamp_min": lambda L, x: x.clamp(min=0.1), "where": lambda L, x: L.where(x > 0, x, x * 2),
 "cat": lambda L, x: L.cat([x, x]), "stack": lambda L, x: L.stack([x, x]),
 "split": lambda L, x: x.split(2, 1)[0], "chunk": lambda L, x: x.chunk(2)[1],
 "square": lambda L, x: x.square(), "reciprocal": lambda L, x: x.reciprocal(),
 "sign_mul": lambda L, x: x.sign() * x,
 "clone": lambda L, x: x.clone(), "to_float": lambda L, x: x.float(),
 "detach_mul": lambda L, x: x.detach() * x,
 "repeat": lambda L, x: x.repeat(2, 1), "flip": lambda L, x: x.flip(0),
 "roll": lambda L, x: x.roll(1, 0), "tril": lambda L, x: x.tril(),
 "diag": lambda L, x: x[:3, :3].diag(), "trace": lambda L, x: x[:3, :3].trace(),
 "gather": lambda L, x: x.gather(1, L.tensor([[0], [1], [2]])),
 "linear": lambda L, x: F(L).linear(x, x[:2]),
 "linear_b": lambda L, x: F(L).linear(x, x[:2], x[0, :2]),
 "layer_norm": lambda L, x: F(L).layer_norm(x, (4,)),
 "dropout_eval": lambda L, x: F(L).dropout(x, training=False),
 "mse": lambda L, x: F(L).mse_loss(x, x.detach() * 2),
 "l1": lambda L, x: F(L).l1_loss(x, x.detach() * 2),
 "huber": lambda L, x: F(L).huber_loss(x, x.detach() * 2),
 "smooth_l1": lambda L, x: F(L).smooth_l1_loss(x, x.detach() * 2),
 "nll": lambda L, x: F(L).nll_loss(x.log_softmax(1), L.tensor([0, 3, 1])),
 "cross_entropy": lambda L, x: F(L).cross_entropy(x, L.tensor([0, 3, 1])),
 "cross_entropy_probs": lambda L, x: F(L).cross_entropy(x, x.detach().softmax(1)),
 "bce": lambda L, x: F(L).binary_cross_entropy(x.sigmoid(), x.detach().sigmoid()),
 "bce_logits": lambda L, x: F(L).binary_cross_entropy_with_logits(x, x.detach().sigmoid()),
 "normalize": lambda L, x: F(L).normalize(x),
 "cosine_similarity": lambda L, x: F(L).cosine_similarity(x, x.exp()),
 "einsum": lambda L, x: L.einsum("ij,kj->ik", x, x),
 "atan2": lambda L, x: L.atan2(x, x.exp()),
 "maximum": lambda L, x: L.maximum(x, x.t().t() * 0.5),
 "lerp": lambda L, x: L.lerp(x, x.exp(), 0.3),
 "addmm": lambda L, x: L.addmm(x[:, :3], x, x.t()[:, :3]) if False else L.addmm(x[:3, :3], x[:3], x.t()[:, :3]),
 "outer": lambda L, x: L.outer(x[0], x[1]),
 "masked_fill": lambda L, x: x.masked_fill(x > 0, 0.0),
 "embedding": lambda L, x: F(L).embedding(L.tensor([0, 2]), x),
 "pad": lambda L, x: F(L).pad(x, (1, 1)),
 "sinh": lambda L, x: x.sinh(), "asinh": lambda L, x: x.asinh(), "erf": lambda L, x: x.erf(),
 "log1p": lambda L, x: x.abs().log1p(), "expm1": lambda L, x: x.expm1(),
 "log2": lambda L, x: x.abs().log2(), "tan": lambda L, x: x.tan(),
 "atan": lambda L, x: x.atan(), "floor_mul": lambda L, x: x.floor() * x,
 "narrow": lambda L, x: x.narrow(1, 0, 2), "select": lambda L, x: x.select(0, 1),
 "unbind": lambda L, x: x.unbind(0)[1], "movedim": lambda L, x: x.movedim(0, 1),
 "contiguous": lambda L, x: x.t().contiguous(),
 "sdpa": lambda L, x: F(L).scaled_dot_product_attention(x, x, x),
}

def run_first(L, name, f):
    x = X(L)
    y = f(L, x)
    return walk(y.grad_fn)

def run_double(L, name, f):
    x = X(L)
    y = f(L, x)
    s = y.sum() if y.dim() else y
    g, = L.autograd.grad(s, x, create_graph=True)
    return walk(g.grad_fn, maxd=5)

def compare(kind, runner):
    bad = []
    for name, f in FIRST.items():
        try:
            a = runner(torch, name, f)
        except Exception as e:
            a = f"ERR {type(e).__name__}: {e}"
        try:
            b = runner(sg, name, f)
        except Exception as e:
            b = f"ERR {type(e).__name__}: {str(e)[:200]}"
        if a != b:
            bad.append((name, a, b))
    return bad

if __name__ == "__main__":
    for kind, runner in (("first", run_first), ("double", run_double)):
        bad = compare(kind, runner)
        print(f"== {kind}: {len(bad)} of {len(FIRST)} differ")
        for name, a, b in bad:
            print(f"-- {name}\n   torch: {a}\n   sg:    {b}")
