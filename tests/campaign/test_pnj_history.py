"""PNJ in the history: the DJ reads them by name (groups, who left the fight, the enemies an
end archived); a player never reads what the DJ has not revealed, on any history page,
event page, session export or timeline picture."""

import re

import pytest
from django.urls import reverse

from campaign import services
from campaign.models import StateEvent
from campaign.turn_order import Slot
from tests.test_words import slips

SECRET = "Zzsecreto"  # an enemy the DJ keeps unrevealed
LURKER = "Qqacecho"  # hidden until its first turn, which never comes
ALLY = "Wwaliado"  # an unrevealed ally travelling with the party


def suffer(character, type_, grade, actor):
    return services.event_record(
        campaign=character.campaign,
        character=character,
        event={"kind": "suffer", "type": type_, "grade": grade},
        actor=actor,
    )


@pytest.fixture
def ambush(campaign, dj, joined, kenji):
    """Aiko (the player's), Kenji, three Bandidos as one group, Zzsecreto, Qqacecho lurking,
    the revealed Jefe and the ally Wwaliado. Zzsecreto flees; the end archives the enemies."""
    aiko = joined
    bandido = services.template_save(campaign=campaign, name="Bandido", attributes={"FUE": 3})
    bandidos = services.pnj_create(campaign=campaign, template=bandido, count=3, actor=dj)
    secret = services.pnj_create(campaign=campaign, name=SECRET, actor=dj)[0]
    lurker = services.pnj_create(campaign=campaign, name=LURKER, lurking=True, actor=dj)[0]
    jefe = services.pnj_create(campaign=campaign, name="Jefe", actor=dj)[0]
    services.pnj_settings_set(character=jefe, revealed=True)
    ally = services.pnj_create(campaign=campaign, name=ALLY, side="aliado", in_party=True)[0]
    session = services.session_start(campaign=campaign, title="El puente")
    suffer(ally, "shock", "leve", dj)
    # The party's time: it reaches the ally (its Shock leve ends), not the enemies.
    services.party_event(campaign=campaign, event={"kind": "time", "minutes": 10}, actor=dj)
    services.fight_start(
        campaign=campaign,
        order=[
            Slot(pj=aiko.pk, init=15),
            Slot(pj=bandidos[0].pk, also=(bandidos[1].pk, bandidos[2].pk), init=12),
            Slot(pj=secret.pk, init=10),
            Slot(pj=lurker.pk, init=8),
            Slot(pj=jefe.pk, init=6),
            Slot(pj=kenji.pk),
            Slot(pj=ally.pk),
        ],
        actor=dj,
    )
    during_aiko = suffer(aiko, "heridas", "leve", dj)
    services.area_event(
        campaign=campaign,
        characters=[*bandidos, secret],
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
        actor=dj,
    )
    services.fight_pass(campaign=campaign, actor=dj)  # the Bandidos' turn
    out = services.fight_out(campaign=campaign, character=secret, why="huye", actor=dj)[0]
    during_group = suffer(aiko, "shock", "leve", dj)
    end = services.fight_end(campaign=campaign, archive_enemies=True, actor=dj)
    return {
        "session": session,
        "aiko": aiko,
        "secret": secret,
        "ally": ally,
        "bandidos": bandidos,
        "out": out,
        "end": end,
        "during_aiko": during_aiko,
        "during_group": during_group,
    }


def pages(client, ambush) -> dict[str, str]:
    """Every history page, event page, export and picture of the session, as text."""
    slug, number = "kiso", ambush["session"].number
    urls = {
        "history": reverse("history", args=[slug]),
        "session": reverse("session_detail", args=[slug, number]),
        "md": reverse("session_log", args=[slug, number, "md"]),
        "csv": reverse("session_log", args=[slug, number, "csv"]),
        "svg": reverse("session_timeline_svg", args=[slug, number]),
        "sheets": reverse("session_sheets", args=[slug, number]),
    }
    for event in StateEvent.objects.filter(campaign__slug=slug).order_by("seq"):
        urls[f"#{event.seq}"] = reverse("event_detail", args=[slug, event.seq])
    found = {}
    for name, url in urls.items():
        response = client.get(url)
        assert response.status_code in (200, 404), (name, response.status_code)
        if response.status_code == 200:
            found[name] = response.content.decode()
    return found


