"""Two requests on the same object at the same instant: an edit or an action racing the
removal (delete, archive, revoke, end) of what it acts on.

Neither answers 5xx. The one that loses answers what a user expects: the app's 404 for
a thing gone, or a clear message in Spanish; and nothing is written half-done (the entry
is deleted or has the edit, the change cursor and its CampaignChange rows stay gapless).

Each pair is driven through Django's test Client from two threads, each request held at
the door of its write (`race`: after every read its view makes first) until both are
there, then released together, so both act on the same state; each pair runs ROUNDS
times with a fresh object, so both orders of the lock are met. Runs on whatever
DATABASE_URL says (CI: SQLite, whose test database is a file here, and PostgreSQL);
`transaction=True`, so each thread's connection sees the others' commits. No duration is
asserted: threads wait on barriers.
"""

import threading
from collections.abc import Callable

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import translation

import rules
from campaign import services
from campaign.history.replay import campaign_replay_check
from campaign.models import (
    CampaignChange,
    CatalogueEntry,
    Character,
    CharacterSnapshot,
    GameSession,
    Invitation,
    Membership,
    StateEvent,
)
from campaign.services import campaigns, events, players
from campaign.views import board
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

HX = {"HX-Request": "true"}
WAIT = 30  # seconds: no thread waits longer for the other
ROUNDS = 10  # each pair, each time on a fresh object


def browser(user) -> Client:
    """A logged-in browser whose server errors come back as answers (a 500), not raised."""
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def race(monkeypatch, *doors: tuple) -> None:
    """Hold each of the two racing requests at its door (`target.name`, the view's write)
    until both are there: both have made every read before it, neither has written. A
    door `(target, name, "after")` holds its request once that call (a read) returned."""
    both = threading.Barrier(2)
    for target, name, *when in doors:
        real = getattr(target, name)

        def held(*args, _real=real, _after=bool(when), **kwargs):
            if not _after:
                both.wait(timeout=WAIT)
            result = _real(*args, **kwargs)
            if _after:
                both.wait(timeout=WAIT)
            return result

        monkeypatch.setattr(target, name, held)


def at_once(*posts: Callable):
    """Run each post in a thread of its own, released together; their answers, in order."""
    start = threading.Barrier(len(posts))
    answers = [None] * len(posts)
    failures = []

    def run(i, post):
        try:
            start.wait(timeout=WAIT)
            answers[i] = post()
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, p)) for i, p in enumerate(posts)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=2 * WAIT)
    assert not any(t.is_alive() for t in threads), "a request never finished"
    assert failures == []
    assert all(a.status_code < 500 for a in answers), [a.status_code for a in answers]
    return answers


def post(client: Client, name: str, args: list, data: dict | None = None, **headers):
    return lambda: client.post(reverse(name, args=args), data or {}, headers=headers)


def changes(campaign) -> list[str]:
    return list(campaign.changes.order_by("cursor").values_list("kind", flat=True))


def cursor_sound(campaign) -> None:
    """The change cursor and its rows gapless, the log's seq too, the log replaying."""
    campaign.refresh_from_db()
    cursors = list(campaign.changes.order_by("cursor").values_list("cursor", flat=True))
    assert cursors == list(range(1, campaign.change_cursor + 1))
    seqs = list(campaign.events.order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, campaign.last_seq + 1))
    assert campaign_replay_check(campaign=campaign)[1] == []


def message(client: Client, page: str) -> str:
    """The page a redirect led to, with the messages it shows."""
    return client.get(page).content.decode()


# -- the catalogue: an entry edited while it is deleted -----------------------------------


def _shown(campaign, character, name: str) -> None:
    """`character`'s card shows `name` (an Afección from it): its edits are changes."""
    services.event_record(
        campaign=campaign,
        character=character,
        event={"kind": "suffer", "type": "afeccion", "grade": "leve", "source": name},
    )


