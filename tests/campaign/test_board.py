"""The DJ's board: every action through the Django client, its errors and its permissions."""

import re

import pytest
from django.urls import reverse

from campaign import services
from campaign.live import hub
from campaign.models import Campaign, CampaignChange, StateEvent
from campaign.selectors import character_state
from campaign.turn_order import Slot
from tests.factories import CampaignFactory, CharacterFactory, MembershipFactory, UserFactory

HX = {"HX-Request": "true"}


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


def act(client, campaign, pj, **data):
    return client.post(reverse("act", args=[campaign.slug, pj.pk]), data, headers=HX)


def events(campaign, **filters) -> list[dict]:
    return [e.event for e in StateEvent.objects.filter(campaign=campaign, **filters)]


def last(campaign) -> StateEvent:
    return StateEvent.objects.filter(campaign=campaign).order_by("-seq").first()


# -- the page ---------------------------------------------------------------------------


def test_the_board_shows_one_card_per_pj_named_after_it(dj_client, campaign, aiko, kenji):
    services.character_archive(character=kenji)

    html = dj_client.get(reverse("board", args=["kiso"])).content.decode()

    assert re.search(rf'<article[^>]*aria-labelledby="pj-{aiko.pk}-name"', html)
    assert f'id="pj-{aiko.pk}-name">Aiko<' in html
    assert "Kenji" not in html.split('id="cards"')[1].split("</section>")[0]
    assert 'aria-label="Heridas leve"' in html
    assert 'aria-label="Fatiga grave"' in html
    assert "Día 1" in html
    assert "Ronda" not in html.split('id="clock"')[1].split("</p>")[0]  # no round counted


def test_the_clock_says_the_round_in_a_fight_or_once_rounds_pass(dj_client, campaign, aiko):
    def clock() -> str:
        html = dj_client.get(reverse("board", args=["kiso"])).content.decode()
        return re.sub(r"\s+", " ", html.split('id="clock"')[1].split("</p>")[0])

    assert "Ronda" not in clock()
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk)])
    assert "Ronda 1" in clock()
    services.fight_end(campaign=campaign)
    assert "Ronda" not in clock()
    services.party_event(campaign=campaign, event={"kind": "time", "rounds": 1})
    assert "Ronda 2" in clock()  # rounds counted outside a fight
    services.party_event(campaign=campaign, event={"kind": "time", "minutes": 10})
    assert "Ronda" not in clock()


def test_a_pj_that_cannot_act_says_so_and_its_active_state_links_its_rules(
    dj_client, campaign, aiko
):
    act(dj_client, campaign, aiko, action="suffer", type="shock", grade="grave")

    html = dj_client.get(reverse("board", args=["kiso"])).content.decode()

    assert "no puede actuar" in html
    assert 'href="/reglas/#R13"' in html
    assert "Shock Grave" in html


def test_a_card_alone_for_a_live_refresh(dj_client, campaign, aiko):
    act(dj_client, campaign, aiko, action="suffer", type="shock", grade="leve")

    response = dj_client.get(reverse("card", args=["kiso", aiko.pk]), headers=HX)

    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith("<article") and "Shock Leve" in html
    assert 'id="toasts"' not in html


def test_a_live_refresh_sends_the_changed_cards_and_panels_by_id_with_no_secrets(
    dj_client, campaign, aiko, kenji
):
    act(dj_client, campaign, aiko, action="suffer", type="shock", grade="leve")
    url = reverse("board_refresh", args=["kiso"])

    one = dj_client.get(url, {"pj": aiko.pk}, headers=HX).content.decode()
    everyone = dj_client.get(url, {"all": "1"}, headers=HX).content.decode()

    assert f'id="pj-{aiko.pk}"' in one and f'id="pj-{kenji.pk}"' not in one
    assert f'id="pj-{aiko.pk}"' in everyone and f'id="pj-{kenji.pk}"' in everyone
    for html in (one, everyone):
        assert 'id="clock"' in html and 'id="undo"' in html and 'id="recent"' in html
        assert "Shock Leve" in html and 'id="toasts"' not in html
        # Shared by every DJ page: no CSRF token, no idempotency key of anyone's.
        assert "csrfmiddlewaretoken" not in html and 'name="key"' not in html
    assert dj_client.get(url, {"pj": "x"}, headers=HX).status_code == 400
    assert dj_client.get(url, {"pj": "²"}, headers=HX).status_code == 400


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("where", ["a tap", "the undo", "a party time"])
def test_live_pages_hear_of_a_change_at_commit(dj_client, campaign, aiko, monkeypatch, where):
    # The live hub is told at commit, once, with the new cursor (and the change itself): the
    # streams render it for their pages before the view renders the DJ's own answer.
    act(dj_client, campaign, aiko, action="suffer", type="shock", grade="leve")
    woken = []
    monkeypatch.setattr(
        hub, "_wake", lambda campaign_id, cursor, _change: woken.append((campaign_id, cursor))
    )
    if where == "a tap":
        act(dj_client, campaign, aiko, action="suffer", type="fatiga", grade="leve")
    elif where == "the undo":
        dj_client.post(reverse("undo", args=["kiso"]), headers=HX)
    else:
        dj_client.post(
            reverse("party_time", args=["kiso"]), {"amount": "1", "unit": "minutes"}, headers=HX
        )

    campaign.refresh_from_db()
    assert woken == [(campaign.pk, campaign.change_cursor)]


def test_a_refresh_for_an_archived_pj_removes_its_card(dj_client, campaign, aiko):
    services.character_archive(character=aiko)
    html = dj_client.get(
        reverse("board_refresh", args=["kiso"]), {"pj": aiko.pk}, headers=HX
    ).content.decode()
    assert f'<div id="pj-{aiko.pk}" hx-swap-oob="delete"></div>' in html


@pytest.mark.parametrize("pnj", [False, True], ids=["pj", "pj-and-pnj-fighting"])
def test_the_board_reads_few_queries_whatever_the_log_and_party_size(
    dj_client, campaign, django_assert_max_num_queries, pnj
):
    party = [CharacterFactory(campaign=campaign, name=f"PJ {n}") for n in range(8)]
    for i in range(30):
        services.event_record(
            campaign=campaign,
            character=party[i % 8],
            event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
        )
        services.event_record(campaign=campaign, event={"kind": "time", "rounds": 1})
    if pnj:
        from campaign.turn_order import Slot

        bandido = services.template_save(campaign=campaign, name="Bandido")
        copies = services.pnj_create(campaign=campaign, template=bandido, count=3)
        jefe = services.pnj_create(campaign=campaign, name="Jefe")[0]
        order = [Slot(pj=pj.pk) for pj in party]
        order += [Slot(pj=copies[0].pk, also=(copies[1].pk, copies[2].pk)), Slot(pj=jefe.pk)]
        services.fight_start(campaign=campaign, order=order)

    # The session, its user, the campaign; the PJ and PNJ, recent events, the fight and
    # the round, the catalogue, the open session, the Plantillas, the DJ's notes.
    with django_assert_max_num_queries(10):
        response = dj_client.get(reverse("board", args=["kiso"]))

    assert response.status_code == 200
    assert response.content.decode().count('class="pj-card') == 8 + 4 * pnj


# -- permissions ------------------------------------------------------------------------

GETS = [
    ("board", []),
    ("board_refresh", []),
    ("calculator", []),
    ("card", ["pj"]),
    ("ask", ["pj", "heal"]),
]
POSTS = [
    ("act", ["pj"]),
    ("secret", ["pj"]),
    ("next_round", []),
    ("party_time", []),
    ("party_descanso", []),
    ("undo", []),
    ("void", []),
]


