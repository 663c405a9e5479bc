"""The board from the keyboard, and a tap that keeps the page where it was: found by a
playtester at the table with a keyboard and a phone. Focus stays on the control that was
used, a chooser takes the focus and gives it back, the focus ring is not the active box's
mark, a long result line opens from the keyboard and a secret chip's button says what it
does."""

import re

import pytest
from playwright.sync_api import expect

from campaign import services
from campaign.turn_order import Slot
from tests.browser.conftest import quiet, screenshot
from tests.browser.test_controls import card, kiso_table, open_board


@pytest.fixture
def table(app_url):
    return kiso_table(app_url, ("Aiko", "Kenji", "Mei"))


def record(table, name, **event):
    return services.event_record(
        campaign=table["campaign"], character=table["party"][name], event=event
    )


def open_more(page, name):
    more = card(page, name).locator("details.more")
    more.locator("summary").click()
    expect(more.locator(".more-actions")).to_be_visible()


# -- 1. a tap with "Más acciones" open leaves the page where it was ----------------------


@pytest.mark.parametrize(
    ("control", "done"),
    [
        (("button", "Fatiga leve"), "Fatiga Leve"),
        (("button", "Reposar"), "+1 min (reposo en calma)"),
        (("button", "Curación"), "Curación: ¿quién la aplica?"),
    ],
)
@pytest.mark.parametrize("width", [360, 1280])
def test_a_tap_with_more_actions_open_leaves_the_page_where_it_was(
    browser, app_url, table, width, control, done
):
    record(table, "Aiko", kind="suffer", type="heridas", grade="leve")  # Curación is offered
    page = open_board(browser, app_url, table, width=width, height=740)
    open_more(page, "Aiko")
    aiko = card(page, "Aiko")
    tapped = aiko.get_by_role(control[0], name=control[1], exact=True)
    tapped.evaluate("el => el.scrollIntoView({block: 'center'})")
    quiet(page)
    before = page.evaluate("scrollY")

    tapped.click()

    expect(page.locator("main")).to_contain_text(done)
    quiet(page)
    expect(aiko.locator("details.more")).to_have_attribute("open", "")
    if control[1] == "Curación":  # its chooser is brought into sight: a scroll of its own
        expect(aiko.locator(".ask")).to_be_in_viewport()
    else:
        expect(aiko.get_by_role(control[0], name=control[1], exact=True)).to_be_in_viewport()
        assert abs(page.evaluate("scrollY") - before) < 40, (before, page.evaluate("scrollY"))
    screenshot(page, f"keyboard-more-open-tap-{width}")


# -- 2. a chooser opens in sight with the focus in it, and gives the focus back -----------


def below_the_bar(page, locator):
    """`locator` is whole in the window, below the clock bar where that stays at the top."""
    box = locator.bounding_box()
    bar = page.evaluate(
        """() => {
          const bar = document.getElementById("clockbar");
          const sticky = getComputedStyle(bar).position === "sticky";
          return sticky ? bar.getBoundingClientRect().bottom : 0;
        }"""
    )
    assert box["y"] >= bar - 1, (box, bar)
    assert box["y"] < page.viewport_size["height"], box


def focus_in(locator):
    return locator.evaluate("el => el.contains(document.activeElement)")


@pytest.mark.parametrize("key", ["Space", "Enter", "click"])
@pytest.mark.parametrize("width", [1280, 360])
def test_a_chooser_takes_the_focus_in_sight_and_gives_it_back(browser, app_url, table, width, key):
    for grade in ("leve", "grave"):  # a tall card: its lower boxes far below its top
        record(table, "Kenji", kind="suffer", type="heridas", grade=grade)
        record(table, "Kenji", kind="suffer", type="fatiga", grade=grade)
    page = open_board(browser, app_url, table, width=width, height=600)
    kenji = card(page, "Kenji")
    box = kenji.get_by_role("button", name="Afección leve")
    box.evaluate("el => el.scrollIntoView({block: 'end'})")  # the box at the window's foot
    quiet(page)

    box.click() if key == "click" else (box.focus(), page.keyboard.press(key))

    chooser = kenji.locator(".ask")
    expect(chooser).to_contain_text("¿qué enfermedad o veneno?")
    quiet(page)
    below_the_bar(page, chooser)
    assert focus_in(chooser)
    expect(chooser.get_by_role("button").first).to_be_focused()
    screenshot(page, f"keyboard-chooser-{width}-{key}")

    page.keyboard.press("Escape")
    expect(kenji.locator(".ask-slot")).to_be_empty()
    expect(box).to_be_focused()
    expect(box).to_be_in_viewport()


