"""services.event_void: a compensating record that re-folds what it touched."""

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from campaign import services
from campaign.history.replay import campaign_replay_check
from campaign.models import StateEvent
from campaign.present.events import void_refused
from campaign.selectors import character_state, state_at
from tests.factories import CharacterFactory

HERIDAS_LEVE = {"kind": "suffer", "type": "heridas", "grade": "leve"}
FATIGA_LEVE = {"kind": "suffer", "type": "fatiga", "grade": "leve"}
SHOCK_LEVE = {"kind": "suffer", "type": "shock", "grade": "leve"}


def record(campaign, character, event):
    return services.event_record(campaign=campaign, character=character, event=event)


def test_voiding_keeps_the_event_marked_and_refolds_the_pj(campaign, aiko, dj):
    wound = record(campaign, aiko, HERIDAS_LEVE)
    record(campaign, aiko, FATIGA_LEVE)

    voided = services.event_void(event=wound, actor=dj, reason="Era para Kenji")

    assert StateEvent.objects.filter(pk=wound.pk).exists()
    assert voided.is_void
    assert voided.void_by == dj
    assert voided.void_reason == "Era para Kenji"
    state = character_state(character=aiko)
    assert state["marks"]["heridas"] == []
    assert state["marks"]["fatiga"] == ["leve"]
    assert campaign_replay_check(campaign=campaign) == (1, [])


def test_a_pj_state_after_a_later_event_follows_the_corrected_log(campaign, aiko):
    wound = record(campaign, aiko, HERIDAS_LEVE)
    tired = record(campaign, aiko, FATIGA_LEVE)

    services.event_void(event=wound, reason="error")

    after_tired = state_at(character=aiko, event=tired)
    assert after_tired["marks"]["heridas"] == []
    assert after_tired["marks"]["fatiga"] == ["leve"]
    # The voided event itself no longer changes anything.
    assert state_at(character=aiko, event=wound)["marks"]["heridas"] == []


def test_it_refuses_to_void_when_a_later_event_would_become_invalid_and_names_it(campaign, aiko):
    wound = record(campaign, aiko, HERIDAS_LEVE)
    heal = record(campaign, aiko, {"kind": "heal"})

    with pytest.raises(services.EventVoidRefused) as caught:
        services.event_void(event=wound, reason="error")

    refused = caught.value
    assert refused.blocking_event.pk == heal.pk
    assert refused.character == aiko
    with translation.override("es"):
        assert f"#{heal.seq}" in void_refused(refused)
    with translation.override("en"):
        assert "heal" in void_refused(refused)
    wound.refresh_from_db()
    assert not wound.is_void
    assert character_state(character=aiko)["marks"]["fatiga"] == ["leve"]
    assert campaign_replay_check(campaign=campaign) == (1, [])


def test_it_refuses_to_void_an_event_twice(campaign, aiko):
    wound = record(campaign, aiko, HERIDAS_LEVE)
    services.event_void(event=wound)
    with pytest.raises(ValidationError):
        services.event_void(event=wound)


def test_voiding_a_campaign_wide_event_refolds_every_pj(campaign, aiko, kenji):
    record(campaign, aiko, SHOCK_LEVE)
    rounds = services.event_record(campaign=campaign, event={"kind": "time", "rounds": 1})
    record(campaign, kenji, FATIGA_LEVE)
    assert character_state(character=aiko)["marks"]["shock"] == []

    services.event_void(event=rounds, reason="no pasó el tiempo")

    assert character_state(character=aiko)["marks"]["shock"] == ["leve"]
    assert character_state(character=aiko)["clock"] == 0
    assert character_state(character=kenji)["clock"] == 0
    assert character_state(character=kenji)["marks"]["fatiga"] == ["leve"]
    assert campaign_replay_check(campaign=campaign) == (2, [])


def test_later_events_keep_their_effects_in_step_with_the_corrected_log(campaign, aiko):
    first = record(campaign, aiko, HERIDAS_LEVE)
    second = record(campaign, aiko, HERIDAS_LEVE)  # R2: leve again becomes grave
    assert "grave" in character_state(character=aiko)["marks"]["heridas"]

    services.event_void(event=first)

    second.refresh_from_db()
    assert character_state(character=aiko)["marks"]["heridas"] == ["leve"]
    changes = [fx.get("grade") for fx in second.effects[str(aiko.pk)]]
    assert "grave" not in changes


def test_new_events_apply_on_top_of_the_corrected_state(campaign, aiko):
    wound = record(campaign, aiko, HERIDAS_LEVE)
    services.event_void(event=wound)

    record(campaign, aiko, HERIDAS_LEVE)

    assert character_state(character=aiko)["marks"]["heridas"] == ["leve"]
    assert campaign_replay_check(campaign=campaign) == (1, [])


def test_a_refused_campaign_wide_void_names_the_earliest_event_it_would_break(
    campaign, aiko, kenji
):
    sleep = services.event_record(campaign=campaign, event={"kind": "sleep"})
    kenji_wakes = record(campaign, kenji, {"kind": "wake"})
    record(campaign, aiko, {"kind": "wake"})

    with pytest.raises(services.EventVoidRefused) as caught:
        services.event_void(event=sleep)

    assert caught.value.blocking_event.pk == kenji_wakes.pk
    assert caught.value.character == kenji
    sleep.refresh_from_db()
    assert not sleep.is_void
    assert campaign_replay_check(campaign=campaign) == (2, [])


def test_a_refused_void_names_every_later_event_that_would_no_longer_hold(campaign, aiko, kenji):
    sleep = services.event_record(campaign=campaign, event={"kind": "sleep"})
    kenji_wakes = record(campaign, kenji, {"kind": "wake"})
    aiko_wakes = record(campaign, aiko, {"kind": "wake"})

    with pytest.raises(services.EventVoidRefused) as caught:
        services.event_void(event=sleep)

    refused = caught.value
    assert [(e.pk, c) for e, c, _err in refused.blocking] == [
        (kenji_wakes.pk, kenji),
        (aiko_wakes.pk, aiko),
    ]
    with translation.override("es"):
        words = void_refused(refused)
    for event, who in ((kenji_wakes, "Kenji"), (aiko_wakes, "Aiko")):
        assert f'<a href="/c/kiso/evento/{event.seq}/">#{event.seq}</a> de {who}' in words
    assert "2 eventos posteriores" in words


def test_a_refused_void_with_many_later_events_names_the_first_few_and_counts_the_rest(
    campaign, aiko
):
    party = [aiko, *(CharacterFactory(campaign=campaign, name=f"PJ {n}") for n in range(1, 7))]
    sleep = services.event_record(campaign=campaign, event={"kind": "sleep"})
    wakes = [record(campaign, pj, {"kind": "wake"}) for pj in party]

    with pytest.raises(services.EventVoidRefused) as caught:
        services.event_void(event=sleep)

    assert [e.pk for e, _c, _err in caught.value.blocking] == [w.pk for w in wakes]
    with translation.override("es"):
        words = void_refused(caught.value)
    assert all(f"#{w.seq}</a>" in words for w in wakes[:5])
    assert f"#{wakes[5].seq}</a>" not in words
    assert "y 2 más" in words
    with translation.override("en"):
        assert "and 2 more" in void_refused(caught.value)
