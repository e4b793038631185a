"""An object built inside differentiated code (compiler/construct.py), differentiated
again: the calls generated code makes of a user class, unfolded by compiler/nested.py, as
Python srcgrad transforms (:func:`construct_apply` for ``call_forward``,
:func:`construct_jvp_apply` for ``call_jvp``), and the rules of the object's linear maps
(its arguments' gradients from its own, and the transpose), so that derivatives of any
order follow it."""
from ..rules.namespace import add_kernels
from ..rules.registry import defkernel, defnograd, deftransformable
from . import construct
from .construct import construct_built, construct_every, construct_routes, construct_saved


def construct_apply(_sg_cls, _sg_where, _sg_site, _sg_picks, *args, **kwargs):
    """``call_forward`` of a user class: the new object, linear in the arguments it
    holds, and its record (compiler/construct.py)."""
    pieces = (args, kwargs)
    every = construct_every(pieces)
    routes = construct_routes(_sg_cls, every, _sg_site, pieces)
    obj = construct_built(_sg_cls, every, routes, pieces)
    return obj, (construct_saved(routes, every, _sg_where, pieces, obj),
                 construct.construct_back, _sg_picks)


def construct_jvp_apply(_sg_cls, _sg_where, _sg_site, tangents, *args, **kwargs):
    """``call_jvp`` of a user class: the new object, linear in the arguments it holds,
    and its tangent from ``tangents`` (those of the arguments ``_sg_where`` names), as
    Python srcgrad transforms (forward-mode code differentiated again)."""
    pieces = (args, kwargs)
    every = construct_every(pieces)
    routes = construct_routes(_sg_cls, every, _sg_site, pieces)
    obj = construct_built(_sg_cls, every, routes, pieces)
    return obj, construct.construct_push(construct_saved(routes, every, _sg_where, pieces,
                                                         obj), tangents)


deftransformable(construct_apply, construct_jvp_apply)
# an object built inside differentiated code, differentiated again: its two linear maps
add_kernels(construct)
# (``saved`` gives routes and structure only: no derivative flows through it)
defkernel(construct.construct_back, "saved, t",
          vjp=dict(t="construct_push(saved, g)", saved="zeros_like(saved)"),
          jvp=dict(t="construct_back(saved, dt)", saved="zeros_like(ans)"), linear_in=("t",))
defkernel(construct.construct_push, "saved, t",
          vjp=dict(t="construct_back(saved, g)", saved="zeros_like(saved)"),
          jvp=dict(t="construct_push(saved, dt)", saved="zeros_like(ans)"), linear_in=("t",))
defkernel(construct_built, "cls, where, routes, pieces",
          vjp=dict(pieces="built_pieces_grad(g, where, routes, pieces, ans)"),
          jvp=dict(pieces="built_tangent(dpieces, where, routes, ans)"))
# (the third order: the two maps are linear, each the other's transpose; the pieces'
# tangents have the pieces' structure)
defkernel(construct.built_pieces_grad, "t, where, routes, pieces, obj",
          vjp=dict(t="built_tangent(g, where, routes, obj)", pieces="zeros_like(pieces)",
                   obj="zeros_like(obj)"),
          jvp=dict(t="built_pieces_grad(dt, where, routes, pieces, obj)",
                   pieces="zeros_like(ans)", obj="zeros_like(ans)"), linear_in=("t",))
defkernel(construct.built_tangent, "t, where, routes, obj",
          vjp=dict(t="built_pieces_grad(g, where, routes, t, obj)", obj="zeros_like(obj)"),
          jvp=dict(t="built_tangent(dt, where, routes, obj)", obj="zeros_like(ans)"),
          linear_in=("t",))
defnograd(construct_routes, construct_saved, construct_every,
          names=["ad.construct_routes", "ad.construct_saved", "ad.construct_every"])
