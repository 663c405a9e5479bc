"""The change cursor: every write a live page shows advances it, once, in order."""

import pytest
from django.core.exceptions import ValidationError

from campaign import services
from campaign.models import CampaignChange
from rules import RuleError


def changes(campaign) -> list[tuple[int, str, str | None]]:
    return [
        (c.cursor, c.kind, c.character.name if c.character else None)
        for c in CampaignChange.objects.filter(campaign=campaign).select_related("character")
    ]


def cursor(campaign) -> int:
    campaign.refresh_from_db()
    return campaign.change_cursor


@pytest.mark.django_db
def test_an_event_for_one_pj_advances_the_cursor_and_names_the_pj(campaign, aiko):
    before = cursor(campaign)

    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "shock", "grade": "leve"},
    )

    assert cursor(campaign) == before + 1
    assert changes(campaign)[-1] == (before + 1, "event", "Aiko")


@pytest.mark.django_db
def test_a_campaign_wide_event_is_a_change_of_every_card(campaign, aiko, kenji):
    services.event_record(campaign=campaign, event={"kind": "time", "rounds": 1})

    assert changes(campaign)[-1][1:] == ("event", None)


@pytest.mark.django_db
def test_a_void_that_moves_the_partys_clock_is_a_change_of_every_card(campaign, aiko, kenji):
    # Aiko alone goes 10 h ahead: every card says how far behind it is (a change of all).
    ahead = services.event_record(
        campaign=campaign, character=aiko, event={"kind": "time", "hours": 10}
    )
    assert changes(campaign)[-1][1:] == ("event", None)
    blow = services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "shock", "grade": "leve"},
    )

    services.event_void(event=blow)  # the party's clock stays: Aiko's card only
    assert changes(campaign)[-1][1:] == ("void", "Aiko")
    services.event_void(event=ahead)  # Aiko is back with the party: every card again

    assert changes(campaign)[-1][1:] == ("void", None)


@pytest.mark.django_db
def test_a_refused_event_and_a_repeated_key_change_nothing(campaign, aiko):
    services.event_record(
        campaign=campaign, character=aiko, event={"kind": "time", "minutes": 1}, idempotency_key="k"
    )
    before = cursor(campaign)

    with pytest.raises(RuleError):
        services.event_record(campaign=campaign, character=aiko, event={"kind": "wake"})
    services.event_record(
        campaign=campaign, character=aiko, event={"kind": "time", "minutes": 1}, idempotency_key="k"
    )

    assert cursor(campaign) == before


@pytest.mark.django_db
def test_a_void_an_edit_an_archive_and_sessions_are_changes(campaign, aiko):
    wound = services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )
    start = cursor(campaign)

    services.event_void(event=wound)
    services.character_update(character=aiko, notes="Arquera")
    services.character_archive(character=aiko)
    services.character_restore(character=aiko)
    session = services.session_start(campaign=campaign, title="Uno")
    services.session_end(session=session)

    kinds = [(kind, who) for _cursor, kind, who in changes(campaign) if _cursor > start]
    assert kinds == [
        ("void", "Aiko"),
        ("character", "Aiko"),
        ("character", "Aiko"),
        ("character", "Aiko"),
        ("session", None),
        ("session", None),
    ]
    assert [c for c, _k, _w in changes(campaign)] == list(range(1, cursor(campaign) + 1))


@pytest.mark.django_db
def test_archiving_twice_is_one_change(campaign, aiko):
    services.character_archive(character=aiko)
    before = cursor(campaign)

    services.character_archive(character=aiko)

    assert cursor(campaign) == before
    aiko.refresh_from_db()
    assert aiko.is_archived


@pytest.mark.django_db
def test_an_edit_with_new_scores_records_the_edit_and_the_attributes_event(campaign, aiko):
    before = cursor(campaign)

    services.character_update(character=aiko, attributes={"FUE": 4, "VOL": 2})

    assert [k for c, k, _w in changes(campaign) if c > before] == ["character", "event"]


@pytest.mark.django_db
def test_a_refused_edit_changes_nothing(campaign, aiko):
    before = cursor(campaign)

    with pytest.raises(ValidationError):
        services.character_update(character=aiko, attributes={"FUE": "mucha"})

    assert cursor(campaign) == before


@pytest.mark.django_db
def test_a_catalogue_edit_is_a_change_of_the_cards_showing_that_entry_only(campaign, aiko, kenji):
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "afeccion", "grade": "leve", "source": "fiebre roja"},
    )
    services.event_record(
        campaign=campaign,
        character=kenji,
        event={"kind": "special", "name": "derribado", "on": True},
    )
    before = cursor(campaign)

    entry = services.catalogue_entry_save(
        campaign=campaign, name="Fiebre roja", kind="enfermedad", effect_leve="Tiritona."
    )
    assert changes(campaign)[-1] == (before + 1, "catalogue", "Aiko")
    services.catalogue_entry_save(
        campaign=campaign,
        entry=campaign.catalogue.get(name="derribado"),
        effect="En el suelo.",
    )
    assert changes(campaign)[-1] == (before + 2, "catalogue", "Kenji")
    services.catalogue_entry_delete(entry=entry)
    assert changes(campaign)[-1] == (before + 3, "catalogue", "Aiko")

    # An entry no card shows changes no page.
    services.catalogue_entry_save(campaign=campaign, name="Tos negra", kind="enfermedad")
    assert cursor(campaign) == before + 3
