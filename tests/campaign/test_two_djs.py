"""Two DJs tapping the same PJ at the same instant: each from its own logged-in browser
(the campaign's DJ and a co-DJ, a second DJ membership), released together.

Blows that both apply are both recorded, one after the other (contiguous seq, the second
folded on top of the first). Taps that conflict (resolving the same pending check, voiding
the same event, two Deshacer, the same tap twice) are applied once: the other is refused
with a reason in Spanish, or, for the same tap, answered as already done.

Each test holds both requests at the door of their write (the `gate`), after every read
the view makes first, so both act on the same state: the worst moment, every time. Runs
on whatever DATABASE_URL says (CI: SQLite, whose test database is a file here, and
PostgreSQL); `transaction=True`, so each thread's connection sees the others' commits.
"""

import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

import rules
from campaign import services
from campaign.history.replay import campaign_replay_check
from campaign.models import (
    Campaign,
    CampaignChange,
    CharacterSnapshot,
    EventSnapshot,
    Membership,
    StateEvent,
)
from campaign.views import board
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

HX = {"HX-Request": "true"}
WAIT = 30  # seconds: no thread waits longer for the other


@pytest.fixture
def co_dj(campaign):
    user = UserFactory(username="co-dj")
    services.membership_set(campaign=campaign, user=user, role=Membership.Role.DJ)
    return user


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def gate(monkeypatch, target, name: str) -> None:
    """Hold each of the two racing requests at `target.name` (the view's write) until both
    are there: both have made every read before it, neither has written."""
    real = getattr(target, name)
    both = threading.Barrier(2)

    def held(*args, **kwargs):
        both.wait(timeout=WAIT)
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, held)


def at_once(*posts):
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
    return answers


def tap(client, campaign, pj, **data):
    return lambda: client.post(reverse("act", args=[campaign.slug, pj.pk]), data, headers=HX)


def post(client, name, args, **data):
    return lambda: client.post(reverse(name, args=args), data, headers=HX)


def record(campaign, pj, **event):
    return services.event_record(campaign=campaign, character=pj, event=event)


def text(answer) -> str:
    return answer.content.decode()


def one_done_one_refused(answers, refused_status: int) -> tuple:
    """The answer that did it and the one refused, whichever thread won."""
    statuses = sorted(a.status_code for a in answers)
    assert statuses in ([200, refused_status], [302, refused_status]), statuses
    done = next(a for a in answers if a.status_code != refused_status)
    refused = next(a for a in answers if a.status_code == refused_status)
    return done, refused


def log_sound(campaign) -> None:
    campaign.refresh_from_db()
    seqs = list(campaign.events.order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, campaign.last_seq + 1))
    cursors = list(campaign.changes.order_by("cursor").values_list("cursor", flat=True))
    assert cursors == list(range(1, campaign.change_cursor + 1))
    assert campaign_replay_check(campaign=campaign)[1] == []


# -- two blows: both recorded, the second on top of the first ------------------------------


@pytest.mark.parametrize(
    "blows, marks",
    [
        (("heridas:leve", "shock:leve"), {"heridas": ["leve"], "shock": ["leve"]}),
        # Two Heridas leve make a grave: the second read the first's state, none was lost.
        (("heridas:leve", "heridas:leve"), {"heridas": ["leve", "grave"], "shock": []}),
    ],
)
def test_two_blows_at_once_are_both_recorded_one_on_top_of_the_other(
    campaign, aiko, dj, co_dj, monkeypatch, blows, marks
):
    before = Campaign.objects.get(pk=campaign.pk).last_seq
    state_before = CharacterSnapshot.objects.get(character=aiko).state
    first, second = browser(dj), browser(co_dj)
    gate(monkeypatch, board, "_record")

    answers = at_once(
        tap(first, campaign, aiko, action="suffer", type_grade=blows[0], key="tap-a"),
        tap(second, campaign, aiko, action="suffer", type_grade=blows[1], key="tap-b"),
    )

    assert [a.status_code for a in answers] == [200, 200]
    events = list(StateEvent.objects.filter(campaign=campaign, seq__gt=before).order_by("seq"))
    assert [e.seq for e in events] == [before + 1, before + 2]
    assert {e.actor for e in events} == {dj, co_dj}
    # In a clear order: each state is the one before it with its event applied.
    options = campaign.rule_options()
    state = state_before
    for event in events:
        state, _effects = rules.apply(state, event.event, options)
        assert EventSnapshot.objects.get(event=event).state == state
    assert CharacterSnapshot.objects.get(character=aiko).state == state
    public = rules.public_state(state)["marks"]
    assert {t: public[t] for t in marks} == marks
    # Each answer says a cursor it reflects, at least its own write's (the first answer may
    # already have seen the second write: it reads the cursor after its own commit).
    cursor = {a.wsgi_request.user: int(a["X-Change-Cursor"]) for a in answers}
    final = Campaign.objects.get(pk=campaign.pk).change_cursor
    assert cursor[events[1].actor] == final
    assert final - 1 <= cursor[events[0].actor] <= final
    log_sound(campaign)


# -- two taps that conflict: one applied, the other refused or already done ---------------


