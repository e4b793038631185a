"""``torch.autograd``: the eager graph, its backward engine, and what is built on it.

    nodes      grad_fn objects: a node runs its primitive's derivative rule
    reads      which arguments a rule reads the value of (the versions a node checks)
    engine     backward(), grad(): the walk over the graph (create_graph records it)
    lifted     rule templates run on tensors, so a backward pass can be differentiated
    function   torch.autograd.Function, its ctx, once_differentiable
    functional jacobian, hessian, vjp, jvp, hvp, vhp (torch.autograd.functional)
    forward_ad dual tensors: forward-mode derivatives from the rules' forward templates
    gradcheck  gradcheck, gradgradcheck
    graph      saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks; _saved_* names
"""
from ..core import VersionCounter
from . import engine as _engine
from .engine import GraphMethods, backward, grad, run_backward
from .function import Function, FunctionCtx, InplaceFunction, NestedIOFunction, once_differentiable
from .nodes import (_SECOND_TIME, AccumulateGrad, InputMeta, Node, RuleNode, _modified_message,
                    _node_class, vjp_function)
from .reads import function_reads, rule_reads, value_reads
from . import lifted  # noqa: E402,F401  (installs the recorded backward of rule nodes)
from . import forward_ad, functional, graph  # noqa: E402,F401  (torch.autograd.<module>)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402
from ..legacy import Variable  # noqa: E402  (legacy: a tensor)

__all__ = ["Node", "AccumulateGrad", "backward", "grad", "Function", "FunctionCtx",
           "once_differentiable", "set_detect_anomaly", "detect_anomaly", "VersionCounter",
           "functional", "forward_ad", "gradcheck", "gradgradcheck", "GradcheckError",
           "Variable", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


class set_detect_anomaly:
    """Anomaly mode on or off from the call (a context manager restores the previous
    mode): a backward node whose gradient has a NaN then raises PyTorch's error.
    (srcgrad's other errors name the failing node already; no forward trace is kept.)"""

    def __init__(self, mode, check_nan=True):
        self.prev = list(_engine.ANOMALY)
        _engine.ANOMALY[:] = [bool(mode), bool(check_nan)]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _engine.ANOMALY[:] = self.prev
        return False


class detect_anomaly:
    """Anomaly mode inside ``with detect_anomaly():`` (or a decorated function)."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        import warnings
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)
        self.prev = list(_engine.ANOMALY)
        _engine.ANOMALY[:] = [True, bool(self.check_nan)]
        return self

    def __exit__(self, *exc):
        _engine.ANOMALY[:] = self.prev
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with type(self)(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


def is_anomaly_enabled():
    return _engine.ANOMALY[0]


def is_anomaly_check_nan_enabled():
    return _engine.ANOMALY[1]
