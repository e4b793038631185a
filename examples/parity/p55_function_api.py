# The torch.<op>(tensor, ...) spellings of the methods.
import torch

x = torch.tensor([[1., -2.], [3., 0.5]], requires_grad=True)
y = torch.tensor([[0.5, 1.], [-1., 2.]])
print(torch.exp(x), torch.log(torch.abs(x)), torch.sqrt(torch.abs(x)))
print(torch.sum(x), torch.sum(x, dim=0), torch.mean(x, 1, keepdim=True))
print(torch.matmul(x, y), torch.mm(x, y), torch.t(x), torch.transpose(x, 0, 1))
print(torch.reshape(x, (4,)), torch.flatten(x), torch.squeeze(torch.unsqueeze(x, 0)))
print(torch.pow(x, 2), torch.add(x, y), torch.sub(x, 1), torch.mul(x, y), torch.div(x, 2))
print(torch.clamp(x, 0, 1), torch.maximum(x, y), torch.minimum(x, y))
print(torch.tanh(x), torch.sigmoid(x), torch.relu(x), torch.neg(x))
print(torch.argmax(x), torch.argmin(x, dim=1), torch.max(x, 1), torch.min(x))
print(torch.norm(x), torch.std(x), torch.var(x, 0), torch.prod(x), torch.cumsum(x, 0))
print(torch.stack([x, y]).shape, torch.cat((x, y), 1))
print(torch.numel(x), torch.where(x > 0, x, y))
print(torch.sort(torch.tensor([3., 1., 2.])), torch.topk(torch.tensor([3., 1., 2.]), 2))
