"""The printer writes what ``ast.unparse`` writes, and what it writes means the tree.

Two independent checks: the text equals ``ast.unparse``'s for the same tree, and
parsing the text gives back the tree (so a precedence slip cannot pass by agreeing
with itself).  Trees are random expressions and statements (hypothesis), and the
generated code of the whole control-flow table in both modes.
"""
import ast
import copy

import gast
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import srcgrad as sg
from srcgrad.compiler import printer
from srcgrad.compiler.ir import Comment


def N(i):
    return gast.Name(id=i, ctx=gast.Load(), annotation=None, type_comment=None)


def C(v):
    return gast.Constant(value=v, kind=None)


BINOPS = [gast.Add, gast.Sub, gast.Mult, gast.MatMult, gast.Div, gast.Mod, gast.FloorDiv,
          gast.Pow, gast.LShift, gast.RShift, gast.BitOr, gast.BitXor, gast.BitAnd]
UNARY = [gast.USub, gast.UAdd, gast.Invert, gast.Not]
CMPS = [gast.Eq, gast.NotEq, gast.Lt, gast.LtE, gast.Gt, gast.GtE, gast.Is, gast.IsNot,
        gast.In, gast.NotIn]

atoms = st.one_of(st.sampled_from(["x", "y", "dz", "np"]).map(N),
                  st.sampled_from([0, 1, 2.5, 1e-3, 3j, True, None, "s", "it's", b"b"]).map(C))


def _extend(inner):
    names = st.sampled_from(["x", "y"]).map(N)
    return st.one_of(
        st.tuples(inner, st.sampled_from(BINOPS), inner).map(
            lambda t: gast.BinOp(left=t[0], op=t[1](), right=t[2])),
        st.tuples(st.sampled_from(UNARY), inner).map(
            lambda t: gast.UnaryOp(op=t[0](), operand=t[1])),
        st.tuples(inner, st.lists(st.tuples(st.sampled_from(CMPS), inner), min_size=1,
                                  max_size=2)).map(
            lambda t: gast.Compare(left=t[0], ops=[o() for o, _ in t[1]],
                                   comparators=[c for _, c in t[1]])),
        st.tuples(st.sampled_from([gast.And, gast.Or]), st.lists(inner, min_size=2,
                                                                 max_size=3)).map(
            lambda t: gast.BoolOp(op=t[0](), values=t[1])),
        st.tuples(inner, inner, inner).map(
            lambda t: gast.IfExp(test=t[0], body=t[1], orelse=t[2])),
        st.tuples(inner, st.lists(inner, max_size=2), st.lists(inner, max_size=1),
                  st.booleans()).map(
            lambda t: gast.Call(func=t[0], args=t[1] + ([gast.Starred(
                value=t[1][0], ctx=gast.Load())] if t[3] and t[1] else []),
                keywords=[gast.keyword(arg="k", value=v) for v in t[2]])),
        st.tuples(inner, st.sampled_from(["T", "shape", "real"])).map(
            lambda t: gast.Attribute(value=t[0], attr=t[1], ctx=gast.Load())),
        st.tuples(names, st.lists(st.one_of(inner, st.tuples(
            st.one_of(st.none(), inner), st.one_of(st.none(), inner),
            st.one_of(st.none(), inner)).map(
                lambda s: gast.Slice(lower=s[0], upper=s[1], step=s[2]))),
            min_size=0, max_size=2), st.booleans()).map(
            lambda t: gast.Subscript(
                value=t[0], ctx=gast.Load(),
                slice=gast.Tuple(elts=t[1], ctx=gast.Load()) if t[2] or len(t[1]) != 1
                else t[1][0])),
        st.lists(inner, max_size=3).map(lambda e: gast.Tuple(elts=e, ctx=gast.Load())),
        st.lists(inner, max_size=3).map(lambda e: gast.List(elts=e, ctx=gast.Load())),
        st.lists(st.tuples(st.one_of(st.none(), inner), inner), max_size=2).map(
            lambda kv: gast.Dict(keys=[k for k, _ in kv], values=[v for _, v in kv])),
    )


exprs = st.recursive(atoms, _extend, max_leaves=12)


def _roundtrip_equal(text, tree, mode="eval"):
    """``text`` parses back to ``tree`` (comments aside)."""
    back = ast.parse(text, mode=mode)
    if mode == "eval":
        want = ast.Expression(body=printer.to_ast(tree))
    else:
        want = ast.Module(body=printer.to_ast(_without_comments(copy.deepcopy(tree))),
                          type_ignores=[])
    return ast.dump(back) == ast.dump(want)


