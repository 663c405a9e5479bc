"""The session timeline picture: campaign.history.timeline and its URL."""

import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse
from django.utils import translation

from campaign import services
from campaign.history.timeline_svg import session_svg, session_svg_inline
from campaign.models import Character, StateEvent
from tests.factories import CharacterFactory, MembershipFactory, UserFactory

SVG = "{http://www.w3.org/2000/svg}"
HOUR = 3600


@pytest.fixture(autouse=True)
def spanish():
    with translation.override("es"):
        yield


def record(campaign, character=None, **event):
    return services.event_record(campaign=campaign, character=character, event=event)


@pytest.fixture
def table(campaign, aiko, kenji):
    """Session 1 at 08:00 on day 1: Aiko in Shock grave who passes her TS, Heridas grave,
    a name the DJ keeps secret; Kenji's Fatiga voided. Aiko has a player, Mei."""
    mei = UserFactory(username="mei")
    MembershipFactory(user=mei, campaign=campaign)
    Character.objects.filter(pk=aiko.pk).update(player=mei)
    record(campaign, kind="time", hours=8)  # everyone to 08:00 before the session
    record(campaign, aiko, kind="suffer", type="heridas", grade="leve")
    session = services.session_start(campaign=campaign, title="Emboscada <en> Kiso")
    shock = record(campaign, aiko, kind="suffer", type="shock", grade="grave")
    record(campaign, aiko, kind="turn_end")
    save = record(campaign, aiko, kind="save", check="shock_grave_fin_turno", success=True)
    record(campaign, kind="time", minutes=5)  # 08:05
    wound = record(campaign, aiko, kind="suffer", type="heridas", grade="grave")
    fatigue = record(campaign, kenji, kind="suffer", type="fatiga", grade="leve")
    services.event_void(event=fatigue)
    marked = record(campaign, aiko, kind="special", name="marcado", on=True)
    record(campaign, aiko, kind="suffer", type="afeccion", grade="leve", source="ponzoña azul")
    services.character_secrets_set(character=aiko, add=["marcado", "ponzoña azul"], remove=())
    hidden = services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "special", "name": "derribado", "on": True},
        secret=True,
    )
    record(campaign, kind="time", minutes=25)  # 08:30
    services.session_end(session=session)
    return {
        "session": session,
        "mei": mei,
        "aiko": Character.objects.get(pk=aiko.pk),
        "kenji": kenji,
        "events": {
            "shock": shock,
            "save": save,
            "wound": wound,
            "fatigue": fatigue,
            "marked": marked,
            "hidden": hidden,
        },
    }


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def segments(root, pj, type_):
    return [
        (s.get("data-grade"), int(s.get("data-from")), int(s.get("data-to")), s)
        for s in root.iter(f"{SVG}rect")
        if s.get("class") == "tl-seg"
        and s.get("data-pj") == str(pj.pk)
        and s.get("data-type") == type_
    ]


def markers(root, pj=None, kind=None):
    return [
        g
        for g in root.iter(f"{SVG}g")
        if "tl-marker" in (g.get("class") or "")
        and (pj is None or g.get("data-pj") == str(pj.pk))
        and (kind is None or g.get("data-kind") == kind)
    ]


def title(element) -> str:
    return element.find(f"{SVG}title").text


def text_of(root) -> str:
    return " ".join(t for t in root.itertext())


def test_the_picture_is_one_svg_element_with_its_title_and_description(table):
    svg = session_svg(session=table["session"])

    assert svg.startswith("<svg ") and svg.endswith("</svg>")
    assert "<?xml" not in svg and "<!DOCTYPE" not in svg
    assert "style=" not in svg and "<style" not in svg and "<script" not in svg
    assert " on" not in svg.replace(" on ", "")  # no event handler attributes
    root = parse(svg)
    assert root.get("role") == "img"
    assert root.get("viewBox").startswith("0 0 520 ")
    assert root.get("width") == "100%"
    assert root.get("class") == "session-timeline"
    children = list(root)
    assert children[0].tag == f"{SVG}title" and children[1].tag == f"{SVG}desc"
    assert title(root) == "Kiso · Sesión 1 · Emboscada <en> Kiso"  # escaped, and read back
    assert "Emboscada &lt;en&gt; Kiso" in svg
    assert "Aiko" in root.find(f"{SVG}desc").text
    assert str(session_svg_inline(session=table["session"])) == svg