def test_a_catalogue_entry_edited_while_deleted_is_deleted_or_edited_never_a_500(
    campaign, dj, aiko, monkeypatch
):
    editor, remover = browser(dj), browser(dj)
    race(monkeypatch, (services, "catalogue_entry_save"), (services, "catalogue_entry_delete"))
    _shown(campaign, aiko, "veneno")
    orders = set()
    for i in range(ROUNDS):
        entry = campaigns.catalogue_entry_save(
            campaign=campaign, name="veneno", kind="veneno", effect="antes"
        )
        before = changes(campaign)
        edit = post(editor, "catalogue_edit", [campaign.slug, entry.pk], {"effect": f"después {i}"})

        edited, deleted = at_once(
            edit, post(remover, "catalogue_delete", [campaign.slug, entry.pk])
        )

        assert deleted.status_code == 302
        assert not CatalogueEntry.objects.filter(pk=entry.pk).exists()
        new = changes(campaign)[len(before) :]
        if edited.status_code == 302:  # the edit came first: saved, then deleted
            assert new == [CampaignChange.Kind.CATALOGUE] * 2
            orders.add("edit first")
        else:  # the delete came first: the edit finds the entry gone, as after a reload
            assert edited.status_code == 404
            assert "Página no encontrada" in edited.content.decode()
            assert new == [CampaignChange.Kind.CATALOGUE]
            orders.add("delete first")
    assert orders, "no round ran"
    cursor_sound(campaign)


def test_a_catalogue_entry_deleted_twice_at_once_is_deleted_once(campaign, dj, aiko, monkeypatch):
    first, second = browser(dj), browser(dj)
    race(monkeypatch, (services, "catalogue_entry_delete"), (services, "catalogue_entry_delete"))
    _shown(campaign, aiko, "peste")
    for _round in range(ROUNDS):
        entry = campaigns.catalogue_entry_save(campaign=campaign, name="peste", kind="enfermedad")
        before = changes(campaign)

        answers = at_once(
            post(first, "catalogue_delete", [campaign.slug, entry.pk]),
            post(second, "catalogue_delete", [campaign.slug, entry.pk]),
        )

        # The second is told the entry is gone, as when it was deleted before its tap.
        assert sorted(a.status_code for a in answers) == [302, 404]
        assert not CatalogueEntry.objects.filter(pk=entry.pk).exists()
        assert changes(campaign)[len(before) :] == [CampaignChange.Kind.CATALOGUE]
    cursor_sound(campaign)


# -- a player's roll while the DJ takes the PJ back from them ------------------------------


def _invited(campaign, dj, i: int) -> tuple[Character, Invitation]:
    pj = services.character_create(campaign=campaign, name=f"Invitado {i}")
    return pj, players.invitation_create(character=pj, by=dj)  # not the raced door


def test_a_roll_on_a_sheet_while_its_player_is_removed_is_before_or_refused(
    campaign, dj, monkeypatch
):
    race(monkeypatch, (services, "event_record"), (services, "player_remove"))
    remover = browser(dj)
    outcomes = set()
    for i in range(ROUNDS):
        pj, invitation = _invited(campaign, dj, i)
        services.character_update(character=pj, attributes={"VOL": 3})
        user = UserFactory(username=f"tirador-{i}")
        services.invitation_accept(invitation=invitation, user=user)
        blow = {"kind": "suffer", "type": "shock", "grade": "grave"}
        events.event_record(campaign=campaign, character=pj, event=blow)
        events.event_record(campaign=campaign, character=pj, event={"kind": "turn_end"})
        check = "shock_grave_fin_turno"
        before = changes(campaign)

        rolled, removed = at_once(
            post(browser(user), "sheet_roll", [campaign.slug, pj.pk], {"check": check}, **HX),
            post(remover, "player_remove", [campaign.slug, pj.pk]),
        )

        assert removed.status_code == 302
        pj.refresh_from_db()
        assert pj.player is None
        assert not Membership.objects.filter(campaign=campaign, user=user).exists()
        saves = StateEvent.objects.filter(character=pj, event__kind="save")
        new = changes(campaign)[len(before) :]
        if rolled.status_code == 200:  # rolled first, while still the PJ's player
            assert saves.count() == 1 and saves.get().actor == user
            assert new == [CampaignChange.Kind.EVENT, CampaignChange.Kind.CHARACTER]
            outcomes.add("rolled")
        else:  # removed first: the sheet is no longer theirs, as on its next load
            assert rolled.status_code == 404
            assert not saves.exists()
            assert new == [CampaignChange.Kind.CHARACTER]
            outcomes.add("refused")
    cursor_sound(campaign)


# -- a PJ edited while it is archived or restored -----------------------------------------


def _pj_form(name: str) -> dict:
    return {"name": name, "player": "", "FUE": 3, "AGI": 5, "DES": 4, "VOL": 3, "notes": "n"}


