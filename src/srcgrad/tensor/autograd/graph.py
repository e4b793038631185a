"""``torch.autograd.graph``: saved-tensor hooks, the ``_saved_*`` attributes of nodes
(:mod:`.saved`), and ``Node``, the class of ``grad_fn`` objects.

    with saved_tensors_hooks(pack, unpack):     # pack(t) when a node saves t,
        y = f(x)                                # unpack(packed) when backward reads it
    with save_on_cpu():                         # saved tensors kept in host memory
    with disable_saved_tensors_hooks(message):  # registering hooks raises ``message``
"""
from .nodes import Node
from .saved import (  # noqa: F401  (the module's surface)
    SAVED, HOOKS, disable_saved_tensors_hooks, pack_saved, save_on_cpu, saved_attribute,
    saved_names, saved_tensors_hooks, unpacked, unpacked_values)

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "Node",
           "SAVED", "saved_attribute"]
