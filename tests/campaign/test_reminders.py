"""The DJ's turn reminders (campaign.reminders, services.reminders): a note pinned to the
start or the end of a combatant's turn, or to a round, due when that comes, spent by the
pass of its turn unless pinned "every" time, back when Deshacer takes that pass back."""

import pytest
from django.core.exceptions import ValidationError

from campaign import reminders, selectors, services
from campaign.models import CampaignChange, Reminder
from campaign.turn_order import Slot
from tests.factories import CampaignFactory, CharacterFactory


@pytest.fixture
def bandidos(campaign):
    template = services.template_save(campaign=campaign, name="Bandido", attributes={"VOL": 2})
    return services.pnj_create(campaign=campaign, template=template, count=2)


@pytest.fixture
def fight(campaign, aiko, kenji, bandidos, dj):
    """Aiko, the two Bandidos as one group, Kenji: round 1, Aiko's turn."""
    services.fight_start(
        campaign=campaign,
        order=[
            Slot(pj=aiko.pk, init=15),
            Slot(pj=bandidos[0].pk, also=(bandidos[1].pk,), init=12),
            Slot(pj=kenji.pk, init=10),
        ],
        actor=dj,
    )


def due(campaign) -> reminders.Due:
    return reminders.due(
        reminders.pinned(campaign=campaign), selectors.fight_now(campaign=campaign)
    )


def texts(notes) -> list[str]:
    return [n.text for n in notes]


def pass_turn(campaign, dj, key):
    return services.fight_pass(campaign=campaign, actor=dj, idempotency_key=f"{dj.pk}:{key}")


def undo(campaign):
    latest = selectors.latest_event(campaign=campaign)
    services.events_void(events=selectors.tap_of(event=latest), reason="Deshacer")


def pin(campaign, text, when, **more):
    return services.reminder_add(campaign=campaign, text=text, when=when, **more)


# -- due ---------------------------------------------------------------------------------------


def test_start_and_end_notes_are_due_in_their_characters_turn(campaign, fight, aiko, kenji, dj):
    pin(campaign, "Aiko sangra", "start", character=aiko)
    pin(campaign, "el veneno actúa", "end", character=kenji)
    pin(campaign, "Kenji reza", "start", character=kenji)

    now = due(campaign)
    assert texts(now.start) == ["Aiko sangra"] and now.end == [] and now.round == []
    assert texts(now.later) == ["el veneno actúa", "Kenji reza"]

    pass_turn(campaign, dj, "p1")  # Aiko's turn passes: the Bandidos'
    pass_turn(campaign, dj, "p2")  # Kenji's
    now = due(campaign)
    assert texts(now.start) == ["Kenji reza"] and texts(now.end) == ["el veneno actúa"]


def test_an_end_note_is_still_to_come_until_its_turn_passes(campaign, fight, aiko, kenji, dj):
    """Found playing it: "Recordatorios (n)" dropped when Kenji's turn began, while his end
    note was due only at its pass."""
    pin(campaign, "refuerzos", "round", round=3)
    pin(campaign, "el veneno actúa", "end", character=kenji)
    pass_turn(campaign, dj, "p1")
    pass_turn(campaign, dj, "p2")  # Kenji's turn

    now = due(campaign)
    assert texts(now.end) == ["el veneno actúa"]  # beside the pass button
    assert texts(now.to_come) == ["refuerzos", "el veneno actúa"]  # and still to come
    pass_turn(campaign, dj, "p3")
    assert texts(due(campaign).to_come) == ["refuerzos"]


def test_a_group_slot_shows_the_notes_of_each_of_its_members(campaign, fight, bandidos, dj):
    pin(campaign, "huye si cae el otro", "end", character=bandidos[1])
    pin(campaign, "grita", "start", character=bandidos[0])
    assert due(campaign).later and not due(campaign).end

    pass_turn(campaign, dj, "p1")

    now = due(campaign)
    assert texts(now.start) == ["grita"] and texts(now.end) == ["huye si cae el otro"]


