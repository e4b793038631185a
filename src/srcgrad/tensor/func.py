"""``torch.func``: only ``functional_call`` (a Module run with other parameters).

srcgrad's own transformations (``sg.grad``, ``sg.vjp``, ``sg.jacobian``, ``sg.hessian``)
take the place of the rest of ``torch.func``; asking for another name says so.
"""
__all__ = ["functional_call"]


def _owner(module, name):
    """The submodule holding ``name`` ("layer.weight" -> (module.layer, "weight"))."""
    path, _, attr = name.rpartition(".")
    return (module.get_submodule(path) if path else module), attr


def _swap(owner, attr, value):
    """Put ``value`` where ``owner.attr`` lives; return how to put the old one back."""
    for table in ("_parameters", "_buffers"):
        entries = owner.__dict__[table]
        if attr in entries:
            old = entries[attr]
            entries[attr] = value
            return lambda: entries.__setitem__(attr, old)
    missing = object()
    old = owner.__dict__.get(attr, missing)
    object.__setattr__(owner, attr, value)
    if old is missing:
        return lambda: object.__delattr__(owner, attr)
    return lambda: object.__setattr__(owner, attr, old)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with its parameters and buffers named in the dict(s)
    replaced by the given tensors for the call (the module is unchanged after it)."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = dict(parameter_and_buffer_dicts)
    else:
        values = {}
        for d in parameter_and_buffer_dicts:
            repeated = sorted(set(values) & set(d))
            if repeated:
                raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            values.update(d)
    if strict:
        names = [n for n, _ in module.named_parameters(remove_duplicate=False)] + \
            [n for n, _ in module.named_buffers(remove_duplicate=False)]
        missing = sorted(set(names) - set(values))
        unexpected = sorted(set(values) - set(names))
        errors = []
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               + "\n\t".join(errors))
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    restore = []
    try:
        for name, value in values.items():
            restore.append(_swap(*_owner(module, name), value))
        return module(*args, **(kwargs or {}))
    finally:
        for undo in reversed(restore):
            undo()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"srcgrad: torch.func.{name} is not provided; srcgrad's own "
                         "transformations (srcgrad.grad, srcgrad.vjp, srcgrad.jvp, "
                         "srcgrad.jacobian, srcgrad.hessian) transform functions instead")
