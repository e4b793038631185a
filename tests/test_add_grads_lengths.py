"""Two gradients of one list with different lengths (it changed length in place
between the reads they come from) are summed only when what the shorter one lacks is
zero; a nonzero item is refused, never dropped (zip used to drop it silently)."""
import numpy as np
import pytest

from srcgrad.runtime import add_grads


def test_zero_tail_is_dropped():
    out = add_grads([1.0, np.ones(2)], [2.0, np.ones(2), np.zeros(3), None, [0.0, 0.0]])
    assert out[0] == 3.0 and len(out) == 2
    np.testing.assert_array_equal(out[1], [2.0, 2.0])


def test_nonzero_tail_is_refused():
    with pytest.raises(ValueError, match="not zero"):
        add_grads([1.0], [1.0, 0.5])
    with pytest.raises(ValueError, match="not zero"):
        add_grads((np.zeros(2), np.array([0.0, 1e-300])), (np.zeros(2),))
