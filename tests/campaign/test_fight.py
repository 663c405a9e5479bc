"""A fight's turn order (campaign.turn_order, services.fight): kept in the log, one tap per turn,
the round after the last turn, a lost turn, order changes, the end, and undo."""

import pytest
from django.core.exceptions import ValidationError

from campaign import selectors, services
from campaign.history import audit as history
from campaign.models import StateEvent
from campaign.turn_order import Slot, check
from rules import RuleError
from tests.factories import CharacterFactory


@pytest.fixture
def ren(campaign):
    return CharacterFactory(campaign=campaign, name="Ren", attributes={"VOL": 3})


@pytest.fixture
def fight(campaign, aiko, kenji, ren, dj):
    """Aiko, an Oni, Kenji, a bandit, Ren."""
    order = [
        Slot(pj=aiko.pk, init=15),
        Slot(npc=1, name="Oni", init=12),
        Slot(pj=kenji.pk),
        Slot(npc=2, name="Bandido"),
        Slot(pj=ren.pk),
    ]
    services.fight_start(campaign=campaign, order=order, actor=dj)
    return order


def now(campaign):
    return selectors.fight_now(campaign=campaign)


def suffer(pj, type_, grade):
    return services.event_record(
        campaign=pj.campaign, character=pj, event={"kind": "suffer", "type": type_, "grade": grade}
    )


def state(pj):
    pj.snapshot.refresh_from_db()
    return pj.snapshot.state


def test_a_fight_starts_at_round_one_with_the_first_slots_turn(campaign, fight, aiko):
    on = now(campaign)
    assert (on.round, on.current, on.current_slot.pj) == (1, 0, aiko.pk)
    assert on.next_slot.name == "Oni"
    assert selectors.current_round(campaign=campaign) == 0  # the board reads "Ronda 1"
    start = StateEvent.objects.get(event__kind="fight")
    assert start.character is None and start.effects == {}


def test_one_tap_per_turn_and_the_round_passes_after_the_last(campaign, fight, aiko, ren):
    kinds = []
    for _ in range(5):
        records = services.fight_pass(campaign=campaign, expected=now(campaign).token)
        kinds.append([(r.character.name if r.character else "-", r.event["kind"]) for r in records])

    assert kinds[0] == [("Aiko", "turn_end"), ("-", "fight")]
    assert kinds[1] == [("-", "fight")]  # the Oni has no state
    assert kinds[4] == [("Ren", "turn_end"), ("-", "fight"), ("-", "time")]
    on = now(campaign)
    assert (on.round, on.current, on.current_slot.pj) == (2, 0, aiko.pk)
    assert StateEvent.objects.filter(event__kind="time").get().event["rounds"] == 1


def test_a_shock_leve_ends_at_its_pjs_turn_without_a_tap_on_its_card(campaign, fight, kenji):
    suffer(kenji, "shock", "leve")
    for _ in range(2):  # Aiko, the Oni
        services.fight_pass(campaign=campaign)
    assert state(kenji)["marks"]["shock"] == ["leve"]

    records = services.fight_pass(campaign=campaign)  # Kenji's turn: the one it lost

    assert state(kenji)["marks"]["shock"] == []
    assert records[-1].event == {
        "kind": "fight",
        "do": "pass",
        "slot": 2,
        "lost": True,
        "seed": records[-1].event["seed"],
    }


def test_a_pj_in_shock_grave_loses_its_turn_and_its_ts_vol_comes(campaign, fight, aiko):
    suffer(aiko, "shock", "grave")
    assert state(aiko)["can_act"] is False

    records = services.fight_pass(campaign=campaign)

    assert records[-1].event["lost"] is True
    assert [p["check"] for p in state(aiko)["pending"]] == ["shock_grave_fin_turno"]


def test_a_tap_from_a_page_that_saw_another_turn_is_refused(campaign, fight):
    seen = now(campaign).token
    services.fight_pass(campaign=campaign, expected=seen)
    count = StateEvent.objects.count()

    with pytest.raises(ValidationError) as refused:
        services.fight_pass(campaign=campaign, expected=seen)

    assert "El turno ya ha pasado" in refused.value.messages[0]
    assert StateEvent.objects.count() == count


