"""torch.nn and torch.optim: the same programs run with srcgrad and with PyTorch (the
oracle; skipped when it is not installed) print the same losses, step by step.

Random initialisation differs between the two (different generators), so each
program copies one set of initial weights into both models.
"""
import math

import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")


def _same_weights(ours, theirs):
    with torch.no_grad(), sg.no_grad():
        for p, q in zip(ours.parameters(), theirs.parameters()):
            p.copy_(sg.tensor(q.detach().numpy()).to(p.dtype))


# -- the polynomial fit of PyTorch's "learning PyTorch with examples" ---------------------------

def _poly_losses(lib, model, make_opt, steps, dtype="float32"):
    x = lib.linspace(-math.pi, math.pi, 200, dtype=getattr(lib, dtype))
    y = lib.sin(x)
    xx = x.unsqueeze(-1).pow(lib.tensor([1, 2, 3]))
    loss_fn = lib.nn.MSELoss(reduction="sum")
    opt = make_opt(lib, model)
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(xx), y)
        losses.append(loss.item())
        if opt is None:
            model.zero_grad()
            loss.backward()
            with lib.no_grad():
                for p in model.parameters():
                    p -= 1e-5 * p.grad
        else:
            opt.zero_grad()
            loss.backward()
            opt.step()
    return losses


def _poly_model(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 1), lib.nn.Flatten(0, 1))


OPTIMIZERS = {
    "manual": lambda lib, m: None,
    "sgd": lambda lib, m: lib.optim.SGD(m.parameters(), lr=1e-5),
    "sgd_momentum": lambda lib, m: lib.optim.SGD(m.parameters(), lr=1e-5, momentum=0.9),
    "sgd_nesterov_wd": lambda lib, m: lib.optim.SGD(m.parameters(), lr=1e-5, momentum=0.8,
                                                    nesterov=True, weight_decay=0.1),
    "sgd_dampening": lambda lib, m: lib.optim.SGD(m.parameters(), lr=1e-5, momentum=0.5,
                                                  dampening=0.3, maximize=False),
    "adam": lambda lib, m: lib.optim.Adam(m.parameters(), lr=1e-2),
    "adam_amsgrad_wd": lambda lib, m: lib.optim.Adam(m.parameters(), lr=1e-2, amsgrad=True,
                                                     weight_decay=0.01),
    "adamw": lambda lib, m: lib.optim.AdamW(m.parameters(), lr=1e-2),
    "rmsprop": lambda lib, m: lib.optim.RMSprop(m.parameters(), lr=1e-3),
    "rmsprop_centered_momentum": lambda lib, m: lib.optim.RMSprop(
        m.parameters(), lr=1e-3, centered=True, momentum=0.5, weight_decay=0.01),
    "adagrad": lambda lib, m: lib.optim.Adagrad(m.parameters(), lr=0.1, lr_decay=0.01),
}


# float64: the same algorithm to rounding; float32: sums of 200 float32 values are added in
# a different order by NumPy and PyTorch (about 1e-7 apart), which momentum then amplifies
# float32: NumPy and torch add the 200 float32 terms of a loss in different orders (about
# 1e-7 apart), and 60 steps of momentum amplify that to ~2e-5 on some machines
TOLERANCE = {"float64": 1e-10, "float32": 1e-4}


@pytest.mark.parametrize("dtype", sorted(TOLERANCE))
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_polynomial_fit_prints_pytorchs_losses(name, dtype):
    theirs = getattr(_poly_model(torch), "double" if dtype == "float64" else "float")()
    ours = getattr(_poly_model(sg), "double" if dtype == "float64" else "float")()
    _same_weights(ours, theirs)
    want = _poly_losses(torch, theirs, OPTIMIZERS[name], 60, dtype)
    got = _poly_losses(sg, ours, OPTIMIZERS[name], 60, dtype)
    np.testing.assert_allclose(got, want, rtol=TOLERANCE[dtype])
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert p.dtype.itemsize == q.dtype.itemsize
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(),
                                   rtol=10 * TOLERANCE[dtype], atol=1e-7)


