"""Each pass's stated guarantee, checked on its own output over the control-flow table.

The compiler's passes (srcgrad.compiler.pipeline.PASSES) each promise something about
what they produce; these tests run a pass alone on every function of
tests/test_control_flow.py and check the promise statement by statement, so that a pass
that breaks it fails here, where the cause is, and not as a wrong gradient later.
"""
import ast
import os
import sys

import gast
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import test_control_flow as cf  # noqa: E402

import srcgrad as sg  # noqa: E402
from srcgrad.compiler import ir, syntax as A  # noqa: E402
from srcgrad.compiler.lower import normalize  # noqa: E402
from srcgrad.compiler.source import get_function_ast  # noqa: E402

FUNCS = {}
for f, args, wrt, ident, *_ in cf.CASES:
    FUNCS.setdefault(f.__name__, f)


def _normalized(f):
    fdef, info = get_function_ast(f)
    gen = A.NameGen(A.all_names(fdef))
    info.ad_name = "ad"
    return normalize(fdef, info, gen, "ad")


def _atom(e):
    """A name, a constant, or a static module attribute (``np.pi``)."""
    while isinstance(e, gast.Attribute):
        e = e.value
    return isinstance(e, (gast.Name, gast.Constant))


def _walk_stmts(stmts):
    return ir.walk(stmts)


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_normalize_guarantees(name):
    try:
        body = _normalized(FUNCS[name])
    except (sg.UnsupportedSyntaxError, sg.NonDifferentiableError):
        pytest.skip("refused by normalize (a located error)")
    # exactly one return, as the last statement of the function
    returns = [s for s in _walk_stmts(body) if isinstance(s, gast.Return)]
    assert len(returns) == 1 and body[-1] is returns[0], "one return, last"
    for s in _walk_stmts(body):
        if isinstance(s, gast.Assign):
            # one target: a name or name[index]
            assert len(s.targets) == 1
            t = s.targets[0]
            assert isinstance(t, gast.Name) or (isinstance(t, gast.Subscript) and
                                                isinstance(t.value, gast.Name)), \
                ast.unparse(gast.gast_to_ast(s))
            v = s.value
            # a primitive right-hand side: one operator whose operands are atoms
            if isinstance(v, gast.BinOp):
                assert _atom(v.left) and _atom(v.right), ast.unparse(gast.gast_to_ast(s))
            if isinstance(v, gast.UnaryOp) and not isinstance(v.op, gast.Not):
                assert _atom(v.operand), ast.unparse(gast.gast_to_ast(s))
        assert not isinstance(s, gast.AugAssign), "x += y becomes x = x + y"
        if isinstance(s, gast.For):
            # loops run over range(...) so the reverse sweep can run them backwards
            it = s.iter
            if isinstance(it, gast.Subscript):      # range(...)[::-1]: reversed(...)
                it = it.value
            assert isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and \
                it.func.id == "range", ast.unparse(gast.gast_to_ast(it))
            assert isinstance(s.target, gast.Name)
        if isinstance(s, (gast.For, gast.While)):
            # the only break left is ``if flag: break`` at the end of the loop body
            for i, inner in enumerate(s.body):
                if isinstance(inner, gast.Break):
                    pytest.fail("a bare break inside a loop body")
                if isinstance(inner, gast.If) and any(isinstance(x, gast.Break)
                                                      for x in inner.body):
                    assert i == len(s.body) - 1 and len(inner.body) == 1
            assert not any(isinstance(n, gast.Continue) for n in _walk_stmts(s.body))


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_codegen_output_is_valid_python_with_user_names(name):
    f = FUNCS[name]
    try:
        src = sg.source(f)
    except (sg.UnsupportedSyntaxError, sg.NonDifferentiableError):
        pytest.skip("refused (a located error)")
    tree = ast.parse(src)
    fdef = tree.body[0]
    assert isinstance(fdef, ast.FunctionDef) and fdef.name.endswith(f.__name__)
    # the user's parameters, in the user's order, are the generated function's
    user = [a.arg for a in ast.parse(_source_of(f)).body[0].args.args]
    assert [a.arg for a in fdef.args.args][:len(user)] == user
    # every line comment points at a real line of the user's function
    import inspect
    lines, first = inspect.getsourcelines(f)
    for line in src.splitlines():
        s = line.strip()
        if s.startswith("# line "):
            no = int(s[len("# line "):].split(":")[0])
            assert first <= no < first + len(lines), line


def _source_of(f):
    import inspect
    import textwrap
    return textwrap.dedent(inspect.getsource(f))


def test_block_visitor_reaches_every_nested_statement():
    src = """
def f(x):
    if x > 0:
        for i in range(3):
            x = x + 1
    else:
        while x < 0:
            x = x * 2
    try:
        y = x
    except ValueError:
        y = 0
    finally:
        z = 1
    def g(t):
        return t
    return x
"""
    tree = gast.parse(src).body[0]
    assigns = [s for s in ir.walk(tree.body) if isinstance(s, gast.Assign)]
    assert [a.targets[0].id for a in assigns] == ["x", "x", "y", "y", "z"]
    assert len([s for s in ir.walk(tree.body, into_defs=True) if isinstance(s, gast.Return)]) == 2

    class Double(ir.BlockVisitor):           # every simple assignment runs twice
        def visit_simple(self, s):
            return [s, s] if isinstance(s, gast.Assign) else [s]
    body = Double().visit_block(tree.body)
    assert len([s for s in ir.walk(body) if isinstance(s, gast.Assign)]) == 10
