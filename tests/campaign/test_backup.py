"""Campaign backups: the export, the import that re-folds the log, bad files, the pages."""

import json
import signal
from datetime import timedelta
from io import StringIO

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.shortcuts import resolve_url
from django.test import AsyncClient
from django.urls import reverse
from django.utils import timezone, translation

from campaign import backup, services, turn_order
from campaign.backup import BackupError, export_chunks
from campaign.history.replay import campaign_replay_check
from campaign.models import (
    Campaign,
    Character,
    CharacterSnapshot,
    EventSnapshot,
    GameSession,
    Membership,
    Reminder,
    StateEvent,
)
from campaign.services.restore import campaign_import
from campaign.taps import roll_save
from campaign.turn_order import Slot
from rules import initial_state, public_state
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

pytestmark = pytest.mark.django_db


# -- a campaign with a rich log -------------------------------------------------------------


def record(campaign, who, event, *, actor=None, secret=False):
    return services.event_record(
        campaign=campaign, character=who, event=event, actor=actor, secret=secret
    )


def suffer(type_, grade, **more):
    return {"kind": "suffer", "type": type_, "grade": grade, **more}


@pytest.fixture
def rich(db):
    """Four PJ (one joins late and is archived), two sessions (the first ended with its
    recap), every kind of event, voids in and out of order, secrets, unknown accounts."""
    dj = UserFactory(username="kiso-dj")
    aiko_p, kenji_p = UserFactory(username="aiko-p"), UserFactory(username="kenji-p")
    campaign = services.campaign_create(name="La sombra de Kiso", dj=dj, especificos=True)
    services.campaign_update(campaign=campaign, players_see_party=True)
    services.catalogue_entry_save(
        campaign=campaign, name="Veneno de fugu", kind="veneno", effect="Hormigueo."
    )
    services.catalogue_entry_delete(entry=campaign.catalogue.get(name="desprevenido"))
    aiko = services.character_create(
        campaign=campaign,
        name="Aiko",
        player=aiko_p,
        attributes={"FUE": 3, "AGI": 5, "DES": 4, "VOL": 3},
        notes="Arquera.",
        actor=dj,
    )
    kenji = services.character_create(
        campaign=campaign,
        name="Kenji",
        player=kenji_p,
        attributes={"FUE": 5, "AGI": 3, "DES": 3, "VOL": 4},
        powers=["regeneracion"],
        actor=dj,
    )
    mei = services.character_create(
        campaign=campaign, name="Mei", attributes={"FUE": 2, "VOL": 4, "INT": 5}, actor=dj
    )

    first = services.session_start(campaign=campaign, title="Emboscada en el paso")
    record(campaign, aiko, suffer("heridas", "leve"), actor=dj)
    record(campaign, kenji, suffer("shock", "grave"), actor=dj)
    record(campaign, mei, suffer("emocion", "leve", variant="miedo"), actor=aiko_p)
    record(campaign, None, {"kind": "time", "rounds": 1}, actor=dj)
    record(campaign, kenji, {"kind": "turn_end"}, actor=dj)
    kenji.refresh_from_db()
    rolled = roll_save(check="shock_grave_fin_turno", character=kenji)
    record(campaign, kenji, rolled.event, actor=kenji_p)
    record(campaign, kenji, suffer("heridas", "grave"), actor=dj)
    record(campaign, kenji, {"kind": "heal", "by_self": True}, actor=dj)  # regeneración
    record(campaign, mei, suffer("afeccion", "leve", source="veneno de fugu"), actor=dj)
    services.character_secrets_set(character=mei, add=["veneno de fugu"])
    record(campaign, aiko, {"kind": "special", "name": "marcado", "on": True}, secret=True)
    record(campaign, aiko, {"kind": "special", "name": "marcado", "on": False})
    record(campaign, None, {"kind": "time", "minutes": 10, "activity": "reposo", "calm": True})
    record(campaign, aiko, suffer("fatiga", "leve"))
    mistake = record(campaign, aiko, suffer("fatiga", "leve"))
    services.event_void(event=mistake, actor=dj, reason="Era Kenji")
    services.session_end(
        session=first,
        recap="Bandidos en el paso. Kenji cerró sus heridas.",
        dj_note="El jefe de los bandidos es el hermano de Mei (secreto).",
    )

    services.session_start(campaign=campaign, title="La fiebre de Nara")
    taro = services.character_create(
        campaign=campaign, name="Taro", attributes={"FUE": 4, "VOL": 2}, actor=dj
    )
    record(campaign, None, {"kind": "time", "hours": 3})
    record(campaign, mei, {"kind": "progress", "type": "afeccion"})
    record(campaign, taro, suffer("heridas", "persistente", especifico="lesion"))
    record(campaign, mei, {"kind": "sleep", "descanso": False})
    record(campaign, None, {"kind": "time", "minutes": 30})
    record(campaign, mei, {"kind": "wake", "forced": True})
    # Voided out of order: the later event first, then the earlier one.
    earlier = record(campaign, aiko, suffer("shock", "leve"))
    later = record(campaign, aiko, {"kind": "special", "name": "derribado", "on": True})
    services.event_void(event=later, actor=aiko_p, reason="Se adelantó")
    services.event_void(event=earlier, actor=dj)
    record(campaign, None, {"kind": "time", "days": 1})
    record(campaign, None, {"kind": "descanso"})
    record(campaign, kenji, {"kind": "save", "check": "heridas_leve_descanso", "success": True})
    wide = record(campaign, None, {"kind": "time", "minutes": 1})
    services.event_void(event=wide, actor=dj, reason="Sin tiempo")
    record(campaign, aiko, {"kind": "heal", "healer": "Mei", "success": False}, actor=dj)
    # Kenji away for an hour of party time, then Mei keeps watch through a Descanso.
    services.character_archive(character=kenji)
    record(campaign, None, {"kind": "time", "hours": 1})
    services.character_restore(character=kenji)
    services.party_event(campaign=campaign, event={"kind": "descanso"}, watch=frozenset({mei.pk}))
    # A fight: its order names PJ by pk in the log, by ref in the file.
    order = [Slot(pj=kenji.pk, init=14), Slot(npc=1, name="Oni", init=9), Slot(pj=aiko.pk)]
    services.fight_start(campaign=campaign, order=order, actor=dj)
    for _ in range(4):  # round 2, the Oni's turn
        services.fight_pass(campaign=campaign, actor=dj)
    services.fight_order(campaign=campaign, order=[order[1], order[2]], actor=dj)
    services.fight_end(campaign=campaign, actor=dj)
    services.character_archive(character=taro)
    services.character_secrets_set(character=aiko, add=["marcado"])
    return Campaign.objects.get(pk=campaign.pk)


def export_text(campaign) -> str:
    return "".join(export_chunks(campaign))


def counts() -> dict:
    return {
        model.__name__: model.objects.count()
        for model in (Campaign, Character, StateEvent, EventSnapshot, GameSession, Membership)
    }


# -- what both sides hold, keyed by names and numbers (never by pk) -------------------------


def dumped(value) -> str:
    return json.dumps(value, sort_keys=True)


