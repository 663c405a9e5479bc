"""services.event_record and the character services that write to the log."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

import rules
from campaign import selectors, services
from campaign.models import Campaign, EventSnapshot, StateEvent
from campaign.selectors import character_log, character_state
from tests.factories import CampaignFactory, CharacterFactory

HERIDAS_LEVE = {"kind": "suffer", "type": "heridas", "grade": "leve"}


def counts(campaign: Campaign) -> tuple[int, int, int]:
    campaign.refresh_from_db()
    return (
        StateEvent.objects.filter(campaign=campaign).count(),
        EventSnapshot.objects.filter(event__campaign=campaign).count(),
        campaign.last_seq,
    )


def test_it_records_the_event_with_the_next_seq_and_updates_the_snapshot(campaign, aiko):
    record = services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)

    assert record.seq == 2  # after Aiko's creation (her scores)
    assert record.event["type"] == "heridas"
    state = character_state(character=aiko)
    assert state["marks"]["heridas"] == ["leve"]
    assert state["modifiers"]["FUE"] == -1
    aiko.snapshot.refresh_from_db()
    assert aiko.snapshot.seq == record.seq
    assert record.effects[str(aiko.pk)]  # what changed, rule by rule
    snap = EventSnapshot.objects.get(event=record, character=aiko)
    assert rules.public_state(snap.state) == state


def test_it_writes_nothing_when_the_rules_refuse_the_event(campaign, aiko):
    before = counts(campaign)
    state_before = character_state(character=aiko)

    with pytest.raises(rules.RuleError) as caught:
        services.event_record(campaign=campaign, character=aiko, event={"kind": "heal"})

    assert counts(campaign) == before
    aiko.snapshot.refresh_from_db()
    assert character_state(character=aiko) == state_before
    assert caught.value.message("es")  # the caller gets a message to show
    assert caught.value.message("es") != caught.value.message("en")


def test_it_refuses_an_unknown_value_with_the_rules_message(campaign, aiko):
    with pytest.raises(rules.RuleError) as caught:
        services.event_record(
            campaign=campaign,
            character=aiko,
            event={"kind": "suffer", "type": "hambre", "grade": "leve"},
        )
    assert "hambre" in caught.value.message("es")


def test_a_repeated_idempotency_key_returns_the_first_event_and_writes_nothing(campaign, aiko):
    first = services.event_record(
        campaign=campaign, character=aiko, event=HERIDAS_LEVE, idempotency_key="tap-1"
    )
    before = counts(campaign)

    again = services.event_record(
        campaign=campaign, character=aiko, event=HERIDAS_LEVE, idempotency_key="tap-1"
    )

    assert again.pk == first.pk
    assert counts(campaign) == before
    assert character_state(character=aiko)["marks"]["heridas"] == ["leve"]


def test_the_same_idempotency_key_in_another_campaign_is_another_event(campaign, aiko):
    other = CharacterFactory()
    first = services.event_record(
        campaign=campaign, character=aiko, event=HERIDAS_LEVE, idempotency_key="k"
    )
    second = services.event_record(
        campaign=other.campaign, character=other, event=HERIDAS_LEVE, idempotency_key="k"
    )
    assert first.pk != second.pk


def test_every_event_gets_a_fresh_seed_and_a_callers_seed_is_ignored(campaign, aiko):
    records = [
        services.event_record(
            campaign=campaign, character=aiko, event={"kind": "time", "rounds": 1, "seed": 42}
        )
        for _ in range(6)
    ]
    seeds = [r.event["seed"] for r in records]
    assert all(isinstance(s, int) for s in seeds)
    assert len(set(seeds)) == len(seeds)
    assert 42 not in seeds


def test_a_campaign_wide_event_applies_to_every_pj(campaign, aiko, kenji):
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "shock", "grade": "leve"},
    )

    record = services.event_record(campaign=campaign, event={"kind": "time", "hours": 2})

    assert record.character is None
    assert set(record.effects) == {str(aiko.pk), str(kenji.pk)}
    for pj in (aiko, kenji):
        pj.snapshot.refresh_from_db()
        assert character_state(character=pj)["clock"] == 7200
        assert pj.snapshot.seq == record.seq
    assert character_state(character=aiko)["marks"]["shock"] == []
    assert EventSnapshot.objects.filter(event=record).count() == 2


def test_it_refuses_a_whole_campaign_wide_event_when_one_pj_breaks_a_rule(campaign, aiko, kenji):
    services.event_record(campaign=campaign, character=aiko, event={"kind": "sleep"})
    before = counts(campaign)

    # Kenji is awake: waking him is an error, so nobody wakes.
    with pytest.raises(rules.RuleError) as caught:
        services.event_record(campaign=campaign, event={"kind": "wake"})

    assert counts(campaign) == before
    assert character_state(character=aiko)["asleep"] is True
    assert any("Kenji" in note for note in caught.value.__notes__)


def test_it_refuses_a_campaign_wide_event_in_a_campaign_without_pj(campaign):
    with pytest.raises(ValidationError):
        services.event_record(campaign=campaign, event={"kind": "time", "hours": 1})
    assert counts(campaign) == (0, 0, 0)


def test_campaign_wide_events_before_a_pj_joined_do_not_touch_it(campaign, aiko):
    services.event_record(campaign=campaign, event={"kind": "time", "hours": 3})
    taro = CharacterFactory(campaign=campaign, name="Taro")
    services.event_record(campaign=campaign, event={"kind": "time", "hours": 1})

    # The first 3 h did not pass for Taro (he joined at their end, on the party's clock).
    assert [e.event["kind"] for e in character_log(character=taro)] == [
        "start",
        "attributes",
        "time",
    ]
    assert character_state(character=taro)["clock"] == 4 * 3600
    assert character_state(character=aiko)["clock"] == 4 * 3600


def test_a_heal_takes_regeneracion_from_the_pj_powers(campaign, aiko, kenji):
    for pj in (aiko, kenji):
        services.event_record(campaign=campaign, character=pj, event=HERIDAS_LEVE)

    record = services.event_record(
        campaign=campaign, character=kenji, event={"kind": "heal", "by_self": True}
    )
    assert record.event["regeneracion"] is True
    assert character_state(character=kenji)["marks"]["heridas"] == []

    # Aiko has no regeneracion: claiming it does not help her heal herself.
    with pytest.raises(rules.RuleError):
        services.event_record(
            campaign=campaign,
            character=aiko,
            event={"kind": "heal", "by_self": True, "regeneracion": True},
        )
    assert character_state(character=aiko)["marks"]["heridas"] == ["leve"]


def test_a_surgery_takes_regeneracion_from_the_pj_powers_too(campaign, aiko, kenji):
    # R25: surgery is a Curación, so the same power decides whether a PJ may do it alone.
    persistente = {"kind": "suffer", "type": "heridas", "grade": "persistente"}
    for pj in (aiko, kenji):
        services.event_record(campaign=campaign, character=pj, event=persistente)

    record = services.event_record(
        campaign=campaign, character=kenji, event={"kind": "surgery", "by_self": True}
    )
    assert record.event["regeneracion"] is True
    assert record.effects[str(kenji.pk)][-1]["change"] == "surgery"

    with pytest.raises(rules.RuleError) as info:
        services.event_record(
            campaign=campaign,
            character=aiko,
            event={"kind": "surgery", "by_self": True, "regeneracion": True},
        )
    assert info.value.code == "self_heal"
    assert [e.kind for e in character_log(character=aiko)][-1] == "suffer"


def test_it_refuses_a_pj_of_another_campaign(campaign):
    stranger = CharacterFactory()
    with pytest.raises(ValidationError):
        services.event_record(campaign=campaign, character=stranger, event=HERIDAS_LEVE)
    assert StateEvent.objects.filter(campaign=campaign).count() == 0


@pytest.mark.parametrize(
    "event",
    [None, [], {}, {"kind": 3}, "suffer", {"kind": "time", "hours": float("nan")}],
)
def test_it_refuses_something_that_is_not_an_event(campaign, aiko, event):
    with pytest.raises(ValidationError):
        services.event_record(campaign=campaign, character=aiko, event=event)


def test_it_refuses_an_event_dated_before_the_previous_one(campaign, aiko):
    with pytest.raises(ValidationError):
        services.event_record(
            campaign=campaign,
            character=aiko,
            event=HERIDAS_LEVE,
            recorded_at=timezone.now() - timedelta(days=1),
        )


def test_creating_a_pj_records_its_scores_as_its_first_event(campaign, dj):
    mei = services.character_create(
        campaign=campaign, name="Mei", attributes={"fue": 2, "VOL": 4}, actor=dj
    )
    (first,) = StateEvent.objects.filter(character=mei)
    assert first.event["kind"] == "attributes"
    assert first.event["scores"] == {"FUE": 2, "VOL": 4}
    assert first.actor == dj
    assert mei.attributes == {"FUE": 2, "VOL": 4}


def test_a_pj_who_joins_later_starts_on_the_partys_game_clock(campaign, aiko):
    services.event_record(campaign=campaign, character=None, event={"kind": "time", "hours": 30})

    mei = services.character_create(campaign=campaign, name="Mei", attributes={"FUE": 2})

    kinds = [e.event["kind"] for e in StateEvent.objects.filter(character=mei).order_by("seq")]
    assert kinds == ["start", "attributes"]
    assert character_state(character=mei)["clock"] == 30 * 3600
    # It joins rested: its first day without Descanso ends 24 h after it joined.
    services.event_record(campaign=campaign, character=None, event={"kind": "time", "hours": 23})
    assert character_state(character=mei)["marks"]["fatiga"] == []
    services.event_record(campaign=campaign, character=None, event={"kind": "time", "hours": 1})
    assert character_state(character=mei)["marks"]["fatiga"] == ["persistente"]
    assert character_state(character=mei)["clock"] == character_state(character=aiko)["clock"]


def test_creating_a_pj_makes_its_player_a_member(campaign):
    from tests.factories import UserFactory

    player = UserFactory()
    CharacterFactory(campaign=campaign, player=player)
    assert campaign.memberships.get(user=player).role == "player"


def test_new_scores_are_recorded_and_unchanged_ones_are_not(campaign, aiko):
    services.character_update(character=aiko, attributes=dict(aiko.attributes), notes="x")
    assert StateEvent.objects.filter(character=aiko).count() == 1

    services.character_update(character=aiko, attributes={**aiko.attributes, "FUE": 5})

    events = list(StateEvent.objects.filter(character=aiko).order_by("seq"))
    assert len(events) == 2
    assert events[-1].event == {
        "kind": "attributes",
        "scores": {"FUE": 5, "AGI": 5, "DES": 4, "VOL": 3},
        "seed": events[-1].event["seed"],
    }
    aiko.refresh_from_db()
    assert aiko.attributes["FUE"] == 5
    assert aiko.notes == "x"


@pytest.mark.parametrize("scores", [{"FUE": "alta"}, {"FUE": -1}, ["FUE"], {"": 3}])
def test_it_refuses_scores_that_are_not_whole_numbers(campaign, scores):
    with pytest.raises(ValidationError):
        services.character_create(campaign=campaign, name="Mal", attributes=scores)
    assert not campaign.characters.exists()


def test_a_new_campaign_gets_the_spec_catalogue(db):
    campaign = CampaignFactory()
    names = set(campaign.catalogue.values_list("name", flat=True))
    # The rules/README.md E.Esp and diseases, and two poisons of our own to start from.
    assert names == set(rules.SPECIALS) | {"veneno paralizante", "veneno somnífero"}
    assert all(campaign.catalogue.values_list("effect", flat=True))
    assert services.catalogue_seed(campaign=campaign) == 0


def test_it_refuses_an_idempotency_key_too_long_to_store(campaign, aiko):
    with pytest.raises(ValidationError):
        services.event_record(
            campaign=campaign, character=aiko, event=HERIDAS_LEVE, idempotency_key="k" * 101
        )
    assert StateEvent.objects.filter(character=aiko).count() == 1


@pytest.mark.django_db
def test_a_round_pass_records_the_missing_turn_ends_first_then_the_round(campaign, aiko, kenji):
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "shock", "grade": "grave"},
    )

    records = services.round_pass(campaign=campaign, idempotency_key="dj:k1")
    again = services.round_pass(campaign=campaign, idempotency_key="dj:k1")  # a double tap

    assert [(r.character_id, r.event["kind"]) for r in records] == [
        (aiko.pk, "turn_end"),
        (None, "time"),
    ]
    assert [r.pk for r in again][-1] == records[-1].pk  # nothing recorded twice
    assert StateEvent.objects.filter(campaign=campaign, event__kind="time").count() == 1


# -- the party: archived PJ and PJ left out ------------------------------------------------

PARTY_HOUR = {"kind": "time", "hours": 1}


def clock(character) -> int:
    character.snapshot.refresh_from_db()
    return character.snapshot.state["clock"]


def test_an_archived_pj_takes_no_part_in_party_time_and_never_blocks_it(campaign, aiko, kenji):
    services.event_record(campaign=campaign, character=kenji, event={"kind": "sleep"})
    services.character_archive(character=kenji)  # asleep: a party Descanso would be refused

    services.event_record(campaign=campaign, event=PARTY_HOUR)
    services.event_record(campaign=campaign, event={"kind": "descanso"})
    services.round_pass(campaign=campaign)

    assert clock(aiko) == 9 * 3600 + 6 and clock(kenji) == 0
    kinds = [e.kind for e in character_log(character=kenji)]
    assert kinds == ["attributes", "sleep"]  # its log froze when it was archived
    assert selectors.campaign_clock(campaign=campaign) == clock(aiko)


def test_restored_it_is_back_in_the_party_and_behind_its_clock(campaign, aiko, kenji):
    services.character_archive(character=kenji)
    services.event_record(campaign=campaign, event=PARTY_HOUR)
    services.character_restore(character=kenji)
    services.event_record(campaign=campaign, event=PARTY_HOUR)

    assert clock(aiko) == 7200 and clock(kenji) == 3600
    assert [e.kind for e in character_log(character=kenji)] == ["attributes", "time"]


def test_an_archived_pj_gets_no_event_of_its_own_but_its_scores(campaign, aiko):
    services.character_archive(character=aiko)
    before = counts(campaign)

    with pytest.raises(ValidationError, match="archivad|archived"):
        services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)

    assert counts(campaign) == before
    services.event_record(
        campaign=campaign, character=aiko, event={"kind": "attributes", "scores": {"FUE": 4}}
    )


def test_a_pj_keeping_watch_stays_awake_through_the_partys_descanso(campaign, aiko, kenji):
    services.event_record(
        campaign=campaign,
        character=kenji,
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
    )

    records = services.party_event(
        campaign=campaign, event={"kind": "descanso"}, watch=frozenset({kenji.pk})
    )

    assert [(r.character, r.kind) for r in records] == [(None, "descanso"), (kenji, "time")]
    assert records[1].event["hours"] == 8 and records[1].event["activity"] == "activo"
    assert list(records[0].effects) == [str(aiko.pk)]
    assert clock(aiko) == clock(kenji) == 8 * 3600
    aiko.snapshot.refresh_from_db(), kenji.snapshot.refresh_from_db()
    assert aiko.snapshot.state["engine"]["last_descanso"] == 8 * 3600
    assert kenji.snapshot.state["engine"]["last_descanso"] == 0  # awake: no Descanso
    # Its Fatiga leve stays: awake, not resting.
    assert character_state(character=kenji)["marks"]["fatiga"] == ["leve"]


def test_a_pj_keeping_watch_gets_party_rest_as_activity(campaign, aiko, kenji):
    services.event_record(
        campaign=campaign,
        character=kenji,
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
    )
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
    )

    services.party_event(
        campaign=campaign,
        event={"kind": "time", "minutes": 5, "activity": "reposo"},
        watch=frozenset({kenji.pk}),
    )

    assert character_state(character=aiko)["marks"]["fatiga"] == []
    assert character_state(character=kenji)["marks"]["fatiga"] == ["leve"]
    assert clock(aiko) == clock(kenji) == 300


def test_a_party_hour_with_everyone_on_watch_is_each_ones_waking_hour(campaign, aiko):
    """Every PJ keeping watch: no party event (it would reach nobody), each one's awake hour."""
    records = services.party_event(campaign=campaign, event=PARTY_HOUR, watch=frozenset({aiko.pk}))
    assert [(r.character_id, r.event["activity"]) for r in records] == [(aiko.pk, "activo")]
    assert clock(aiko) == 3600


