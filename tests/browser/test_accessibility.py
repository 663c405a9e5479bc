"""Accessibility: axe-core in Debian's chromium finds no serious or critical violation on
the pages people use at the table, on a laptop and on a phone.

axe-core comes bundled with axe-playwright-python; `Axe().run(page)` adds it to the page
with Playwright's `page.evaluate`, which runs through the DevTools protocol and is not
subject to the page's Content-Security-Policy (scripts from 'self' and a nonce only), so
the pages are checked under their real CSP, with no `bypass_csp`. Each test also asserts
the browser reported no CSP violation while axe ran.
"""

import pytest
from axe_playwright_python.sync_playwright import Axe

from campaign import services
from tests.browser.conftest import log_in, screenshot
from tests.browser.test_sheet import make_table, record

VIEWPORTS = {"1280": {"width": 1280, "height": 900}, "360": {"width": 360, "height": 640}}
BLOCKING = {"serious", "critical"}
AXE = Axe()


def apply_states(aiko):
    """Shock grave, a pending TS after the turn ends, and Emoción grave (terror)."""
    record(aiko, kind="suffer", type="shock", grade="grave")
    record(aiko, kind="turn_end")
    record(aiko, kind="suffer", type="emocion", grade="grave", variant="terror", cause="el oni")


@pytest.fixture
def table(app_url):
    table = make_table()
    apply_states(table["aiko"])
    kenji = table["campaign"].characters.get(name="Kenji")
    table["invitation"] = services.invitation_create(character=kenji, by=table["dj"])
    return table


# Each page: who is logged in (None: anonymous), its path, and whether it opens the live feed.
PAGES = {
    "login": (None, lambda t: "/accounts/login/", False),
    "board": ("dj", lambda t: "/c/kiso/", True),
    "sheet": ("mei", lambda t: f"/c/kiso/pj/{t['aiko'].pk}/hoja/", True),
    "players": ("dj", lambda t: "/c/kiso/jugadores/", False),
    "join": (None, lambda t: f"/unirse/{t['invitation'].token}/", False),
    "join-code": (None, lambda t: "/unirse/", False),
}


def describe(violations: list[dict]) -> str:
    """Every violation, whatever its impact, with the elements it was found on."""
    lines = []
    for violation in violations:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"]:
            lines.append(f"    {', '.join(map(str, node['target']))}: {node['html'][:200]}")
            lines.extend(f"        {node['failureSummary'] or ''}".splitlines())
    return "\n".join(lines)


@pytest.mark.parametrize("size", VIEWPORTS)
@pytest.mark.parametrize("name", PAGES)
def test_no_serious_or_critical_axe_violations(browser, app_url, table, name, size):
    who, path, live = PAGES[name]
    context = browser.new_context(viewport=VIEWPORTS[size], locale="es-ES")
    if who:
        log_in(context, app_url, table[who])
    page = context.new_page()
    csp_reports = []
    page.on(
        "console",
        lambda message: (
            "Content Security Policy" in message.text and csp_reports.append(message.text)
        ),
    )
    response = page.goto(f"{app_url}{path(table)}")
    assert response.status == 200, response.status
    if live:
        page.wait_for_selector('#live[data-state="open"]', state="attached")

    violations = AXE.run(page).response["violations"]
    screenshot(page, f"a11y-{name}-{size}")
    context.close()

    assert not csp_reports, csp_reports
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"{name} at {size} px:\n{describe(violations)}"
