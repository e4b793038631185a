"""Run the code blocks of README.md and docs/*.md, and check the output pasted under them.

    python tools/doc_blocks.py              # run every page, report mismatches
    python tools/doc_blocks.py --update     # rewrite the pasted outputs from a fresh run
    python tools/doc_blocks.py docs/api.md  # one page

In a page, every ```` ```python ```` block runs, in order, in one namespace, from one
file named after the page (``getting-started.md`` -> ``getting_started.py``: srcgrad
reads functions' source from files) that holds the page's runnable blocks one after
the other, so line numbers count lines of the page's code; it runs in a fresh
temporary folder with the repository's ``src`` first on the path.  Two markers, an
HTML comment on the line before a block, change that:

* ``<!-- output -->``: the block is what the block before it prints; it is not run,
  it is compared with that output (``--update`` rewrites it);
* ``<!-- not run -->``: the block is shown only (a sketch, a shell session).

``bash`` and ``text`` blocks are never run.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md"] + sorted(os.path.join("docs", p) for p in os.listdir(
    os.path.join(ROOT, "docs")) if p.endswith(".md"))
_BLOCK = re.compile(r"(?:^<!-- (output|not run) -->\n)?^```(\w*)\n(.*?)^```$", re.M | re.S)
_MARK = "#@@srcgrad-doc-block {}@@"


class Block:
    def __init__(self, m):
        self.marker, self.lang, self.code = m.group(1), m.group(2), m.group(3)
        self.start, self.end = m.start(3), m.end(3)   # the code's span in the page

    @property
    def runs(self):
        return self.lang == "python" and self.marker is None


def blocks(text):
    return [Block(m) for m in _BLOCK.finditer(text)]


def script_name(page):
    if os.path.basename(page) == "README.md":
        return "example.py"        # (the quick start names its file)
    return re.sub(r"\W", "_", os.path.splitext(os.path.basename(page))[0]).lower() + ".py"


_RUNNER = """
import sys
path, spans = sys.argv[1], eval(sys.argv[2])
text = open(path).read()
ns = {"__name__": "__main__", "__file__": path}
for index, first, count in spans:
    print(MARK.format(index), flush=True)
    code = "\\n" * first + "".join(text.splitlines(True)[first:first + count])
    exec(compile(code, path, "exec"), ns)
"""


def run_page(page, timeout=300):
    """(returncode, {block index: its printed output}, stderr) for one page.

    The runnable blocks are written one after the other to one file (so that the line
    numbers srcgrad reports are those of the page's code read in order), then run block
    by block in one namespace, a marker printed before each."""
    text = open(os.path.join(ROOT, page)).read()
    bs = blocks(text)
    code, spans, line = [], [], 0
    for i, b in enumerate(bs):
        if b.runs:
            count = b.code.count("\n")
            code.append(b.code)
            spans.append((i, line, count))
            line += count
    if not spans:
        return 0, {}, ""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, script_name(page))
        with open(path, "w") as f:
            f.write("".join(code))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.path.join(ROOT, "src") + os.pathsep + env.get("PYTHONPATH", "")
        env.pop("SRCGRAD_PRINT_AFTER", None)
        env.pop("SRCGRAD_DEBUG_DIR", None)
        runner = _RUNNER.replace("MARK", repr(_MARK))
        r = subprocess.run([sys.executable, "-c", runner, path, repr(spans)], cwd=tmp,
                           capture_output=True, text=True, env=env, timeout=timeout)
    outputs, current = {}, None
    for out_line in r.stdout.splitlines(True):
        m = re.fullmatch(r"#@@srcgrad-doc-block (\d+)@@\n?", out_line)
        if m:
            current = int(m.group(1))
            outputs[current] = ""
        elif current is not None:
            outputs[current] += out_line
    return r.returncode, outputs, r.stderr


def check_page(page, update=False):
    """The mismatches of one page (a list of messages); rewrites them with ``update``."""
    text = open(os.path.join(ROOT, page)).read()
    bs = blocks(text)
    rc, outputs, err = run_page(page)
    if rc != 0:
        return [f"{page}: its code blocks fail:\n{err[-3000:]}"]
    problems, edits = [], []
    for i, b in enumerate(bs):
        if b.marker != "output":
            continue
        src = next((j for j in range(i - 1, -1, -1) if bs[j].runs), None)
        got = outputs.get(src, "") if src is not None else ""
        if got.rstrip() != b.code.rstrip():
            line = text[:b.start].count("\n") + 1
            problems.append(f"{page}:{line}: the pasted output differs from what the block "
                            f"above prints now:\n{got}")
            edits.append((b.start, b.end, got.rstrip() + "\n"))
    if update and edits:
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        with open(os.path.join(ROOT, page), "w") as f:
            f.write(text)
    return problems


def main(argv):
    update = "--update" in argv
    pages = [a for a in argv if not a.startswith("--")] or PAGES
    problems = []
    for page in pages:
        problems += check_page(page, update)
    for p in problems:
        print(p, file=sys.stderr)
    if update:
        print(f"updated {len(problems)} output block(s)")
        return 0
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
