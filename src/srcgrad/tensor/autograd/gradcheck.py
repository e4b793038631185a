"""``torch.autograd.gradcheck`` / ``gradgradcheck``: backward checked against central
finite differences, with PyTorch's arguments, warnings and error message."""
import warnings

import numpy as np

from ..core import Tensor
from .engine import grad as _grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """A gradient that disagrees with finite differences (PyTorch's class name)."""


def _tuple(x):
    return x if isinstance(x, tuple) else (x,) if isinstance(x, Tensor) else tuple(x)


def _outputs(func, inputs):
    out = func(*inputs)
    outs = _tuple(out) if not isinstance(out, list) else tuple(out)
    return tuple(o for o in outs if isinstance(o, Tensor))


def _numerical(func, inputs, i, eps):
    """d outputs / d inputs[i] by central differences: per output, (in.numel, out.numel).
    ``func`` runs in the caller's grad mode, as PyTorch runs it (gradgradcheck's function
    computes a gradient: without a graph that gradient would be a constant)."""
    x = inputs[i]
    flat = x._data.reshape(-1)        # a view: perturbing it perturbs the input
    columns = []
    for k in range(flat.size):
        old = flat[k].copy()
        flat[k] = old - eps           # (PyTorch's order: minus, then plus)
        lo = [o._data.astype(np.float64).reshape(-1).copy() for o in _outputs(func, inputs)]
        flat[k] = old + eps
        hi = [o._data.astype(np.float64).reshape(-1).copy() for o in _outputs(func, inputs)]
        flat[k] = old
        columns.append([(h - l) / (2 * eps) for h, l in zip(hi, lo)])
    n_out = len(columns[0]) if columns else len(_outputs(func, inputs))
    return [np.array([c[o] for c in columns]).reshape(flat.size, -1) for o in range(n_out)]


def _jacobian_rows(o, xs):
    """d o / d xs, one backward per entry of ``o`` (a row for every input at once, as
    PyTorch computes them): an ``(x.numel(), o.numel())`` array per input."""
    jacs = [np.zeros((x.numel(), o.numel())) for x in xs]
    for k in range(o.numel()):
        v = np.zeros(o._data.size, dtype=o._data.dtype)
        v[k] = 1
        grads = _grad([o], xs, [Tensor._make(v.reshape(o._data.shape))], retain_graph=True,
                      allow_unused=True)
        for jac, g in zip(jacs, grads):
            if g is not None:
                jac[:, k] = g._data.astype(np.float64).reshape(-1)
    return jacs


_NOT_REENTRANT = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output "
    "multiple times gives different values, although analytical gradient matches numerical "
    "gradient.The tolerance for nondeterminism was {}.\n\n"
    "NOTE: If your op relies on non-deterministic operations i.e., it is listed here:\n"
    "https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html\n"
    "this failure might be expected.\n\n"
    "If you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.\n"
    "If the test\n"
    "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
    "  with `nondet_tol=<tol>` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n"
    "  to have `gradcheck_nondet_tol=<tol>`.\n"
    "- is a Module test (e.g., in common_nn.py), then modify the corresponding\n"
    "  module_test entry to have `gradcheck_nondet_tol=<tol>`\n")


def _twice(backward, nondet_tol):
    """``backward()`` run twice, as PyTorch does, to find a non-reentrant backward."""
    first, second = backward(), backward()
    for a, b in zip(first, second):
        if np.size(a) and float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) > nondet_tol:
            raise GradcheckError(_NOT_REENTRANT.format(nondet_tol))
    return first


def _mismatch(what, o, n, num, ana, like):
    return GradcheckError(f"{what} mismatch for output {o} with respect to input {n},\n"
                          f"numerical:{_as_tensor(num, like)!r}\n"
                          f"analytical:{_as_tensor(ana, like)!r}\n")


def _slow_check(inputs, wrt, outs, numerical, atol, rtol, nondet_tol):
    """Each differentiable output's Jacobian (twice) against the numerical one."""
    xs = [inputs[i] for i in wrt]
    for k, o in enumerate(t for t in outs if t.requires_grad):
        pos = _position(outs, o)
        rows = _twice(lambda: _jacobian_rows(o, xs), nondet_tol)
        for n, ana in enumerate(rows):
            if not np.allclose(ana, numerical[n][pos], rtol=rtol, atol=atol):
                raise _mismatch("Jacobian", k, n, numerical[n][pos], ana, xs[n])


