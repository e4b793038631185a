"""Objects of the user's own classes in differentiated code (runtime/records.py,
compiler/construct.py, the callee's own gradient in compiler/dynamic.py, attribute
writes as rules/python/attributes.with_field).

Every gradient is checked against central finite differences; the refusals are
checked to name the user's file and line.
"""
import copy
from dataclasses import dataclass

import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import fd_of as fd

RNG = np.random.default_rng(7)
X = RNG.normal(size=(4, 3))
W1, B1 = RNG.normal(size=(3, 3)) * 0.5, RNG.normal(size=3)
W2, B2 = RNG.normal(size=(3, 2)) * 0.5, RNG.normal(size=2)


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


class Dense:
    def __init__(self, W, b, activation=np.tanh):
        self.W, self.b = W, b
        self.activation = activation
        self.scale = 1.0                  # a constant: the same object every time

    def pre(self, x):
        return x @ self.W + self.b

    def forward(self, x):
        return self.activation(self.pre(x)) * self.scale


class Scaled(Dense):
    def forward(self, x):
        return 2.0 * super().forward(x)


class Gaussian:
    def __init__(self, mean, log_std):
        self.mean, self.log_std = mean, log_std

    @classmethod
    def from_vector(cls, theta):
        d = len(theta) // 2
        return cls(theta[:d], theta[d:])

    @property
    def std(self):
        return np.exp(self.log_std)

    @staticmethod
    def square(z):
        return z * z

    def log_prob(self, x):
        return np.sum(-0.5 * self.square((x - self.mean) / self.std) - self.log_std)


class Linear:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return x @ self.W + self.b


class Chain:
    def __init__(self, *layers):
        self.layers = list(layers)

    def __call__(self, x):
        for layer in self.layers:
            x = np.tanh(layer(x))
        return x


# -- objects as arguments: a gradient of their own class -----------------------------------

def layers_loss(layers, x):
    for layer in layers:
        x = layer.forward(x)
    return np.sum(x ** 2)


def test_gradient_of_a_list_of_objects_is_a_list_of_objects_of_their_class():
    layers = [Dense(W1, B1), Dense(W2, B2, activation=np.sin)]
    g = sg.grad(layers_loss, wrt=0)(layers, X)
    assert [type(d) for d in g] == [Dense, Dense]
    assert g[1].activation is np.sin           # what carries no gradient is kept
    for k, layer in enumerate(layers):
        for name in ("W", "b"):
            def fun(v, k=k, name=name):
                new = copy.copy(layers)
                new[k] = copy.copy(layers[k])
                setattr(new[k], name, v)
                return layers_loss(new, X)
            close(getattr(g[k], name), fd(fun, getattr(layer, name)))
    # forward mode: the tangent of an object is an object of its class
    t = [Dense(np.ones_like(W1), np.zeros_like(B1)), Dense(np.zeros_like(W2), np.ones_like(B2))]
    for d in t:
        d.scale = 0.0
    _, dout = sg.jvp(layers_loss, (layers, X), (t, np.zeros_like(X)))
    expected = np.sum(g[0].W) + np.sum(g[1].b)
    close(dout, expected)


def test_the_users_objects_are_left_as_they_were():
    layers = [Dense(W1.copy(), B1.copy())]
    before = [vars(layer).copy() for layer in layers]
    sg.grad(layers_loss, wrt=0)(layers, X)
    assert [vars(layer) for layer in layers] == before


# -- objects built inside -----------------------------------------------------------------

def built_inside(W1, b1, W2, b2, x):
    model = Chain(Linear(W1, b1), Linear(W2, b2))
    return np.sum(model(x))


def inherited(W1, b1, x):
    return np.sum(Scaled(W1, b1).forward(x))


def class_and_property(theta, x):
    return Gaussian.from_vector(theta).log_prob(x)


@pytest.mark.parametrize("f, args", [
    (built_inside, (W1, B1, W2, B2, X)),
    (inherited, (W1, B1, X)),
    (class_and_property, (RNG.normal(size=6) * 0.3, RNG.normal(size=(5, 3)))),
])
def test_objects_built_inside_give_their_arguments_gradients(f, args):
    grads = sg.grad(f, wrt=tuple(range(len(args) - 1)))(*args)
    for i, g in enumerate(grads):
        def fun(v, i=i):
            a = list(args)
            a[i] = v
            return f(*a)
        close(g, fd(fun, args[i]))
    tangents = tuple(np.ones_like(a) for a in args[:-1]) + (np.zeros_like(args[-1]),)
    _, dout = sg.jvp(f, args, tangents)
    close(dout, sum(np.sum(g) for g in grads))


