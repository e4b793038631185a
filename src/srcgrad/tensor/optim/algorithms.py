"""The optimisers: each ``_update`` is PyTorch's single-tensor step for one parameter,
the same operations in the same order, on the parameter's array (``add(alpha=)``,
``addcmul`` and ``lerp`` with PyTorch's one rounding: :func:`..rounding.fma`)."""
import math

import numpy as np

from ..rounding import fma, lerp
from .optimizer import Optimizer, f32, required, scalar_dtype, step_tensor

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta"]


def _grad(p, grad, group):
    return -grad if group.get("maximize") else grad


def _work_arrays(optimizer, p, x):
    """Two arrays shaped like ``x``, kept by the optimiser between steps (not state)."""
    arrays = optimizer.__dict__.setdefault("_work", {})
    pair = arrays.get(id(p))
    if pair is None or pair[0].shape != x.shape or pair[0].dtype != x.dtype:
        pair = arrays[id(p)] = (np.empty_like(x), np.empty_like(x))
    return pair


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    def _update(self, p, grad, state, group):
        x = p._data
        g = _grad(p, grad, group)
        wd, momentum = group["weight_decay"], group["momentum"]
        if wd != 0:
            g = fma(x, f32(wd, x), g)                     # grad.add(param, alpha=wd)
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = np.array(g, copy=True)
                state["momentum_buffer"] = _state_tensor(buf)
            else:
                buf = state["momentum_buffer"]._data
                scalars = (f32(momentum, x), f32(1 - group["dampening"], x),
                           f32(-group["lr"], x), group["nesterov"])
                if _blocked(x, buf) and type(g) is np.ndarray:
                    scratch = _work_arrays(self, p, x)[0]
                    flat = [np.ravel(a) for a in (x, g, buf, scratch)]
                    for i in range(0, x.size, _CHUNK):
                        _sgd_momentum_arrays(*[a[i:i + _CHUNK] for a in flat], scalars)
                    return
                buf *= scalars[0]
                keep = scalars[1]
                if keep == 1:
                    buf += g
                else:                                   # buf.add_(grad, alpha=1 - dampening)
                    buf[...] = fma(g, keep, buf)
            g = fma(buf, f32(momentum, x), g) if group["nesterov"] else buf
        x[...] = fma(g, f32(-group["lr"], x), x)         # param.add_(grad, alpha=-lr)


def _sgd_momentum_arrays(x, g, buf, scratch, scalars):
    """SGD's step with a momentum buffer on NumPy arrays, in place, in PyTorch's
    order (the same operations as ``SGD._update``'s whole-array path)."""
    momentum, keep, neg_lr, nesterov = scalars
    buf *= momentum
    if keep == 1:
        buf += g
    else:
        buf[...] = fma(g, keep, buf)
    x[...] = fma(fma(buf, momentum, g) if nesterov else buf, neg_lr, x)


def _blocked(x, *written):
    """Whether a CPU update of ``x`` runs in cache-sized blocks: a large parameter, and
    the arrays it writes C-contiguous (their flat views are the arrays)."""
    return type(x) is np.ndarray and x.size >= 2 * _CHUNK and x.flags.c_contiguous and \
        all(type(a) is np.ndarray and a.flags.c_contiguous for a in written)


