"""User-facing text stands on its own: nothing points outside the repository, and the
internals page lists the passes the pipeline really runs."""
import pathlib
import re

from srcgrad.compiler import pipeline

ROOT = pathlib.Path(__file__).resolve().parent.parent
TEXTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "src" / "srcgrad").rglob("*.py"))]


def test_no_reference_outside_the_repository():
    bad = []
    for path in TEXTS:
        for no, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"DESIGN\.md|\.\./shared|shared folder", line):
                bad.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_internals_page_lists_the_passes_in_order():
    text = (ROOT / "docs" / "internals.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| `compiler/", text, re.M)
    assert rows == list(pipeline.PASSES)
