"""PNJ (campaign.services.pnj): the DJ's enemies and allies, with a PJ's log and rules, made
in one step, in the fight's order like a PJ, outside the party's time unless an ally in it."""

import pytest
from django.core.exceptions import ValidationError

from campaign import selectors, services
from campaign.models import Character, StateEvent
from campaign.turn_order import Slot
from rules import RuleError


def suffer(pj, type_, grade, **more):
    return services.event_record(
        campaign=pj.campaign,
        character=pj,
        event={"kind": "suffer", "type": type_, "grade": grade, **more},
    )


def state(character):
    character.snapshot.refresh_from_db()
    return character.snapshot.state


def now(campaign):
    return selectors.fight_now(campaign=campaign)


@pytest.fixture
def bandidos(campaign, dj):
    template = services.template_save(
        campaign=campaign, name="Bandido", attributes={"FUE": 3, "VOL": 2}, notes="Cuchillo"
    )
    return services.pnj_create(campaign=campaign, template=template, count=3, actor=dj)


@pytest.fixture
def jefe(campaign, dj):
    return services.pnj_create(
        campaign=campaign, name="Jefe", attributes={"FUE": 4, "VOL": 3}, actor=dj
    )[0]


@pytest.fixture
def ambush(campaign, aiko, kenji, bandidos, jefe, dj):
    """Aiko, the three Bandidos as one group, Kenji, the Jefe."""
    services.fight_start(
        campaign=campaign,
        order=[
            Slot(pj=aiko.pk, init=15),
            Slot(pj=bandidos[0].pk, also=(bandidos[1].pk, bandidos[2].pk), init=12),
            Slot(pj=kenji.pk, init=10),
            Slot(pj=jefe.pk, init=8),
        ],
        actor=dj,
    )


def test_copies_are_numbered_and_carry_the_template(campaign, bandidos):
    assert [b.name for b in bandidos] == ["Bandido 1", "Bandido 2", "Bandido 3"]
    for b in bandidos:
        assert (b.kind, b.side, b.player, b.template.name) == ("pnj", "enemigo", None, "Bandido")
        assert b.attributes == {"FUE": 3, "VOL": 2} and b.notes == "Cuchillo"
        assert b.events.filter(event__kind="attributes", event__scores__FUE=3).exists()
    more = services.pnj_create(campaign=campaign, template=bandidos[0].template, count=2)
    assert [b.name for b in more] == ["Bandido 4", "Bandido 5"]


def test_one_pnj_keeps_its_name_until_it_is_taken(campaign, jefe):
    assert jefe.name == "Jefe"
    again = services.pnj_create(campaign=campaign, name="jefe")
    assert again[0].name == "jefe 2"


def test_a_repeated_tap_makes_no_more_pnj(campaign):
    first = services.pnj_create(campaign=campaign, name="Oni", count=2, idempotency_key="u:k1")
    again = services.pnj_create(campaign=campaign, name="Oni", count=2, idempotency_key="u:k1")
    assert [c.pk for c in again] == [c.pk for c in first]
    assert campaign.characters.filter(kind="pnj").count() == 2


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"name": "  "}, "name"),
        ({"name": "x" * 41}, "name"),
        ({"name": "Oni", "count": 0}, "count"),
        ({"name": "Oni", "count": 21}, "count"),
        ({"name": "Oni", "side": "neutral"}, "side"),
    ],
)
def test_bad_pnj_are_refused_next_to_their_field(campaign, fields, where):
    with pytest.raises(ValidationError) as refused:
        services.pnj_create(campaign=campaign, **fields)
    assert where in refused.value.message_dict
    assert not campaign.characters.filter(kind="pnj").exists()


def test_the_board_keeps_pj_and_pnj_apart(campaign, aiko, kenji, bandidos, jefe):
    assert [c.name for c in selectors.board_characters(campaign=campaign)] == ["Aiko", "Kenji"]
    pnj = selectors.board_pnj(campaign=campaign)
    assert [c.name for c in pnj] == ["Bandido 1", "Bandido 2", "Bandido 3", "Jefe"]
    assert selectors.character_list(campaign=campaign) == [aiko, kenji]


def test_numbers_sort_as_numbers(campaign):
    services.pnj_create(campaign=campaign, name="Oni", count=11)
    names = [c.name for c in selectors.board_pnj(campaign=campaign)]
    assert names[:3] == ["Oni 1", "Oni 2", "Oni 3"] and names[-1] == "Oni 11"


