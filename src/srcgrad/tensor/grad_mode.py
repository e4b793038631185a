"""Grad mode: whether operations on tensors are recorded for backward.

The flag is thread-local, as in PyTorch: ``no_grad`` in one thread does not
stop another thread from recording, and a new thread starts with grad enabled.
``no_grad``, ``enable_grad`` and ``set_grad_enabled`` work as context managers
and as decorators (``@no_grad()`` and bare ``@no_grad``).
"""
import functools
import inspect
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]


class _State(threading.local):
    enabled = True
    inference = False          # inside inference_mode(): new tensors are inference tensors


_state = _State()


def is_grad_enabled():
    return _state.enabled


def is_inference_mode_enabled():
    return _state.inference


def _set(mode):
    _state.enabled = bool(mode)


class _GradModeContext:
    """Base: a context manager that sets grad mode on entry and restores it on exit."""

    mode = True

    def __new__(cls, func=None, *args, **kwargs):
        self = super().__new__(cls)
        if callable(func) and cls in (no_grad, enable_grad):   # bare @no_grad
            self.__init__()
            return self(func)
        return self

    def __enter__(self):
        self._prev = is_grad_enabled()
        _set(self.mode)
        return self

    def __exit__(self, *exc):
        _set(self._prev)
        return False

    def clone(self):
        return type(self)()

    def __call__(self, func):
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen(*args, **kwargs):
                with self.clone():
                    yield from func(*args, **kwargs)
            return gen

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    """Disable recording: results of operations do not require grad."""

    mode = False


class enable_grad(_GradModeContext):
    """Enable recording inside a ``no_grad`` block."""

    mode = True


class inference_mode(_GradModeContext):
    """``no_grad`` whose new tensors are inference tensors: they track no version, cannot
    be changed in place outside inference mode, nor saved for backward."""

    def __init__(self, mode=True):
        self.mode = not mode
        self.inference = bool(mode)

    def __enter__(self):
        self._prev_inference = _state.inference
        _state.inference = self.inference
        return super().__enter__()

    def __exit__(self, *exc):
        _state.inference = self._prev_inference
        return super().__exit__(*exc)

    def clone(self):
        return inference_mode(not self.mode)


class set_grad_enabled(_GradModeContext):
    """``set_grad_enabled(False)`` sets the mode at once (a plain call works), and
    restores the previous mode when used with ``with`` or as a decorator."""

    def __init__(self, mode):
        self._prev = is_grad_enabled()
        self.mode = bool(mode)
        _set(self.mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(self._prev)
        return False

    def clone(self):
        return _SetGradEnabledContext(self.mode)

    def __call__(self, func):
        _set(self._prev)            # as a decorator, the mode applies inside func only
        return super().__call__(func)

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


class _SetGradEnabledContext(_GradModeContext):
    def __init__(self, mode):
        self.mode = mode
