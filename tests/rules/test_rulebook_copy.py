"""No product text copies six words in a row from the rulebook chapter.

The chapter itself is not in the repository: tests/rules/rulebook.fingerprint holds the
hashes of its six-word runs (made by scripts/rulebook_fingerprint.py), and every text a
user can read is checked against them.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from rules.texts import CHECKS, GRADE_LABELS, LANGS, SPECIALS, TYPE_LABELS, VARIANT_LABELS
from rules.trail import chain
from scripts.rulebook_fingerprint import (
    DEFAULT_OUT,
    HASH_LINE,
    copied_runs,
    read_fingerprint,
    run_hash,
)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "rulebook_fingerprint.py"
FINGERPRINT = ROOT / "tests" / "rules" / "rulebook.fingerprint"


def _literals(path: Path) -> list[str]:
    # Every string literal (docstrings and f-string pieces too), so no text can slip past by
    # living outside the public tables. Each is checked alone: dict keys listed one after
    # another are not a sentence.
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def _msgstrs(path: Path) -> list[str]:
    """The translated texts of a .po file, each msgstr with its continuation lines."""
    texts: list[str] = []
    inside = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("msgstr"):
            inside = True
            texts.append("")
            line = line.split(" ", 1)[1] if " " in line else ""
        elif not line.startswith('"'):
            inside = False
        if inside and line.startswith('"'):
            texts[-1] += ast.literal_eval(line)
    return [text for text in texts if text]


def _audit_effects() -> list[dict]:
    """One effect of every change describe() renders, over every label it can show."""
    effects: list[dict] = []
    for type_ in TYPE_LABELS:
        for grade in GRADE_LABELS:
            for change in ("suffer", "mark", "unmark", "duration"):
                effects.append({"change": change, "type": type_, "grade": grade, "minutes": 90})
    for variant in VARIANT_LABELS:
        effects.append(
            {"change": "variant", "type": "emocion", "grade": "leve", "variant": variant}
        )
        effects.append({"change": "mark", "type": "emocion", "grade": "grave", "variant": variant})
    for name in SPECIALS:
        effects += [{"change": "special_on", "name": name}, {"change": "special_off", "name": name}]
        effects.append({"change": "affliction", "source": name})
    for check in CHECKS:
        for change in ("raised", "passed", "failed", "dismissed", "dropped"):
            effects.append({"change": f"check_{change}", "check": check})
    for change in ("descanso", "descanso_spent", "nothing", "surgery", "asleep", "awake"):
        effects.append({"change": change})
    effects += [
        {"change": "asleep", "hours": 8},
        {"change": "awake", "forced": True},
        {"change": "scores", "scores": {"FUE": 3, "VOL": 4}},
    ]
    return [{"rule": f"R{n % 27 + 1}", **effect} for n, effect in enumerate(effects)]


def _product_texts() -> list[tuple[str, str]]:
    """(where, text) for every text the product shows or ships."""
    sources = [
        (module, literal)
        for module in ("rules/texts.py", "rules/errors.py", "campaign/catalogue.py")
        for literal in _literals(ROOT / module)
    ]
    # Rendered audit lines join labels and phrases, so check what a reader actually sees too.
    sources += [(f"audit lines ({lang})", chain(_audit_effects(), lang)) for lang in LANGS]
    # The pages the app serves (/reglas/, /guia/) and the engine's contract.
    for doc in (
        "docs/reglas.md",
        "docs/rules.md",
        "docs/guia.md",
        "docs/guide.md",
        "rules/README.md",
    ):
        sources.append((doc, (ROOT / doc).read_text(encoding="utf-8")))
    for template in sorted((ROOT / "templates").rglob("*.html")):
        sources.append((str(template.relative_to(ROOT)), template.read_text(encoding="utf-8")))
    for po in sorted((ROOT / "locale").glob("*/LC_MESSAGES/django.po")):
        sources += [(f"{po.relative_to(ROOT)} (msgstr)", text) for text in _msgstrs(po)]
    return sources


def _copies(texts: list[tuple[str, str]], hashes: set[str]) -> dict[str, list[str]]:
    """Copied runs by file, for the files that have any."""
    found: dict[str, list[str]] = {}
    for where, text in texts:
        if runs := copied_runs(text, hashes):
            found.setdefault(where, []).extend(runs)
    return found


def test_the_fingerprint_file_is_there_and_well_formed():
    lines = FINGERPRINT.read_text(encoding="utf-8").splitlines()
    header = [line for line in lines if line.startswith("#")]
    hashes = [line for line in lines if not line.startswith("#")]
    assert header and lines[: len(header)] == header, "the # header comes first"
    assert len(hashes) > 1000, "a chapter of a few pages gives thousands of runs"
    assert all(HASH_LINE.fullmatch(line) for line in hashes), "one 16-hex-digit hash a line"
    assert hashes == sorted(set(hashes)), "sorted and unique"
    assert DEFAULT_OUT == FINGERPRINT


def test_no_text_copies_six_words_from_the_rulebook():
    texts = _product_texts()
    where = {name for name, _ in texts}
    assert {"rules/texts.py", "docs/reglas.md", "docs/rules.md", "templates/base.html"} <= where
    assert {"docs/guia.md", "docs/guide.md", "rules/README.md"} <= where
    assert sum(name.endswith("(msgstr)") for name, _ in texts) > 50
    copies = _copies(texts, read_fingerprint(FINGERPRINT))
    assert not copies, f"copied from the rulebook (file: runs): {copies}"


def test_a_copied_enumeration_of_game_terms_is_flagged():
    phrase = "Los 5 tipos: Heridas, Fatiga, Shock, Emoción y Afección."
    copies = _copies([("a new card", phrase)], read_fingerprint(FINGERPRINT))
    assert copies == {
        "a new card": [
            "5 tipos heridas fatiga shock emocion",
            "tipos heridas fatiga shock emocion y",
            "heridas fatiga shock emocion y afeccion",
        ]
    }


def test_the_script_fingerprints_a_chapter_and_six_copied_words_are_flagged(tmp_path):
    chapter = tmp_path / "chapter.txt"
    chapter.write_text(
        "El dragón de jade duerme bajo la montaña.\nNadie sabe cuándo despertará.\n",
        encoding="utf-8",
    )
    out = tmp_path / "chapter.fingerprint"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(chapter), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    hashes = read_fingerprint(out)
    assert run_hash("el dragon de jade duerme bajo") in hashes
    assert "dragon" not in out.read_text(encoding="utf-8")  # hashes only, never the words

    six = "Dicen que el DRAGÓN de jade, duerme bajo tierra."
    five = "Dicen que el dragón de jade duerme en la costa."
    copies = _copies([("six", six), ("five", five)], hashes)
    assert copies == {"six": ["el dragon de jade duerme bajo"]}


def test_the_script_refuses_a_missing_chapter(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "nope.txt"), "-o", str(tmp_path / "x")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0 and "cannot read" in done.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("line", ["# header", "", "0123456789abcdef"])
def test_reading_a_fingerprint_skips_header_and_blank_lines(tmp_path, line):
    path = tmp_path / "f"
    path.write_text(f"# title\n{line}\nfedcba9876543210\n", encoding="utf-8")
    assert read_fingerprint(path) - {"0123456789abcdef"} == {"fedcba9876543210"}


def test_the_po_reader_takes_translations_not_msgids(tmp_path):
    po = tmp_path / "django.po"
    po.write_text(
        'msgid "Log out"\nmsgstr "Salir"\n\nmsgid ""\n"Long one"\nmsgstr ""\n"Una larga "\n'
        '"de verdad"\n',
        encoding="utf-8",
    )
    assert _msgstrs(po) == ["Salir", "Una larga de verdad"]
