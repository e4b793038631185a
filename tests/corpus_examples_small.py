"""Small test functions in the style of a source-transformation AD's own test suite: a
corpus, part 2.

Scalars through branches that overwrite their argument, loops with a trip count given
as an integer argument, ``while`` loops on the data, subscripts read and written,
augmented assignment, containers (tuples, dicts of dicts) as arguments, chains of calls
to other user functions, a nested ``def`` called in a loop, list literals and
comprehensions fed to NumPy, rows of a preallocated array filled in a loop.  Written
for this corpus.  Part 1: tests/corpus_examples_models.py.

The scalar programs (``SCALAR``) are also differentiated twice by
tests/test_corpus_examples.py: ``sg.grad(sg.grad(f))``, at inputs on both sides of
their branches.
"""
import numpy as np

from corpus_support import Corpus

_corpus = Corpus(20261203)
CASES, case, register = _corpus.cases, _corpus.case, _corpus.register
randn, uniform = _corpus.randn, _corpus.uniform

# name -> the inputs at which sg.grad(sg.grad(f)) is checked (each a tuple of arguments)
SCALAR = {}


def scalar_case(*inputs):
    """Register ``f`` with the first inputs, and every input for the second-order check."""
    def deco(f):
        register(f.__name__, f, *inputs[0])
        SCALAR[f.__name__] = inputs
        return f
    return deco


@scalar_case((1.3,), (-0.7,))
def overwrite_in_both_branches(a):
    if a > 0:
        a = a * a * 2.0
    else:
        a = -a * 4.0
    return a


@scalar_case((0.6,), (-1.1,), (12.0,))
def nested_branches_one_sided(a):
    if a > 0:
        if a < 10:
            a = a * a
    else:
        a = 2.5 * a
    return a


@scalar_case((0.4,), (-0.9,), (2.2,))
def condition_on_expressions(a):
    b = 2.0 if a * a / 3.0 > 0.1 else 5.0
    a = a * b
    if a < b - a * b:
        a = a * a
    elif a > b + 2.0 * a:
        a = a / b if a / 2.0 < 0 else a * b
    else:
        a = -a
    return a


@scalar_case((0.8, 1.5), (1.5, 0.8))
def branch_on_two_arguments(a, b):
    if a > b:
        a = a * a * b
    else:
        a = a * b * b
    return a


@scalar_case((0.9, 3), (1.1, 1))
def square_n_times(a, n):
    for _ in range(n):
        a = a * a
    return a


@scalar_case((0.7, 2), (-0.6, 1))
def loop_then_branch(a, n):
    for _ in range(n):
        a = a * a + 0.1
    a = 2.0 * a
    if a > 0:
        a = a * a
    return a


@scalar_case((1.2,), (-0.3,))
def power_by_repeated_product(a):
    out = 1.0
    for _ in range(4):
        out = out * a
    return out + a ** 3


@scalar_case((0.9,), (1.3,))
def loop_with_data_condition(a):
    for _ in range(3):
        if a < 5:
            a = a * a * a
    return a


@scalar_case((3.0,), (-7.5,))
def halve_while_large(a):
    while np.abs(a) > 0.1:
        a = a * 0.5
    return a


def times(a, b):
    return a * b


def times_via_call(a, b):
    return times(a, b)


@scalar_case((1.5, 0.5), (0.5, 1.5))
def branches_calling_helpers(a, b):
    if a > b:
        out = times(a, b)
    else:
        out = times_via_call(b, a) * a
    return out


@scalar_case((0.8, 2),)
def nested_def_in_a_loop(a, n):
    def scale(x, y):
        return x * y + 0.5

    for _ in range(n):
        a = scale(a, a)
    return a


@scalar_case((0.7, 2.0), (-0.7, 3.0))
def power_of_absolute_value(a, b):
    if a >= 0:
        a = a ** b
    else:
        a = (-a) ** b
    return a


@scalar_case((0.9,),)
def chained_products_with_calls(a):
    b = times(a, a)
    c = times(b, b)
    return times(c, a)


@scalar_case((1.4,), (-1.4,))
def augmented_assignment(a):
    x = a * a
    x *= x
    x += a
    x -= 0.5 * a
    return x


@scalar_case((0.5,),)
def list_literal_sum(a):
    return np.sum([1.0, a * a, np.sin(a), 2.0])


# --------------------------------------------------------------------------------------
# Vectors and containers
# --------------------------------------------------------------------------------------
@case(randn(4))
def loop_over_elements(x):
    total = 0.0
    for v in x:
        total += v * v
    return total


