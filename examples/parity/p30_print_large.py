# Long rows wrap at 80 columns; tensors over 1000 elements are summarised with "...".
import torch

print(torch.arange(30.))
print(torch.arange(30))
print(torch.arange(30.) / 7)
print(torch.arange(1001.))
print(torch.arange(2000).reshape(40, 50))
print(torch.arange(5000.).reshape(10, 20, 25) / 3)
print(torch.linspace(0, 1, 25, requires_grad=True) * 2)
print(torch.ones(2, 20) * 1.5)
print(torch.arange(12.).reshape(2, 3, 2))
print(torch.arange(24).reshape(2, 3, 2, 2))