def test_the_axis_runs_from_the_clock_before_the_session_to_its_last_event(table):
    root = parse(session_svg(session=table["session"]))

    assert (int(root.get("data-from")), int(root.get("data-to"))) == (8 * HOUR, 8 * HOUR + 1800)
    ticks = [t for t in root.iter(f"{SVG}text") if t.get("data-at")]
    labels = [t.text for t in ticks]
    assert "Día 1 08:00" in labels and "Día 1 08:30" in labels
    assert all(int(t.get("data-at")) % 300 == 0 for t in ticks)  # round times


def test_time_taken_back_stretches_neither_the_axis_nor_its_lane(campaign, aiko, kenji):
    record(campaign, kind="time", hours=8)
    session = services.session_start(campaign=campaign)
    record(campaign, aiko, kind="suffer", type="fatiga", grade="leve")
    away = record(campaign, kenji, kind="time", hours=10)  # a slip, undone
    services.event_void(event=away)
    record(campaign, kind="time", minutes=30)  # 08:30
    services.session_end(session=session)

    root = parse(session_svg(session=session))

    assert int(root.get("data-to")) == 8 * HOUR + 1800  # not 18:00, the undone 10 h
    (void,) = markers(root, kenji, "void")
    assert int(void.get("data-at")) <= 8 * HOUR + 1800
    assert "Día 1 08:00 · Kenji: Anulado: +10 h" in title(void)


def test_each_pj_has_a_lane_with_a_band_per_type_shaded_by_grade_over_time(table):
    root = parse(session_svg(session=table["session"]))
    aiko, kenji = table["aiko"], table["kenji"]
    lanes = [g for g in root.iter(f"{SVG}g") if g.get("class") == "tl-lane"]
    assert [g.get("data-pj") for g in lanes] == [str(aiko.pk), str(kenji.pk)]
    assert [g.find(f"{SVG}text").text for g in lanes] == ["Aiko", "Kenji"]
    start, end = 8 * HOUR, 8 * HOUR + 1800

    heridas = [(g, a, b) for g, a, b, _rect in segments(root, aiko, "heridas")]
    # Leve from before the session; grave from 08:05 (grave is the active one, R1).
    assert heridas == [("leve", start, start + 300), ("grave", start + 300, end)]
    for type_ in ("heridas", "fatiga", "shock", "emocion", "afeccion"):
        assert segments(root, aiko, type_) and segments(root, kenji, type_)
    assert [g for g, *_ in segments(root, kenji, "fatiga")] == ["none"]  # the void never was

    x0, x1 = float(root.get("data-x0")), float(root.get("data-x1"))
    grave = next(rect for g, _a, _b, rect in segments(root, aiko, "heridas") if g == "grave")
    assert float(grave.get("x")) + float(grave.get("width")) >= x1
    assert title(grave) == "Aiko · Heridas: Grave · Día 1 08:05 – Día 1 08:30"
    shock = [(g, a, b, rect) for g, a, b, rect in segments(root, aiko, "shock")]
    assert shock[0][0] == "grave"  # from the first event on: no empty stretch before it
    # The Shock grave came and went at 08:00 (its TS passed at the end of the turn): drawn
    # with a width, between the session's start and the Heridas grave of 08:05.
    _g, a, b, shock_grave = shock[0]
    assert a == b == 8 * HOUR
    left, width = float(shock_grave.get("x")), float(shock_grave.get("width"))
    assert width >= 8
    assert x0 <= left and left + width <= float(grave.get("x"))


