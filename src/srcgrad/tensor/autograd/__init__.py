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
           "Variable"]


class set_detect_anomaly:
    """Accepted for compatibility; srcgrad's errors already name the failing node."""

    def __init__(self, mode=True, check_nan=True):
        self.mode = mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


detect_anomaly = set_detect_anomaly
