"""Random numbers: PyTorch's CPU stream, so that a seeded script draws PyTorch's values.

PyTorch's CPU generator is a 32-bit Mersenne Twister (MT19937) seeded with the low
32 bits of the seed; NumPy's ``MT19937`` bit generator runs the same recurrence, so
it is given the state PyTorch's seeding makes and its raw 32-bit words are turned
into numbers with PyTorch's transformations:

    uniform float32   (word & (2**24 - 1)) * 2**-24            one word per number
                      (scaled to [low, high) by a fused multiply-add)
    uniform float64   (w64 & (2**53 - 1)) * 2**-53             w64 = word1 << 32 | word2
    randint           word % range + low (w64 where range >= 2**32)
    randperm          Fisher-Yates: swap r[i] with r[i + word % (n - i)]
    normal, n >= 16   n uniforms; Box-Muller on pairs (i, i + 8) of each whole block
                      of 16; with a partial block left, 16 more uniforms make the last 16
    normal, n < 16    one float64 Box-Muller pair per two numbers (the sine half kept
                      for the next draw, even across calls)

    bernoulli, p a number   float64 uniform < p                   (dropout's masks)
    bernoulli, p a tensor   uniform of p's dtype < p

Float64 normals and every uniform, integer, permutation and Bernoulli draw are
PyTorch's bit for bit; float32 normals of 16 or more numbers are PyTorch's within an
ulp or two (PyTorch evaluates log/sin/cos with its own vectorised float32 routines).
"""
import math

import numpy as np

from .device import cuda
from .rounding import fma64

__all__ = ["Generator", "manual_seed", "seed", "initial_seed"]

_DEFAULT_SEED = 67280421310721     # PyTorch's default CPU seed


def _mt19937_key(seed):
    """MT19937's initial state for a 32-bit seed (Knuth's multiplier, as std::mt19937)."""
    key = [seed & 0xFFFFFFFF]
    for j in range(1, 624):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


def _box_muller_blocks(u, dtype):
    """PyTorch's normal_fill_16 on whole blocks of 16 uniforms (length a multiple of 16)."""
    blocks = u.reshape(-1, 16)
    one, two_pi = dtype.type(1), dtype.type(2 * np.pi)
    radius = np.sqrt(dtype.type(-2) * np.log(one - blocks[:, :8]))
    theta = two_pi * blocks[:, 8:]
    return np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], axis=1).ravel()