def test_curacion_s_chooser_takes_the_focus_and_cancel_gives_it_back(browser, app_url, table):
    record(table, "Aiko", kind="suffer", type="heridas", grade="grave")
    page = open_board(browser, app_url, table, width=1280, height=600)
    open_more(page, "Aiko")
    aiko = card(page, "Aiko")
    curacion = aiko.get_by_role("button", name="Curación")
    curacion.focus()
    quiet(page)

    page.keyboard.press("Enter")

    chooser = aiko.locator(".ask")
    expect(chooser).to_contain_text("Curación: ¿quién la aplica?")
    quiet(page)
    below_the_bar(page, chooser)
    expect(chooser.get_by_role("button", name="Kenji")).to_be_focused()
    page.keyboard.press("Tab")
    assert focus_in(chooser)  # Tab goes on through the chooser, not away from it

    chooser.get_by_role("button", name="Cancelar").click()
    expect(aiko.locator(".ask-slot")).to_be_empty()
    expect(curacion).to_be_focused()
    expect(curacion).to_be_in_viewport()


# -- 3. after a tap, the focus is where it was --------------------------------------------


@pytest.mark.parametrize("width", [1280, 360])
def test_the_focus_stays_on_the_box_after_a_keyboard_tap(browser, app_url, table, width):
    page = open_board(browser, app_url, table, width=width)
    aiko = card(page, "Aiko")
    box = aiko.get_by_role("button", name="Fatiga leve")
    box.focus()

    page.keyboard.press("Space")

    expect(aiko.get_by_text("Fatiga Leve", exact=True)).to_be_visible()
    quiet(page)
    expect(box).to_be_focused()
    before = page.evaluate("scrollY")
    page.keyboard.press("Space")  # on the box again: the next grade, no page scroll
    expect(aiko.get_by_text("Fatiga Grave", exact=True)).to_be_visible()
    quiet(page)
    expect(aiko.get_by_role("button", name="Fatiga leve")).to_be_focused()
    assert abs(page.evaluate("scrollY") - before) < 40


def test_a_choice_gives_the_focus_back_to_the_box_that_asked(browser, app_url, table):
    page = open_board(browser, app_url, table)
    aiko = card(page, "Aiko")
    aiko.get_by_role("button", name="Emoción leve").focus()
    page.keyboard.press("Space")
    miedo = aiko.locator(".ask").get_by_role("button", name="miedo")
    expect(miedo).to_be_focused()

    page.keyboard.press("Space")

    expect(aiko.get_by_text("Emoción Leve: miedo")).to_be_visible()
    quiet(page)
    expect(aiko.get_by_role("button", name="Emoción leve")).to_be_focused()


def test_a_tap_in_more_actions_keeps_the_focus_there(browser, app_url, table):
    page = open_board(browser, app_url, table)
    open_more(page, "Aiko")
    aiko = card(page, "Aiko")
    aiko.get_by_role("button", name="Reposar").focus()

    page.keyboard.press("Enter")

    expect(page.locator("#toasts")).to_contain_text("+1 min (reposo en calma)")
    quiet(page)
    expect(aiko.get_by_role("button", name="Reposar")).to_be_focused()


