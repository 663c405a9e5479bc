"""Who reaches what: every URL of the URLconf, for every role, with GET and POST.

The cases come from walking the URLconf, so a new URL is a new case at once, and it fails
until ACCESS below says who may reach it. Two campaigns, A and B, each with a DJ and
players; every URL is built for campaign A's objects and asked for by:

- anonymous: nobody logged in;
- player: A's player of the PJ "own" (A's PJ "other" is played by someone else);
- other_player: a player of campaign B;
- other_dj: the DJ of campaign B;
- dj: campaign A's DJ.

Whoever may not see a campaign's object gets 404, never 403 (campaign.access). A 405 for a
method the view never takes says nothing about the object, so it passes where the
campaign's own DJ gets 405 for that method too. Nobody gets a 5xx: the test client raises
the view's exception.
"""

import asyncio
import json
from dataclasses import dataclass
from enum import StrEnum

import pytest
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import resolve_url
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse

from campaign import services
from campaign.models import (
    Campaign,
    CatalogueEntry,
    Character,
    GameSession,
    Invitation,
    Reminder,
    StateEvent,
    Template,
)
from tests.factories import CampaignFactory, CatalogueEntryFactory, CharacterFactory, UserFactory

MD5 = "django.contrib.auth.hashers.MD5PasswordHasher"


class Access(StrEnum):
    PUBLIC = "public"  # anyone: never a 5xx, never a 403 or 404
    LOGGED_IN = "logged-in"  # any logged-in user; anonymous visitors go to the login page
    DJ = "dj-only"  # the campaign's DJ; 404 for everyone else
    MEMBERS = "members"  # the campaign's DJ and players; 404 for everyone else
    PJ = "pj"  # about one PJ: its own player and the campaign's DJ; 404 for everyone else


# Every named URL and who may reach it. A URL missing here fails test_every_url_is_in_the_table.
ACCESS = {
    # Accounts, the rules, joining, the app's service worker, the language switch
    "login": Access.PUBLIC,
    "logout": Access.PUBLIC,
    "rules": Access.PUBLIC,
    "guide": Access.PUBLIC,
    "health": Access.PUBLIC,
    "join_code": Access.PUBLIC,
    "join": Access.PUBLIC,
    "service_worker": Access.PUBLIC,
    "set_language": Access.PUBLIC,
    "home": Access.LOGGED_IN,
    "campaign_new": Access.LOGGED_IN,
    "password_change": Access.LOGGED_IN,
    "password_change_done": Access.LOGGED_IN,
    "signup": Access.PUBLIC,
    "password_reset_confirm": Access.PUBLIC,  # a link that is no good says so
    "password_reset_complete": Access.PUBLIC,
    # The DJ's table
    "board": Access.DJ,
    "board_refresh": Access.DJ,
    "card": Access.DJ,
    "act": Access.DJ,
    "secret": Access.DJ,
    "catch_up": Access.DJ,
    "password_link": Access.DJ,
    "ask": Access.DJ,
    "next_round": Access.DJ,
    "party_time": Access.DJ,
    "party_descanso": Access.DJ,
    "undo": Access.DJ,
    "void": Access.DJ,
    "event_void": Access.DJ,
    "fight_setup": Access.DJ,
    "fight_pass": Access.DJ,
    "fight_end": Access.DJ,
    "fight_out": Access.DJ,
    "pnj_add": Access.DJ,
    "area_blow": Access.DJ,
    "reminder_add": Access.DJ,
    "reminder_delete": Access.DJ,
    "calculator": Access.DJ,
    # Setting a campaign up
    "campaign_settings": Access.DJ,
    "character_list": Access.DJ,
    "character_new": Access.DJ,
    "character_edit": Access.DJ,
    "character_archive": Access.DJ,
    "character_restore": Access.DJ,
    "pnj_list": Access.DJ,
    "pnj_new": Access.DJ,
    "pnj_edit": Access.DJ,
    "pnj_reveal": Access.DJ,
    "pnj_archive": Access.DJ,
    "pnj_restore": Access.DJ,
    "template_new": Access.DJ,
    "template_edit": Access.DJ,
    "template_copies": Access.DJ,
    "template_delete": Access.DJ,
    "catalogue": Access.DJ,
    "catalogue_edit": Access.DJ,
    "catalogue_delete": Access.DJ,
    "session_start": Access.DJ,
    "session_end": Access.DJ,
    # Players: the DJ's side
    "players": Access.DJ,
    "invite": Access.DJ,
    "invitation_cancel": Access.DJ,
    "player_remove": Access.DJ,
    # The live channel
    "live_stream": Access.MEMBERS,
    "live_changes": Access.MEMBERS,
    # A player's sheet
    "sheet": Access.PJ,
    "sheet_refresh": Access.PJ,
    "sheet_roll": Access.PJ,
    # Session history (a player reads their own PJ's part of it)
    "history": Access.MEMBERS,
    "session_detail": Access.MEMBERS,
    "session_recap": Access.DJ,
    "session_note": Access.DJ,
    "session_sheets": Access.MEMBERS,
    "session_log": Access.MEMBERS,
    "session_timeline_svg": Access.MEMBERS,
    "event_detail": Access.PJ,
    "character_cards": Access.PJ,
    # Backups: the DJ downloads a campaign; anyone logged in imports one as a new campaign
    "campaign_export": Access.DJ,
    "campaign_import": Access.LOGGED_IN,
}