def event_states(campaign) -> dict:
    snapshots = EventSnapshot.objects.filter(event__campaign=campaign).select_related(
        "event", "character"
    )
    return {(s.event.seq, s.character.name): dumped(s.state) for s in snapshots}


def current_states(campaign) -> dict:
    snapshots = CharacterSnapshot.objects.filter(character__campaign=campaign)
    return {
        s.character.name: (dumped(s.state), s.seq) for s in snapshots.select_related("character")
    }


def log(campaign) -> list[tuple]:
    names = {str(c.pk): c.name for c in campaign.characters.all()}
    by_pk = {c.pk: c.name for c in campaign.characters.all()}
    rows = []
    for e in StateEvent.objects.filter(campaign=campaign).order_by("seq"):
        rows.append(
            (
                e.seq,
                e.character.name if e.character else None,
                e.session.number if e.session else None,
                e.created_at,
                e.actor.username if e.actor else None,
                dumped(turn_order.with_pj(e.event, by_pk)),
                dumped({names[pk]: fx for pk, fx in e.effects.items()}),
                e.void_at,
                e.void_by.username if e.void_by else None,
                e.void_reason,
                e.secret,
                e.idempotency_key,
            )
        )
    return rows


def people(campaign) -> dict:
    return {
        "characters": [
            (
                c.name,
                c.player.username if c.player else None,
                c.attributes,
                c.powers,
                c.notes,
                c.joined_seq,
                c.archived_at,
                c.secret_names,
            )
            for c in campaign.characters.order_by("pk")
        ],
        "memberships": sorted((m.user.username, m.role) for m in campaign.memberships.all()),
    }


def sessions(campaign) -> list[tuple]:
    names = {str(c.pk): c.name for c in campaign.characters.all()}
    return [
        (
            s.number,
            s.title,
            s.started_at,
            s.ended_at,
            s.recap,
            s.dj_note,
            dumped({names[pk]: sheet for pk, sheet in s.sheet_summary.items()}),
        )
        for s in campaign.sessions.order_by("number")
    ]


def catalogue(campaign) -> list[tuple]:
    return sorted(
        campaign.catalogue.values_list(
            "name", "kind", "effect", "effect_leve", "effect_grave", "effect_persistente"
        )
    )


# -- the round trip -------------------------------------------------------------------------


def test_an_imported_backup_folds_to_the_same_states_byte_for_byte(rich):
    text = export_text(rich)
    before = counts()

    result = campaign_import(text.encode(), dj=rich.memberships.get(role="dj").user)

    copy = result.campaign
    assert copy.pk != rich.pk and copy.slug == "la-sombra-de-kiso-2"
    assert counts()["Campaign"] == before["Campaign"] + 1
    # Every PJ's state after every event (void ones included), and now.
    original_states = event_states(rich)
    assert len(original_states) > 50
    assert event_states(copy) == original_states
    assert current_states(copy) == current_states(rich)
    # The log: seq, PJ, session, times, actors, the event as stored, effects, voids, secrets.
    assert log(copy) == log(rich)
    assert people(copy) == people(rich)
    assert sessions(copy) == sessions(rich)
    assert catalogue(copy) == catalogue(rich)
    options = ("especificos", "esfuerzo_prolongado", "round_seconds", "players_see_party")
    for field in (*options, "name", "created_at", "last_seq"):
        assert getattr(copy, field) == getattr(rich, field), field
    assert result.notes == []
    assert (result.characters, result.sessions, result.events) == (4, 2, rich.events.count())
    assert campaign_replay_check(campaign=copy)[1] == []


def test_the_copy_exports_to_the_same_file(rich):
    text = export_text(rich)
    copy = campaign_import(text, dj=rich.memberships.get(role="dj").user).campaign

    again = json.loads(export_text(copy))
    first = json.loads(text)

    for document in (first, again):
        del document["exported_at"], document["campaign"]["slug"]
    assert again == first


def test_the_log_of_the_rich_campaign_has_what_the_round_trip_must_cover(rich):
    events = StateEvent.objects.filter(campaign=rich)
    kinds = set(events.values_list("event__kind", flat=True))
    assert kinds >= {"start", "attributes", "suffer", "heal", "save", "time", "turn_end"}
    assert kinds >= {"sleep", "wake", "descanso", "progress", "special", "fight"}
    assert events.filter(void_at__isnull=False).count() == 4
    assert events.filter(character__isnull=True, void_at__isnull=False).exists()
    assert events.filter(secret=True).exists()
    assert events.filter(event__has_key="ts_roll").exists()
    assert rich.characters.filter(joined_seq__gt=0, archived_at__isnull=False).exists()
    assert rich.sessions.filter(ended_at__isnull=False).exclude(recap="").exists()
    assert rich.sessions.exclude(dj_note="").exists()
    assert rich.sessions.filter(ended_at__isnull=True).exists()


# -- the format -----------------------------------------------------------------------------


