"""The `demo` and `replay_check` management commands."""

from io import StringIO

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.http import HttpRequest

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
    players = {c.name: c.player.username for c in demo.characters.filter(kind="pj")}
    assert players == {"Aiko": "aiko", "Kenji": "kenji", "Mei": "mei", "Taro": "taro"}
    # The DJ's side: a Plantilla, and a villain the players have met, wounded.
    assert [t.name for t in demo.templates.all()] == ["Ronin"]
    oni = demo.characters.get(kind="pnj")
    assert (oni.name, oni.revealed, oni.player) == ("Oni del templo", True, None)
    assert oni.snapshot.state["marks"]["heridas"] == ["grave"]
    for login in ("dj", "aiko", "kenji", "mei", "taro"):
        assert authenticate(HttpRequest(), username=login, password="zodiac-demo") is not None
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
    assert "5 PJ and PNJ match" in run("replay_check")


@pytest.mark.django_db
def test_replay_check_fails_when_a_snapshot_disagrees_with_the_log():
    run("demo")
    snapshot = CharacterSnapshot.objects.get(character__name="Mei")
    snapshot.state = {**snapshot.state, "clock": snapshot.state["clock"] + 60}
    snapshot.save()

    with pytest.raises(CommandError) as caught:
        run("replay_check")

    assert "1 of 5" in str(caught.value)


@pytest.mark.django_db
def test_replay_check_ignores_voided_events(campaign, aiko):
    from campaign import services

    wound = services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )
    services.event_void(event=wound)
    assert "1 PJ and PNJ match" in run("replay_check", "--campaign", "kiso")


@pytest.mark.django_db
def test_replay_check_refuses_an_unknown_campaign():
    with pytest.raises(CommandError):
        run("replay_check", "--campaign", "nope")


def _load_demo_with_an_older_rule(monkeypatch) -> None:
    """The demo as an engine would have stored it in which `safe` did nothing (R17)."""
    import rules

    real_apply = rules.apply

    def older_apply(state, event, options=None):
        if event.get("kind") == "safe":
            return state, []
        return real_apply(state, event, options)

    monkeypatch.setattr(rules, "apply", older_apply)
    run("demo")
    monkeypatch.setattr(rules, "apply", real_apply)


@pytest.mark.django_db
def test_replay_check_names_what_a_rules_upgrade_changes(monkeypatch):
    _load_demo_with_an_older_rule(monkeypatch)

    with pytest.raises(CommandError) as caught:
        run("replay_check")

    assert "1 of 5" in str(caught.value)
    assert "--fix" in str(caught.value)


@pytest.mark.django_db
def test_replay_check_fix_rewrites_the_projections_after_a_rules_upgrade(monkeypatch):
    import rules

    _load_demo_with_an_older_rule(monkeypatch)
    mei = Character.objects.get(name="Mei")
    assert rules.public_state(mei.snapshot.state)["emotion"]["grave"] == "terror"

    output = run("replay_check", "--fix")

    assert "CHANGED demo/Mei" in output
    assert "emotion.grave: 'terror' → None" in output
    for other in ("Aiko", "Kenji", "Taro"):
        assert f"demo/{other}" not in output
    assert "5 PJ and PNJ match" in run("replay_check")
    mei.snapshot.refresh_from_db()
    assert rules.public_state(mei.snapshot.state)["emotion"]["leve"] == "miedo"
    # Every per-event state and effects trail now equals a fresh fold of the log.
    from campaign.selectors import character_log

    log = list(character_log(character=mei))
    _, trail = rules.replay_trail([e.event for e in log], mei.campaign.rule_options())
    for event, effects in zip(log, trail, strict=True):
        event.refresh_from_db()
        assert event.effects[str(mei.pk)] == effects
    safe = next(e for e in log if e.kind == "safe")
    after_safe = EventSnapshot.objects.get(event=safe, character=mei).state
    assert rules.public_state(after_safe)["marks"]["emocion"] == ["leve"]