# Which of campaign A's objects fills a URL's <pk> (or an event's <seq>). Unless named here,
# the PJ "other" (or its event): one that A's player does not play, so only the DJ may reach
# it. What is about one PJ is tried on the player's own PJ too; restoring needs an archived PJ
# (the DJ would get 404 on any other).
TARGETS = {
    "catalogue_edit": ("entry",),
    "catalogue_delete": ("entry",),
    "invitation_cancel": ("invitation",),
    "character_restore": ("archived",),
    "pnj_edit": ("pnj",),
    "pnj_reveal": ("pnj",),
    "pnj_archive": ("pnj",),
    "pnj_restore": ("archived_pnj",),
    "template_edit": ("template",),
    "template_copies": ("template",),
    "template_delete": ("template",),
    "reminder_delete": ("reminder",),
    "sheet": ("own", "other"),
    "sheet_refresh": ("own", "other"),
    "sheet_roll": ("own", "other"),
    "event_detail": ("own", "other"),
    "character_cards": ("own", "other"),
}
DEFAULT_TARGETS = ("other",)
OBJECT_ARGUMENTS = ("pk", "seq")  # the arguments a target fills
OTHER_ARGUMENTS = (
    "slug",
    "kind",
    "token",
    "number",
    "fmt",
    "uidb64",
)  # filled the same for everyone

# A query string that makes the request a meaningful one for those who may make it.
# "{campaign}" is campaign A's id: the live channel names its campaigns in the query.
QUERIES = {"live_changes": "?since={campaign}:0", "live_stream": "?since={campaign}:0"}

# Read on a real event loop and with committed data: the stream looks its viewer up on the
# live hub's own thread and database connection (campaign.live.Hub.query).
STREAMS = {"live_stream"}

ROLES = ("anonymous", "player", "other_player", "other_dj", "dj")
METHODS = ("GET", "POST")

# Who gets through, per access class (and PJ, for the sheets); anonymous visitors never do.
GRANTED = {
    Access.LOGGED_IN: {"player", "other_player", "other_dj", "dj"},
    Access.DJ: {"dj"},
    Access.MEMBERS: {"player", "dj"},
}
PJ_GRANTED = {"own": {"player", "dj"}, "other": {"dj"}}


# -- the URLconf --------------------------------------------------------------------------