class Computed:
    def __init__(self, w):
        self.w2 = 2.0 * w                  # computed from the argument: not followed


def computed_attribute(w):
    return np.sum(Computed(w).w2)


def test_an_attribute_computed_by_the_constructor_is_refused_by_name():
    with pytest.raises(sg.NonDifferentiableError, match=r"test_objects\.py:\d+.*\.w2"):
        sg.grad(computed_attribute)(np.ones(3))


@dataclass
class Ridge:
    w: np.ndarray
    l2: float = 0.1

    def loss(self, X, y):
        r = X @ self.w - y
        return r @ r / len(y) + self.l2 * self.w @ self.w


def dataclass_inside(w, X, y):
    return Ridge(w, l2=0.5).loss(X, y)


def test_a_dataclass_built_inside_and_its_method():
    y = RNG.normal(size=4)
    w = RNG.normal(size=3)
    close(sg.grad(dataclass_inside, wrt=0)(w, X, y), fd(lambda v: dataclass_inside(v, X, y), w))


# -- a method or callable object as a value ---------------------------------------------------

def bound_method_as_value(layer, x):
    step = layer.forward
    return np.sum(step(x))


def test_a_bound_method_passed_around_carries_its_objects_gradient():
    layer = Dense(W1, B1)
    g = sg.grad(bound_method_as_value, wrt=0)(layer, X)
    assert type(g) is Dense
    close(g.W, fd(lambda v: bound_method_as_value(Dense(v, B1), X), W1))
    close(g.b, fd(lambda v: bound_method_as_value(Dense(W1, v), X), B1))


def hessian_through_an_object(w):
    g = Gaussian(w, np.zeros_like(w))
    return np.sum(np.sin(g.mean) * g.mean)


def test_second_order_through_an_object_built_inside():
    """(refused until the object's record became data with rules: compiler/nested.py)
    The Hessian of sum(sin(w) * w) is diag(2 cos w - w sin w), by every route."""
    w = RNG.normal(size=3)
    expected = np.diag(2 * np.cos(w) - w * np.sin(w))
    close(sg.hessian(hessian_through_an_object)(w), expected)
    v = RNG.normal(size=3)
    close(sg.hvp(hessian_through_an_object)(w, v=v), expected @ v)
    g = sg.grad(hessian_through_an_object)
    close(sg.grad(lambda u: np.sum(g(u) * v))(w), expected @ v)


# -- attribute writes -------------------------------------------------------------------------

class Params:
    def __init__(self, W, b):
        self.W = W
        self.b = b


def write_then_read(W, b, x):
    p = Params(W, b)
    p.W = p.W * 2.0
    p.b = p.b + 1.0
    p.n = 2.0
    p.n += np.sum(W)                     # a float attribute: += rebinds it
    return np.sum(np.tanh(x @ p.W + p.b)) * p.n


def augmented_write_changes_the_array_held(W, b, x):
    p = Params(W, b)
    p.b += 1.0                           # changes the caller's array b in place
    return np.sum(x @ p.W + b)


def write_new_attribute(W, x):
    p = Params(W, 0.0)
    p.extra = np.sin(W)
    return np.sum(x @ (p.W + p.extra))


def write_a_parameter_object(p, x):
    p.W = p.W ** 2
    return np.sum(x @ p.W)


@pytest.mark.parametrize("f, args", [(write_then_read, (W2, B2, X)),
                                     (write_new_attribute, (W2, X))])
def test_attribute_writes_on_an_object_built_inside(f, args):
    before = copy.deepcopy(args)
    grads = sg.grad(f, wrt=tuple(range(len(args) - 1)))(*args)
    for a, b in zip(args, before):
        assert np.array_equal(a, b)              # += on p.b did not change the caller's b
    for i, g in enumerate(grads):
        def fun(v, i=i):
            a = list(copy.deepcopy(args))
            a[i] = v
            return f(*a)
        close(g, fd(fun, args[i]))
    tangents = tuple(np.ones_like(a) for a in args[:-1]) + (np.zeros_like(args[-1]),)
    _, dout = sg.jvp(f, args, tangents)
    close(dout, sum(np.sum(g) for g in grads))


def test_an_attribute_write_on_an_argument_leaves_the_users_object_alone():
    p = Params(W2.copy(), B2)
    g = sg.grad(write_a_parameter_object, wrt=0)(p, X)
    np.testing.assert_array_equal(p.W, W2)
    close(g.W, fd(lambda v: write_a_parameter_object(Params(v, B2), X), W2))


def write_seen_through_another_name(W, x):
    p = Params(W, 0.0)
    q = p
    p.W = W * 3.0
    return np.sum(x @ q.W)