@pytest.mark.parametrize("action", ["character_archive", "character_restore"])
def test_a_pj_edited_while_archived_or_restored_gets_both(campaign, dj, monkeypatch, action):
    editor, archivist = browser(dj), browser(dj)
    race(monkeypatch, (services, "character_update"), (services, action))
    for i in range(ROUNDS):
        pj = services.character_create(
            campaign=campaign, name=f"PJ {i}", attributes={"FUE": 3, "AGI": 5, "DES": 4, "VOL": 3}
        )
        if action == "character_restore":
            services.character_archive(character=pj)
        before = changes(campaign)

        answers = at_once(
            post(editor, "character_edit", [campaign.slug, pj.pk], _pj_form(f"Renombrado {i}")),
            post(archivist, action, [campaign.slug, pj.pk]),
        )

        assert [a.status_code for a in answers] == [302, 302]
        pj.refresh_from_db()
        assert pj.name == f"Renombrado {i}" and pj.notes == "n"
        assert pj.is_archived is (action == "character_archive")
        assert changes(campaign)[len(before) :] == [CampaignChange.Kind.CHARACTER] * 2
    cursor_sound(campaign)


def _played(campaign, dj, i: int) -> tuple[Character, Invitation, object]:
    """A PJ with a pending invitation, and the user about to take it up."""
    pj, invitation = _invited(campaign, dj, i)
    return pj, invitation, UserFactory(username=f"jugadora-{i}")


def test_a_pj_edited_while_its_player_is_removed_keeps_the_edit_and_the_removal(
    campaign, dj, monkeypatch
):
    editor, remover = browser(dj), browser(dj)
    race(monkeypatch, (services, "character_update"), (services, "player_remove"))
    for i in range(ROUNDS):
        pj, invitation, user = _played(campaign, dj, i)
        services.invitation_accept(invitation=invitation, user=user)
        form = {**_pj_form(f"Editado {i}"), "player": user.pk}  # the form shows the player

        answers = at_once(
            post(editor, "character_edit", [campaign.slug, pj.pk], form),
            post(remover, "player_remove", [campaign.slug, pj.pk]),
        )

        # Whichever came first, the player is removed (not given back by the edit's form,
        # which did not change it) and the edit is kept.
        assert [a.status_code for a in answers] == [302, 302]
        pj.refresh_from_db()
        assert pj.name == f"Editado {i}" and pj.player is None
        assert not Membership.objects.filter(campaign=campaign, user=user).exists()
    cursor_sound(campaign)


def test_a_pj_edited_while_a_player_joins_it_keeps_the_edit_and_the_player(
    campaign, dj, monkeypatch
):
    editor = browser(dj)
    race(monkeypatch, (services, "character_update"), (services, "invitation_find", "after"))
    for i in range(ROUNDS):
        pj, invitation, user = _played(campaign, dj, i)

        edited, joined = at_once(
            post(editor, "character_edit", [campaign.slug, pj.pk], _pj_form(f"Unido {i}")),
            post(browser(user), "join", [invitation.token]),
        )

        assert edited.status_code == 302 and joined.status_code == 302
        pj.refresh_from_db()
        assert pj.name == f"Unido {i}" and pj.player == user
        assert Membership.objects.filter(campaign=campaign, user=user).exists()
    cursor_sound(campaign)


def test_a_pj_given_to_another_player_while_its_player_changed_is_refused_by_the_field(
    campaign, dj
):
    # What the race's loser meets once the lock is held: the edit read the PJ without a
    # player, one joined, and the edit gives the PJ to someone else.
    pj, invitation, user = _played(campaign, dj, 0)
    other = UserFactory(username="otra")
    services.membership_set(campaign=campaign, user=other, role=Membership.Role.PLAYER)
    services.invitation_accept(invitation=invitation, user=user)

    with pytest.raises(ValidationError) as refused:
        services.character_update(character=pj, name="Otra", player=other, player_was=None)

    assert refused.value.error_dict["player"][0].code == "player_changed"
    with translation.override("es"):
        assert refused.value.messages == [
            f"El jugador de {pj.name} cambió mientras lo editabas: revísalo y guarda de nuevo."
        ]
    pj.refresh_from_db()
    assert pj.player == user and pj.name != "Otra"


