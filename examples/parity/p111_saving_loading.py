"""The "Saving and loading models" recipes: a state_dict's entries and sizes, an
optimizer's state_dict, torch.save / torch.load with weights_only, a whole-checkpoint
dict (epoch, loss), loading into a fresh model and optimizer, strict=False with missing
and unexpected keys, and resuming training to the same losses."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F


class TheModelClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


torch.manual_seed(0)
model = TheModelClass()
optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\t", model.state_dict()[param_tensor].size())
x = torch.randn(4, 3, 32, 32)
y = torch.randint(0, 10, (4,))


def train_step(m, opt):
    opt.zero_grad()
    loss = F.cross_entropy(m(x), y)
    loss.backward()
    opt.step()
    return loss.item()


print(round(train_step(model, optimizer), 5))
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name] if var_name == "param_groups"
          else sorted(optimizer.state_dict()[var_name]))

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
fresh = TheModelClass()
print(fresh.load_state_dict(torch.load(buf, weights_only=True)))
fresh.eval()
model.eval()
with torch.no_grad():
    print(torch.equal(fresh(x), model(x)))

ckpt = io.BytesIO()
torch.save({"epoch": 1, "model_state_dict": model.state_dict(),
            "optimizer_state_dict": optimizer.state_dict(), "loss": 0.25}, ckpt)
ckpt.seek(0)
checkpoint = torch.load(ckpt, weights_only=True)
resumed = TheModelClass()
opt2 = torch.optim.SGD(resumed.parameters(), lr=0.5, momentum=0.1)
resumed.load_state_dict(checkpoint["model_state_dict"])
opt2.load_state_dict(checkpoint["optimizer_state_dict"])
print(checkpoint["epoch"], checkpoint["loss"], opt2.param_groups[0]["lr"],
      opt2.param_groups[0]["momentum"])
model.train()
resumed.train()
print([round(train_step(model, optimizer), 5) for _ in range(2)])
print([round(train_step(resumed, opt2), 5) for _ in range(2)])

partial = {k: v for k, v in model.state_dict().items() if not k.startswith("fc3")}
partial["extra.weight"] = torch.zeros(1)
result = TheModelClass().load_state_dict(partial, strict=False)
print(result.missing_keys, result.unexpected_keys)
try:
    TheModelClass().load_state_dict(partial)
except RuntimeError as err:
    print("RuntimeError", str(err).splitlines()[0])
