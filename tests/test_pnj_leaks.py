"""No player page, download, picture or live answer carries what the DJ has not revealed of
a PNJ: the Demo's evening in progress (tests/pages.py) with a fight of unrevealed PNJ (one
hidden until its first turn, a group of a Plantilla's copies) and an unrevealed ally in the
party, crawled by every link a player's pages lead to, downloads and live answers too (the
history pages' live parts among them). Nor does it carry their state: why an unrevealed one
left the fight, or that it lost its turn (the one hidden until its first turn loses every
turn it has: it never shows)."""

import re
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from campaign import services
from campaign.turn_order import Slot
from tests import pages

# Each hidden name carries this token; none of it may reach a player.
TOKEN = "Zzq"
# Not followed: the stream (endless) and the pages that write.
SKIPPED = {"live_stream", "logout", "service_worker"}
# What only the unrevealed PNJ's state says in the history's words (why one left the fight,
# a turn lost): the rules and the guide, which explain the words, are left out of this check.
STATE_WORDS = ("(inconsciente)", "Pierde el turno", "pierde el turno")
DOCS = ("/reglas/", "/guia/")


def _hidden_fight(staged: dict) -> dict:
    campaign, pj = staged["campaign"], staged["pj"]
    services.fight_end(campaign=campaign)
    ally = services.pnj_create(campaign=campaign, name=f"{TOKEN} aliado", side="aliado")[0]
    services.pnj_settings_set(character=ally, in_party=True)
    services.party_event(campaign=campaign, event={"kind": "time", "minutes": 10})
    template = services.template_save(campaign=campaign, name=f"{TOKEN} ronin")
    group = services.pnj_create(campaign=campaign, template=template, count=3)
    jefe = services.pnj_create(campaign=campaign, name=f"{TOKEN} jefe")[0]
    lurker = services.pnj_create(campaign=campaign, name=f"{TOKEN} acecho", lurking=True)[0]
    services.event_record(
        campaign=campaign,
        character=jefe,
        event={"kind": "suffer", "type": "heridas", "grade": "grave"},
    )
    # The lurker cannot act: each of its turns is lost, and it never shows.
    services.event_record(
        campaign=campaign,
        character=lurker,
        event={"kind": "suffer", "type": "shock", "grade": "persistente"},
    )
    services.fight_start(
        campaign=campaign,
        order=[
            Slot(pj=jefe.pk),
            Slot(pj=group[0].pk, also=(group[1].pk, group[2].pk)),
            Slot(pj=pj["Kenji"].pk),  # Aiko, in Shock grave, would lose her turns
            Slot(pj=lurker.pk),
        ],
    )
    services.fight_pass(campaign=campaign)  # the group's turn: the lurker still unseen
    services.fight_out(campaign=campaign, character=group[1], why="inconsciente")
    for _turn in range(6):  # the group, Kenji, the lurker's lost turn; round 2 to the lurker's
        services.fight_pass(campaign=campaign)
    return {"jefe": jefe, "lurker": lurker, "campaign": campaign, "group": group}


def _everything(client: Client, start: list[str]) -> dict[str, str]:
    """Every answer a client reaches from `start` by links, of any content type."""
    queue, seen, found = list(start), set(), {}
    while queue:
        path = queue.pop(0)
        if path in seen or path.startswith("/admin/") or pages.route(path) in SKIPPED:
            continue
        seen.add(path)
        response = client.get(path)
        if response.status_code in (301, 302):
            queue.append(response["Location"])
            continue
        if response.status_code != 200 or getattr(response, "streaming", False):
            continue
        text = response.content.decode()
        found[path] = text
        if response["Content-Type"].startswith("text/html"):
            queue.extend(p for p in pages.links(text) if urlsplit(p).path not in seen)
    return found