def write_seen_through_a_list(W, x):
    p = Params(W, 0.0)
    held = [p]
    p.W = W * 3.0
    return np.sum(x @ held[0].W)


@pytest.mark.parametrize("f, args", [(write_seen_through_another_name, (W2, X)),
                                     (write_seen_through_a_list, (W2, X)),
                                     (augmented_write_changes_the_array_held, (W2, B2, X))])
def test_a_write_another_name_would_see_is_refused(f, args):
    with pytest.raises(sg.UnsupportedSyntaxError, match=r"test_objects\.py"):
        sg.grad(f)(*args)


class Counter:
    def __init__(self):
        self.total = 0.0

    def add(self, v):
        self.total = self.total + v
        return self.total


def method_that_writes_its_object(x):
    acc = Counter()
    t = 0.0
    for xi in x:
        t = acc.add(np.sin(xi))
    return t + acc.total


def method_changing_an_argument(acc, x):
    return acc.add(np.sum(x))


def changed_object_seen_through_a_list(x):
    acc = Counter()
    held = [acc]
    acc.add(np.sum(x))
    return held[0].total


def test_a_method_that_changes_an_object_built_here_works_on_a_copy():
    x = np.array([0.1, 0.2, 0.7])
    close(sg.grad(method_that_writes_its_object)(x), fd(method_that_writes_its_object, x))
    _, t = sg.jvp(method_that_writes_its_object, (x,), (np.ones(3),))
    close(t, np.sum(fd(method_that_writes_its_object, x)))


def test_a_method_changing_an_object_it_was_given_or_one_another_name_sees_is_refused():
    with pytest.raises(sg.NonDifferentiableError, match=r"test_objects\.py:\d+.*add"):
        sg.grad(method_changing_an_argument, wrt=1)(Counter(), np.ones(2))
    with pytest.raises(sg.UnsupportedSyntaxError, match=r"test_objects\.py"):
        sg.grad(changed_object_seen_through_a_list)(np.ones(2))


# -- what a class holds itself, and methods kept as values ------------------------------------

class WithClassConstant:
    scale = np.array([2.0, 3.0, 0.5])     # the class's own value: no gradient of the object

    def __init__(self, w):
        self.w = w

    def value(self, x):
        return np.sum(self.scale * self.w * x)


def class_constant(layer, x):
    return layer.value(x)


def methods_kept_in_a_list(layers, x):
    steps = [layer.forward for layer in layers]
    for step in steps:
        x = step(x)
    return np.sum(x)


def test_a_class_constant_gets_no_gradient_and_the_fields_theirs():
    layer, x = WithClassConstant(np.array([0.5, -1.0, 2.0])), np.array([1.0, 2.0, 3.0])
    g = sg.grad(class_constant, wrt=0)(layer, x)
    close(g.w, WithClassConstant.scale * x)
    _, t = sg.jvp(class_constant, (layer, x), (WithClassConstant(np.ones(3)), np.zeros(3)))
    close(t, np.sum(WithClassConstant.scale * x))


def test_bound_methods_kept_in_a_list_carry_their_objects_gradients():
    layers = [Dense(W1, B1), Dense(W2, B2)]
    g = sg.grad(methods_kept_in_a_list, wrt=0)(layers, X)
    for k in range(2):
        def fun(v, k=k):
            new = list(layers)
            new[k] = Dense(v, layers[k].b)
            return methods_kept_in_a_list(new, X)
        close(g[k].W, fd(fun, layers[k].W))


class StoresAnItemAndTwice:
    def __init__(self, weights):
        self.first = weights[0]
        self.again = weights[0]


def stored_item(weights, x):
    o = StoresAnItemAndTwice(weights)
    return np.sum(o.first * x) + np.sum(o.again ** 2)


def test_an_object_holding_an_item_of_its_argument_twice():
    weights, x = [np.array([0.5, 1.5]), np.array([2.0, -1.0])], np.array([3.0, 4.0])
    g = sg.grad(stored_item, wrt=0)(weights, x)
    close(g[0], x + 2 * weights[0])
    close(g[1], np.zeros(2))


class WithState:
    def __init__(self, W):
        self.W = W
        self.h0 = np.zeros(3)            # built inside, the same value whatever W is
        self.gain = 1.5

    def step(self, h, x):
        return np.tanh(self.W @ h + x) * self.gain


def cell_loss(W, xs):
    c = WithState(W)
    h = c.h0
    for x in xs:
        h = c.step(h, x)
    return np.sum(h)


def test_a_constructor_may_build_constants_of_its_own():
    W, xs = W1, RNG.normal(size=(4, 3))
    close(sg.grad(cell_loss, wrt=0)(W, xs), fd(lambda v: cell_loss(v, xs), W))