def test_the_turn_buttons_hand_the_focus_to_the_new_turn(browser, app_url, table):
    party = table["party"]
    services.fight_start(
        campaign=table["campaign"],
        order=[Slot(pj=party["Aiko"].pk), Slot(pj=party["Kenji"].pk), Slot(pj=party["Mei"].pk)],
    )
    page = open_board(browser, app_url, table)
    bar = page.locator("#clockbar")
    bar.get_by_role("button", name="Fin del turno de Aiko").focus()

    page.keyboard.press("Enter")

    expect(page.locator("#fight")).to_contain_text("Turno de Kenji")
    quiet(page)
    expect(bar.get_by_role("button", name="Fin del turno de Kenji")).to_be_focused()

    # The card's own turn button: the focus goes to the next turn's card.
    card(page, "Kenji").get_by_role("button", name="Fin de turno → Mei").focus()
    page.keyboard.press("Enter")

    expect(page.locator("#fight")).to_contain_text("Turno de Mei")
    quiet(page)
    expect(card(page, "Mei").get_by_role("button", name=re.compile("Fin de turno"))).to_be_focused()


# -- 4. the focus ring is not the active box's mark ---------------------------------------

GOLD = "rgb(242, 193, 78)"

# The focused element's ring: its outline, its shadow, and how each stands out (contrast
# ratio) against the background it is drawn on (the first opaque one of its ancestors).
RING = """() => {
  const el = document.activeElement;
  const style = getComputedStyle(el);
  const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map((v) => v / 255)
      .map((v) => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  let back = el.parentElement, bg = [255, 255, 255];
  while (back) {
    const c = rgb(getComputedStyle(back).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) { bg = c.slice(0, 3); break; }
    back = back.parentElement;
  }
  return {
    name: el.getAttribute("aria-label") || el.textContent.trim().slice(0, 30),
    visible: el.matches(":focus-visible"),
    outline: style.outlineStyle, width: parseFloat(style.outlineWidth), color: style.outlineColor,
    offset: parseFloat(style.outlineOffset), shadow: style.boxShadow,
    contrast: Math.max(
      ratio(rgb(style.outlineColor), bg),
      style.boxShadow.includes("255, 255, 255") ? ratio([255, 255, 255], bg) : 0,
    ),
  };
}"""


def tab_rings(page, stops):
    """The ring of each of the next `stops` controls the Tab key reaches."""
    rings = []
    for _ in range(stops):
        page.keyboard.press("Tab")
        rings.append(page.evaluate(RING))
    return rings


def test_the_focus_ring_is_not_the_active_boxs_mark(browser, app_url, table):
    record(table, "Aiko", kind="suffer", type="fatiga", grade="leve")
    page = open_board(browser, app_url, table)
    aiko = card(page, "Aiko")
    active = aiko.get_by_role("button", name="Fatiga leve")
    before = aiko.get_by_role("button", name="Heridas persistente")
    assert GOLD in active.evaluate("el => getComputedStyle(el).boxShadow")  # the active mark

    before.focus()
    page.keyboard.press("Tab")  # from the keyboard, onto the active box
    expect(active).to_be_focused()
    on_active = page.evaluate(RING)
    page.keyboard.press("Shift+Tab")
    on_other = page.evaluate(RING)
    screenshot(page, "keyboard-focus-ring-1280")

    for ring in (on_active, on_other):
        assert ring["visible"] and ring["outline"] == "solid" and ring["width"] >= 3, ring
        assert ring["color"] != GOLD and ring["offset"] >= 2, ring
        assert ring["contrast"] >= 3, ring
    assert GOLD in on_active["shadow"]  # still marked active, the focus round it
    assert GOLD not in on_other["shadow"]  # focused, not active: no gold
    # Off the box, its mark alone.
    assert active.evaluate("el => getComputedStyle(el).outlineStyle") == "none"


@pytest.mark.parametrize("where", ["board", "sheet"])
def test_every_focus_ring_stands_out_on_its_background(browser, app_url, table, where):
    record(table, "Aiko", kind="suffer", type="heridas", grade="grave")  # a check to roll
    page = open_board(browser, app_url, table)
    if where == "sheet":
        page.goto(f"{table['url']}pj/{table['party']['Aiko'].pk}/hoja/")
    rings = [r for r in tab_rings(page, 30) if r["visible"]]

    assert rings
    for ring in rings:
        assert ring["outline"] != "none" and ring["color"] != GOLD, ring
        assert ring["contrast"] >= 3, ring
    screenshot(page, f"keyboard-focus-{where}-1280")


