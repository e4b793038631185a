"""torch.autograd.graph (saved-tensor hooks), grad_fn hooks, post-accumulate-grad hooks,
_saved_* attributes and the operations added beside them: the same programs run with
srcgrad and PyTorch (the oracle; skipped when it is not installed) give the same
events, values and gradients."""
import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")


def _run(lib, program):
    x = lib.tensor([1., 2., 3.], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([0.5, -1., 2.], dtype=lib.float64, requires_grad=True)
    log = []
    program(lib, x, y, log)
    return log, x, y


def _same(program):
    ours, theirs = _run(sg, program), _run(torch, program)
    assert _plain(ours[0]) == _plain(theirs[0])
    for a, b in zip(ours[1:], theirs[1:]):
        if b.grad is None:
            assert a.grad is None
        else:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-12)


def _plain(v):
    if isinstance(v, (list, tuple)):
        return [_plain(i) for i in v]
    if hasattr(v, "detach"):
        return np.round(v.detach().numpy(), 10).tolist()
    return v


def _pack_order(lib, x, y, log):
    def pack(t):
        log.append(("pack", "x" if t is x else "y" if t is y else "other", tuple(t.shape)))
        return t.detach().clone()

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t

    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        z = x * y
        w = z.exp() / y
        v = (w.tanh() + x.pow(3) + x.sin() * 2 + lib.maximum(x, y) + x @ y).sum()
    log.append("backward")
    v.backward()


def _unpack_changes_gradient(lib, x, y, log):
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 3):
        v = (x * y.detach() + x.exp()).sum()
    v.backward()


def _nested_and_disabled(lib, x, y, log):
    graph = lib.autograd.graph
    with graph.saved_tensors_hooks(lambda t: ("outer", t), lambda p: p[1] * 2):
        with graph.saved_tensors_hooks(lambda t: ("inner", t), lambda p: p[1]):
            a = (x * y).sum()
        b = (x * y).sum()
    (a + b).backward()
    with graph.disable_saved_tensors_hooks("off"):
        try:
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
        except RuntimeError as e:
            log.append(str(e))
    with graph.save_on_cpu():
        log.append((x.sigmoid() * y).sum())


def _node_hooks(lib, x, y, log):
    z = x * y
    out = z.exp().sum()
    z.grad_fn.register_prehook(lambda gos: log.append(("pre", list(gos))))
    h = z.grad_fn.register_hook(lambda gis, gos: log.append(("post", list(gis), list(gos))))
    z.register_hook(lambda g: log.append(("tensor", g)))
    out.backward(retain_graph=True)
    h.remove()
    x.grad = y.grad = None
    z.grad_fn.register_prehook(lambda gos: (gos[0] * 10,))
    z.grad_fn.register_hook(lambda gis, gos: (gis[0], None))
    out.backward()
    acc = (x * 2).grad_fn.next_functions[0][0]
    log.append(acc.name())


def _post_accumulate(lib, x, y, log):
    x.register_post_accumulate_grad_hook(lambda t: log.append(("acc", t.grad.clone())))
    (x * y).sum().backward()
    (x * x).sum().backward()
    try:
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)
    except RuntimeError as e:
        log.append(str(e))


def _saved_attributes(lib, x, y, log):
    m = x * y
    log.append((m.grad_fn._saved_self is x, m.grad_fn._saved_other is y))
    log.append(((x * 3).grad_fn._saved_other, (x * 3).grad_fn._saved_self))
    log.append((x * y.detach()).grad_fn._saved_self)
    p = x ** 2
    log.append((p.grad_fn._saved_self is x, p.grad_fn._saved_exponent))
    log.append(((x ** y).grad_fn._saved_result, (2 ** x).grad_fn._saved_self))
    for name in ("exp", "tanh", "sigmoid", "sqrt", "relu", "reciprocal"):
        out = getattr(x, name)()
        log.append((out.grad_fn._saved_result, out.grad_fn._saved_result is out))
    d = x / y
    log.append((d.grad_fn._saved_self is x, d.grad_fn._saved_other is y,
                (x / y.detach()).grad_fn._saved_self))
    log.append(((x + y).grad_fn._saved_alpha, x.clamp(0, 2).grad_fn._saved_max))
    e = x.exp()
    e.sum().backward()
    try:
        e.grad_fn._saved_result
    except RuntimeError as err:
        log.append(str(err)[:40])


@pytest.mark.parametrize("program", [_pack_order, _unpack_changes_gradient,
                                     _nested_and_disabled, _node_hooks, _post_accumulate,
                                     _saved_attributes], ids=lambda f: f.__name__)
def test_same_as_pytorch(program):
    _same(program)


def _step_functions_and_copy(lib, x, y, log):
    (x.sign() * y + (x * 1.5).round() + x.floor() * x.ceil() + x.trunc()).sum().backward()
    c = lib.zeros(3, dtype=lib.float64)
    c.copy_(x)
    (c * y).sum().backward()
    log.append((c.grad_fn.name(), c.requires_grad))


