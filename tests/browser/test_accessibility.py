"""Accessibility: axe-core in Debian's chromium finds no serious or critical violation on
the pages people use at the table, on a laptop and on a phone.

axe-core comes bundled with axe-playwright-python; `Axe().run(page)` adds it to the page
with Playwright's `page.evaluate`, which runs through the DevTools protocol and is not
subject to the page's Content-Security-Policy (scripts from 'self' and a nonce only), so
the pages are checked under their real CSP, with no `bypass_csp`. Each test also asserts
the browser reported no CSP violation while axe ran.
"""

import re

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
    "rules": (None, lambda t: "/reglas/", False),
    "guide": (None, lambda t: "/guia/", False),
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


def luminance(rgb: str) -> float:
    """The relative luminance (WCAG 2) of a computed "rgb(r, g, b)"."""
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", rgb)[:3])
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


MARKED_BOXES = """() => [...document.querySelectorAll(".box.marked")].map((box) => {
  const style = getComputedStyle(box);
  return {
    name: box.getAttribute("aria-label"),
    grade: box.dataset.grade || box.dataset.shortcutGrade,
    active: box.classList.contains("active"),
    color: style.color,
    background: style.backgroundColor,
  };
})"""


def test_every_marked_box_reads_at_4_5_to_1_on_the_board_and_the_sheets(browser, app_url):
    """The letter of a marked box (15 px, bold) against its colour: 4.5:1 at least (WCAG
    1.4.3), for each grade's colour, on the board, the player's sheet and its party."""
    table = make_table()
    aiko, kenji = table["aiko"], table["campaign"].characters.get(name="Kenji")
    for type_, grade in [("heridas", "leve"), ("fatiga", "leve"), ("fatiga", "grave")]:
        record(aiko, kind="suffer", type=type_, grade=grade)
    record(aiko, kind="suffer", type="shock", grade="persistente")
    record(aiko, kind="suffer", type="emocion", grade="leve", variant="miedo")
    record(kenji, kind="suffer", type="heridas", grade="grave")
    record(kenji, kind="suffer", type="afeccion", grade="leve", source="fiebre")
    pages = {"board": ("dj", "/c/kiso/"), "sheet": ("mei", f"/c/kiso/pj/{aiko.pk}/hoja/")}

    for name, (who, path) in pages.items():
        context = browser.new_context(viewport=VIEWPORTS["360"], locale="es-ES")
        log_in(context, app_url, table[who])
        page = context.new_page()
        page.goto(f"{app_url}{path}")
        page.wait_for_selector('#live[data-state="open"]', state="attached")
        boxes = page.evaluate(MARKED_BOXES)
        context.close()

        # Each grade's colour is there (active), and a marked box under a higher grade.
        assert {b["grade"] for b in boxes if b["active"]} >= {"leve", "grave", "persistente"}
        assert any(not b["active"] for b in boxes), name
        for box in boxes:
            ratio = contrast(box["color"], box["background"])
            assert ratio >= 4.5, f"{name}: {box['name']} {box} at {ratio:.2f}:1"
