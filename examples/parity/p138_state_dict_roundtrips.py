# state_dict round trips: a model with buffers (BatchNorm) and a non-persistent buffer,
# save / load through BytesIO, load_state_dict's strict errors and its result,
# an optimizer's state after load, copy.deepcopy, parameters shared between modules.
import copy
import io
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.bn = nn.BatchNorm1d(4)
        self.out = nn.Linear(4, 2)
        self.register_buffer("scale", torch.tensor(2.0))
        self.register_buffer("cache", torch.zeros(2), persistent=False)

    def forward(self, x):
        return self.out(torch.relu(self.bn(self.fc(x)))) * self.scale


net = Net()
sd = net.state_dict()
print(list(sd.keys()))
print(sd["bn.num_batches_tracked"], sd["bn.running_mean"], sd["scale"])
net(torch.randn(8, 3))
print(net.bn.running_mean, net.bn.num_batches_tracked)
buf = io.BytesIO()
torch.save(net.state_dict(), buf)
buf.seek(0)
loaded = torch.load(buf, weights_only=True)
net2 = Net()
print(net2.load_state_dict(loaded))
print(torch.equal(net2.fc.weight, net.fc.weight), net2.bn.running_mean)
bad = dict(loaded)
bad.pop("out.bias")
bad["extra.weight"] = torch.ones(1)
try:
    net2.load_state_dict(bad)
except RuntimeError as e:
    print("RuntimeError:", e)
print(net2.load_state_dict(bad, strict=False))
wrong = dict(loaded)
wrong["fc.weight"] = torch.ones(5, 3)
try:
    net2.load_state_dict(wrong)
except RuntimeError as e:
    print("RuntimeError:", e)

opt = torch.optim.Adam(net.parameters(), lr=0.01)
loss = net(torch.randn(8, 3)).pow(2).mean()
loss.backward()
opt.step()
osd = opt.state_dict()
buf = io.BytesIO()
torch.save({"model": net.state_dict(), "optim": osd, "epoch": 3}, buf)
buf.seek(0)
ckpt = torch.load(buf)
opt2 = torch.optim.Adam(net2.parameters(), lr=0.5)
opt2.load_state_dict(ckpt["optim"])
print(opt2.param_groups[0]["lr"], ckpt["epoch"], len(opt2.state))
print(opt2.state[net2.fc.weight]["exp_avg"].shape, opt2.state[net2.fc.weight]["step"])
net3 = copy.deepcopy(net)
print(net3.fc.weight is net.fc.weight, torch.equal(net3.fc.weight, net.fc.weight))
shared = nn.Linear(2, 2)
model = nn.Sequential(shared, nn.ReLU(), shared)
print(len(list(model.parameters())), list(model.state_dict().keys()))
print(net)
net.eval()
print(net.training, net.bn.training)
net.train()
print(net.fc.training)
