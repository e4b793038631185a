"""Copy propagation (compiler/optimize/copies.py): ``a = b`` dropped and ``a`` read as
``b`` only where every read sees the same object.  The pass is checked on small
statement lists (each refusal of the module docstring's conditions), then end to
end: gradients bit for bit those of the code with the copies, and against central
differences.
"""
import textwrap

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler import driver, syntax as A
from srcgrad.compiler.optimize.copies import propagate_copies

from gradcheck_util import assert_close, numeric_grad


def run(src, params=()):
    body = A.parse_stmts(textwrap.dedent(src))
    return A.unparse(propagate_copies(body, params)).strip()


def test_a_copy_read_after_it_is_read_through():
    assert run("""
        a = b
        c = a * 2
        d = a + c
    """) == "c = b * 2\nd = b + c"


def test_the_last_reader_may_store_the_original():
    assert run("""
        a = b
        b = a + 1
    """) == "b = b + 1"
    assert run("""
        a = b
        b += a
    """) == "b += b"


KEPT = {
    "the original rebound before a read": """
        a = b
        b = b + 1
        c = a * 2
    """,
    "read before the copy, on the loop's next trip": """
        for i in range(3):
            c = c + a
            a = b
    """,
    "the original stored in a loop that reads the copy": """
        a = b
        for i in range(3):
            b = a + 1
    """,
    "the copy stored twice": """
        a = b
        c = a * 2
        a = c
    """,
    "read in another block": """
        if t:
            a = b
        c = a
    """,
    "read by a lambda": """
        a = b
        f = lambda: a
        b = 2
    """,
    "the original stored by a walrus in the last reader": """
        a = b
        c = (b := 2) + a
    """,
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_what_is_kept(case):
    src = textwrap.dedent(KEPT[case]).strip()
    assert run(src) == A.unparse(A.parse_stmts(src)).strip()


def test_a_parameter_is_never_a_copy_dropped():
    assert run("""
        x = b
        c = x * 2
    """, params=("x",)) == "x = b\nc = x * 2"


def euler(x, a, b):
    dt = 0.01
    for i in range(100):
        y = x
        x = y + dt * (a * y - b * y * y)
    return x


def mlp(W1, b1, W2, x, t):
    h = np.tanh(x @ W1 + b1)
    z = h @ W2
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return -np.sum(t * np.log(p))


rng = np.random.default_rng(5)
CASES = [(euler, (0.5, 1.0, 0.3), (0, 1, 2), "dmul3 = dx"),
         (mlp, (rng.standard_normal((6, 4)), rng.standard_normal(4),
                rng.standard_normal((4, 3)), rng.standard_normal((5, 6)),
                np.eye(3)[[0, 2, 1, 1, 0]]), (0, 1, 2), "dmatmul = dadd")]


@pytest.mark.parametrize("f, args, wrt, copy", CASES, ids=["euler", "mlp"])
def test_gradients_are_bit_for_bit_those_of_the_copies(f, args, wrt, copy, monkeypatch):
    g = sg.grad(f, wrt=wrt)
    got = g(*args)
    assert copy not in g.source
    for i, d in zip(wrt, got):
        assert_close(d, numeric_grad(f, args, i), f"{f.__name__} d/d{i}")
    driver._CACHE.clear()
    monkeypatch.setattr(driver, "propagate_copies", lambda body, params: body)
    with_copies = sg.grad(f, wrt=wrt)
    want = with_copies(*args)
    assert copy in with_copies.source
    for u, v in zip(got, want):
        assert type(u) is type(v)
        np.testing.assert_array_equal(u, v)
    driver._CACHE.clear()


def _nodes_walked(n, monkeypatch):
    """Nodes the pass walks on ``n`` copies at the top of a block whose reads are all at
    its end, after ``n`` unrelated statements."""
    lines = [f"c{i} = x{i}" for i in range(n)] + [f"y{i} = z{i} * 2.0" for i in range(n)] + \
        [f"w{i} = c{i} + 1.0" for i in range(n)]
    body = A.parse_stmts("\n".join(lines))
    seen = [0]
    real = A.walk

    def counting(node):
        out = real(node)
        seen[0] += len(out)
        return out
    monkeypatch.setattr(A, "walk", counting)
    propagate_copies(body)
    monkeypatch.undo()
    assert A.unparse(body).splitlines()[-1] == f"w{n - 1} = x{n - 1} + 1.0"
    return seen[0]


def test_the_work_is_linear_in_the_block(monkeypatch):
    """Each copy's reads are found through an index of the block (the pass walked every
    statement after each copy again: quadratic, 15.9 times the work for 4 times the
    statements here, x16 per order of a nested sg.grad)."""
    small, large = _nodes_walked(50, monkeypatch), _nodes_walked(200, monkeypatch)
    assert large / small < 5.0, (small, large)