def test_the_export_is_version_2_with_one_line_per_event_and_local_refs(rich):
    text = export_text(rich)
    document = json.loads(text)

    assert document["format"] == "zodiac-campaign" and document["version"] == 2
    assert document["campaign"]["options"] == {
        "especificos": True,
        "esfuerzo_prolongado": False,
        "round_seconds": 6,
    }
    refs = {c["name"]: c["ref"] for c in document["characters"]}
    assert refs == {"Aiko": 1, "Kenji": 2, "Mei": 3, "Taro": 4}
    aiko = document["characters"][0]
    assert aiko["player"] == "aiko-p" and aiko["secret_names"] == ["marcado"]
    ended = document["sessions"][0]
    assert set(ended["sheet_summary"]) == {"1", "2", "3"}
    assert ended["sheet_summary"]["1"]["name"] == "Aiko"
    events = document["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert all("seed" in e["event"] for e in events)
    voided = [e for e in events if e["void_at"]]
    assert {e["void_by"] for e in voided} == {"kiso-dj", "aiko-p"}
    for left_out in ("effects", "idempotency_key", "snapshots", "invitations"):
        assert left_out not in text
    lines = text.splitlines()
    assert sum(line.startswith('{"seq": ') for line in lines) == len(events)


def test_the_export_reads_the_log_in_chunks(rich, monkeypatch):
    """The events come from a chunked iterator, never from one list of the whole log."""
    from django.db.models.query import QuerySet

    seen = []
    original = QuerySet.iterator

    def iterator(self, chunk_size=None):
        seen.append((self.model, chunk_size))
        return original(self, chunk_size=chunk_size)

    monkeypatch.setattr(QuerySet, "iterator", iterator)
    export_text(rich)

    assert seen == [(StateEvent, backup.EXPORT_CHUNK)]


# -- accounts -------------------------------------------------------------------------------


def a_file(rich, **changes) -> dict:
    document = json.loads(export_text(rich))
    for key, value in changes.items():
        document[key] = value
    return document


def test_unknown_accounts_are_left_out_and_said_and_actors_become_empty(rich):
    document = a_file(rich)
    document["memberships"].append({"username": "ghost-player", "role": "player"})
    document["characters"][2]["player"] = "ghost-mei"
    for event in document["events"][:5]:
        event["actor"] = "ghost-actor"
    for event in document["events"]:
        if event["void_by"]:
            event["void_by"] = "ghost-voider"
    importer = UserFactory(username="importer")

    result = campaign_import(json.dumps(document), dj=importer)

    copy = result.campaign
    assert not Campaign.objects.filter(memberships__user__username__startswith="ghost").exists()
    assert copy.characters.get(name="Mei").player is None
    assert copy.events.filter(seq__lte=5, actor__isnull=True).count() == 5
    assert copy.events.filter(void_at__isnull=False, void_by__isnull=True).count() == 4
    assert copy.events.filter(void_at__isnull=False).count() == 4
    notes = " ".join(result.notes)
    assert "ghost-player" in notes and "ghost-mei" in notes and "Mei" in notes
    assert "ghost-actor" not in notes  # actors simply become empty
    assert "kiso-dj" in notes  # the file's DJ is not the DJ here
    assert {(m.user.username, m.role) for m in copy.memberships.all()} == {
        ("importer", "dj"),
        ("aiko-p", "player"),
        ("kenji-p", "player"),
    }


def test_a_player_who_is_the_importing_dj_plays_no_pj_there(rich):
    aiko_p = Character.objects.get(campaign=rich, name="Aiko").player

    result = campaign_import(export_text(rich), dj=aiko_p)

    assert result.campaign.characters.get(name="Aiko").player is None
    assert result.campaign.memberships.get(user=aiko_p).role == "dj"
    assert any("Aiko" in note for note in result.notes)


def test_without_a_dj_the_files_djs_that_exist_direct_it(rich):
    result = campaign_import(export_text(rich))

    assert result.campaign.memberships.get(role="dj").user.username == "kiso-dj"


def test_without_a_dj_and_none_of_the_files_djs_here_nothing_is_written(rich):
    document = a_file(rich)
    document["memberships"] = [m for m in document["memberships"] if m["role"] != "dj"]
    before = counts()

    with pytest.raises(BackupError) as refused:
        campaign_import(json.dumps(document))

    assert refused.value.code == "no_dj"
    assert counts() == before


def test_the_name_can_be_changed_and_the_slug_is_always_fresh(rich):
    dj = UserFactory(username="other-dj")

    copy = campaign_import(export_text(rich), dj=dj, name="  Kiso, otra vez ").campaign

    assert copy.name == "Kiso, otra vez" and copy.slug == "kiso-otra-vez"
    assert campaign_import(export_text(rich), dj=dj).campaign.slug == "la-sombra-de-kiso-2"


# -- bad files ------------------------------------------------------------------------------


class Small:
    """A small, valid backup (two PJ, one session, a few events) and its DJ."""

    def __init__(self, text: str, dj) -> None:
        self.text, self.dj = text, dj

    def __iter__(self):
        """A fresh copy of the document, and the DJ: `document, dj = small`."""
        return iter((json.loads(self.text), self.dj))


@pytest.fixture
def small(db) -> Small:
    dj = UserFactory(username="small-dj")
    campaign = CampaignFactory(name="Pequeña", slug="pequena", dj=dj)
    aiko = CharacterFactory(campaign=campaign, name="Aiko")
    CharacterFactory(campaign=campaign, name="Kenji")
    services.session_start(campaign=campaign, title="Una")
    record(campaign, aiko, suffer("heridas", "leve"))
    record(campaign, None, {"kind": "time", "minutes": 5})
    return Small(export_text(campaign), dj)


def refused(document, dj, *, lang="es") -> str:
    """The import's refusal, checking that nothing was written."""
    before = counts()
    data = document if isinstance(document, (str, bytes)) else json.dumps(document, indent=1)
    with translation.override(lang), pytest.raises(BackupError) as error:
        campaign_import(data, dj=dj)
    assert counts() == before
    return str(error.value)


def test_the_small_backup_imports(small):
    document, dj = small
    assert campaign_import(json.dumps(document), dj=dj).events == len(document["events"])


def test_malformed_json_names_the_line_and_column(small):
    document, dj = small
    text = json.dumps(document, indent=1).replace('"version": 2,', '"version": 2', 1)

    message = refused(text, dj)

    assert message == (
        "El archivo no es JSON válido: se esperaba una coma en la línea 4, columna 2."
    )


def test_not_utf8_and_not_json_constants(small):
    document, dj = small
    assert "UTF-8" in refused(b'{"format": "\xff"}', dj)
    assert "NaN" in refused('{"format": NaN}', dj)


def test_another_format_or_an_unknown_version(small):
    document, dj = small
    assert "zodiac-campaign" in refused({**document, "format": "other"}, dj)
    assert "zodiac-campaign" in refused([1, 2], dj)
    message = refused({**document, "version": 3}, dj, lang="en")
    assert message == "This backup is version 3; this server reads versions 1 to 2."
    assert "versión 3" in refused({**document, "version": 3}, dj)


def test_a_missing_or_ill_typed_field_is_named(small):
    document, dj = small
    del document["events"][1]["seq"]
    assert refused(document, dj, lang="en") == "events[1].seq is missing."

    document["events"][1]["seq"] = "12"
    assert refused(document, dj, lang="en") == ("events[1].seq must be a whole number (1 or more).")
    assert "events[1].seq debe ser un número entero (1 o más)." == refused(document, dj)

    document, dj = small
    document["events"][0]["created_at"] = "2024-05-01T10:00:00"  # no time zone
    assert "events[0].created_at" in refused(document, dj, lang="en")
    document, dj = small
    document["campaign"]["options"]["round_seconds"] = 601
    assert "campaign.options.round_seconds" in refused(document, dj, lang="en")
    document, dj = small
    document["characters"][0]["attributes"] = {"FUE": -1}
    assert refused(document, dj, lang="en").startswith("characters[0]: Attribute scores")


def test_an_unknown_event_kind(small):
    document, dj = small
    document["events"][3]["event"]["kind"] = "teleport"

    message = refused(document, dj, lang="en")

    assert message == "events[3].event.kind: unknown event kind “teleport”."


def test_a_log_that_breaks_a_rule_names_the_event_the_pj_and_the_rule(small):
    document, dj = small
    bad = document["events"][-1]
    bad["character"] = 2
    bad["event"] = {"kind": "heal", "seed": 1}

    message = refused(document, dj)

    seq = bad["seq"]
    index = len(document["events"]) - 1
    assert message == (
        f"events[{index}]: el evento #{seq} (heal) incumple una regla para Kenji: "
        "No hay Heridas leves ni graves que curar."
    )
    assert "There are no Heridas leve or grave to heal." in refused(document, dj, lang="en")


def test_a_campaign_wide_event_that_breaks_a_rule_names_the_pj(small):
    document, dj = small
    document["events"].append(
        {**document["events"][-1], "seq": 99, "character": None, "event": {"kind": "wake"}}
    )

    message = refused(document, dj, lang="en")

    assert "#99 (wake)" in message and "Aiko" in message and "The PJ is not asleep." in message


def test_a_pj_name_clash_within_the_file(small):
    document, dj = small
    document["characters"][1]["name"] = " Aiko "

    message = refused(document, dj, lang="en")

    assert message == (
        "characters[1].name: the name “Aiko” is used by another PJ of the file (characters[0])."
    )


def test_seq_must_be_strictly_increasing(small):
    document, dj = small
    document["events"][2]["seq"] = document["events"][1]["seq"]

    message = refused(document, dj, lang="en")

    assert message.startswith("events[2].seq is 2, not more than the previous event's 2")


def test_references_to_unknown_pj_or_sessions(small):
    document, dj = small
    document["events"][0]["character"] = 7
    assert (
        refused(document, dj, lang="en") == "events[0].character: no PJ of the file has the ref 7."
    )

    document, dj = small
    document["events"][-1]["session"] = 4
    assert "events[" in refused(document, dj, lang="en")
    assert "no session number 4" in refused(document, dj, lang="en")

    document, dj = small
    document["sessions"][0]["sheet_summary"] = {"9": {}}
    assert "sessions[0].sheet_summary" in refused(document, dj, lang="en")


# -- the pages ------------------------------------------------------------------------------


@pytest.fixture
def dj_client(client, rich):
    client.force_login(rich.memberships.get(role="dj").user)
    return client


def test_the_settings_page_links_the_download(dj_client, rich):
    page = dj_client.get(reverse("campaign_settings", args=[rich.slug])).content.decode()

    assert "Copia de seguridad" in page
    assert f'href="{reverse("campaign_export", args=[rich.slug])}"' in page


def test_the_dj_downloads_the_backup_as_a_stream(dj_client, rich):
    response = dj_client.get(reverse("campaign_export", args=[rich.slug]))

    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "application/json; charset=utf-8"
    today = timezone.localdate().isoformat()
    assert response["Content-Disposition"] == (
        f'attachment; filename="zodiac-{rich.slug}-{today}.json"'
    )
    document = json.loads(b"".join(response.streaming_content))
    assert document["campaign"]["name"] == "La sombra de Kiso"


def test_under_asgi_the_download_streams_asynchronously(rich):
    client = AsyncClient()
    client.force_login(rich.memberships.get(role="dj").user)

    async def download():
        response = await client.get(reverse("campaign_export", args=[rich.slug]))
        pieces = [piece async for piece in response.streaming_content]
        return response, pieces

    response, pieces = async_to_sync(download)()

    assert response.status_code == 200 and response.is_async
    assert json.loads(b"".join(pieces))["version"] == 2


@pytest.mark.parametrize("who", ["player", "stranger", "other_dj"])
def test_only_the_dj_downloads(client, rich, who):
    users = {
        "player": Character.objects.get(campaign=rich, name="Aiko").player,
        "stranger": UserFactory(username="stranger"),
        "other_dj": CampaignFactory(dj=UserFactory(username="dj-b")).memberships.get().user,
    }
    client.force_login(users[who])

    assert client.get(reverse("campaign_export", args=[rich.slug])).status_code == 404


def test_the_home_page_links_the_import_page(client):
    client.force_login(UserFactory(username="someone"))

    page = client.get(reverse("home")).content.decode()

    assert f'href="{reverse("campaign_import")}"' in page and "Importar campaña" in page


def test_the_import_page_needs_a_login(client):
    response = client.get(reverse("campaign_import"))

    assert response.status_code == 302
    assert response["Location"].startswith(resolve_url(settings.LOGIN_URL) + "?next=")


def upload(text: str | bytes, name: str = "copia.json") -> SimpleUploadedFile:
    data = text.encode() if isinstance(text, str) else text
    return SimpleUploadedFile(name, data, content_type="application/json")


def test_importing_a_file_makes_the_user_its_dj_and_says_what_was_left_out(client, rich):
    document = a_file(rich)
    document["memberships"].append({"username": "ghost", "role": "player"})
    importer = UserFactory(username="importer")
    client.force_login(importer)

    response = client.post(
        reverse("campaign_import"), {"file": upload(json.dumps(document)), "name": ""}
    )

    copy = Campaign.objects.get(memberships__user=importer, memberships__role="dj")
    assert response.status_code == 302 and response["Location"] == reverse(
        "board", args=[copy.slug]
    )
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("importada" in m for m in said)
    assert any("ghost" in m for m in said)
    board = client.get(response["Location"])
    assert board.status_code == 200


def test_an_import_in_the_app_puts_the_campaign_on_nobody_else_s_home(client, rich):
    # The file names existing accounts as players; whoever uploads it may not make them
    # members of anything.
    aiko_player = Character.objects.get(campaign=rich, name="Aiko").player
    importer = UserFactory(username="importer")
    client.force_login(importer)

    response = client.post(
        reverse("campaign_import"), {"file": upload(json.dumps(a_file(rich))), "name": "Copia"}
    )

    copy = Campaign.objects.get(name="Copia")
    assert list(copy.memberships.values_list("user__username", flat=True)) == ["importer"]
    assert not copy.characters.filter(player__isnull=False).exists()
    assert aiko_player.memberships.filter(campaign=copy).count() == 0
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("invítalos de nuevo" in m for m in said)


def test_a_bad_file_shows_why_with_422_and_writes_nothing(client, small):
    document, dj = small
    document["events"][1]["seq"] = "x"
    client.force_login(dj)
    before = counts()

    response = client.post(reverse("campaign_import"), {"file": upload(json.dumps(document))})

    assert response.status_code == 422
    page = response.content.decode()
    assert "events[1].seq debe ser un número entero (1 o más)." in page
    assert 'class="error-summary"' in page
    assert counts() == before


def test_the_import_page_speaks_english_too(client, small):
    document, dj = small
    client.force_login(dj)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"

    response = client.post(reverse("campaign_import"), {"file": upload(b"{oops")})

    assert response.status_code == 422
    assert (
        "The file is not valid JSON: a name in double quotes was expected at line 1, column 2."
        in response.content.decode()
    )


def test_no_file_is_a_form_error_and_a_big_one_is_refused(client, small, monkeypatch):
    document, dj = small
    client.force_login(dj)

    empty = client.post(reverse("campaign_import"), {"name": "x"})
    assert empty.status_code == 200 and "Elige el archivo" in empty.content.decode()

    monkeypatch.setattr(backup, "MAX_BYTES", 100)
    big = client.post(reverse("campaign_import"), {"file": upload(json.dumps(document))})
    assert big.status_code == 422
    assert "más de" in big.content.decode()
    assert Campaign.objects.filter(name="Pequeña").count() == 1


# -- the commands ---------------------------------------------------------------------------


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=out)
    return out.getvalue()


