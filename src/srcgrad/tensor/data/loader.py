"""``DataLoader``: batches of a dataset, in this process, and the default collation."""
import collections.abc
import numbers

import numpy as np

from ..core import Tensor
from ..generator import default_generator
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert"]


def default_collate(batch):
    """Stack a list of samples into one batch, keeping the samples' structure."""
    from ..factories import tensor
    from ..functions import stack
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        return stack([tensor(b) for b in batch], 0)
    if isinstance(elem, np.generic):
        return tensor(np.array(batch))
    if isinstance(elem, bool) or isinstance(elem, numbers.Integral):
        return tensor(batch)
    if isinstance(elem, float):
        from ..dtypes import float64
        return tensor(batch, dtype=float64)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return type(elem)({key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(e) != len(elem) for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(list(s)) for s in zip(*batch)]
        return columns if isinstance(elem, tuple) else type(elem)(columns)
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, "
                    f"dicts or lists; found {type(elem)}")


def default_convert(data):
    """Without batching: NumPy arrays become tensors, structure kept."""
    from ..factories import as_tensor
    if isinstance(data, np.ndarray):
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]      # a list, as PyTorch (its old behaviour)
    if isinstance(data, list):
        return [default_convert(d) for d in data]
    return data


class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size`` (``shuffle``, ``drop_last``...)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"sampler option, but got sampler={sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.collate_fn = collate_fn or (default_convert if batch_size is None and
                                         batch_sampler is None else default_collate)

    def __iter__(self):
        # PyTorch draws a base seed for its workers from the loader's generator first
        (self.generator or default_generator).random_int64()
        if self._iterable:
            return self._iterable_batches()
        return self._map_batches()

    def _map_batches(self):
        if self.batch_sampler is None:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        many = getattr(self.dataset, "__getitems__", None)
        for indices in self.batch_sampler:
            samples = many(indices) if many else [self.dataset[i] for i in indices]
            yield self.collate_fn(samples)

    def _iterable_batches(self):
        samples = iter(self.dataset)
        if self.batch_size is None:
            for sample in samples:
                yield self.collate_fn(sample)
            return
        while True:
            batch = []
            for sample in samples:
                batch.append(sample)
                if len(batch) == self.batch_size:
                    break
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield self.collate_fn(batch)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)
