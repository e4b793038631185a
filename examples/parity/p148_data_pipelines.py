# torch.utils.data as the "Datasets & DataLoaders" tutorial and the data docs use it: a
# custom map-style Dataset with a transform, a DataLoader with shuffle / drop_last /
# collate_fn, samplers (Sequential, Random with a generator, SubsetRandom, Weighted,
# BatchSampler), random_split with a generator, ConcatDataset, Subset, an IterableDataset.
import torch
from torch.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset,
                              IterableDataset, RandomSampler, SequentialSampler, Subset,
                              SubsetRandomSampler, TensorDataset, WeightedRandomSampler,
                              random_split)

torch.manual_seed(0)


class SquaresDataset(Dataset):
    def __init__(self, n, transform=None, target_transform=None):
        self.x = torch.arange(n, dtype=torch.float32)
        self.transform, self.target_transform = transform, target_transform

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        sample, label = self.x[idx], int(self.x[idx]) % 3
        if self.transform:
            sample = self.transform(sample)
        if self.target_transform:
            label = self.target_transform(label)
        return sample, label


ds = SquaresDataset(10, transform=lambda v: v ** 2,
                    target_transform=lambda y: torch.zeros(3).scatter_(0, torch.tensor(y),
                                                                       value=1))
print(len(ds), ds[3])
loader = DataLoader(ds, batch_size=4, shuffle=True)
for xb, yb in loader:
    print(xb, yb.shape)
loader = DataLoader(ds, batch_size=4, drop_last=True)
print(len(loader), [b[0].tolist() for b in loader])


def collate(batch):
    xs, ys = zip(*batch)
    return torch.stack(xs), torch.stack(ys).argmax(1)


print(next(iter(DataLoader(ds, batch_size=3, collate_fn=collate))))
print(list(SequentialSampler(range(5))), list(RandomSampler(range(6))))
g = torch.Generator().manual_seed(42)
print(list(RandomSampler(range(6), generator=g)), list(RandomSampler(range(4), replacement=True,
                                                                       num_samples=6)))
print(list(SubsetRandomSampler([10, 11, 12, 13])))
print(list(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7], 8, replacement=True)))
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False)))
print(list(BatchSampler(range(10), batch_size=4, drop_last=True)))
train, test = random_split(TensorDataset(torch.arange(10)), [0.7, 0.3],
                           generator=torch.Generator().manual_seed(1))
print(len(train), len(test), [int(t[0]) for t in train], train.indices)
a, b, c = random_split(range(8), [3, 3, 2])
print(list(a), list(b), list(c))
cat = ConcatDataset([TensorDataset(torch.ones(2)), TensorDataset(torch.zeros(3))])
print(len(cat), cat[1], cat[4], cat.cumulative_sizes)
sub = Subset(ds, [0, 5, 9])
print(len(sub), sub[2])


class Counter(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(torch.arange(self.n) * 10)


print([b.tolist() for b in DataLoader(Counter(7), batch_size=3)])
dl = DataLoader(TensorDataset(torch.arange(6.).view(3, 2), torch.tensor([0, 1, 0])),
                batch_size=2)
it = iter(dl)
print(next(it), next(it))
try:
    next(it)
except StopIteration:
    print("StopIteration")
print(DataLoader(ds, batch_size=None).batch_size, next(iter(DataLoader(ds, batch_size=None))))
for call in (lambda: random_split(range(5), [2, 2]), lambda: DataLoader(ds, shuffle=True,
             sampler=SequentialSampler(ds))):
    try:
        call()
    except ValueError as e:
        print("ValueError:", e)