def test_export_to_stdout_or_a_file_and_import_it_back(rich, tmp_path):
    printed = run("export_campaign", rich.slug)
    assert json.loads(printed)["campaign"]["name"] == "La sombra de Kiso"
    path = tmp_path / "kiso.json"

    run("export_campaign", rich.slug, "-o", str(path))
    output = run("import_campaign", str(path), "--name", "Kiso copia", "--lang", "en")

    copy = Campaign.objects.get(name="Kiso copia")
    assert f"/c/{copy.slug}/" in output and "4 PJ, 2 sessions" in output
    assert copy.memberships.get(role="dj").user.username == "kiso-dj"
    assert event_states(copy) == event_states(rich)


def test_import_with_dj_and_its_errors(rich, tmp_path):
    path = tmp_path / "kiso.json"
    path.write_text(export_text(rich), encoding="utf-8")
    UserFactory(username="nuevo-dj")

    run("import_campaign", str(path), "--dj", "nuevo-dj")

    assert Campaign.objects.filter(memberships__user__username="nuevo-dj").count() == 1
    with pytest.raises(CommandError, match="nadie"):
        run("import_campaign", str(path), "--dj", "nadie")
    with pytest.raises(CommandError, match="no-such-slug"):
        run("export_campaign", "no-such-slug")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "zodiac-campaign", "version": 1}', encoding="utf-8")
    before = counts()
    with pytest.raises(CommandError, match="campaign is missing"):
        run("import_campaign", str(bad), "--lang", "en")
    assert counts() == before


