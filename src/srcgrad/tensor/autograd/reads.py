"""Which arguments a rule reads the value of (not only the shape): the values a node
must check the version of.
"""
import ast
import builtins
import types

# -- which arguments a rule reads the value of ---------------------------------------------
#
# A node only checks the version of a saved tensor whose *values* its rule reads.
# That is decided by reading the rule's template and, through calls, the source of
# the helpers it calls: a use of a parameter is "shape only" when it is ``x.shape``
# (``.ndim``, ``.size``, ``.dtype``), an argument of ``np.shape``-like functions,
# an ``is None`` test, or an argument of a helper that itself uses it shape-only.
# Anything else (unknown functions, methods, assignments) counts as a value read.

_READ_CACHE = {}


def _rules():
    from ... import rules      # the registry (imported when first asked: no import cycle)
    return rules


def _callee(func, namespace):
    """The object a call's ``func`` expression names (``np.shape``, ``unbroadcast``) or None."""
    if isinstance(func, ast.Name):
        obj = namespace.get(func.id)
        if obj is None:
            obj = getattr(builtins, func.id, None)
        return obj
    if isinstance(func, ast.Attribute):
        base = _callee(func.value, namespace)
        return getattr(base, func.attr, None) if base is not None else None
    return None


def _parents(tree):
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _use_reads_value(use, parents, namespace, stack):
    """Whether one use (an ``ast.Name`` load) of a parameter reads its values."""
    parent = parents.get(use)
    if isinstance(parent, ast.Attribute) and parent.value is use:
        return not _rules().metadata_attribute(parent.attr)
    if isinstance(parent, ast.Compare) and all(isinstance(o, (ast.Is, ast.IsNot))
                                               for o in parent.ops):
        return False
    if isinstance(parent, ast.keyword):
        call = parents.get(parent)
        if parent.arg == "like":          # np.asarray(values, like=ref): the backend only
            return False
        return _call_reads(call, parent.arg, namespace, stack)
    if isinstance(parent, ast.Call) and use in parent.args:
        return _call_reads(parent, parent.args.index(use), namespace, stack)
    return True


def _call_reads(call, arg, namespace, stack):
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True
    callee = _callee(call.func, namespace)
    if callee is None:
        return True
    if callee is builtins.getattr and arg == 0 and len(call.args) > 1 and \
            isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str):
        return not _rules().metadata_attribute(call.args[1].value)   # getattr(x, "shape")
    if _rules().reads_only_shape(callee, arg):
        return False
    return function_reads(callee, arg, stack)


def function_reads(func, arg, stack=()):
    """Whether the Python function ``func`` reads the values of its argument ``arg``
    (a position or a keyword name).  Unknown or opaque functions read everything."""
    import inspect
    import textwrap
    key = (id(func), arg)
    if key in _READ_CACHE:
        return _READ_CACHE[key]
    if key in stack:                       # recursion: decided by the other uses
        return False
    if not isinstance(func, types.FunctionType):
        return True                         # a C function or a NumPy dispatcher: opaque
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
        fn = tree.body[0]
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if isinstance(arg, int):
            if arg >= len(params):
                raise LookupError
            name = params[arg]
        else:
            name = arg
            if name not in params + [a.arg for a in fn.args.kwonlyargs]:
                raise LookupError
    except (TypeError, OSError, SyntaxError, LookupError, IndexError, AttributeError):
        _READ_CACHE[key] = True
        return True
    if _rules().reads_only_shape(func, arg):        # declared on the function's rule
        _READ_CACHE[key] = False
        return False
    result = _names_read(fn, {name}, func.__globals__, stack + (key,))
    _READ_CACHE[key] = bool(result)
    return bool(result)


def _names_read(tree, names, namespace, stack=()):
    """The subset of ``names`` whose values the code ``tree`` reads."""
    parents = _parents(tree)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names and node.id not in out:
            if not isinstance(node.ctx, ast.Load) or \
                    _use_reads_value(node, parents, namespace, stack):
                out.add(node.id)
    return out


def value_reads(expr, names=None):
    """Names whose values (not just shapes) the template expression ``expr`` reads."""
    from ...rules import template_globals
    tree = ast.parse(expr, mode="eval")
    if names is None:
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return _names_read(tree, set(names), template_globals())


_READS = {}


def rule_reads(rule, needs):
    """Parameter names (and ``ans``) whose values the rule reads for the needed inputs."""
    key = (id(rule), needs)
    out = _READS.get(key)
    if out is None:
        out = set()
        names = set(rule.signature.parameters) | {"ans"}
        for p, need in zip(rule.diff_params, needs):
            if need and p in rule.vjp:
                out |= value_reads(rule.vjp[p], names)
        out = _READS[key] = frozenset(out)
    return out