def test_a_double_tap_records_the_turn_once(campaign, fight):
    services.fight_pass(campaign=campaign, idempotency_key="tap-1")
    services.fight_pass(campaign=campaign, idempotency_key="tap-1")

    assert now(campaign).current == 1


def test_a_new_order_keeps_the_turn_with_whoever_had_it(campaign, fight, aiko, kenji, ren):
    services.fight_pass(campaign=campaign)  # the Oni's turn
    order = [Slot(npc=1, name="Oni"), Slot(pj=ren.pk), Slot(pj=aiko.pk), Slot(pj=kenji.pk)]

    services.fight_order(campaign=campaign, order=order, expected=now(campaign).token)

    on = now(campaign)
    assert on.current_slot.name == "Oni" and on.current == 0 and on.round == 1
    assert [s.key for s in on.order] == [s.key for s in order]


def test_leaving_the_order_gives_the_turn_to_whoever_takes_the_place(campaign, fight, kenji, ren):
    services.fight_pass(campaign=campaign)  # the Oni's turn; the Oni flees
    services.fight_order(campaign=campaign, order=[Slot(pj=kenji.pk), Slot(pj=ren.pk)])

    assert now(campaign).current_slot.pj == kenji.pk


def test_the_last_turn_of_the_round_leaving_passes_the_round(campaign, fight, aiko, ren, dj):
    for _ in range(4):
        services.fight_pass(campaign=campaign)  # ... to Ren, the round's last
    assert now(campaign).current_slot.pj == ren.pk
    kept = [s for s in fight if s.pj != ren.pk]  # Ren leaves: nobody is left to act

    services.fight_order(
        campaign=campaign, order=kept, expected=now(campaign).token, idempotency_key="k"
    )

    # Not the Bandido again, who has had its turn: round 2, the first one's turn.
    on = now(campaign)
    assert (on.round, on.current_slot.pj) == (2, aiko.pk)
    assert state(ren)["clock"] == state(aiko)["clock"] == 6
    # One tap: Deshacer takes the order change and the round back together.
    latest = selectors.latest_event(campaign=campaign)
    services.events_void(events=selectors.tap_of(event=latest), reason="undo")
    on = now(campaign)
    assert (on.round, on.current_slot.pj) == (1, ren.pk)
    assert state(ren)["clock"] == 0


def test_the_end_leaves_the_order_in_the_history(campaign, fight, dj, aiko):
    services.fight_pass(campaign=campaign)
    services.fight_end(campaign=campaign, expected=now(campaign).token)

    assert now(campaign) is None
    events = list(
        StateEvent.objects.order_by("seq").select_related(
            "actor", "void_by", "character", "session"
        )
    )
    names = selectors.character_names(campaign=campaign)
    rows = history.rows(campaign=campaign, events=events, viewer=history.Viewer(None), names=names)
    end = rows[-1]
    assert (end.who, end.label) == ("Combate", "Termina el combate")
    assert end.lines[0][1] == "Orden: Aiko (15) → Oni (12) → Kenji → Bandido → Ren"
    turn_end = next(r for r in rows if r.label == "Fin de turno")
    assert turn_end.when_text.endswith("Ronda 1 · Turno de Aiko")
    with pytest.raises(ValidationError):
        services.fight_pass(campaign=campaign)


def test_undo_of_a_turn_pass_gives_the_turn_back(campaign, fight, aiko, ren):
    for _ in range(4):
        services.fight_pass(campaign=campaign, idempotency_key=f"k{_}")
    last = services.fight_pass(campaign=campaign, idempotency_key="k-last")  # Ren: and the round
    assert now(campaign).round == 2

    services.events_void(events=selectors.tap_of(event=last[-1]), reason="undo")

    on = now(campaign)
    assert (on.round, on.current_slot.pj) == (1, ren.pk)
    assert state(ren)["clock"] == 0
    assert not StateEvent.objects.filter(
        event__kind="turn_end", character=ren, void_at__isnull=True
    ).exists()