def url_patterns() -> list[tuple[str | None, tuple[str, ...]]]:
    """Every URL pattern, include()s followed, as (name, its keyword arguments).

    The admin site's own patterns are left out
    (test_the_admin_shows_anyone_but_staff_the_apps_own_not_found_page).
    """
    found = []

    def walk(patterns, outer: tuple[str, ...]) -> None:
        for entry in patterns:
            arguments = (*outer, *entry.pattern.regex.groupindex)
            if isinstance(entry, URLResolver):
                if entry.namespace != "admin":
                    walk(entry.url_patterns, arguments)
            elif isinstance(entry, URLPattern):
                found.append((entry.name, arguments))

    walk(get_resolver().url_patterns, ())
    return found


URLS = url_patterns()
URL_ARGUMENTS = {name: arguments for name, arguments in URLS if name is not None}


def targets(name: str) -> tuple[str, ...]:
    if not set(OBJECT_ARGUMENTS) & set(URL_ARGUMENTS[name]):
        return ("",)
    return TARGETS.get(name, DEFAULT_TARGETS)


def cases(*, streams: bool):
    for name in URL_ARGUMENTS:
        if (name in STREAMS) != streams:
            continue
        for target in targets(name):
            for role in ROLES:
                for method in METHODS:
                    label = "-".join(part for part in (name, target, role, method) if part)
                    yield pytest.param(name, target, role, method, id=label)


CASES = list(cases(streams=False))
STREAM_CASES = list(cases(streams=True))


def test_every_url_is_in_the_table():
    names = [name for name, _arguments in URLS]
    unnamed = [arguments for name, arguments in URLS if name is None]
    twice = sorted({name for name in names if name is not None and names.count(name) > 1})
    missing = sorted(set(URL_ARGUMENTS) - set(ACCESS))
    gone = sorted(set(ACCESS) - set(URL_ARGUMENTS))
    with_object = {
        name for name, arguments in URL_ARGUMENTS.items() if set(OBJECT_ARGUMENTS) & set(arguments)
    }
    stale_targets = sorted(set(TARGETS) - with_object)
    unknown = sorted(
        {argument for arguments in URL_ARGUMENTS.values() for argument in arguments}
        - {*OBJECT_ARGUMENTS, *OTHER_ARGUMENTS}
    )

    assert not missing, f"URL names missing from ACCESS: {missing}"
    assert not gone, f"ACCESS names no URL any more: {gone}"
    assert not unnamed, f"URL patterns without a name (so outside this test): {unnamed}"
    assert not twice, f"URL names used twice: {twice}"
    assert not stale_targets, f"TARGETS names URLs without a <pk> or <seq>: {stale_targets}"
    assert not unknown, f"URL arguments this test cannot fill yet: {unknown}"
    assert not set(QUERIES) - set(URL_ARGUMENTS) and not STREAMS - set(URL_ARGUMENTS)


def test_the_matrix_covers_every_url_role_and_method():
    every = CASES + STREAM_CASES
    assert len(every) == sum(len(targets(name)) for name in URL_ARGUMENTS) * 5 * 2
    assert {case.values[0] for case in every} == set(ACCESS)


# -- the world ----------------------------------------------------------------------------


@dataclass
class World:
    campaign: Campaign  # A: every URL is built for its objects
    other_campaign: Campaign  # B
    users: dict[str, AbstractBaseUser | None]  # by role
    own: Character  # A's PJ played by A's player
    other: Character  # A's PJ played by someone else
    archived: Character  # A's archived PJ
    pnj: Character  # A's PNJ in play, made from `template`
    archived_pnj: Character  # A's archived PNJ
    template: Template  # a Plantilla of A's
    reminder: Reminder  # a note A's DJ pinned to a turn of the PJ "own"
    entry: CatalogueEntry  # in A's catalogue
    invitation: Invitation  # pending, for A's PJ without a player
    session: GameSession  # A's open game session
    own_event: StateEvent  # on the PJ "own", in that session
    other_event: StateEvent  # on the PJ "other", in that session

    def url(self, name: str, target: str = "") -> str:
        objects = {
            "own": self.own,
            "other": self.other,
            "archived": self.archived,
            "pnj": self.pnj,
            "archived_pnj": self.archived_pnj,
            "template": self.template,
            "reminder": self.reminder,
            "entry": self.entry,
            "invitation": self.invitation,
        }
        events = {"own": self.own_event, "other": self.other_event}
        values = {
            "slug": self.campaign.slug,
            "kind": "more",  # campaign.views.board.ASK_KINDS
            "token": self.invitation.token,
            "number": self.session.number,
            "fmt": "md",
            "uidb64": "MQ",
            "pk": objects[target].pk if target in objects else None,
            "seq": events[target].seq if target in events else None,
        }
        kwargs = {argument: values[argument] for argument in URL_ARGUMENTS[name]}
        return reverse(name, kwargs=kwargs) + QUERIES.get(name, "").format(
            campaign=self.campaign.pk
        )

    def client(self, role: str, **options) -> Client:
        client = Client(**options)
        if self.users[role] is not None:
            client.force_login(self.users[role])
        return client