def _url(name, args, campaign, pj, seq):
    values = {"pj": pj.pk, "seq": seq}
    return reverse(name, args=[campaign.slug, *[values.get(a, a) for a in args]])


@pytest.mark.parametrize(("name", "args"), GETS + POSTS)
@pytest.mark.parametrize("who", ["player", "other_dj", "stranger"])
def test_only_the_campaign_dj_reaches_the_board_everyone_else_gets_404(
    client, campaign, aiko, name, args, who
):
    wound = services.event_record(
        campaign=campaign, character=aiko, event={"kind": "time", "minutes": 1}
    )
    user = UserFactory()
    if who == "player":
        MembershipFactory(user=user, campaign=campaign)
        aiko.player = user
        aiko.save()
    elif who == "other_dj":
        CampaignFactory(dj=user)
    client.force_login(user)
    url = _url(name, args, campaign, aiko, wound.seq)
    before = StateEvent.objects.count()

    response = client.post(url, {"action": "safe"}) if (name, args) in POSTS else client.get(url)

    assert response.status_code == 404
    assert StateEvent.objects.count() == before


@pytest.mark.parametrize(("name", "args"), GETS + POSTS)
def test_anonymous_visitors_are_sent_to_log_in(client, campaign, aiko, name, args):
    url = _url(name, args, campaign, aiko, 1)
    response = client.post(url) if (name, args) in POSTS else client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize(("name", "args"), POSTS)
def test_writes_refuse_get(dj_client, campaign, aiko, name, args):
    assert dj_client.get(_url(name, args, campaign, aiko, 1)).status_code == 405


def test_a_pj_of_another_campaign_is_404_even_for_a_dj(dj_client, campaign, dj):
    elsewhere = CharacterFactory(campaign=CampaignFactory(dj=dj))
    response = act(dj_client, campaign, elsewhere, action="safe")
    assert response.status_code == 404


# -- suffering --------------------------------------------------------------------------


def test_a_tap_records_the_blow_and_answers_the_card_with_a_toast(dj_client, campaign, aiko):
    response = act(dj_client, campaign, aiko, action="suffer", type_grade="heridas:leve")

    assert response.status_code == 200
    html = response.content.decode()
    assert f'id="pj-{aiko.pk}"' in html
    assert 'id="toasts"' in html and "Heridas Leve" in html
    assert events(campaign, character=aiko)[-1] == {
        **events(campaign, character=aiko)[-1],
        "kind": "suffer",
        "type": "heridas",
        "grade": "leve",
    }
    assert character_state(character=aiko)["marks"]["heridas"] == ["leve"]


def test_an_answer_says_the_cursor_it_shows_and_which_cards_it_holds(dj_client, campaign, aiko):
    """The page (static/js/live/answers.js) skips the news of those cards up to that cursor,
    and only of those."""
    card = act(dj_client, campaign, aiko, action="suffer", type_grade="heridas:leve")
    campaign.refresh_from_db()
    assert card["X-Change-Cursor"] == str(campaign.change_cursor)
    assert card["X-Change-Pj"] == str(aiko.pk)

    party = dj_client.post(reverse("next_round", args=["kiso"]), {"key": "r"}, headers=HX)
    campaign.refresh_from_db()
    assert party["X-Change-Cursor"] == str(campaign.change_cursor)
    assert party["X-Change-Pj"] == "all"

    # A refused tap's card is as fresh as any: the news it already shows is no news.
    refused = act(dj_client, campaign, aiko, action="suffer", type="emocion", grade="leve")
    campaign.refresh_from_db()
    assert refused.status_code == 422
    assert refused["X-Change-Cursor"] == str(campaign.change_cursor)
    assert refused["X-Change-Pj"] == str(aiko.pk)


def test_the_toast_shows_the_rule_trail_with_links(dj_client, campaign, aiko):
    act(dj_client, campaign, aiko, action="suffer", type="fatiga", grade="grave")
    act(dj_client, campaign, aiko, action="suffer", type="fatiga", grade="grave")
    act(dj_client, campaign, aiko, action="suffer", type="fatiga", grade="grave")
    act(dj_client, campaign, aiko, action="suffer", type="shock", grade="grave")

    html = act(dj_client, campaign, aiko, action="suffer", type="shock", grade="leve").content
    html = html.decode()

    toast = html.split('id="toasts"')[1]
    assert 'href="/reglas/#R11"' in toast
    assert "→" in toast


def test_a_double_tap_records_once(dj_client, campaign, aiko):
    for _ in range(2):
        act(dj_client, campaign, aiko, action="suffer", type_grade="shock:leve", key="same-tap")

    assert len(events(campaign, character=aiko, event__kind="suffer")) == 1


def test_emocion_without_a_variant_is_refused_on_the_card(dj_client, campaign, aiko):
    before = StateEvent.objects.count()

    response = act(dj_client, campaign, aiko, action="suffer", type="emocion", grade="leve")

    assert response.status_code == 422
    html = response.content.decode()
    assert 'role="alert"' in html and "miedo" in html
    assert StateEvent.objects.count() == before


def test_the_second_tap_asks_the_emotion_and_its_cause(dj_client, campaign, aiko):
    url = reverse("ask", args=["kiso", aiko.pk, "emocion-grave"]) + "?grade=grave"
    html = dj_client.get(url, headers=HX).content.decode()
    assert 'value="terror"' in html and 'value="ira"' in html and 'name="cause"' in html

    act(
        dj_client,
        campaign,
        aiko,
        action="suffer",
        type="emocion",
        grade="grave",
        variant="terror",
        cause="el oni",
    )

    state = character_state(character=aiko)
    assert state["emotion"]["grave"] == "terror"
    assert state["emotion"]["grave_cause"] == "el oni"


def test_every_control_that_acts_is_a_button_none_a_link_posing_as_one(dj_client, campaign, aiko):
    for grade in ("persistente", "grave"):  # Curación and Cirugía both offered
        act(dj_client, campaign, aiko, action="suffer", type="heridas", grade=grade)
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    more = dj_client.get(reverse("ask", args=["kiso", aiko.pk, "more"]), headers=HX)
    more = more.content.decode()

    for html in (board, more):
        assert 'role="button"' not in html
        assert not re.search(r"<a\b[^>]*\bhx-(get|post)=", html)
    ask = reverse("ask", args=["kiso", aiko.pk, "emocion-leve"])
    box = re.search(rf'<button type="submit" class="box"[^>]*formaction="{ask}"[^>]*>', board)
    assert box and 'name="grade" value="leve"' in box[0] and f'hx-get="{ask}"' in box[0]
    assert re.search(r'<form method="get" action="[^"]*/elegir/heal/"[^>]*><button', more)


def test_without_javascript_a_box_posts_its_form_on_to_its_choosers_page(dj_client, aiko):
    url = reverse("ask", args=["kiso", aiko.pk, "emocion-grave"])
    before = StateEvent.objects.count()

    posted = dj_client.post(url, {"action": "suffer", "grade": "grave", "key": "k1"})

    assert posted.status_code == 302 and posted["Location"] == f"{url}?grade=grave"
    page = dj_client.get(posted["Location"]).content.decode()
    assert "<html" in page and 'value="terror"' in page and 'name="cause"' in page
    assert StateEvent.objects.count() == before
    assert dj_client.post(reverse("ask", args=["kiso", aiko.pk, "nope"])).status_code == 400


