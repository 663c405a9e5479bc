"""The session timeline picture in a real browser, on a wide screen and on a phone."""

import pytest
from playwright.sync_api import expect

from campaign import services
from campaign.turn_order import Slot
from tests.browser.conftest import SCREENSHOTS, log_in
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

PHONE = {"width": 360, "height": 640}
WIDE = {"width": 1280, "height": 900}


@pytest.fixture
def table(app_url):
    """An ambush at 08:00: three PJ, a burst of events in the same round, a TS, a void, a
    poison the DJ keeps secret, and a long rest to end the session."""
    dj = UserFactory(username="sensei")
    mei = UserFactory(username="mei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(campaign=campaign, name="Aiko")
    kenji = CharacterFactory(campaign=campaign, name="Kenji")
    CharacterFactory(campaign=campaign, name="Ren <el> «Zorro» & cía")
    services.invitation_accept(
        invitation=services.invitation_create(character=aiko, by=dj), user=mei
    )

    def record(character, **event):
        return services.event_record(campaign=campaign, character=character, event=event, actor=dj)

    record(None, kind="time", hours=8)
    record(kenji, kind="suffer", type="heridas", grade="leve")
    session = services.session_start(campaign=campaign, title="Emboscada en el paso")
    record(aiko, kind="suffer", type="shock", grade="grave")
    record(aiko, kind="turn_end")
    record(aiko, kind="save", check="shock_grave_fin_turno", success=False)
    record(kenji, kind="suffer", type="emocion", grade="leve", variant="miedo")
    record(kenji, kind="special", name="derribado", on=True)
    record(kenji, kind="suffer", type="fatiga", grade="leve")
    wrong = record(kenji, kind="suffer", type="heridas", grade="grave")
    services.event_void(event=wrong, actor=dj, reason="era Aiko")
    record(aiko, kind="suffer", type="heridas", grade="grave")
    record(None, kind="time", rounds=10)
    record(aiko, kind="suffer", type="afeccion", grade="leve", source="ponzoña azul")
    services.character_secrets_set(character=aiko, add=["ponzoña azul"], remove=())
    record(kenji, kind="special", name="derribado", on=False)
    record(None, kind="time", minutes=20, activity="reposo", calm=True)
    record(aiko, kind="progress", type="afeccion")
    record(None, kind="time", hours=1)
    record(aiko, kind="heal")
    record(None, kind="descanso")
    services.session_end(session=session)
    return {"dj": dj, "mei": mei, "base": app_url}


def screenshot(page, name: str) -> None:
    """conftest.screenshot for an SVG document: Chromium never finishes a full-page shot
    of one, so the viewport is made as tall as the picture instead."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    height = page.evaluate("Math.ceil(document.documentElement.getBoundingClientRect().height)")
    page.set_viewport_size({"width": page.viewport_size["width"], "height": height})
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def open_svg(browser, table, user, viewport):
    context = browser.new_context(viewport=viewport, locale="es-ES")
    log_in(context, table["base"], user)
    page = context.new_page()
    response = page.goto(f"{table['base']}/c/kiso/sesion/1/linea.svg")
    assert response.status == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    return page


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1280", "360"])
def test_the_dj_sees_every_lane_at_any_width(browser, table, viewport):
    page = open_svg(browser, table, table["dj"], viewport)
    errors = []
    page.on("console", lambda message: errors.append(message.text))

    picture = page.get_by_role("img")
    expect(picture).to_be_visible()
    expect(page.locator("text.tl-name")).to_have_count(3)
    expect(page.locator("text.tl-name").last).to_have_text("Ren <el> «Zorro» & cía")
    box = picture.bounding_box()
    assert box["width"] <= viewport["width"] + 1
    # Text at least about 9 px tall on a phone: the lane names and the band labels.
    name = page.locator("text.tl-name").first.bounding_box()
    assert name["height"] >= 9
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    screenshot(page, f"timeline-svg-{viewport['width']}")
    assert not [e for e in errors if "Content Security Policy" in e]


def test_a_player_sees_their_own_lane_on_a_phone(browser, table):
    page = open_svg(browser, table, table["mei"], PHONE)

    expect(page.get_by_role("img")).to_be_visible()
    expect(page.locator("text.tl-name")).to_have_count(1)
    expect(page.locator("text.tl-name")).to_have_text("Aiko")
    assert "ponzoña" not in page.content().lower()
    screenshot(page, "timeline-svg-player-360")


@pytest.fixture
def fight(app_url):
    """An hour's walk, then a fight of two rounds: Aiko's Shock leve of round 1 ends with
    her turn, a Shock grave in round 2; then a long rest."""
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(campaign=campaign, name="Aiko")
    kenji = CharacterFactory(campaign=campaign, name="Kenji")

    def record(character, **event):
        return services.event_record(campaign=campaign, character=character, event=event, actor=dj)

    session = services.session_start(campaign=campaign, title="El puente")
    record(None, kind="time", hours=1)
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=kenji.pk)])
    record(aiko, kind="suffer", type="shock", grade="leve")
    services.fight_pass(campaign=campaign)  # Aiko's turn ends: so does her Shock leve
    services.fight_pass(campaign=campaign)  # Kenji's, and the round
    record(aiko, kind="suffer", type="shock", grade="grave")
    services.fight_pass(campaign=campaign)
    services.fight_pass(campaign=campaign)
    services.fight_end(campaign=campaign)
    record(None, kind="time", hours=7)
    services.session_end(session=session)
    return {"dj": dj, "aiko": aiko, "base": app_url}


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1280", "360"])
def test_a_fights_rounds_have_a_width_and_its_shock_leve_shows_in_order(browser, fight, viewport):
    page = open_svg(browser, fight, fight["dj"], viewport)
    shock = page.locator(f'rect.tl-seg[data-pj="{fight["aiko"].pk}"][data-type="shock"]')
    leve = shock.and_(page.locator('[data-grade="leve"]'))
    grave = shock.and_(page.locator('[data-grade="grave"]'))

    expect(leve).to_have_count(1)
    expect(grave).to_have_count(1)
    leve_box, grave_box = leve.bounding_box(), grave.bounding_box()
    # Seen on the screen (a few pixels at least, on a phone too), and before the grave.
    assert leve_box["width"] >= 4, leve_box
    assert leve_box["x"] + leve_box["width"] <= grave_box["x"] + 0.5
    # Its hover text says it lasted no game time beyond its round's instant.
    expect(leve.locator("title")).to_contain_text("Shock: Leve · Día 1 01:00 – Día 1 01:00")
    screenshot(page, f"timeline-svg-fight-{viewport['width']}")
