"""Devices: ``"cpu"`` arrays are NumPy arrays, ``"cuda"`` arrays are CuPy arrays.

CuPy is optional.  Without it (or without a GPU) asking for ``"cuda"`` raises
PyTorch's own error for a CPU-only build, so that scripts written for PyTorch
fail the way a PyTorch user expects.
"""
import numpy as np

__all__ = ["device", "cuda", "set_default_device", "get_default_device"]


class device:
    """``device("cpu")``, ``device("cuda")``, ``device("cuda:1")``, ``device("cuda", 1)``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif ":" in type:
            type, _, idx = type.partition(":")
            index = int(idx)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device "
                               f"string: {type}")
        self.type = type
        self.index = index

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __reduce__(self):          # (pickled by value: the class prints as torch.device)
        return (_device, (self.type, self.index))

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __enter__(self):
        """``with torch.device("cpu"):`` factories make tensors on this device inside."""
        _entered.append(_default_device[0])
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        _default_device[0] = _entered.pop()
        return False


CPU = device("cpu")


def to_device(d):
    """Normalise a device argument; ``"cuda"`` means the current GPU, ``cuda:0``."""
    if d is None:
        return None
    if isinstance(d, int):
        d = device("cuda", d)
    d = device(d)
    if d.type == "cuda":
        cuda._require()
        if d.index is None:
            d = device("cuda", cuda.current_device())
    return d


_default_device = [None]      # set by set_default_device; None: the CPU
_entered = []                 # the defaults that ``with device(...)`` blocks replaced


def set_default_device(device):
    """The device factory functions (``torch.zeros``, ``torch.tensor``...) use when given
    none (``None``: back to the CPU)."""
    _default_device[0] = to_device(device)


def get_default_device():
    return _default_device[0] or CPU


def default_device():
    """The device set by :func:`set_default_device`, or None."""
    return _default_device[0]


def array_module(dev):
    """numpy for the CPU, cupy for a GPU."""
    if dev.type == "cpu":
        return np
    return cuda._require()


def device_of(array):
    """The device an array lives on."""
    if type(array) is np.ndarray:
        return CPU
    if type(array).__module__.startswith("cupy"):
        return device("cuda", array.device.id)
    return CPU


def move(array, dev):
    """``array`` on ``dev`` (itself when already there)."""
    if device_of(array) == dev:
        return array
    if dev.type == "cpu":
        return array.get()
    cp = cuda._require()
    with cp.cuda.Device(dev.index or 0):
        return cp.asarray(array)


class _Cuda:
    """The ``torch.cuda`` corner that tutorials touch: ``is_available()`` and friends."""

    def _cupy(self):
        try:
            import cupy
        except ImportError:
            # the type and first words of PyTorch's CPU-only build (``except AssertionError``
            # and checks of the text keep working), then what srcgrad needs for a GPU
            raise AssertionError(
                "Torch not compiled with CUDA enabled: srcgrad runs CUDA tensors on CuPy, "
                "which is not installed. On a machine with an NVIDIA GPU: pip install "
                "cupy-cuda12x (CUDA 12) or cupy-cuda11x (CUDA 11)") from None
        return cupy

    def _require(self):
        cp = self._cupy()
        if self.device_count() == 0:
            raise RuntimeError("Found no NVIDIA driver on your system: CuPy is installed but "
                               "sees no GPU. Use device='cpu', or run on a machine with an "
                               "NVIDIA GPU and its driver.")
        return cp

    def is_available(self):
        try:
            return self.device_count() > 0
        except AssertionError:
            return False

    def device_count(self):
        try:
            cp = self._cupy()
        except AssertionError:          # no CuPy: no GPU (PyTorch's CPU build says 0)
            return 0
        try:
            return cp.cuda.runtime.getDeviceCount()
        except Exception:
            return 0

    def current_device(self):
        return self._require().cuda.runtime.getDevice()

    def synchronize(self, device=None):
        self._require().cuda.Stream.null.synchronize()

    def manual_seed(self, seed):
        try:
            self._cupy().random.seed(seed)
        except AssertionError:
            pass

    manual_seed_all = manual_seed


cuda = _Cuda()


def _device(type, index):
    return device(type, index)


device.__module__ = "torch"       # type(x.device) prints <class 'torch.device'>
