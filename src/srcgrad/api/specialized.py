"""Which calls of a derivative get code specialized to their arguments' shapes.

The compiler specializes a call's code to its arguments' shapes and dtype kinds where
they prove an un-broadcast a no-op (compiler/optimize/shapes.py).  Per derivative,
:class:`Specializations` decides which shape signature a call compiles for:

* none (the general code) when specialization is off (``specialize=False``), does not
  apply (a derivative of a derivative, ``has_aux``, the split form, no array
  argument), when code built for these argument kinds and dtype kinds came out the
  same for every shape (one code then serves them all), or when ``LIMIT`` versions
  were made for them already (every other shape shares the general code);
* else the call's own: ``(shape, dtype kind)`` per array, the type of a Python scalar
  (rules/shapes.py: ``signature_of``), a plain tuple, cheap to hash on each call.
"""
from ..rules.shapes import signature_of

LIMIT = 8       # shape-specialized versions per argument kinds and dtype kinds


def _dtype_kinds(kinds, sig):
    """Argument kinds with each array's dtype kind: what decides whether shapes can
    change the code (a complex argument may keep it general where a real one did not)."""
    return kinds, tuple(s[1] if type(s) is tuple else s for s in sig)


class Specializations:
    def __init__(self, enabled):
        self.enabled = enabled
        self.free = set()     # (kinds, dtype kinds) whose code no shape changes
        self.seen = {}        # (kinds, dtype kinds) -> the signatures specialized

    def signature(self, values, kinds):
        """The shape signature to compile ``values`` (the bound arguments) for, or None."""
        if not self.enabled:
            return None
        sig = tuple(map(signature_of, values))
        if not any(type(a) is tuple for a in sig):
            return None
        key = _dtype_kinds(kinds, sig)
        if key in self.free:
            return None
        seen = self.seen.get(key, ())
        if sig not in seen and len(seen) >= LIMIT:
            return None
        return sig

    def built(self, kinds, sig, fn):
        """Note what compiling for ``sig`` gave; True when ``fn`` is specialized (else it
        serves every shape of these kinds)."""
        key = _dtype_kinds(kinds, sig)
        if getattr(fn, "__srcgrad_specialized__", False):
            self.seen.setdefault(key, set()).add(sig)
            return True
        self.free.add(key)
        return False
