"""session_start and session_end."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from campaign import services
from campaign.selectors import character_state

HERIDAS_LEVE = {"kind": "suffer", "type": "heridas", "grade": "leve"}


def test_sessions_are_numbered_in_order_and_only_one_is_open(campaign):
    first = services.session_start(campaign=campaign, title="Uno")
    with pytest.raises(ValidationError):
        services.session_start(campaign=campaign, title="Otra")
    services.session_end(session=first)

    second = services.session_start(campaign=campaign, title="Dos")

    assert (first.number, second.number) == (1, 2)
    assert second.is_open


def test_events_recorded_during_a_session_belong_to_it(campaign, aiko):
    session = services.session_start(campaign=campaign)
    inside = services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)
    services.session_end(session=session)
    outside = services.event_record(campaign=campaign, character=aiko, event={"kind": "turn_end"})

    assert inside.session == session
    assert outside.session is None


def test_ending_a_session_keeps_every_pj_state_as_its_sheet_summary(campaign, aiko, kenji):
    session = services.session_start(campaign=campaign, title="Kiso")
    services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)

    ended = services.session_end(session=session, recap="Emboscada")
    services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)

    ended.refresh_from_db()
    assert ended.ended_at is not None
    assert ended.recap == "Emboscada"
    assert set(ended.sheet_summary) == {str(aiko.pk), str(kenji.pk)}
    aiko_sheet = ended.sheet_summary[str(aiko.pk)]
    assert aiko_sheet["name"] == "Aiko"
    assert aiko_sheet["state"]["marks"]["heridas"] == ["leve"]
    assert "engine" not in aiko_sheet["state"]
    # The summary is what the sheet said then, not what it says now.
    assert character_state(character=aiko)["marks"]["heridas"] != ["leve"]


def test_it_refuses_to_end_a_session_twice_or_before_it_started(campaign):
    session = services.session_start(campaign=campaign)
    with pytest.raises(ValidationError):
        services.session_end(session=session, ended_at=session.started_at - timedelta(hours=1))
    services.session_end(session=session, ended_at=timezone.now())
    with pytest.raises(ValidationError):
        services.session_end(session=session)


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("Sesión 1: Emboscada en el paso", "Emboscada en el paso"),
        ("sesion 1 - El paso", "El paso"),
        ("Session 1", ""),
        ("El paso", "El paso"),
        ("Sesión 12: otra", "Sesión 12: otra"),  # another number: the DJ's own words
    ],
)
def test_a_title_does_not_repeat_the_sessions_own_name(campaign, typed, kept):
    assert services.session_start(campaign=campaign, title=typed).title == kept