def test_a_party_event_with_nobody_in_play_is_refused_and_writes_nothing(campaign, aiko):
    services.character_archive(character=aiko)
    before = counts(campaign)
    with pytest.raises(ValidationError):
        services.party_event(campaign=campaign, event=PARTY_HOUR)
    assert counts(campaign) == before


# -- bringing a PJ level with the party ----------------------------------------------------


def behind(campaign, kenji, hours):
    services.character_archive(character=kenji)
    services.event_record(campaign=campaign, event={"kind": "time", "hours": hours})
    services.character_restore(character=kenji)


@pytest.mark.parametrize(
    ("how", "kinds"),
    [
        ("activo", ["time"]),
        ("reposo", ["time"]),
        ("dormir", ["descanso", "time", "sleep"]),
    ],
)
def test_catch_up_brings_a_pj_level_as_the_time_passed(campaign, aiko, kenji, how, kinds):
    behind(campaign, kenji, 30)

    records = services.catch_up(character=kenji, how=how)

    assert [r.kind for r in records] == kinds
    assert clock(kenji) == clock(aiko) == 30 * 3600
    if how == "reposo":
        assert records[0].event["activity"] == "reposo"


def test_catch_up_asleep_for_less_than_a_night_sleeps_through(campaign, aiko, kenji):
    behind(campaign, kenji, 3)

    records = services.catch_up(character=kenji, how="dormir")

    assert [(r.kind, r.event.get("hours")) for r in records] == [("sleep", 3)]
    assert clock(kenji) == clock(aiko)


def test_catch_up_of_a_pj_already_level_is_refused(campaign, aiko, kenji):
    before = counts(campaign)
    with pytest.raises(ValidationError, match="Kenji"):
        services.catch_up(character=kenji, how="activo")
    with pytest.raises(ValidationError):
        services.catch_up(character=kenji, how="volar")
    assert counts(campaign) == before
