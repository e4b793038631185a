# Devices: cpu everywhere; cuda is not available in this build (PyTorch CPU / no cupy).
import torch

x = torch.tensor([1., 2.])
print(x.device, repr(x.device), x.is_cuda)
print(torch.device("cpu"), repr(torch.device("cpu")), torch.device("cuda:0"), repr(torch.device("cuda", 1)))
print(torch.device("cpu") == x.device, torch.device("cuda:0") == torch.device("cuda", 0))
print(torch.cuda.is_available())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device, x.to(device), x.to(device) is x, x.cpu() is x, x.to("cpu") is x)
y = torch.ones(2, device=device, requires_grad=True)
print(y, y.device)
for f in [lambda: torch.ones(2, device="cuda"), lambda: x.cuda(), lambda: x.to("cuda")]:
    try:
        f()
    except (AssertionError, RuntimeError) as e:
        # srcgrad's message goes on to say what to install for a GPU
        print(type(e).__name__, str(e).startswith("Torch not compiled with CUDA enabled"))
print(x.to(torch.float64), x.to("cpu", torch.float64), x.to(device=device, dtype=torch.int64))
print(x.to(torch.ones(1, dtype=torch.float64)))
