"""Tirar todas: a PJ's pending checks rolled in one tap, each roll its own event, stopping
at the first roll that changes the PJ."""

import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from campaign import selectors, services
from campaign.models import StateEvent
from campaign.selectors import character_state

HX = {"HX-Request": "true"}


def record(pj, **event):
    return services.event_record(campaign=pj.campaign, character=pj, event=event)


def dice(*faces):
    rolled = iter(faces)
    return lambda: next(rolled)


def pending(pj) -> list[str]:
    return [p["check"] for p in character_state(character=pj)["pending"]]


@pytest.fixture
def piled(aiko):
    """Aiko (VOL 3) in Shock grave after four turn ends: four TS VOL waiting."""
    record(aiko, kind="suffer", type="shock", grade="grave")
    for _ in range(4):
        record(aiko, kind="turn_end")
    assert pending(aiko) == ["shock_grave_fin_turno"] * 4
    return aiko


def test_failures_roll_on_and_the_first_success_ends_the_pile(piled):
    done = services.checks_roll_all(character=piled, idempotency_key="k1", die=dice(5, 6, 2))

    assert [e.event["ts_roll"] for e in done.records] == [5, 6, 2]
    assert [e.event["success"] for e in done.records] == [False, False, True]
    assert [e.idempotency_key for e in done.records] == ["k1:r0", "k1:r1", "k1:r2"]
    assert done.rolls == [(5, 3), (6, 3), (2, 3)]
    assert (done.left, done.stopped) == (0, "")
    assert pending(piled) == []  # the success ended the Shock grave, and its checks with it


def test_a_roll_that_changes_the_pj_stops_the_rest(aiko):
    record(aiko, kind="suffer", type="heridas", grade="grave")
    record(aiko, kind="time", days=3)
    assert pending(aiko).count("heridas_grave_infeccion") == 3

    done = services.checks_roll_all(character=aiko, die=dice(6, 6, 6))

    assert len(done.records) == 1  # the failure gave an infection: the next two wait
    assert "infeccion" in character_state(character=aiko)["afflictions"]
    assert done.stopped == "changed"
    assert done.left == len(pending(aiko)) and pending(aiko).count("heridas_grave_infeccion") == 2


def test_nothing_pending_or_no_score_is_refused_and_writes_nothing(campaign, aiko, kenji):
    before = StateEvent.objects.count()
    with pytest.raises(ValidationError, match="no tiene tiradas pendientes"):
        services.checks_roll_all(character=aiko, die=dice(1))
    record(kenji, kind="suffer", type="shock", grade="grave")
    record(kenji, kind="turn_end")
    record(kenji, kind="turn_end")
    kenji.attributes = {"FUE": 5}
    kenji.save()
    after_setup = StateEvent.objects.count()
    with pytest.raises(ValidationError, match="no tiene puntuación de VOL: añádela a su ficha"):
        services.checks_roll_all(character=kenji, die=dice(1))
    assert StateEvent.objects.count() == after_setup == before + 3


def test_a_repeated_tap_returns_its_first_rolls(piled):
    first = services.checks_roll_all(character=piled, idempotency_key="k2", die=dice(6, 6, 6, 6))
    count = StateEvent.objects.count()

    again = services.checks_roll_all(character=piled, idempotency_key="k2", die=dice(1))

    assert [e.pk for e in again.records] == [e.pk for e in first.records]
    assert again.rolls == first.rolls
    assert StateEvent.objects.count() == count


def test_a_long_pile_is_rolled_a_batch_at_a_time(aiko):
    record(aiko, kind="suffer", type="shock", grade="grave")
    for _ in range(services.ROLL_ALL_MAX + 5):
        record(aiko, kind="turn_end")

    done = services.checks_roll_all(character=aiko, die=lambda: 6)

    assert len(done.records) == services.ROLL_ALL_MAX
    assert (done.left, done.stopped) == (5, "limit")


# -- on the board ------------------------------------------------------------------------


