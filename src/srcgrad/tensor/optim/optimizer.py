"""``torch.optim.Optimizer``: parameter groups, per-parameter state, ``zero_grad``,
``state_dict`` / ``load_state_dict``, and PyTorch's ``repr``.

The algorithms update each parameter's array in place with the operations, in
the order and float precision, of PyTorch's single-tensor implementations, so a
run with the same initial weights prints the same losses.
"""
import copy

import numpy as np

from .. import grad_mode
from ..core import Tensor

__all__ = ["Optimizer", "required"]


class _Required:
    def __repr__(self):
        return "<required parameter>"


required = _Required()


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = {}
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + type(params).__name__)
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group):
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        for p in params:
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = dict(param_group)               # the group's own keys first, as PyTorch
        group["params"] = params
        for k, v in self.defaults.items():
            if v is required and k not in group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {k}")
            group.setdefault(k, v)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        g.detach_()
                    g.zero_()

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        with grad_mode.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, p.grad._data, self.state.setdefault(p, {}), group)
                        p._vc.value += 1
        return loss

    def _update(self, p, grad, state, group):      # pragma: no cover - each algorithm
        raise NotImplementedError

    def state_dict(self):
        index, groups, start = {}, [], 0
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = list(range(start, start + len(g["params"])))
            index.update({id(p): i for p, i in zip(g["params"], ids)})
            packed["params"] = ids
            groups.append(packed)
            start += len(ids)
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        by_index = {}
        for ours, theirs in zip(self.param_groups, groups):
            if len(ours["params"]) != len(theirs["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't "
                                 "match the size of optimizer's group")
            by_index.update(zip(theirs["params"], ours["params"]))
            for k, v in theirs.items():
                if k != "params":
                    ours[k] = v
        self.state = {}
        for i, s in state_dict["state"].items():
            p = by_index[i]
            self.state[p] = {k: (Tensor._make(v._data.astype(p._data.dtype if k != "step"
                                                              else v._data.dtype, copy=True))
                                 if isinstance(v, Tensor) else copy.deepcopy(v))
                             for k, v in s.items()}

    def __repr__(self):
        out = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            out += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    out += f"    {key}: {group[key]}\n"
        return out + ")"

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)


def f32(value, like):
    """A Python number as a scalar of ``like``'s dtype (PyTorch computes in it)."""
    return like.dtype.type(value)


def scalar_dtype():
    """The dtype of a step count tensor: float64 when that is the default dtype, else
    float32 (PyTorch's ``_get_scalar_dtype``)."""
    from .. import dtypes
    return np.float64 if dtypes.get_default_dtype() is dtypes.float64 else np.float32


def step_tensor(state):
    """PyTorch keeps Adam's step count as a tensor: ``state['step']``."""
    step = state["step"]
    step._data = np.asarray(step._data + 1, dtype=step._data.dtype)
    return float(step._data)