def test_a_round_note_is_due_for_its_whole_round(campaign, fight, dj):
    pin(campaign, "refuerzos", "round", round=2)
    pin(campaign, "empieza a llover", "round", round=1)
    assert texts(due(campaign).round) == ["empieza a llover"]

    for key in ("p1", "p2", "p3"):  # round 1 passes with Kenji's turn, its last
        pass_turn(campaign, dj, key)
    assert selectors.fight_now(campaign=campaign).round == 2
    assert texts(due(campaign).round) == ["refuerzos"]
    pass_turn(campaign, dj, "p4")
    assert texts(due(campaign).round) == ["refuerzos"]


def test_outside_a_fight_every_note_waits(campaign, aiko):
    pin(campaign, "refuerzos", "round", round=1)
    pin(campaign, "Aiko sangra", "start", character=aiko)

    now = due(campaign)
    assert now.now == [] and texts(now.later) == ["refuerzos", "Aiko sangra"]


# -- spent once, or every time ---------------------------------------------------------------


def test_a_one_time_note_is_spent_by_its_turns_pass_and_an_every_note_is_not(
    campaign, fight, aiko, dj
):
    once = pin(campaign, "Aiko sangra", "start", character=aiko)
    every = pin(campaign, "Aiko tira VOL", "end", character=aiko, every=True)

    records = pass_turn(campaign, dj, "p1")

    once.refresh_from_db()
    every.refresh_from_db()
    passed = next(r for r in records if r.event.get("do") == "pass")
    assert once.spent_seq == passed.seq and every.spent_seq is None
    assert texts(reminders.pinned(campaign=campaign)) == ["Aiko tira VOL"]
    for key in ("p2", "p3"):  # the round comes round to Aiko again
        pass_turn(campaign, dj, key)
    assert texts(due(campaign).end) == ["Aiko tira VOL"] and due(campaign).start == []


def test_a_round_note_is_spent_by_the_pass_that_ends_its_round(campaign, fight, dj):
    once = pin(campaign, "refuerzos", "round", round=1)
    pin(campaign, "la niebla", "round", round=1, every=True)

    pass_turn(campaign, dj, "p1")
    pass_turn(campaign, dj, "p2")
    assert reminders.unspent(campaign).filter(pk=once.pk).exists()  # round 1 still on
    ended = pass_turn(campaign, dj, "p3")

    once.refresh_from_db()
    assert once.spent_seq == next(r.seq for r in ended if r.event.get("do") == "pass")
    assert texts(reminders.pinned(campaign=campaign)) == ["la niebla"]


def test_a_round_passed_by_a_new_order_spends_its_round_notes(campaign, fight, aiko, kenji, dj):
    note = pin(campaign, "refuerzos", "round", round=1)
    pass_turn(campaign, dj, "p1")
    pass_turn(campaign, dj, "p2")  # Kenji's turn, the round's last

    services.fight_order(campaign=campaign, order=[Slot(pj=aiko.pk)], actor=dj)

    assert selectors.fight_now(campaign=campaign).round == 2
    note.refresh_from_db()
    assert note.spent_seq is not None and note not in reminders.pinned(campaign=campaign)


def test_deshacer_of_the_pass_brings_the_note_back(campaign, fight, aiko, dj):
    note = pin(campaign, "Aiko sangra", "start", character=aiko)
    pass_turn(campaign, dj, "p1")
    assert note not in reminders.pinned(campaign=campaign)

    undo(campaign)

    assert texts(due(campaign).start) == ["Aiko sangra"]
    # Passed again, it is spent by the new pass.
    again = pass_turn(campaign, dj, "p1-again")
    note.refresh_from_db()
    assert note.spent_seq == next(r.seq for r in again if r.event.get("do") == "pass")
    assert note not in reminders.pinned(campaign=campaign)


def test_a_repeated_pass_spends_nothing_more(campaign, fight, bandidos, dj):
    pass_turn(campaign, dj, "p1")  # Aiko's turn passes: the Bandidos'
    later = pin(campaign, "grita", "start", character=bandidos[0])

    pass_turn(campaign, dj, "p1")  # the same tap again: recorded as nothing

    later.refresh_from_db()
    assert later.spent_seq is None


