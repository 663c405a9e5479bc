"""Session history: the audit trail, one event's before and after, recaps, end-of-session
sheets, printable cards and the session log exports, for the DJ and for a player."""

import csv
import datetime as dt
import io
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from campaign import services
from campaign.models import Campaign, StateEvent
from tests.factories import CharacterFactory, UserFactory


@pytest.fixture
def table(campaign, aiko, kenji, dj, player):
    """Session 1 (ended, with a recap) and an open session 2, with a secret and a void."""
    services.invitation_accept(
        invitation=services.invitation_create(character=aiko, by=dj), user=player
    )
    one = services.session_start(campaign=campaign, title="El paso")
    record(aiko, dj, kind="suffer", type="shock", grade="leve")
    record(aiko, dj, kind="suffer", type="shock", grade="leve")  # R2: Shock grave
    record(kenji, dj, kind="suffer", type="fatiga", grade="grave")
    record(kenji, dj, kind="suffer", type="fatiga", grade="grave")  # R8: and Shock leve
    record(aiko, dj, kind="suffer", type="afeccion", grade="leve", source="ponzoña azul")
    services.character_secrets_set(character=aiko, add=["ponzoña azul"], remove=())
    record(None, dj, kind="time", minutes=10)
    wrong = record(kenji, dj, kind="suffer", type="heridas", grade="leve")
    services.event_void(event=wrong, actor=dj, reason="era Aiko")
    services.session_end(session=one, recap="**Llegaron** al paso. <script>x</script>")
    two = services.session_start(campaign=campaign, title="La cueva")
    record(aiko, dj, kind="suffer", type="heridas", grade="leve")
    return {"one": one, "two": two, "wrong": wrong}


def record(character, actor, **event):
    campaign = character.campaign if character else Campaign.objects.get(slug="kiso")
    return services.event_record(campaign=campaign, character=character, event=event, actor=actor)


def get(client, name, *args, **params):
    return client.get(reverse(name, args=["kiso", *args]), params)


# -- the timeline -----------------------------------------------------------------------


def test_the_dj_reads_every_event_with_clock_actor_trail_and_voids(client, dj, table, kenji):
    client.force_login(dj)

    html = get(client, "history").content.decode()

    assert "Sesión 1" in html and "El paso" in html and "en curso" in html
    assert re.search(r"Día 1 00:\d\d · Ronda \d", html)
    assert "por test-dj" in html
    assert 'href="/reglas/#R2"' in html  # a second Shock leve → R2 → Shock grave
    assert "ponzoña azul" in html.lower()  # the DJ sees secrets
    wrong = table["wrong"]
    assert re.search(
        rf'id="e{wrong.seq}"[^>]*>|class="timeline-row is-void" id="e{wrong.seq}"', html
    )
    assert "<del><strong>Kenji</strong>: Heridas Leve</del>" in html
    assert "Anulado por test-dj" in html and "era Aiko" in html


def test_filters_by_pj_and_by_type_through_the_rule_trail(client, dj, table, aiko, kenji):
    client.force_login(dj)

    kenji_only = get(client, "history", pj=kenji.pk).content.decode()
    shock = get(client, "history", tipo="shock").content.decode()

    assert "Kenji</strong>: Fatiga Grave" in kenji_only
    assert "Aiko</strong>" not in kenji_only
    # Kenji's second Fatiga grave led to Shock leve (R8): it touches Shock too.
    assert "Kenji</strong>: Fatiga Grave" in shock and "Aiko</strong>: Shock Leve" in shock
    assert "Heridas Leve" not in shock


def test_a_pjs_filter_holds_its_log_not_the_party_time_before_it_joined(client, dj, campaign, aiko):
    record(None, dj, kind="time", minutes=30)
    ren = services.character_create(campaign=campaign, name="Ren")
    record(None, dj, kind="time", minutes=10)
    client.force_login(dj)

    rens = get(client, "history", pj=ren.pk).content.decode()
    aikos = get(client, "history", pj=aiko.pk).content.decode()

    # The history's filter reads the PJ's log as its state does: it joins at 00:30, then
    # 10 min; the 30 min before it joined are not in its log.
    assert "+10 min" in rens and "+30 min" not in rens and "Se une a la campaña" in rens
    assert "+10 min" in aikos and "+30 min" in aikos and "Ren</strong>" not in aikos


