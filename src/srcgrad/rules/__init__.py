"""The derivative table.  Importing this package registers every rule."""
from .table import (Rule, defrule, defnograd, defmethod, lookup, is_nograd,  # noqa: F401
                    all_nograd, all_rules, METHODS)
from . import operators  # noqa: F401,E402  (Python's operators, as ufuncs)
from . import numpy_rules, math_rules, builtin_rules  # noqa: F401,E402
from . import runtime_rules  # noqa: F401,E402  (generated code is differentiable too)
