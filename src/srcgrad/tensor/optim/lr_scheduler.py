"""``torch.optim.lr_scheduler``: StepLR, MultiStepLR, ExponentialLR, LambdaLR,
MultiplicativeLR, LinearLR, ConstantLR, PolynomialLR, CosineAnnealingLR,
ReduceLROnPlateau.

Each scheduler sets ``group["lr"]`` for the epoch, with PyTorch's recursive
(chainable) formulas, so the printed learning rates are the same floats.
"""
import math

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LambdaLR",
           "CosineAnnealingLR", "ReduceLROnPlateau", "MultiplicativeLR", "LinearLR",
           "ConstantLR", "PolynomialLR"]


class LRScheduler:
    def __init__(self, optimizer, last_epoch=-1):
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self):
        self.step()

    def get_last_lr(self):
        return self._last_lr

    def get_lr(self):            # pragma: no cover - each scheduler
        raise NotImplementedError

    def step(self, epoch=None):
        self.last_epoch += 1
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


_LRScheduler = LRScheduler


class StepLR(LRScheduler):
    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [g["lr"] for g in self.optimizer.param_groups]
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return [g["lr"] for g in self.optimizer.param_groups]
        k = self.milestones.count(self.last_epoch)
        return [g["lr"] * self.gamma ** k for g in self.optimizer.param_groups]


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [g["lr"] for g in self.optimizer.param_groups]
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]


class LambdaLR(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        n = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) \
            else [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * f(self.last_epoch) for base, f in zip(self.base_lrs, self.lr_lambdas)]


def _lrs(scheduler):
    return [g["lr"] for g in scheduler.optimizer.param_groups]


class MultiplicativeLR(LRScheduler):
    """Each step multiplies the lr by ``lr_lambda(epoch)``."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch <= 0:
            return _lrs(self)
        return [g["lr"] * f(self.last_epoch)
                for g, f in zip(self.optimizer.param_groups, self.lr_lambdas)]


class LinearLR(LRScheduler):
    """The lr times a factor going linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` steps (PyTorch's chainable form: each step's ratio)."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 "
                             "and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = \
            start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e, a, b = self.last_epoch, self.start_factor, self.end_factor
        if e == 0:
            return [lr * a for lr in _lrs(self)]
        if e > self.total_iters:
            return _lrs(self)
        ratio = 1.0 + (b - a) / (self.total_iters * a + (e - 1) * (b - a))
        return [lr * ratio for lr in _lrs(self)]


class ConstantLR(LRScheduler):
    """The lr times ``factor`` until ``total_iters`` steps have passed."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.factor for lr in _lrs(self)]
        if self.last_epoch != self.total_iters:
            return _lrs(self)
        return [lr * (1.0 / self.factor) for lr in _lrs(self)]


class PolynomialLR(LRScheduler):
    """``base_lr * (1 - epoch / total_iters) ** power`` (as each step's ratio)."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e, n = self.last_epoch, self.total_iters
        if e == 0 or e > n:
            return _lrs(self)
        ratio = ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** self.power
        return [lr * ratio for lr in _lrs(self)]


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e, T = self.last_epoch, self.T_max
        groups = self.optimizer.param_groups
        if e == 0:
            return [g["lr"] for g in groups]
        if (e - 1 - T) % (2 * T) == 0:
            return [g["lr"] + (base - self.eta_min) * (1 - math.cos(math.pi / T)) / 2
                    for base, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T))
                * (g["lr"] - self.eta_min) + self.eta_min for g in groups]


class ReduceLROnPlateau:
    """Multiply each group's lr by ``factor`` (not below its ``min_lr``) once the metric
    passed to ``step(metric)`` has not improved for more than ``patience`` epochs, then
    wait ``cooldown`` epochs; "improved" is by ``threshold``, relative or absolute."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        groups = optimizer.param_groups
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(groups):
                raise ValueError(f"expected {len(groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr, self.min_lrs = None, list(min_lr)
        else:
            self.default_min_lr, self.min_lrs = min_lr, [min_lr] * len(groups)
        self.optimizer, self.factor, self.patience = optimizer, factor, patience
        self.threshold, self.threshold_mode, self.mode = threshold, threshold_mode, mode
        self.cooldown, self.eps = cooldown, eps
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.best = self.mode_worse
        self.cooldown_counter = self.num_bad_epochs = self.last_epoch = 0
        self._last_lr = [g["lr"] for g in groups]

    def is_better(self, a, best):
        if self.mode == "min":
            return a < (best * (1.0 - self.threshold) if self.threshold_mode == "rel"
                        else best - self.threshold)
        return a > (best * (self.threshold + 1.0) if self.threshold_mode == "rel"
                    else best + self.threshold)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def step(self, metrics, epoch=None):
        current = float(metrics)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self.is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._fit_min_lrs()
            for group, min_lr in zip(self.optimizer.param_groups, self.min_lrs):
                old = float(group["lr"])
                new = max(old * self.factor, min_lr)
                if old - new > self.eps:
                    group["lr"] = new
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def _fit_min_lrs(self):
        """Groups added since: the scalar min_lr for each; a list of them cannot grow."""
        groups = self.optimizer.param_groups
        if len(groups) == len(self.min_lrs):
            return
        if self.default_min_lr is None:
            raise RuntimeError(f"The number of param groups in the `optimizer` ({len(groups)}) "
                               f"differs from when `ReduceLROnPlateau` was initialized "
                               f"({len(self.min_lrs)}), usually due to a new param group being "
                               "added to the optimizer. Please modify the `min_lrs` field to "
                               "match the length of the `optimizer` param groups.")
        self.min_lrs = [self.default_min_lr] * len(groups)

    def get_last_lr(self):
        return self._last_lr

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