# -- 5. a clipped result line opens from the keyboard --------------------------------------

# Each link of the result line: whether the Tab key reaches it, and whether it is in sight
# (not in the part its line clips).
LINKS = """toast => [...toast.querySelectorAll("a[href]")].map((link) => {
  const line = link.closest(".toast-head, .toast-lines").getBoundingClientRect();
  const rect = link.getBoundingClientRect();
  return {
    text: link.textContent,
    tabbable: link.tabIndex >= 0,
    shown: rect.right <= line.right && rect.bottom <= line.bottom + 1,
  };
})"""


@pytest.mark.parametrize("width", [1280, 360])
def test_a_clipped_result_line_opens_from_the_keyboard(browser, app_url, table, width):
    for name in ("Aiko", "Kenji", "Mei"):  # a day raises checks for each: a long trail
        record(table, name, kind="suffer", type="heridas", grade="grave")
    page = open_board(browser, app_url, table, width=width)
    page.locator("#clockbar").get_by_role("button", name="+1 día").click()
    toast = page.locator("#toasts .toast")
    expect(toast).to_contain_text("Mei")
    more = toast.get_by_role("button", name="ver todo")
    expect(more).to_be_visible()
    expect(more).to_have_attribute("aria-expanded", "false")
    links = toast.evaluate(LINKS)
    assert any(not link["shown"] for link in links), links  # the line is clipped
    # Collapsed, the Tab key reaches no link it hides.
    assert all(link["shown"] for link in links if link["tabbable"]), links

    more.focus()
    page.keyboard.press("Enter")

    expect(toast).to_have_class(re.compile(r"\bis-open\b"))
    expect(more).to_have_attribute("aria-expanded", "true")
    assert all(link["tabbable"] for link in toast.evaluate(LINKS))
    page.keyboard.press("Tab")  # from "ver todo" on into the line's links
    assert toast.evaluate("el => el.contains(document.activeElement)")
    expect(page.locator(":focus")).to_have_attribute("href", re.compile(r"/reglas/"))
    screenshot(page, f"keyboard-toast-open-{width}")
    page.keyboard.press("Escape")
    expect(toast).not_to_have_class(re.compile(r"\bis-open\b"))
    expect(more).to_be_focused()
    expect(more).to_have_attribute("aria-expanded", "false")


# -- 6. a secret chip's button says what it does, beside the chip's name -------------------


def same_line(a, b):
    """The boxes `a` and `b` share a line: each one's middle is within the other's height."""
    middle = b["y"] + b["height"] / 2
    return a["y"] <= middle <= a["y"] + a["height"]


@pytest.mark.parametrize("width", [1024, 360])
def test_a_secret_chips_button_says_it_hides_from_the_player(browser, app_url, table, width):
    record(table, "Mei", kind="suffer", type="afeccion", grade="leve", source="veneno somnífero")
    page = open_board(browser, app_url, table, width=width)
    mei = card(page, "Mei")
    chip = mei.locator(".chip").filter(has_text="Veneno somnífero")
    hide = chip.get_by_role("button", name="Ocultar al jugador: Veneno somnífero")
    expect(hide).to_have_text("ocultar al jugador")  # the name starts with what it shows
    assert hide.get_attribute("title") == "Ocultar al jugador: Veneno somnífero"

    hide.click()

    show = card(page, "Mei").get_by_role("button", name="Mostrar al jugador: Veneno somnífero")
    expect(show).to_have_text("mostrar al jugador")
    assert show.get_attribute("title") == "Mostrar al jugador: Veneno somnífero"
    chip = card(page, "Mei").locator(".chip").filter(has_text="Veneno somnífero")
    name, box = chip.locator(".chip-name").bounding_box(), show.bounding_box()
    assert same_line(name, box) and same_line(box, name), (name, box)  # together
    bounds = card(page, "Mei").bounding_box()
    assert box["x"] + box["width"] <= bounds["x"] + bounds["width"], (box, bounds)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"keyboard-secret-chip-{width}")