def test_a_player_reads_no_name_the_dj_has_not_revealed(client, player, ambush):
    client.force_login(player)

    seen = pages(client, ambush)

    assert {"history", "session", "md", "csv", "svg", "sheets"} <= set(seen)
    for token in (SECRET, LURKER, ALLY):
        leaks = [name for name, text in seen.items() if token in text]
        assert leaks == [], token
    # The PNJ's own events are not the player's: their pages are not there at all.
    pnj_events = StateEvent.objects.filter(character__kind="pnj")
    assert pnj_events.count() >= 5
    assert not {f"#{e.seq}" for e in pnj_events} & set(seen)
    assert f"#{ambush['out'].seq}" in seen  # the fight's own steps are
    assert "Bandido 1" not in seen["history"]


@pytest.mark.parametrize("who", ["dj", "player"])
def test_the_pages_with_pnj_speak_spanish(client, dj, player, ambush, who):
    client.force_login(dj if who == "dj" else player)

    seen = pages(client, ambush)

    html = {name: text for name, text in seen.items() if name not in ("md", "csv", "svg")}
    assert {name: slips(text) for name, text in html.items() if slips(text)} == {}


def test_the_dj_reads_every_pnj_by_name_everywhere(client, dj, ambush):
    client.force_login(dj)

    seen = pages(client, ambush)

    for name in ("history", "session", "md", "csv"):
        assert SECRET in seen[name] and LURKER in seen[name] and ALLY in seen[name], name
    assert SECRET in seen[f"#{ambush['out'].seq}"]
    svg = seen["svg"]
    for pnj in (ambush["secret"], ambush["ally"], *ambush["bandidos"]):
        assert f'data-pj="{pnj.pk}"' in svg and pnj.name in svg  # PNJ have lanes


def test_the_djs_order_names_groups_and_who_left_and_what_the_end_archived(client, dj, ambush):
    client.force_login(dj)

    html = client.get(reverse("history", args=["kiso"])).content.decode()

    group = "Bandido 1, Bandido 2, Bandido 3"
    assert (
        f"Orden: Aiko (15) → {group} (12) → {SECRET} (10) → {LURKER} (8) → Jefe (6) → Kenji"
        f" → {ALLY}"
    ) in html
    assert f"{SECRET} sale del combate (huye)" in html
    assert f"Enemigos archivados: {group}, {SECRET}, {LURKER}, Jefe" in html
    assert f"Turno de {group}" in html
    # Aiko's wound in her own turn, her Shock in the group's.
    assert re.search(rf'id="e{ambush["during_group"].seq}".*?Turno de {group}', html, re.S)


def test_a_player_reads_pnj_as_the_dj_revealed_them(client, player, ambush):
    client.force_login(player)

    html = client.get(reverse("history", args=["kiso"])).content.decode()

    # Unrevealed: "un enemigo" (the group: three of them); lurking, unseen: left out; the
    # revealed Jefe and the PJ by name.
    assert (
        "Orden: Aiko (15) → tres enemigos (12) → un enemigo (10) → Jefe (6) → Kenji → un aliado"
    ) in html
    # Who left, not why: its state is not the player's to read.
    assert "Un enemigo sale del combate<" in html.replace("\n", "").replace("  ", "")
    assert "(huye)" not in html
    assert "Turno de tres enemigos" in html
    assert "Enemigos archivados" not in html
    # The party's time that reached the ally reads "Todos", and names only the player's PJ.
    assert "Todos</strong>" in html


def test_revealed_the_pnj_is_named_to_the_player(client, player, ambush):
    services.pnj_settings_set(character=ambush["secret"], revealed=True)
    client.force_login(player)

    seen = pages(client, ambush)

    for name in ("history", "session", "md", "csv", f"#{ambush['out'].seq}"):
        assert f"{SECRET} sale del combate (huye)" in seen[name], name
    assert f"tres enemigos (12) → {SECRET} (10)" in seen["history"]
    # Its name only: why it left is its state, not shown.
    services.pnj_settings_set(character=ambush["secret"], shows="nombre")
    named = pages(client, ambush)
    assert f"{SECRET} sale del combate<" in named["history"].replace("\n", "").replace("  ", "")
    assert "(huye)" not in named["history"]
    for token in (LURKER, ALLY):  # still unrevealed
        assert not [name for name, text in seen.items() if token in text], token


