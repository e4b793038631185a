"""sg.compile of an nn.Module: its parameters, read as attributes, are not differentiated
yet, so a call that would need their gradients is refused (it silently left them None)."""
import numpy as np
import pytest

import srcgrad as sg


def _model():
    sg.manual_seed(0)
    return sg.nn.Sequential(sg.nn.Linear(4, 3), sg.nn.Tanh(), sg.nn.Linear(3, 2))


@pytest.mark.parametrize("wrap", [lambda m: m, lambda m: m.forward], ids=["module", "forward"])
def test_parameters_needing_gradients_are_refused(wrap):
    m = _model()
    x = sg.randn(5, 4, requires_grad=True)
    with pytest.raises(NotImplementedError, match="does not differentiate its parameters"):
        sg.compile(wrap(m))(x)


def test_inference_runs_as_eager():
    m = _model()
    x = sg.randn(5, 4)
    with sg.no_grad():
        out = sg.compile(m)(x)
        ref = m(x)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6)