def test_one_fight_at_a_time(campaign, fight, aiko):
    with pytest.raises(ValidationError):
        services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk)])


@pytest.mark.parametrize(
    "event",
    [
        {"kind": "fight", "do": "jump"},
        {"kind": "fight", "do": "start", "order": []},
        {"kind": "fight", "do": "start", "order": [{"pj": 999}]},
        {"kind": "fight", "do": "start", "order": [{"npc": 1, "name": " "}]},
        {"kind": "fight", "do": "start", "order": [{"npc": 1, "name": "x" * 41}]},
        {
            "kind": "fight",
            "do": "start",
            "order": [{"npc": 1, "name": "a"}, {"npc": 1, "name": "b"}],
        },
        {"kind": "fight", "do": "start", "order": [{"npc": 1, "name": "a", "init": "9"}]},
        {"kind": "fight", "do": "start", "order": [{"npc": 1, "name": "a", "init": True}]},
        {"kind": "fight", "do": "order", "order": [{"npc": 1, "name": "a"}], "current": 1},
        {"kind": "fight", "do": "pass", "slot": -1, "lost": False},
        {"kind": "fight", "do": "pass", "slot": 0},
        {"kind": "fight", "do": "end", "extra": 1},
    ],
)
def test_a_fight_event_that_is_not_well_formed_is_refused(event):
    with pytest.raises(ValidationError):
        check(event, in_play={1, 2})


def test_a_fight_event_for_one_pj_is_refused_by_the_rules(campaign, aiko):
    with pytest.raises(RuleError):
        services.event_record(
            campaign=campaign, character=aiko, event={"kind": "fight", "do": "end"}
        )


# -- rules v2.2: a blow in one's own turn (R13), a fight's rounds as esfuerzo (R27) --------


def test_a_blow_during_its_own_turn_is_recorded_so_and_only_then(campaign, aiko, kenji, fight):
    assert suffer(aiko, "heridas", "leve").event["own_turn"] is True  # Aiko's turn
    assert "own_turn" not in suffer(kenji, "heridas", "leve").event
    services.fight_end(campaign=campaign)
    assert "own_turn" not in suffer(aiko, "heridas", "leve").event  # no fight on


def test_a_shock_leve_given_in_its_own_turn_takes_the_next_rounds_turn(
    campaign, fight, aiko, kenji
):
    suffer(aiko, "shock", "leve")  # during her own turn

    records = services.fight_pass(campaign=campaign)  # Fin de turno: hers

    assert records[0].event["kind"] == "turn_end"
    assert records[-1].event["lost"] is False  # she acted before the blow
    assert state(aiko)["marks"]["shock"] == ["leve"]
    for _ in range(4):  # the Oni, Kenji, the Bandido, Ren: the round passes
        services.fight_pass(campaign=campaign)
    assert state(aiko)["marks"]["shock"] == ["leve"]

    records = services.fight_pass(campaign=campaign)  # round 2: the turn it takes

    assert records[-1].event == {**records[-1].event, "do": "pass", "lost": True}
    assert state(aiko)["marks"]["shock"] == []


def test_a_pnj_named_in_the_order_takes_no_own_turn(campaign, fight, aiko):
    services.fight_pass(campaign=campaign)  # the Oni's turn: no card of its own
    assert "own_turn" not in suffer(aiko, "shock", "leve").event


@pytest.fixture
def effort(campaign):
    campaign.esfuerzo_prolongado = True
    campaign.save(update_fields=["esfuerzo_prolongado"])
    return campaign


def round_of(pj) -> dict:
    """The activity of the latest round that reached `pj` (its own or the party's)."""
    log = selectors.character_log(character=pj).filter(event__kind="time")
    return log.last().event


def pass_round(campaign, key: str = "") -> list[StateEvent]:
    records = []
    for i in range(len(now(campaign).order)):
        records += services.fight_pass(
            campaign=campaign, idempotency_key=f"{key}{i}" if key else ""
        )
    return records


