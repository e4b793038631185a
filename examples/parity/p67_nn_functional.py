# nn.functional and the loss / activation Modules: values, gradients and node names.
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.tensor([[1., -2., 3.], [0.5, 0., -1.]], requires_grad=True)
classes = torch.tensor([0, 2])
for f in [nn.ReLU(), nn.LeakyReLU(0.2), nn.Tanh(), nn.Sigmoid(), nn.Softmax(dim=1),
          nn.LogSoftmax(dim=1), nn.GELU(approximate="tanh"), nn.LayerNorm(3), nn.ELU(),
          nn.Softplus(), nn.SiLU(), nn.Hardtanh()]:
    out = f(x)
    print(type(f).__name__, out.grad_fn, out.detach().round(decimals=3).tolist())
print(F.cross_entropy(x, classes), F.cross_entropy(x, classes, reduction="none"))
print(F.cross_entropy(x, classes, weight=torch.tensor([1., 2., 3.])))
print(F.cross_entropy(x, torch.tensor([0, -100])), F.cross_entropy(x, classes, label_smoothing=0.1))
print(F.cross_entropy(x, torch.softmax(x.detach(), 1)))
print(F.nll_loss(F.log_softmax(x, 1), classes), F.nll_loss(x, classes, reduction="sum"))
t = torch.tensor([[0., 1., 0.5], [1., -1., 2.]])
print(F.mse_loss(x, t), F.l1_loss(x, t), F.huber_loss(x, t, delta=0.5), F.smooth_l1_loss(x, t))
b = torch.tensor([[1., 0., 1.], [0., 1., 1.]])
print(F.binary_cross_entropy(torch.sigmoid(x), b), F.binary_cross_entropy_with_logits(x, b))
print(nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1., 2., 3.]))(x, b))
loss = nn.CrossEntropyLoss()(x, classes) + nn.MSELoss()(x, t) + F.gelu(x).sum()
loss.backward()
print(loss, x.grad)
emb = nn.Embedding(5, 2)
with torch.no_grad():
    emb.weight.copy_(torch.arange(10.).reshape(5, 2))
e = emb(torch.tensor([[1, 3], [4, 1]]))
print(e, e.grad_fn)
e.sum().backward()
print(emb.weight.grad)
print(F.one_hot(torch.tensor([0, 2, 1]), 3), F.pad(x, (1, 2)).shape, F.normalize(x).detach())
print(F.dropout(x, 0.5, training=False) is x, nn.Dropout(0.3).eval()(x) is x)
try:
    F.binary_cross_entropy(torch.sigmoid(x), torch.ones(3))
except ValueError as e:
    print(type(e).__name__, e)