def test_a_blow_on_the_board_while_its_pj_is_archived_is_before_or_refused(
    campaign, dj, monkeypatch
):
    tapper, archivist = browser(dj), browser(dj)
    race(monkeypatch, (board, "_record"), (services, "character_archive"))
    for i in range(ROUNDS):
        pj = services.character_create(campaign=campaign, name=f"Archivado {i}")
        tap = post(
            tapper,
            "act",
            [campaign.slug, pj.pk],
            {"action": "suffer", "type_grade": "heridas:leve", "key": f"a{i}"},
            **HX,
        )

        tapped, archived = at_once(
            tap, post(archivist, "character_archive", [campaign.slug, pj.pk])
        )

        assert archived.status_code == 302
        pj.refresh_from_db()
        assert pj.is_archived
        blows = StateEvent.objects.filter(character=pj, event__kind="suffer")
        if tapped.status_code == 200:  # the blow first, then the archive
            assert blows.count() == 1
        else:  # archived first: told so in Spanish, nothing recorded
            assert tapped.status_code == 422
            assert f"{pj.name} está archivado: restáuralo para anotarle algo." in (
                tapped.content.decode()
            )
            assert not blows.exists()
    cursor_sound(campaign)


# -- an invitation taken up while it is cancelled, replaced, or by two players ------------


def test_an_invitation_joined_while_cancelled_is_one_or_the_other(campaign, dj, monkeypatch):
    # The join's door: once it found the invitation, before its view's transaction (where
    # SQLite would hold the write lock while it waits).
    race(monkeypatch, (services, "invitation_find", "after"), (services, "invitation_cancel"))
    cancel_client = browser(dj)
    outcomes = set()
    for i in range(ROUNDS):
        pj, invitation = _invited(campaign, dj, i)
        user = UserFactory(username=f"jugador-{i}")
        joiner = browser(user)

        joined, cancelled = at_once(
            post(joiner, "join", [invitation.token]),
            post(cancel_client, "invitation_cancel", [campaign.slug, invitation.pk]),
        )

        assert cancelled.status_code == 302
        invitation.refresh_from_db()
        pj.refresh_from_db()
        member = Membership.objects.filter(campaign=campaign, user=user).exists()
        shown = message(cancel_client, cancelled["Location"])
        if joined.status_code == 302:  # joined first: the cancel is told it was used
            assert joined["Location"] == reverse("sheet", args=[campaign.slug, pj.pk])
            assert invitation.used_by == user and pj.player == user and member
            assert f"La invitación para {pj.name} ya se usó" in shown
            outcomes.add("joined")
        else:  # cancelled first: the player is told, in Spanish, and nothing is written
            assert joined.status_code == 422
            assert "Esta invitación ya se usó, se canceló o ha caducado" in joined.content.decode()
            assert invitation.revoked_at is not None and invitation.used_at is None
            assert pj.player is None and not member
            assert f"Invitación para {pj.name} cancelada" in shown
            outcomes.add("cancelled")
        assert not (invitation.used_at and invitation.revoked_at)
    cursor_sound(campaign)


def test_an_invitation_joined_by_two_players_at_once_is_taken_once(campaign, dj, monkeypatch):
    race(
        monkeypatch, (services, "invitation_find", "after"), (services, "invitation_find", "after")
    )
    for i in range(ROUNDS):
        pj, invitation = _invited(campaign, dj, i)
        users = [UserFactory(username=f"a-{i}"), UserFactory(username=f"b-{i}")]

        answers = at_once(*(post(browser(u), "join", [invitation.token]) for u in users))

        assert sorted(a.status_code for a in answers) == [302, 422]
        winner = users[[a.status_code for a in answers].index(302)]
        pj.refresh_from_db()
        invitation.refresh_from_db()
        assert pj.player == winner and invitation.used_by == winner
        members = Membership.objects.filter(campaign=campaign, user__in=users)
        assert list(members.values_list("user", flat=True)) == [winner.pk]
    cursor_sound(campaign)