class Generator:
    """A seeded source of random numbers (``torch.Generator``), PyTorch's CPU stream."""

    def __init__(self, device="cpu"):
        self.device = device
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        self._seed = int(seed)
        self._bits = np.random.MT19937(0)
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": _mt19937_key(self._seed), "pos": 624}}
        self._next_normal = None       # the kept sine half of a float64 Box-Muller pair
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        s = int(np.random.SeedSequence().entropy % (2 ** 63))
        self.manual_seed(s)
        return s

    def get_state(self):
        return (self._seed, self._bits.state, self._next_normal)

    def set_state(self, state):
        self._seed, bits, self._next_normal = state
        self._bits.state = bits
        return self

    def __repr__(self):
        return f"<torch._C.Generator object at {hex(id(self))}>"   # as PyTorch prints it

    # -- the stream -------------------------------------------------------------------------
    def words(self, n):
        """``n`` raw 32-bit words, as uint64."""
        return self._bits.random_raw(n) if n else np.zeros(0, dtype=np.uint64)

    def words64(self, n):
        """``n`` 64-bit words, each two 32-bit words (the first the high half)."""
        w = self.words(2 * n).reshape(-1, 2)
        return (w[:, 0] << np.uint64(32)) | w[:, 1]

    def uniform(self, shape, dtype, low=0.0, high=1.0):
        """``uniform_(low, high)`` on a fresh array of ``shape`` and NumPy ``dtype``."""
        dtype = np.dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64))
        if dtype == np.float64:
            x = (self.words64(n) & np.uint64(2 ** 53 - 1)).astype(np.float64) * 2.0 ** -53
        else:
            x = ((self.words(n) & np.uint64(2 ** 24 - 1)).astype(np.float32)
                 * np.float32(2.0 ** -24))
            dtype = dtype if dtype.kind == "f" else np.dtype(np.float32)
        lo, hi = dtype.type(low), dtype.type(high)
        if dtype == np.float64:
            return fma64(x, hi - lo, lo).reshape(shape)
        # x * (high - low) + low, fused (exact in float64, rounded once)
        out = x.astype(np.float64) * np.float64(hi - lo) + np.float64(lo)
        return out.astype(dtype).reshape(shape)

    def exponential(self, shape, dtype, lambd=1.0):
        """``exponential_(lambd)``: ``-log1p(-u) / lambd`` of float64 uniforms, with the C
        library's log1p (NumPy's vectorised one differs in the last bit), as PyTorch."""
        u = self.uniform(shape, np.float64).reshape(-1)
        e = np.fromiter((math.log1p(-v) for v in u.tolist()), np.float64, u.size)
        return ((-1.0 / lambd) * e).astype(dtype).reshape(shape)

    def bernoulli(self, shape, p):
        """``bernoulli_(p)`` for a number ``p``: a bool array of ``shape``."""
        return self.uniform(shape, np.float64) < p

    def bernoulli_like(self, probs):
        """``bernoulli(probs)`` for an array of probabilities: a bool array of its shape."""
        return self.uniform(probs.shape, probs.dtype if probs.dtype == np.float64
                            else np.float32) < probs

    def normal(self, shape, dtype, mean=0.0, std=1.0):
        """``normal_(mean, std)`` on a fresh array of ``shape`` and NumPy ``dtype``."""
        dtype = np.dtype(dtype)
        work = np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)
        n = int(np.prod(shape, dtype=np.int64))
        if n >= 16:
            out = self.uniform((n,), work)          # all n drawn, the whole blocks used
            out[:n - n % 16] = _box_muller_blocks(out[:n - n % 16], work)
            if n % 16:
                out[n - 16:] = _box_muller_blocks(self.uniform((16,), work), work)
            out = out * work.type(std) + work.type(mean)
        else:
            out = np.array([self._scalar_normal() for _ in range(n)], dtype=np.float64)
            out = out * std + mean
        return out.astype(dtype).reshape(shape)

    def _scalar_normal(self):
        if self._next_normal is not None:
            value, self._next_normal = self._next_normal, None
            return value
        u1, u2 = self.uniform((2,), np.float64).tolist()
        radius = math.sqrt(-2.0 * math.log1p(-u2))      # the C library's functions, as PyTorch
        theta = 2.0 * math.pi * u1
        self._next_normal = radius * math.sin(theta)
        return radius * math.cos(theta)

    def integers(self, low, high, shape):
        """``random_(low, high)``: int64 in [low, high)."""
        span = int(high) - int(low)
        if span <= 0:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={low} >= to={high}")
        n = int(np.prod(shape, dtype=np.int64))
        w = self.words64(n) if span >= 2 ** 32 else self.words(n)
        return ((w % np.uint64(span)).astype(np.int64) + int(low)).reshape(shape)

    def permutation(self, n):
        """``randperm(n)``: PyTorch's Fisher-Yates shuffle of 0..n-1."""
        r = np.arange(n, dtype=np.int64)
        if n < 2:
            return r
        picks = (self.words(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64)
        for i, z in enumerate(picks.tolist()):
            j = i + z
            r[i], r[j] = r[j], r[i]
        return r

    def random_int64(self):
        """``torch.empty((), dtype=torch.int64).random_()``: a 63-bit number."""
        return int(self.words64(1)[0] % np.uint64(2 ** 63))


_default_generator = Generator()
default_generator = _default_generator


def _rng(generator=None):
    return generator or _default_generator


def manual_seed(seed):
    """Seed the random numbers of ``rand``/``randn``/``randint`` (and cupy's, if present)."""
    cuda.manual_seed(seed)
    return _default_generator.manual_seed(seed)


def seed():
    return _default_generator.seed()


def initial_seed():
    return _default_generator.initial_seed()
