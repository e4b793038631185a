"""``torch.save`` / ``torch.load``: objects (state dicts, tensors, modules) pickled to a file.

The file is a plain pickle, not PyTorch's zip archive: srcgrad reads what srcgrad
wrote.  ``map_location`` moves the loaded tensors to a device.
"""
import os
import pickle

__all__ = ["save", "load"]


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Pickle ``obj`` into ``f`` (a path or a writable binary file)."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as handle:
            pickle_module.dump(obj, handle, protocol=pickle_protocol)
    else:
        pickle_module.dump(obj, f, protocol=pickle_protocol)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Unpickle what :func:`save` wrote to ``f`` (a path or a readable binary file)."""
    module = pickle_module or pickle
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as handle:
            obj = module.load(handle, **pickle_load_args)
    else:
        obj = module.load(f, **pickle_load_args)
    if map_location is not None:
        obj = _moved(obj, map_location)
    return obj


def _moved(obj, where):
    from .core import Tensor
    if isinstance(obj, Tensor):
        return where(obj, "cpu") if callable(where) else obj.to(where)
    if isinstance(obj, dict):
        return type(obj)((k, _moved(v, where)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_moved(v, where) for v in obj)
    return obj