def _without_comments(v):
    if isinstance(v, list):
        return [_without_comments(x) for x in v if not isinstance(x, Comment)]
    if isinstance(v, gast.AST):
        for f in v._fields:
            setattr(v, f, _without_comments(getattr(v, f, None)))
    return v


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs)
def test_expressions_as_unparse_writes_them(tree):
    text = printer.expr(tree)
    assert text == ast.unparse(printer.to_ast(tree))
    assert _roundtrip_equal(text, tree)


def _assign(target, value):
    return gast.Assign(targets=[target], value=value, type_comment=None)


def _store(i):
    return gast.Name(id=i, ctx=gast.Store(), annotation=None, type_comment=None)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(exprs, min_size=3, max_size=3), st.integers(0, 3))
def test_statements_as_unparse_writes_them(es, depth):
    a, b, c = es
    body = [Comment("line 3: y = f(x)"), _assign(_store("y"), a),
            gast.AugAssign(target=_store("y"), op=gast.Add(), value=b),
            gast.Expr(value=c)]
    for k in range(depth):     # nest: if / elif / else, for, while, def
        wrap = [gast.If(test=a, body=body, orelse=[gast.If(test=b, body=[gast.Pass()],
                                                           orelse=body)]),
                gast.For(target=gast.Tuple(elts=[_store("i"), _store("j")], ctx=gast.Store()),
                         iter=b, body=body, orelse=[gast.Pass()], type_comment=None),
                gast.While(test=c, body=body + [gast.Continue()], orelse=[]),
                _def("inner", body + [gast.Return(value=a)])][k % 4]
        body = [Comment("nested"), wrap, gast.Return(value=None)]
    fdef = _def("f", body, doc="Gradient of f (a.py:1) with respect to x.")
    text = printer.to_source(fdef)
    assert text == printer.reference_source(fdef)
    assert _roundtrip_equal(text, [fdef], mode="exec")


def _def(name, body, doc=None):
    args = gast.arguments(args=[gast.Name(id="x", ctx=gast.Param(), annotation=None,
                                          type_comment=None)],
                          posonlyargs=[], vararg=None, kwonlyargs=[
                              gast.Name(id="k", ctx=gast.Param(), annotation=None,
                                        type_comment=None)],
                          kw_defaults=[C(1.0)], kwarg=gast.Name(
                              id="kw", ctx=gast.Param(), annotation=None, type_comment=None),
                          defaults=[])
    if doc:
        body = [gast.Expr(value=C(doc))] + body
    fields = {"type_params": []} if "type_params" in gast.FunctionDef._fields else {}
    return gast.FunctionDef(name=name, args=args, body=body, decorator_list=[],
                            returns=None, type_comment=None, **fields)


def test_constructs_passed_to_ast_unparse_keep_their_context():
    # a lambda as an operand needs parentheses; a comprehension and a try are
    # rendered by ast.unparse inside the printer's own text
    lam = gast.parse("lambda a: a + 1").body[0].value
    tree = gast.BinOp(left=lam, op=gast.Mult(), right=N("x"))
    assert printer.expr(tree) == ast.unparse(printer.to_ast(tree)) == "(lambda a: a + 1) * x"
    fdef = gast.parse("def f(x):\n    try:\n        y = [v * 2 for v in x]\n"
                      "    except ValueError as e:\n        y = None\n    return f'{y}'\n"
                      ).body[0]
    fdef.body.insert(0, Comment("first"))
    fdef.body[1].body.append(Comment("inside try"))
    assert printer.to_source(fdef) == printer.reference_source(fdef)
    assert "    # first\n" in printer.to_source(fdef)
    assert "        # inside try\n" in printer.to_source(fdef)


def test_generated_code_of_the_control_flow_table(monkeypatch):
    import test_control_flow as cf
    from srcgrad.compiler import driver
    from srcgrad.compiler.modes import forward
    monkeypatch.setattr(printer, "_CHECK", True)     # each rendering is compared
    driver._CACHE.clear()
    forward._CACHE.clear()
    seen = 0
    for p in cf.TABLE:
        f, args, wrt = p.values[:3]
        if any(getattr(m, "name", "") == "xfail" for m in p.marks):
            continue
        try:
            sg.grad(f, wrt=wrt)(*args)
            sg.jvp(f, tuple(args), tuple(np.ones_like(np.asarray(a, float)) * 0.5
                                         for a in args))
        except (sg.UnsupportedSyntaxError, sg.NonDifferentiableError, TypeError, ValueError):
            continue        # (what the table expects of each case is its own test)
        seen += 1
    assert seen > 50