def join(character: Character, user: AbstractBaseUser, dj: AbstractBaseUser) -> None:
    invitation = services.invitation_create(character=character, by=dj)
    services.invitation_accept(invitation=invitation, user=user)


def build_world() -> World:
    dj = UserFactory(username="dj-a")
    player = UserFactory(username="jugador-a")
    teammate = UserFactory(username="jugador-a2")
    other_dj = UserFactory(username="dj-b")
    other_player = UserFactory(username="jugador-b")

    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    own = CharacterFactory(campaign=campaign, name="Tsubaki")
    other = CharacterFactory(campaign=campaign, name="Hayato")
    free = CharacterFactory(campaign=campaign, name="Ren")
    archived = CharacterFactory(campaign=campaign, name="Sora")
    join(own, player, dj)
    join(other, teammate, dj)
    services.character_archive(character=archived)
    template = services.template_save(campaign=campaign, name="Bandido", attributes={"FUE": 3})
    pnj = services.pnj_create(campaign=campaign, template=template)[0]
    archived_pnj = services.pnj_create(campaign=campaign, name="Espía", side="aliado")[0]
    services.character_archive(character=archived_pnj)
    invitation = services.invitation_create(character=free, by=dj)
    reminder = services.reminder_add(
        campaign=campaign, text="el veneno actúa", when="end", character=own
    )
    entry = CatalogueEntryFactory(campaign=campaign, name="veneno de prueba")
    session = services.session_start(campaign=campaign, title="La emboscada")
    wound = {"kind": "suffer", "type": "heridas", "grade": "leve"}
    own_event = services.event_record(campaign=campaign, character=own, event=wound)
    other_event = services.event_record(campaign=campaign, character=other, event=wound)

    other_campaign = CampaignFactory(name="Otra", slug="otra", dj=other_dj)
    join(CharacterFactory(campaign=other_campaign, name="Mikoto"), other_player, other_dj)

    users = {"player": player, "other_player": other_player, "other_dj": other_dj, "dj": dj}
    return World(
        campaign=campaign,
        other_campaign=other_campaign,
        users={"anonymous": None, **users},
        own=own,
        other=other,
        archived=archived,
        pnj=pnj,
        archived_pnj=archived_pnj,
        template=template,
        reminder=reminder,
        entry=entry,
        invitation=invitation,
        session=session,
        own_event=own_event,
        other_event=other_event,
    )


def reload(world: World) -> World:
    """The world's objects read afresh: what one test changes in memory, the next never sees."""
    fresh = {
        field: type(value).objects.get(pk=value.pk)
        for field, value in vars(world).items()
        if field != "users"
    }
    users = {
        role: user if user is None else type(user).objects.get(pk=user.pk)
        for role, user in world.users.items()
    }
    return World(**fresh, users=users)