def _scaled(optimizer, p, a, scale):
    """``scale * a``, in a work array kept for ``p`` on the CPU (no fresh pages per step)."""
    if type(a) is not np.ndarray:
        return scale * a
    out = _work_arrays(optimizer, p, a)[0]
    return np.multiply(a, scale, out=out)


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_adam_like(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable,
                                      fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))

    def _update(self, p, grad, state, group):
        x = p._data
        g = _grad(p, grad, group)
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        if "exp_avg" not in state:
            state["step"] = _state_tensor(np.asarray(0.0, dtype=scalar_dtype()))
            state["exp_avg"] = _state_tensor(np.zeros_like(x))
            state["exp_avg_sq"] = _state_tensor(np.zeros_like(x))
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _state_tensor(np.zeros_like(x))
        step = step_tensor(state)
        g = _weight_decay(x, g, group)
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        vmax = state["max_exp_avg_sq"]._data if group["amsgrad"] else None
        bias1 = 1 - beta1 ** step
        bias2 = 1 - beta2 ** step
        step_size = lr / bias1
        bias2_sqrt = math.sqrt(bias2)
        scalars = (f32(1 - beta1, x), f32(beta2, x), f32(1 - beta2, x), f32(bias2_sqrt, x),
                   f32(group["eps"], x), f32(-step_size, x))
        if type(x) is not np.ndarray:
            _adam_on_device(x, g, m, v, vmax, scalars)
            return
        # two work arrays kept per parameter: no fresh pages every step
        scratch, denom = _work_arrays(self, p, x)
        arrays = (x, g, m, v, vmax, scratch, denom)
        if not _blocked(x, m, v, scratch, denom, *(() if vmax is None else (vmax,))):
            _adam_arrays(*arrays, scalars)
            return
        # a large parameter in blocks that stay in the cache between the passes (the
        # same operations on each number, so the same bits)
        flat = [None if a is None else np.ravel(a) for a in arrays]
        for i in range(0, x.size, _CHUNK):
            _adam_arrays(*[None if a is None else a[i:i + _CHUNK] for a in flat], scalars)


_CHUNK = 65536


def _adam_arrays(x, g, m, v, vmax, scratch, denom, scalars):
    """PyTorch's single-tensor Adam step on NumPy arrays, in place, operation by
    operation (``scalars``: 1 - beta1, beta2, 1 - beta2, sqrt(bias2), eps, -step_size)."""
    one_minus_beta1, beta2, one_minus_beta2, bias2_sqrt, eps, neg_step = scalars
    m[...] = lerp(m, g, one_minus_beta1)            # lerp_(grad, 1 - beta1)
    v *= beta2
    np.multiply(g, one_minus_beta2, out=scratch)
    v[...] = fma(scratch, g, v)                     # addcmul_(grad, grad, 1 - beta2)
    if vmax is not None:
        np.maximum(vmax, v, out=vmax)
        v = vmax
    np.sqrt(v, out=denom)
    denom /= bias2_sqrt
    denom += eps
    np.multiply(m, neg_step, out=scratch)
    scratch /= denom
    x += scratch                                    # addcdiv_(m, denom, -step_size)


