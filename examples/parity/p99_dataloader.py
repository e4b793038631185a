# torch.utils.data: TensorDataset, DataLoader (batching, shuffle with a generator, drop_last),
# random_split, a custom Dataset, default collation of tuples, dicts and numbers.
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split

x = torch.arange(10, dtype=torch.float32).reshape(10, 1)
y = torch.arange(10) % 3
ds = TensorDataset(x, y)
print(len(ds), ds[3])
for xb, yb in DataLoader(ds, batch_size=4):
    print(xb.view(-1), yb)
print([b[1].tolist() for b in DataLoader(ds, batch_size=4, drop_last=True)])
g = torch.Generator().manual_seed(42)
print([b[1].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True, generator=g)])
torch.manual_seed(0)
print([b[0].view(-1).tolist() for b in DataLoader(ds, batch_size=5, shuffle=True)])
print([b[0].view(-1).tolist() for b in DataLoader(ds, batch_size=5, shuffle=True)])
print(torch.rand(2))
loader = DataLoader(ds, batch_size=3)
print(len(loader), len(DataLoader(ds, batch_size=3, drop_last=True)))
batch = next(iter(loader))
print(type(batch).__name__, len(batch))

train, test = random_split(ds, [7, 3], generator=torch.Generator().manual_seed(1))
print(len(train), len(test), train.indices, test.indices)
a, b = random_split(range(10), [0.5, 0.5], generator=torch.Generator().manual_seed(2))
print(list(a), list(b))


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": float(i), "y": i * i, "v": np.array([i, -i], dtype=np.float32)}


for batch in DataLoader(Squares(5), batch_size=2):
    print(batch)
print(next(iter(DataLoader(Squares(3), batch_size=None))))
try:
    TensorDataset(torch.zeros(3), torch.zeros(4))
except AssertionError as e:
    print("AssertionError", e)
try:
    DataLoader(ds, batch_size=0)
except ValueError as e:
    print("ValueError", e)
