"""Conv3d and ConvTranspose1d/2d/3d (and F.conv_transpose*): PyTorch's default
initialisation (the random stream), repr, output shapes, values and gradients."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
layers = [
    (nn.Conv3d(4, 6, (2, 3, 2), stride=(1, 2, 1), padding=1, groups=2), (2, 4, 5, 6, 4)),
    (nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1), (2, 3, 7)),
    (nn.ConvTranspose1d(3, 2, 4, stride=3, padding=4, dilation=2, bias=False), (3, 7)),
    (nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0), groups=2,
                        output_padding=(1, 0)), (2, 4, 5, 6)),
    (nn.ConvTranspose3d(2, 3, (2, 3, 2), stride=(2, 1, 3), padding=(0, 1, 1),
                        output_padding=(1, 0, 2)), (2, 2, 3, 4, 3)),
]
for layer, shape in layers:
    print(layer)
    print("  weight", tuple(layer.weight.shape), round(layer.weight.sum().item(), 4))
    x = torch.randn(*shape, requires_grad=True)
    y = layer(x)
    print("  out", tuple(y.shape), y.grad_fn.name(), round(y.pow(2).mean().item(), 4))
    (y * torch.linspace(-1, 1, y.numel()).reshape(y.shape)).sum().backward()
    print("  grads", round(x.grad.abs().sum().item(), 3),
          round(layer.weight.grad.abs().sum().item(), 3),
          None if layer.bias is None else round(layer.bias.grad.abs().sum().item(), 3))

# the autoencoder idiom: a strided convolution and the transposed one that undoes its shape
down = nn.Conv2d(1, 4, 3, stride=2, padding=1)
up = nn.ConvTranspose2d(4, 1, 3, stride=2, padding=1)
img = torch.randn(2, 1, 9, 9)
code = down(img)
print(tuple(code.shape), tuple(up(code).shape), tuple(up(code, output_size=img.shape).shape))
print(tuple(up(code, output_size=[10, 10]).shape))
torch.manual_seed(1)
w = torch.randn(2, 3, 2, dtype=torch.float64, requires_grad=True)
v = torch.randn(1, 2, 4, dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(lambda a, b: F.conv_transpose1d(a, b, stride=2), (v, w)))
for bad in (lambda: up(code, output_size=[14, 14]),
            lambda: F.conv_transpose2d(code, torch.randn(3, 1, 3, 3))):
    try:
        bad()
    except (ValueError, RuntimeError) as err:
        print(type(err).__name__, str(err).split(" (")[0][:60])