def test_a_long_log_comes_in_windows(client, dj, campaign, aiko):
    for _ in range(120):
        record(aiko, dj, kind="turn_end")
    client.force_login(dj)

    first = get(client, "history").content.decode()
    assert first.count('class="timeline-row') == 100
    following = re.search(r'href="/c/kiso/historia/\?desde=(\d+)"', first).group(1)
    second = get(client, "history", desde=following).content.decode()
    assert 0 < second.count('class="timeline-row') <= 22
    assert "Anteriores" in second
    last = get(client, "history", final="1").content.decode()
    assert last.count('class="timeline-row') == 100


@pytest.mark.parametrize("value", ["²", "١٢", "-1", "abc", "99999999999999999999"])
def test_a_page_or_pj_that_is_not_a_plain_number_is_ignored(client, dj, table, value):
    # "²".isdigit() is true, but int("²") raises: it must not be a 500.
    client.force_login(dj)

    for name, args in (("history", []), ("session_detail", [1])):
        assert get(client, name, *args, desde=value).status_code == 200
        assert get(client, name, *args, pj=value).status_code == 200


def test_no_earlier_link_when_nothing_earlier_passes_the_filter(client, dj, table, kenji):
    client.force_login(dj)
    first = (
        StateEvent.objects.filter(character=kenji).order_by("seq").values_list("seq", flat=True)
    )[0]
    earlier_others = StateEvent.objects.filter(seq__lt=first).exclude(character=kenji)
    assert earlier_others.exists()  # the window starts after events the filter leaves out

    html = get(client, "history", pj=kenji.pk, desde=1).content.decode()

    assert f'id="e{first}"' in html
    assert "Anteriores" not in html


def test_the_session_page_stays_within_a_few_queries(
    client, dj, campaign, aiko, kenji, django_assert_max_num_queries
):
    session = services.session_start(campaign=campaign)
    for i in range(300):
        record(aiko if i % 2 else kenji, dj, kind="suffer", type="shock", grade="leve")
        record(None, dj, kind="time", rounds=1)
    client.force_login(dj)

    with django_assert_max_num_queries(15):
        response = get(client, "session_detail", session.number)

    assert response.status_code == 200


def test_a_player_reads_their_own_pj_and_the_party_time_without_secrets(
    client, player, table, aiko, kenji
):
    client.force_login(player)

    html = get(client, "history").content.decode()

    assert "Aiko</strong>: Shock Leve" in html
    assert "Todos</strong>" in html  # the campaign-wide time
    assert "Kenji" not in html
    assert "Aiko</strong>: Afección Leve" in html and "ponzoña" not in html.lower()
    assert 'class="campaign-nav"' not in html
    assert get(client, "event_detail", table["wrong"].seq).status_code == 404


def test_a_secret_name_with_capitals_stays_hidden_from_the_player(
    client, campaign, player, table, aiko
):
    # Names the app records are lowercase, but a backup or the services may keep capitals;
    # the sheet hides "Marcado" (the same name): the history must too.
    special = record(aiko, None, kind="special", name="Marcado", on=True)
    services.character_secrets_set(character=aiko, add=["Marcado"], remove=())
    client.force_login(player)

    pages = [
        get(client, "history"),
        get(client, "session_detail", 2),
        get(client, "session_log", 2, "md"),
        get(client, "event_detail", special.seq),
        get(client, "sheet", aiko.pk),
    ]

    for response in pages:
        assert response.status_code == 200
        assert "marcado" not in response.content.decode().lower(), response.request["PATH_INFO"]


# -- one event --------------------------------------------------------------------------