# -- details of the fold --------------------------------------------------------------------


def test_a_void_event_keeps_the_state_of_its_last_fold(rich):
    """Voided later first, then earlier: the later one's state still holds the earlier."""
    document = json.loads(export_text(rich))
    aiko = Character.objects.get(campaign=rich, name="Aiko")
    voided = list(
        StateEvent.objects.filter(campaign=rich, character=aiko, void_at__isnull=False).order_by(
            "seq"
        )
    )
    earlier, later = voided[-2], voided[-1]
    assert later.void_at < earlier.void_at
    state = EventSnapshot.objects.get(event=later, character=aiko).state
    assert "shock" in json.dumps(state["marks"])  # the earlier Shock leve is in it

    copy = campaign_import(json.dumps(document), dj=UserFactory(username="x")).campaign

    again = EventSnapshot.objects.get(event__campaign=copy, event__seq=later.seq).state
    assert dumped(again) == dumped(state)


def test_events_keep_their_times_and_the_created_at_order(rich):
    copy = campaign_import(export_text(rich), dj=UserFactory(username="x")).campaign
    times = list(copy.events.order_by("seq").values_list("created_at", flat=True))

    assert times == sorted(times)
    assert times == list(rich.events.order_by("seq").values_list("created_at", flat=True))
    assert copy.created_at == rich.created_at
    assert copy.created_at < timezone.now() + timedelta(seconds=1)


def test_a_void_event_the_rules_refuse_counts_for_nothing(small):
    """A void event is never part of a PJ's log: when the rules refuse it now (a file made
    under other rules), it keeps the state before it and no effects, and the import goes on."""
    document, dj = small
    document["events"].append(
        {
            **document["events"][-1],
            "seq": 50,
            "character": 2,
            "event": {"kind": "heal", "seed": 3},
            "void_at": document["events"][-1]["created_at"],
            "void_by": "small-dj",
            "void_reason": "No tenía heridas",
        }
    )

    copy = campaign_import(json.dumps(document), dj=dj).campaign

    heal = copy.events.get(seq=50)
    assert heal.is_void and heal.void_by == dj and heal.effects == {str(heal.character_id): []}
    kenji = heal.character
    before = EventSnapshot.objects.filter(character=kenji, event__seq__lt=50).order_by(
        "-event__seq"
    )
    assert EventSnapshot.objects.get(event=heal).state == before.first().state
    assert kenji.snapshot.seq == before.first().event.seq


@pytest.mark.parametrize(
    "event",
    [
        {"kind": "suffer", "type": {}, "grade": "leve"},
        {"kind": "recover", "type": ["heridas"], "grade": "leve"},
        {"kind": "save", "check": {"a": 1}, "success": True},
        {"kind": "dismiss", "check": []},
        {"kind": "attributes", "scores": [1, 2]},
    ],
)
def test_the_pages_read_a_void_event_of_any_shape(small, client, event):
    """A void event the rules refuse is imported as it is (above): the pages that name it
    (board, history, session, its timeline picture, its own page) must still answer."""
    document, dj = small
    document["events"].append(
        {
            **document["events"][-1],
            "seq": 50,
            "character": 1,
            "event": {**event, "seed": 3},
            "void_at": document["events"][-1]["created_at"],
            "void_by": "small-dj",
            "void_reason": "mal",
        }
    )
    slug = campaign_import(json.dumps(document), dj=dj).campaign.slug
    client.force_login(dj)

    for name, args in (
        ("board", []),
        ("history", []),
        ("session_detail", [1]),
        ("session_timeline_svg", [1]),
        ("session_log", [1, "md"]),
        ("event_detail", [50]),
    ):
        assert client.get(reverse(name, args=[slug, *args])).status_code == 200, name


def test_half_a_surrogate_pair_in_an_event_is_a_refusal_on_any_database(small):
    # SQLite keeps it in a JSON column (escaped), and then no page naming it can be sent.
    document, dj = small
    document["events"][0]["event"]["source"] = "ponzoña de prueba"
    text = json.dumps(document, ensure_ascii=False).replace(
        '"ponzoña de prueba"', '"ponzoña \\ud800"', 1
    )

    message = refused(text, dj, lang="en")

    assert message.startswith("The database refused the file's content")


def test_seq_may_have_gaps_and_last_seq_follows_the_file(small):
    document, dj = small
    for n, event in enumerate(document["events"]):
        event["seq"] = 10 * (n + 1)
    for character in document["characters"]:
        character["joined_seq"] *= 10

    copy = campaign_import(json.dumps(document), dj=dj).campaign

    assert copy.last_seq == 10 * len(document["events"])
    record(copy, None, {"kind": "time", "minutes": 1})  # the log goes on after the import
    assert copy.events.order_by("-seq").first().seq == copy.last_seq + 1


def test_duplicates_and_a_second_open_session_are_refused(small):
    document, dj = small
    document["sessions"].append({**document["sessions"][0], "number": 2})
    assert refused(document, dj, lang="en") == (
        "sessions[1].ended_at: only one session can be open (without ended_at); sessions[0] is."
    )

    document, dj = small
    document["sessions"].append({**document["sessions"][0]})
    assert "another session of the file has the number 1" in refused(document, dj, lang="en")

    document, dj = small
    document["characters"][1]["ref"] = 1
    assert "another PJ of the file has the ref 1" in refused(document, dj, lang="en")

    document, dj = small
    document["catalogue"].append(document["catalogue"][0])
    assert "is in the catalogue twice" in refused(document, dj, lang="en")

    document, dj = small
    document["memberships"].append(document["memberships"][0])
    assert "“small-dj” is listed twice" in refused(document, dj, lang="en")


def test_numbers_beyond_an_integer_column_are_refused(small):
    document, dj = small
    document["events"][-1]["seq"] = 2**31

    assert refused(document, dj, lang="en") == (
        f"events[{len(document['events']) - 1}].seq is too large (at most 2147483647)."
    )


