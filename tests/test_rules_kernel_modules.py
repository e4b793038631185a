"""Kernels registered with ``deftransformable`` in a module that does not bind ``np``
(it imports ``numpy`` under its own name, and binds the namespace inside the kernel as
``np = array_ns(...)``, as the rule families' kernels do): the compiler, which drops that
binding when it differentiates the kernel's source, still reads ``np.*`` as NumPy.  It
raised NameError at the first differentiation before.  Reverse, forward and second order
against central differences; the kernel directly, and as the derivative of a rule (the
second derivative then differentiates the kernel)."""
import importlib.util
import sys
import textwrap

import numpy
import pytest

from gradcheck_util import check_modes

MODULE = textwrap.dedent('''
    import numpy
    from srcgrad.runtime import array_ns
    from srcgrad.rules.registry import defrule, deftransformable
    from srcgrad.rules.namespace import add_kernel


    def kernel(x):
        np = array_ns(x)
        return np.sum(np.sin(x) * x)


    def cube(x):
        """A primitive: x ** 3, elementwise, with its derivative in a kernel."""
        return numpy.asarray(x) ** 3


    def cube_slope(x):
        xp = array_ns(x)
        return 3.0 * xp.multiply(x, x)


    deftransformable(kernel, cube_slope)
    add_kernel("kernel_module_cube_slope", cube_slope)
    defrule(cube, "x", name="kernel_module.cube",
            vjp=dict(x="g * kernel_module_cube_slope(x)"),
            jvp=dict(x="dx * kernel_module_cube_slope(x)"))
''')


@pytest.fixture(scope="module")
def kmod(tmp_path_factory):
    path = tmp_path_factory.mktemp("kernels") / "kernel_module_no_np.py"
    path.write_text(MODULE)
    spec = importlib.util.spec_from_file_location("kernel_module_no_np", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert not hasattr(module, "np")
    yield module
    sys.modules.pop(spec.name, None)


X = numpy.array([0.3, 1.2, -0.7])
V = numpy.array([0.5, -1.0, 0.25])


@pytest.mark.parametrize("mode", ["reverse", "forward", "second"])
def test_kernel_differentiated_directly(kmod, mode):
    check_modes(kmod.kernel, X.copy(), V, mode)


@pytest.mark.parametrize("mode", ["reverse", "forward", "second"])
def test_kernel_called_by_user_code(kmod, mode):
    def f(x):
        return kmod.kernel(2.0 * x) + numpy.sum(x ** 2)
    check_modes(f, X.copy(), V, mode)


@pytest.mark.parametrize("mode", ["second"])
def test_rule_whose_derivative_is_the_kernel(kmod, mode):
    # (first order runs the kernel as it is; second order differentiates its source)
    def f(x):
        return numpy.sum(numpy.sin(kmod.cube(x)))
    check_modes(f, X.copy(), V, mode)
