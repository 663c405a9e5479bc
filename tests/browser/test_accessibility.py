"""Accessibility: axe-core finds nothing on any page a DJ, a player or a visitor reaches, at
1280 and 360 px, with what opens on them open too: each kind of `<details>` in turn (Otro
tiempo…, the fight's and the session's confirmations, Más acciones, voids), the board's
chooser of a grade and its help dialog.

axe-core is pinned in package.json (the version outside auditors used) and read from
node_modules. Playwright's `page.evaluate` adds it through the DevTools protocol, which the
page's Content-Security-Policy does not govern, so the pages are checked under their real
CSP, and each test asserts the browser reported no CSP violation meanwhile. The pages are
the ones tests/pages.py finds by following links (one of each route). Every impact counts;
a rule waived is named in WAIVED with why.
"""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from tests import pages
from tests.browser.conftest import ROOT, log_in, screenshot

AXE_SCRIPT = (ROOT / "node_modules" / "axe-core" / "axe.min.js").read_text()
VIEWPORTS = {"1280": {"width": 1280, "height": 900}, "360": {"width": 360, "height": 640}}
# Rules not run, each with why. Keep it empty unless a rule cannot apply to this app.
WAIVED: dict[str, str] = {}
AXE_OPTIONS = {
    "rules": {rule: {"enabled": False} for rule in WAIVED},
    "resultTypes": ["violations"],
}


def axe(page) -> list[dict]:
    """axe-core's violations on the page as it is now."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    return page.evaluate("options => axe.run(document, options)", AXE_OPTIONS)["violations"]


def describe(where: str, violations: list[dict]) -> list[str]:
    """Every violation with the elements it was found on."""
    lines = []
    for violation in violations:
        lines.append(f"{where}: {violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"]:
            lines.append(f"    {', '.join(map(str, node['target']))}: {node['html'][:200]}")
            lines.extend(f"        {node['failureSummary'] or ''}".splitlines())
    return lines


def each_details_open(page, where: str) -> list[str]:
    """Open each kind of closed <details> of the page in turn (one of each class), and check
    what it shows; they open one at a time, as a person opens them."""
    problems = []
    count = page.evaluate(
        """() => {
          const kinds = new Set();
          window.__details = [...document.querySelectorAll("details:not([open])")].filter(d => {
            const kind = d.className || d.querySelector("summary")?.textContent;
            return !kinds.has(kind) && kinds.add(kind);
          });
          return window.__details.length;
        }"""
    )
    for i in range(count):
        name = page.evaluate(
            "i => { const d = window.__details[i]; d.open = true; return d.className; }", i
        )
        violations = page.evaluate(
            "([i, options]) => axe.run(window.__details[i], options)", [i, AXE_OPTIONS]
        )["violations"]
        problems += describe(f"{where} (details.{name} open)", violations)
        page.evaluate("i => { window.__details[i].open = false; }", i)
    return problems


def watch_csp(page) -> list[str]:
    reports: list[str] = []
    page.on(
        "console",
        lambda message: "Content Security Policy" in message.text and reports.append(message.text),
    )
    return reports


@pytest.fixture
def staged(app_url):
    return pages.stage()


def one_of_each_route(visitor: pages.Visitor) -> list[pages.Page]:
    found: dict[str, pages.Page] = {}
    for page in pages.crawl(visitor, get_user_model()):
        found.setdefault(page.route, page)
    return list(found.values())


@pytest.mark.parametrize("size", VIEWPORTS)
@pytest.mark.parametrize("who", ["dj", "player", "visitor"])
def test_no_axe_violation_on_any_page_they_reach(browser, app_url, staged, who, size):
    visitor = next(v for v in pages.visitors(staged) if v.name == who)
    found = one_of_each_route(visitor)
    assert len(found) >= len(pages.EXPECTED[who]), [p.route for p in found]
    context = browser.new_context(viewport=VIEWPORTS[size], locale="es-ES")
    if visitor.login:
        log_in(context, app_url, get_user_model().objects.get(username=visitor.login))
    page = context.new_page()
    csp = watch_csp(page)
    problems: list[str] = []
    for found_page in found:
        response = page.goto(f"{app_url}{found_page.path}")
        assert response is not None and response.status in (200, 404), found_page.path
        page.wait_for_load_state("load")
        problems += describe(found_page.path, axe(page))
        problems += each_details_open(page, found_page.path)
    context.close()
    assert not csp, csp
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("size", VIEWPORTS)
def test_no_axe_violation_with_the_boards_chooser_and_help_open(browser, app_url, staged, size):
    context = browser.new_context(viewport=VIEWPORTS[size], locale="es-ES")
    log_in(context, app_url, get_user_model().objects.get(username="dj"))
    page = context.new_page()
    csp = watch_csp(page)
    page.goto(f"{app_url}/c/demo/")
    page.wait_for_selector('#live[data-state="open"]', state="attached")
    problems: list[str] = []

    kenji = page.get_by_role("article", name="Kenji")
    kenji.locator(".box[hx-get]").first.click()  # a two-tap box: its chooser opens
    kenji.locator("[id$='-ask'] form").first.wait_for()
    problems += describe("board, a grade's chooser open", axe(page))
    screenshot(page, f"a11y-board-chooser-{size}")
    page.keyboard.press("Escape")

    page.evaluate("document.getElementById('help').showModal()")
    problems += describe("board, help open", axe(page))
    screenshot(page, f"a11y-board-help-{size}")
    context.close()
    assert not csp, csp
    assert not problems, "\n".join(problems)


def test_axe_is_awake(browser, app_url):
    """The check can fail: a page with known faults is reported."""
    page = browser.new_page()
    page.set_content(
        "<html><body><img src='x.png'><a href='#' role='button'></a>"
        "<p style='color:#aaa;background:#fff'>poco contraste</p></body></html>"
    )
    found = {violation["id"] for violation in axe(page)}
    page.close()
    assert {"image-alt", "color-contrast", "html-has-lang"} <= found, found


def test_axe_is_the_pinned_version():
    pinned = (ROOT / "package.json").read_text()
    assert Path(ROOT / "node_modules" / "axe-core" / "package.json").exists()
    assert '"axe-core": "4.14.1"' in pinned