def test_an_event_shows_each_pj_right_before_and_after(client, dj, table, kenji):
    client.force_login(dj)
    fatiga = StateEvent.objects.filter(event__type="fatiga").order_by("seq").last()

    html = get(client, "event_detail", fatiga.seq).content.decode()

    assert "Justo antes" in html and "Justo después" in html
    assert "Fatiga Persistente marcada" in html  # R8
    assert "Shock Leve marcada" in html
    assert "Gana Desprevenido" in html and "Ya no puede actuar" in html
    first = StateEvent.objects.filter(event__type="fatiga").order_by("seq").first()
    html = get(client, "event_detail", first.seq).content.decode()
    assert "modificador de FUE 0 → −3" in html  # a real minus, and no "+0"


def test_a_voided_event_says_it_changes_nothing(client, dj, table):
    client.force_login(dj)

    html = get(client, "event_detail", table["wrong"].seq).content.decode()

    assert "Un evento anulado no cambia nada" in html
    assert "Sin cambios en la tarjeta." in html


def test_the_dj_voids_an_old_event_from_its_page(client, dj, table, aiko):
    client.force_login(dj)
    old = StateEvent.objects.filter(event__type="fatiga").order_by("seq").first()
    url = reverse("event_void", args=["kiso", old.seq])

    html = get(client, "event_detail", old.seq).content.decode()
    assert "Anular este evento" in html and url in html

    done = client.post(url, {"reason": "  era   otra tirada "}, follow=True)

    old.refresh_from_db()
    assert old.void_reason == "era otra tirada" and old.void_by == dj
    assert done.redirect_chain[-1][0] == reverse("event_detail", args=["kiso", old.seq])
    html = done.content.decode()
    assert "Anulado: era otra tirada" in html and "Un evento anulado no cambia nada" in html
    assert "Anular este evento" not in html


def test_a_void_from_the_event_page_refused_says_why_under_its_form(client, dj, table):
    client.force_login(dj)
    old = StateEvent.objects.filter(event__type="fatiga").order_by("seq").first()
    url = reverse("event_void", args=["kiso", old.seq])

    empty = client.post(url, {"reason": "   "})
    assert empty.status_code == 422
    assert re.search(r'id="void-error" role="alert">Di por qué', empty.content.decode())

    twice = client.post(url, {"reason": "x"})
    assert twice.status_code == 302
    again = client.post(url, {"reason": "y"}, follow=True)
    assert "Este evento ya está anulado." in again.content.decode()
    old.refresh_from_db()
    assert old.void_reason == "x"
    assert StateEvent.objects.filter(void_at__isnull=False).count() == 2  # "wrong" and this


def test_a_void_that_would_break_a_later_event_is_refused_on_its_page(client, dj, campaign, aiko):
    client.force_login(dj)
    wound = record(aiko, dj, kind="suffer", type="heridas", grade="leve")
    record(aiko, dj, kind="heal")

    refused = client.post(reverse("event_void", args=["kiso", wound.seq]), {"reason": "no"})

    assert refused.status_code == 409
    html = refused.content.decode()
    assert re.search(
        r'id="void-error" role="alert">No se puede anular el #\d+: '
        r'el <a href="/c/kiso/evento/\d+/">#\d+</a> de Aiko \(Curación\)',
        html,
    )
    assert 'value="no"' in html  # what was typed stays
    wound.refresh_from_db()
    assert wound.void_at is None


def test_only_the_dj_voids_from_the_event_page(client, player, table):
    client.force_login(player)
    aiko_event = StateEvent.objects.filter(event__type="shock").order_by("seq").first()

    html = get(client, "event_detail", aiko_event.seq).content.decode()
    assert "Anular este evento" not in html
    answer = client.post(reverse("event_void", args=["kiso", aiko_event.seq]), {"reason": "x"})

    assert answer.status_code == 404
    aiko_event.refresh_from_db()
    assert aiko_event.void_at is None


def test_a_party_event_with_someone_on_watch_names_who_it_reached(client, dj, table, kenji):
    client.force_login(dj)
    services.party_event(
        campaign=Campaign.objects.get(slug="kiso"),
        event={"kind": "descanso"},
        watch=frozenset({kenji.pk}),
        actor=dj,
    )
    descanso = StateEvent.objects.get(event__kind="descanso")

    html = get(client, "event_detail", descanso.seq).content.decode()
    board = client.get(reverse("board", args=["kiso"])).content.decode()

    assert f"#{descanso.seq} · Aiko: Descanso" in html
    assert re.search(rf'id="recent-{descanso.seq}".*?class="who">Aiko<', board, re.S)
    time = StateEvent.objects.get(event__kind="time", character=None)
    assert re.search(rf'id="recent-{time.seq}".*?class="who">Todos<', board, re.S)


