"""Write docs/rules.md, the coverage table, from srcgrad's rule table.

    python tools/rule_table.py            # rewrite docs/rules.md and the README's count
    python tools/rule_table.py --check    # exit 1 if docs/rules.md is not current

For every public function with a rule: which parameters have a reverse-mode
(vjp) and a forward-mode (jvp) template, whether its derivative can be
differentiated again (every call in its templates is itself differentiable: a
rule, a function with no gradient, or a kernel srcgrad transforms from source),
and its facets.  Functions whose result carries no gradient are listed after.
The rules are read from the registry, never listed here by hand.
"""
import ast
import builtins
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))

from srcgrad import rules  # noqa: E402
from srcgrad.rules import namespace as ad_namespace  # noqa: E402

OUT = os.path.join(ROOT, "docs", "rules.md")
README = os.path.join(ROOT, "README.md")
# the README names the count, in these words: "(433 functions; the count there is ..."
README_COUNT = re.compile(r"\((\d+) functions; the count there is generated")

FAMILIES = [   # (title, predicate on the display name), first match wins
    ("NumPy: `numpy.linalg`", lambda n: n.startswith("np.linalg.")),
    ("NumPy: `numpy.fft`", lambda n: n.startswith("np.fft.")),
    ("NumPy: array methods and attributes", lambda n: n.startswith("np.ndarray.")),
    ("NumPy", lambda n: n.startswith("np.")),
    ("SciPy: `scipy.special`", lambda n: n.startswith("scipy.special.")),
    ("SciPy: `scipy.stats`", lambda n: n.startswith("scipy.stats.")),
    ("SciPy: `scipy.linalg`", lambda n: n.startswith("scipy.linalg.")),
    ("SciPy: `scipy.signal`", lambda n: n.startswith("scipy.signal.")),
    ("SciPy: `scipy.integrate`", lambda n: n.startswith("scipy.integrate.")),
    ("SciPy: other", lambda n: n.startswith("scipy.")),
    ("Python: `math`", lambda n: n.startswith("math.")),
    ("Python: operators", lambda n: n.startswith("operator.")),
    ("Python: builtins and containers", lambda n: True),
]


def _public(rule):
    return not rule.user and not rule.name.startswith(("ad.", "_"))


def _callees(expr):
    """The callables a template expression calls, as (spelling, object or None)."""
    glob = rules.template_globals()
    ad = ad_namespace()
    out = []
    for node in ast.walk(ast.parse(expr, mode="eval")):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        spelled = ast.unparse(f)
        obj = None
        try:
            if isinstance(f, ast.Name):
                obj = glob.get(f.id, getattr(ad, f.id, getattr(builtins, f.id, None)))
            elif isinstance(f, ast.Attribute):
                obj = eval(compile(ast.Expression(f), "<template>", "eval"), dict(glob))
        except Exception:       # noqa: BLE001  (a method call on a value: x.conj())
            obj = None
        out.append((spelled, obj))
    return out


def _differentiable(obj, spelled):
    if obj is None:
        # a method called on a value: differentiable when it has a method rule
        return spelled.rsplit(".", 1)[-1] in rules.METHODS
    if isinstance(obj, type):
        return True          # a constructor of constants (float, tuple)
    return (rules.lookup(obj) is not None or rules.is_nograd(obj) or
            getattr(obj, "__srcgrad_transformable__", False))


def higher_order(rule):
    """Whether every call in the rule's templates is differentiable again."""
    for expr in list(rule.vjp.values()) + list(rule.jvp.values()):
        for spelled, obj in _callees(expr):
            if not _differentiable(obj, spelled):
                return False
    return True


FACET_WORDS = [("elementwise", "elementwise"), ("linear_in", "linear"),
               ("bilinear_in", "bilinear"), ("view_of", "view"), ("reduction", "reduction"),
               ("in_place", "in place"), ("sequence", "takes a sequence")]


def _facets(rule):
    f = rule.facets
    return ", ".join(word for attr, word in FACET_WORDS if getattr(f, attr, None))


def _params(names):
    return ", ".join(f"`{p}`" for p in names) if names else "—"


def public_rules():
    return sorted((r for r in rules.all_rules() if _public(r)), key=lambda r: r.name)


def readme_with_count(text, count):
    """The README's text with the rule count it names set to ``count``."""
    return README_COUNT.sub(f"({count} functions; the count there is generated", text)


def render():
    public = public_rules()
    by_family = {title: [] for title, _ in FAMILIES}
    for r in public:
        title = next(t for t, pred in FAMILIES if pred(r.name))
        by_family[title].append(r)
    both = sum(1 for r in public if r.vjp and r.jvp)
    again = sum(1 for r in public if higher_order(r))
    nograd = [n for n in rules.all_nograd() if not n.startswith(("ad.", "_"))]
    lines = [
        "# Derivative rules",
        "",
        "<!-- generated by tools/rule_table.py from the rule table; do not edit by hand -->",
        "",
        f"srcgrad has derivative rules for **{len(public)} functions** "
        f"({both} with both reverse- and forward-mode templates, {again} whose derivative "
        f"is differentiable again), and knows {len(nograd)} functions whose result "
        f"carries no gradient. Any Python function you write is differentiated from its "
        f"source and needs no rule; a call to a library function that is in neither list "
        f"raises `sg.NonDifferentiableError` naming it.",
        "",
        "Columns: the parameters with a **reverse**-mode (vjp) template and with a "
        "**forward**-mode (jvp) template; **higher order** is ✓ when every call in those "
        "templates is itself differentiable, so `sg.grad(sg.grad(f))`, `sg.hessian` and "
        "`sg.hvp` go through it (kinks such as `np.abs` at 0 are still kinks); **facets** "
        "are the facts the compiler uses (see internals.md).",
        "",
        "SciPy's rows are present when SciPy is installed (`pip install srcgrad[scipy]`).",
        "",
        "Regenerate with `python tools/rule_table.py`.",
        "",
    ]
    for title, rows in by_family.items():
        if not rows:
            continue
        lines += [f"## {title} ({len(rows)})", "",
                  "| function | reverse | forward | higher order | facets |",
                  "|---|---|---|---|---|"]
        for r in rows:
            lines.append(f"| `{r.name}` | {_params([p for p in r.diff_params if p in r.vjp])} "
                         f"| {_params([p for p in r.diff_params if p in r.jvp])} "
                         f"| {'✓' if higher_order(r) else '—'} | {_facets(r)} |")
        lines.append("")
    lines += ["## No gradient", "",
              "Calls whose result carries no gradient (comparisons, integer and shape "
              "functions, random numbers...): differentiating through them gives zero, "
              "which is right for them.", "",
              ", ".join(f"`{n}`" for n in nograd), ""]
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    text = render()
    readme = open(README).read()
    new_readme = readme_with_count(readme, len(public_rules()))
    if "--check" in argv:
        current = open(OUT).read() if os.path.exists(OUT) else ""
        if current != text or new_readme != readme:
            print("docs/rules.md or the README's rule count is not current: run "
                  "python tools/rule_table.py", file=sys.stderr)
            return 1
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    if new_readme != readme:
        with open(README, "w") as f:
            f.write(new_readme)
    print(f"wrote {os.path.relpath(OUT, ROOT)} ({len(public_rules())} functions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