def test_a_lurking_pnj_shows_from_its_first_turn_on(client, campaign, dj, player, joined):
    lurker = services.pnj_create(campaign=campaign, name=LURKER, lurking=True, actor=dj)[0]
    services.session_start(campaign=campaign)
    start = services.fight_start(
        campaign=campaign, order=[Slot(pj=joined.pk), Slot(pj=lurker.pk)], actor=dj
    )
    before = suffer(joined, "heridas", "leve", dj)
    services.fight_pass(campaign=campaign, actor=dj)  # the lurker's first turn
    during = suffer(joined, "shock", "leve", dj)
    services.fight_order(
        campaign=campaign, order=[Slot(pj=lurker.pk), Slot(pj=joined.pk)], actor=dj
    )
    client.force_login(player)

    def page(event) -> str:
        return client.get(reverse("event_detail", args=["kiso", event.seq])).content.decode()

    assert "Orden: Aiko</li>" in page(start) and "enemigo" not in page(start)
    assert "Turno de Aiko" in page(before) and "enemigo" not in page(before)
    assert "Turno de un enemigo" in page(during)
    reordered = StateEvent.objects.filter(event__do="order").get()
    assert "Orden: un enemigo → Aiko" in page(reordered)
    assert LURKER not in client.get(reverse("history", args=["kiso"])).content.decode()


def test_the_djs_party_time_reads_everyone_with_enemies_in_play(client, campaign, dj, aiko):
    services.pnj_create(campaign=campaign, name="Oni", actor=dj)
    services.pnj_create(campaign=campaign, name="Sato", side="aliado", in_party=True)
    services.party_event(campaign=campaign, event={"kind": "time", "minutes": 5}, actor=dj)
    client.force_login(dj)

    html = client.get(reverse("history", args=["kiso"])).content.decode()

    # The party is Aiko and the ally: the enemy on its own clock is not "left out".
    assert "<strong>Todos</strong>: +5 min" in html


def sheet_names(client, session) -> list[tuple[str, str]]:
    """The end-of-session sheets in their order: each one's name and what marks it."""
    html = client.get(reverse("session_sheets", args=["kiso", session.number])).content.decode()
    heading = r'<h2 id="carry-\d+">([^<]+?)(?: <span class="badge[^"]*">([^<]*)</span>)?</h2>'
    return re.findall(heading, html)


def test_the_sessions_sheets_are_the_partys_then_the_pnj_that_took_part(
    client, campaign, dj, ambush
):
    services.pnj_create(campaign=campaign, name="Yyoni", actor=dj)  # made, then left alone
    client.force_login(dj)
    # The PJ, then every PNJ an event of the session reached (the enemy archived at the
    # fight's end too), each marked; not the Jefe nor the lurker, in the order but untouched.
    expected = [
        ("Aiko", ""),
        ("Kenji", ""),
        ("Bandido 1", "PNJ · enemigo"),
        ("Bandido 2", "PNJ · enemigo"),
        ("Bandido 3", "PNJ · enemigo"),
        (ALLY, "PNJ · aliado"),
        (SECRET, "PNJ · enemigo"),
    ]

    assert sheet_names(client, ambush["session"]) == expected  # open: as they are now

    def sheet(character) -> str:
        url = reverse("session_sheets", args=["kiso", ambush["session"].number])
        html = client.get(url).content.decode()
        return html.split(f'id="carry-{character.pk}"')[1].split("</article>")[0]

    assert sheet(ambush["bandidos"][0]).count("☒") == 1  # the area blow's Fatiga leve
    services.session_end(session=ambush["session"])
    ally = sheet(ambush["ally"])
    suffer(ambush["ally"], "heridas", "grave", dj)  # after its end: not on its sheet
    ambush["session"].refresh_from_db()
    assert sheet_names(client, ambush["session"]) == expected  # ended: as they were then
    assert sheet(ambush["ally"]) == ally
    assert sheet(ambush["bandidos"][0]).count("☒") == 1


def test_the_djs_picture_has_the_pj_lanes_first_then_the_pnj(client, dj, ambush):
    client.force_login(dj)

    svg = client.get(
        reverse("session_timeline_svg", args=["kiso", ambush["session"].number])
    ).content.decode()

    lanes = re.findall(r'<g class="tl-lane" data-pj="(\d+)" aria-label="([^"]+)"', svg)
    names = [name for _pk, name in lanes]
    assert names == ["Aiko", "Kenji", "Bandido 1", "Bandido 2", "Bandido 3", ALLY, SECRET]
