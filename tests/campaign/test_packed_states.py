"""A PJ's state is kept packed in the database (campaign.models.StateField): a long pile of
unrolled checks is stored as a letter a check, and every reader still sees the whole list."""

import importlib
import json

from django.apps import apps
from django.db import connection

from campaign import services
from campaign.models import CharacterSnapshot, EventSnapshot
from campaign.selectors import character_state

DAYS = 60


def stored(model, pk_field: str, pk: int) -> dict:
    """The state column as the database holds it, past the field's reading."""
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT state FROM {table} WHERE {pk_field} = %s", [pk])
        (value,) = cursor.fetchone()
    return json.loads(value) if isinstance(value, str) else value


def write_raw(model, pk_field: str, pk: int, state: dict) -> None:
    """Write `state` word for word, as a version before packing did."""
    cast = "::jsonb" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {model._meta.db_table} SET state = %s{cast} WHERE {pk_field} = %s",
            [json.dumps(state), pk],
        )


def untreated(campaign, pj, dj) -> None:
    for event in (
        {"kind": "suffer", "type": "heridas", "grade": "grave"},
        *({"kind": "time", "days": 1} for _ in range(DAYS)),
    ):
        services.event_record(campaign=campaign, character=pj, event=event, actor=dj)


def test_a_long_pile_is_stored_as_letters_and_read_whole(campaign, aiko, dj):
    untreated(campaign, aiko, dj)
    last = EventSnapshot.objects.filter(character=aiko).order_by("-seq").first()

    for row in (
        stored(CharacterSnapshot, "character_id", aiko.pk),
        stored(EventSnapshot, "id", last.pk),
    ):
        assert "pending" not in row
        assert row["engine"]["pending"] == "is" * DAYS
        assert len(json.dumps(row)) < 2048
    state = character_state(character=aiko)
    assert [p["check"] for p in state["pending"]] == [
        "heridas_grave_infeccion",
        "sin_descanso",
    ] * DAYS
    assert (
        EventSnapshot.objects.get(pk=last.pk).state
        == CharacterSnapshot.objects.get(character=aiko).state
    )


def test_a_roll_on_a_packed_pile_takes_the_oldest(campaign, aiko, dj):
    untreated(campaign, aiko, dj)

    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "save", "check": "heridas_grave_infeccion", "success": True},
        actor=dj,
    )

    assert len(character_state(character=aiko)["pending"]) == 2 * DAYS - 1
    row = stored(CharacterSnapshot, "character_id", aiko.pk)
    assert row["engine"]["pending"] == "s" + "is" * (DAYS - 1)


def test_the_migration_packs_the_piles_stored_before_it(campaign, aiko, dj):
    untreated(campaign, aiko, dj)
    whole = character_state(character=aiko)
    full = CharacterSnapshot.objects.get(character=aiko).state
    write_raw(CharacterSnapshot, "character_id", aiko.pk, full)
    assert len(stored(CharacterSnapshot, "character_id", aiko.pk)["pending"]) == 2 * DAYS
    assert character_state(character=aiko) == whole  # the old form reads the same

    migration = importlib.import_module("campaign.migrations.0008_packed_states")
    migration.pack_piles(apps, None)

    row = stored(CharacterSnapshot, "character_id", aiko.pk)
    assert "pending" not in row
    assert row["engine"]["pending"] == "is" * DAYS
    assert character_state(character=aiko) == whole
