"""``torch.accelerator``: the one accelerator srcgrad knows, CUDA (through CuPy)."""
from .device import cuda, device

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index",
           "synchronize"]


def is_available():
    return cuda.is_available()


def current_accelerator(check_available=False):
    """``device(type='cuda')`` where CuPy sees a GPU, else None."""
    return device("cuda") if cuda.is_available() else None


def device_count():
    return cuda.device_count() if cuda.is_available() else 0


def current_device_index():
    return cuda.current_device() if cuda.is_available() else -1


def synchronize(device=None):
    if cuda.is_available():
        cuda.synchronize(device)
