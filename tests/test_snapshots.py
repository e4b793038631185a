"""Snapshots of generated source: the quick-start loss of issue 2, a tanh RNN loop and
the seed's while loop (issue 3).  They are compared exactly; after an intended change of
the generated code, read the new code, then regenerate with

    SRCGRAD_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py
"""
import os
import pathlib

import numpy as np
import pytest

import srcgrad as sg
import snapshot_functions as S

SNAPSHOTS = pathlib.Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("SRCGRAD_UPDATE_SNAPSHOTS") == "1"


def seed_loss_called():
    """``print(loss.source)`` after the quick start's call (specialized to its arguments)."""
    loss = sg.grad(S.loss, wrt=("w1", "w2"))
    dw1, dw2 = loss(np.array([[1., 2.], [3., 4.]]), 2.0, 3.0)
    assert (dw1, dw2) == pytest.approx((2.5, 1.0))
    return loss.source


def seed_loss_source():
    """``sg.source(loss, wrt=...)``: before any call, nothing known about the arguments."""
    return sg.source(S.loss, wrt=("w1", "w2"))


def rnn_called():
    r = np.random.default_rng(0)
    g = sg.grad(S.rnn, wrt=("Wx", "Wh", "b"))
    g(r.normal(size=(5, 2, 3)), r.normal(size=(3, 4)), r.normal(size=(4, 4)),
      r.normal(size=4), np.zeros((2, 4)))
    return g.source


def seed_while_split():
    """Forward and backward sweeps of the seed's while loop (what sg.vjp runs)."""
    out, vjp_fn = sg.vjp(S.seed_while, np.array([0.3, -0.4, 0.5]))
    assert np.linalg.norm(out) >= 1000
    return sg.source(S.seed_while, mode="split")


CASES = {
    "seed_loss.py.txt": seed_loss_called,
    "seed_loss_unspecialized.py.txt": seed_loss_source,
    "rnn_tanh_loop.py.txt": rnn_called,
    "seed_while_loop.py.txt": seed_while_split,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_source_snapshot(name):
    src = CASES[name]()
    compile(src, name, "exec")
    path = SNAPSHOTS / name
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(src)
        return
    assert path.exists(), f"no snapshot {path}; run with SRCGRAD_UPDATE_SNAPSHOTS=1"
    expected = path.read_text()
    assert src == expected, (
        f"the generated source of {name} changed. If intended, read it, then run "
        f"SRCGRAD_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py\n"
        f"--- now ---\n{src}")