@case(randn(4))
def write_into_a_copy(x):
    y = x ** 2.0
    z = x.copy()
    z[0] = y[1] * y[2]
    z[-1] = z[0] + x[1]
    return np.sum(z * y)


@case(randn(4))
def copy_element_by_element(x):
    y = np.zeros_like(x)
    for i in range(len(x)):
        y[i] = np.tanh(x[i])
    return np.sum(y * x)


@case(randn(3))
def rows_of_a_preallocated_array(x):
    h = np.zeros((len(x), 3))
    for t in range(len(h)):
        h[t] = x[t] * np.arange(1.0, 4.0)
    return np.sum(h ** 2)


@case(randn(3, 2), randn(2, 3))
def recurrence_into_rows(inputs, W):
    h = np.zeros((4, 3))
    for t in range(3):
        h[t + 1] = np.tanh(inputs[t] @ W + h[t])
    return np.sum(h[1:])


@case(randn(5))
def slices_and_newaxis(x):
    return np.sum(x[1:] * x[:-1]) + np.sum(x[::2, np.newaxis] * x[np.newaxis, 1::2])


@case(randn(4))
def comprehension_into_sum(x):
    return np.sum([v * 3.0 + v ** 2 for v in x])


@case(randn(3))
def atleast_nd_shapes(x):
    return np.sum(np.atleast_3d(x) ** 2) + np.sum(np.atleast_2d(x) * np.atleast_1d(x))


@case((0.5, -1.5, 2.0))
def unpack_a_tuple_argument(abc):
    a, b, c = abc
    return a * b + c * np.sin(a)


@case({"a": 0.5, "b": -1.5, "c": 2.0})
def dict_argument_saxpy(val):
    return val["a"] * val["b"] + val["c"] ** 2


@case({"i": {"j": 3.0, "k": 4.0}, "w": randn(2)})
def nested_dict_argument(p):
    return p["i"]["j"] * p["i"]["k"] + np.sum(p["w"] * p["i"]["j"])


def dict_saxpy(val):
    return val["a"] * val["b"] + val["c"]


@case((0.5, -1.5, 2.0))
def dict_built_and_passed(abc):
    a, b, c = abc
    return dict_saxpy(dict(a=a, b=b, c=c)) * a


@case(0.5, -1.5, 2.0, 1)
def select_from_a_packed_tuple(a, b, c, i):
    packed = a, b, c
    return packed[i] * packed[0]


@case(1.5, 0.8)
def polar_coordinates(a, b):
    r = np.sqrt(a ** 2.0 + b ** 2.0)
    theta = np.arctan2(b, a)
    return r * theta


@case(np.random.RandomState(7).rand(3), np.eye(4)[1], randn(3, 4), randn(4))
def tanh_logistic_regression(inputs, label, W, b):
    prediction = 0.5 * (np.tanh(inputs @ W + b) + 1)
    label_probabilities = prediction * label + (1 - prediction) * (1 - label)
    return -np.sum(np.log(label_probabilities))


@case(randn(1, 3), randn(1, 3), randn(3, 3), randn(3, 3), randn(1, 3))
def bilinear_tanh_cell(x, h, U, W, b):
    y = np.dot(x, W)
    y = y + np.dot(h, U)
    y = np.tanh(y + b)
    return np.sum(y)


@case(randn(3, 3) + 2 * np.eye(3))
def determinant_and_inverse(m):
    return np.linalg.det(m) + np.sum(np.linalg.inv(m))


@case(randn(4))
def overwrite_then_square(x):
    x = np.sum(x)
    x = x * x
    return x


@case(np.array([0.9, 0.8, 0.45]), 3)
def halve_the_argument_in_place(x, steps):
    for _ in range(steps):
        if np.sum(x) > 1:
            x /= 2
    return np.sum(x * x)


def make_sine_sum():
    def loss(params):
        return np.sum(np.sin(params))
    return loss


def make_penalized(factory):
    inner = factory()

    def loss(params):
        if np.sum(params) > 1.0:
            return inner(params * 0.1) + np.sum(params ** 2)
        return np.sum(params ** 2)
    return loss


_penalized = make_penalized(make_sine_sum)
register("closures_of_one_name_called_directly", _penalized, np.array([0.9, 0.8]))
register("closures_of_one_name_through_a_lambda", lambda q: -_penalized(q), np.array([0.9, 0.8]))


@case(np.array([-1.0, 4.0, 2.25]))
def sqrt_skipped_by_continue(xs):
    total = 0.0
    for v in xs:
        s = np.sqrt(v)
        if v < 0:
            continue
        total = total + s * v
    return total
