"""The shape laws (rules/shapes.py) against NumPy's real results.

For every rule with a ``shape`` law, an ``elementwise`` facet or a ``reduction``
facet, on each of its sample calls (test_rules.py), the law's abstract result, when
it is not UNKNOWN, must have the real result's shape, and must not claim a complex
result is real.  Specialized code drops an un-broadcast on these facts, so a wrong
law would be a wrong gradient.
"""
import numpy as np
import pytest

import srcgrad as sg  # noqa: F401  (registers everything)
from srcgrad.compiler.optimize import shapes as facts
from srcgrad.compiler.optimize.shapes import join
from srcgrad import rules
from srcgrad.rules import shapes as S

import test_rules as tr

LAW_CASES = [(r, s) for r, s in tr.CASES
             if r.facets.shape is not None or r.facets.elementwise or r.facets.reduction]


def abstract(v):
    """A sample argument as the compiler sees it: arrays by shape and kind, Python
    constants known."""
    a = S.of_value(v)
    if type(a) is S.Array:
        return a
    if v is None or type(v) in (int, float, bool, complex, str):
        return S.Known(v)
    if type(v) is tuple and all(type(e) is int for e in v):
        return S.Known(v)
    return S.UNKNOWN


@pytest.mark.parametrize("rule,sample", LAW_CASES,
                         ids=[f"{r.name}-{i}" for i, (r, s) in enumerate(LAW_CASES)])
def test_law_agrees_with_numpy(rule, sample):
    b = rule.signature.bind(*sample.args, **sample.kwargs)
    b.apply_defaults()
    got = facts.law_result(rule, {p: abstract(v) for p, v in b.arguments.items()})
    if got is S.UNKNOWN:
        return
    out = tr.call(rule, sample.args, sample.kwargs)
    if type(got) is S.Known:
        assert got.value == out
        return
    assert type(got) is S.Array, got
    assert np.shape(out) == got.shape, f"{rule.name}: {np.shape(out)} vs law {got.shape}"
    if S.is_real(got):
        assert not np.iscomplexobj(out), f"{rule.name}: the law says real, NumPy gives complex"
    if got.kind is not None and got.kind != "r":
        # an exact kind (the seed of a float scalar result is 1.0 on it)
        assert np.asarray(out).dtype.kind == got.kind, \
            f"{rule.name}: the law says kind {got.kind}, NumPy gives {np.asarray(out).dtype}"


def test_laws_know_the_common_cases():
    """The laws are not all UNKNOWN (the test above would then check nothing)."""
    rule = {r.name: r for r in rules.all_rules()}
    a, b = S.Array((3, 1), "f"), S.Array((1, 4), "f")
    assert facts.law_result(rule["np.add"], {"x": a, "y": b}) == S.Array((3, 4), "f")
    # exact kinds: int / int is float, |complex| is real, the sum of floats a float;
    # an operand of unknown real kind leaves it unknown
    assert facts.law_result(rule["np.divide"], {"x": S.Array((2,), "i"), "y": S.Known(3)}) \
        == S.Array((2,), "f")
    assert facts.law_result(rule["np.absolute"], {"x": S.Array((2,), "c")}) == \
        S.Array((2,), "f")
    got = facts.law_result(rule["np.sum"], {"a": a, "axis": S.Known(None)})
    assert got == S.Array((), "f")
    assert facts.law_result(rule["np.add"], {"x": a, "y": S.Array((1, 4), "r")}).kind == "r"
    assert facts.law_result(rule["np.matmul"], {"x": S.Array((2, 3), "f"),
                                                "y": S.Array((3,), "f")}).shape == (2,)
    got = facts.law_result(rule["np.sum"], {"a": S.Array((2, 3), "f"), "axis": S.Known(1),
                                            "keepdims": S.Known(True), "dtype": S.Known(None),
                                            "out": S.Known(None), "initial": S.Known(None)})
    assert got.shape == (2, 1)
    got = facts.law_result(rule["getitem"], {"x": S.Array((5, 2), "c"), "index": S.Scalar("i")})
    assert got == S.Array((2,), "c")
    # a complex operand: the result's kind is not claimed real
    got = facts.law_result(rule["np.multiply"], {"x": a, "y": S.Array((3, 1), "c")})
    assert got.shape == (3, 1) and not S.is_real(got)


def test_join_keeps_only_what_every_value_shares():
    a = S.Array((3,), "f")
    assert join(a, a) == a
    assert join(a, S.Array((3,), "f4"[0])) == a
    assert join(a, S.Array((3,), "c")) == S.Array((3,), None)
    assert join(a, S.Array((1, 3), "f")) is S.UNKNOWN
    assert join(S.Known(2), S.Known(3)) == S.Scalar("i")
    assert join(S.Known(2), S.Known(2.0)) is S.UNKNOWN
    assert join(a, S.Scalar("f")) is S.UNKNOWN


def test_broadcast():
    assert S.broadcast([(3, 1), (1, 4)]) == (3, 4)
    assert S.broadcast([(), (2, 3)]) == (2, 3)
    assert S.broadcast([(2,), (3,)]) is None
    assert S.broadcast([(0,), (1,)]) == (0,)
    assert S.broadcast([(5, 1, 2), (4, 1)]) == np.broadcast_shapes((5, 1, 2), (4, 1))
