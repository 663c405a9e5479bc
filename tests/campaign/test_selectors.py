"""Selectors: states come from snapshots, at any point of the log."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

import rules
from campaign import selectors, services
from tests.factories import CampaignFactory, CharacterFactory, MembershipFactory, UserFactory

HERIDAS_LEVE = {"kind": "suffer", "type": "heridas", "grade": "leve"}
FATIGA_LEVE = {"kind": "suffer", "type": "fatiga", "grade": "leve"}


def test_state_at_gives_the_pj_state_right_after_each_event(campaign, aiko):
    wound = services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)
    tired = services.event_record(campaign=campaign, character=aiko, event=FATIGA_LEVE)

    after_wound = selectors.state_at(character=aiko, event=wound)
    after_tired = selectors.state_at(character=aiko, event=tired)

    assert after_wound["marks"]["heridas"] == ["leve"]
    assert after_wound["marks"]["fatiga"] == []
    assert after_tired["marks"]["fatiga"] == ["leve"]
    assert "engine" not in after_tired


def test_state_at_another_pj_event_is_this_pj_state_at_that_moment(campaign, aiko, kenji):
    services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)
    kenji_event = services.event_record(campaign=campaign, character=kenji, event=FATIGA_LEVE)
    services.event_record(campaign=campaign, character=aiko, event=FATIGA_LEVE)

    aiko_then = selectors.state_at(character=aiko, event=kenji_event)

    assert aiko_then["marks"]["heridas"] == ["leve"]
    assert aiko_then["marks"]["fatiga"] == []


def test_state_at_a_wall_clock_time_uses_the_events_recorded_by_then(dj):
    start = timezone.now() - timedelta(days=3)
    campaign = CampaignFactory(dj=dj)
    aiko = services.character_create(
        campaign=campaign, name="Aiko", attributes={"FUE": 3}, recorded_at=start
    )
    for day, event in enumerate([HERIDAS_LEVE, FATIGA_LEVE], start=1):
        services.event_record(
            campaign=campaign,
            character=aiko,
            event=event,
            recorded_at=start + timedelta(days=day),
        )

    before_any = selectors.state_at(character=aiko, at=start - timedelta(hours=1))
    day_one = selectors.state_at(character=aiko, at=start + timedelta(days=1, hours=2))
    now = selectors.state_at(character=aiko, at=timezone.now())

    assert before_any == rules.public_state(rules.initial_state())
    assert day_one["marks"]["heridas"] == ["leve"]
    assert day_one["marks"]["fatiga"] == []
    assert now["marks"]["fatiga"] == ["leve"]


def test_state_at_before_a_pj_joined_is_the_initial_state(campaign, aiko):
    early = services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)
    taro = CharacterFactory(campaign=campaign, name="Taro")
    assert selectors.state_at(character=taro, event=early) == rules.public_state(
        rules.initial_state()
    )


def test_state_at_refuses_an_event_of_another_campaign(aiko):
    foreign = services.event_record(
        campaign=(other := CharacterFactory()).campaign, character=other, event=HERIDAS_LEVE
    )
    with pytest.raises(ValidationError):
        selectors.state_at(character=aiko, event=foreign)


def test_state_at_needs_exactly_one_of_event_and_moment(campaign, aiko):
    with pytest.raises(ValidationError):
        selectors.state_at(character=aiko)


def test_reads_never_fold_the_log(campaign, aiko, kenji, monkeypatch):
    tired = services.event_record(campaign=campaign, event={"kind": "time", "hours": 1})

    def refuse(*args, **kwargs):
        raise AssertionError("a selector folded the log")

    monkeypatch.setattr(rules, "apply", refuse)
    monkeypatch.setattr(rules, "replay", refuse)

    states = dict(selectors.character_states(campaign=campaign))
    assert states[aiko]["clock"] == 3600
    assert selectors.character_state(character=kenji)["clock"] == 3600
    assert selectors.state_at(character=aiko, event=tired)["clock"] == 3600


def test_a_user_sees_only_the_campaigns_they_belong_to(campaign, dj):
    MembershipFactory(user=dj, campaign=CampaignFactory(name="Another"))
    CampaignFactory(name="Not mine")

    names = [m.campaign.name for m in selectors.membership_list_for_user(user=dj)]

    assert names == ["Another", "Kiso"]
    assert not selectors.membership_list_for_user(user=UserFactory())


def test_the_pj_log_has_its_own_and_later_campaign_wide_events(campaign, aiko):
    services.event_record(campaign=campaign, event={"kind": "time", "hours": 1})
    taro = CharacterFactory(campaign=campaign, name="Taro")
    services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)
    wide = services.event_record(campaign=campaign, event={"kind": "time", "hours": 1})

    kinds = [e.kind for e in selectors.character_log(character=taro)]

    assert kinds == ["start", "attributes", "time"]
    assert selectors.character_log(character=taro).last() == wide


def test_the_newest_campaign_wide_events_are_read_in_batches_past_the_first(campaign):
    from campaign.fight_reads import _newest_first
    from campaign.models import StateEvent

    StateEvent.objects.bulk_create(
        StateEvent(campaign=campaign, seq=n, event={"kind": "time", "rounds": 1}, effects={})
        for n in range(1, 251)
    )
    rows = StateEvent.objects.filter(campaign=campaign).order_by("-seq").values_list("seq", "event")

    seqs = [seq for seq, _event in _newest_first(rows, batch=100)]

    assert seqs == list(range(250, 0, -1))


@pytest.mark.parametrize(
    "log",
    [
        [],
        [{"kind": "time", "rounds": 1}] * 3,
        [{"kind": "time", "rounds": 2}, {"kind": "descanso"}, {"kind": "time", "rounds": 1}],
        [{"kind": "time", "minutes": 5}, {"kind": "time", "rounds": 1}],
        # A fight longer than the round's window: read on past the first batch.
        [{"kind": "time", "rounds": 1}, {"kind": "fight", "do": "start", "order": []}]
        + [{"kind": "time", "rounds": 1}, {"kind": "fight", "do": "pass", "slot": 0}] * 150,
        [{"kind": "fight", "do": "start", "order": []}, {"kind": "fight", "do": "end"}]
        + [{"kind": "time", "rounds": 1}] * 250,
    ],
    ids=["empty", "rounds", "descanso", "other-time", "long-fight", "after-a-fight"],
)
def test_the_fight_and_the_round_read_together_are_those_read_apart(campaign, aiko, log, request):
    from campaign.models import StateEvent

    order = [{"pj": aiko.pk, "init": 10}]
    StateEvent.objects.bulk_create(
        StateEvent(
            campaign=campaign,
            seq=1000 + n,
            event={**event, "order": order} if "order" in event else event,
            effects={},
        )
        for n, event in enumerate(log)
    )

    now, rounds = selectors.fight_and_round(campaign=campaign)

    assert (now is not None) == ("long-fight" in request.node.name)
    assert rounds == selectors.current_round(campaign=campaign)
    apart = selectors.fight_now(campaign=campaign)
    assert (now and (now.round, now.current, now.token)) == (
        apart and (apart.round, apart.current, apart.token)
    )
