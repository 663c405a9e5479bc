"""The DJ's turn reminders on the board through the Django client: pinned and removed with
htmx or without JavaScript, shown in the fight panel when due, refused in the pin form's
error line, and never on a player's page."""

import pytest
from django.urls import reverse

from campaign import services
from campaign.live import parts
from campaign.models import Reminder
from campaign.turn_order import Slot

HX = {"HX-Request": "true"}


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


@pytest.fixture
def fight(campaign, aiko, kenji, dj):
    services.fight_start(
        campaign=campaign, order=[Slot(pj=aiko.pk, init=12), Slot(pj=kenji.pk, init=8)], actor=dj
    )


def add_url():
    return reverse("reminder_add", args=["kiso"])


def delete_url(note):
    return reverse("reminder_delete", args=["kiso", note.pk])


def board(client) -> str:
    return client.get(reverse("board", args=["kiso"])).content.decode()


def test_a_note_pinned_with_htmx_answers_with_the_board(dj_client, campaign, fight, kenji):
    answer = dj_client.post(
        add_url(),
        {"text": "el veneno actúa", "when": "end", "character": str(kenji.pk), "round": "2"},
        headers=HX,
    )

    assert answer.status_code == 200 and answer["X-Change-Pj"] == "all"
    html = answer.content.decode()
    assert "Nota fijada, al terminar el turno de Kenji: el veneno actúa" in html
    # Not due yet (Aiko's turn): still to come, under "Recordatorios (1)…".
    assert "Recordatorios (1)…" in html and "al terminar:" not in html
    note = campaign.reminders.get()
    assert (note.when, note.character, note.round, note.every) == ("end", kenji, None, False)


def test_a_note_due_shows_in_the_fight_panel(dj_client, campaign, fight, aiko, dj):
    services.reminder_add(campaign=campaign, text="refuerzos", when="round", round=1)
    services.reminder_add(
        campaign=campaign, text="Aiko sangra", when="end", character=aiko, every=True
    )

    html = board(dj_client)

    now = html.split('class="reminders reminders-now"', 1)[1].split("</ul>", 1)[0]
    assert "en la ronda 1:" in now and "refuerzos" in now
    end = html.split('class="reminders-end"', 1)[1].split("</div>", 1)[0]
    assert "al terminar:" in end and "Aiko sangra" in end and "cada vez" in end
    # Still to come: Aiko's end note, due when her turn passes (the round's is due now).
    assert "Recordatorios (1)…" in html


def test_the_pin_form_offers_the_fights_combatants_or_everyone_in_play(
    dj_client, campaign, aiko, kenji, dj
):
    ren = services.pnj_create(campaign=campaign, name="Ren")[0]
    outside = board(dj_client)
    services.fight_start(campaign=campaign, order=[Slot(pj=kenji.pk)], actor=dj)
    inside = board(dj_client)

    def choices(html):
        select = html.split('<select name="character">', 1)[1].split("</select>", 1)[0]
        return [pk for pk in (aiko.pk, kenji.pk, ren.pk) if f'value="{pk}"' in select]

    assert choices(outside) == [aiko.pk, kenji.pk, ren.pk]
    assert choices(inside) == [kenji.pk]


def test_without_javascript_a_note_is_pinned_and_the_board_says_so(dj_client, campaign):
    answer = dj_client.post(
        add_url(), {"text": "refuerzos", "when": "round", "round": "3", "every": "1"}, follow=True
    )

    assert answer.redirect_chain == [(reverse("board", args=["kiso"]), 302)]
    assert "Nota fijada, en la ronda 3: refuerzos" in answer.content.decode()
    assert campaign.reminders.get().every


@pytest.mark.parametrize(
    ("form", "words"),
    [
        ({"text": " ", "when": "round", "round": "2"}, "Escribe la nota."),
        ({"text": "refuerzos", "when": "round", "round": "dos"}, "Una ronda de 1 a 999."),
        ({"text": "refuerzos", "when": "luego"}, "Di cuándo sale"),
        ({"text": "el veneno", "when": "end", "character": "x"}, "Elige de quién es el turno."),
        ({"text": "el veneno", "when": "start", "character": "999999"}, "Elige de quién"),
    ],
)
def test_a_refused_note_says_why_in_the_pin_forms_error_line(dj_client, campaign, form, words):
    answer = dj_client.post(add_url(), form, headers=HX)

    assert answer.status_code == 422
    assert answer["HX-Retarget"] == "#reminder-error"
    assert words in answer.content.decode()
    assert not campaign.reminders.exists()