def test_the_partys_time_leaves_pnj_out_but_an_ally_in_the_party(campaign, aiko, jefe, dj):
    ally = services.pnj_create(campaign=campaign, name="Sato", side="aliado")[0]
    services.party_event(campaign=campaign, event={"kind": "time", "hours": 2})
    assert state(aiko)["clock"] == 7200
    assert state(jefe)["clock"] == 0 and state(ally)["clock"] == 0
    services.pnj_settings_set(character=ally, in_party=True)
    services.party_event(campaign=campaign, event={"kind": "descanso"})
    assert state(ally)["clock"] == 8 * 3600 and state(aiko)["clock"] == 10 * 3600
    assert state(jefe)["clock"] == 0
    # The party's clock is the PJ's: a PNJ left behind shows nobody behind.
    assert selectors.campaign_clock(campaign=campaign) == 10 * 3600


def test_an_enemy_is_never_in_the_party(campaign, jefe):
    services.pnj_settings_set(character=jefe, in_party=True)
    jefe.refresh_from_db()
    assert jefe.in_party is False


def test_a_pnj_watch_is_not_the_partys(campaign, aiko, jefe):
    """A Descanso with every PJ asleep but an enemy awake is still the party's sleep."""
    services.party_event(campaign=campaign, event={"kind": "descanso"})
    assert not StateEvent.objects.filter(character=jefe, event__kind="time").exists()


def test_the_session_sheet_holds_the_party_not_the_enemies(campaign, aiko, jefe):
    session = services.session_start(campaign=campaign)
    ended = services.session_end(session=session)
    assert set(ended.sheet_summary) == {str(aiko.pk)}


def test_a_fights_rounds_reach_its_pnj(campaign, ambush, bandidos, jefe, aiko):
    for _ in range(4):
        services.fight_pass(campaign=campaign)
    assert now(campaign).round == 2
    assert state(jefe)["clock"] == 6 and all(state(b)["clock"] == 6 for b in bandidos)
    assert state(aiko)["clock"] == 6


def test_a_pnj_shock_leve_ends_at_its_own_turn_end(campaign, ambush, jefe, aiko, kenji):
    services.fight_pass(campaign=campaign)  # Aiko
    services.fight_pass(campaign=campaign)  # the Bandidos
    suffer(jefe, "shock", "leve")  # during Kenji's turn
    assert state(jefe)["can_act"] is False
    services.fight_pass(campaign=campaign)  # Kenji
    records = services.fight_pass(campaign=campaign)  # the Jefe loses his turn
    assert records[0].character == jefe and records[0].event["kind"] == "turn_end"
    assert records[1].event == {**records[1].event, "do": "pass", "lost": True}
    assert "leve" not in state(jefe)["marks"]["shock"]


def test_a_pnj_shock_grave_asks_its_ts_vol_at_its_turn_end(campaign, ambush, jefe):
    suffer(jefe, "shock", "grave")
    for _ in range(4):
        services.fight_pass(campaign=campaign)
    assert [p["check"] for p in state(jefe)["pending"]] == ["shock_grave_fin_turno"]


def test_a_group_ends_its_turn_together(campaign, ambush, bandidos):
    services.fight_pass(campaign=campaign)  # Aiko
    suffer(bandidos[1], "shock", "leve")
    records = services.fight_pass(campaign=campaign)
    ended = [r.character for r in records if r.event["kind"] == "turn_end"]
    assert ended == bandidos
    assert records[-1].event["lost"] is False  # two of them could act
    # Shocked during the group's own turn (rules v2.2): it takes the group's next turn.
    assert "leve" in state(bandidos[1])["marks"]["shock"]
    for _ in range(4):  # Kenji, the Jefe (the round), Aiko, the Bandidos again
        services.fight_pass(campaign=campaign)
    assert "leve" not in state(bandidos[1])["marks"]["shock"]


def test_a_blow_in_its_groups_turn_is_in_its_own_turn_and_an_area_blow_too(
    campaign, ambush, bandidos, jefe, aiko
):
    services.fight_pass(campaign=campaign)  # Aiko's turn passes: the Bandidos' now
    records = services.area_event(
        campaign=campaign,
        characters=[*bandidos, jefe],
        event={"kind": "suffer", "type": "shock", "grade": "leve"},
        idempotency_key="area-1",
    )
    own = {r.character.name: r.event.get("own_turn", False) for r in records}
    assert own == {"Bandido 1": True, "Bandido 2": True, "Bandido 3": True, "Jefe": False}
    services.fight_pass(campaign=campaign)  # the Bandidos' turn ends
    assert all(state(b)["marks"]["shock"] == ["leve"] for b in bandidos)
    assert state(jefe)["marks"]["shock"] == ["leve"]  # his turn is still to come this round


def test_a_round_counts_the_turn_end_a_pnj_in_shock_grave_missed(campaign, ambush, jefe):
    suffer(jefe, "shock", "grave")
    services.fight_order(
        campaign=campaign,
        order=[s for s in now(campaign).order if s.pj != jefe.pk] + [Slot(pj=jefe.pk)],
    )
    assert jefe in selectors.turn_end_missing(campaign=campaign)


