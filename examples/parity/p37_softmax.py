# Softmax, log-softmax and cross-entropy written with tensor operations.
import torch

logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]], requires_grad=True)
target = torch.tensor([0, 1])
p = logits.exp() / logits.exp().sum(dim=1, keepdim=True)
print(p)
print(torch.softmax(logits, dim=1))
print(logits.log_softmax(1))
print(logits.logsumexp(1))
loss = -(p[torch.arange(2), target]).log().mean()
print(loss)
loss.backward()
print(logits.grad)
logits.grad = None
loss2 = -logits.log_softmax(dim=1)[torch.arange(2), target].mean()
loss2.backward()
print(loss2, logits.grad)