def _player_answers(staged: dict) -> dict[str, str]:
    client = Client()
    player = get_user_model().objects.get(username="aiko")
    client.force_login(player)
    campaign, aiko = staged["campaign"], staged["pj"]["Aiko"]
    refresh = reverse("sheet_refresh", args=[campaign.slug, aiko.pk])
    start = [
        "/",
        f"{refresh}?all=1",
        f"{refresh}?foes=1",
        f"{reverse('live_changes')}?since={campaign.pk}:0",
    ]
    answers = _everything(client, start)
    # The history pages' live parts (static/js/history.js asks its page's own address).
    for path in [p for p in answers if pages.route(p) in ("history", "session_detail")]:
        response = client.get(path, headers={"HX-Request": "true"})
        assert response.status_code == 200
        answers[f"{path} (live)"] = response.content.decode()
    return answers


@pytest.mark.django_db
def test_a_player_reaches_nothing_the_dj_has_not_revealed():
    staged = pages.stage()
    _hidden_fight(staged)
    answers = _player_answers(staged)

    assert len(answers) > 20 and any("/hoja/" in path for path in answers)
    assert any(p.endswith((".csv", ".md", ".svg")) or "formato=" in p for p in answers), answers
    live = [text for path, text in answers.items() if path.endswith("(live)")]
    assert len(live) >= 3 and all('id="history-events"' in text for text in live)
    leaks = [path for path, text in answers.items() if TOKEN in text]
    assert leaks == []
    told = [
        (path, word)
        for path, text in answers.items()
        if not path.startswith(DOCS)
        for word in STATE_WORDS
        if word in text
    ]
    assert told == []
    sheet = next(t for p, t in answers.items() if p.endswith("/hoja/"))
    assert sheet.count("un enemigo") >= 2  # the Jefe and the group, the lurker unseen


@pytest.mark.django_db
def test_a_hidden_pnjs_lost_turn_is_no_turn_to_a_player():
    """The lurker's turn is going on (lost, as each of its turns): the player's sheet names
    nobody's turn, and its history leaves out the lost turns' passes, so nothing says a
    hidden one is in the order; the one knocked out of the group counts as out."""
    staged = pages.stage()
    hidden = _hidden_fight(staged)
    campaign = hidden["campaign"]
    player = Client()
    player.force_login(get_user_model().objects.get(username="kenji"))
    dj = Client()
    dj.force_login(get_user_model().objects.get(username="dj"))
    number = campaign.sessions.order_by("number").last().number
    session = reverse("session_detail", args=[campaign.slug, number])

    sheet = player.get(reverse("sheet", args=[campaign.slug, staged["pj"]["Kenji"].pk]))
    html = sheet.content.decode()
    line = re.search(r'<p class="sheet-turn[^"]*">(.*?)</p>', html, re.S)
    assert line and "Turno de" not in line.group(1), line.group(1)
    assert "después del turno de dos enemigos" in line.group(1)
    assert "fuera de combate" in re.search(r'<section id="foes".*?</section>', html, re.S)[0]
    theirs = player.get(session).content.decode()
    ours = dj.get(session).content.decode()
    assert ours.count("Pierde el turno") == 1 and theirs.count("Pierde el turno") == 0
    assert theirs.count("Pasa el turno") == ours.count("Pasa el turno")
    assert f"{TOKEN} ronin 2 sale del combate (inconsciente)" in ours
    assert "Un enemigo sale del combate" in theirs


@pytest.mark.django_db
def test_the_dj_sees_them_and_a_reveal_shows_a_player_the_name_and_its_state():
    staged = pages.stage()
    hidden = _hidden_fight(staged)
    dj = Client()
    dj.force_login(get_user_model().objects.get(username="dj"))
    board = dj.get(reverse("board", args=[hidden["campaign"].slug])).content.decode()
    assert f"{TOKEN} jefe" in board and f"{TOKEN} acecho" in board

    services.pnj_settings_set(character=hidden["jefe"], revealed=True)
    answers = _player_answers(staged)

    shown = [path for path, text in answers.items() if f"{TOKEN} jefe" in text]
    assert any(path.endswith("/hoja/") for path in shown)
    assert all(f"{TOKEN} acecho" not in text for text in answers.values())
    sheet = next(t for p, t in answers.items() if p.endswith("/hoja/"))
    assert "malherido" in sheet