def test_more_actions_load_when_opened_and_work_without_javascript(client, dj, campaign, aiko):
    client.force_login(dj)
    url = reverse("ask", args=["kiso", aiko.pk, "more"])

    fragment = client.get(url, headers=HX).content.decode()
    page = client.get(url).content.decode()

    assert 'value="sleep"' in fragment and "<html" not in fragment
    assert 'value="sleep"' in page and "<html" in page and "Volver a la mesa" in page


def test_an_unknown_second_tap_is_a_400(dj_client, aiko):
    url = reverse("ask", args=["kiso", aiko.pk, "nope"])
    assert dj_client.get(url, headers=HX).status_code == 400


def test_afeccion_from_the_catalogue_or_a_new_secret_name(dj_client, campaign, aiko):
    html = dj_client.get(
        reverse("ask", args=["kiso", aiko.pk, "afeccion"]) + "?grade=leve", headers=HX
    ).content.decode()
    assert 'name="source"' in html and 'name="new_source"' in html

    act(
        dj_client,
        campaign,
        aiko,
        action="suffer",
        type="afeccion",
        grade="leve",
        new_source="Veneno de Fugu",
        secret="1",
    )

    aiko.refresh_from_db()
    assert character_state(character=aiko)["afflictions"] == ["veneno de fugu"]
    assert aiko.secret_names == ["veneno de fugu"]
    assert last(campaign).secret is True


def test_a_specific_e_esp_needs_the_campaign_option(dj_client, campaign, aiko):
    response = act(
        dj_client,
        campaign,
        aiko,
        action="suffer",
        type="heridas",
        grade="persistente",
        especifico="lesion",
    )
    assert response.status_code == 422

    Campaign.objects.filter(pk=campaign.pk).update(especificos=True)
    response = act(
        dj_client,
        campaign,
        aiko,
        action="suffer",
        type="heridas",
        grade="persistente",
        especifico="lesion",
    )
    assert response.status_code == 200
    assert "lesion" in character_state(character=aiko)["specials"]


@pytest.mark.parametrize(
    "data",
    [
        {"action": "suffer", "type": "magia", "grade": "leve"},
        {"action": "suffer", "type": "heridas", "grade": "fatal"},
        {"action": "suffer", "type_grade": "heridas"},
        {"action": "time", "unit": "minutes", "amount": "mucho"},
        {"action": "time", "unit": "minutes", "amount": "-3"},
        {"action": "time", "unit": "weeks", "amount": "1"},
        {"action": "time", "unit": "rounds", "amount": "1.5"},
        {"action": "time", "unit": "minutes", "amount": "nan"},
        {"action": "time", "unit": "minutes", "amount": "1e3"},
        {"action": "time", "unit": "days", "amount": "-2"},
        {"action": "time", "unit": "days", "amount": "99999999999999999999"},
        {"action": "time", "unit": "minutes", "amount": "0x10"},
        {"action": "time", "unit": "hours", "amount": "½"},
        {"action": "sleep", "hours": "1e1"},
        {"action": "sleep", "hours": "todo el día"},
        {"action": "suffer", "type": "afeccion", "grade": "leve", "new_source": "x" * 200},
        {"action": "roll", "check": "no_such_check"},
    ],
)
def test_malformed_input_is_a_422_with_a_message_and_writes_nothing(
    dj_client, campaign, aiko, data
):
    before = StateEvent.objects.count()

    response = act(dj_client, campaign, aiko, **data)

    assert response.status_code == 422
    assert 'class="card-error" role="alert"' in response.content.decode()
    assert StateEvent.objects.count() == before


def test_an_e_esp_without_a_name_is_refused_by_its_name_field(dj_client, campaign, aiko):
    before = StateEvent.objects.count()

    response = act(dj_client, campaign, aiko, action="special", name="  ")

    assert response.status_code == 422
    assert response["HX-Retarget"] == f"#pj-{aiko.pk}-special-error"
    assert response.content.decode() == "Escribe el nombre del E.Esp."
    assert StateEvent.objects.count() == before


def test_an_unknown_action_is_a_400(dj_client, campaign, aiko):
    response = act(dj_client, campaign, aiko, action="fireball")
    assert response.status_code == 400
    assert "Acción desconocida" in response.content.decode()


def test_a_rule_error_is_shown_in_the_users_language_and_records_nothing(dj_client, campaign, aiko):
    before = StateEvent.objects.count()
    response = act(dj_client, campaign, aiko, action="wake")
    assert response.status_code == 422
    spanish = response.content.decode()

    dj_client.post(reverse("set_language"), {"language": "en"})
    english = act(dj_client, campaign, aiko, action="wake").content.decode()

    assert StateEvent.objects.count() == before
    assert "dormid" in spanish.split("card-error")[1].split("</p>")[0]
    assert "asleep" in english.split("card-error")[1].split("</p>")[0]


def test_a_plain_form_post_records_and_redirects_to_the_board(client, dj, campaign, aiko):
    client.force_login(dj)
    response = client.post(
        reverse("act", args=["kiso", aiko.pk]), {"action": "suffer", "type_grade": "shock:leve"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("board", args=["kiso"])
    page = client.get(response["Location"]).content.decode()
    assert "Shock Leve" in page


# -- Curación and the rest of the card ------------------------------------------------


def test_curacion_by_another_pj_and_the_limit_of_one(dj_client, campaign, aiko, kenji):
    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="grave")
    html = dj_client.get(
        reverse("ask", args=["kiso", aiko.pk, "heal"]), headers=HX
    ).content.decode()
    assert f'value="{kenji.pk}"' in html and 'value="self"' not in html

    act(dj_client, campaign, aiko, action="heal", healer=kenji.pk)
    again = act(dj_client, campaign, aiko, action="heal", healer=kenji.pk)

    assert character_state(character=aiko)["marks"]["heridas"] == ["leve"]
    assert events(campaign, character=aiko)[-1]["healer"] == "Kenji"
    assert again.status_code == 422


def test_an_ally_heals_a_pj_and_an_enemy_its_own_side(dj_client, campaign, aiko, kenji):
    from campaign import services

    monje = services.pnj_create(campaign=campaign, name="Monje", side="aliado")[0]
    oni, shaman = services.pnj_create(campaign=campaign, name="Oni", count=2)

    def healers(patient) -> str:
        url = reverse("ask", args=["kiso", patient.pk, "heal"])
        return dj_client.get(url, headers=HX).content.decode()

    for_aiko, for_oni = healers(aiko), healers(oni)
    assert f'value="{monje.pk}"' in for_aiko and f'value="{shaman.pk}"' not in for_aiko
    assert f'value="{shaman.pk}"' in for_oni and f'value="{kenji.pk}"' in for_oni
    act(dj_client, campaign, oni, action="suffer", type="heridas", grade="grave")
    assert act(dj_client, campaign, oni, action="heal", healer=shaman.pk).status_code == 200
    assert events(campaign, character=oni)[-1]["healer"] == "Oni 2"


def test_a_failed_medicina_spends_the_treatment_and_heals_nothing(dj_client, campaign, aiko, kenji):
    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="grave")

    act(dj_client, campaign, aiko, action="heal", healer=kenji.pk, success="0")

    assert character_state(character=aiko)["marks"]["heridas"] == ["grave"]
    assert act(dj_client, campaign, aiko, action="heal", healer=kenji.pk).status_code == 422


def test_self_curacion_needs_regeneracion(dj_client, campaign, aiko, kenji):
    act(dj_client, campaign, kenji, action="suffer", type="heridas", grade="leve")
    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="leve")

    assert act(dj_client, campaign, kenji, action="heal", healer="self").status_code == 200
    assert act(dj_client, campaign, aiko, action="heal", healer="self").status_code == 422


