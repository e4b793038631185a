"""``nn.Parameter`` and ``nn.Module``: parameters, buffers and submodules registered by
attribute, their traversal, modes, state dicts, hooks and PyTorch's ``repr``."""
import collections
import itertools

from .. import dtypes, grad_mode, printing
from ..core import Tensor

__all__ = ["Parameter", "Module", "Buffer"]


class Parameter(Tensor):
    """A tensor that a Module registers as a parameter: a leaf that requires grad."""

    __module__ = "torch.nn.parameter"      # as PyTorch prints type(p)

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ..factories import empty
            data = empty(0)
        self = Tensor._make.__func__(cls, data._data, requires_grad)
        self._vc = data._vc                 # the same memory as ``data``
        return self

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + printing.tensor_repr(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        out = Parameter(Tensor._make(self._data.copy()), self._requires_grad)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.detach().numpy(), self._requires_grad))


def _rebuild_parameter(array, requires_grad):
    return Parameter(Tensor._make(array), requires_grad)


class Buffer(Tensor):
    """``nn.Buffer(tensor)``: marks a tensor to register as a buffer by attribute."""

    def __new__(cls, data, persistent=True):
        self = Tensor._make.__func__(cls, data._data)
        self.persistent = persistent
        return self

    def __init__(self, data, persistent=True):
        pass


class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys",
                                               ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _Handle:
    _ids = itertools.count()

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = next(self._ids)

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _add_indent(text, n):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