# -- recaps -----------------------------------------------------------------------------


def test_the_recap_is_markdown_and_html_in_it_stays_text(client, dj, table):
    client.force_login(dj)

    html = get(client, "session_detail", 1).content.decode()

    assert "<strong>Llegaron</strong> al paso." in html
    assert "<script>x</script>" not in html and "&lt;script&gt;" in html


def test_the_dj_edits_a_recap_and_a_player_cannot(client, dj, player, table):
    url = reverse("session_recap", args=["kiso", 1])
    client.force_login(player)
    assert client.post(url, {"recap": "mío"}).status_code == 404
    client.force_login(dj)

    client.post(url, {"recap": "Otra *versión*."})
    too_long = client.post(url, {"recap": "x" * 20_001}, follow=True)

    table["one"].refresh_from_db()
    assert table["one"].recap == "Otra *versión*."
    assert "demasiado largo" in too_long.content.decode()


def test_a_nul_byte_in_a_recap_is_dropped_not_a_500(client, dj, table):
    # PostgreSQL refuses NUL in a text column.
    client.force_login(dj)

    response = client.post(reverse("session_recap", args=["kiso", 1]), {"recap": "a\x00b"})

    assert response.status_code == 302
    table["one"].refresh_from_db()
    assert table["one"].recap == "ab"


# -- the DJ's own note -------------------------------------------------------------------

NOTE = "El monje del paso es el oni disfrazado."


def test_the_dj_writes_a_note_on_the_sessions_page_and_a_player_cannot(client, dj, player, table):
    url = reverse("session_note", args=["kiso", 1])
    client.force_login(player)
    assert client.post(url, {"dj_note": "mía"}).status_code == 404
    client.force_login(dj)

    response = client.post(url, {"dj_note": NOTE + "\r\n\n*Que no se sepa.*\x00"})

    assert response["Location"] == reverse("session_detail", args=["kiso", 1])
    table["one"].refresh_from_db()
    assert table["one"].dj_note == NOTE + "\n\n*Que no se sepa.*"
    html = get(client, "session_detail", 1).content.decode()
    assert NOTE in html and "<em>Que no se sepa.</em>" in html
    assert "Solo tú ves esta nota" in html and "lo leen todos los jugadores" in html
    assert "## Nota del DJ" in get(client, "session_log", 1, "md").content.decode()


def test_a_note_too_long_is_refused_by_its_field_with_what_was_typed(client, dj, table):
    client.force_login(dj)
    services.session_note_set(session=table["one"], note="Antes.")

    response = client.post(
        reverse("session_note", args=["kiso", 1]), {"dj_note": "x" * 20_001}, follow=True
    )

    html = response.content.decode()
    assert re.search(r'id="dj-note-error" role="alert">La nota del DJ es demasiado larga', html)
    assert "x" * 20_001 + "</textarea>" in html
    table["one"].refresh_from_db()
    assert table["one"].dj_note == "Antes."


def test_no_page_or_export_of_a_player_holds_the_djs_note(client, player, table, aiko):
    services.session_note_set(session=table["one"], note=NOTE)
    services.session_note_set(session=table["two"], note=NOTE)
    client.force_login(player)
    wound = StateEvent.objects.filter(character=aiko).latest("seq")

    for response in (
        get(client, "history"),
        get(client, "session_detail", 1),
        get(client, "session_detail", 2),
        get(client, "session_sheets", 1),
        get(client, "session_log", 1, "md"),
        get(client, "session_log", 1, "csv"),
        get(client, "session_timeline_svg", 1),
        get(client, "event_detail", wound.seq),
        get(client, "character_cards", aiko.pk),
        client.get(reverse("sheet", args=["kiso", aiko.pk])),
        client.get(reverse("home")),
    ):
        assert response.status_code == 200, response.request["PATH_INFO"]
        text = response.content.decode()
        assert "monje" not in text and "Nota del DJ" not in text, response.request["PATH_INFO"]
        assert "Solo tú ves esta nota" not in text


