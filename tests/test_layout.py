"""The code's shape stays readable: no module past 600 lines (then it is two things)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MOST = 600


def long_modules(root: Path) -> list[str]:
    """Every module of campaign/ and rules/ (migrations aside) and script of static/js/ that
    is longer than MOST lines, with its length."""
    paths = [*(root / "campaign").rglob("*.py"), *(root / "rules").rglob("*.py")]
    paths += (root / "static" / "js").rglob("*.js")
    found = []
    for path in sorted(paths):
        if "migrations" in path.parts:
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MOST:
            found.append(f"{path.relative_to(root)}: {lines} lines")
    return found


def test_no_module_is_over_600_lines():
    assert long_modules(ROOT) == []


def test_the_check_sees_a_long_module(tmp_path):
    (tmp_path / "campaign").mkdir()
    (tmp_path / "campaign" / "big.py").write_text("x = 1\n" * (MOST + 1))
    (tmp_path / "campaign" / "migrations").mkdir()
    (tmp_path / "campaign" / "migrations" / "0001.py").write_text("x = 1\n" * (MOST + 1))
    assert long_modules(tmp_path) == [f"campaign/big.py: {MOST + 1} lines"]
