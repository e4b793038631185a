"""The one-pass ast -> gast conversion and the per-file def index agree with gast
and with inspect (the slow path they replace)."""
import functools
import glob
import os

import ast
import gast
import pytest

from srcgrad.compiler import parsing, source

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = sorted(glob.glob(os.path.join(ROOT, "src", "srcgrad", "**", "*.py"), recursive=True))


@pytest.mark.parametrize("path", FILES[::3], ids=lambda p: os.path.relpath(p, ROOT))
def test_to_gast_is_gasts_own_conversion(path):
    with open(path) as fh:
        tree = ast.parse(fh.read())
    assert gast.dump(parsing.to_gast(tree), include_attributes=True) == \
        gast.dump(gast.ast_to_gast(tree), include_attributes=True)


def _decorate(f):
    @functools.wraps(f)
    def wrapper(*a, **k):
        return f(*a, **k)
    return wrapper


def plain(x, y=2.0, *args, k=1, **kw):
    """doc"""
    return x * y


@_decorate
@functools.lru_cache(maxsize=None)
def decorated(x):
    return x + 1


def outer(x):
    def inner(t, c=x):
        try:
            return t * c
        except ValueError as e:
            raise e
    class Local:
        def method(self, v):
            return [v * i for i in range(3)]
    return inner, Local.method


class Holder:
    @staticmethod
    def static(x):
        return x ** 2

    def method(self, x, /, y):
        return x - y


inner, local_method = outer(1.0)
FUNCS = [plain, decorated.__wrapped__.__wrapped__, outer, inner, local_method,
         Holder.static, Holder.method]


@pytest.mark.parametrize("func", FUNCS, ids=lambda f: f.__qualname__)
def test_the_file_index_finds_what_inspect_finds(func):
    fast = source._from_file_index(func)
    slow = source._from_inspect(func)
    assert fast is not None
    assert gast.dump(fast[0], include_attributes=True) == \
        gast.dump(slow[0], include_attributes=True)
    assert (fast[1].first_line, fast[1].indent) == (slow[1].first_line, slow[1].indent)


def test_a_changed_file_is_parsed_again(tmp_path):
    import importlib.util
    path = tmp_path / "mod_changes.py"
    path.write_text("def f(x):\n    return x * 2\n")
    spec = importlib.util.spec_from_file_location("mod_changes", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    first, _ = source.get_function_ast(mod.f)
    assert isinstance(first.body[0].value, gast.BinOp)
    path.write_text("def f(x):\n    return x + 3 + 4\n")
    os.utime(path, (1, 1))                   # (a different mtime: linecache re-reads)
    spec.loader.exec_module(mod)
    second, _ = source.get_function_ast(mod.f)
    assert isinstance(second.body[0].value.left, gast.BinOp)