def _new_operations(lib, x, y, log):
    m = lib.outer(x, y)
    outs = [lib.atan2(x, y), lib.hypot(x, y), lib.logaddexp(x, y), lib.lerp(x, y, 0.25),
            lib.lerp(x, y, y.sigmoid()), lib.addmm(x, m, y.reshape(3, 1).expand(3, 3), beta=2),
            lib.kron(x, y), lib.diag(x, 1), m.diag(-1), m.narrow(1, 1, 2), m.select(0, 2),
            m[None].movedim(0, 2), lib.bmm(m[None], m[None])]
    for o in outs:
        log.append(o.grad_fn.name())
    sum((o * (k + 1)).sum() for k, o in enumerate(outs)).backward()


@pytest.mark.parametrize("program", [_step_functions_and_copy, _new_operations],
                         ids=lambda f: f.__name__)
def test_operations_same_as_pytorch(program):
    _same(program)


def test_new_operations_match_finite_differences():
    from srcgrad.tensor.autograd.gradcheck import gradcheck
    rng = np.random.default_rng(0)
    a = sg.tensor(rng.standard_normal(3) + 2, requires_grad=True)
    b = sg.tensor(rng.standard_normal(3), requires_grad=True)
    for f in [sg.atan2, sg.hypot, sg.logaddexp, lambda a, b: sg.lerp(a, b, b.exp()),
              lambda a, b: sg.addmm(a, sg.outer(a, b), sg.outer(b, a), alpha=0.5),
              sg.kron, lambda a, b: sg.outer(a, b).narrow(0, 1, 2).movedim(0, 1)]:
        assert gradcheck(f, (a, b))


def test_hooked_nodes_under_create_graph():
    """Saved-tensor hooks with create_graph: the recorded backward reads the unpacked values."""
    x = sg.tensor([0.5, 1.5], dtype=sg.float64, requires_grad=True)
    with sg.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = (x.sin() * x).sum()
    (g,) = sg.autograd.grad(y, x, create_graph=True)
    (h,) = sg.autograd.grad(g.sum(), x)
    xn = x.detach().numpy()
    np.testing.assert_allclose(h.numpy(), 2 * np.cos(xn) - xn * np.sin(xn), atol=1e-12)


def _hvp_program(lib, x, y, log):
    fw = lib.autograd.forward_ad
    v = lib.tensor([1., -0.5, 0.25], dtype=lib.float64)
    with fw.dual_level():
        xd = fw.make_dual(x, v)
        out = (xd.sin() * y).sum() + (xd ** 3 / y).sum() + xd.logsumexp(0) + \
            (xd.tanh() @ xd.sigmoid()) + lib.nn.functional.softplus(xd).prod()
        gx, gy = lib.autograd.grad(out, (x, y))
        log.append((fw.unpack_dual(gx).primal, fw.unpack_dual(gx).tangent,
                    fw.unpack_dual(gy).tangent))
        (gx2,) = lib.autograd.grad((xd * xd.exp()).sum(), x, create_graph=True)
        log.append(fw.unpack_dual(gx2).tangent)
        (xd.exp() * y).sum().backward()          # .grad: the primal gradient, no tangent
        log.append(fw.unpack_dual(x.grad).tangent)


def test_forward_over_reverse_same_as_pytorch():
    _same(_hvp_program)


def test_forward_over_reverse_matches_finite_differences_of_the_gradient():
    x0 = np.array([0.3, -0.7, 1.1])
    v = np.array([0.5, 1.0, -2.0])

    def f(x):
        return (x.exp() * x.cos()).sum() + (x @ x) * x.tanh().sum()

    def gradient(a):
        x = sg.tensor(a, requires_grad=True)
        return sg.autograd.grad(f(x), x)[0].numpy()

    x = sg.tensor(x0, requires_grad=True)
    fw = sg.autograd.forward_ad
    with fw.dual_level():
        (g,) = sg.autograd.grad(f(fw.make_dual(x, sg.tensor(v))), x)
        tangent = fw.unpack_dual(g).tangent.numpy()
    eps = 1e-6
    numeric = (gradient(x0 + eps * v) - gradient(x0 - eps * v)) / (2 * eps)
    np.testing.assert_allclose(tangent, numeric, rtol=1e-6, atol=1e-8)


def test_forward_over_reverse_refuses_a_node_it_cannot_run_on_tensors():
    x = sg.tensor([0.5, 1.5], dtype=sg.float64, requires_grad=True)
    fw = sg.autograd.forward_ad
    with fw.dual_level():
        xd = fw.make_dual(x, sg.ones(2, dtype=sg.float64))
        y = sg.einsum("i,i->", xd, xd)          # its backward runs on arrays only
        with pytest.raises(NotImplementedError, match="forward-over-reverse through"):
            sg.autograd.grad(y, x)


def _function_saves(lib, x, y, log):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a ** 3 * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * 3 * a ** 2 * b, g * a ** 3

    def pack(t):
        log.append(("pack", t))
        return t * 2                      # what backward reads: doubled

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = Cube.apply(x, y)
    out.sum().backward()


def test_custom_function_saves_are_packed_as_pytorch():
    _same(_function_saves)


def _einsum_unpacked(lib, x, y, log):
    m = lib.outer(x, y)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
        e = lib.einsum("ij,jk->ik", m, m.detach() + 1).sum()
    e.backward()


def test_unpacked_values_reach_a_rule_with_star_args():
    """np.einsum's rule takes *operands: the doubled operand is what its backward reads."""
    _same(_einsum_unpacked)
