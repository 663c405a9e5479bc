"""rules/ is pure Python: it must not import Django or the app."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "rules"
FORBIDDEN = ("django", "campaign", "config")


def test_no_module_of_rules_imports_django_or_the_app():
    offenders = []
    for path in sorted(RULES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []


def test_importing_rules_loads_no_django_module():
    code = (
        "import sys, rules, rules.texts, rules.__main__\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'campaign'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=RULES.parent, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
