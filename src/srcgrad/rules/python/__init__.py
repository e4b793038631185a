"""Python's own primitives: operators, builtins, the math module."""
from . import operators, builtins, math, attributes  # noqa: F401