@pytest.mark.django_db
def test_replay_check_fix_twice_changes_nothing_the_second_time(monkeypatch):
    _load_demo_with_an_older_rule(monkeypatch)
    run("replay_check", "--fix")
    before = table_contents()

    output = run("replay_check", "--fix")

    assert "0 changed, 0 event states and 0 effect trails rewritten" in output
    assert table_contents() == before


@pytest.mark.django_db
def test_replay_check_fix_refuses_a_campaign_whose_log_no_longer_replays(
    monkeypatch, campaign, aiko
):
    _load_demo_with_an_older_rule(monkeypatch)
    # An event the current rules refuse (waking a PJ who is awake), as an old engine
    # might have accepted it.
    campaign.refresh_from_db()
    bad = StateEvent.objects.create(
        campaign=campaign,
        character=aiko,
        seq=campaign.last_seq + 1,
        event={"kind": "wake", "seed": 1},
    )
    Campaign.objects.filter(pk=campaign.pk).update(last_seq=bad.seq)
    kiso_before = {
        name: sorted(map(str, model.objects.filter(**{lookup: campaign}).values_list()))
        for name, model, lookup in (
            ("snapshots", CharacterSnapshot, "character__campaign"),
            ("event_snapshots", EventSnapshot, "event__campaign"),
            ("events", StateEvent, "campaign"),
        )
    }

    out = StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("replay_check", "--fix", stdout=out, stderr=out)

    assert "1 of 2 campaigns refused" in str(caught.value)
    assert f"REFUSED kiso: event #{bad.seq} (wake, Aiko)" in out.getvalue()
    assert "CHANGED demo/Mei" in out.getvalue()  # the other campaign is still upgraded
    kiso_after = {
        name: sorted(map(str, model.objects.filter(**{lookup: campaign}).values_list()))
        for name, model, lookup in (
            ("snapshots", CharacterSnapshot, "character__campaign"),
            ("event_snapshots", EventSnapshot, "event__campaign"),
            ("events", StateEvent, "campaign"),
        )
    }
    assert kiso_after == kiso_before


@pytest.mark.django_db
def test_replay_check_fix_brings_a_campaign_stored_under_v2_to_v21(
    monkeypatch, campaign, aiko, kenji
):
    """Rules v2.1 (R13): Shock leve ends at the PJ's next turn end, and lasts into the next
    round when its turn had already ended. A log stored under v2 folds anew."""
    from campaign import services
    from rules import events as rule_events
    from rules import public_state as rules_public
    from rules.vocab import GRAVE

    def v2_turn_end(c, ev, index, dice):
        if c.marks["shock"] & GRAVE:
            c.raise_check("shock_grave_fin_turno")

    def record(character, event):
        services.event_record(campaign=campaign, character=character, event=event)

    with monkeypatch.context() as patch:
        patch.setitem(rule_events.HANDLERS, "turn_end", v2_turn_end)
        record(aiko, {"kind": "suffer", "type": "shock", "grade": "leve"})
        turn = services.event_record(campaign=campaign, character=aiko, event={"kind": "turn_end"})
        record(kenji, {"kind": "turn_end"})
        record(kenji, {"kind": "suffer", "type": "shock", "grade": "leve"})
        record(None, {"kind": "time", "rounds": 1})  # v2: Kenji's Shock ends here
    with pytest.raises(CommandError):
        run("replay_check")

    output = run("replay_check", "--fix")

    # Kenji was shocked after his turn: v2.1 gives it next round's turn.
    assert "CHANGED kiso/Kenji:" in output and "marks.shock: [] → ['leve']" in output
    assert "CHANGED kiso/Aiko" not in output  # the round ended hers under v2 too
    assert "2 PJ and PNJ match" in run("replay_check")
    # ...but her turn end, which v2 left her in Shock after, now ends it.
    after_turn = EventSnapshot.objects.get(event=turn, character=aiko).state
    assert rules_public(after_turn)["marks"]["shock"] == []