def _zero_grad_outputs(func, inputs, wrt, outs, check_undefined_grad):
    """PyTorch's last checks: zero output gradients give zero input gradients (the
    backward multiplies by them), with the outputs computed, then with a new forward."""
    xs = [inputs[i] for i in wrt]
    diff = [o for o in outs if o.requires_grad]
    if diff:
        grads = _grad(diff, xs, [Tensor._make(np.zeros_like(o._data)) for o in diff],
                      allow_unused=True)
        for g, x in zip(grads, xs):
            if g is None:
                continue
            if bool((g._data != 0).any()):
                raise GradcheckError("backward not multiplied by grad_output")
            if g.dtype is not x.dtype:
                raise GradcheckError("grad is incorrect type")
            if tuple(g.shape) != tuple(x.shape):
                raise GradcheckError("grad is incorrect size")
    if not check_undefined_grad:
        return
    runs = 1 + (len(diff) if len(diff) > 1 else 0)
    for _ in range(runs):
        fresh = [o for o in _outputs(func, inputs) if o.requires_grad]
        try:
            grads = _grad(fresh, xs, [Tensor._make(np.zeros_like(o._data)) for o in fresh],
                          allow_unused=True)
        except RuntimeError as e:
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from e
        if any(g is not None and bool((g._data != 0).any()) for g in grads):
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are "
                'undefined or zero. Please look at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"')


def _analytical_forward(func, inputs, i):
    """The Jacobian from forward-mode AD: one dual evaluation per entry of ``inputs[i]``."""
    from . import forward_ad
    x = inputs[i]
    columns = []
    for k in range(x.numel()):
        v = np.zeros(x._data.size, dtype=x._data.dtype)
        v[k] = 1
        with forward_ad.dual_level():
            dual = forward_ad.make_dual(x.detach(), Tensor._make(v.reshape(x._data.shape)))
            outs = _outputs(func, inputs[:i] + (dual,) + inputs[i + 1:])
            tangents = [forward_ad.unpack_dual(o).tangent for o in outs]
            columns.append([np.zeros(o.numel()) if t is None
                            else t._data.astype(np.float64).reshape(-1) for o, t in
                            zip(outs, tangents)])
    n_out = len(columns[0]) if columns else len(_outputs(func, inputs))
    return [np.array([c[o] for c in columns]).reshape(x.numel(), -1) for o in range(n_out)]


