"""What both modes' generated code is made of: ``# line N:`` comments over each block,
and the rules' derivative templates instantiated with the user's names.
"""
import gast

from .. import syntax as A
from ..ir import Comment

_TEMPLATE_CACHE = {}


def template(expr):
    t = _TEMPLATE_CACHE.get(expr)
    if t is None:
        t = _TEMPLATE_CACHE[expr] = A.parse_expr(expr)
    return t


class LineComments:
    """``# line N: <the user's source line>`` above each block of generated code."""
    last_comment = None

    def comment(self, s):
        line = self.info.line(getattr(s, "lineno", None))
        if not line or s.lineno == self.last_comment:
            return []
        self.last_comment = s.lineno
        return [Comment(f"line {s.lineno}: {line.strip()}")]


class Qualify(gast.NodeTransformer):
    """Substitute a template's names; qualify helpers (``ad.``), numpy and math."""

    def __init__(self, mapping, helpers, names):
        self.mapping = mapping
        self.helpers = helpers
        self.names = names

    def qualify(self, tree):
        """A copy of the template ``tree`` with its names substituted."""
        return A.clone_with(tree, self._replace)

    def _replace(self, node):
        r = self.visit_Name(node)
        return None if r is node else r

    def visit_Name(self, node):
        if not isinstance(node.ctx, gast.Load):
            return node
        if node.id in self.mapping:
            return A.clone(self.mapping[node.id])
        if node.id in self.helpers:
            return A.attr(self.names.ad, node.id)
        if node.id == "np":
            return A.name(self.names.np)
        if node.id == "math":
            return A.name(self.names.math)
        return node


def as_node(v):
    if isinstance(v, gast.AST):
        if isinstance(v, (gast.Slice, gast.Tuple)):
            return A.slice_to_expr(v)
        return v
    if isinstance(v, tuple):
        return A.tuple_([as_node(x) for x in v])
    if isinstance(v, list):
        return gast.List(elts=[as_node(x) for x in v], ctx=gast.Load())
    return A.const(v)
