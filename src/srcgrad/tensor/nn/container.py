"""``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``, ``ParameterDict``."""
import collections

from .module import Module, Parameter, _add_indent

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _index(i, n):
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of range")
    return i % n


class Sequential(Module):
    """Modules applied in order; ``Sequential(OrderedDict(...))`` names them."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], collections.OrderedDict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, i):
        mods = list(self._modules.items())
        if isinstance(i, slice):
            return Sequential(collections.OrderedDict(mods[i]))
        return mods[_index(i, len(mods))][1]

    def __setitem__(self, i, module):
        key = list(self._modules)[_index(i, len(self._modules))]
        self._modules[key] = module

    def __delitem__(self, i):
        keys = list(self._modules)
        for k in (keys[i] if isinstance(i, slice) else [keys[_index(i, len(keys))]]):
            del self._modules[k]
        self._renumber(list(self._modules.values()))      # PyTorch renumbers: 0, 1, ...

    def _renumber(self, modules):
        self._modules.clear()
        for k, m in enumerate(modules):
            self._modules[str(k)] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        mods = list(self._modules.values())
        mods.insert(index + n if index < 0 else index, module)
        self._renumber(mods)
        return self

    def extend(self, sequential):
        for m in sequential:
            self.append(m)
        return self


class ModuleList(Module):
    def __init__(self, modules=None):
        super().__init__()
        for m in modules or ():
            self.append(m)

    def __getitem__(self, i):
        mods = list(self._modules.values())
        if isinstance(i, slice):
            return ModuleList(mods[i])
        return mods[_index(i, len(mods))]

    def __setitem__(self, i, module):
        self.add_module(str(_index(i, len(self))), module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def __repr__(self):
        """As PyTorch: runs of equal-looking modules print once, ``(0-1): 2 x Linear(...)``."""
        items = [(name, repr(m)) for name, m in self._modules.items()]
        if not items:
            return "ModuleList()"
        lines, start = [], 0
        while start < len(items):
            end = start
            while end + 1 < len(items) and items[end + 1][1] == items[start][1]:
                end += 1
            text = _add_indent(items[start][1], 2)
            if end > start:
                lines.append(f"({items[start][0]}-{items[end][0]}): {end - start + 1} x {text}")
            else:
                lines.append(f"({items[start][0]}): {text}")
            start = end + 1
        return "ModuleList(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def update(self, modules):
        pairs = modules.items() if hasattr(modules, "items") else modules
        for k, m in pairs:
            self.add_module(k, m)

    def pop(self, key):
        return self._modules.pop(key)


class ParameterList(Module):
    def __init__(self, values=None):
        super().__init__()
        for v in values or ():
            self.append(v)

    def __getitem__(self, i):
        return list(self._parameters.values())[i]

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, value):
        if not isinstance(value, Parameter):
            value = Parameter(value)
        self.register_parameter(str(len(self)), value)
        return self

    def extra_repr(self):
        return _parameter_lines(self._parameters.items(), lambda p: str(p.dtype))


def _parameter_lines(items, type_name):
    """PyTorch's one line per parameter of a ParameterList/ParameterDict's repr."""
    return "\n".join(f"  ({k}): Parameter containing: [{type_name(p)} of size "
                     f"{'x'.join(str(n) for n in p.shape)}]" for k, p in items)


class ParameterDict(Module):
    def __init__(self, parameters=None):
        super().__init__()
        for k, v in (parameters or {}).items():
            self[k] = v

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, value):
        self.register_parameter(key, value if isinstance(value, Parameter) else Parameter(value))

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def extra_repr(self):
        return _parameter_lines(self._parameters.items(), lambda p: f"torch.{p.dtype.legacy}")
