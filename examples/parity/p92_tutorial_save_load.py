# "Save and load the model": state_dict to a file, load_state_dict, eval; whole tensors too.
import os
import tempfile

import torch
from torch import nn

torch.manual_seed(1)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
print(model.state_dict().keys())
for k, v in model.state_dict().items():
    print(k, v.shape, v.dtype)
folder = tempfile.mkdtemp()
path = os.path.join(folder, "model_weights.pth")
torch.save(model.state_dict(), path)

model2 = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
x = torch.tensor([[0.5, -1.0, 2.0]])
print(torch.equal(model(x), model2(x)))
print(model2.load_state_dict(torch.load(path, weights_only=True)))
model2.eval()
print(torch.equal(model(x), model2(x)), model2.training, model.training)
print(model2(x))

torch.save({"epoch": 5, "tensor": torch.arange(4), "loss": 0.25}, path)
ckpt = torch.load(path)
print(ckpt["epoch"], ckpt["tensor"], ckpt["loss"])
try:
    model2.load_state_dict({"0.weight": torch.zeros(4, 3)})
except RuntimeError as e:
    print(type(e).__name__, str(e).splitlines()[0])
print(model2.load_state_dict({"0.weight": torch.zeros(4, 3)}, strict=False))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model(x).sum().backward()
opt.step()
print(opt.state_dict()["param_groups"])
os.remove(path)
os.rmdir(folder)