@pytest.fixture(scope="class")
def built_world(django_db_setup, django_db_blocker):
    """The world, built once for a class of tests in a transaction of its own.

    Each test's transaction (pytest-django's `db`) nests in it as a savepoint, so a test's
    writes go with it; the class's transaction is rolled back after its last test. A class,
    not the module: pytest-django runs the transactional tests after all others, and this
    transaction must be over by then.
    """
    # conftest's fast_password_hashing is per test: this runs before it.
    md5 = override_settings(PASSWORD_HASHERS=[MD5])
    with django_db_blocker.unblock(), md5:
        outer = transaction.atomic()
        outer.__enter__()
        try:
            world = build_world()
        except BaseException:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            raise
    yield world
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        outer.__exit__(None, None, None)


@pytest.fixture
def world(built_world, db) -> World:
    cache.clear()  # wrong invitation codes are counted there
    yield reload(built_world)
    cache.clear()


@pytest.fixture
def committed_world(transactional_db) -> World:
    """A world of its own, committed: for what reads it on another thread's connection."""
    cache.clear()
    yield build_world()
    cache.clear()


# -- asking ---------------------------------------------------------------------------------


def first_chunk(response: HttpResponse) -> bytes:
    """The first chunk of a streaming answer, then the stream closed (an SSE stream never
    ends: reading on would hang the test)."""
    if not response.is_async:
        # Its generator closes (and with it the response) as soon as nothing refers to it.
        return next(iter(response.streaming_content), b"")

    async def read() -> bytes:
        chunks = aiter(response.streaming_content)
        try:
            # A safety net: a stream that never says anything fails, it does not hang.
            return await asyncio.wait_for(anext(chunks, b""), timeout=30)
        finally:
            await chunks.aclose()

    return asyncio.run(read())


@dataclass
class Answer:
    status: int
    location: str = ""
    content_type: str = ""
    first: bytes = b""


def ask(world: World, role: str, method: str, url: str) -> Answer:
    response = getattr(world.client(role), method.lower())(url)
    answer = Answer(
        status=response.status_code,
        location=response.get("Location", ""),
        content_type=response.get("Content-Type", ""),
    )
    if response.streaming:
        # Closing what the test client wraps the stream in closes the response too.
        answer.first = first_chunk(response)
    elif answer.content_type == "text/event-stream":
        answer.first = response.content  # not served by ASGI: the stream says to poll
    return answer


def to_login(answer: Answer) -> bool:
    return answer.status == 302 and answer.location.startswith(
        resolve_url(settings.LOGIN_URL) + "?next="
    )


# -- the matrix -----------------------------------------------------------------------------


def check_access(world: World, name: str, target: str, role: str, method: str) -> None:
    access = ACCESS.get(name)
    assert access is not None, f"{name} is not in ACCESS: say who may reach it"
    url = world.url(name, target)

    answer = ask(world, role, method, url)

    status = answer.status
    assert status < 500
    assert status != 403, "refused with 403: what a user may not see answers 404"
    if access is Access.PUBLIC:
        assert status != 404
        return
    if status == 405:
        # The method is refused before anything is looked up: fine, when it is for anyone.
        if role != "dj":
            assert ask(world, "dj", method, url).status == 405, (
                f"{role} got 405 where the campaign's DJ does not"
            )
        return
    granted = PJ_GRANTED[target] if access is Access.PJ else GRANTED[access]
    if role == "anonymous":
        if access in (Access.DJ, Access.MEMBERS):
            assert status == 404 or to_login(answer), status
        else:
            assert to_login(answer), status
    elif role in granted:
        assert status != 404
        if access is Access.LOGGED_IN:
            assert status in (200, 302)
        if name in STREAMS:
            assert status == 200
            assert answer.content_type == "text/event-stream"
            assert answer.first.startswith(b"retry: ")
    else:
        assert status == 404, f"{role} got {status} where 404 is expected"


# -- what a player's live view carries ------------------------------------------------------