def _adam_on_device(x, g, m, v, vmax, scalars):
    """``_adam_arrays`` for other array libraries (CuPy): the same operations, on fresh
    temporaries."""
    one_minus_beta1, beta2, one_minus_beta2, bias2_sqrt, eps, neg_step = scalars
    scratch = g - m
    scratch *= one_minus_beta1
    m += scratch
    v *= beta2
    scratch = one_minus_beta2 * g * g
    v += scratch
    if vmax is not None:
        np.maximum(vmax, v, out=vmax)
        v = vmax
    denom = np.sqrt(v)
    denom /= bias2_sqrt
    denom += eps
    scratch = neg_step * m
    scratch /= denom
    x += scratch


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
        for group in self.param_groups:
            group.pop("decoupled_weight_decay", None)
            group["decoupled_weight_decay"] = True
        self.defaults.pop("decoupled_weight_decay", None)

    def __repr__(self):
        shown = [{k: v for k, v in g.items() if k != "decoupled_weight_decay"}
                 for g in self.param_groups]
        saved, self.param_groups = self.param_groups, shown
        try:
            return super().__repr__()
        finally:
            self.param_groups = saved


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _update(self, p, grad, state, group):
        x = p._data
        g = _grad(p, grad, group)
        if "square_avg" not in state:
            state["step"] = _state_tensor(np.asarray(0.0, dtype=scalar_dtype()))
            state["square_avg"] = _state_tensor(np.zeros_like(x))
            if group["momentum"] > 0:
                state["momentum_buffer"] = _state_tensor(np.zeros_like(x))
            if group["centered"]:
                state["grad_avg"] = _state_tensor(np.zeros_like(x))
        step_tensor(state)
        alpha, wd = group["alpha"], group["weight_decay"]
        if wd != 0:
            g = fma(x, f32(wd, x), g)
        sq = state["square_avg"]._data
        sq *= f32(alpha, x)
        sq[...] = fma(f32(1 - alpha, x) * g, g, sq)     # addcmul_(grad, grad, 1 - alpha)
        if group["centered"]:
            ga = state["grad_avg"]._data
            ga[...] = lerp(ga, g, f32(1 - alpha, x))
            avg = np.sqrt(fma(f32(-1, x) * ga, ga, sq))
        else:
            avg = np.sqrt(sq)
        avg = avg + f32(group["eps"], x)
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]._data
            buf *= f32(group["momentum"], x)
            buf += g / avg
            x[...] = fma(buf, f32(-group["lr"], x), x)
        else:
            x += f32(-group["lr"], x) * g / avg     # addcdiv's order: (value * g) / avg


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, fused=fused))
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p] = {
                    "step": _state_tensor(np.asarray(0.0, dtype=scalar_dtype())),
                    "sum": _state_tensor(np.full_like(p._data, initial_accumulator_value))}

    def _update(self, p, grad, state, group):
        x = p._data
        g = _grad(p, grad, group)
        step = step_tensor(state)
        if group["weight_decay"] != 0:
            g = fma(x, f32(group["weight_decay"], x), g)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        total = state["sum"]._data
        total[...] = fma(g, g, total)                   # addcmul_(grad, grad, value=1)
        std = np.sqrt(total) + f32(group["eps"], x)
        x += f32(-clr, x) * g / std                     # addcdiv's order: (value * g) / std


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, capturable=capturable,
                                      foreach=foreach, differentiable=differentiable))

    def _update(self, p, grad, state, group):
        x = p._data
        g = _grad(p, grad, group)
        if "square_avg" not in state:
            state["step"] = _state_tensor(np.asarray(0.0, dtype=scalar_dtype()))
            state["square_avg"] = _state_tensor(np.zeros_like(x))
            state["acc_delta"] = _state_tensor(np.zeros_like(x))
        step_tensor(state)
        rho, eps = f32(group["rho"], x), f32(group["eps"], x)
        if group["weight_decay"] != 0:
            g = fma(x, f32(group["weight_decay"], x), g)
        sq, acc = state["square_avg"]._data, state["acc_delta"]._data
        sq *= rho
        sq[...] = fma(f32(1 - group["rho"], x) * g, g, sq)
        std = np.sqrt(sq + eps)
        delta = np.sqrt(acc + eps) / std * g
        acc *= rho
        acc[...] = fma(f32(1 - group["rho"], x) * delta, delta, acc)
        x[...] = fma(delta, f32(-group["lr"], x), x)


