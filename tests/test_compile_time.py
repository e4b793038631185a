"""Compile time grows linearly with the function's size: the algorithmic properties.

No timings here (tools/bench.py's compile section measures them); instead the work
the analyses do is counted, and the fast tree tools are checked against the slow
ones they replace.
"""
import ast
import copy
import importlib.util
import sys

import gast
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler import codegen, syntax as A
from srcgrad.compiler.analysis.activity import Analysis
from gradcheck_util import assert_close, numeric_grad

sys.path.insert(0, __file__.rsplit("/tests/", 1)[0] + "/tools")
import bench  # noqa: E402  (the generated functions of the compile-time benchmark)


def _function(tmp_path, n, loop):
    path = tmp_path / f"gen_{n}_{int(loop)}.py"
    path.write_text(bench.generated_source(n, loop))
    spec = importlib.util.spec_from_file_location(f"srcgrad_ct_{n}_{int(loop)}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f


def _edge_visits(f, monkeypatch):
    seen = []
    real = Analysis.activity

    def counting(self):
        real(self)
        seen.append(self.edge_visits)
    monkeypatch.setattr(Analysis, "activity", counting)
    sg.grad(f, wrt=(0, 1))(np.linspace(0.1, 0.9, 3), 0.7)
    monkeypatch.undo()
    return max(seen)


@pytest.mark.parametrize("loop", [False, True])
def test_activity_work_is_linear_in_the_size(tmp_path, monkeypatch, loop):
    small = _edge_visits(_function(tmp_path, 100, loop), monkeypatch)
    large = _edge_visits(_function(tmp_path, 400, loop), monkeypatch)
    # a chain: the old sweeps added one name per sweep over all statements (n**2)
    assert 3.0 < large / small < 5.0


@pytest.mark.parametrize("loop", [False, True])
def test_generated_functions_differentiate(tmp_path, loop):
    f = _function(tmp_path, 30, loop)
    x = np.linspace(0.1, 0.9, 3)
    gx, gw = sg.grad(f, wrt=(0, 1))(x, 0.7)
    assert_close(gx, numeric_grad(f, (x, 0.7), 0))
    assert_close(gw, numeric_grad(f, (x, 0.7), 1))
    _, t = sg.jvp(f, (x, 0.7), (np.ones_like(x), 0.0))
    assert_close(t, np.sum(gx))


def _nested_loops(x, w):
    acc = x * 0.0
    s = 0.0
    for i in range(3):
        for j in range(2):
            acc = acc + x * x * w
            s = s + x[i] * x[j]
        if s > 0.5:
            acc = np.sin(acc) + x[i]
        else:
            acc = acc * w
        k = 0
        while k < 2:
            s = s * w + np.sum(acc[1:]) * x[k]
            k = k + 1
    return np.sum(acc) + s


def test_a_loop_body_adjoint_is_generated_once_per_pass(monkeypatch):
    # the adjoint statuses at a loop's head are a fixpoint: found by sweeps that
    # build no code, then the body's code is built once (it was once per round)
    from srcgrad.compiler.modes.adjoint import AdjointSweep
    made, passes = {}, []
    real = AdjointSweep.bwd_block

    def counting(self, stmts, state, depth, fresh_comments=True):
        if depth > 0:                   # a loop's body (or a branch inside one)
            passes.append(self)         # (kept alive: ids stay unique)
            made[id(self), id(stmts)] = made.get((id(self), id(stmts)), 0) + 1
        return real(self, stmts, state, depth, fresh_comments)
    monkeypatch.setattr(AdjointSweep, "bwd_block", counting)
    x = np.linspace(0.1, 0.9, 4)
    gx, gw = sg.grad(_nested_loops, wrt=(0, 1))(x, 0.7)
    monkeypatch.undo()
    assert len(made) >= 4 and set(made.values()) == {1}
    assert_close(gx, numeric_grad(_nested_loops, (x, 0.7), 0))
    assert_close(gw, numeric_grad(_nested_loops, (x, 0.7), 1))


def test_fitted_exponent():
    ns = [10, 100, 1000]
    assert bench.fitted_exponent(ns, [2e-3 * n for n in ns]) == pytest.approx(1.0)
    assert bench.fitted_exponent(ns, [1e-5 * n * n for n in ns]) == pytest.approx(2.0)


# -- the fast tree tools give what the slow ones gave ------------------------------

_SAMPLES = [
    "def f(x, *args, k=2, **kw):\n    y = x[1:2, ::3] + np.sum(x, axis=(0, -1))\n"
    "    for i, (a, b) in enumerate(zip(x, y)):\n        y[i] = a if b else -b\n"
    "    try:\n        z = {k: v for k, v in kw.items()}\n    except ValueError as e:\n"
    "        raise\n    return lambda q, r=1: q ** r + y @ x\n",
    "def g(a):\n    '''doc'''\n    with np.errstate(all='ignore'):\n        del a[0]\n"
    "    while a:\n        a, b = (a.pop(), f'{a!r:>3}')\n    return [*a, *b]\n",
]


@pytest.mark.parametrize("src", _SAMPLES)
def test_walk_visits_the_nodes_gast_walk_visits(src):
    tree = gast.parse(src)
    # (expression contexts, Load/Store/Del, hold nothing: the fast walk skips them)
    assert {id(n) for n in A.walk(tree)} == {id(n) for n in gast.walk(tree)
                                             if not isinstance(n, gast.expr_context)}
    names = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)}
    assert A.all_names(tree) == names
    assert A.names_read(tree) == {n.id for n in gast.walk(tree)
                                  if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


@pytest.mark.parametrize("src", _SAMPLES)
def test_clone_is_a_deep_copy(src):
    tree = gast.parse(src)
    tree.body[0].body[0].srcgrad_note = {"node": tree.body[0].body[0]}   # an annotation
    c = A.clone(tree)
    d = copy.deepcopy(tree)
    assert A.unparse(c.body) == A.unparse(d.body) == A.unparse(tree.body)
    assert not ({id(n) for n in gast.walk(c)} & {id(n) for n in gast.walk(tree)})
    first = c.body[0].body[0]
    assert first.srcgrad_note["node"] is first          # shared references stay shared


@pytest.mark.parametrize("src", _SAMPLES)
def test_codegen_prints_what_gast_to_ast_printed(src):
    fdef = gast.parse(src).body[0]
    old = ast.unparse(ast.fix_missing_locations(gast.gast_to_ast(
        gast.Module(body=[copy.deepcopy(fdef)], type_ignores=[]))))
    assert codegen.to_source(fdef) == old + "\n"
