# The grad_fn of common operations as print() shows them (step functions included: their
# gradient is zero), and the next_functions of a small graph.
import torch
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
y = torch.tensor([[0.5, -1.], [2., 0.25]], requires_grad=True)
ops = {
    "add": "x + y", "sub": "x - y", "mul": "x * y", "div": "x / y", "neg": "-x", "pow": "x ** 2", "rpow": "2 ** x",
    "powt": "x ** y", "matmul": "x @ y", "mv": "x @ y[0]", "dot": "x[0] @ y[0]", "exp": "x.exp()", "log": "x.log()",
    "sqrt": "x.sqrt()", "rsqrt": "x.rsqrt()", "sin": "x.sin()", "cos": "x.cos()", "tan": "x.tan()", "tanh": "x.tanh()",
    "sigmoid": "x.sigmoid()", "relu": "x.relu()", "abs": "x.abs()", "clamp": "x.clamp(0, 2)", "clamp_min": "x.clamp(min=1)",
    "sum": "x.sum()", "sum0": "x.sum(0)", "mean": "x.mean()", "mean1": "x.mean(1)", "prod": "x.prod()",
    "max": "x.max()", "max0": "x.max(0).values", "amax": "x.amax(1)", "min": "x.min()", "norm": "x.norm()",
    "var": "x.var()", "std": "x.std()", "logsumexp": "x.logsumexp(1)", "softmax": "x.softmax(1)",
    "log_softmax": "x.log_softmax(1)", "cumsum": "x.cumsum(0)", "t": "x.t()", "T": "x.T", "transpose": "x.transpose(0, 1)",
    "permute": "x.permute(1, 0)", "reshape": "x.reshape(4)", "view": "x.view(4)", "flatten": "x.flatten()",
    "unsqueeze": "x.unsqueeze(0)", "squeeze": "x[None].squeeze(0)", "expand": "x[:1].expand(3, 2)",
    "index": "x[0]", "slice": "x[:, 1:]", "fancy": "x[[0, 1, 0]]", "mask": "x[x > 1]", "cat": "torch.cat([x, y])",
    "stack": "torch.stack([x, y])", "where": "torch.where(x > 2, x, y)", "maximum": "torch.maximum(x, y)",
    "clone": "x.clone()", "to64": "x.double()", "flip": "x.flip(0)", "repeat": "x.repeat(2, 1)", "tril": "x.tril()",
    "diag": "x.diag()", "trace": "x.trace()", "outer": "torch.outer(x[0], y[0])",
    "sign": "x.sign()", "floor": "x.floor()", "round": "x.round()", "erf": "torch.erf(x)", "log1p": "x.log1p()",
    "expm1": "x.expm1()", "square": "x.square()", "reciprocal": "x.reciprocal()", "lerp": "torch.lerp(x, y, 0.3)",
    "atan2": "torch.atan2(x, y)", "addmm": "torch.addmm(x, x, y)", "chunk": "x.chunk(2)[0]", "split": "x.split(1, 1)[1]",
    "narrow": "x.narrow(0, 1, 1)", "select": "x.select(1, 0)", "gather": "x.gather(1, torch.tensor([[1], [0]]))",
    "masked_fill": "x.masked_fill(x > 2, 0.)", "roll": "x.roll(1, 0)", "mse": "torch.nn.functional.mse_loss(x, y)",
    "linear": "torch.nn.functional.linear(x, y)", "linear_b": "torch.nn.functional.linear(x, y, y[0])",
    "bmm": "torch.bmm(x[None], y[None])", "mm": "torch.mm(x, y)", "baddbmm": "x[None] @ y[None]", "sum_dims": "x.sum((0, 1))",
    "softplus": "torch.nn.functional.softplus(x)", "gelu": "torch.nn.functional.gelu(x)", "silu": "torch.nn.functional.silu(x)",
    "leaky": "torch.nn.functional.leaky_relu(x)", "elu": "torch.nn.functional.elu(x)", "hardtanh": "torch.nn.functional.hardtanh(x)",
    "ce": "torch.nn.functional.cross_entropy(x, torch.tensor([0, 1]))", "nll": "torch.nn.functional.nll_loss(x, torch.tensor([0, 1]))",
    "bce": "torch.nn.functional.binary_cross_entropy_with_logits(x, y.detach())", "l1": "torch.nn.functional.l1_loss(x, y)",
    "layer_norm": "torch.nn.functional.layer_norm(x, (2,))", 
    "pad": "torch.nn.functional.pad(x, (1, 1))", "normalize": "torch.nn.functional.normalize(x)",
    "abs_": "x.abs().abs_()", "mul_": "(x * 1).mul_(2)", "add_": "(x * 1).add_(y)", "copy_": "torch.zeros(2, 2).copy_(x)",
    "minimum": "torch.minimum(x, y)", "sort": "x.sort(1).values", "topk": "x.topk(1).values",
    "cumprod": "x.cumprod(1)", "triu": "x.triu()", "diagonal": "x.diagonal()", "kron": "torch.kron(x, y)",
    "cross_ent_sm": "x.softmax(1).log()",
    "unbind": "x.unbind(0)[1]", "movedim": "x.movedim(0, 1)", "contiguous": "x.t().contiguous()", 
    "fmod": "x % 2", "hypot": "torch.hypot(x, y)", "logaddexp": "torch.logaddexp(x, y)",
}
for name, src in ops.items():
    print(name, eval(src).grad_fn)
z = (x * y + x.exp()).sum()
print(z.grad_fn.next_functions)
print(z.grad_fn.next_functions[0][0].next_functions)
print(z.grad_fn.next_functions[0][0].next_functions[0][0].next_functions)
s = (x.sign() * x + x.round()).sum()
s.backward()
print(x.grad)
c = torch.zeros(2, 2)
c.copy_(x)
print(c.grad_fn, c.requires_grad)
