"""Kinds of a lowered body's variables: what the modes may assume of each value.

``"float"``: a Python scalar on every path; ``"num"``: an array or a scalar computed by
an operator; ``"container"``: a list, tuple or dict (a display, or what a rule
declares a container); ``"record"``: a dataclass or an object of a user class (its
gradient is one of its own class, runtime/records.py).  The modes use them to skip un-broadcasting between scalars and
to add container gradients with ``ad.add_grads``.
"""
import types

import gast

from .. import syntax as A
from ...rules import facets_of, namespace as ad_namespace
from ...runtime.records import is_record


def argument_kind(x):
    """How the compiler may specialize on an argument value: Python scalar, array,
    container (what the call path and calls resolved at run time both key on)."""
    if isinstance(x, (dict, list, tuple)):
        return "container"
    if is_record(x):
        return "record"
    if isinstance(x, (float, int, complex)) and not isinstance(x, bool):
        return "float"
    if isinstance(x, types.ModuleType):
        return "module"     # a namespace passed in: ``def loss(w, xp=np)`` (np.shape!)
    if hasattr(x, "shape"):
        return "num"
    return "other"


def _builds_container(v):
    """``ad.as_list(x)``: a kernel whose rule says it returns a Python container (a call
    that only looks like one costs an ``add_grads``, nothing more)."""
    f = v.func if isinstance(v, gast.Call) else None
    if not (isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name)):
        return False
    kernel = getattr(ad_namespace(), f.attr, None)
    return kernel is not None and facets_of(kernel).container


def infer_kinds(body, arg_kinds):
    """Kinds of local variables: "float" (a Python scalar on every path), "num"
    (an array or scalar computed by an operator), "container" (a literal list,
    tuple or dict, or what a rule declares a container).  Used to skip un-broadcasting between scalars and to add
    container gradients with ``add_grads``."""
    kinds = dict(arg_kinds)
    assigns = [n for s in body for n in A.statements(s)
               if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name)]
    for n in assigns:
        v = n.value
        if isinstance(v, (gast.List, gast.Tuple, gast.Dict)) or _builds_container(v):
            kinds[n.targets[0].id] = "container"
        elif _gets_a_namespace(v):
            kinds[n.targets[0].id] = "module"
        elif (isinstance(v, (gast.BinOp, gast.UnaryOp)) or _is_keep_dtype(v)) and \
                kinds.get(n.targets[0].id) != "container":
            kinds.setdefault(n.targets[0].id, "num")
    # Python scalars: every assignment is scalar arithmetic on scalars
    targets = {}
    for n in assigns:
        targets.setdefault(n.targets[0].id, []).append(n.value)
    floats = {k for k, v in arg_kinds.items() if v == "float"}
    for name_ in targets:
        if name_ in arg_kinds and arg_kinds[name_] != "float":
            continue
        floats.add(name_)
    changed = True
    while changed:
        changed = False
        for name_ in list(floats):
            if name_ in targets and not all(_scalar_expr(v, floats) for v in targets[name_]):
                floats.discard(name_)
                changed = True
    for name_ in floats:
        if name_ in targets or arg_kinds.get(name_) == "float":
            kinds[name_] = "float"
    for name_ in targets:
        if kinds.get(name_) == "float" and name_ not in floats:
            # a float parameter rebound to an array (``x = np.copy(a)``): not a scalar
            # any more (it kept "float", and ``w * x`` lost w's un-broadcast)
            if any(isinstance(v, (gast.BinOp, gast.UnaryOp)) for v in targets[name_]):
                kinds[name_] = "num"
            else:
                # of no known kind; but still a parameter the code is specialized on (the
                # alias check of ``v += e`` needs to know that: fuzz seed 90593)
                kinds[name_] = "other"
    return kinds


def _gets_a_namespace(v):
    """``xp = array_namespace(x)`` (array_api_compat's, or ``x.__array_namespace__()``,
    CuPy's ``get_array_module``): its value is a module, whose ``xp.sum`` is no method."""
    f = v.func if isinstance(v, gast.Call) else None
    name = f.attr if isinstance(f, gast.Attribute) else f.id if isinstance(f, gast.Name) \
        else None
    return name in ("array_namespace", "__array_namespace__", "get_array_module")


def _scalar_expr(v, floats):
    if isinstance(v, gast.Constant):
        return isinstance(v.value, (int, float)) and not isinstance(v.value, bool)
    if isinstance(v, gast.Name):
        return v.id in floats
    if isinstance(v, gast.BinOp):
        return _scalar_expr(v.left, floats) and _scalar_expr(v.right, floats) and \
            not isinstance(v.op, gast.MatMult)
    if isinstance(v, gast.UnaryOp):
        return _scalar_expr(v.operand, floats)
    if _is_keep_dtype(v) and v.args:
        return _scalar_expr(v.args[0], floats)    # ``x += v``'s ad.keep_dtype(x + v, x)
    return False


def _is_keep_dtype(v):
    return isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and \
        v.func.attr == "keep_dtype"


