"""User-facing text stands on its own and is true: nothing points outside the repository,
links resolve, every code block of the README and docs/ runs and prints what is pasted
under it, the rule table page is current, and the internals page lists the passes the
pipeline really runs."""
import pathlib
import re
import sys

import pytest

import srcgrad as sg
from srcgrad.compiler import pipeline

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import doc_blocks  # noqa: E402
import rule_table  # noqa: E402

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "examples").rglob("*.md"))]
TEXTS = [*PAGES, *sorted((ROOT / "src" / "srcgrad").rglob("*.py")),
         *sorted((ROOT / "examples").glob("*.py")),
         *sorted((ROOT / "tools").glob("*.py")), ROOT / "tools" / "demo",
         ROOT / "tools" / "test", ROOT / "setup.cfg"]
# a team's planning notes, a shared folder, the machine's own paths
OUTSIDE = re.compile(r"DESIGN\.md|STYLE\.md|\.\./shared|shared folder|/work/|/shared/|"
                     r"seed documents?|the seed's|in the seed\b")


def test_no_reference_outside_the_repository():
    bad = []
    for path in TEXTS:
        for no, line in enumerate(path.read_text().splitlines(), 1):
            if OUTSIDE.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_links_between_pages_resolve():
    bad = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if re.match(r"[a-z]+://", target):
                continue
            if not (page.parent / target).exists():
                bad.append(f"{page.relative_to(ROOT)}: {target}")
    assert not bad, bad


def test_docs_table_of_contents_lists_every_page():
    index = (ROOT / "docs" / "index.md").read_text()
    readme = (ROOT / "README.md").read_text()
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name != "index.md":
            assert f"]({page.name})" in index, page.name
            assert f"](docs/{page.name})" in readme, page.name


PUBLIC = ["grad", "value_and_grad", "vjp", "make_vjp", "jvp", "jacobian", "hessian", "hvp",
          "gradcheck", "source", "compile", "adjoint", "tangent", "detach"]


def test_every_public_transformation_is_documented():
    readme = (ROOT / "README.md").read_text()
    api = (ROOT / "docs" / "api.md").read_text()
    for name in PUBLIC:
        assert callable(getattr(sg, name)), name
        assert f"sg.{name}(" in readme, f"README: sg.{name}"
        assert f"sg.{name}(" in api, f"docs/api.md: sg.{name}"
    assert "has_aux" in readme and "has_aux" in api


@pytest.mark.parametrize("page", doc_blocks.PAGES)
def test_code_blocks_run_and_print_what_is_pasted(page):
    problems = doc_blocks.check_page(page)
    assert not problems, "\n".join(problems) + \
        "\n(after a deliberate change: python tools/doc_blocks.py --update " + page + ")"


def test_doc_block_checker_catches_a_wrong_output(tmp_path, monkeypatch):
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    page.write_text("```python\nprint(1 + 1)\n```\n\n<!-- output -->\n```python\n3\n```\n")
    monkeypatch.setattr(doc_blocks, "ROOT", str(tmp_path))
    problems = doc_blocks.check_page("docs/page.md")
    assert len(problems) == 1 and "differs" in problems[0] and "2" in problems[0]


def test_rules_page_and_readme_count_are_current():
    text = (ROOT / "docs" / "rules.md").read_text()
    assert text == rule_table.render(), \
        "docs/rules.md is not current: run python tools/rule_table.py"
    count = len(rule_table.public_rules())
    assert f"**{count} functions**" in text
    readme = (ROOT / "README.md").read_text()
    assert rule_table.readme_with_count(readme, count) == readme, \
        "the README's rule count is not current: run python tools/rule_table.py"
    # every rule of the table has its row
    for r in rule_table.public_rules():
        assert f"| `{r.name}` |" in text, r.name


def test_internals_page_lists_the_passes_in_order():
    text = (ROOT / "docs" / "internals.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| `compiler/", text, re.M)
    assert rows == list(pipeline.PASSES)
