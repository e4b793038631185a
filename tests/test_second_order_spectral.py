"""Second derivatives of the spectral and nuclear matrix norms and of ``math.prod``,
checked against JAX's Hessians (where JAX is installed) and against central differences
of the gradient.  (Every rule's second derivative is also checked, on its samples, by
tests/test_second_order_rules.py.)"""
import math

import numpy as np
import pytest

import srcgrad as sg

RNG = np.random.default_rng(11)
MATRICES = {"square": RNG.normal(size=(3, 3)), "tall": RNG.normal(size=(4, 3)),
            "wide": RNG.normal(size=(2, 4)), "batch": RNG.normal(size=(2, 3, 4))}
W = {k: RNG.normal(size=m.shape) for k, m in MATRICES.items()}


def spectral(x, w):
    return np.sum(np.linalg.matrix_norm(x * w + x, ord=2) ** 2)


def spectral_min(x, w):
    return np.sum(np.sin(np.linalg.matrix_norm(x + w, ord=-2)))


def nuclear(x, w):
    return np.sum(np.linalg.matrix_norm(x * x + w, ord="nuc") ** 2)


def norm_axes(x, w):
    return np.sum(np.linalg.norm(np.moveaxis(x[None] * 2.0, 0, -1), ord="nuc",
                                 axis=(-3, -2)) ** 3)


def norm_2d(x, w):
    return np.linalg.norm(x + w, 2) * np.linalg.norm(x, "nuc")


FUNCS = [spectral, spectral_min, nuclear, norm_axes, norm_2d]


def jax_version(f):
    import jax.numpy as jnp

    def mnorm(a, ord):
        s = jnp.linalg.svd(a, compute_uv=False)
        return {2: s[..., 0], -2: s[..., -1], "nuc": jnp.sum(s, -1)}[ord]
    return {
        spectral: lambda x, w: jnp.sum(mnorm(x * w + x, 2) ** 2),
        spectral_min: lambda x, w: jnp.sum(jnp.sin(mnorm(x + w, -2))),
        nuclear: lambda x, w: jnp.sum(mnorm(x * x + w, "nuc") ** 2),
        norm_axes: lambda x, w: jnp.sum(mnorm(x * 2.0, "nuc") ** 3),
        norm_2d: lambda x, w: mnorm(x + w, 2) * mnorm(x, "nuc"),
    }[f]


def cases():
    return [pytest.param(f, k, id=f"{f.__name__}-{k}") for f in FUNCS for k in MATRICES
            if not (f is norm_2d and k == "batch")]


def grad_fd_hvp(f, x, w, v, eps=1e-6):
    g = sg.grad(f, wrt=0)
    return (g(x + eps * v, w) - g(x - eps * v, w)) / (2 * eps)


@pytest.mark.parametrize("f,k", cases())
def test_hvp_matches_differences_of_the_gradient(f, k):
    x, w = MATRICES[k], W[k]
    v = np.cos(np.arange(x.size)).reshape(x.shape)
    fd = grad_fd_hvp(f, x, w, v)
    fwd = sg.hvp(f, wrt=0)(x, w, v=v)
    _, back = sg.vjp(sg.grad(f, wrt=0), x, w, wrt=0)
    np.testing.assert_allclose(fwd, fd, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(back(v), fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f,k", cases())
def test_hessian_matches_jax(f, k):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    x, w = MATRICES[k], W[k]
    expect = np.asarray(jax.hessian(jax_version(f))(x, w))
    np.testing.assert_allclose(sg.hessian(f, wrt=0)(x, w), expect, rtol=1e-7, atol=1e-9)


def prod_of(x, s):
    return math.prod([x[0], x[1] * s, x[2] + x[0]], start=s) ** 2


def test_math_prod_hessian():
    # f = (s^2 a b (c + a))^2 with (a, b, c) = x: the Hessian written out by hand
    x, s = np.array([0.7, -1.3, 0.4]), 1.7
    a, b, c = x
    q = s ** 2 * a * b * (c + a)                     # f = q^2
    dq = s ** 2 * np.array([b * (c + 2 * a), a * (c + a), a * b])
    ddq = s ** 2 * np.array([[2 * b, c + 2 * a, b], [c + 2 * a, 0, a], [b, a, 0]])
    expect = 2 * np.outer(dq, dq) + 2 * q * ddq
    np.testing.assert_allclose(sg.hessian(prod_of, wrt=0)(x, s), expect, rtol=1e-12)
    np.testing.assert_allclose(sg.grad(prod_of, wrt=0)(x, s), 2 * q * dq, rtol=1e-12)