def test_markers_for_an_e_esp_a_check_and_a_void_with_their_hover_text(table):
    root = parse(session_svg(session=table["session"]))
    aiko, kenji = table["aiko"], table["kenji"]
    shock = table["events"]["shock"]

    gained = [m for m in markers(root, aiko, "especial") if m.get("data-seq") == str(shock.seq)]
    assert len(gained) == 1
    assert gained[0].get("data-variant") == "gained"
    assert "desprevenido" in gained[0].get("data-gained").split("|")
    assert title(gained[0]) == (
        f"#{shock.seq} · Día 1 08:00 · Aiko: Shock Grave · E.Esp: +Desprevenido"
    )

    (check,) = markers(root, aiko, "check")
    assert check.get("data-variant") == "success"
    assert check.get("data-seq") == str(table["events"]["save"].seq)
    assert title(check).startswith(f"#{table['events']['save'].seq} · Día 1 08:00 · Aiko: TS")
    assert "superada" in title(check) or "éxito" in title(check)

    (void,) = markers(root, kenji, "void")
    fatigue = table["events"]["fatigue"]
    assert void.get("data-seq") == str(fatigue.seq)
    assert title(void) == f"#{fatigue.seq} · Día 1 08:05 · Kenji: Anulado: Fatiga Leve"
    assert not markers(root, kenji, "especial")

    # The DJ sees the secret names and the secret event.
    assert "marcado" in text_of(root) and "ponzoña azul" in text_of(root).lower()
    hidden = table["events"]["hidden"]
    (derribado,) = [m for m in markers(root, aiko) if m.get("data-seq") == str(hidden.seq)]
    assert "Derribado" in title(derribado)


def test_a_players_picture_has_only_their_lane_and_no_secret(table):
    aiko = table["aiko"]
    svg = session_svg(session=table["session"], characters=[aiko], for_player=True)
    root = parse(svg)

    assert {g.get("data-pj") for g in root.iter(f"{SVG}g") if g.get("data-pj")} == {str(aiko.pk)}
    assert "Kenji" not in svg
    assert "marcado" not in svg.lower() and "ponzoña" not in svg.lower()
    assert "derribado" not in svg.lower()
    hidden = table["events"]["hidden"]
    (neutral,) = [m for m in markers(root, aiko) if m.get("data-seq") == str(hidden.seq)]
    assert title(neutral).endswith("Aiko: Algo que el DJ guarda en secreto")
    assert neutral.get("data-gained") is None
    assert not [m for m in markers(root) if m.get("data-seq") == str(table["events"]["marked"].seq)]
    assert segments(root, aiko, "heridas")  # the bands are the player's card over time


def test_an_empty_session_says_so(campaign, aiko):
    session = services.session_start(campaign=campaign, title="Nada")

    root = parse(session_svg(session=session))

    assert root.get("role") == "img"
    assert "no tiene eventos" in text_of(root) or "Sin eventos" in text_of(root)
    assert not markers(root)


def test_events_at_the_same_second_stay_apart(campaign, aiko):
    session = services.session_start(campaign=campaign)
    for _ in range(12):
        record(campaign, aiko, kind="special", name="derribado", on=True)
        record(campaign, aiko, kind="special", name="derribado", on=False)

    root = parse(session_svg(session=session))

    drawn = markers(root, aiko)
    places = set()
    for m in drawn:
        shape = m.find(f"{SVG}path")
        places.add(shape.get("d")[:14] if shape is not None else m.find(f"{SVG}rect").get("x"))
    assert len(places) == len(drawn)  # no two markers on the same spot
    shown = sum(1 for m in drawn if m.get("data-kind") != "more")
    more = [int(m.get("data-count")) for m in drawn if m.get("data-kind") == "more"]
    assert shown + sum(more) == 24
    if more:
        (badge,) = [m for m in drawn if m.get("data-kind") == "more"]
        assert title(badge).count("\n") == more[0] - 1


@pytest.mark.parametrize("count", [3, 300])
def test_the_queries_do_not_grow_with_the_events(
    campaign, aiko, kenji, count, django_assert_max_num_queries
):
    session = services.session_start(campaign=campaign)
    for i in range(count):
        if i % 3 == 0:
            record(campaign, kind="time", rounds=1)
        else:
            record(campaign, aiko if i % 2 else kenji, kind="special", name="derribado", on=True)
            record(campaign, aiko if i % 2 else kenji, kind="special", name="derribado", on=False)
    session.campaign = campaign

    with django_assert_max_num_queries(2):
        svg = session_svg(session=session)
    with django_assert_max_num_queries(2):
        session_svg(session=session, characters=[aiko], for_player=True)

    assert StateEvent.objects.filter(session=session).count() >= count
    parse(svg)


# -- the URL ------------------------------------------------------------------------------


