"""Random numbers: one NumPy generator, seeded by ``manual_seed``.

They cannot match PyTorch's generator; seeding makes a run repeatable.
"""
import numpy as np

from .device import cuda

__all__ = ["Generator", "manual_seed", "seed", "initial_seed"]


class Generator:
    """A seeded source of random numbers (``torch.Generator``)."""

    def __init__(self, device="cpu"):
        self._seed = 67280421310721
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed):
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self):
        return self._seed

    def __repr__(self):
        return f"<torch._C.Generator object at {hex(id(self))}>"   # as PyTorch prints it


_default_generator = Generator()


def _rng(generator=None):
    return (generator or _default_generator)._rng


def manual_seed(seed):
    """Seed the random numbers of ``rand``/``randn``/``randint`` (and cupy's, if present)."""
    cuda.manual_seed(seed)
    return _default_generator.manual_seed(seed)


def seed():
    s = int(np.random.SeedSequence().entropy % (2 ** 63))
    _default_generator.manual_seed(s)
    return s


def initial_seed():
    return _default_generator.initial_seed()
