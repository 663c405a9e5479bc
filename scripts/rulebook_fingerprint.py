"""Fingerprint a rulebook chapter so tests can spot copied text without the chapter itself.

Usage:

    python scripts/rulebook_fingerprint.py CHAPTER_FILE [-o OUT]

The chapter is normalized (NFKD, combining marks dropped, lower case, words are runs of
[a-z0-9]); every run of six consecutive words is hashed (sha256 of the words joined by one
space, first 16 hex digits), and the sorted unique hashes are written one per line after a
short `#` header, to tests/rules/rulebook.fingerprint unless -o says otherwise. Only the
hashes are committed, never the chapter: tests/rules/test_rulebook_copy.py checks every
product text against them with the functions below (stdlib only).
"""

import argparse
import hashlib
import re
import sys
import unicodedata
from collections.abc import Iterable
from pathlib import Path

RUN_SIZE = 6
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests" / "rules" / "rulebook.fingerprint"
HASH_LINE = re.compile(r"[0-9a-f]{16}")


def words(text: str) -> list[str]:
    """Lower-case, accent-free words, so punctuation and dashes cannot hide a copied run."""
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch)).lower()
    return re.findall(r"[a-z0-9]+", plain)


def runs(text: str, size: int = RUN_SIZE) -> list[str]:
    """Every run of `size` consecutive words of text, each joined by one space."""
    found = words(text)
    return [" ".join(found[i : i + size]) for i in range(len(found) - size + 1)]


def run_hash(run: str) -> str:
    """The fingerprint of one run: the first 16 hex digits of its sha256."""
    return hashlib.sha256(run.encode("utf-8")).hexdigest()[:16]


def fingerprint(text: str) -> list[str]:
    """The sorted unique hashes of every six-word run of text."""
    return sorted({run_hash(run) for run in runs(text)})


def read_fingerprint(path: Path) -> set[str]:
    """The hashes of a fingerprint file (header and blank lines skipped)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def copied_runs(text: str, hashes: Iterable[str]) -> list[str]:
    """The six-word runs of text whose hash is in the fingerprint, in order, each once."""
    known = set(hashes)
    return list(dict.fromkeys(run for run in runs(text) if run_hash(run) in known))


def render(hashes: list[str]) -> str:
    """The fingerprint file: a comment header, then one hash per line."""
    header = [
        "# Rulebook fingerprint: the source chapter's six-word runs, hashed; not its text.",
        "# Made by scripts/rulebook_fingerprint.py (normalized words, sha256, 16 hex digits).",
        f"# {len(hashes)} runs.",
    ]
    return "\n".join(header + hashes) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapter", type=Path, help="the chapter as a UTF-8 text file")
    parser.add_argument(
        "-o",
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help="where to write (default: tests/rules/rulebook.fingerprint)",
    )
    args = parser.parse_args(argv)
    try:
        text = args.chapter.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        parser.exit(1, f"cannot read {args.chapter}: {err}\n")
    hashes = fingerprint(text)
    if not hashes:
        parser.exit(1, f"{args.chapter} has fewer than {RUN_SIZE} words\n")
    args.out.write_text(render(hashes), encoding="utf-8")
    print(f"{len(hashes)} runs written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
