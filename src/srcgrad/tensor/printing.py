"""``repr(tensor)`` exactly as PyTorch 2.x prints it.

The rules, found by experiment against PyTorch:

* One format for all elements of a tensor, chosen from its finite non-zero values
  (floating dtypes): if they are all integers, ``1.``-style (``{:.0f}`` plus a
  dot) unless the largest is over 1e8 or the ratio largest/smallest over 1000,
  then scientific; otherwise fixed ``{:.4f}``, or scientific (``{:.4e}``) when
  the ratio is over 1000, the largest over 1e8 or the smallest under 1e-4.
* Every element is right-aligned to the widest formatted element.
* Rows wrap so that a line of ``tensor(`` plus elements stays within 80
  columns; nested dimensions are separated by ``,`` and one newline per
  remaining dimension, indented under the opening bracket.
* Over 1000 elements, each dimension shows its first and last 3 entries with
  ``...`` between, and the format is chosen from the shown entries only.
* Suffixes: ``device=``, ``size=`` (empty tensors), ``dtype=`` (unless float32,
  int64 or bool), ``grad_fn=<Name>`` or ``requires_grad=True``; a suffix that
  would pass column 80 goes on a new line.
"""
import math

import numpy as np

from . import dtypes

__all__ = ["set_printoptions", "get_printoptions", "tensor_repr"]


class _Options:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


OPTS = _Options()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """``torch.set_printoptions``: the same options and profiles."""
    if profile is not None:
        profiles = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
                    "full": (4, math.inf, 3, 80)}
        OPTS.precision, OPTS.threshold, OPTS.edgeitems, OPTS.linewidth = profiles[profile]
    if precision is not None:
        OPTS.precision = precision
    if threshold is not None:
        OPTS.threshold = threshold
    if edgeitems is not None:
        OPTS.edgeitems = edgeitems
    if linewidth is not None:
        OPTS.linewidth = linewidth
    OPTS.sci_mode = sci_mode


def get_printoptions():
    return {"precision": OPTS.precision, "threshold": OPTS.threshold,
            "edgeitems": OPTS.edgeitems, "linewidth": OPTS.linewidth, "sci_mode": OPTS.sci_mode}


# -- choosing one format for all elements --------------------------------------------------

class _ElementFormat:
    """Formats one element of a given tensor; ``width`` is the widest formatted element."""

    def __init__(self, values, kind):
        self.kind = kind                      # "f" floating, "c" complex, "b" bool, "i" integer
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if kind == "f":
            self._choose_float(values)
        elif kind == "c":
            self.re = _ElementFormat(values.real, "f")
            self.im = _ElementFormat(values.imag, "f")
        else:
            strs = [self.format(v) for v in values.ravel().tolist()]
            self.width = max((len(s) for s in strs), default=1)

    def _choose_float(self, values):
        flat = values.astype(np.float64).ravel()
        shown = flat[np.isfinite(flat) & (flat != 0)]
        if shown.size == 0:
            return
        mags = np.abs(shown)
        lo, hi = float(mags.min()), float(mags.max())
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        p = OPTS.precision
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        if OPTS.sci_mode is not None:
            self.sci_mode = OPTS.sci_mode
        if self.sci_mode:
            self.width = max(len(f"{v:.{p}e}") for v in shown.tolist())
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}") + 1 for v in shown.tolist())
        else:
            self.width = max(len(f"{v:.{p}f}") for v in shown.tolist())

    def format(self, v):
        if self.kind == "f":
            p = OPTS.precision
            if self.sci_mode:
                s = f"{v:{self.width}.{p}e}"
            elif self.int_mode:
                s = f"{v:.0f}"
                if not (math.isinf(v) or math.isnan(v)):
                    s += "."
            else:
                s = f"{v:.{p}f}"
        elif self.kind == "c":
            re_s = self.re.format(v.real).lstrip()
            im_s = self.im.format(abs(v.imag)).lstrip()
            sign = "-" if v.imag < 0 or (v.imag == 0 and math.copysign(1, v.imag) < 0) else "+"
            s = f"{re_s}{sign}{im_s}j"
        elif self.kind == "b":
            s = "True" if v else "False"
        else:
            s = str(v)
        return " " * (self.width - len(s)) + s

    def element_width(self):
        if self.kind == "c":
            return self.re.width + self.im.width + 2
        return self.width


# -- laying the elements out ---------------------------------------------------------------

def _edge_values(a, summarize):
    """The entries that will be shown: all of them, or each dimension's edges."""
    e = OPTS.edgeitems
    if not summarize or a.ndim == 0:
        return a.ravel()
    if a.ndim == 1:
        if a.shape[0] > 2 * e:
            return np.concatenate([a[:e], a[-e:]])
        return a
    if a.shape[0] > 2 * e:
        rows = [a[i] for i in range(e)] + [a[i] for i in range(a.shape[0] - e, a.shape[0])]
    else:
        rows = list(a)
    return np.concatenate([_edge_values(r, summarize) for r in rows]) if rows else a.ravel()


def _vector(a, indent, summarize, fmt):
    e = OPTS.edgeitems
    per_line = max(1, int(math.floor((OPTS.linewidth - indent) / (fmt.element_width() + 2))))
    values = a.tolist()
    if summarize and len(values) > 2 * e:
        items = [fmt.format(v) for v in values[:e]] + [" ..."] + \
                [fmt.format(v) for v in values[-e:]]
    else:
        items = [fmt.format(v) for v in values]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a, indent, summarize, fmt):
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, fmt)
    e = OPTS.edgeitems
    n = a.shape[0]
    if summarize and n > 2 * e:
        parts = [_nested(a[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."] + \
                [_nested(a[i], indent + 1, summarize, fmt) for i in range(n - e, n)]
    else:
        parts = [_nested(a[i], indent + 1, summarize, fmt) for i in range(n)]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def _kind(a):
    k = a.dtype.kind
    return "i" if k in "iu" else k


def array_str(a, indent):
    """The bracketed body of a tensor's repr (no ``tensor(`` prefix, no suffixes)."""
    summarize = a.size > OPTS.threshold
    fmt = _ElementFormat(_edge_values(a, summarize), _kind(a))
    return _nested(a, indent, summarize, fmt)


def _add_suffixes(text, suffixes, indent):
    out = [text]
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if last + len(s) + 2 > OPTS.linewidth:
            out.append(",\n" + " " * indent + s)
            last = indent + len(s)
        else:
            out.append(", " + s)
            last += len(s) + 2
    out.append(")")
    return "".join(out)


def tensor_repr(t, prefix="tensor("):
    """``repr`` of a Tensor, as PyTorch prints it."""
    a = t._data
    if not isinstance(a, np.ndarray):
        a = a.get()                           # a cupy array: format on the host
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    dt = t.dtype
    default = dt in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool,
                     dtypes.default_complex())
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append(f"size={tuple(a.shape)}")
        if dt is not dtypes.get_default_dtype():
            suffixes.append(f"dtype={dt!r}")
        body = "[]"
    else:
        if not default:
            suffixes.append(f"dtype={dt!r}")
        body = array_str(a, indent)
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name().rsplit('::', 1)[-1]}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    tangent = t.__dict__.get("_fw_grad")
    if tangent is not None:                   # a dual tensor (autograd.forward_ad)
        suffixes.append(f"tangent={tensor_repr(tangent)}")
    return _add_suffixes(prefix + body, suffixes, indent)