def test_the_player_reads_a_secret_afeccions_effect_on_their_own_pages_without_its_name(
    client, player, table, aiko
):
    services.catalogue_entry_save(
        campaign=aiko.campaign, name="Ponzoña azul", kind="veneno", effect_leve="Labios dormidos."
    )
    client.force_login(player)

    for name, args in (("session_sheets", [1]), ("character_cards", [aiko.pk])):
        html = get(client, name, *args).content.decode()
        assert "Origen secreto" in html and "Labios dormidos." in html, name
        assert "ponzoña" not in html.lower(), name


# -- what each PJ carries ----------------------------------------------------------------


def test_the_end_of_session_sheets_keep_the_state_at_the_end(client, dj, table, aiko):
    client.force_login(dj)

    html = get(client, "session_sheets", 1).content.decode()

    assert "Hojas de fin de sesión" in html
    aiko_part = html.split(f'id="carry-{aiko.pk}"')[1].split("</article>")[0]
    assert "☒</span> Grave" in aiko_part  # Shock grave (R2), from session 1
    assert aiko_part.count("☒") == 2  # Shock and Afección: not session 2's wound
    assert "Ponzoña azul" in aiko_part and "(secreto)" in aiko_part


def test_a_player_sees_only_their_own_sheet_without_secrets(client, player, table, aiko):
    client.force_login(player)

    html = get(client, "session_sheets", 1).content.decode()

    assert "Aiko" in html and "Kenji" not in html
    assert "ponzoña" not in html.lower() and "Origen secreto" in html


def test_an_open_session_shows_the_state_so_far(client, dj, table):
    client.force_login(dj)

    html = get(client, "session_sheets", 2).content.decode()

    assert "Lo que lleva cada PJ (hasta ahora)" in html


def test_the_end_of_session_sheet_keeps_the_emocion_graves_cause(client, dj, table, aiko):
    client.force_login(dj)
    record(aiko, dj, kind="suffer", type="emocion", grade="grave", variant="terror", cause="el oni")

    html = get(client, "session_sheets", 2).content.decode()

    assert re.search(r'class="carry-cause">Causa: el oni<', html)


def test_the_cards_to_print_show_each_active_state(client, dj, player, table, aiko, kenji):
    client.force_login(dj)
    html = get(client, "character_cards", aiko.pk).content.decode()
    assert 'class="paper-card grade-grave"' in html and "Shock Grave" in html

    client.force_login(player)
    assert get(client, "character_cards", kenji.pk).status_code == 404
    assert "ponzoña" not in get(client, "character_cards", aiko.pk).content.decode().lower()


# -- exports ----------------------------------------------------------------------------


def test_the_session_log_as_markdown(client, dj, table):
    client.force_login(dj)

    response = get(client, "session_log", 1, "md")

    text = response.content.decode()
    assert response["Content-Disposition"] == 'attachment; filename="zodiac-kiso-sesion-1.md"'
    assert text.startswith("# Kiso · Sesión 1: El paso")
    assert "| # | Registrado | Tiempo de juego |" in text or "| # | Registrado |" in text
    assert "~~Heridas Leve~~" in text and "era Aiko" in text
    assert "La cueva" not in text  # session 2 is another file
    assert "<script>" not in text and "&lt;script>x&lt;/script>" in text  # text, as on the pages


def test_the_session_log_as_csv_for_a_player_has_no_secrets(client, player, table):
    client.force_login(player)

    response = get(client, "session_log", 1, "csv")

    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][0] == "#" and len(rows) > 2
    assert all(
        "Kenji" not in cell and "ponzoña" not in cell.lower() for row in rows for cell in row
    )
    assert get(client, "session_log", 1, "pdf").status_code == 404


