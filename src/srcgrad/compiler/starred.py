"""Calls with ``*xs`` / ``**kw`` whose callee is known only when they run
(compiler/dynamic.py): generated code calls :func:`call_forward_star` and
:func:`call_jvp_star` with the call's pieces, ``wrt`` indexing the pieces."""
from ..runtime import array_ns

# compiler/dynamic.py's call_forward, call_backward and call_jvp, installed by it (which
# imports this module)
CALLS = {}


def _flatten(stars, pieces, kw_pieces):
    """The call's positional arguments and keywords, and for each piece (positional
    pieces, then keyword pieces) the positions or keywords it filled."""
    flat, spans = [], []
    for k, p in enumerate(pieces):
        if k in stars:
            items = list(p)
            spans.append((list(range(len(flat), len(flat) + len(items))), type(p)))
            flat.extend(items)
        else:
            spans.append(([len(flat)], None))
            flat.append(p)
    kwargs = {}
    for key, v in kw_pieces:
        if key is None:
            spans.append((list(v), dict))
            kwargs.update(v)
        else:
            spans.append(([key], None))
            kwargs[key] = v
    return flat, kwargs, spans


def sequence_kind(typ):
    """How the gradient of a piece of this type unpacked in a call is put together from
    its items': "list", "stack" (an array's: its rows' stacked) or "tuple"."""
    if typ is list:
        return "list"
    if hasattr(typ, "ndim") and hasattr(typ, "shape") and not issubclass(typ, tuple):
        return "stack"
    return "tuple"


def stacked(items):
    """An array's gradient from its rows' (``*M`` of an array M)."""
    like = next((v for v in items if v is not None), 0.0)
    items = [0.0 * like if v is None else v for v in items]
    return array_ns(*items).stack(items)


def _regroup(spans, wrt, by_slot):
    out = []
    for w in wrt:
        slots, typ = spans[w]
        if typ is None:
            out.append(by_slot[slots[0]])
        elif typ is dict:
            out.append({k: by_slot[k] for k in slots})
        else:
            items = [by_slot[j] for j in slots]
            kind = sequence_kind(typ)
            out.append(items if kind == "list" else stacked(items) if kind == "stack" else
                       tuple(items))
    return tuple(out)


def star_slots(stars, pieces, kw_pieces, wrt):
    """A starred call flattened: (positional arguments, keywords, the span of each
    piece, the pieces ``wrt`` names, the flat call's ``wrt``: the callee's own entry
    (None) first if asked for, then the positions and keywords those pieces fill)."""
    flat, kwargs, spans = _flatten(stars, pieces, kw_pieces)
    pieces_wrt = [w for w in wrt if w is not None]
    slots = []
    for w in pieces_wrt:
        for j in spans[w][0]:
            if j not in slots:
                slots.append(j)
    return flat, kwargs, spans, pieces_wrt, ((None,) if None in wrt else ()) + tuple(slots)


def call_forward_star(f, wrt, site, stars, pieces, kw_pieces):
    """:func:`call_forward` for a call with ``*xs`` / ``**kw``: ``wrt`` indexes the
    pieces; the gradient of an unpacked sequence is a sequence of its items' gradients
    (of a dict, a dict)."""
    flat, kwargs, spans, wrt, inner = star_slots(stars, pieces, kw_pieces, wrt)
    own = None in inner
    slots = inner[1:] if own else inner
    value, record = CALLS["forward"](f, inner, site, *flat, **kwargs)
    if isinstance(record, tuple):
        saved, bwd, (lead, picks) = record
        return value, (saved, bwd, (lead, group_picks(picks, slots, wrt, spans)))

    def regrouped(g):
        grads = CALLS["backward"](record, g)
        first, grads = (grads[:1], grads[1:]) if own else ((), grads)
        return first + _regroup(spans, wrt, dict(zip(slots, grads)))
    return value, regrouped


def group_picks(picks, slots, wrt, spans):
    """The picks of a starred call's record, by piece: ``picks`` give the gradients of
    the callee's own object (if asked for) then of the flat arguments ``slots``; a piece
    unpacked (``*xs``, ``**kw``) gets a sequence or dict of its items'."""
    by_slot = dict(zip(slots, picks[len(picks) - len(slots):]))
    grouped = list(picks[:len(picks) - len(slots)])
    for w in wrt:
        js, typ = spans[w]
        if typ is None:
            grouped.append(by_slot[js[0]])
        elif typ is dict:
            grouped.append((tuple((key, by_slot[key]) for key in js), "dict"))
        else:
            grouped.append((tuple(by_slot[j] for j in js), sequence_kind(typ)))
    return tuple(grouped)


def call_jvp_star(f, wrt, site, tangents, stars, pieces, kw_pieces):
    """:func:`call_jvp` for a call with ``*xs`` / ``**kw`` (tangents per piece)."""
    flat, kwargs, spans = _flatten(stars, pieces, kw_pieces)
    by_slot = {}
    for w, t in zip(wrt, tangents):
        if w is None:                   # the callee's own tangent (call_jvp)
            by_slot[None] = t
            continue
        slots, typ = spans[w]
        if typ is None:
            by_slot[slots[0]] = t
        elif typ is dict:
            by_slot.update({k: t[k] for k in slots})
        else:
            by_slot.update(zip(slots, list(t)))
    keys = tuple(by_slot)
    return CALLS["jvp"](f, keys, site, tuple(by_slot[k] for k in keys), *flat, **kwargs)
