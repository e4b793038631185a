"""Samplers: the order in which a ``DataLoader`` reads a dataset's indices."""
import itertools

from ..generator import Generator, default_generator

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


class Sampler:
    """Iterates over indices of a dataset."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _fresh_generator():
    # PyTorch: a generator seeded by one 64-bit draw from the default generator
    return Generator().manual_seed(default_generator.random_int64())


class RandomSampler(Sampler):
    """A shuffled order (a ``randperm`` per pass), or draws with replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator or _fresh_generator()
        if self.replacement:
            for size in [32] * (self.num_samples // 32) + [self.num_samples % 32]:
                yield from generator.integers(0, n, (size,)).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from generator.permutation(n).tolist()
        yield from generator.permutation(n).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, shuffled."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        generator = self.generator or default_generator
        for i in generator.permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with the given (unnormalised) weights: one
    ``torch.multinomial`` per pass, as PyTorch."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or \
                num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        from ..factories import as_tensor
        from ..dtypes import float64
        weights = as_tensor(weights, dtype=float64)
        if weights.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights.shape)}")
        self.weights, self.num_samples = weights, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self):
        drawn = self.weights.multinomial(self.num_samples, self.replacement,
                                         generator=self.generator)
        yield from drawn.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of ``batch_size``."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        while True:
            batch = list(itertools.islice(indices, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