def test_fuera_de_combate_takes_one_out_and_keeps_why(campaign, ambush, bandidos, dj):
    services.fight_pass(campaign=campaign)  # the Bandidos' turn now
    services.fight_out(campaign=campaign, character=bandidos[0], why="huye", actor=dj)
    on = now(campaign)
    assert on.order[1].members == (bandidos[1].pk, bandidos[2].pk)
    assert on.current == 1 and on.out == {bandidos[0].pk: "huye"}
    services.fight_out(campaign=campaign, character=bandidos[1], why="incapacitado")
    services.fight_out(campaign=campaign, character=bandidos[2], why="inconsciente")
    on = now(campaign)
    assert len(on.order) == 3 and on.current_slot.pj != bandidos[2].pk
    assert set(on.out) == {b.pk for b in bandidos}
    with pytest.raises(ValidationError):
        services.fight_out(campaign=campaign, character=bandidos[0], why="huye")
    with pytest.raises(ValidationError):
        services.fight_out(campaign=campaign, character=bandidos[0], why="because")


def test_the_end_archives_the_enemies_and_deshacer_brings_them_back(
    campaign, ambush, bandidos, jefe, dj
):
    ally = services.pnj_create(campaign=campaign, name="Sato", side="aliado")[0]
    services.fight_join(campaign=campaign, characters=[ally])
    services.fight_out(campaign=campaign, character=bandidos[0], why="huye")
    end = services.fight_end(campaign=campaign, archive_enemies=True, actor=dj)
    assert sorted(end.event["archived"]) == sorted([b.pk for b in bandidos] + [jefe.pk])
    assert [c.name for c in selectors.board_pnj(campaign=campaign)] == ["Sato"]
    services.event_void(event=end, actor=dj)
    assert len(selectors.board_pnj(campaign=campaign)) == 5
    assert now(campaign) is not None


def test_the_end_may_keep_the_enemies(campaign, ambush, jefe):
    end = services.fight_end(campaign=campaign)
    assert "archived" not in end.event
    assert jefe in selectors.board_pnj(campaign=campaign)


def test_pnj_join_a_fight_by_initiative(campaign, ambush, dj):
    made = services.pnj_create(
        campaign=campaign, name="Oni", count=2, join={"init": 11, "together": True}, actor=dj
    )
    on = now(campaign)
    assert [s.init for s in on.order] == [15, 12, 11, 10, 8]
    assert on.order[2].members == tuple(c.pk for c in made)
    alone = services.pnj_create(campaign=campaign, name="Kappa", join={"init": None})
    assert now(campaign).order[-1].pj == alone[0].pk
    assert now(campaign).current == 0  # Aiko's turn still


def test_joining_needs_a_fight(campaign):
    with pytest.raises(ValidationError):
        services.pnj_create(campaign=campaign, name="Oni", join={"init": 3})
    assert not campaign.characters.filter(name="Oni").exists()


def test_the_area_blow_marks_each_and_undoes_together(campaign, bandidos, dj):
    records = services.area_event(
        campaign=campaign,
        characters=bandidos,
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
        actor=dj,
        idempotency_key="u:area",
    )
    assert [r.character for r in records] == bandidos
    assert all(state(b)["marks"]["fatiga"] == ["leve"] for b in bandidos)
    again = services.area_event(
        campaign=campaign,
        characters=bandidos,
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
        idempotency_key="u:area",
    )
    assert [r.pk for r in again] == [r.pk for r in records]
    latest = selectors.latest_event(campaign=campaign)
    assert {e.pk for e in selectors.tap_of(event=latest)} == {r.pk for r in records}


def test_an_area_blow_one_refuses_writes_nothing(campaign, bandidos):
    suffer(bandidos[2], "shock", "grave")
    services.event_record(
        campaign=campaign,
        character=bandidos[2],
        event={"kind": "turn_end"},
    )
    seq = campaign.characters.model.objects.get(pk=bandidos[0].pk).campaign.last_seq
    with pytest.raises(RuleError) as refused:
        services.area_event(
            campaign=campaign,
            characters=bandidos,
            event={"kind": "heal", "type": "shock", "roll_total": 12},
        )
    assert refused.value.__notes__ == ["Bandido 1"]  # the first it could not reach
    campaign.refresh_from_db()
    assert campaign.last_seq == seq


def test_settings_are_a_pnj_s_only(campaign, aiko):
    with pytest.raises(ValidationError):
        services.pnj_settings_set(character=aiko, revealed=True)


def test_templates_have_unique_names(campaign):
    services.template_save(campaign=campaign, name="Oni")
    with pytest.raises(ValidationError) as refused:
        services.template_save(campaign=campaign, name="oni")
    assert "name" in refused.value.message_dict


def test_a_template_gone_leaves_its_copies(campaign, bandidos):
    services.template_delete(template=bandidos[0].template)
    assert Character.objects.filter(pk__in=[b.pk for b in bandidos]).count() == 3
