"""What every corpus module of tests/corpus_idioms*.py registers its programs with: a
list of cases and the module's own seeded inputs (drawn once, in order, so that the
autograd copy of a module draws the same ones)."""
import numpy.random as npr


class Corpus:
    def __init__(self, seed):
        self.cases = []                      # (name, function, args)
        self._rs = npr.RandomState(seed)

    def case(self, *args, name=None):
        """Register the decorated function with the inputs ``args`` (returns it unchanged)."""
        def deco(f):
            self.register(name or f.__name__, f, *args)
            return f
        return deco

    def register(self, name, f, *args):
        self.cases.append((name, f, args))

    def randn(self, *shape, scale=1.0):
        return scale * self._rs.randn(*shape)

    def uniform(self, lo, hi, *shape):
        return self._rs.uniform(lo, hi, shape)