def _as_tensor(a, like):
    return Tensor._make(a.astype(like._data.dtype if like._data.dtype.kind in "fc"
                                 else np.float64))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """True when the backward of ``func`` at ``inputs`` agrees with finite differences;
    else raises ``GradcheckError`` (or returns False with ``raise_exception=False``)."""
    inputs = _tuple(inputs)
    wrt = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    for i in wrt:
        if inputs[i]._data.dtype not in (np.float64, np.complex128):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", UserWarning,
                          stacklevel=2)
    try:
        _check(func, inputs, wrt, eps, atol, rtol, nondet_tol, check_undefined_grad,
               check_forward_ad, check_backward_ad, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _check(func, inputs, wrt, eps, atol, rtol, nondet_tol, check_undefined_grad,
           check_forward_ad, check_backward_ad, fast_mode):
    """PyTorch's sequence (what a function or backward that prints shows): the outputs;
    the numerical Jacobians (or directional derivatives); each output's backward, twice;
    forward mode; zero output gradients."""
    outs = _outputs(func, inputs)
    numerical = None
    if fast_mode and check_backward_ad:
        _fast_check(func, inputs, wrt, outs, eps, atol, rtol, nondet_tol)
    elif check_backward_ad:
        numerical = [_numerical(func, inputs, i, eps) for i in wrt]
        _slow_check(inputs, wrt, outs, numerical, atol, rtol, nondet_tol)
    if check_forward_ad:
        for n, i in enumerate(wrt):
            num = numerical[n] if numerical is not None else _numerical(func, inputs, i, eps)
            for o, (nu, ana) in enumerate(zip(num, _analytical_forward(func, inputs, i))):
                if not np.allclose(ana, nu, rtol=rtol, atol=atol):
                    raise _mismatch("Jacobian computed with forward mode", o, n, nu, ana,
                                    inputs[i])
    if check_backward_ad:
        _zero_grad_outputs(func, inputs, wrt, outs, check_undefined_grad)


_FAST_FAIL_SLOW_OK = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()


def _unit_vector(t, gen):
    """PyTorch's fast-mode direction: uniform draws (float32, from its own generator) in
    ``t``'s dtype, divided by their norm."""
    from ..factories import rand
    v = rand(t.numel(), generator=gen).to(t.dtype)
    return v / v.norm()


def _fast_check(func, inputs, wrt, outs, eps, atol, rtol, nondet_tol):
    """Fast mode: ``v^T J u`` from the backward (run twice) against ``v^T (J u)`` from
    central differences along ``u``, for random unit ``u`` (per input) and ``v`` (per
    output), as PyTorch draws them.  A mismatch raises PyTorch's message (with the
    slow-mode Jacobians)."""
    from .. import grad_mode
    from ..generator import Generator
    gen = Generator()
    diff_outs = [o for o in outs if o.requires_grad]
    us = [_unit_vector(inputs[i], gen) for i in wrt]
    vs = [_unit_vector(o, gen) for o in diff_outs]
    numerical = []
    for i, u in zip(wrt, us):
        x = inputs[i]
        delta = (u.reshape(x.shape) * eps)._data
        orig = x._data.copy()
        x._data[...] = orig - delta
        lo = [o.detach().clone() for o in _outputs(func, inputs)]
        x._data[...] = orig + delta
        hi = [o.detach().clone() for o in _outputs(func, inputs)]
        x._data[...] = orig
        ju = [((b - a) / (2 * eps)).reshape(-1) for a, b in zip(lo, hi)
              if a.is_floating_point() or a.is_complex()]
        numerical.append([(v * j).sum() for v, j in zip(vs, ju)])
    for k, (o, v) in enumerate(zip(diff_outs, vs)):
        def backward(o=o, v=v):
            with grad_mode.enable_grad():
                return _grad([o], [inputs[i] for i in wrt], [v.reshape(o.shape)],
                             retain_graph=True, allow_unused=True)
        vj = _twice(lambda: [np.zeros_like(inputs[i]._data) if g is None else g._data
                             for i, g in zip(wrt, backward())], nondet_tol)
        for n, (i, u, g) in enumerate(zip(wrt, us, vj)):
            g = Tensor._make(g)
            analytical = g.reshape(-1).dot(u)
            num = numerical[n][k]
            tol = atol * float(u.sum()) * float(v.sum())
            if not analytical.allclose(num.to(analytical.dtype), rtol, tol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {k:d} with respect to input {n:d},\n"
                    f"numerical:{num}\nanalytical:{analytical}\n"
                    + _slow_report(func, inputs, i, _position(outs, o), eps, atol, rtol))


def _position(items, obj):
    return next(k for k, t in enumerate(items) if t is obj)


def _slow_report(func, inputs, i, o, eps, atol, rtol):
    like = inputs[i]
    numerical = _as_tensor(_numerical(func, inputs, i, eps)[o], like)
    analytical = _as_tensor(_jacobian_rows(_outputs(func, inputs)[o], [like])[0], like)
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are "
           "computed \nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for "
           "more background \nabout fast mode. Below, we recompute numerical and analytical "
           "jacobians in slow mode:\n\n"
           f"Numerical:\n {numerical}\nAnalytical:\n{analytical}\n\n"
           f"The max per-element difference (slow mode) is: "
           f"{(numerical - analytical).abs().max()}.\n")
    if analytical.allclose(numerical, rtol, atol):
        msg += _FAST_FAIL_SLOW_OK
    return msg


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the backward of ``func``: second derivatives against finite
    differences of the (recorded) first."""
    inputs = _tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        from ..generator import _rng
        # PyTorch's: uniform in [-1, 1) (make_tensor(low=-1, high=1)), so the same draws
        grad_outputs = tuple(
            Tensor._make(_rng().uniform(o._data.shape, o._data.dtype if o._data.dtype.kind in "fc"
                                        else np.float64, -1.0, 1.0),
                         requires_grad=True) for o in outs)
    else:
        grad_outputs = _tuple(grad_outputs)
    n_in = len(inputs)
    wrt = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]

    def first(*values):
        xs, gs = values[:n_in], values[n_in:]
        ys = _outputs(func, xs)
        pairs = [(y, g) for y, g in zip(ys, gs) if y.requires_grad]
        grads = _grad([y for y, _ in pairs], [xs[i] for i in wrt], [g for _, g in pairs],
                      create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, fast_mode=fast_mode)
