"""``torch.autograd.graph``: saved-tensor hooks, the ``_saved_*`` attributes of nodes
(:mod:`.saved`), and ``Node``, the class of ``grad_fn`` objects.

    with saved_tensors_hooks(pack, unpack):     # pack(t) when a node saves t,
        y = f(x)                                # unpack(packed) when backward reads it
    with save_on_cpu():                         # saved tensors kept in host memory
    with disable_saved_tensors_hooks(message):  # registering hooks raises ``message``
    register_multi_grad_hook(tensors, fn)     # fn(grads) once all of theirs are computed
"""
from .engine import current_graph_task
from .nodes import Node
from .saved import (  # noqa: F401  (the module's surface)
    SAVED, HOOKS, disable_saved_tensors_hooks, pack_saved, save_on_cpu, saved_attribute,
    saved_names, saved_tensors_hooks, unpacked, unpacked_values)

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "Node",
           "SAVED", "saved_attribute", "register_multi_grad_hook"]


class _MultiHandle:
    """The handle of a multi-grad hook: ``remove()`` removes it from every tensor."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _task_id():
    task = current_graph_task()
    if task is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """``mode="all"``: ``fn(grads)`` once per backward pass, after the gradient of every
    tensor of ``tensors`` that this pass computes (a list, None for the others: a tensor
    not in the graph, or not on the way to the ``inputs`` asked for).  ``mode="any"``:
    ``fn(grad)`` with the first of their gradients computed, once per pass."""
    supported = ("all", "any")
    if mode not in supported:
        raise ValueError(f"Expects mode to be one of {supported} but got {mode}")
    tensors = tuple(tensors)
    if mode == "all":
        if any(t.grad_fn is None and not t.requires_grad for t in tensors):
            raise AssertionError("Expected gradient function to be set")
        nodes = [t._grad_node() for t in tensors]
        pending = {}          # pass id -> [gradients received, expected, the gradients]

        def hook_for(i):
            def hook(grad):
                task = _task_id()
                entry = pending.get(task.id)
                if entry is None:          # the first one: how many this pass computes
                    expected = sum(task.will_execute(n) for n in nodes)
                    entry = pending[task.id] = [0, expected, [None] * len(tensors)]
                entry[2][i] = grad
                entry[0] += 1
                if entry[0] == entry[1]:
                    del pending[task.id]
                    fn(entry[2])
            return hook
        return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))
    ran = set()

    def first(grad):
        task = _task_id()
        if task.id not in ran:
            ran.add(task.id)
            fn(grad)
    return _MultiHandle(tuple(t.register_hook(first) for t in tensors if t.requires_grad))
