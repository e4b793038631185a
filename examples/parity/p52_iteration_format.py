# Iterating over tensors, len, str / format, and containment.
import torch

x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
for row in x:
    print(row)
print([v.item() for v in torch.tensor([1, 2, 3])])
print(len(x), 2. in x, 7. in x)
print(str(x))
print("{}".format(torch.tensor([1, 2])))
print(f"{torch.tensor(3.14159):.3f} {torch.tensor(2):d}")
print([torch.tensor(1.), torch.tensor([2, 3])])
print((torch.tensor(1.), torch.tensor(2.)))
print({"a": torch.tensor(0.5)})