# -- an MLP classifier: Linear x2, ReLU, CrossEntropyLoss, Adam, a scheduler --------------------

def _mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))


def _mlp_losses(lib, model, steps=30):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.normal(size=(16, 4)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 3, size=16))
    opt = lib.optim.Adam(model.parameters(), lr=0.05)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    loss_fn = lib.nn.CrossEntropyLoss()
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        out.append((loss.item(), sched.get_last_lr()[0]))
    return out


def test_mlp_classifier_matches_pytorch_step_by_step():
    theirs, ours = _mlp(torch), _mlp(sg)
    _same_weights(ours, theirs)
    want, got = _mlp_losses(torch, theirs), _mlp_losses(sg, ours)
    np.testing.assert_allclose([g[0] for g in got], [w[0] for w in want], rtol=1e-5)
    assert [g[1] for g in got] == [w[1] for w in want]


# -- Module API --------------------------------------------------------------------------------

def _net(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 3)
            self.act = nn.Tanh()
            self.blocks = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
            self.heads = nn.ModuleDict({"a": nn.Identity(), "b": nn.LayerNorm(3)})
            self.register_buffer("running", lib.zeros(3))

        def forward(self, x):
            x = self.act(self.fc(x))
            for b in self.blocks:
                x = b(x)
            return self.heads["b"](x) + self.running

    return Net()


def test_module_api_matches_pytorch():
    ours, theirs = _net(sg), _net(torch)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [type(c).__name__ for c in ours.children()] == \
        [type(c).__name__ for c in theirs.children()]
    assert ours.training and not ours.eval().training and not ours.fc.training
    assert repr(ours.load_state_dict(ours.state_dict())) == \
        repr(theirs.load_state_dict(theirs.state_dict()))
    _same_weights(ours, theirs)
    x = np.array([[0.5, -1.0], [2.0, 0.1]], dtype=np.float32)
    a, b = ours(sg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    w = np.array([[1.0, -2.0, 0.5], [0.3, 0.7, -1.1]], dtype=np.float32)
    (a * sg.tensor(w)).sum().backward()      # (a plain sum of a layer norm is constant)
    (b * torch.tensor(w)).sum().backward()
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-6)
    ours.zero_grad()
    assert all(p.grad is None for p in ours.parameters())


def test_load_state_dict_errors_as_pytorch():
    for lib in (sg, torch):
        m = lib.nn.Linear(2, 2)
        with pytest.raises(RuntimeError) as info:
            m.load_state_dict({"weight": lib.zeros(2, 2)})
        msg = str(info.value)
        assert msg.startswith("Error(s) in loading state_dict for Linear:")
        assert 'Missing key(s) in state_dict: "bias"' in msg


def test_forward_hooks_run_as_pytorchs():
    for lib in (sg, torch):
        m = lib.nn.Linear(2, 1)
        seen = []
        h = m.register_forward_hook(lambda mod, inp, out: seen.append(tuple(out.shape)))
        m(lib.ones(3, 2))
        h.remove()
        m(lib.ones(3, 2))
        assert seen == [(3, 1)]


# -- losses and activations: values and gradients in float64 ------------------------------------

