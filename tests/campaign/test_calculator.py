"""The modifier calculator: against the cause of a terror or ira (R16), and the key that
tells a card and a result read the same state."""

import re

import pytest
from django.urls import reverse

from campaign import services
from campaign.present.card import calc_key
from campaign.selectors import character_state

HX = {"HX-Request": "true"}


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


def suffer(campaign, pj, grade, variant, cause=""):
    event = {"kind": "suffer", "type": "emocion", "grade": grade, "variant": variant}
    if cause:
        event["cause"] = cause
    services.event_record(campaign=campaign, character=pj, event=event)


def calc(client, **query):
    response = client.get(reverse("calculator", args=["kiso"]), query, headers=HX)
    assert response.status_code == 200
    return response.content.decode()


def total(html):
    return re.search(r'<span class="calc-total">([^<]*)</span>', html).group(1)


def test_the_ira_fights_its_cause_with_a_facilidad_anyone_else_at_minus_3(
    dj_client, campaign, aiko
):
    suffer(campaign, aiko, "grave", "ira", cause="el oni")
    query = {"pj": aiko.pk, "attribute": "FUE", "intent": "fight"}

    asked = calc(dj_client, **query)
    yes = calc(dj_client, **query, against="1")
    no = calc(dj_client, **query, against="0")

    assert "¿Contra la causa de su ira (el oni)?" in asked
    assert 'name="against" value="0" checked' in asked  # no answer is "no"
    assert total(asked) == total(no) == "−3"
    assert "Emoción Grave: ira (no contra la causa)" in no
    assert total(yes) == "+1" and "Emoción Grave: ira (contra la causa)" in yes
    assert 'name="against" value="1" checked' in yes


def test_the_terror_flees_its_cause_with_a_facilidad(dj_client, campaign, aiko):
    suffer(campaign, aiko, "grave", "terror")
    query = {"pj": aiko.pk, "attribute": "VOL", "intent": "flee"}

    assert "¿Huye de la causa de su terror?" in calc(dj_client, **query)
    assert total(calc(dj_client, **query, against="1")) == "+1"
    assert total(calc(dj_client, **query, against="0")) == "−3"


@pytest.mark.parametrize(
    ("grade", "variant", "query"),
    [
        ("grave", "ira", {"attribute": "FUE", "intent": "normal"}),  # an ordinary action
        ("grave", "ira", {"attribute": "AGI", "intent": "fight"}),  # no Facilidad for AGI
        ("grave", "terror", {"attribute": "FUE", "intent": "fight"}),  # −3 either way
        ("leve", "euforia", {"attribute": "FUE", "intent": "fight"}),  # leve: any foe
    ],
)
def test_the_cause_is_asked_only_where_the_answer_changes_the_sum(
    dj_client, campaign, aiko, grade, variant, query
):
    suffer(campaign, aiko, grade, variant)
    html = calc(dj_client, pj=aiko.pk, **query)
    assert 'name="against"' not in html
    assert html == calc(dj_client, pj=aiko.pk, **query, against="1")


def test_a_strange_answer_to_the_cause_is_explained(dj_client, campaign, aiko):
    suffer(campaign, aiko, "grave", "ira")
    html = calc(dj_client, pj=aiko.pk, attribute="FUE", intent="fight", against="quizá")
    assert 'class="error" role="alert"' in html and "contra la causa" in html


def test_the_result_and_the_card_carry_the_key_of_the_state_they_read(dj_client, campaign, aiko):
    before = calc_key(character_state(character=aiko))
    suffer(campaign, aiko, "grave", "ira", cause="el oni")
    after = calc_key(character_state(character=aiko))
    assert before != after

    html = calc(dj_client, pj=aiko.pk, attribute="FUE")
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()

    assert f'data-pj="{aiko.pk}" data-calc="{after}"' in html
    assert f'id="pj-{aiko.pk}" data-pj="{aiko.pk}" data-calc="{after}"' in board


def test_the_key_changes_with_the_cause_alone(campaign, aiko):
    suffer(campaign, aiko, "grave", "ira", cause="el oni")
    one = calc_key(character_state(character=aiko))
    state = dict(character_state(character=aiko))
    state["emotion"] = {**state["emotion"], "grave_cause": "el bandido"}
    assert calc_key(state) != one