@pytest.mark.parametrize(
    ("unit", "amount", "most"),
    [("rounds", 10**30, 10000), ("minutes", 1e300, 10000), ("days", 367, 366)],
)
def test_more_time_at_once_than_the_board_records_is_refused_not_folded(small, unit, amount, most):
    # The engine walks every day of a time event (a day without Descanso, an infection):
    # 10^30 rounds would hold the import (any logged-in user's) for ever.
    document, dj = small
    last = len(document["events"]) - 1
    document["events"][last]["event"] = {"kind": "time", unit: amount, "seed": 1}

    def too_slow(*args):
        raise AssertionError("the import folded the time event")

    signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(10)
    try:
        message = refused(document, dj, lang="en")
    finally:
        signal.alarm(0)

    assert message == f"events[{last}].event.{unit} is too large (at most {most})."


def test_an_end_of_session_sheet_the_page_cannot_read_is_refused(small, client):
    # Imported as it is, it made the session's end-of-session sheets a 500.
    document, dj = small
    document["sessions"][0]["ended_at"] = document["events"][-1]["created_at"]
    state = public_state(initial_state())
    good = json.loads(json.dumps(document))
    good["sessions"][0]["sheet_summary"] = {"1": {"name": "Aiko", "state": state}}
    campaign = campaign_import(json.dumps(good), dj=dj).campaign
    client.force_login(dj)
    assert client.get(reverse("session_sheets", args=[campaign.slug, 1])).status_code == 200

    for summary in (
        {"1": {"name": "Aiko"}},
        {"1": "Aiko"},
        {"1": {"name": "Aiko", "state": {"marks": {}}}},
        {"1": {"name": "Aiko", "state": {**state, "pending": [{"check": "x"}]}}},
    ):
        document["sessions"][0]["sheet_summary"] = summary
        assert refused(document, dj, lang="en") == (
            "sessions[0].sheet_summary.1 is not an end-of-session sheet this app can read."
        )
    assert "no es una hoja de fin de sesión" in refused(document, dj)
    document["sessions"][0]["sheet_summary"] = {"\u00b2": {}}
    assert refused(document, dj, lang="en") == (
        "sessions[0].sheet_summary: no PJ of the file has the ref \u00b2."
    )


def test_an_event_the_engine_chokes_on_is_named_not_a_crash(small, monkeypatch):
    document, dj = small
    apply = backup.check.rules.apply

    def choking(state, event, options=None):
        if event.get("seed") == "boom":
            raise TypeError("unexpected field")
        return apply(state, event, options)

    monkeypatch.setattr(backup.check.rules, "apply", choking)
    document["events"][-1]["event"]["seed"] = "boom"
    last = len(document["events"]) - 1

    message = refused(document, dj, lang="en")

    assert message.startswith(f"events[{last}]: event #{document['events'][-1]['seq']} (time)")
    assert "cannot be applied to Aiko: TypeError: unexpected field" in message


def test_what_the_database_refuses_is_a_refusal_and_writes_nothing(small, monkeypatch):
    from django.db import DataError

    document, dj = small

    def refuse(*args, **kwargs):
        raise DataError("invalid byte sequence for encoding UTF8: 0x00")

    monkeypatch.setattr(EventSnapshot.objects, "bulk_create", refuse)

    message = refused(document, dj, lang="en")

    assert message == (
        "The database refused the file's content, so nothing was written: "
        "invalid byte sequence for encoding UTF8: 0x00"
    )


def test_half_a_surrogate_pair_is_a_refusal_not_a_crash(small):
    document, dj = small
    text = json.dumps(document).replace('"Aiko"', '"Aiko \\ud800"', 1)

    message = refused(text, dj, lang="en")

    assert message.startswith("The database refused the file's content")


def test_the_export_is_cut_where_it_starts(small):
    """What is recorded while a backup downloads waits for the next one."""
    document, dj = small
    campaign = Campaign.objects.get(slug="pequena")
    chunks = export_chunks(campaign)
    head = []
    while not (head and head[-1].startswith('"events"')):
        head.append(next(chunks))
    mei = CharacterFactory(campaign=campaign, name="Mei")  # made during the download
    record(campaign, None, {"kind": "time", "minutes": 1})

    exported = json.loads("".join(head) + "".join(chunks))

    assert exported["events"] == document["events"]
    assert [c["name"] for c in exported["characters"]] == ["Aiko", "Kenji"]
    assert mei.pk and campaign_import(json.dumps(exported), dj=dj).events == len(exported["events"])


def test_a_pj_made_between_the_cut_and_the_pj_list_is_left_out(small):
    """As if the PJ were committed just after the export read the last seq."""
    document, dj = small
    campaign = Campaign.objects.get(slug="pequena")
    cut = campaign.last_seq
    CharacterFactory(campaign=campaign, name="Mei")
    Campaign.objects.filter(pk=campaign.pk).update(last_seq=cut)

    exported = json.loads(export_text(campaign))

    assert [c["name"] for c in exported["characters"]] == ["Aiko", "Kenji"]
    assert exported["events"][-1]["seq"] == cut


def test_a_fights_order_names_its_pj_by_their_refs_in_the_file(rich):
    document = json.loads(export_text(rich))
    refs = {c["name"]: c["ref"] for c in document["characters"]}
    start = next(e for e in document["events"] if e["event"].get("do") == "start")

    assert [s.get("pj") for s in start["event"]["order"]] == [refs["Kenji"], None, refs["Aiko"]]
    assert start["character"] is None and start["party"] == []


def test_a_fight_naming_a_pj_the_file_lacks_is_refused(small):
    document, dj = small
    document["events"].append(
        {
            **document["events"][-1],
            "seq": 999,
            "character": None,
            "party": [],
            "event": {"kind": "fight", "do": "start", "order": [{"pj": 77, "init": None}]},
        }
    )

    assert "no es un orden de turnos de combate" in refused(document, dj)


# -- PNJ, Plantillas and reminders (version 2) ----------------------------------------------