X = [[0.7, -1.3, 2.1], [0.2, 0.4, -0.9]]
LOSSES = {
    "mse": lambda F, x, t: F.mse_loss(x, t["dense"]),
    "l1": lambda F, x, t: F.l1_loss(x, t["dense"], reduction="sum"),
    "huber": lambda F, x, t: F.huber_loss(x, t["dense"], delta=0.5),
    "smooth_l1": lambda F, x, t: F.smooth_l1_loss(x, t["dense"], beta=0.7),
    "cross_entropy": lambda F, x, t: F.cross_entropy(x, t["classes"]),
    "cross_entropy_weighted": lambda F, x, t: F.cross_entropy(x, t["classes"], weight=t["w"]),
    "cross_entropy_ignore": lambda F, x, t: F.cross_entropy(x, t["ignore"]),
    "cross_entropy_smooth": lambda F, x, t: F.cross_entropy(x, t["classes"], label_smoothing=0.2),
    "cross_entropy_probs": lambda F, x, t: F.cross_entropy(x, t["probs"]),
    "nll_none": lambda F, x, t: F.nll_loss(x, t["classes"], reduction="none").sum(),
    "bce": lambda F, x, t: F.binary_cross_entropy(x.sigmoid(), t["binary"]),
    "bce_logits": lambda F, x, t: F.binary_cross_entropy_with_logits(x, t["binary"]),
    "bce_logits_pos": lambda F, x, t: F.binary_cross_entropy_with_logits(
        x, t["binary"], pos_weight=t["w"]),
    "gelu": lambda F, x, t: F.gelu(x).pow(2).sum(),
    "gelu_tanh": lambda F, x, t: F.gelu(x, approximate="tanh").pow(2).sum(),
    "leaky_relu": lambda F, x, t: F.leaky_relu(x, 0.1).pow(2).sum(),
    "elu": lambda F, x, t: F.elu(x).pow(2).sum(),
    "softplus": lambda F, x, t: F.softplus(x).pow(2).sum(),
    "silu": lambda F, x, t: F.silu(x).pow(2).sum(),
    "log_softmax": lambda F, x, t: (F.log_softmax(x, dim=1) * t["dense"]).sum(),
    "layer_norm": lambda F, x, t: (F.layer_norm(x, (3,)) * t["dense"]).sum(),
    "normalize": lambda F, x, t: (F.normalize(x) * t["dense"]).sum(),
}


def _targets(lib):
    return {"dense": lib.tensor([[0.1, 0.2, -0.3], [1.0, -1.0, 0.5]], dtype=lib.float64),
            "classes": lib.tensor([2, 0]), "ignore": lib.tensor([1, -100]),
            "w": lib.tensor([0.5, 2.0, 1.5], dtype=lib.float64),
            "probs": lib.tensor([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], dtype=lib.float64),
            "binary": lib.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]], dtype=lib.float64)}


def _loss_and_grad(lib, f, values=X):
    x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
    out = f(lib.nn.functional, x, _targets(lib))
    out.backward()
    return out.item(), x.grad.numpy()


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_functional_matches_pytorch_and_finite_differences(name):
    f = LOSSES[name]
    (v, g), (tv, tg) = _loss_and_grad(sg, f), _loss_and_grad(torch, f)
    np.testing.assert_allclose(v, tv, rtol=1e-12)
    np.testing.assert_allclose(g, tg, rtol=1e-10, atol=1e-12)
    eps, fd = 1e-6, np.zeros_like(g)
    for i in np.ndindex(*g.shape):
        hi, lo = np.array(X), np.array(X)
        hi[i] += eps
        lo[i] -= eps
        fd[i] = (_loss_and_grad(sg, f, hi.tolist())[0] - _loss_and_grad(sg, f, lo.tolist())[0]) \
            / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)


def test_init_fills_with_pytorchs_bounds():
    w = sg.empty(50, 40)
    sg.nn.init.kaiming_uniform_(w, a=math.sqrt(5))
    bound = 1 / math.sqrt(40)
    assert float(w.abs().max()) <= bound and float(w.abs().max()) > 0.9 * bound
    sg.nn.init.zeros_(w)
    assert float(w.abs().max()) == 0.0
    assert sg.nn.init.calculate_gain("tanh") == torch.nn.init.calculate_gain("tanh")
    assert sg.nn.init.calculate_gain("leaky_relu", 0.2) == \
        torch.nn.init.calculate_gain("leaky_relu", 0.2)