def test_cirugia_on_heridas_persistente(dj_client, campaign, aiko, kenji):
    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="persistente")
    more = dj_client.get(reverse("ask", args=["kiso", aiko.pk, "more"]), headers=HX)
    assert "Cirugía" in more.content.decode()

    response = act(dj_client, campaign, aiko, action="surgery", healer=kenji.pk)

    assert response.status_code == 200
    assert events(campaign, character=aiko)[-1]["kind"] == "surgery"


@pytest.mark.parametrize(
    ("setup", "data", "check"),
    [
        ([{"action": "suffer", "type": "emocion", "grade": "grave", "variant": "ira"}],
         {"action": "safe"}, lambda s: s["emotion"]["leve"] == "euforia"),
        ([], {"action": "sleep", "hours": "2"}, lambda s: s["clock"] >= 7200),
        ([], {"action": "sleep"}, lambda s: s["asleep"]),
        ([{"action": "sleep"}], {"action": "wake"}, lambda s: not s["asleep"]),
        ([{"action": "sleep"}], {"action": "wake_forced"}, lambda s: not s["asleep"]),
        ([{"action": "suffer", "type": "afeccion", "grade": "leve", "source": "peste"}],
         {"action": "progress"},
         lambda s: s["active"]["afeccion"] == "grave"),
        ([{"action": "suffer", "type": "fatiga", "grade": "leve"}],
         {"action": "recover", "type_grade": "fatiga:leve"}, lambda s: s["marks"]["fatiga"] == []),
        ([], {"action": "special", "name": "derribado", "on": "1"},
         lambda s: "derribado" in s["specials"]),
        ([{"action": "special", "name": "derribado", "on": "1"}],
         {"action": "special", "name": "derribado", "on": "0"},
         lambda s: "derribado" not in s["specials"]),
        ([{"action": "suffer", "type": "fatiga", "grade": "leve"}],
         {"action": "time", "unit": "minutes", "amount": "1", "activity": "reposo", "calm": "1"},
         lambda s: s["marks"]["fatiga"] == []),
    ],
)  # fmt: skip
def test_every_card_action_reaches_the_rules(dj_client, campaign, aiko, setup, data, check):
    for step in setup:
        assert act(dj_client, campaign, aiko, **step).status_code == 200

    response = act(dj_client, campaign, aiko, **data)

    assert response.status_code == 200, response.content.decode()
    assert check(character_state(character=aiko))


def test_sleep_that_cannot_be_a_descanso(dj_client, campaign, aiko):
    act(dj_client, campaign, aiko, action="sleep", hours="8", descanso="0")
    assert events(campaign, character=aiko)[-1]["descanso"] is False


def test_a_secret_chip_can_be_shown_again(dj_client, campaign, aiko):
    act(dj_client, campaign, aiko, action="special", name="fobia", on="1", secret="1")
    aiko.refresh_from_db()
    assert aiko.secret_names == ["fobia"]
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    # "secreto" is only ever the mark; the buttons say what they do.
    assert re.search(r'class="chip-secret">secreto<', board)
    assert re.search(
        r'aria-label="Mostrar al jugador: Fobia" title="[^"]+">mostrar al jugador<', board
    )

    dj_client.post(reverse("secret", args=["kiso", aiko.pk]), {"name": "fobia", "hide": "0"})

    aiko.refresh_from_db()
    assert aiko.secret_names == []
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    assert re.search(
        r'aria-label="Ocultar al jugador: Fobia" title="[^"]+">ocultar al jugador<', board
    )
    refused = dj_client.post(
        reverse("secret", args=["kiso", aiko.pk]), {"name": "nada", "hide": "1"}, headers=HX
    )
    assert refused.status_code == 422


# -- checks -----------------------------------------------------------------------------


def shock_grave_check(client, campaign, pj):
    act(client, campaign, pj, action="suffer", type="shock", grade="grave")
    act(client, campaign, pj, action="turn_end")
    assert character_state(character=pj)["pending"][0]["check"] == "shock_grave_fin_turno"


def test_roll_uses_the_pjs_score_and_records_the_die(dj_client, campaign, aiko, monkeypatch):
    shock_grave_check(dj_client, campaign, aiko)
    monkeypatch.setattr("campaign.taps.secrets.randbelow", lambda n: 1)  # a 2 on the die

    html = act(dj_client, campaign, aiko, action="roll", check="shock_grave_fin_turno")
    html = html.content.decode()

    saved = events(campaign, character=aiko)[-1]
    assert saved["kind"] == "save" and saved["ts_roll"] == 2 and saved["success"] is True
    assert "1d6 = 2" in html
    assert character_state(character=aiko)["marks"]["shock"] == ["leve"]


def test_a_failed_roll(dj_client, campaign, aiko, monkeypatch):
    shock_grave_check(dj_client, campaign, aiko)
    monkeypatch.setattr("campaign.taps.secrets.randbelow", lambda n: 5)  # a 6 against VOL 3

    act(dj_client, campaign, aiko, action="roll", check="shock_grave_fin_turno")

    assert events(campaign, character=aiko)[-1]["success"] is False
    assert character_state(character=aiko)["marks"]["shock"] == ["grave"]


def test_roll_without_a_score_asks_for_it(dj_client, campaign):
    nobody = CharacterFactory(campaign=campaign, name="Nadie", attributes={})
    shock_grave_check(dj_client, campaign, nobody)

    response = act(dj_client, campaign, nobody, action="roll", check="shock_grave_fin_turno")

    assert response.status_code == 422
    assert "VOL" in response.content.decode()


def test_success_failure_and_dismiss(dj_client, campaign, aiko):
    shock_grave_check(dj_client, campaign, aiko)
    act(dj_client, campaign, aiko, action="failure", check="shock_grave_fin_turno")
    assert character_state(character=aiko)["marks"]["shock"] == ["grave"]

    refused = act(dj_client, campaign, aiko, action="dismiss", check="shock_grave_fin_turno")
    assert refused.status_code == 422  # mandatory checks cannot be dismissed

    act(dj_client, campaign, aiko, action="turn_end")
    act(dj_client, campaign, aiko, action="success", check="shock_grave_fin_turno")
    assert character_state(character=aiko)["marks"]["shock"] == ["leve"]


def test_a_stale_check_answer_is_refused(dj_client, campaign, aiko):
    response = act(dj_client, campaign, aiko, action="success", check="sin_descanso")
    assert response.status_code == 422


# -- the party --------------------------------------------------------------------------


def test_time_passes_for_everyone_with_an_activity(dj_client, campaign, aiko, kenji):
    act(dj_client, campaign, aiko, action="suffer", type="fatiga", grade="leve")

    response = dj_client.post(
        reverse("party_time", args=["kiso"]),
        {"amount": "2", "unit": "minutes", "activity": "reposo"},
        headers=HX,
    )

    assert response.status_code == 200
    assert events(campaign, character=None)[-1] == {
        **events(campaign, character=None)[-1],
        "kind": "time",
        "minutes": 2,
        "activity": "reposo",
    }
    assert character_state(character=aiko)["marks"]["fatiga"] == []
    assert character_state(character=kenji)["clock"] == 120
    assert response.content.decode().count('class="pj-card') == 2


