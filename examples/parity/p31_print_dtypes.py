# dtype=, requires_grad= and grad_fn= suffixes; empty tensors; integer and bool tensors.
import torch

print(torch.tensor([1., 2.], dtype=torch.float64))
print(torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True) * 2)
print(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1, -200]))
print(torch.tensor([True, False]), torch.tensor(True))
print(torch.tensor([], dtype=torch.float32), torch.tensor([]), torch.zeros(0, 3))
print(torch.tensor([], dtype=torch.int64), torch.zeros(2, 0, dtype=torch.float64))
print(torch.tensor(5), torch.tensor(5, dtype=torch.int32), torch.tensor(2., dtype=torch.float64))
print(torch.tensor([[1, 2], [30, 400]], dtype=torch.int16))
print(torch.tensor([1.5], dtype=torch.float16))
print(torch.tensor([[0.1, 0.2]], requires_grad=True))
print(torch.tensor([0.001, 123.5], dtype=torch.float64))
print(str(torch.tensor([1., 2.])), repr(torch.tensor(0.5)))
print(torch.tensor([1, 2], dtype=torch.uint8), torch.tensor([1, 2], dtype=torch.int8))
