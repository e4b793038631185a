"""The differentiation modes: reverse (records, adjoint, reverse) and forward."""