@pytest.mark.parametrize(
    ("amount", "unit", "message"),
    [
        ("367", "days", "como mucho 366 días"),
        ("8785", "hours", "como mucho 8\xa0784 horas"),
        ("10001", "rounds", "como mucho 10\xa0000 rondas"),
    ],
)
def test_more_than_a_year_at_once_is_refused_and_records_nothing(
    dj_client, campaign, aiko, amount, unit, message
):
    # The engine walks every day of it: ten thousand days would hold the server for seconds.
    before = StateEvent.objects.count()
    data = {"key": "t", "amount": amount, "unit": unit, "activity": "activo"}

    response = dj_client.post(reverse("party_time", args=["kiso"]), data, headers=HX)

    assert response.status_code == 422
    assert message in response.content.decode()
    assert StateEvent.objects.count() == before


def test_a_party_refusal_names_the_pj(dj_client, campaign, aiko):
    Campaign.objects.filter(pk=campaign.pk).update(esfuerzo_prolongado=True)
    CharacterFactory(campaign=campaign, name="Sin Fuerza", attributes={"VOL": 2})
    before = StateEvent.objects.count()

    response = dj_client.post(
        reverse("party_time", args=["kiso"]),
        {"amount": "3", "unit": "minutes", "activity": "esfuerzo"},
        headers=HX,
    )

    assert response.status_code == 422
    assert response["HX-Retarget"] == "#time-error"
    assert "Sin Fuerza" in response.content.decode()
    assert StateEvent.objects.count() == before


def test_next_round_records_missing_turn_ends_so_no_ts_is_skipped(dj_client, campaign, aiko, kenji):
    act(dj_client, campaign, aiko, action="suffer", type="shock", grade="grave")
    act(dj_client, campaign, kenji, action="suffer", type="shock", grade="grave")
    act(dj_client, campaign, kenji, action="turn_end")

    response = dj_client.post(reverse("next_round", args=["kiso"]), {"key": "r"}, headers=HX)

    html = response.content.decode()
    turn_ends = events(campaign, event__kind="turn_end")
    assert len(turn_ends) == 2  # Kenji's own, and Aiko's recorded by the round
    assert [p["check"] for p in character_state(character=aiko)["pending"]] == [
        "shock_grave_fin_turno"
    ]
    assert "Aiko: Fin de turno" in html
    assert "Ronda 2" in html


def test_a_card_tap_answers_what_changed_around_the_card_and_leaves_the_time_bar(
    dj_client, campaign, aiko
):
    """The tap's answer renews the clock, undo, the toast and the recent events, not the
    whole clock bar: the time bar's keys were not used, and stay good for their own tap."""

    def round_key(html: str) -> str:
        return re.search(r'ronda/".*?name="key" value="(\w+)"', html, re.S).group(1)

    key = round_key(dj_client.get(reverse("board", args=["kiso"])).content.decode())

    answer = act(dj_client, campaign, aiko, action="suffer", type_grade="fatiga:leve", key="t1")
    html = answer.content.decode()
    tapped = last(campaign)
    dj_client.post(reverse("next_round", args=["kiso"]), {"key": key}, headers=HX)

    assert 'id="clockbar"' not in html and 'name="amount"' not in html
    undo = re.search(r'<form[^>]*id="undo"[^>]*>.*?</form>', html, re.S).group(0)
    assert 'hx-swap-oob="true"' in undo and f'name="seq" value="{tapped.seq}"' in undo
    for oob in ("clock", "fight", "toasts", "recent", "turnbar", "time-error", "fight-error"):
        assert re.search(rf'id="{oob}"[^>]*hx-swap-oob="true"', html), oob
    assert "Fatiga" in re.search(r'id="toasts".*?</div>', html, re.S).group(0)
    assert len(events(campaign, character=None, event__kind="time")) == 1  # the key held


def test_each_answer_renews_the_time_bar_so_a_second_round_is_not_a_double_tap(
    dj_client, campaign, aiko
):
    def round_key(html: str) -> str:
        return re.search(r'ronda/".*?name="key" value="(\w+)"', html, re.S).group(1)

    key = round_key(dj_client.get(reverse("board", args=["kiso"])).content.decode())

    answer = dj_client.post(reverse("next_round", args=["kiso"]), {"key": key}, headers=HX)
    again = dj_client.post(reverse("next_round", args=["kiso"]), {"key": key}, headers=HX)
    new_key = round_key(answer.content.decode())
    dj_client.post(reverse("next_round", args=["kiso"]), {"key": new_key}, headers=HX)

    assert again.status_code == 200
    assert new_key != key
    assert 'id="clockbar"' in answer.content.decode()
    assert len(events(campaign, character=None, event__kind="time")) == 2
    assert "Ronda 3" in dj_client.get(reverse("board", args=["kiso"])).content.decode()


def test_a_party_descanso(dj_client, campaign, aiko, kenji):
    dj_client.post(reverse("party_time", args=["kiso"]), {"amount": "16", "unit": "hours"})
    response = dj_client.post(reverse("party_descanso", args=["kiso"]), headers=HX)

    assert response.status_code == 200
    assert events(campaign, character=None)[-1]["kind"] == "descanso"
    assert character_state(character=kenji)["clock"] == 24 * 3600


def test_a_party_descanso_lets_those_already_asleep_sleep_on(dj_client, campaign, aiko, kenji):
    # Rules v2.2: the party's Descanso reaches Aiko, asleep already; she sleeps on with
    # them and wakes with them, rested.
    dj_client.post(reverse("party_time", args=["kiso"]), {"amount": "16", "unit": "hours"})
    services.event_record(campaign=campaign, character=aiko, event={"kind": "sleep"})

    response = dj_client.post(reverse("party_descanso", args=["kiso"]), headers=HX)

    assert response.status_code == 200
    descanso = last(campaign)
    assert descanso.event["kind"] == "descanso" and descanso.character is None
    assert set(descanso.effects) == {str(aiko.pk), str(kenji.pk)}
    assert "Sigue durmiendo con el grupo" in response.content.decode()
    for pj in (aiko, kenji):
        state = character_state(character=pj)
        assert not state["asleep"] and state["clock"] == 24 * 3600
        pj.snapshot.refresh_from_db()
        assert pj.snapshot.state["engine"]["last_descanso"] == 24 * 3600


def test_a_pj_fainted_when_the_party_lies_down_wakes_rested_with_them(
    dj_client, campaign, aiko, kenji
):
    # The second table's case (b): a day without Descanso, Aiko fails her TS VOL and
    # faints (1 h); the party lies down at once. Under v2.1 she woke alone after that hour
    # and lay awake: no Descanso, another TS VOL a day later.
    dj_client.post(reverse("party_time", args=["kiso"]), {"amount": "1", "unit": "days"})
    for pj in (aiko, kenji):
        services.event_record(
            campaign=campaign,
            character=pj,
            event={"kind": "save", "check": "sin_descanso", "success": pj == kenji, "roll": 1},
        )
    assert character_state(character=aiko)["asleep"]

    dj_client.post(reverse("party_descanso", args=["kiso"]), headers=HX)

    state = character_state(character=aiko)
    assert not state["asleep"] and state["clock"] == 32 * 3600
    assert state["marks"]["fatiga"] == [] and "derribado" not in state["specials"]
    dj_client.post(reverse("party_time", args=["kiso"]), {"amount": "16", "unit": "hours"})
    assert character_state(character=aiko)["pending"] == []