@pytest.mark.django_db
def test_replay_check_fix_brings_a_campaign_stored_under_v21_to_v22(
    monkeypatch, campaign, aiko, kenji
):
    """Rules v2.2 reads what v2.1 logs never hold (`own_turn`, a Descanso for a sleeper, a
    fight's round of esfuerzo): a campaign recorded and stored under v2.1 folds the same,
    so no sheet changes, and --fix stores the engine's new bookkeeping in every state."""
    import rules
    from campaign import services
    from campaign.services import events as event_service
    from campaign.services import party as party_service
    from campaign.turn_order import Slot

    campaign.esfuerzo_prolongado = True
    campaign.save(update_fields=["esfuerzo_prolongado"])
    with monkeypatch.context() as v21:
        # The v2.1 app: no own_turn, a fight's rounds one plain event.
        v21.setattr(event_service, "_turn_of", lambda campaign, character: False)
        v21.setattr(party_service, "_effort", lambda campaign: ([], []))
        services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=kenji.pk)])
        services.event_record(
            campaign=campaign,
            character=aiko,
            event={"kind": "suffer", "type": "shock", "grade": "leve"},
        )
        for _ in range(4):
            services.fight_pass(campaign=campaign)
        services.fight_end(campaign=campaign)
        # A day without Descanso; Kenji faints; the v2.1 party Descanso gave him 8 h of
        # Reposo of his own ("a Descanso of one asleep is no event of the rules").
        services.event_record(campaign=campaign, event={"kind": "time", "days": 1})
        for pj, success in ((aiko, True), (kenji, False)):
            services.event_record(
                campaign=campaign,
                character=pj,
                event={"kind": "save", "check": "sin_descanso", "success": success, "roll": 1},
            )
        services.event_record(
            campaign=campaign,
            event={"kind": "descanso"},
            leave_out=frozenset({kenji.pk}),
            idempotency_key="v21-descanso",
        )
        services.event_record(
            campaign=campaign,
            character=kenji,
            event={"kind": "time", "hours": 8, "activity": "reposo"},
            idempotency_key=f"v21-descanso:s{kenji.pk}",
        )
    # The states as the v2.1 engine stored them: without the key rules v2.2 added.
    for snapshot in [*CharacterSnapshot.objects.all(), *EventSnapshot.objects.all()]:
        engine = dict(snapshot.state["engine"])
        del engine["shock_leve_own_turn"]
        snapshot.state = {**snapshot.state, "engine": engine}
        snapshot.save(update_fields=["state"])
    kenji_before = rules.public_state(CharacterSnapshot.objects.get(character=kenji).state)

    assert "2 PJ and PNJ match" in run("replay_check")  # no sheet changes
    output = run("replay_check", "--fix")

    assert "CHANGED" not in output
    assert "2 PJ and PNJ re-folded, 0 changed" in output
    written = EventSnapshot.objects.filter(event__campaign=campaign).count()
    assert f"{written} event states and 0 effect trails rewritten" in output
    assert "2 PJ and PNJ match" in run("replay_check")
    assert "0 changed, 0 event states and 0 effect trails rewritten" in run("replay_check", "--fix")
    for snapshot in [*CharacterSnapshot.objects.all(), *EventSnapshot.objects.all()]:
        assert snapshot.state["engine"]["shock_leve_own_turn"] is False
    # The log says what v2.1 did: Kenji woke alone from his faint, unrested, and --fix
    # keeps it so (the DJ voids and records again what should have been).
    kenji.snapshot.refresh_from_db()
    assert rules.public_state(kenji.snapshot.state) == kenji_before
    assert kenji_before["marks"]["fatiga"] == ["persistente"]
    # And the upgraded sheets go on under v2.2: a blow in Aiko's own turn outlives it.
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=kenji.pk)])
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "shock", "grade": "leve"},
    )
    services.fight_pass(campaign=campaign)
    aiko.snapshot.refresh_from_db()
    assert aiko.snapshot.state["marks"]["shock"] == ["leve"]