def test_with_the_option_a_fights_round_is_esfuerzo_for_who_can_act(
    effort, fight, aiko, kenji, ren
):
    suffer(kenji, "shock", "grave")  # cannot act as the round passes
    records = pass_round(effort)

    wide = [r for r in records if r.event["kind"] == "time" and r.character is None]
    assert len(wide) == 1 and wide[0].event["activity"] == "esfuerzo"
    assert set(wide[0].effects) == {str(aiko.pk)}
    # Kenji (stunned) and Ren (no FUE score: R27 cannot count) get a plain round of their own.
    assert round_of(aiko).get("activity") == "esfuerzo"
    assert round_of(kenji).get("activity") is None and round_of(ren).get("activity") is None
    assert {state(pj)["clock"] for pj in (aiko, kenji, ren)} == {6}
    assert now(effort).round == 2


def test_without_the_option_a_fights_round_is_one_plain_event(campaign, fight, aiko, kenji):
    records = pass_round(campaign)
    rounds = [r for r in records if r.event["kind"] == "time"]
    assert len(rounds) == 1 and "activity" not in rounds[0].event
    assert rounds[0].character is None


def test_ten_rounds_of_fighting_are_a_minute_of_esfuerzo(effort, aiko, kenji):
    services.fight_start(campaign=effort, order=[Slot(pj=aiko.pk), Slot(pj=kenji.pk)])
    for _ in range(40):  # four minutes: Aiko's FUE is 3
        pass_round(effort)
    assert [p["check"] for p in state(aiko)["pending"]] == ["esfuerzo_prolongado"]
    assert state(kenji)["pending"] == []  # FUE 5


def test_one_the_dj_marks_as_not_exerting_itself_has_plain_rounds(effort, aiko, kenji):
    services.fight_start(
        campaign=effort, order=[Slot(pj=aiko.pk, esfuerzo=False), Slot(pj=kenji.pk)]
    )
    start = StateEvent.objects.get(event__kind="fight")
    assert start.event["order"] == [
        {"pj": aiko.pk, "init": None, "esfuerzo": False},
        {"pj": kenji.pk, "init": None},
    ]
    assert now(effort).order[0].esfuerzo is False and now(effort).order[1].esfuerzo is True
    for _ in range(40):
        pass_round(effort)
    assert state(aiko)["pending"] == []
    assert round_of(aiko).get("activity") is None
    assert round_of(kenji)["activity"] == "esfuerzo"


def test_a_fight_recorded_before_v22_reads_as_everyone_exerting(effort, aiko, kenji):
    # An order event of rules v2.1 has no "esfuerzo" key in its slots.
    services.fight_start(campaign=effort, order=[Slot(pj=aiko.pk), Slot(pj=kenji.pk)])
    start = StateEvent.objects.get(event__kind="fight")
    assert all("esfuerzo" not in slot for slot in start.event["order"])
    assert all(slot.esfuerzo for slot in now(effort).order)


def test_deshacer_takes_back_a_round_with_each_ones_effort(effort, fight, aiko, kenji, ren):
    for i in range(4):
        services.fight_pass(campaign=effort, idempotency_key=f"turn-{i}")
    records = services.fight_pass(campaign=effort, idempotency_key="last-turn")
    assert {r.idempotency_key for r in records} >= {"last-turn:c1", f"last-turn:q{ren.pk}"}

    services.tap_undo(events=selectors.tap_of(event=records[-1]))

    assert all(r.is_void for r in StateEvent.objects.filter(idempotency_key__startswith="last-"))
    assert {state(pj)["clock"] for pj in (aiko, kenji, ren)} == {0}
    assert now(effort).round == 1


@pytest.mark.parametrize("bad", [{"esfuerzo": "no"}, {"esfuerzo": 0}, {"calm": True}])
def test_a_slots_effort_mark_must_be_a_bool(bad):
    event = {"kind": "fight", "do": "start", "order": [{"pj": 1, "init": None, **bad}]}
    with pytest.raises(ValidationError):
        check(event, in_play={1})