def test_deshacer_takes_back_a_party_descanso_with_its_sleepers_whole(
    dj_client, campaign, aiko, kenji
):
    dj_client.post(reverse("party_time", args=["kiso"]), {"amount": "16", "unit": "hours"})
    services.event_record(campaign=campaign, character=aiko, event={"kind": "sleep"})
    dj_client.post(reverse("party_descanso", args=["kiso"]), {"key": "descanso-1"}, headers=HX)
    latest = last(campaign)

    response = dj_client.post(reverse("undo", args=["kiso"]), {"seq": latest.seq}, headers=HX)

    assert response.status_code == 200
    for pj in (aiko, kenji):
        assert character_state(character=pj)["clock"] == 16 * 3600
    assert character_state(character=aiko)["asleep"]  # asleep as she was
    tapped = StateEvent.objects.filter(campaign=campaign, idempotency_key__contains="descanso-1")
    assert tapped.count() == 1 and all(e.is_void for e in tapped)


def test_a_party_descanso_with_everyone_asleep_is_their_sleep_going_on(
    dj_client, campaign, aiko, kenji
):
    for pj in (aiko, kenji):
        services.event_record(campaign=campaign, character=pj, event={"kind": "sleep"})

    response = dj_client.post(reverse("party_descanso", args=["kiso"]), headers=HX)

    assert response.status_code == 200
    assert events(campaign, character=None)[-1]["kind"] == "descanso"
    for pj in (aiko, kenji):
        state = character_state(character=pj)
        assert not state["asleep"] and state["clock"] == 8 * 3600


def test_an_asleep_pj_on_watch_keeps_its_own_sleep(dj_client, campaign, aiko, kenji):
    # On watch, no sleeping on: the 8 h are activo time for her (her sleep runs its course).
    dj_client.post(reverse("party_time", args=["kiso"]), {"amount": "1", "unit": "days"})
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "save", "check": "sin_descanso", "success": False, "roll": 1},
    )

    dj_client.post(reverse("party_descanso", args=["kiso"]), {"watch": [aiko.pk]}, headers=HX)

    state = character_state(character=aiko)
    assert not state["asleep"] and "derribado" in state["specials"]
    assert state["marks"]["fatiga"] == ["persistente"]


# -- undo and void ----------------------------------------------------------------------


def test_undo_voids_the_latest_event_and_says_what(dj_client, campaign, aiko):
    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="grave")
    latest = last(campaign)

    response = dj_client.post(reverse("undo", args=["kiso"]), {"seq": latest.seq}, headers=HX)

    latest.refresh_from_db()
    assert latest.is_void and latest.void_by.username == "test-dj"
    assert character_state(character=aiko)["marks"]["heridas"] == []
    assert f"#{latest.seq}" in response.content.decode()
    assert "Heridas Grave" in response.content.decode()


def test_a_stale_undo_is_refused(dj_client, campaign, aiko):
    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="leve")
    seen = last(campaign).seq
    act(dj_client, campaign, aiko, action="suffer", type="fatiga", grade="leve")

    response = dj_client.post(reverse("undo", args=["kiso"]), {"seq": seen}, headers=HX)

    assert response.status_code == 409
    assert not last(campaign).is_void


def test_undo_with_nothing_to_undo(dj_client, campaign):
    StateEvent.objects.filter(campaign=campaign).update(void_at="2026-01-01T00:00:00Z")
    response = dj_client.post(reverse("undo", args=["kiso"]), headers=HX)
    assert response.status_code == 409


def test_void_an_earlier_event_with_a_reason(dj_client, campaign, aiko):
    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="leve")
    wound = last(campaign)
    act(dj_client, campaign, aiko, action="suffer", type="fatiga", grade="leve")

    missing = dj_client.post(reverse("void", args=["kiso"]), {"seq": wound.seq}, headers=HX)
    too_long = dj_client.post(
        reverse("void", args=["kiso"]), {"seq": wound.seq, "reason": "x" * 501}, headers=HX
    )
    assert too_long.status_code == 422
    assert "Di por qué en 500 caracteres como mucho (aquí hay 501)." in too_long.content.decode()
    wound.refresh_from_db()
    assert wound.void_at is None
    done = dj_client.post(
        reverse("void", args=["kiso"]), {"seq": wound.seq, "reason": "era para Kenji"}, headers=HX
    )

    assert missing.status_code == 422
    assert done.status_code == 200
    wound.refresh_from_db()
    assert wound.void_reason == "era para Kenji"
    assert character_state(character=aiko)["marks"] == {
        **character_state(character=aiko)["marks"],
        "heridas": [],
        "fatiga": ["leve"],
    }


def test_voiding_a_pjs_event_answers_and_renders_that_card_only(dj_client, campaign, aiko, kenji):
    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="leve")
    latest = last(campaign)

    response = dj_client.post(reverse("undo", args=["kiso"]), {"seq": latest.seq}, headers=HX)

    html = response.content.decode()
    campaign.refresh_from_db()
    assert response.status_code == 200
    assert response["HX-Retarget"] == f"#pj-{aiko.pk}" and response["HX-Reswap"] == "outerHTML"
    assert response["X-Change-Pj"] == str(aiko.pk)
    assert f'id="pj-{aiko.pk}"' in html and f'id="pj-{kenji.pk}"' not in html
    assert 'id="recent"' in html and 'id="undo"' in html and f"#{latest.seq}" in html
    # What every other page is told: that card changed, nothing more.
    change = CampaignChange.objects.get(campaign=campaign, cursor=campaign.change_cursor)
    assert change.character_id == aiko.pk


def test_voiding_a_campaign_wide_event_answers_every_card(dj_client, campaign, aiko, kenji):
    dj_client.post(
        reverse("party_time", args=["kiso"]), {"amount": "1", "unit": "minutes"}, headers=HX
    )
    latest = last(campaign)

    response = dj_client.post(reverse("undo", args=["kiso"]), {"seq": latest.seq}, headers=HX)

    html = response.content.decode()
    assert response.status_code == 200 and "HX-Retarget" not in response
    assert response["X-Change-Pj"] == "all"
    assert f'id="pj-{aiko.pk}"' in html and f'id="pj-{kenji.pk}"' in html


def test_voiding_an_archived_pjs_event_answers_the_board(dj_client, campaign, aiko, kenji):
    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="leve")
    wound = last(campaign)
    services.character_archive(character=aiko)

    response = dj_client.post(
        reverse("void", args=["kiso"]), {"seq": wound.seq, "reason": "error"}, headers=HX
    )

    html = response.content.decode()
    assert response.status_code == 200 and "HX-Retarget" not in response
    assert f'id="pj-{kenji.pk}"' in html and f'id="pj-{aiko.pk}"' not in html
    wound.refresh_from_db()
    assert wound.is_void


def test_a_refused_void_shows_the_engines_explanation(dj_client, campaign, aiko):
    act(dj_client, campaign, aiko, action="sleep")
    sleep = last(campaign)
    act(dj_client, campaign, aiko, action="wake")

    response = dj_client.post(
        reverse("void", args=["kiso"]), {"seq": sleep.seq, "reason": "no"}, headers=HX
    )

    assert response.status_code == 409
    assert f"#{sleep.seq}" in response.content.decode()
    sleep.refresh_from_db()
    assert not sleep.is_void


def test_nul_bytes_in_typed_text_are_dropped_not_a_500(dj_client, campaign, aiko):
    # PostgreSQL refuses NUL in a text column and in jsonb.
    act(dj_client, campaign, aiko, action="suffer", type="afeccion", grade="leve", source="a\x00b")
    act(dj_client, campaign, aiko, action="special", name="c\x00d", key="k\x00")
    wound = last(campaign)
    voided = dj_client.post(
        reverse("void", args=["kiso"]), {"seq": wound.seq, "reason": "e\x00f"}, headers=HX
    )

    assert voided.status_code == 200
    assert events(campaign)[-2:] == [
        {**events(campaign)[-2], "source": "ab"},
        {**events(campaign)[-1], "name": "cd"},
    ]
    wound.refresh_from_db()
    assert wound.void_reason == "ef"


