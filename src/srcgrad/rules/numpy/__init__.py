"""NumPy's derivative table, by family; importing this package registers it."""
from . import elementwise, reductions, statistics, integration, linalg, decompositions  # noqa: F401
from . import spectral  # noqa: F401  (numpy.fft, abs / imag / angle of complex values)
from . import shapes, joins, indexing, creation, methods, nograd  # noqa: F401
from . import array_api  # noqa: F401,E402  (xp.tanh is np.tanh)
