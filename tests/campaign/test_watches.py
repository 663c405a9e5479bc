"""A party Descanso's watches by turns: each PJ on watch awake its hours and asleep the
rest, 6 h of sleep a Descanso (R22), in one tap that Deshacer takes back whole; a watch
refused next to its line, with nothing written."""

import pytest
from django.urls import reverse

from campaign.models import StateEvent
from campaign.selectors import character_state
from campaign.services.party import watch_steps
from tests.factories import CharacterFactory

HX = {"HX-Request": "true"}


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


@pytest.fixture
def party(campaign, aiko, kenji):
    """Four PJ, each in Fatiga persistente: a Descanso takes it off (R22)."""
    from campaign import services

    pjs = {"Aiko": aiko, "Kenji": kenji}
    pjs |= {name: CharacterFactory(campaign=campaign, name=name) for name in ("Mei", "Taro")}
    for pj in pjs.values():
        event = {"kind": "suffer", "type": "fatiga", "grade": "persistente"}
        services.event_record(campaign=campaign, character=pj, event=event)
    return pjs


def descanso(client, *rows, key="night-1", **extra):
    data = {"key": key, **extra}
    for i, (pj, start, end) in enumerate(rows):
        data |= {f"watch-{i}-pj": str(pj.pk if pj else ""), f"watch-{i}-start": start}
        data[f"watch-{i}-end"] = end
    return client.post(reverse("party_descanso", args=["kiso"]), data, headers=HX)


def rested(pj) -> bool:
    return character_state(character=pj)["marks"]["fatiga"] == []


@pytest.mark.parametrize(
    ("start", "end", "steps"),
    [
        # The first watch: awake, then 6 h of sleep.
        (0, 120, [("time", 120), ("sleep", 6)]),
        # The middle one: 2 + 4 h of sleep are 6, one sleep after the watch.
        (120, 240, [("time", 120), ("sleep", 6)]),
        # The last one: asleep first, up for the end of the night.
        (360, 480, [("sleep", 6), ("time", 120)]),
        # 4 h on watch in the middle: 2 + 2 h of sleep, in their order, no Descanso.
        (120, 360, [("sleep", 2), ("time", 240), ("sleep", 2)]),
        # Half hours: 1.5 + 5 h of sleep.
        (90, 180, [("time", 90), ("sleep", 6.5)]),
        (0, 480, [("time", 480)]),
    ],
)
def test_a_night_around_a_watch(start, end, steps):
    found = watch_steps(start, end)
    assert [(s["kind"], s.get("minutes", s.get("hours"))) for s in found] == steps
    assert all(s["activity"] == "activo" for s in found if s["kind"] == "time")


def test_watches_by_turns_leave_each_a_descanso_when_it_slept_6_hours(dj_client, campaign, party):
    aiko, kenji, mei, taro = party.values()
    before = StateEvent.objects.count()

    response = descanso(dj_client, (aiko, "0", "2"), (kenji, "2", "4"), (mei, "4", "8"))

    assert response.status_code == 200
    assert rested(aiko) and rested(kenji) and rested(taro)
    assert not rested(mei)  # 4 h of sleep: no Descanso
    clocks = {character_state(character=pj)["clock"] for pj in party.values()}
    assert clocks == {8 * 3600}
    added = StateEvent.objects.filter(seq__gt=before).order_by("seq")
    assert [(e.character_id, e.event["kind"]) for e in added] == [
        (None, "descanso"),  # Taro's
        (aiko.pk, "time"),
        (aiko.pk, "sleep"),
        (kenji.pk, "time"),
        (kenji.pk, "sleep"),
        (mei.pk, "sleep"),
        (mei.pk, "time"),
    ]
    html = response.content.decode()
    assert "Aiko" in html and "Mei" in html

    # One tap: Deshacer takes the whole night back.
    dj_client.post(reverse("undo", args=["kiso"]), headers=HX)
    assert not StateEvent.objects.filter(seq__gt=before, void_at__isnull=True).exists()
    assert {character_state(character=pj)["clock"] for pj in party.values()} == {0}


def test_a_repeated_tap_records_the_night_once(dj_client, campaign, party):
    aiko, kenji = party["Aiko"], party["Kenji"]
    descanso(dj_client, (aiko, "0", "2"), (kenji, "2", "4"))
    count = StateEvent.objects.count()
    descanso(dj_client, (aiko, "0", "2"), (kenji, "2", "4"))
    assert StateEvent.objects.count() == count


def test_a_watch_all_along_and_watches_by_turns_together(dj_client, campaign, party):
    aiko, kenji, mei, taro = party.values()
    descanso(dj_client, (kenji, "0", "2"), watch=str(aiko.pk))
    assert not rested(aiko) and rested(kenji) and rested(mei) and rested(taro)
    assert character_state(character=aiko)["clock"] == 8 * 3600


