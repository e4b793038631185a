"""``python -m srcgrad show ... --html PAGE.html``: a function and its derivative side by
side, in one self-contained HTML page (no scripts or styles from anywhere else).

The user's function is on the left, one row per source line (``id="src-N"``, N the
line in the user's file); the generated code is on the right, and each line that comes
from a source line links to it (``href="#src-N"``, ``data-src="N"``).  Hovering a line
on either side highlights the other side's lines of the same source line.
"""
import html
import inspect
import re

from ..compiler.sourcemap import origins

_COMMENT = re.compile(r"^\s*# line (\d+):")

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.2em; } .note { color: #555; font-size: 0.9em; }
.panes { display: grid; grid-template-columns: 1fr 1fr; gap: 1.5em; align-items: start; }
.pane h2 { font-size: 1em; margin: 0 0 .4em 0; }
pre { margin: 0; background: #f7f7f7; border: 1px solid #ddd; padding: .5em 0;
      overflow-x: auto; font-size: 13px; line-height: 1.45; }
.line { display: block; padding: 0 .6em; white-space: pre; color: inherit;
        text-decoration: none; border-left: 3px solid transparent; }
.line .no { display: inline-block; width: 3.2em; color: #999; user-select: none; }
a.line:hover, .line.hot { background: #fff3b0; } .line.picked { background: #ffe08a; }
.sweep-adjoint { border-left: 3px solid #c77; } .sweep-forward { border-left: 3px solid #7a7; }
.sweep-tangent { border-left: 3px solid #77c; }
.comment { color: #777; }
"""

_SCRIPT = """
function mark(n, on) {
  document.querySelectorAll('[data-src="' + n + '"]').forEach(function (e) {
    e.classList.toggle('hot', on); });
}
document.querySelectorAll('[data-src]').forEach(function (e) {
  e.addEventListener('mouseenter', function () { mark(e.dataset.src, true); });
  e.addEventListener('mouseleave', function () { mark(e.dataset.src, false); });
});
// a link to #src-N (clicking a generated line) highlights everything from line N
function fromHash() {
  document.querySelectorAll('.picked').forEach(function (e) {
    e.classList.remove('picked'); });
  var m = /^#src-(\d+)$/.exec(location.hash);
  if (m) document.querySelectorAll('[data-src="' + m[1] + '"]').forEach(function (e) {
    e.classList.add('picked'); });
}
window.addEventListener('hashchange', fromHash);
fromHash();
"""


def side_by_side(func, fns, mode):
    """The page for user function ``func`` and its generated functions ``fns``."""
    src_lines, first = inspect.getsourcelines(func)
    filename = inspect.getsourcefile(func) or "<unknown>"
    left = []
    for i, text in enumerate(src_lines):
        n = first + i
        left.append(f'<span class="line" id="src-{n}" data-src="{n}">'
                    f'<span class="no">{n}</span>{html.escape(text.rstrip())}</span>')
    right = []
    for fn in fns:
        where = origins(fn)
        for i, text in enumerate(fn.source.rstrip("\n").split("\n"), 1):
            m = _COMMENT.match(text)
            comment_sweep = "tangent" if mode == "forward" else "adjoint"
            line, sweep = where.get(i, (int(m.group(1)), comment_sweep) if m else (None, None))
            shown = f'<span class="no">{i}</span>{html.escape(text)}'
            cls = "line comment" if text.strip().startswith("#") else "line"
            if line is not None and first <= line < first + len(src_lines):
                right.append(f'<a class="{cls} sweep-{sweep}" href="#src-{line}" '
                             f'data-src="{line}" title="{html.escape(filename)}:{line}">'
                             f'{shown}</a>')
            else:
                right.append(f'<span class="{cls}">{shown}</span>')
        right.append('<span class="line"> </span>')
    title = f"{func.__qualname__}: {'gradient' if mode == 'reverse' else mode + ' form'}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>srcgrad: {html.escape(title)}</title>
<style>{_STYLE}</style></head>
<body>
<h1>srcgrad: {html.escape(title)}</h1>
<p class="note">{html.escape(filename)}. Each generated line links to the source line it
comes from (green: forward sweep, red: adjoint, blue: tangent code); hover to see them
together.</p>
<div class="panes">
<div class="pane"><h2>{html.escape(func.__qualname__)}</h2>
<pre id="source">{''.join(left)}</pre></div>
<div class="pane"><h2>generated</h2><pre id="generated">{''.join(right)}</pre></div>
</div>
<script>{_SCRIPT}</script>
</body></html>
"""
