"""Every page a DJ, a player and a visitor reach is valid HTML.

html-validate (pinned in package.json, installed by `make test`) checks the pages that
tests/pages.py finds by following links, with its recommended rules. What is waived or
tuned is named here with why; anything else it reports fails the test.
"""

import json
import subprocess
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model

from tests import pages

HTML_VALIDATE = Path(settings.BASE_DIR) / "node_modules" / ".bin" / "html-validate"

# Rules off, each with why.
WAIVED = {
    "no-trailing-whitespace": "the templates' indentation left around their tags; no "
    "browser, reader or parser sees it",
    "doctype-style": "a style preference (upper-case DOCTYPE); the HTML standard writes "
    "`<!DOCTYPE html>` in any case",
}
# Rules kept, with options that say what the app means.
TUNED = {
    # ARIA lets any element whose role takes a name carry aria-label: the board names its
    # lists ("Estados Alterados", "Orden de turnos"). Elements whose role takes no name
    # (p, span, div) are still refused.
    "aria-label-misuse": ["error", {"allowAnyNamable": True}],
    # A group of checkboxes shares a name, as radios do ("watch": who stands guard).
    "form-dup-name": ["error", {"shared": ["radio", "checkbox", "button", "reset", "submit"]}],
}
# Single findings that are what the app means: (route, rule, words of the message, why).
EXCEPTIONS = [
    (
        "fight_setup",
        "form-dup-name",
        "Duplicate form control name",
        "each line of the order sends its slot, name and initiative under the same three "
        "names, read back as lists in order",
    ),
    (
        "ask",
        "form-dup-name",
        'Duplicate form control name "descanso"',
        "a hidden 0 before the Descanso checkbox says 'no' when it is unticked (the field's "
        "default is yes); html-validate accepts that pattern only while checkboxes may not "
        "share a name, which the watch list needs",
    ),
]


def excepted(route: str, message: dict) -> bool:
    return any(
        route == where and message["ruleId"] == rule and words in message["message"]
        for where, rule, words, _why in EXCEPTIONS
    )


def validate(documents: dict[str, str], tmp_path: Path) -> list[dict]:
    """html-validate's messages for each document, as (file name, message) pairs."""
    config = {
        "extends": ["html-validate:recommended"],
        "rules": {rule: "off" for rule in WAIVED} | TUNED,
    }
    (tmp_path / ".htmlvalidate.json").write_text(json.dumps(config))
    for name, html in documents.items():
        (tmp_path / name).write_text(html)
    report = tmp_path / "report.json"  # a file: node may cut a long piped stdout short
    run = subprocess.run(
        [str(HTML_VALIDATE), "--config", str(tmp_path / ".htmlvalidate.json")]
        + ["--formatter", f"json={report}"]
        + [str(tmp_path / name) for name in documents],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode in (0, 1), run.stderr  # 1: it found errors (listed below)
    return [
        {"file": Path(result["filePath"]).name, **message}
        for result in json.loads(report.read_text() or "[]")
        for message in result["messages"]
    ]


def test_every_page_each_visitor_reaches_is_valid_html(db, tmp_path):
    staged = pages.stage()
    every_page = [
        page
        for visitor in pages.visitors(staged)
        for page in pages.crawl(visitor, get_user_model())
    ]
    for visitor, expected in pages.EXPECTED.items():
        reached = pages.routes(p for p in every_page if p.visitor == visitor)
        assert expected <= reached, f"{visitor} no longer reaches {expected - reached}"

    documents = {f"{i:03d}-{p.visitor}-{p.route}.html": p for i, p in enumerate(every_page)}
    messages = [
        m
        for m in validate({name: p.html for name, p in documents.items()}, tmp_path)
        if not excepted(documents[m["file"]].route, m)
    ]
    report = "\n".join(
        f"{documents[m['file']].visitor} {documents[m['file']].path} line {m['line']}: "
        f"{m['message']} ({m['ruleId']}) at {m.get('selector')}"
        for m in messages
    )
    assert not messages, f"{len(messages)} HTML errors:\n{report}"


def test_html_validate_is_awake(tmp_path):
    """The check can fail: a page with a known error is reported."""
    broken = "<!DOCTYPE html><html lang='es'><head><title>x</title></head><body>"
    broken += "<p aria-label='no'>texto</p><button>sin tipo</button></body></html>"
    rules = {m["ruleId"] for m in validate({"broken.html": broken}, tmp_path)}
    assert {"aria-label-misuse", "no-implicit-button-type"} <= rules