def test_without_javascript_a_refusal_is_a_flash_on_the_board(dj_client, campaign):
    answer = dj_client.post(add_url(), {"text": "", "when": "round", "round": "2"}, follow=True)

    assert answer.redirect_chain == [(reverse("board", args=["kiso"]), 302)]
    assert "Escribe la nota." in answer.content.decode()


def test_a_note_is_removed_from_the_board(dj_client, campaign, fight, aiko):
    note = services.reminder_add(
        campaign=campaign, text="Aiko sangra", when="start", character=aiko
    )
    assert "Quitar la nota: Aiko sangra" in board(dj_client)

    answer = dj_client.post(delete_url(note), headers=HX)

    assert answer.status_code == 200
    assert "Nota quitada: Aiko sangra" in answer.content.decode()
    assert not Reminder.objects.filter(pk=note.pk).exists()
    again = dj_client.post(delete_url(note), headers=HX)
    assert again.status_code == 404


def test_another_campaigns_note_is_not_reached(dj_client, campaign):
    from tests.factories import CampaignFactory

    other = CampaignFactory(slug="otra")
    note = services.reminder_add(campaign=other, text="secreto", when="round", round=1)

    answer = dj_client.post(delete_url(note), headers=HX)

    assert answer.status_code == 404
    assert Reminder.objects.filter(pk=note.pk).exists()


def test_a_player_never_sees_a_note_even_while_it_is_due(
    client, campaign, joined, kenji, player, dj
):
    services.session_start(campaign=campaign, title="Una")
    services.fight_start(campaign=campaign, order=[Slot(pj=joined.pk), Slot(pj=kenji.pk)], actor=dj)
    # Whole phrases (a page's random tokens never hold a space).
    notes = ["llegan refuerzos por el río", "el veneno sube ya", "Aiko sangra mucho"]
    services.reminder_add(campaign=campaign, text=notes[0], when="round", round=1)
    services.reminder_add(campaign=campaign, text=notes[1], when="start", character=joined)
    services.reminder_add(campaign=campaign, text=notes[2], when="end", character=joined)
    client.force_login(dj)
    assert all(note in board(client) for note in notes)  # due, all three
    client.force_login(player)

    pages = [
        client.get(reverse("sheet", args=["kiso", joined.pk])),
        client.get(reverse("sheet_refresh", args=["kiso", joined.pk]) + "?all=1"),
        client.get(reverse("history", args=["kiso"])),
        client.get(reverse("session_detail", args=["kiso", 1])),
        client.get(reverse("session_log", args=["kiso", 1, "csv"])),
        client.get(reverse("session_log", args=["kiso", 1, "md"])),
    ]
    live = parts.render(
        campaign.pk,
        "es",
        [*parts.sheet_keys(own=[joined.pk], party=[kenji.pk]), ("foes",), ("pks",), ("pnj",)],
    )

    for page in pages:
        assert page.status_code == 200
        body = b"".join(page.streaming_content) if page.streaming else page.content
        assert not [n for n in notes if n in body.decode()], page.request["PATH_INFO"]
    assert not [n for n in notes if n in str(live)]
    # The DJ's backup holds them: it is the DJ's only.
    assert client.get(reverse("campaign_export", args=["kiso"])).status_code == 404


def test_the_notes_and_their_form_speak_spanish(dj_client, campaign, fight, aiko, kenji):
    from tests.test_words import slips

    services.reminder_add(campaign=campaign, text="refuerzos", when="round", round=1)
    services.reminder_add(campaign=campaign, text="sangra", when="end", character=aiko)
    services.reminder_add(campaign=campaign, text="reza", when="start", character=kenji)

    html = board(dj_client)

    assert "Recordatorios (2)…" in html and "Fijar la nota" in html  # her end note, and his start
    assert slips(html) == []
