"""The print-after-pass hook (SRCGRAD_PRINT_AFTER) and the order of the passes."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler import pipeline


def _loss(x, w):
    y = np.tanh(x * w)
    return np.sum(y * y)


def _loss_fwd(x, w):
    y = np.tanh(x * w)
    return np.sum(y * y)


def test_passes_in_order():
    assert pipeline.PASSES == ("parse", "normalize", "reverse", "forward", "codegen")


def test_nothing_printed_by_default(monkeypatch, capsys):
    monkeypatch.delenv(pipeline.ENV, raising=False)

    def quiet(x):
        return np.sum(x * x)
    sg.grad(quiet)(np.ones(2))
    assert capsys.readouterr().err == ""


def test_print_after_each_reverse_pass(monkeypatch, capsys):
    monkeypatch.setenv(pipeline.ENV, "all")
    g = sg.grad(_loss)
    dx, dw = g(np.ones(3), 2.0)
    err = capsys.readouterr().err
    for p in ("parse", "normalize", "reverse", "codegen"):
        assert f"# ---- srcgrad: _loss after {p} ----" in err
    # the order of the passes is the order of the printout
    idx = [err.index(f"after {p} ----") for p in ("parse", "normalize", "reverse", "codegen")]
    assert idx == sorted(idx)
    # normalize: one operation per statement, the user's parameters kept
    normalized = err.split("after normalize ----")[1].split("# ----")[0]
    assert "def _loss(x, w):" in normalized
    assert "mul = x * w" in normalized and "y = np.tanh(mul)" in normalized
    # codegen prints exactly the generated function users see
    assert g.source.strip() in err
    # the printed code is what runs: the gradient is right
    t = np.tanh(2.0)
    np.testing.assert_allclose(dx, 2 * t * (1 - t ** 2) * 2.0 * np.ones(3))


def test_print_after_forward(monkeypatch, capsys):
    monkeypatch.setenv(pipeline.ENV, "forward")
    sg.jvp(_loss_fwd, (np.ones(3), 2.0), (np.ones(3), 0.0))
    err = capsys.readouterr().err
    assert "_loss_fwd after forward" in err
    assert "after normalize" not in err
    assert "dmul = " in err            # tangent statements


def test_unknown_pass_is_an_error(monkeypatch):
    monkeypatch.setenv(pipeline.ENV, "normalise")

    def typo(x):
        return np.sum(x)
    with pytest.raises(ValueError, match="unknown pass normalise.*parse, normalize"):
        sg.grad(typo)(np.ones(2))
