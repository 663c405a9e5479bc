"""The owner's whole-database copy and its restore (campaign/backup/database.py): a restore
drill on the database the suite runs on, SQLite or PostgreSQL."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaign import services
from campaign.history.replay import campaign_replay_check
from campaign.models import Campaign, StateEvent
from tests.factories import CampaignFactory, CharacterFactory, UserFactory


def wound(campaign, pj):
    return services.event_record(
        campaign=campaign,
        character=pj,
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )


def test_a_restore_drill_brings_back_the_database_as_it_was_copied(transactional_db, tmp_path):
    campaign = CampaignFactory(slug="kiso", dj=UserFactory(username="sensei"))
    aiko = CharacterFactory(campaign=campaign, name="Aiko")
    wound(campaign, aiko)
    copy = tmp_path / "zodiac.backup"

    call_command("db_backup", str(copy), stdout=open("/dev/null", "w"))
    assert copy.stat().st_size > 0
    wound(campaign, aiko)  # after the copy: lost by the restore
    CampaignFactory(slug="otra", dj=UserFactory(username="otra"))

    call_command("db_restore", str(copy), "--yes", stdout=open("/dev/null", "w"))

    assert list(Campaign.objects.values_list("slug", flat=True)) == ["kiso"]
    assert StateEvent.objects.filter(event__kind="suffer").count() == 1
    aiko.snapshot.refresh_from_db()
    assert aiko.snapshot.state["marks"]["heridas"] == ["leve"]
    assert campaign_replay_check()[1] == []


def test_a_backup_never_overwrites_a_file(transactional_db, tmp_path):
    there = tmp_path / "there"
    there.write_text("keep me")

    with pytest.raises(CommandError, match="exists already"):
        call_command("db_backup", str(there))

    assert there.read_text() == "keep me"


def test_a_restore_from_something_that_is_not_a_copy_changes_nothing(transactional_db, tmp_path):
    CampaignFactory(slug="kiso", dj=UserFactory(username="sensei"))
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a database at all" * 100)

    with pytest.raises(CommandError):
        call_command("db_restore", str(junk), "--yes")

    assert Campaign.objects.filter(slug="kiso").exists()


def test_a_restore_asks_first(transactional_db, tmp_path, monkeypatch):
    monkeypatch.setattr("builtins.input", lambda prompt: "no")

    with pytest.raises(CommandError, match="Nothing restored"):
        call_command("db_restore", str(tmp_path / "any"))
