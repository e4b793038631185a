"""The derivative table.  Importing this package registers every rule (SciPy's on first
use after SciPy is imported; ``load_all()`` registers them now).

``namespace()`` is the module that generated code calls as ``ad`` (runtime helpers
and the families' kernels); the queries (``view_of``, ``in_place_target``,
``reads_only_shape``...) are what passes ask about a primitive.
"""
from .registry import (Rule, defrule, defkernel, deflinear, defnograd, defmethod,  # noqa: F401
                       declare, defnograd_methods, defnograd_attributes, lookup, is_nograd,
                       facets_of, signature_of, view_of, method_view, nograd_method,
                       nograd_attribute, metadata_attribute, in_place_target,
                       writes_first_argument, reads_only_shape, reduction_param,
                       all_nograd, all_rules, all_declared, METHODS, defresolver,
                       resolve_call, load_all)
from .facets import ALL_AXES, ALL_PARAMS, Facets  # noqa: F401
from . import numpy, python  # noqa: F401,E402
from . import runtime_rules  # noqa: F401,E402  (generated code is differentiable too)
from . import containers  # noqa: F401,E402  (dict(...), {**d}, zip, list + list)
from .python.attributes import field as FIELD  # noqa: F401,E402  (p.w of a namedtuple)
from . import scipy  # noqa: F401,E402  (registered lazily: SciPy is not imported here)
from .namespace import namespace, add_kernel, helper_names, template_globals  # noqa: F401,E402