def with_secrets(world: World) -> None:
    """Events on both of A's PJ played, and a name the DJ keeps secret on each."""
    campaign = world.campaign
    for character in (world.other, world.own):
        services.event_record(
            campaign=campaign,
            character=character,
            event={"kind": "suffer", "type": "shock", "grade": "leve"},
        )
    services.event_record(
        campaign=campaign,
        character=world.own,
        event={"kind": "suffer", "type": "afeccion", "grade": "leve", "source": "ponzoña azul"},
    )
    services.character_secrets_set(character=world.own, add=["ponzoña azul"], remove=())
    services.event_record(
        campaign=campaign,
        character=world.other,
        event={"kind": "special", "name": "marcado", "on": True},
    )
    services.character_secrets_set(character=world.other, add=["marcado"], remove=())


def sheet_pages(world: World, client: Client) -> dict[str, str]:
    sheet = client.get(world.url("sheet", "own"))
    refresh = client.get(world.url("sheet_refresh", "own") + "?all=1")
    assert sheet.status_code == refresh.status_code == 200
    return {"sheet": sheet.content.decode(), "refresh": refresh.content.decode()}


# -- the tests on one shared world ----------------------------------------------------------


class TestOnOneWorld:
    """The matrix and the checks around it, on one world (built_world) for speed."""

    @pytest.mark.parametrize(("name", "target", "role", "method"), CASES)
    def test_access(self, world, name, target, role, method):
        check_access(world, name, target, role, method)

    @pytest.mark.parametrize("role", ["anonymous", "player", "dj"])
    @pytest.mark.parametrize(
        "path",
        [
            "/admin/",
            "/admin/login/?next=/admin/",
            "/admin/campaign/campaign/",
            "/admin/auth/user/1/change/",
            "/admin/jsi18n/",
            "/admin/no-existe/",
        ],
    )
    def test_the_admin_shows_anyone_but_staff_the_apps_own_not_found_page(self, world, role, path):
        response = world.client(role).get(path)

        assert response.status_code == 404
        page = response.content.decode()
        assert "Página no encontrada" in page and "Volver a tus campañas" in page
        assert "administración de django" not in page.lower() and 'name="password"' not in page
        # Posting to its login says no more: no form to try passwords on.
        assert world.client(role).post("/admin/login/", {"username": "x"}).status_code == 404

    def test_the_servers_staff_still_reach_the_admin(self, world):
        staff = UserFactory(username="operadora", is_staff=True, is_superuser=True)
        client = Client()
        client.force_login(staff)

        assert client.get("/admin/").status_code == 200
        assert client.get(reverse("admin:campaign_campaign_changelist")).status_code == 200
        # Logged in on the app's own page, the admin's login page sends them in.
        assert client.get("/admin/login/").status_code == 302

    def test_a_staff_account_that_was_switched_off_meets_the_not_found_page(self, world):
        staff = UserFactory(username="antigua", is_staff=True, is_superuser=True)
        client = Client()
        client.force_login(staff)
        staff.is_staff = False
        staff.save(update_fields=["is_staff"])

        assert client.get("/admin/").status_code == 404

    @pytest.mark.parametrize(
        ("name", "target", "role", "form_page"),
        [
            ("act", "other", "dj", "board"),
            ("party_time", "", "dj", "board"),
            ("sheet_roll", "own", "player", "sheet"),
        ],
    )
    def test_a_post_without_the_csrf_token_is_refused(self, world, name, target, role, form_page):
        client = world.client(role, enforce_csrf_checks=True)
        url = world.url(name, target)

        refused = client.post(url, {"action": "safe", "check": "x"})

        assert refused.status_code == 403
        # The same post with the token that the page gave passes the check.
        client.get(world.url(form_page, "own" if form_page == "sheet" else ""))
        token = client.cookies["csrftoken"].value
        accepted = client.post(
            url, {"action": "safe", "check": "x"}, headers={"X-CSRFToken": token}
        )
        assert accepted.status_code not in (403, 404)

    @pytest.mark.parametrize(
        ("name", "target"),
        [
            *[(n, "other") for n in ("pnj_edit", "pnj_archive")],
            ("pnj_restore", "archived"),
            *[(n, "pnj") for n in ("character_edit", "character_archive", "invite")],
            *[(n, "pnj") for n in ("player_remove", "password_link")],
            ("character_restore", "archived_pnj"),
        ],
    )
    def test_a_pnjs_address_opens_no_pj_nor_a_pjs_a_pnj(self, world, name, target):
        """The DJ's own PJ and PNJ, each through the other kind's URL: 404, nothing done."""
        url = world.url(name, target)
        before = Character.objects.order_by("pk").values_list("pk", "archived_at", "player_id")

        statuses = {method: ask(world, "dj", method, url).status for method in METHODS}

        assert 404 in statuses.values() and set(statuses.values()) <= {404, 405}, statuses
        after = Character.objects.order_by("pk").values_list("pk", "archived_at", "player_id")
        assert list(after) == list(before)
        assert not Invitation.objects.filter(character__kind=Character.Kind.PNJ).exists()

    @pytest.mark.parametrize("role", ["player", "dj"])
    def test_a_twenty_digit_number_in_a_url_is_404(self, world, role):
        """Beyond any integer column (PostgreSQL's is 2^31 - 1): never a DataError, a 500."""
        huge = "9" * 20
        numbered = [
            name
            for name, arguments in URL_ARGUMENTS.items()
            if {"pk", "seq", "number"} & set(arguments)
        ]
        assert {"event_detail", "session_detail", "sheet", "card"} <= set(numbered)
        client = world.client(role)
        for name in numbered:
            url = world.url(name, TARGETS.get(name, DEFAULT_TARGETS)[0])
            kwargs = {
                argument: huge if argument in ("pk", "seq", "number") else value
                for argument, value in resolve(url.split("?")[0]).kwargs.items()
            }
            for method in METHODS:
                response = getattr(client, method.lower())(reverse(name, kwargs=kwargs))
                assert response.status_code in (404, 405), (name, method)

    def test_a_players_live_view_carries_no_other_pj_and_no_secret(self, world):
        with_secrets(world)
        board = world.client("dj").get(world.url("board")).content.decode()
        assert (
            "ponzoña azul" in board.lower() and "Hayato" in board
        )  # the DJ sees what is kept back
        client = world.client("player")

        changes = client.get(world.url("live_changes"))

        assert changes.status_code == 200
        assert [batch["pj"] for batch in json.loads(changes.content)["changes"]] == [[world.own.pk]]
        for page, html in sheet_pages(world, client).items():
            assert f'id="pj-{world.own.pk}"' in html and "Tsubaki" in html, page
            assert f'id="pj-{world.other.pk}"' not in html and "Hayato" not in html, page
            assert "ponzoña" not in html.lower() and "marcado" not in html.lower(), page

    def test_a_players_history_carries_no_other_pj_and_no_secret(self, world):
        with_secrets(world)
        client = world.client("player")
        pages = [
            world.url(name, target)
            for name, target in (
                ("history", ""),
                ("session_detail", ""),
                ("session_sheets", ""),
                ("session_log", ""),
                ("session_timeline_svg", ""),
                ("event_detail", "own"),
                ("character_cards", "own"),
            )
        ]

        for url in pages:
            response = client.get(url)
            text = response.content.decode()
            assert response.status_code == 200, url
            assert "Tsubaki" in text and "Hayato" not in text, url
            assert "ponzoña" not in text.lower() and "marcado" not in text.lower(), url
        dj_view = world.client("dj").get(world.url("history")).content.decode()
        assert "Hayato" in dj_view and "ponzoña azul" in dj_view.lower()

    def test_with_the_party_option_the_other_pj_shows_but_no_secret(self, world):
        with_secrets(world)
        services.campaign_update(campaign=world.campaign, players_see_party=True)
        client = world.client("player")

        for page, html in sheet_pages(world, client).items():
            assert f'id="pj-{world.other.pk}"' in html and "Hayato" in html, page
            assert "ponzoña" not in html.lower() and "marcado" not in html.lower(), page


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("name", "target", "role", "method"), STREAM_CASES)
def test_stream_access(committed_world, name, target, role, method):
    """The stream looks its viewer up on the live hub's thread: the world must be committed."""
    check_access(committed_world, name, target, role, method)