def url(session, **query):
    path = reverse(
        "session_timeline_svg", kwargs={"slug": session.campaign.slug, "number": session.number}
    )
    return path + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def test_the_dj_gets_every_lane_inline(client, dj, table):
    client.force_login(dj)

    response = client.get(url(table["session"]))

    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert response["Content-Disposition"] == 'inline; filename="zodiac-kiso-sesion-1.svg"'
    body = response.content.decode()
    assert "Aiko" in body and "Kenji" in body and "marcado" in body
    parse(body)


def test_the_download_is_an_attachment(client, dj, table):
    client.force_login(dj)

    response = client.get(url(table["session"], descargar=1))

    assert response["Content-Disposition"] == 'attachment; filename="zodiac-kiso-sesion-1.svg"'


def test_a_player_gets_their_own_pj_without_secrets(client, table):
    client.force_login(table["mei"])

    response = client.get(url(table["session"]))

    assert response.status_code == 200
    body = response.content.decode()
    assert "Aiko" in body and "Kenji" not in body and "marcado" not in body.lower()


def test_a_player_without_a_pj_gets_an_empty_picture(client, campaign, table):
    teammate = UserFactory(username="sin-pj")
    MembershipFactory(user=teammate, campaign=campaign)
    client.force_login(teammate)

    response = client.get(url(table["session"]))

    assert response.status_code == 200
    assert "Aiko" not in response.content.decode()


def test_outsiders_and_unknown_sessions_get_404(client, dj, table):
    session = table["session"]
    stranger = UserFactory(username="stranger")
    other_dj = UserFactory(username="other-dj")
    CharacterFactory(campaign=services.campaign_create(name="Otra", slug="otra", dj=other_dj))

    client.force_login(stranger)
    assert client.get(url(session)).status_code == 404
    client.force_login(other_dj)
    assert client.get(url(session)).status_code == 404
    client.force_login(dj)
    assert client.get(url(session).replace("/sesion/1/", "/sesion/9/")).status_code == 404
    assert client.post(url(session)).status_code == 405
    client.logout()
    assert client.get(url(session)).status_code == 302


def test_stretches_too_narrow_to_see_merge_into_the_most_serious_grade():
    from campaign.history.timeline import Segment
    from campaign.history.timeline_svg import Scale, _merged

    x = Scale.linear(0, 100_000)  # a long session: a few seconds are far below a unit
    segments = [
        Segment("shock", "leve", 0, 10),
        Segment("shock", "grave", 10, 20),
        Segment("shock", None, 20, 30),
        Segment("shock", "leve", 30, 50_000),
    ]

    drawn = _merged(segments, x)

    assert [(s.grade, s.start, s.end, n) for s, n in drawn] == [
        ("grave", 0, 30, 3),
        ("leve", 30, 50_000, 0),
    ]


def test_a_fight_in_a_two_day_session_gets_its_room_and_long_quiet_stretches_are_marked(
    campaign, aiko, kenji
):
    session = services.session_start(campaign=campaign, title="Dos días")
    record(campaign, None, kind="time", hours=5)
    fight_start = StateEvent.objects.order_by("-seq").first()
    for _round in range(6):
        record(campaign, aiko, kind="suffer", type="shock", grade="leve")
        record(campaign, None, kind="time", rounds=1)
    record(campaign, None, kind="time", hours=10)
    record(campaign, None, kind="descanso")
    record(campaign, kenji, kind="suffer", type="heridas", grade="leve")
    record(campaign, None, kind="time", hours=20)
    record(campaign, None, kind="descanso")

    root = parse(session_svg(session=session))

    x0, x1 = float(root.get("data-x0")), float(root.get("data-x1"))
    start = fight_start.snapshots.first().state["clock"]
    shock = [
        rect
        for grade, a, b, rect in segments(root, aiko, "shock")
        if grade == "leve" and start <= a and b <= start + 36
    ]
    left = min(float(r.get("x")) for r in shock)
    right = max(float(r.get("x")) + float(r.get("width")) for r in shock)
    assert right - left >= (x1 - x0) / 4  # six rounds: at least a quarter of the width
    breaks = [t for t in root.iter(f"{SVG}text") if t.get("class") == "tl-break"]
    assert len(breaks) >= 2
    assert "sin eventos (acortado)" in breaks[0].find(f"{SVG}title").text
