# nn.Module beyond the basics, as the "Modules" notes show it: a custom module with
# buffers, extra_repr, ModuleDict / ModuleList / ParameterList / ParameterDict, named_*
# with prefixes, get_submodule / get_parameter, .to(dtype) / .double(), train/eval flags,
# register_module, zero_grad(set_to_none=False), and the errors of misuse.
import torch
import torch.nn as nn

torch.manual_seed(0)


class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))

    def forward(self, input):
        self.calls += 1
        return (input @ self.weight) + self.bias

    def extra_repr(self):
        return f"in={self.weight.shape[0]}, out={self.weight.shape[1]}"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([MyLinear(4, 4) for _ in range(2)])
        self.heads = nn.ModuleDict({"cls": nn.Linear(4, 3), "reg": nn.Linear(4, 1)})
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(4)) for _ in range(2)])
        self.extras = nn.ParameterDict({"temp": nn.Parameter(torch.tensor(1.5))})
        self.register_module("act", nn.GELU(approximate="tanh"))

    def forward(self, x, head="cls"):
        for block, scale in zip(self.blocks, self.scales):
            x = self.act(block(x)) * scale
        return self.heads[head](x) / self.extras["temp"]


net = Net()
print(net)
print([n for n, _ in net.named_parameters()])
print([n for n, _ in net.named_buffers()], [n for n, _ in net.named_buffers(prefix="net")])
print([n for n, _ in net.named_modules()][:6], len(list(net.modules())))
print([n for n, _ in net.named_children()])
print(net.get_submodule("heads.cls"), net.get_parameter("blocks.1.bias").shape)
out = net(torch.randn(2, 4))
print(out.shape, net.blocks[0].calls, net(torch.randn(2, 4), head="reg").shape)
print(net.state_dict()["blocks.0.calls"], list(net.state_dict())[:4])
net.double()
print(net.heads.cls.weight.dtype, net.blocks[0].calls.dtype, net.scales[0].dtype)
net.to(torch.float32)
print(net.extras.temp.dtype)
out = net(torch.randn(3, 4))
out.sum().backward()
net.zero_grad(set_to_none=False)
print(net.heads.cls.weight.grad.abs().sum(), net.scales[1].grad)
net.eval()
print([m.training for m in net.modules()][:3])
net.train(True)
print(net.training, net.heads.training)
print(len(net.blocks), len(net.heads), list(net.heads.keys()), len(net.scales))
net.blocks.append(MyLinear(4, 4))
print(len(net.blocks), net.blocks[-1])
for call in (lambda: net.get_submodule("nope"), lambda: net.get_parameter("heads.cls.nope"),
             lambda: net.register_buffer("weight", 3), lambda: setattr(net, "x", 1) or net.x,
             lambda: net.heads["missing"], lambda: nn.Linear(2, 2)(torch.ones(2, 3)),
             lambda: net.get_buffer("blocks.0.calls"), lambda: net.get_buffer("blocks.0.bias"),
             lambda: net.get_parameter("blocks.0.calls"), lambda: net.get_submodule("blocks.0.bias")):
    try:
        print(call())
    except Exception as e:
        print(type(e).__name__, e)
