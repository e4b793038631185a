"""Small builders and tests of the lowered form, shared by the lowering passes."""
import builtins

import gast

from .. import syntax as A
from ..source import resolve

OP_NAMES = {"Add": "add", "Sub": "sub", "Mult": "mul", "Div": "div", "Pow": "pow",
            "MatMult": "matmul", "Mod": "mod", "FloorDiv": "floordiv", "USub": "neg",
            "UAdd": "pos", "Not": "not_", "Invert": "inv", "BitAnd": "and_", "BitOr": "or_",
            "BitXor": "xor", "LShift": "lshift", "RShift": "rshift"}


class _Jump(gast.stmt):
    """A placeholder for break/continue/return inside a loop, removed by lower_jumps."""
    _fields = ()

    def __init__(self, kind, node):
        super().__init__()
        self.kind = kind
        self.node = node
        A.copy_loc(self, node)


def _is_list_pop(e, local_names):
    """``lst.pop()`` (no argument) on a local name."""
    return isinstance(e, gast.Call) and isinstance(e.func, gast.Attribute) and \
        e.func.attr == "pop" and isinstance(e.func.value, gast.Name) and \
        e.func.value.id in local_names and not e.args and not e.keywords


def mark_nograd(node):
    """Mark the statements of ``node`` as carrying no gradient (``with sg.no_grad():``),
    except those of an ``enable_grad`` block inside it (marked ``srcgrad_grad_enabled``)."""
    todo = [node]
    while todo:
        n = todo.pop()
        if getattr(n, "srcgrad_grad_enabled", False):
            continue
        if isinstance(n, gast.stmt):
            n.srcgrad_nograd = True
        todo.extend(gast.iter_child_nodes(n))


def mark_grad_enabled(stmts):
    """``with sg.enable_grad():``: its statements carry gradients even inside an
    enclosing ``no_grad`` block (those of a ``no_grad`` block nested in it do not)."""
    for s in stmts:
        if not getattr(s, "srcgrad_nograd", False):
            s.srcgrad_grad_enabled = True


# NumPy's names for parameters that take a sequence of arrays (np.concatenate's
# ``arrays``, np.vstack's ``tup``): a list there is not read as one array
def _is_numpy(obj):
    import numpy as np
    return isinstance(obj, np.ufunc) or \
        (getattr(obj, "__module__", None) or "").split(".")[0] == "numpy"


def _sequence_names(body):
    """Names that some assignment binds to a list or tuple display, or to list()/tuple()."""
    out = set()
    for n in A.statements(body):
        if isinstance(n, gast.Assign):
            v = n.value
            seq = isinstance(v, (gast.List, gast.Tuple, gast.ListComp)) or (
                isinstance(v, gast.Call) and isinstance(v.func, gast.Name) and
                v.func.id in ("list", "tuple", "sorted"))
            if seq:
                out |= {t.id for t in n.targets if isinstance(t, gast.Name)}
    return out


def _dict_names(fdef, normalizer):
    """Names that every store in the function binds to a dict display or ``dict(...)``,
    and the parameters known to be containers at this call that nothing rebinds."""
    stores, dicts = {}, {}
    for n in A.walk(fdef.body):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, gast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], gast.Name) and not isinstance(n.value, gast.Name) \
                and normalizer._is_dict(n.value):
            dicts[n.targets[0].id] = dicts.get(n.targets[0].id, 0) + 1
    params = {a.id for a in normalizer._params(fdef)}
    return {k for k, c in dicts.items() if stores.get(k) == c and k not in params} | \
        {p for p in normalizer.known_sequences & params if p not in stores}


def _is_static_index(index):
    return all(isinstance(n, (gast.Constant, gast.Slice, gast.Tuple, gast.expr_context,
                              gast.UnaryOp, gast.unaryop))
               for n in gast.walk(index))


def _copy(node):
    import copy
    return copy.deepcopy(node)


def _base_of(e):
    """A readable base name for a temporary holding ``e``."""
    if isinstance(e, gast.Call):
        f = e.func
        if isinstance(f, gast.Attribute):
            return f.attr
        if isinstance(f, gast.Name):
            return f.id
    if isinstance(e, gast.BinOp):
        return OP_NAMES.get(type(e.op).__name__, "t")
    if isinstance(e, gast.UnaryOp):
        return OP_NAMES.get(type(e.op).__name__, "t")
    if isinstance(e, gast.Attribute):
        return e.attr
    if isinstance(e, gast.Subscript):
        return (e.value.id + "_i") if isinstance(e.value, gast.Name) else "item"
    if isinstance(e, (gast.Tuple, gast.List)):
        return "seq"
    if isinstance(e, gast.IfExp):
        return "choice"
    return "t"


def _target_base(t):
    if isinstance(t, gast.Name):
        return t.id
    return "value"


def _is_zip_call(node, normalizer):
    """Is ``node`` a call of the builtin zip (positional arguments only)?"""
    return isinstance(node, gast.Call) and not normalizer._is_local(node.func) and \
        bool(node.args) and not node.keywords and \
        not any(isinstance(a, gast.Starred) for a in node.args) and \
        resolve(node.func, normalizer.func) is builtins.zip


def _item(seq, idx):
    return gast.Subscript(value=A.name(seq.id) if isinstance(seq, gast.Name) else seq,
                          slice=A.name(idx), ctx=gast.Load())


def _range_len(seq):
    return A.call(A.name("range"), [A.call(A.name("len"), [A.name(seq.id) if isinstance(
        seq, gast.Name) else seq])])


def _offset(idx, start):
    return gast.BinOp(left=A.name(idx), op=gast.Add(), right=start)


def _tuple_item(idx, seq, start):
    first = A.name(idx) if start is None else _offset(idx, start)
    return A.tuple_([first, _item(seq, idx)])