def test_void_of_an_unknown_event_is_404(dj_client, campaign):
    for seq in ("999", "", "uno", "²", "99999999999999999999"):
        response = dj_client.post(
            reverse("void", args=["kiso"]), {"seq": seq, "reason": "x"}, headers=HX
        )
        assert response.status_code == 404


# -- the calculator ---------------------------------------------------------------------


def test_the_calculator_breaks_the_modifier_down_and_caps_it(dj_client, campaign, aiko):
    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="grave")
    act(dj_client, campaign, aiko, action="suffer", type="fatiga", grade="leve")
    act(dj_client, campaign, aiko, action="suffer", type="emocion", grade="leve", variant="miedo")

    html = dj_client.get(
        reverse("calculator", args=["kiso"]),
        {"pj": aiko.pk, "attribute": "FUE", "intent": "flee", "situational": "-1"},
        headers=HX,
    ).content.decode()

    # -3 (Heridas grave) -1 (Fatiga leve) +1 (miedo, fleeing) -1 (situational) = -4
    assert '<span class="calc-total">−3</span>' in html
    assert "Heridas Grave" in html and "Fatiga Leve" in html and "Emoción Leve: miedo" in html
    assert "Suma −4, limitada a −3" in html and 'href="/reglas/#R20"' in html
    assert "<form" not in html  # only the result: the form the DJ is using stays in place


def test_the_calculator_takes_a_pnj_too(dj_client, campaign, aiko):
    from campaign import services

    oni = services.pnj_create(campaign=campaign, name="Oni")[0]
    act(dj_client, campaign, oni, action="suffer", type="heridas", grade="leve")
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    assert f'<optgroup label="PNJ"><option value="{oni.pk}" >Oni</option>' in board

    html = dj_client.get(
        reverse("calculator", args=["kiso"]), {"pj": oni.pk, "attribute": "FUE"}, headers=HX
    ).content.decode()
    assert '<span class="calc-total">−1</span>' in html and "Heridas Leve" in html


@pytest.mark.parametrize(
    "query",
    [
        {"pj": "999"},
        {"pj": "1", "attribute": "MAGIA"},
        {"pj": "1", "intent": "dance"},
        {"pj": "1", "situational": "mucho"},
        {"pj": "1", "situational": "50"},
    ],
)
def test_the_calculator_explains_bad_input(dj_client, campaign, aiko, query):
    query = {k: (str(aiko.pk) if v == "1" else v) for k, v in query.items()}
    response = dj_client.get(reverse("calculator", args=["kiso"]), query, headers=HX)
    assert response.status_code == 200
    assert 'class="error" role="alert"' in response.content.decode()


def test_every_action_advances_the_change_cursor(dj_client, campaign, aiko):
    before = CampaignChange.objects.filter(campaign=campaign).count()
    act(dj_client, campaign, aiko, action="suffer", type_grade="shock:leve")
    assert CampaignChange.objects.filter(campaign=campaign).count() == before + 1


def test_the_demo_board_shows_four_pj_all_able_to_act(client, db):
    from io import StringIO

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("demo", stdout=StringIO())
    client.force_login(get_user_model().objects.get(username="dj"))

    home = client.get("/").content.decode()
    html = client.get(reverse("board", args=["demo"])).content.decode()

    assert f'href="{reverse("board", args=["demo"])}"' in home
    assert html.count('class="pj-card') == 5  # four PJ and the Oni's compact card
    assert html.count('class="pj-card pnj-card') == 1
    assert "no puede actuar" not in html
    for name in ("Aiko", "Kenji", "Mei", "Taro"):
        assert f">{name}</h2>" in html


def test_the_card_shows_the_scores_in_the_games_order(dj_client, campaign, aiko):
    import re as _re

    html = dj_client.get(reverse("board", args=["kiso"])).content.decode()

    scores = _re.search(r'<p class="scores".*?</p>', html, _re.S).group(0)
    shown = _re.findall(r"<abbr[^>]*>(\w+)</abbr> <strong>(.*?)</strong>", scores)
    assert [name for name, _ in shown] == ["FUE", "AGI", "DES", "INT", "VOL"]
    assert shown[1][1] == "5" and "–" in shown[3][1]  # INT was not given
    # And the log names them in that order too.
    assert "Puntuaciones: FUE 3, AGI 5, DES 4, VOL 3" in html


def test_a_poisons_phase_text_is_written_on_the_card_not_only_hovered(dj_client, campaign, aiko):
    act(
        dj_client,
        campaign,
        aiko,
        action="suffer",
        type="afeccion",
        grade="leve",
        source="veneno paralizante",
    )

    html = dj_client.get(reverse("board", args=["kiso"])).content.decode()

    assert '<span class="chip-effect">Hormigueo y torpeza en las manos.</span>' in html


def test_an_afeccion_with_no_source_is_refused_on_its_card(dj_client, campaign, aiko):
    before = StateEvent.objects.count()

    response = act(dj_client, campaign, aiko, action="suffer", type="afeccion", grade="leve")

    assert response.status_code == 422
    assert "Elige la enfermedad o el veneno" in response.content.decode()
    assert StateEvent.objects.count() == before


def test_a_time_in_fractions_reads_with_a_decimal_comma(dj_client, campaign, aiko):
    dj_client.post(
        reverse("party_time", args=["kiso"]),
        {"amount": "1,5", "unit": "hours", "activity": "activo"},
        headers=HX,
    )

    html = dj_client.get(reverse("board", args=["kiso"])).content.decode()

    assert "+1,5 h" in html and "+1.5 h" not in html


def test_more_actions_offers_curacion_only_with_heridas_to_cure(dj_client, campaign, aiko):
    url = reverse("ask", args=["kiso", aiko.pk, "more"])
    assert "Curación" not in dj_client.get(url, headers=HX).content.decode()

    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="leve")

    assert "Curación" in dj_client.get(url, headers=HX).content.decode()


def test_once_treated_more_actions_offers_no_curacion_nor_cirugia_but_says_why(
    dj_client, campaign, aiko, kenji
):
    url = reverse("ask", args=["kiso", aiko.pk, "more"])
    for grade in ("persistente", "grave"):  # one to operate, one to heal
        act(dj_client, campaign, aiko, action="suffer", type="heridas", grade=grade)
    offered = dj_client.get(url, headers=HX).content.decode()
    assert ">Curación<" in offered and ">Cirugía<" in offered

    act(dj_client, campaign, aiko, action="heal", healer=kenji.pk)

    html = dj_client.get(url, headers=HX).content.decode()
    assert ">Curación<" not in html and ">Cirugía<" not in html
    assert "Ya tratado: otra Curación o Cirugía necesita antes un Descanso" in html


def test_asleep_the_sleeps_shock_cannot_be_recovered_by_hand(dj_client, campaign, aiko):
    act(dj_client, campaign, aiko, action="suffer", type="fatiga", grade="leve")
    act(dj_client, campaign, aiko, action="sleep", descanso="1")

    more = dj_client.get(reverse("ask", args=["kiso", aiko.pk, "more"]), headers=HX)

    options = more.content.decode()
    assert 'value="fatiga:leve"' in options and 'value="shock:persistente"' not in options


