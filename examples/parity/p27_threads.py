# Grad mode is thread-local: no_grad in one thread does not affect another.
import threading
import torch

x = torch.tensor([1., 2.], requires_grad=True)
results = {}


def worker():
    results["worker_enabled"] = torch.is_grad_enabled()
    results["worker_records"] = (x * 2).requires_grad


with torch.no_grad():
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    results["main_enabled"] = torch.is_grad_enabled()


def worker_no_grad():
    with torch.no_grad():
        results["inner"] = (x * 2).requires_grad


t = threading.Thread(target=worker_no_grad)
t.start()
t.join()
results["main_after"] = (x * 2).requires_grad
print(sorted(results.items()))
