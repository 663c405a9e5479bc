"""The docs stay true: the layout map names every module, and every relative link lands.

- docs/architecture.md's "Layout map" has one table row per module of campaign/ and rules/:
  each package (a folder with __init__.py) as `folder/`, each other .py file by its path.
  campaign/migrations/ and campaign/management/ are one row each, their files left out.
- Every relative link of README.md, docs/*.md and rules/README.md points to a file that
  exists and, with a #fragment, to a heading of it, by GitHub's slugs.

Plain files only: no database, no Django.
"""

import re
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAP_DOC = "docs/architecture.md"
MAP_HEADING = "## Layout map"
MAPPED = ("campaign", "rules")
GROUPS = ("campaign/migrations/", "campaign/management/")  # one row for the whole folder

_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_MAP_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|")
_INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def docs() -> list[Path]:
    """The pages whose links are checked."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "rules/README.md"]


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks, with inline code spans blanked."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, _CODE_SPAN.sub("", line)))
    return lines


# --- the layout map ------------------------------------------------------------------------


def modules(root: Path) -> set[str]:
    """Every module the map must name, as paths relative to `root`."""
    found = set()
    for top in MAPPED:
        for path in (root / top).rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(root).as_posix()
            folder = path.parent.relative_to(root).as_posix() + "/"
            if group := next((g for g in GROUPS if folder.startswith(g)), None):
                found.add(group)
            elif path.name == "__init__.py":
                found.add(folder)
            else:
                found.add(rel)
    return found


def map_rows(text: str) -> list[str]:
    """The paths named by the rows of the "Layout map" section, in order."""
    start = text.index(MAP_HEADING)
    end = text.find("\n## ", start + len(MAP_HEADING))
    section = text[start : end if end >= 0 else len(text)]
    return [m.group(1) for line in section.splitlines() if (m := _MAP_ROW.match(line))]


def layout_problems(root: Path, text: str) -> list[str]:
    rows = map_rows(text)
    named, wanted = set(rows), modules(root)
    problems = [
        f"{MAP_DOC}: the layout map has no line for {path}" for path in sorted(wanted - named)
    ]
    for path in sorted(named - wanted):
        why = "which does not exist" if not (root / path).exists() else "which is not a module"
        if any(path.startswith(g) and path != g for g in GROUPS):
            why = "which its folder's group line already covers"
        problems.append(f"{MAP_DOC}: the layout map names {path}, {why}")
    problems += [
        f"{MAP_DOC}: the layout map names {path} twice"
        for path in sorted({p for p in rows if rows.count(p) > 1})
    ]
    return problems


def test_the_layout_map_names_every_module_and_nothing_else():
    text = (ROOT / MAP_DOC).read_text(encoding="utf-8")
    assert layout_problems(ROOT, text) == []


def test_the_map_check_names_what_is_missing_and_what_is_extra(tmp_path):
    for rel in (
        "campaign/__init__.py",
        "campaign/models.py",
        "campaign/present/__init__.py",
        "campaign/present/cards.py",
        "campaign/migrations/__init__.py",
        "campaign/migrations/0001_initial.py",
        "campaign/management/commands/demo.py",
        "rules/__init__.py",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    text = "\n".join(
        [
            "# A",
            MAP_HEADING,
            "| module | what |",
            "| --- | --- |",
            *(f"| `{p}` | x |" for p in ("campaign/", "campaign/models.py", "campaign/cards.py")),
            *(f"| `{p}` | x |" for p in ("campaign/migrations/", "campaign/management/")),
            "| `campaign/management/commands/demo.py` | x |",
            "| `rules/` | x |",
            "| `rules/` | x |",
            "## Next",
            "| `campaign/present/` | after the map: not read |",
        ]
    )
    assert layout_problems(tmp_path, text) == [
        f"{MAP_DOC}: the layout map has no line for campaign/present/",
        f"{MAP_DOC}: the layout map has no line for campaign/present/cards.py",
        f"{MAP_DOC}: the layout map names campaign/cards.py, which does not exist",
        f"{MAP_DOC}: the layout map names campaign/management/commands/demo.py, "
        "which its folder's group line already covers",
        f"{MAP_DOC}: the layout map names rules/ twice",
    ]


# --- links and anchors ---------------------------------------------------------------------


def github_slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lowercase, punctuation dropped, spaces to -."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its words
    text = text.replace("`", "").replace("*", "").lower()
    kept = (
        ch
        for ch in text
        if ch in " -" or unicodedata.category(ch)[0] in "LMN" or unicodedata.category(ch) == "Pc"
    )
    return "".join(kept).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file; repeated slugs get -1, -2… as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if fenced or not (match := _HEADING.match(line)):
            continue
        slug = github_slug(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(path: Path) -> list[tuple[int, str]]:
    """(line, target) of every link in the prose of a Markdown file."""
    found = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        found += [(number, m.group(1)) for m in _INLINE_LINK.finditer(line)]
        if match := _REF_LINK.match(line):
            found.append((number, match.group(1)))
    return found


def link_problems(path: Path, root: Path = ROOT) -> list[str]:
    problems = []
    where = path.relative_to(root).as_posix()
    for number, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
            continue  # https:, mailto:: not ours to check
        if target.startswith("/"):
            problems.append(f"{where}:{number}: {target} is absolute; GitHub cannot follow it")
            continue
        file_part, _, fragment = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            problems.append(f"{where}:{number}: {target} points to a missing file")
        elif fragment and linked.suffix != ".md":
            problems.append(f"{where}:{number}: {target} has an anchor but is not Markdown")
        elif fragment and fragment not in anchors(linked):
            problems.append(f"{where}:{number}: {target} has no heading #{fragment}")
    return problems


def test_every_relative_link_lands_on_a_file_and_heading():
    problems = [problem for page in docs() for problem in link_problems(page)]
    assert problems == []


def test_the_docs_checked_are_there_and_link_each_other():
    names = {page.relative_to(ROOT).as_posix() for page in docs()}
    expected = {
        "README.md",
        "docs/guide.md",
        "docs/guia.md",
        "docs/hosting.md",
        "docs/backup-format.md",
        "docs/architecture.md",
        "docs/benchmarks.md",
        "docs/rules.md",
        "docs/reglas.md",
        "rules/README.md",
    }
    assert expected <= names
    readme = {target.partition("#")[0] for _, target in links(ROOT / "README.md")}
    assert {name for name in expected if name != "README.md"} <= readme


def test_the_docs_stand_alone_in_a_clone():
    # Nothing outside the repository: no rules spec or rulebook that a clone lacks.
    for page in docs():
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\bSPEC\b|SPEC\.md|\.\./shared|/work/", text), page


OUTSIDE = re.compile(r"\bSPEC\b|SPEC\.md|\.\./shared|/work/")


def test_the_code_cites_nothing_a_clone_lacks():
    # Comments and docstrings cite rules/README.md, the contract in the repository.
    here = Path(__file__).resolve()
    found = []
    for folder in (
        "campaign",
        "rules",
        "config",
        "bench",
        "scripts",
        "tests",
        "templates",
        "static",
    ):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".py", ".html", ".js", ".css") or path == here:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if OUTSIDE.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_the_contract_keeps_the_section_numbers_the_code_cites():
    contract = anchors(ROOT / "rules/README.md")
    for number in range(1, 10):
        assert any(anchor.startswith(f"{number}-") for anchor in contract), number
    assert {"7-events-input", "8-state-output"} <= contract


def test_github_slugs():
    assert github_slug("At the table: the DJ's board") == "at-the-table-the-djs-board"
    assert github_slug("R11 · Shock: overflow") == "r11--shock-overflow"
    assert github_slug("7. Events (input)") == "7-events-input"
    assert github_slug("`campaign/`: the Django app") == "campaign-the-django-app"
    assert github_slug("Preparar una campaña") == "preparar-una-campaña"
    assert github_slug("Version 1") == "version-1"


def test_the_link_check_sees_a_broken_link_and_anchor(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## A part\n", encoding="utf-8")
    page.write_text(
        "# Page\n\n[ok](other.md#a-part) [gone](missing.md) [bad](other.md#nope)\n"
        "[self](#page) `[code](ignored.md)`\n\n```\n[fenced](ignored.md)\n```\n"
        "[abs](/reglas/) [web](https://example.org/x.md)\n",
        encoding="utf-8",
    )
    assert link_problems(page, tmp_path) == [
        "page.md:3: missing.md points to a missing file",
        "page.md:3: other.md#nope has no heading #nope",
        "page.md:9: /reglas/ is absolute; GitHub cannot follow it",
    ]