def test_the_session_log_gives_the_time_the_pages_give(client, dj, table):
    # The pages show the wall time in TIME_ZONE (Europe/Madrid); the exports did in UTC.
    client.force_login(dj)
    event = StateEvent.objects.filter(session=table["one"]).order_by("seq").first()
    local = timezone.localtime(event.created_at).strftime("%Y-%m-%d %H:%M:%S")
    utc = event.created_at.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S")
    assert local != utc

    for fmt in ("csv", "md"):
        text = get(client, "session_log", 1, fmt).content.decode()
        assert local in text and utc not in text, fmt


def test_strangers_get_404(client, table):
    client.force_login(UserFactory(username="nadie"))

    for name, args in (
        ("history", []),
        ("session_detail", [1]),
        ("session_sheets", [1]),
        ("session_log", [1, "md"]),
        ("event_detail", [1]),
    ):
        assert get(client, name, *args).status_code == 404, name


def test_the_csv_log_keeps_typed_text_from_running_as_a_formula(client, dj, campaign):
    session = services.session_start(campaign=campaign)
    odd = CharacterFactory(campaign=campaign, name="=SUM(1+1)")
    record(odd, dj, kind="suffer", type="heridas", grade="leve")
    client.force_login(dj)

    response = get(client, "session_log", session.number, "csv")

    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[-1][6] == "'=SUM(1+1)"
    assert all(not cell.startswith("=") for row in rows for cell in row)


def test_past_the_end_the_trail_offers_a_way_back(client, dj, table):
    client.force_login(dj)

    html = get(client, "history", desde="99999").content.decode()

    assert "No hay eventos que mostrar." in html
    assert 'href="/c/kiso/historia/?final=1"' in html


def test_the_djs_session_log_marks_what_the_players_do_not_see(client, dj, player, table):
    # The table's ponzoña azul was made secret after Aiko suffered it.
    client.force_login(dj)

    markdown = get(client, "session_log", 1, "md").content.decode()
    rows = list(csv.reader(io.StringIO(get(client, "session_log", 1, "csv").content.decode())))

    assert rows[0][-1] == "Secreto"
    poison = next(row for row in rows if "ponzoña azul" in " ".join(row).lower())
    assert poison[-1] == "secreto"
    assert all(row[-1] == "" for row in rows[1:] if "ponzoña" not in " ".join(row).lower())
    line = next(line for line in markdown.splitlines() if "ponzoña azul" in line.lower())
    assert line.rstrip().endswith("| secreto |")
    client.force_login(player)
    player_rows = list(
        csv.reader(io.StringIO(get(client, "session_log", 1, "csv").content.decode()))
    )
    assert "Secreto" not in player_rows[0]


def test_a_toast_does_not_repeat_an_action_its_trail_only_restates(campaign, aiko, dj):
    from campaign.present.events import event_summary

    given = record(aiko, dj, kind="special", name="derribado", on=True)

    toast = event_summary(given)

    assert toast["lines"] == [] and toast["text"] == "Aiko: Gana Derribado"


def test_times_read_as_people_say_them(campaign, aiko, dj):
    from campaign.present.events import event_label

    assert event_label({"kind": "time", "minutes": 960}) == "+16 h"
    assert event_label({"kind": "sleep", "hours": 4200 / 3600}) == "Se duerme durante 1 h y 10 min"


def test_the_history_lists_the_ten_newest_sessions_and_pages_back(client, campaign, dj):
    for n in range(12):
        session = services.session_start(campaign=campaign, title=f"Paso {n + 1}")
        services.session_end(session=session)
    client.force_login(dj)
    url = reverse("history", args=[campaign.slug])

    newest = client.get(url).content.decode()
    older = client.get(url, {"antes": "3"}).content.decode()
    none = client.get(url, {"antes": "1"}).content.decode()

    assert "Paso 12" in newest and "Paso 3" in newest and "Paso 2<" not in newest
    assert 'href="?antes=3"' in newest
    assert "Paso 2" in older and "Paso 1" in older and "Paso 3" not in older
    assert 'href="?antes=' not in older and "Últimas sesiones" in older
    assert "No hay sesiones anteriores" in none
    filtered = client.get(url, {"pj": "1", "tipo": "shock"}).content.decode()
    assert 'href="?antes=3&amp;' in filtered and "tipo=shock" in filtered.split("?antes=3")[1]