def test_an_invitation_taken_up_while_the_dj_makes_a_new_one_is_one_or_the_other(
    campaign, dj, monkeypatch
):
    race(monkeypatch, (services, "invitation_find", "after"), (services, "invitation_create"))
    inviter = browser(dj)
    for i in range(ROUNDS):
        pj, invitation, user = _played(campaign, dj, i)

        joined, invited = at_once(
            post(browser(user), "join", [invitation.token]),
            post(inviter, "invite", [campaign.slug, pj.pk]),
        )

        assert invited.status_code == 302
        pj.refresh_from_db()
        pending = Invitation.objects.filter(
            character=pj, used_at__isnull=True, revoked_at__isnull=True
        )
        shown = message(inviter, invited["Location"])
        if joined.status_code == 302:  # joined first: no new invitation for a PJ played
            assert pj.player == user and not pending.exists()
            assert f"{pj.name} ya tiene jugador" in shown
        else:  # the new invitation first: the old one no longer joins
            assert joined.status_code == 422
            assert pj.player is None and pending.count() == 1
            assert pending.get() != invitation
    cursor_sound(campaign)


def test_a_player_removed_from_two_tabs_at_once_is_removed_once(campaign, dj, monkeypatch):
    race(monkeypatch, (services, "player_remove"), (services, "player_remove"))
    first, second = browser(dj), browser(dj)
    for i in range(ROUNDS):
        pj, invitation, user = _played(campaign, dj, i)
        services.invitation_accept(invitation=invitation, user=user)
        before = changes(campaign)

        answers = at_once(
            post(first, "player_remove", [campaign.slug, pj.pk]),
            post(second, "player_remove", [campaign.slug, pj.pk]),
        )

        assert [a.status_code for a in answers] == [302, 302]
        shown = [message(c, a["Location"]) for c, a in zip((first, second), answers, strict=True)]
        done = [f"{user.username} ya no juega a {pj.name}" in page for page in shown]
        told = [f"{pj.name} no tiene jugador que quitar" in page for page in shown]
        assert sorted(done) == [False, True] and sorted(told) == [False, True]
        pj.refresh_from_db()
        assert pj.player is None
        assert changes(campaign)[len(before) :] == [CampaignChange.Kind.CHARACTER]
    cursor_sound(campaign)


# -- a session ended while an event is recorded into it, or its recap edited --------------


def test_a_session_ended_while_a_blow_is_recorded_keeps_a_sheet_that_matches_its_log(
    campaign, dj, monkeypatch
):
    race(monkeypatch, (board, "_record"), (services, "session_end"))
    tapper, ender = browser(dj), browser(dj)
    for i in range(ROUNDS):
        session = services.session_start(campaign=campaign, title=f"Sesión de prueba {i}")
        pj = services.character_create(campaign=campaign, name=f"Golpeado {i}")
        state_before = rules.public_state(CharacterSnapshot.objects.get(character=pj).state)
        tap = post(
            tapper,
            "act",
            [campaign.slug, pj.pk],
            {"action": "suffer", "type_grade": "heridas:leve", "key": f"k{i}"},
            **HX,
        )

        tapped, ended = at_once(tap, post(ender, "session_end", [campaign.slug], {"recap": "fin"}))

        assert tapped.status_code == 200 and ended.status_code == 302
        session.refresh_from_db()
        assert not session.is_open and session.recap == "fin"
        blow = StateEvent.objects.get(character=pj, event__kind="suffer")
        kept = session.sheet_summary[str(pj.pk)]["state"]
        if blow.session_id == session.pk:  # recorded before the end: on the session's sheet
            assert kept == rules.public_state(CharacterSnapshot.objects.get(character=pj).state)
        else:  # after it: in no session, and not on its sheet
            assert blow.session_id is None
            assert kept == state_before
    cursor_sound(campaign)


def test_a_session_ended_while_its_recap_is_edited_keeps_one_whole_recap(campaign, dj, monkeypatch):
    race(monkeypatch, (services, "session_recap_set"), (services, "session_end"))
    editor, ender = browser(dj), browser(dj)
    for i in range(ROUNDS):
        session = services.session_start(campaign=campaign, title=f"Sesión con resumen {i}")
        before = changes(campaign)

        edited, ended = at_once(
            post(
                editor, "session_recap", [campaign.slug, session.number], {"recap": "del resumen"}
            ),
            post(ender, "session_end", [campaign.slug], {"recap": "del final"}),
        )

        assert edited.status_code == 302 and ended.status_code == 302
        session = GameSession.objects.get(pk=session.pk)
        assert not session.is_open
        assert session.recap in ("del resumen", "del final")
        assert changes(campaign)[len(before) :] == [CampaignChange.Kind.SESSION]
    cursor_sound(campaign)