def test_a_note_of_a_character_no_longer_in_play_waits_with_it(campaign, aiko):
    pin(campaign, "Aiko sangra", "start", character=aiko)
    services.character_archive(character=aiko)
    assert reminders.pinned(campaign=campaign) == []
    services.character_restore(character=aiko)
    assert texts(reminders.pinned(campaign=campaign)) == ["Aiko sangra"]


# -- pinning and removing ----------------------------------------------------------------------


def test_a_note_is_pinned_with_its_spaces_tidied_and_every_board_hears_of_it(campaign, aiko):
    campaign.refresh_from_db()
    before = campaign.change_cursor

    note = pin(campaign, "  el   veneno\tactúa ", "end", character=aiko, round=4)

    assert (note.text, note.when, note.character, note.round) == (
        "el veneno actúa",
        "end",
        aiko,
        None,
    )
    change = CampaignChange.objects.get(campaign=campaign, cursor=before + 1)
    # A change of every card that reloads no player's page (not "campaign", not "character").
    assert (change.kind, change.character) == (CampaignChange.Kind.EVENT, None)


def test_a_round_note_keeps_no_character(campaign, aiko):
    note = pin(campaign, "refuerzos", "round", round=3, character=aiko)
    assert (note.round, note.character) == (3, None)


def test_the_same_note_pinned_twice_is_one(campaign, aiko):
    first = pin(campaign, "refuerzos", "round", round=3)
    again = pin(campaign, "refuerzos ", "round", round=3)
    assert again.pk == first.pk and campaign.reminders.count() == 1
    assert pin(campaign, "refuerzos", "round", round=3, every=True).pk != first.pk


@pytest.mark.parametrize(
    ("text", "when", "more", "field", "words"),
    [
        ("   ", "round", {"round": 1}, "text", "Escribe la nota."),
        ("x" * 121, "round", {"round": 1}, "text", "120"),
        ("a\x00b", "round", {"round": 1}, "text", "NUL"),
        ("refuerzos", "mañana", {"round": 1}, "when", "al empezar"),
        ("refuerzos", "", {}, "when", "al empezar"),
        ("refuerzos", "round", {}, "round", "1 a 999"),
        ("refuerzos", "round", {"round": 0}, "round", "1 a 999"),
        ("refuerzos", "round", {"round": 1000}, "round", "1 a 999"),
        ("refuerzos", "round", {"round": True}, "round", "1 a 999"),
        ("el veneno", "end", {}, "character", "de quién"),
        ("el veneno", "start", {"round": 2}, "character", "de quién"),
    ],
)
def test_a_note_that_cannot_be_pinned_is_refused_by_field(campaign, text, when, more, field, words):
    with pytest.raises(ValidationError) as refused:
        pin(campaign, text, when, **more)

    assert list(refused.value.message_dict) == [field]
    assert words in " ".join(refused.value.messages)
    assert not campaign.reminders.exists()


def test_a_note_for_someone_not_in_play_is_refused(campaign, aiko):
    stranger = CharacterFactory(campaign=CampaignFactory(slug="otra"), name="Sora")
    services.character_archive(character=aiko)
    for who in (stranger, aiko):
        with pytest.raises(ValidationError) as refused:
            pin(campaign, "el veneno", "end", character=who)
        assert list(refused.value.message_dict) == ["character"]
    assert not campaign.reminders.exists()


def test_a_campaign_holds_at_most_so_many_notes_to_come(campaign, monkeypatch):
    monkeypatch.setattr("campaign.services.reminders.PINNED_MAX", 2)
    pin(campaign, "uno", "round", round=1)
    pin(campaign, "dos", "round", round=2)
    with pytest.raises(ValidationError, match="2"):
        pin(campaign, "tres", "round", round=3)
    assert campaign.reminders.count() == 2


def test_a_note_is_removed_once(campaign, aiko):
    note = pin(campaign, "Aiko sangra", "start", character=aiko)
    campaign.refresh_from_db()
    before = campaign.change_cursor

    services.reminder_delete(note)

    assert not Reminder.objects.filter(pk=note.pk).exists()
    campaign.refresh_from_db()
    assert campaign.change_cursor == before + 1
    with pytest.raises(services.Gone):
        services.reminder_delete(note)