class Module:
    """``torch.nn.Module``: subclasses define ``forward``; attributes that are
    Parameters, Modules or buffers are registered and found by ``parameters()``,
    ``state_dict()``..., in the order they were set."""

    training = True
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes no arguments")
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", {})
        for hooks in ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks",
                      "_forward_pre_hooks"):           # OrderedDict(): as PyTorch prints them
            object.__setattr__(self, hooks, collections.OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    # -- calling ------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        d = self.__dict__
        with_kwargs = d.get("_hooks_with_kwargs", ())
        for key, hook in list(d.get("_forward_pre_hooks", {}).items()):
            if key in with_kwargs:
                out = hook(self, args, kwargs)
                if out is not None:
                    if not (isinstance(out, tuple) and len(out) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {out}.")
                    args, kwargs = out
                continue
            out = hook(self, args)
            if out is not None:
                args = out if isinstance(out, tuple) else (out,)
        backward = None
        if (d.get("_backward_hooks") or d.get("_backward_pre_hooks")) and \
                grad_mode.is_grad_enabled():
            from .backward_hooks import BackwardHook
            backward = BackwardHook(self, list(d.get("_backward_hooks", {}).values()),
                                    list(d.get("_backward_pre_hooks", {}).values()))
            args = backward.setup_input(args)
        result = self.forward(*args, **kwargs)
        for key, hook in list(d.get("_forward_hooks", {}).items()):
            out = hook(self, args, kwargs, result) if key in with_kwargs else \
                hook(self, args, result)
            if out is not None:
                result = out
        if backward is not None:
            result = backward.setup_output(result)
        return result

    _call_impl = __call__

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
        ``with_kwargs``) after each call; it may return a replacement output."""
        return self._add_hook(self._forward_hooks, hook, prepend, with_kwargs)

    def _add_hook(self, hooks, hook, prepend, with_kwargs):
        handle = _Handle(hooks)
        hooks[handle.id] = hook
        if prepend:                       # first to run
            rest = [(k, v) for k, v in hooks.items() if k != handle.id]
            hooks.clear()
            hooks[handle.id] = hook
            hooks.update(rest)
        if with_kwargs:
            self.__dict__.setdefault("_hooks_with_kwargs", set()).add(handle.id)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` once the gradients of the call's
        tensor inputs are computed; it may return replacements for ``grad_input``."""
        return self._backward_hook("_backward_hooks", hook)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` when the outputs' gradients arrive; it may
        return replacements for ``grad_output``."""
        return self._backward_hook("_backward_pre_hooks", hook)

    def _backward_hook(self, kind, hook):
        hooks = self.__dict__.get(kind)
        if hooks is None:
            hooks = collections.OrderedDict()
            object.__setattr__(self, kind, hooks)
        handle = _Handle(hooks)
        hooks[handle.id] = hook
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` before each call (``hook(module, args, kwargs)``, giving
        ``(args, kwargs)``, with ``with_kwargs``); it may return replacement arguments."""
        return self._add_hook(self._forward_pre_hooks, hook, prepend, with_kwargs)

    # -- registration -------------------------------------------------------------------------
    def __setattr__(self, name, value):
        d = self.__dict__
        if "_parameters" not in d:
            if isinstance(value, (Parameter, Module)):
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            object.__setattr__(self, name, value)
            return
        params, modules, buffers = d["_parameters"], d["_modules"], d["_buffers"]
        if isinstance(value, Parameter):
            self._forget(name)
            params[name] = value
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            self._forget(name)
            modules[name] = value
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module "
                                f"'{name}' (torch.nn.Module or None expected)")
            modules[name] = None
        elif isinstance(value, Buffer):
            self._forget(name)
            self.register_buffer(name, Tensor._make(value._data), value.persistent)
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name):
        self.__dict__.pop(name, None)
        for table in ("_parameters", "_modules", "_buffers"):
            self.__dict__[table].pop(name, None)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            entries = d.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(table, ()):
                del self.__dict__[table][name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter "
                            f"'{name}' (torch.nn.Parameter or None required)")
        self._forget(name)
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._forget(name)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        self._forget(name)
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        mod = self
        for part in target.split(".") if target else ():
            if not hasattr(mod, part):
                raise AttributeError(f"{type(mod).__name__} has no attribute `{part}`")
            mod = getattr(mod, part)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{part}` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        return self._get_entry(target, Parameter, "an nn.Parameter")

    def get_buffer(self, target):
        return self._get_entry(target, None, "a buffer")

    def _get_entry(self, target, kind, what):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{type(mod).__name__} has no attribute `{name}`")
        value = getattr(mod, name)
        if not (isinstance(value, kind) if kind is not None else name in mod._buffers):
            raise AttributeError(f"`{name}` is not {what}")
        return value

    # -- traversal ----------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, table, prefix, recurse, remove_duplicate=True):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for name, value in mod.__dict__[table].items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # -- modes and gradients --------------------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # -- conversions ------------------------------------------------------------------------------
    def _apply_to_tensors(self, convert):
        for m in self.modules():
            for name, p in m._parameters.items():
                if p is not None:
                    with grad_mode.no_grad():
                        new = convert(p)
                    if new is not p:
                        p._data = new._data
                        if p._grad is not None:
                            p._grad = convert(p._grad)
            for name, b in m._buffers.items():
                if b is not None:
                    m._buffers[name] = convert(b)
        return self

    def to(self, *args, **kwargs):
        def convert(t):
            return t.to(*args, **kwargs) if t.is_floating_point() or \
                not _casts(args, kwargs) else t
        return self._apply_to_tensors(convert)

    def float(self):
        return self._apply_to_tensors(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply_to_tensors(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply_to_tensors(lambda t: t.half() if t.is_floating_point() else t)

    def type(self, dst_type):
        return self._apply_to_tensors(lambda t: t.type(dst_type))

    def cpu(self):
        return self._apply_to_tensors(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply_to_tensors(lambda t: t.cuda(device))

    # -- state ----------------------------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if destination is None:
            destination = collections.OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if tuple(value.shape) != tuple(target.shape):
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{value.shape} from checkpoint, the shape in current model "
                              f"is {target.shape}.")
                continue
            with grad_mode.no_grad():
                target.copy_(value)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    # -- printing -----------------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            lines.append(f"({name}): " + _add_indent(repr(module), 2))
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self.__dict__.update(state)


def _casts(args, kwargs):
    """Whether ``Module.to(...)`` changes the dtype (integers then stay as they are)."""
    return "dtype" in kwargs or any(isinstance(a, dtypes.dtype) for a in args) or \
        any(isinstance(a, Tensor) for a in args)


def _type_name(value):
    if isinstance(value, Tensor):
        return value.type()                 # torch.typename: 'torch.FloatTensor'
    t = type(value)
    return f"{t.__module__}.{t.__qualname__}" if t.__module__ != "builtins" else t.__qualname__