def _state_tensor(array):
    from ..core import Tensor
    return Tensor._make(array)


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_adam_like(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _update(self, p, grad, state, group):
        """PyTorch's single-tensor Adamax, operation by operation."""
        x = p._data
        g = _grad(p, grad, group)
        beta1, beta2 = group["betas"]
        if "exp_avg" not in state:
            state["step"] = _state_tensor(np.asarray(0.0, dtype=scalar_dtype()))
            state["exp_avg"] = _state_tensor(np.zeros_like(x))
            state["exp_inf"] = _state_tensor(np.zeros_like(x))
        step = step_tensor(state)
        if group["weight_decay"] != 0:
            g = fma(x, f32(group["weight_decay"], x), g)       # grad.add(param, alpha=wd)
        m, u = state["exp_avg"]._data, state["exp_inf"]._data
        m[...] = lerp(m, g, f32(1 - beta1, x))
        u *= f32(beta2, x)
        np.maximum(u, np.abs(g) + f32(group["eps"], x), out=u)
        clr = group["lr"] / (1 - beta1 ** step)
        x += f32(-clr, x) * m / u                             # addcdiv_(m, u, value=-clr)


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_adam_like(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable))

    def _update(self, p, grad, state, group):
        """PyTorch's single-tensor NAdam, operation by operation (``mu_product`` is a
        tensor of the step count's dtype, so its products round there)."""
        x = p._data
        g = _grad(p, grad, group)
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        if "exp_avg" not in state:
            state["step"] = _state_tensor(np.asarray(0.0, dtype=scalar_dtype()))
            state["mu_product"] = _state_tensor(np.asarray(1.0, dtype=scalar_dtype()))
            state["exp_avg"] = _state_tensor(np.zeros_like(x))
            state["exp_avg_sq"] = _state_tensor(np.zeros_like(x))
        step = step_tensor(state)
        bias2 = 1 - beta2 ** step
        g = _weight_decay(x, g, group)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * group["momentum_decay"])))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * group["momentum_decay"])))
        prod = state["mu_product"]
        prod._data = np.asarray(prod._data * prod._data.dtype.type(mu), dtype=prod._data.dtype)
        mu_product = float(prod._data)
        m, v = _moments(state, x, g, beta1, beta2)
        denom = np.sqrt(v / f32(bias2, x))
        denom += f32(group["eps"], x)
        mu_product_next = mu_product * mu_next
        x += f32(-lr * (1.0 - mu) / (1.0 - mu_product), x) * g / denom
        x += f32(-lr * mu_next / (1.0 - mu_product_next), x) * m / denom


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_adam_like(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=differentiable))

    def _update(self, p, grad, state, group):
        """PyTorch's single-tensor RAdam: Adam's moments, the rectified step once the
        variance estimate's length ``rho_t`` exceeds 5, else the bias-corrected momentum."""
        x = p._data
        g = _grad(p, grad, group)
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        if "exp_avg" not in state:
            state["step"] = _state_tensor(np.asarray(0.0, dtype=scalar_dtype()))
            state["exp_avg"] = _state_tensor(np.zeros_like(x))
            state["exp_avg_sq"] = _state_tensor(np.zeros_like(x))
        step = step_tensor(state)
        g = _weight_decay(x, g, group)
        m, v = _moments(state, x, g, beta1, beta2)
        bias1, bias2 = 1 - beta1 ** step, 1 - beta2 ** step
        corrected = m / f32(bias1, x)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = f32(bias2 ** 0.5, x) / (np.sqrt(v) + f32(group["eps"], x))
            x -= corrected * f32(lr, x) * adaptive * f32(rect, x)
        else:
            x -= corrected * f32(lr, x)


def _weight_decay(x, g, group):
    """PyTorch's weight decay of Adam, NAdam and RAdam: the parameter scaled in place
    (decoupled), or ``grad.add(param, alpha=weight_decay)``."""
    lr, wd = group["lr"], group["weight_decay"]
    if wd == 0:
        return g
    if group["decoupled_weight_decay"]:
        x *= f32(1 - lr * wd, x)
        return g
    return fma(x, f32(wd, x), g)


def _moments(state, x, g, beta1, beta2):
    """Adam's moments in place, as PyTorch's single-tensor loops update them:
    ``exp_avg.lerp_(g, 1 - beta1)``, ``exp_avg_sq.mul_(beta2).addcmul_(g, g, 1 - beta2)``."""
    m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
    m[...] = lerp(m, g, f32(1 - beta1, x))
    v *= f32(beta2, x)
    v[...] = fma(f32(1 - beta2, x) * g, g, v)
    return m, v


def _check_adam_like(lr, eps, betas, weight_decay):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
