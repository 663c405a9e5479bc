"""The `demo` and `replay_check` management commands."""

from io import StringIO

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from campaign.models import (
    Campaign,
    CatalogueEntry,
    Character,
    CharacterSnapshot,
    EventSnapshot,
    GameSession,
    Membership,
    StateEvent,
)

MODELS = [
    get_user_model(),
    Campaign,
    Membership,
    Character,
    GameSession,
    StateEvent,
    CharacterSnapshot,
    EventSnapshot,
    CatalogueEntry,
]


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=out)
    return out.getvalue()


def table_contents() -> dict:
    return {m.__name__: sorted(map(str, m.objects.values_list())) for m in MODELS}


@pytest.mark.django_db
def test_demo_loads_the_demo_campaign_with_its_dj_four_pj_and_two_past_sessions():
    output = run("demo")

    demo = Campaign.objects.get(name="Demo")
    assert demo.memberships.get(user__username="dj").role == "dj"
    players = {c.name: c.player.username for c in demo.characters.all()}
    assert players == {"Aiko": "aiko", "Kenji": "kenji", "Mei": "mei", "Taro": "taro"}
    for login in ("dj", "aiko", "kenji", "mei", "taro"):
        assert authenticate(username=login, password="zodiac-demo") is not None
        assert login in output
    assert "zodiac-demo" in output
    sessions = list(demo.sessions.order_by("number"))
    assert len(sessions) == 2
    assert all(not s.is_open and s.recap for s in sessions)
    assert all(len(s.sheet_summary) == 4 for s in sessions)
    kinds = set(demo.events.values_list("event__kind", flat=True))
    assert {"suffer", "heal", "time", "descanso", "save"} <= kinds
    assert demo.events.filter(character__isnull=True).exists()
    assert demo.events.filter(session__isnull=False).count() > 10


@pytest.mark.django_db
def test_demo_twice_changes_nothing():
    run("demo")
    before = table_contents()

    output = run("demo")

    assert table_contents() == before
    assert "already" in output


@pytest.mark.django_db
def test_replay_check_passes_on_the_demo():
    run("demo")
    assert "4 PJ match" in run("replay_check")


@pytest.mark.django_db
def test_replay_check_fails_when_a_snapshot_disagrees_with_the_log():
    run("demo")
    snapshot = CharacterSnapshot.objects.get(character__name="Mei")
    snapshot.state = {**snapshot.state, "clock": snapshot.state["clock"] + 60}
    snapshot.save()

    with pytest.raises(CommandError) as caught:
        run("replay_check")

    assert "1 of 4" in str(caught.value)


@pytest.mark.django_db
def test_replay_check_ignores_voided_events(campaign, aiko):
    from campaign import services

    wound = services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )
    services.event_void(event=wound)
    assert "1 PJ match" in run("replay_check", "--campaign", "kiso")


@pytest.mark.django_db
def test_replay_check_refuses_an_unknown_campaign():
    with pytest.raises(CommandError):
        run("replay_check", "--campaign", "nope")