def test_the_card_counts_a_pile_as_one_row_and_offers_to_roll_them_all(client, dj, piled):
    client.force_login(dj)

    html = client.get(reverse("board", args=[piled.campaign.slug])).content.decode()

    assert "Tirar todas (4)" in html
    assert "×4" in html
    assert html.count('name="check" value="shock_grave_fin_turno"') == 1


def test_rolling_them_all_from_the_card_records_each_roll_and_undoes_as_one(client, dj, piled):
    client.force_login(dj)
    url = reverse("act", args=[piled.campaign.slug, piled.pk])
    before = StateEvent.objects.count()

    answer = client.post(url, {"action": "roll_all", "key": "tap-1"}, headers=HX)

    assert answer.status_code == 200
    rolls = list(
        StateEvent.objects.filter(idempotency_key__startswith=f"{dj.pk}:tap-1").order_by("seq")
    )
    assert len(rolls) == StateEvent.objects.count() - before >= 1
    assert all(e.event["kind"] == "save" for e in rolls)
    html = answer.content.decode()
    assert html.count("TS VOL") >= len(rolls)
    assert len(selectors.tap_of(event=rolls[0])) == len(rolls)
    undo = client.post(reverse("undo", args=[piled.campaign.slug]), {"key": "u1"}, headers=HX)
    assert undo.status_code == 200
    assert pending(piled) == ["shock_grave_fin_turno"] * 4


def test_rolling_them_all_with_nothing_pending_says_why_on_the_card(client, dj, aiko):
    client.force_login(dj)
    url = reverse("act", args=[aiko.campaign.slug, aiko.pk])

    answer = client.post(url, {"action": "roll_all", "key": "tap-2"}, headers=HX)

    assert answer.status_code == 422
    assert "Aiko no tiene tiradas pendientes." in answer.content.decode()
    assert not StateEvent.objects.filter(idempotency_key__contains="tap-2").exists()


def test_the_toast_says_the_whole_tap_in_one_line(client, dj, piled):
    client.force_login(dj)
    url = reverse("act", args=[piled.campaign.slug, piled.pk])

    html = client.post(url, {"action": "roll_all", "key": "tap-3"}, headers=HX).content.decode()

    assert re.search(r"Aiko: Tirar todas: \d tiradas? \(1d6 = [1-6](, [1-6])* contra VOL 3\)", html)


def test_the_toast_says_each_die_against_its_own_score():
    from campaign.views.board import dice_words

    fue, vol = "FUE 6", "VOL 2"
    rolls = [(3, fue), (2, fue), (2, fue), (1, vol), (2, vol), (6, vol), (4, fue)]

    assert dice_words(rolls) == "3, 2, 2 contra FUE 6; 1, 2, 6 contra VOL 2; 4 contra FUE 6"
    assert dice_words([(5, "VOL 3")]) == "5 contra VOL 3"


def test_a_stop_says_how_many_are_left_in_good_spanish(aiko):
    from campaign.views.board import roll_all_note

    for left, words in ((1, "Queda 1 por tirar."), (3, "Quedan 3 por tirar.")):
        done = services.RolledAll([], [], left, "changed")
        assert roll_all_note(done, aiko) == f"Parado: la última tirada cambió a Aiko. {words}"


def test_no_tirar_todas_is_offered_when_the_first_check_has_no_score(client, dj, kenji):
    kenji.attributes = {"FUE": 5}
    kenji.save()
    record(kenji, kind="suffer", type="shock", grade="grave")
    record(kenji, kind="turn_end")
    record(kenji, kind="turn_end")
    client.force_login(dj)

    html = client.get(reverse("board", args=[kenji.campaign.slug])).content.decode()

    assert "×2" in html and "Tirar todas" not in html


def test_an_event_that_grows_a_pile_says_so_on_its_page(client, dj, aiko):
    record(aiko, kind="suffer", type="shock", grade="grave")
    record(aiko, kind="turn_end")
    second = record(aiko, kind="turn_end")
    client.force_login(dj)

    html = client.get(reverse("event_detail", args=[aiko.campaign.slug, second.seq])).content
    assert "(×1 → ×2)" in html.decode()
