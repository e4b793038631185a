"""``torch.utils.data``: datasets, samplers and the single-process ``DataLoader``.

The shuffles draw from srcgrad's generator as PyTorch's do (one 64-bit seed per
iterator, one for the sampler's own generator, then ``randperm``), so a seeded
script sees PyTorch's batches.  ``num_workers`` greater than 0 still loads in
this process.
"""
from .dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)
from .loader import DataLoader, default_collate, default_convert

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler",
           "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler", "DataLoader", "default_collate",
           "default_convert"]
