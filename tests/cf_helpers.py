"""Helpers in a module of their own, called by functions of test_control_flow.py."""
import numpy as np

SCALE = 0.5


def softplus(x):
    return np.log1p(np.exp(x))


def affine(x, w, b):
    return x @ w + b


def layer(x, w, b):
    # a helper that calls another helper (of this module)
    return np.tanh(affine(x, w, b))


def scaled_square(x):
    # reads a module global of its own module
    return SCALE * x * x
