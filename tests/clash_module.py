"""A module whose global ``np`` is NOT numpy, and whose functions use numpy as ``onp``."""
import numpy as onp

np = "not numpy"          # generated code must not rely on (or shadow) this global
ad = None
stack = []


def uses_onp(x, w):
    y = onp.sin(x) * w
    for i in range(2):
        y = y * onp.cos(w)
    return onp.sum(y * y)
