# inference_mode: inference tensors track no version and stay out of autograd.
import torch

w = torch.tensor([1., 2.], requires_grad=True)
with torch.inference_mode():
    i = torch.ones(2)
    j = i * 2
    k = w * 2
print(i.is_inference(), j.is_inference(), w.is_inference(), j.requires_grad, k.requires_grad)
print(torch.is_inference_mode_enabled())
with torch.inference_mode():
    print(torch.is_inference_mode_enabled(), torch.is_grad_enabled())
try:
    print(j._version)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    j.add_(1)
except RuntimeError as e:
    print(type(e).__name__, e)
print(j)
try:
    (w * j).sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
(w + j).sum().backward()
print(w.grad)
with torch.inference_mode():
    j.add_(1)
print(j)
c = j.clone()
print(c.is_inference(), (j + 1).is_inference(), (c * 1)._version)
with torch.inference_mode(False):
    print(torch.ones(1).is_inference())