def test_the_same_pending_check_resolved_by_both_is_applied_once(
    campaign, aiko, dj, co_dj, monkeypatch
):
    record(campaign, aiko, kind="suffer", type="shock", grade="grave")
    record(campaign, aiko, kind="turn_end")
    check = "shock_grave_fin_turno"
    assert [p["check"] for p in CharacterSnapshot.objects.get(character=aiko).state["pending"]] == [
        check
    ]
    first, second = browser(dj), browser(co_dj)
    gate(monkeypatch, board, "_record")

    answers = at_once(
        tap(first, campaign, aiko, action="success", check=check, key="a"),
        tap(second, campaign, aiko, action="failure", check=check, key="b"),
    )

    done, refused = one_done_one_refused(answers, 422)
    assert "No queda pendiente ninguna «TS VOL: salir de Shock grave»" in text(refused)
    saves = list(StateEvent.objects.filter(campaign=campaign, event__kind="save"))
    assert len(saves) == 1
    assert saves[0].actor == done.wsgi_request.user
    assert saves[0].event["success"] is (done.wsgi_request.user == dj)  # dj said success
    state = CharacterSnapshot.objects.get(character=aiko).state
    assert state["pending"] == []
    log_sound(campaign)


def test_the_same_tap_from_two_tabs_is_recorded_once_and_both_are_answered(
    campaign, aiko, dj, monkeypatch
):
    # The key names one tab's tap and is kept per user (idempotency_key: "<user pk>:<key>"),
    # so the same tap sent twice is one DJ's, from two tabs (two sessions) of the same DJ.
    before = Campaign.objects.get(pk=campaign.pk).last_seq
    first, second = browser(dj), browser(dj)
    gate(monkeypatch, board, "_record")

    answers = at_once(
        tap(first, campaign, aiko, action="suffer", type_grade="heridas:leve", key="same"),
        tap(second, campaign, aiko, action="suffer", type_grade="heridas:leve", key="same"),
    )

    assert [a.status_code for a in answers] == [200, 200]  # the second: already done
    events = list(StateEvent.objects.filter(campaign=campaign, seq__gt=before))
    assert len(events) == 1 and events[0].idempotency_key == f"{dj.pk}:same"
    assert answers[0]["X-Change-Cursor"] == answers[1]["X-Change-Cursor"]
    marks = rules.public_state(CharacterSnapshot.objects.get(character=aiko).state)["marks"]
    assert marks["heridas"] == ["leve"]
    log_sound(campaign)


def test_the_same_event_voided_by_both_is_voided_once(campaign, aiko, dj, co_dj, monkeypatch):
    wound = record(campaign, aiko, kind="suffer", type="heridas", grade="leve")
    record(campaign, aiko, kind="suffer", type="fatiga", grade="leve")
    first, second = browser(dj), browser(co_dj)
    gate(monkeypatch, services, "events_void")

    answers = at_once(
        post(first, "void", [campaign.slug], seq=wound.seq, reason="la tirada era otra"),
        post(second, "void", [campaign.slug], seq=wound.seq, reason="no le dio"),
    )

    done, refused = one_done_one_refused(answers, 409)
    assert text(refused) == f"El evento #{wound.seq} ya está anulado."
    wound.refresh_from_db()
    assert wound.void_by == done.wsgi_request.user
    assert wound.void_reason == ("la tirada era otra" if wound.void_by == dj else "no le dio")
    changes = CampaignChange.objects.filter(campaign=campaign, kind=CampaignChange.Kind.VOID)
    assert changes.count() == 1
    marks = rules.public_state(CharacterSnapshot.objects.get(character=aiko).state)["marks"]
    assert marks["heridas"] == [] and marks["fatiga"] == ["leve"]
    log_sound(campaign)


def test_the_same_event_voided_by_both_from_its_page_is_voided_once_and_shown_void_to_both(
    campaign, aiko, dj, co_dj, monkeypatch
):
    wound = record(campaign, aiko, kind="suffer", type="heridas", grade="leve")
    first, second = browser(dj), browser(co_dj)
    gate(monkeypatch, services, "events_void")
    url = reverse("event_void", args=[campaign.slug, wound.seq])
    reasons = {dj: "la tirada era otra", co_dj: "no le dio"}

    answers = at_once(
        lambda: first.post(url, {"reason": reasons[dj]}),
        lambda: second.post(url, {"reason": reasons[co_dj]}),
    )

    # Both back on the event's page, which shows it void: the one too late told so (as
    # when it was void before the tap), not its own stale page offering to void it again.
    page = reverse("event_detail", args=[campaign.slug, wound.seq])
    assert [(a.status_code, a.get("Location")) for a in answers] == [(302, page)] * 2
    wound.refresh_from_db()
    assert reasons[wound.void_by] == wound.void_reason
    late = first if wound.void_by == co_dj else second
    shown = late.get(page).content.decode()
    assert "Este evento ya está anulado." in shown
    assert f": {wound.void_reason}</dd>" in shown and "Anular este evento" not in shown
    assert CampaignChange.objects.filter(campaign=campaign, kind="void").count() == 1
    log_sound(campaign)


def test_deshacer_from_both_boards_undoes_one_event_not_two(campaign, aiko, dj, co_dj, monkeypatch):
    older = record(campaign, aiko, kind="suffer", type="heridas", grade="leve")
    latest = record(campaign, aiko, kind="suffer", type="fatiga", grade="leve")
    first, second = browser(dj), browser(co_dj)
    gate(monkeypatch, services, "events_void")

    # Both pages show the same latest event (the undo form's `seq`).
    answers = at_once(
        post(first, "undo", [campaign.slug], seq=latest.seq),
        post(second, "undo", [campaign.slug], seq=latest.seq),
    )

    _done, refused = one_done_one_refused(answers, 409)
    assert text(refused) == f"El evento #{latest.seq} ya está anulado."
    latest.refresh_from_db()
    older.refresh_from_db()
    assert latest.is_void and not older.is_void
    marks = rules.public_state(CharacterSnapshot.objects.get(character=aiko).state)["marks"]
    assert marks["heridas"] == ["leve"] and marks["fatiga"] == []
    log_sound(campaign)
