"""Whatever is recorded and voided, the projections equal a fresh fold of the log."""

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules
from campaign import selectors, services
from campaign.history.replay import campaign_replay_check
from campaign.models import StateEvent
from tests.factories import CampaignFactory, CharacterFactory

EVENTS = [
    {"kind": "suffer", "type": t, "grade": g}
    for t in ("heridas", "fatiga", "shock")
    for g in ("leve", "grave", "persistente")
] + [
    {"kind": "suffer", "type": "emocion", "grade": "leve", "variant": "miedo"},
    {"kind": "suffer", "type": "afeccion", "grade": "leve", "source": "fugu"},
    {"kind": "heal"},
    {"kind": "turn_end"},
    {"kind": "safe"},
    {"kind": "sleep"},
    {"kind": "wake"},
    {"kind": "descanso"},
    {"kind": "time", "rounds": 1},
    {"kind": "time", "minutes": 5, "activity": "reposo", "calm": True},
    {"kind": "time", "hours": 7},
    {"kind": "save", "check": "shock_grave_fin_turno", "success": True},
    {"kind": "save", "check": "heridas_leve_descanso", "success": False},
]

record_op = st.tuples(
    st.just("record"), st.sampled_from([None, 0, 1]), st.sampled_from(range(len(EVENTS)))
)
void_op = st.tuples(st.just("void"), st.integers(0, 40), st.just(0))


@pytest.mark.django_db
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(st.one_of(record_op, record_op, void_op), max_size=25))
def test_snapshots_and_states_after_each_event_equal_a_fresh_fold(ops):
    with transaction.atomic():
        campaign = CampaignFactory(slug="prop")
        pjs = [CharacterFactory(campaign=campaign, name=n) for n in ("Aiko", "Kenji")]
        for op, target, n in ops:
            try:
                if op == "record":
                    services.event_record(
                        campaign=campaign,
                        character=None if target is None else pjs[target],
                        event=EVENTS[n],
                    )
                else:
                    live = list(StateEvent.objects.filter(campaign=campaign, void_at=None))
                    if not live:
                        continue
                    services.event_void(event=live[target % len(live)])
            except (rules.RuleError, services.EventVoidRefused, ValidationError):
                pass

        assert campaign_replay_check(campaign=campaign) == (2, [])
        seqs = list(campaign.events.order_by("seq").values_list("seq", flat=True))
        assert seqs == list(range(1, len(seqs) + 1))
        options = campaign.rule_options()
        for pj in pjs:
            log = list(selectors.character_log(character=pj))
            for i, event in enumerate(log):
                expected = rules.replay([e.event for e in log[: i + 1]], options)
                assert selectors.state_at(character=pj, event=event) == expected
        transaction.set_rollback(True)