@pytest.mark.parametrize(
    ("rows", "line", "words"),
    [
        ((("Aiko", "0", "2"), ("Kenji", "1", "3")), 1, "A la vez que la guardia de Aiko (0–2 h)"),
        ((("Aiko", "6", "9"),), 0, "El Descanso dura 8 h"),
        ((("Aiko", "3", "2"),), 0, "Una guardia termina después de empezar"),
        ((("Aiko", "0", "2"), ("Aiko", "4", "6")), 1, "Aiko ya hace otra guardia (0–2 h)"),
        ((("Aiko", "0", ""),), 0, "Da las horas de la guardia"),
        ((("Aiko", "dos", "4"),), 0, "Da las horas con números"),
        (((None, "0", "2"),), 0, "Elige quién hace esta guardia"),
        ((("Aiko", "-1", "2"),), 0, "Da las horas con números"),
    ],
)
def test_a_bad_watch_is_refused_next_to_its_line_and_nothing_is_written(
    dj_client, campaign, party, rows, line, words
):
    before = StateEvent.objects.count()
    rows = [(party[name] if name else None, start, end) for name, start, end in rows]

    response = descanso(dj_client, *rows)

    assert response.status_code == 422
    assert response["HX-Retarget"] == "#watches"
    html = response.content.decode()
    error = html.split(f'id="watch-{line}-error" role="alert">')[1].split("</p>")[0]
    assert words in error
    assert f'name="watch-{line}-start" value="{rows[line][1]}"' in html  # as typed
    assert StateEvent.objects.count() == before


def test_one_on_watch_all_along_cannot_take_a_turn_too(dj_client, campaign, party):
    aiko = party["Aiko"]
    response = descanso(dj_client, (aiko, "0", "2"), watch=str(aiko.pk))
    assert response.status_code == 422
    assert "Aiko ya hace guardia todo el tiempo" in response.content.decode()


def test_one_asleep_cannot_keep_a_watch(dj_client, campaign, party):
    from campaign import services

    mei = party["Mei"]
    services.event_record(campaign=campaign, character=mei, event={"kind": "sleep"})
    before = StateEvent.objects.count()
    response = descanso(dj_client, (party["Aiko"], "0", "2"), (mei, "2", "4"))
    assert response.status_code == 422
    html = response.content.decode()
    assert "Mei duerme" in html.split('id="watch-1-error"')[1].split("</p>")[0]
    assert StateEvent.objects.count() == before


def test_watches_by_turns_are_for_the_descanso_not_other_time(dj_client, campaign, party):
    before = StateEvent.objects.count()
    data = {"amount": "8", "unit": "hours", "watch-0-pj": str(party["Aiko"].pk)}
    data |= {"watch-0-start": "0", "watch-0-end": "2"}
    response = dj_client.post(reverse("party_time", args=["kiso"]), data, headers=HX)
    assert response.status_code == 422
    assert "pulsa «Descanso del grupo (8 h)»" in response.content.decode()
    assert StateEvent.objects.count() == before


def test_without_javascript_a_refused_watch_opens_other_time_with_its_reason(
    client, dj, campaign, party
):
    client.force_login(dj)
    aiko, kenji = party["Aiko"], party["Kenji"]
    data = {"watch-0-pj": str(aiko.pk), "watch-0-start": "0", "watch-0-end": "2"}
    data |= {"watch-1-pj": str(kenji.pk), "watch-1-start": "1", "watch-1-end": "3"}
    response = client.post(reverse("party_descanso", args=["kiso"]), data, follow=True)

    html = response.content.decode()
    assert '<details class="menu" open>' in html
    assert "A la vez que la guardia de Aiko" in html
    assert 'name="watch-1-start" value="1"' in html
    # Once: the board read afresh is as it was.
    assert (
        '<details class="menu" open>'
        not in client.get(reverse("board", args=["kiso"])).content.decode()
    )


def test_the_board_offers_a_line_a_pj_and_none_to_a_party_of_one(dj_client, campaign, aiko, kenji):
    html = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    assert 'name="watch-1-pj"' in html and 'name="watch-2-pj"' not in html
    from campaign import services

    services.character_archive(character=kenji)
    html = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    assert 'name="watch-0-pj"' not in html


def test_a_party_all_on_watch_by_turns_needs_no_party_event(dj_client, campaign, aiko, kenji):
    before = StateEvent.objects.count()

    response = descanso(dj_client, (aiko, "0", "4"), (kenji, "4", "8"))

    assert response.status_code == 200
    added = StateEvent.objects.filter(seq__gt=before)
    assert all(e.character_id for e in added) and added.count() == 4
    assert {character_state(character=pj)["clock"] for pj in (aiko, kenji)} == {8 * 3600}
    descanso(dj_client, (aiko, "0", "4"), (kenji, "4", "8"))  # the same tap again
    assert StateEvent.objects.filter(seq__gt=before).count() == 4
    dj_client.post(reverse("undo", args=["kiso"]), headers=HX)
    assert not StateEvent.objects.filter(seq__gt=before, void_at__isnull=True).exists()
