# torch.finfo / torch.iinfo (as used for numerical safety: eps in a normalisation, the
# smallest normal as a clamp), layouts and memory formats, and dtype facts.
import pickle
import torch

for d in (torch.float32, torch.float64, torch.float16, None, torch.complex64):
    f = torch.finfo(d) if d is not None else torch.finfo()
    print(f, f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, repr(f.dtype))
for d in (torch.int64, torch.uint8, torch.int32, torch.int8, torch.int16, torch.bool):
    try:
        i = torch.iinfo(d)
        print(i, i.bits, i.max, i.min, i.dtype)
    except TypeError as e:
        print("TypeError:", e)
try:
    torch.finfo(torch.int64)
except TypeError as e:
    print("TypeError:", e)
x = torch.tensor([3.0, 4.0, 0.0])
eps = torch.finfo(x.dtype).eps
print(x / (x.norm() + eps), x.clamp(min=torch.finfo(x.dtype).tiny).log())
returns = torch.tensor([1.0, 2.0, 3.0])
print((returns - returns.mean()) / (returns.std() + torch.finfo(torch.float32).eps))
print(torch.strided, type(torch.strided), torch.contiguous_format, type(torch.contiguous_format),
      torch.preserve_format, torch.channels_last)
print(x.layout, x.layout == torch.strided, pickle.loads(pickle.dumps(torch.strided)) is torch.strided)
print(torch.ones(2, 3).is_contiguous(), torch.ones(2, 3).t().is_contiguous())
print(torch.float32.is_floating_point, torch.int64.is_signed, torch.uint8.is_signed,
      torch.complex64.is_complex, torch.float16.itemsize, torch.int32.itemsize)
print(torch.iinfo(torch.int64).max + 1, torch.finfo(torch.float64).max > 1e308)