def test_with_especificos_emocion_persistente_on_a_grave_asks_which(dj_client, campaign, aiko):
    Campaign.objects.filter(pk=campaign.pk).update(especificos=True)
    act(dj_client, campaign, aiko, action="suffer", type="emocion", grade="grave", variant="ira")
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    assert reverse("ask", args=["kiso", aiko.pk, "emocion-persistente"]) in board

    ask = dj_client.get(
        reverse("ask", args=["kiso", aiko.pk, "emocion-persistente"]) + "?grade=persistente",
        headers=HX,
    ).content.decode()
    assert "abatimiento" in ask and 'value="fobia"' in ask

    act(
        dj_client,
        campaign,
        aiko,
        action="suffer",
        type="emocion",
        grade="persistente",
        especifico="fobia",
    )
    aiko.snapshot.refresh_from_db()
    assert "fobia" in aiko.snapshot.state["specials"]


def test_a_pj_who_cannot_act_is_offered_as_no_healer(dj_client, campaign, aiko, kenji):
    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="leve")
    act(dj_client, campaign, kenji, action="suffer", type="shock", grade="persistente")

    ask = dj_client.get(reverse("ask", args=["kiso", aiko.pk, "heal"]), headers=HX)
    refused = act(dj_client, campaign, aiko, action="heal", healer=str(kenji.pk))

    assert f'value="{kenji.pk}"' not in ask.content.decode()
    assert refused.status_code == 422


def test_an_e_esp_typed_as_the_cards_name_it_is_the_one_events_name(dj_client, campaign, aiko):
    act(dj_client, campaign, aiko, action="special", on="1", name="Bloqueo empático")

    aiko.snapshot.refresh_from_db()
    assert "bloqueo_empatico" in aiko.snapshot.state["specials"]


def test_other_scores_show_after_the_games_own(dj_client, campaign):
    from tests.factories import CharacterFactory

    CharacterFactory(campaign=campaign, name="Ryo", attributes={"FUE": 3, "PER": 4})

    html = dj_client.get(reverse("board", args=["kiso"])).content.decode()

    assert '<abbr title="PER">PER</abbr> <strong>4</strong>' in html


def test_undo_takes_back_a_whole_tap_a_descanso_with_its_watch(dj_client, campaign, aiko, kenji):
    dj_client.post(
        reverse("party_descanso", args=["kiso"]),
        {"watch": str(kenji.pk), "key": "descanso-1"},
        headers=HX,
    )
    assert StateEvent.objects.filter(void_at__isnull=True).count() == 4  # 2 scores + 2

    response = dj_client.post(reverse("undo", args=["kiso"]), headers=HX)

    assert response.status_code == 200
    assert StateEvent.objects.filter(void_at__isnull=True).count() == 2
    for pj in (aiko, kenji):
        pj.snapshot.refresh_from_db()
        assert pj.snapshot.state["clock"] == 0
    html = response.content.decode()
    assert "Aiko: Descanso" in html and "Kenji: +8 h" in html  # Kenji kept watch


def test_undo_of_a_next_round_takes_back_the_turn_ends_it_recorded(dj_client, campaign, aiko):
    act(dj_client, campaign, aiko, action="suffer", type="shock", grade="grave")
    dj_client.post(reverse("next_round", args=["kiso"]), {"key": "round-1"}, headers=HX)
    kinds = list(
        StateEvent.objects.filter(void_at__isnull=True).values_list("event__kind", flat=True)
    )
    assert kinds[-2:] == ["turn_end", "time"]

    dj_client.post(reverse("undo", args=["kiso"]), headers=HX)

    aiko.snapshot.refresh_from_db()
    assert aiko.snapshot.state["pending"] == []  # the TS VOL of that turn end went with it
    assert StateEvent.objects.filter(void_at__isnull=True).count() == len(kinds) - 2


def test_an_abatimiento_under_an_active_emocion_grave_has_its_own_text(dj_client, campaign, aiko):
    for _ in range(2):
        act(
            dj_client,
            campaign,
            aiko,
            action="suffer",
            type="emocion",
            grade="grave",
            variant="terror",
        )

    html = dj_client.get(reverse("board", args=["kiso"])).content.decode()

    assert "Emoción Grave: terror" in html
    assert re.search(
        r'class="ealt ealt-also">\s*<p class="ealt-title"><strong>Emoción Persistente'
        r"[^<]*abatimiento",
        html,
        re.I,
    ), html


def test_each_card_shows_its_own_emotion_cause_in_the_pages_language(
    dj_client, campaign, aiko, kenji, settings
):
    # An active E.Alt's text (card_parts.ealt_text, its rule links kept once made): the same
    # Emoción grave with another cause, or in another language, is its own text.
    for pj, cause in ((aiko, "el oni"), (kenji, "la tormenta")):
        act(
            dj_client,
            campaign,
            pj,
            action="suffer",
            type="emocion",
            grade="grave",
            variant="terror",
            cause=cause,
        )
    url = reverse("board", args=["kiso"])

    spanish = dj_client.get(url).content.decode()
    dj_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    english = dj_client.get(url).content.decode()

    def cause_of(html, pj):
        card = html.split(f'id="pj-{pj.pk}"')[1].split("</article>")[0]
        return re.search(r'class="ealt-cause">([^<]*)<', card).group(1)

    assert cause_of(spanish, aiko) == "Causa: el oni"
    assert cause_of(spanish, kenji) == "Causa: la tormenta"
    assert cause_of(english, aiko) == "Cause: el oni"
    assert "Termina:" in spanish and "Termina:" not in english and "Ends:" in english


def test_deshacer_leaves_a_pjs_scores_set_on_its_page(dj_client, campaign, aiko):
    services.event_record(
        campaign=campaign, character=aiko, event={"kind": "attributes", "scores": {"FUE": 4}}
    )

    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    refused = dj_client.post(reverse("undo", args=["kiso"]), headers=HX)

    assert re.search(r'class="button-undo" data-shortcut="u" disabled', board)
    assert refused.status_code == 409 and "No hay nada que deshacer." in refused.content.decode()
    assert not StateEvent.objects.filter(void_at__isnull=False).exists()
    act(dj_client, campaign, aiko, action="suffer", type="heridas", grade="leve")
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    assert re.search(r'title="#\d+ Aiko: Heridas Leve">Deshacer<', board)


@pytest.mark.parametrize(
    ("amount", "words"),
    [("-2", "debe ser mayor que cero"), ("99999999999999999999", "demasiado tiempo")],
)
def test_a_negative_or_huge_amount_is_named_as_such(dj_client, campaign, aiko, amount, words):
    response = act(dj_client, campaign, aiko, action="time", unit="days", amount=amount)

    assert response.status_code == 422 and words in response.content.decode()


def test_an_event_of_a_pj_archived_since_is_named_in_the_recent_events(dj_client, campaign, aiko):
    ren = CharacterFactory(campaign=campaign, name="Ren")
    blow = services.event_record(
        campaign=campaign,
        character=ren,
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
    )
    services.character_archive(character=ren)

    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()

    assert re.search(rf'id="recent-{blow.seq}".*?class="who">Ren<', board, re.S)


def test_a_party_event_names_a_pj_archived_since_it_was_reached(dj_client, campaign, aiko, kenji):
    ren = CharacterFactory(campaign=campaign, name="Ren")
    services.party_event(
        campaign=campaign, event={"kind": "time", "minutes": 5}, watch=frozenset({kenji.pk})
    )
    services.character_archive(character=ren)

    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()

    time = StateEvent.objects.get(event__kind="time", character=None)
    assert re.search(rf'id="recent-{time.seq}".*?class="who">Aiko, Ren<', board, re.S)