@pytest.fixture
def pnj_campaign(db):
    """PJ and PNJ: a Plantilla and three copies of it, an ally in the party, a revealed PNJ
    showing its card, one lurking, a secret mark on a PNJ; a fight with the copies as one
    group, one taken out, an end that archived the enemies; reminders."""
    dj = UserFactory(username="pnj-dj")
    mei = UserFactory(username="mei-p")
    campaign = services.campaign_create(name="Emboscada", dj=dj)
    aiko = services.character_create(
        campaign=campaign, name="Aiko", player=mei, attributes={"FUE": 3, "VOL": 3}, actor=dj
    )
    bandido = services.template_save(
        campaign=campaign,
        name="Bandido",
        attributes={"FUE": 3, "VOL": 2},
        powers=["regeneracion"],
        notes="Cuchillo.",
    )
    services.template_save(campaign=campaign, name="Monje", side="aliado", notes="Reza.")
    copies = services.pnj_create(campaign=campaign, template=bandido, count=3, actor=dj)
    sato = services.pnj_create(
        campaign=campaign, name="Sato", side="aliado", in_party=True, actor=dj
    )[0]
    jefe = services.pnj_create(campaign=campaign, name="Jefe", attributes={"VOL": 4}, actor=dj)[0]
    services.pnj_settings_set(character=jefe, revealed=True, shows="ficha")
    ninja = services.pnj_create(campaign=campaign, name="Ninja", lurking=True, actor=dj)[0]
    services.session_start(campaign=campaign, title="El puente")
    record(campaign, jefe, suffer("afeccion", "leve", source="veneno de fugu"), actor=dj)
    services.character_secrets_set(character=jefe, add=["veneno de fugu"])
    record(campaign, ninja, {"kind": "special", "name": "marcado", "on": True}, secret=True)
    services.party_event(campaign=campaign, event={"kind": "time", "minutes": 10})
    services.fight_start(
        campaign=campaign,
        order=[
            Slot(pj=aiko.pk, init=15),
            Slot(pj=copies[0].pk, also=(copies[1].pk, copies[2].pk), init=12),
            Slot(pj=jefe.pk, init=10),
            Slot(pj=sato.pk),
            Slot(pj=ninja.pk),
        ],
        actor=dj,
    )
    services.area_event(
        campaign=campaign, characters=copies, event=suffer("heridas", "leve"), actor=dj
    )
    services.fight_pass(campaign=campaign, actor=dj)
    services.fight_out(campaign=campaign, character=copies[1], why="huye", actor=dj)
    for _ in range(4):  # to round 2
        services.fight_pass(campaign=campaign, actor=dj)
    services.fight_end(campaign=campaign, archive_enemies=True, actor=dj)
    services.party_event(campaign=campaign, event={"kind": "time", "hours": 1})
    Reminder.objects.create(
        campaign=campaign, text="El Jefe huye a la tercera", when="start", character=jefe
    )
    Reminder.objects.create(
        campaign=campaign, text="Llegan refuerzos", when="round", round=3, every=True
    )
    passed = StateEvent.objects.filter(campaign=campaign, event__do="pass").order_by("seq")
    Reminder.objects.create(  # spent by the fight's last pass
        campaign=campaign, text="Sato reza", when="end", character=sato, spent_seq=passed.last().seq
    )
    return Campaign.objects.get(pk=campaign.pk)


def pnj_fields(campaign) -> list[tuple]:
    return [
        (
            c.name,
            c.kind,
            c.side,
            c.template.name if c.template else None,
            c.in_party,
            c.revealed,
            c.lurking,
            c.shows,
            c.player.username if c.player else None,
            c.archived_at,
            c.secret_names,
            c.attributes,
            c.powers,
            c.notes,
        )
        for c in campaign.characters.select_related("template", "player").order_by("pk")
    ]


def templates(campaign) -> list[tuple]:
    return list(
        campaign.templates.order_by("pk").values_list(
            "name", "side", "attributes", "powers", "notes"
        )
    )


def reminders(campaign) -> list[tuple]:
    return [
        (r.text, r.when, r.character.name if r.character else None, r.round, r.every, r.spent_seq)
        for r in campaign.reminders.select_related("character").order_by("created_at", "pk")
    ]


def test_the_pnj_campaign_has_what_its_round_trip_must_cover(pnj_campaign):
    fights = [e.event for e in pnj_campaign.events.filter(event__kind="fight")]
    assert any(s.get("also") for f in fights for s in f.get("order", []))
    assert any("out" in f for f in fights) and any(f.get("archived") for f in fights)
    kinds = set(pnj_campaign.characters.values_list("kind", flat=True))
    assert kinds == {"pj", "pnj"}
    pnj = pnj_campaign.characters.filter(kind="pnj")
    assert pnj.filter(in_party=True).exists() and pnj.filter(lurking=True).exists()
    assert pnj.filter(revealed=True, shows="ficha").exists()
    assert pnj.filter(template__isnull=False).count() == 3
    assert pnj.filter(archived_at__isnull=False).count() == 5  # the enemies who fought
    assert pnj.exclude(secret_names=[]).exists()
    assert pnj_campaign.reminders.count() == 3


def test_pnj_templates_and_reminders_round_trip(pnj_campaign):
    text = export_text(pnj_campaign)

    result = campaign_import(text, dj=pnj_campaign.memberships.get(role="dj").user)

    copy = result.campaign
    assert pnj_fields(copy) == pnj_fields(pnj_campaign)
    assert templates(copy) == templates(pnj_campaign)
    assert reminders(copy) == reminders(pnj_campaign)
    assert event_states(copy) == event_states(pnj_campaign)
    assert current_states(copy) == current_states(pnj_campaign)
    assert log(copy) == log(pnj_campaign)  # groups, the one taken out, the archived: by name
    assert campaign_replay_check(campaign=copy)[1] == []
    # The copy's fights are its own PNJ's: no pk of the first campaign is left in them.
    theirs = set(pnj_campaign.characters.values_list("pk", flat=True))
    for event in copy.events.filter(event__kind="fight"):
        named = {pk for s in event.event.get("order", []) for pk in [s["pj"], *s.get("also", [])]}
        named |= set(event.event.get("archived", [])) | {event.event.get("out", {}).get("pj")}
        assert not named & theirs
    assert (result.characters, result.pnj) == (1, 6)
    events = len(json.loads(text)["events"])
    assert result.counts == f"1 PJ, 6 PNJ, 1 sesión, {events} eventos"
    # The PNJ have no player; the player of the PJ keeps the PJ only.
    assert copy.characters.get(name="Aiko").player.username == "mei-p"
    again = json.loads(export_text(copy))
    first = json.loads(text)
    for document in (first, again):
        del document["exported_at"], document["campaign"]["slug"]
    assert again == first


def test_the_file_names_pnj_and_templates_by_their_refs(pnj_campaign):
    document = json.loads(export_text(pnj_campaign))
    refs = {c["name"]: c["ref"] for c in document["characters"]}
    bandido = next(t for t in document["templates"] if t["name"] == "Bandido")

    aiko = next(c for c in document["characters"] if c["name"] == "Aiko")
    assert aiko["kind"] == "pj" and "side" not in aiko and "template" not in aiko
    copy = next(c for c in document["characters"] if c["name"] == "Bandido 2")
    assert copy["kind"] == "pnj" and copy["template"] == bandido["ref"]
    assert {k: copy[k] for k in ("side", "in_party", "revealed", "lurking", "shows")} == {
        "side": "enemigo",
        "in_party": False,
        "revealed": False,
        "lurking": False,
        "shows": "palabras",
    }
    fights = [e["event"] for e in document["events"] if e["event"]["kind"] == "fight"]
    group = fights[0]["order"][1]
    assert [group["pj"], *group["also"]] == [refs[f"Bandido {n}"] for n in (1, 2, 3)]
    out = next(f["out"] for f in fights if "out" in f)
    assert out == {"pj": refs["Bandido 2"], "why": "huye"}
    archived = next(f["archived"] for f in fights if "archived" in f)
    enemies = ("Bandido 1", "Bandido 2", "Bandido 3", "Jefe", "Ninja")
    assert sorted(archived) == sorted(refs[n] for n in enemies)
    spent = next(r for r in document["reminders"] if r["text"] == "Sato reza")
    assert spent["character"] == refs["Sato"] and spent["when"] == "end"


def test_a_group_sharing_a_turn_before_its_fight_round_trips(db):
    """PNJ added as a group with "un turno para todos" before any fight share the turn of
    the first of them (turn_with): the file says it by ref, the copy keeps it by name."""
    dj = UserFactory(username="group-dj")
    campaign = services.campaign_create(name="Antes del puente", dj=dj)
    services.pnj_create(campaign=campaign, name="Ronin", count=3, together=True, actor=dj)
    services.pnj_create(campaign=campaign, name="Jefe", actor=dj)

    text = export_text(campaign)
    document = json.loads(text)
    copy = campaign_import(text, dj=dj).campaign

    refs = {c["name"]: c["ref"] for c in document["characters"]}
    shared = {c["name"]: c["turn_with"] for c in document["characters"]}
    assert shared == {"Ronin 1": refs["Ronin 1"], "Ronin 2": refs["Ronin 1"],
                      "Ronin 3": refs["Ronin 1"], "Jefe": None}  # fmt: skip
    kept = {
        c.name: c.turn_with.name if c.turn_with else None
        for c in copy.characters.select_related("turn_with")
    }
    assert kept == {"Ronin 1": "Ronin 1", "Ronin 2": "Ronin 1", "Ronin 3": "Ronin 1",
                    "Jefe": None}  # fmt: skip
    theirs = set(campaign.characters.values_list("pk", flat=True))
    assert not set(copy.characters.values_list("turn_with", flat=True)) & theirs


def test_an_old_file_without_pnj_keys_imports_as_pj_only(small):
    """Version 1: no kind, no templates, no reminders."""
    document, dj = small
    document["version"] = 1
    del document["templates"], document["reminders"]
    for character in document["characters"]:
        del character["kind"]

    result = campaign_import(json.dumps(document), dj=dj)

    copy = result.campaign
    assert [(c.name, c.kind, c.side, c.template) for c in copy.characters.order_by("pk")] == [
        ("Aiko", "pj", "", None),
        ("Kenji", "pj", "", None),
    ]
    assert not copy.templates.exists() and not copy.reminders.exists()
    assert result.counts == f"2 PJ, 1 sesión, {len(document['events'])} eventos"


def test_the_djs_note_of_a_session_goes_with_the_file_and_an_older_file_has_none(small):
    document, dj = small
    assert "dj_note" in document["sessions"][0]
    document["sessions"][0]["dj_note"] = "Solo para mí."

    kept = campaign_import(json.dumps(document), dj=dj).campaign
    assert kept.sessions.get().dj_note == "Solo para mí."

    del document["sessions"][0]["dj_note"]  # a file from before the note
    older = campaign_import(json.dumps(document), dj=dj).campaign
    assert older.sessions.get().dj_note == ""

    document["sessions"][0]["dj_note"] = ["Solo", "para mí"]
    assert refused(document, dj, lang="en") == "sessions[0].dj_note must be a text."


def a_pnj(document, name: str) -> dict:
    return next(c for c in document["characters"] if c["name"] == name)


@pytest.fixture
def pnj_file(pnj_campaign):
    """A fresh copy of the PNJ campaign's file, and a DJ to import it."""
    text = export_text(pnj_campaign)
    dj = UserFactory(username="importing-dj")
    return lambda: json.loads(text), dj


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: a_pnj(d, "Jefe").update(kind="monstruo"),
            "characters[5].kind must be one of: pj, pnj.",
        ),
        (
            lambda d: a_pnj(d, "Jefe").update(side="neutral"),
            "characters[5].side must be one of: enemigo, aliado.",
        ),
        (
            lambda d: a_pnj(d, "Jefe").update(shows="todo"),
            "characters[5].shows must be one of: nombre, palabras, ficha.",
        ),
        (
            lambda d: a_pnj(d, "Jefe").update(revealed="sí"),
            "characters[5].revealed must be true or false.",
        ),
        (
            lambda d: a_pnj(d, "Bandido 1").update(template=9),
            "characters[1].template: no template of the file has the ref 9.",
        ),
        (
            lambda d: a_pnj(d, "Jefe").update(turn_with=99),
            "characters[5].turn_with: no PNJ of the file has the ref 99.",
        ),
        (
            lambda d: a_pnj(d, "Jefe").update(turn_with=a_pnj(d, "Aiko")["ref"]),
            "characters[5].turn_with: no PNJ of the file has the ref 1.",
        ),
        (
            lambda d: a_pnj(d, "Jefe").update(player="mei-p"),
            "characters[5].player: a PNJ has no player.",
        ),
        (
            lambda d: a_pnj(d, "Aiko").update(side="enemigo"),
            "characters[0].side: only a PNJ has this; this character is a PJ.",
        ),
        (
            lambda d: a_pnj(d, "Jefe").update(in_party=True),
            "characters[5].in_party: only an ally travels with the party.",
        ),
        (
            lambda d: d["templates"][1].update(name="bandido"),
            "templates[1].name: the name “bandido” is used by another template of the file "
            "(templates[0]).",
        ),
        (
            lambda d: d["templates"][0].update(side="neutral"),
            "templates[0].side must be one of: enemigo, aliado.",
        ),
        (
            lambda d: d["templates"][1].update(ref=1),
            "templates[1].ref: another template of the file has the ref 1.",
        ),
        (
            lambda d: d["reminders"][0].update(when="mañana"),
            "reminders[0].when must be one of: start, end, round.",
        ),
        (
            lambda d: d["reminders"][0].update(character=99),
            "reminders[0].character: no PJ of the file has the ref 99.",
        ),
        (
            lambda d: d["reminders"][0].update(character=None),
            "reminders[0].character: a note for a turn needs whose turn it is.",
        ),
        (
            lambda d: d["reminders"][1].update(round=None),
            "reminders[1].round: a note for a round needs its round.",
        ),
        (
            lambda d: d["reminders"][2].update(text=" "),
            "reminders[2].text must be a text of 1 to 120 characters.",
        ),
    ],
)
def test_bad_pnj_templates_and_reminders_are_refused_by_place(pnj_file, change, message):
    read, dj = pnj_file
    document = read()
    change(document)

    assert refused(document, dj, lang="en") == message


def test_a_fight_taking_out_or_archiving_someone_the_file_lacks_is_refused(pnj_file):
    read, dj = pnj_file
    document = read()
    out = next(e for e in document["events"] if "out" in e["event"])
    place = f"events[{document['events'].index(out)}]"
    out["event"]["out"]["pj"] = 77
    assert refused(document, dj, lang="en") == (
        f"{place}.event.out.pj: no PJ of the file has the ref 77."
    )

    document = read()
    end = next(e for e in document["events"] if "archived" in e["event"])
    place = f"events[{document['events'].index(end)}]"
    end["event"]["archived"].append(a_pnj(document, "Aiko")["ref"])  # a PJ: never archived so
    assert refused(document, dj, lang="en") == (
        f"{place}.event.archived: no PNJ of the file has the ref 1."
    )
    assert refused(document, dj) == (
        f"{place}.event.archived: ningún PNJ del archivo tiene la referencia 1."
    )

    document = read()
    start = next(e for e in document["events"] if e["event"].get("do") == "start")
    start["event"]["order"][1]["also"].append(77)  # a group with someone the file lacks
    assert "not a fight's turn order" in refused(document, dj, lang="en")
