"""Hostile input at every POST endpoint (issue #17, item 4): whatever is posted, never a 500.

Each endpoint gets, from hypothesis: its form with fields missing, of the wrong type, huge
(100k characters) or in odd Unicode (NUL, lone surrogates sent as the bytes a careless
client would send, RTL marks, emoji, combining marks); the ids of another campaign's PJ,
invitations and catalogue entries; another user at the door (the other campaign's DJ, a
player, nobody logged in); a tap past its deadline; bodies the server cannot read; and
replayed idempotency keys (`key`). Every example must be answered without an exception or
a 500, with what the endpoint promises for a refusal (the board's fragments and the order
page: a 4xx; the setup forms re-shown with their errors: a 200, as their own tests say;
a redirect with a flash message where the endpoint answers so) and a message in Spanish in
the body, and with the database as it was: every row of every model of campaign.models and
of auth's User, compared before and after.

What is written by design on a refusal, and left out of that comparison: Django's sessions
(not counted at all: a login, the flash messages), django-axes' failed-login records (not
among the models counted), and WrongCode, the table that counts wrong join codes
(join_code only: counting them is the point).

The world (two campaigns, each with its DJ, PJ and a player) is built once per test; a
refusal writes nothing, so every example meets the same world.
"""

import gettext as gettext_module
import html
import json
import os
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.contrib.messages import constants as message_levels
from django.contrib.messages import get_messages
from django.core.signals import got_request_exception
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign import backup, selectors, services
from campaign.models import WrongCode
from campaign.turn_order import Slot
from tests.factories import (
    PASSWORD,
    CampaignFactory,
    CatalogueEntryFactory,
    CharacterFactory,
    UserFactory,
)

# Some 45 s on SQLite, a minute on PostgreSQL: left out of `make quick`, run by `make test`.
pytestmark = pytest.mark.slow

HX = {"HX-Request": "true"}
FORM = "application/x-www-form-urlencoded"
# Examples per endpoint; HOSTILE_EXAMPLES=200 for a longer hunt.
EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "25"))

HOSTILE = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)


# -- hostile values --------------------------------------------------------------------------

# Odd characters that are never whitespace (str.strip keeps them), never an ASCII letter or
# digit: one of them in a value makes it no choice, flag or number the app takes. Lone
# surrogates reach the server as the bytes of WTF-8 (a form encoder that lets them through)
# and come out as U+FFFD.
EVIL = [
    "\x00",
    "\x7f",
    "\x1b",
    "\u202e",  # right-to-left override
    "\u200f",  # right-to-left mark
    "\u200d",  # zero-width joiner
    "\ufeff",  # byte order mark
    "\u0301",  # combining acute accent
    "😀",
    "👩\u200d👩\u200d👧",
    "\ud800",
    "\udfff",
    "½",
    "²",
    "\ufffd",
    "ß",
    "İ",
    "؟",
]
# Digits that are not ASCII: whole() and decimal() refuse them; Python's int() (and so a
# Django IntegerField) takes them, so they are not in EVIL.
ODD_DIGITS = ["٣", "１", "९"]

any_char = st.one_of(st.characters(exclude_categories=()), st.sampled_from(EVIL + ODD_DIGITS))
odd_text = st.lists(any_char, max_size=20).map("".join)
# A value no choice, flag or number of the app accepts.
bad = st.builds(lambda a, e, b: a + e + b, odd_text, st.sampled_from(EVIL), odd_text)
# Numbers the app refuses: not plain ASCII digits, or out of every range it takes.
bad_number = st.one_of(
    bad,
    st.sampled_from(
        ["-1", "-0.5", "−3", "0", "0,0", "1e3", "1E9", "inf", "-inf", "nan", "NaN", "0x10"]
        + ["1_000", "1 000", "9" * 19, "9" * 4301, "1.5.5", "1,,5", ".5", "5.", "+5"]
        + ["٣", "１２", "12" + "\u0301", "1e309", "[]", "{}", "null", "true"]
    ),
)
# Huge values: a length no field takes (one character over a few times, or 100k).
huge_char = st.sampled_from(["x", "9", "😀", "\u0301", "a\u0301", "\u202e", "ñ", "字"])


def huge(over: int) -> st.SearchStrategy[str]:
    """Text longer than `over` characters that whitespace tidying cannot shorten."""
    return st.builds(
        lambda c, n: c * n, huge_char, st.sampled_from([over + 1, over * 3 + 7, 100_000])
    )


# Wrong types in a form: what a script that meant JSON might send.
wrong_type = st.sampled_from(["[]", "{}", '{"a": 1}', "null", "true", "false", "1e309", "NaN"])


def missing_or(*strategies) -> st.SearchStrategy:
    """A field's value, or None for a field left out."""
    return st.one_of(st.none(), *strategies)


def repeated(strategy) -> st.SearchStrategy:
    """The field sent several times (its last value is the one the view reads)."""
    return st.builds(lambda xs, last: [*xs, last], st.lists(odd_text, max_size=3), strategy)


def field_of(strategy) -> st.SearchStrategy:
    """A bad field: the value, or it repeated."""
    return st.one_of(strategy, repeated(strategy))


def encode(form: dict) -> bytes:
    """The form as a browser sends it, urlencoded; lone surrogates as their bytes."""
    pairs = []
    for name, value in form.items():
        if value is None:
            continue
        for one in value if isinstance(value, list) else [value]:
            pairs.append((name, one))
    return urllib.parse.urlencode(pairs, encoding="utf-8", errors="surrogatepass").encode()


BOUNDARY = "hostile-boundary-7f3a"


def encode_multipart(form: dict, files: dict) -> bytes:
    """A multipart body (a file upload) with the fields' lone surrogates as their bytes."""
    lines = []
    for name, value in form.items():
        for one in [] if value is None else value if isinstance(value, list) else [value]:
            lines += [
                f"--{BOUNDARY}".encode(),
                f'Content-Disposition: form-data; name="{name}"'.encode(),
                b"",
                one.encode("utf-8", "surrogatepass"),
            ]
    for name, (filename, data) in files.items():
        lines += [
            f"--{BOUNDARY}".encode(),
            f'Content-Disposition: form-data; name="{name}"; filename="{filename}"'.encode(),
            b"Content-Type: application/json",
            b"",
            data,
        ]
    return b"\r\n".join([*lines, f"--{BOUNDARY}--".encode(), b""])


# -- the world -----------------------------------------------------------------------------


class World:
    """Kiso (the DJ's campaign under test) and Otra (another DJ's), their users, PJ and ids."""

    def __init__(self, *, users: dict, a, b, pj: dict, ids: dict) -> None:
        self.users, self.a, self.b, self.pj, self.ids = users, a, b, pj, ids

    def __repr__(self) -> str:
        return "World(Kiso and Otra)"


def key_of(user, key: str) -> str:
    """The idempotency key a view stores for `key` posted by `user` (answers.idempotency_key)."""
    return f"{user.pk}:{key}"


def build_world(*, fight: bool | str) -> World:
    dj, mei = UserFactory(username="test-dj"), UserFactory(username="mei")
    dj_b, rin = UserFactory(username="otro-dj"), UserFactory(username="rin")
    nadie = UserFactory(username="nadie")
    a = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(
        campaign=a, name="Aiko", attributes={"FUE": 3, "AGI": 5, "DES": 4, "VOL": 3}
    )
    kenji = CharacterFactory(
        campaign=a,
        name="Kenji",
        attributes={"FUE": 5, "AGI": 3, "DES": 3, "VOL": 4},
        powers=["regeneracion"],
    )
    hana = CharacterFactory(campaign=a, name="Hana")
    services.character_archive(character=hana)
    # PNJ: two Plantillas, two copies of one, a PNJ by name, an archived ally.
    bandido = services.template_save(campaign=a, name="Bandido", attributes={"FUE": 3})
    services.template_save(campaign=a, name="Lobo")
    services.pnj_create(
        campaign=a, template=bandido, count=2, actor=dj, idempotency_key=key_of(dj, "copies-once")
    )
    ronin = services.pnj_create(
        campaign=a, name="Ronin", actor=dj, idempotency_key=key_of(dj, "pnj-once")
    )[0]
    espia = services.pnj_create(campaign=a, name="Espía", side="aliado", actor=dj)[0]
    services.character_archive(character=espia)
    used = services.invitation_create(character=aiko, by=dj)
    services.invitation_accept(invitation=used, user=mei)
    pending = services.invitation_create(character=kenji, by=dj)
    entry = CatalogueEntryFactory(campaign=a, name="veneno de prueba")
    services.session_start(campaign=a, title="Una")

    def record(who, event, actor=dj, key=""):
        return services.event_record(
            campaign=a,
            character=who,
            event=event,
            actor=actor,
            idempotency_key=key_of(actor, key) if key else "",
        )

    record(aiko, {"kind": "time", "hours": 2}, key="act-once")
    services.catch_up(
        character=kenji, how="activo", actor=dj, idempotency_key=key_of(dj, "catch-up-once")
    )
    record(aiko, {"kind": "time", "hours": 30})  # Kenji is behind the party again
    record(aiko, {"kind": "time", "minutes": 1}, actor=mei, key="roll-once")
    # A key a client made up with what looks like a tap's suffix (":r0", "Tirar todas"'s).
    record(aiko, {"kind": "time", "minutes": 1}, key="crafted:r0")
    services.party_event(
        campaign=a,
        event={"kind": "time", "minutes": 5},
        actor=dj,
        idempotency_key=key_of(dj, "party-once"),
    )
    services.party_event(
        campaign=a,
        event={"kind": "descanso"},
        watch=frozenset([aiko.pk]),
        actor=dj,
        idempotency_key=key_of(dj, "descanso-once"),
    )
    services.round_pass(campaign=a, actor=dj, idempotency_key=key_of(dj, "round-once"))
    voided = record(kenji, {"kind": "time", "minutes": 1})
    services.events_void(events=[voided], actor=dj, reason="prueba")

    b = CampaignFactory(name="Otra", slug="otra", dj=dj_b)
    sora = CharacterFactory(campaign=b, name="Sora")
    services.invitation_accept(
        invitation=services.invitation_create(character=sora, by=dj_b), user=rin
    )
    taro = CharacterFactory(campaign=b, name="Taro")
    pending_b = services.invitation_create(character=taro, by=dj_b)
    entry_b = CatalogueEntryFactory(campaign=b, name="veneno ajeno")
    ajeno = services.template_save(campaign=b, name="Ajeno")
    oni_b = services.pnj_create(campaign=b, name="Oni", actor=dj_b)[0]
    # The same key as one of Kiso's, in the other campaign: keys are per campaign.
    b_event = services.event_record(
        campaign=b,
        character=sora,
        event={"kind": "time", "minutes": 3},
        actor=dj_b,
        idempotency_key=key_of(dj, "act-once"),
    )

    note = services.reminder_add(campaign=a, text="refuerzos", when="round", round=2)
    note_b = services.reminder_add(campaign=b, text="ajeno", when="end", character=sora)

    world = World(
        users={"dj": dj, "mei": mei, "dj_b": dj_b, "rin": rin, "nadie": nadie},
        a=a,
        b=b,
        pj={"aiko": aiko, "kenji": kenji, "hana": hana, "sora": sora, "taro": taro}
        | {"ronin": ronin, "espia": espia, "oni_b": oni_b},
        ids={
            "used": used.pk,
            "pending": pending.pk,
            "pending_token": pending.token,
            "pending_code": pending.code,
            "pending_b": pending_b.pk,
            "pending_b_token": pending_b.token,
            "entry": entry.pk,
            "entry_b": entry_b.pk,
            "template": bandido.pk,
            "template_b": ajeno.pk,
            "voided": voided.seq,
            "b_seq": b_event.seq,
            "reminder": note.pk,
            "reminder_b": note_b.pk,
        },
    )
    if fight:
        services.fight_start(
            campaign=a,
            order=[Slot(pj=aiko.pk, init=12), Slot(pj=kenji.pk, init=8), Slot(npc=1, name="Oni")],
            actor=dj,
            idempotency_key=key_of(dj, "fight-once"),
        )
        services.fight_pass(campaign=a, actor=dj, idempotency_key=key_of(dj, "pass-once"))
        if fight == "ended":
            services.fight_end(campaign=a, actor=dj, idempotency_key=key_of(dj, "end-once"))
    world.ids["latest"] = selectors.latest_event(campaign=a).seq
    return world


# -- what the database holds ------------------------------------------------------------------


def counted_models(*, leave_out=()) -> list:
    models = [*apps.get_app_config("campaign").get_models(), get_user_model()]
    return [m for m in models if m not in leave_out]


def rows(models) -> dict:
    """Every row of `models`, each model's in pk order: what a request must leave alone."""
    return {m.__name__: list(m.objects.order_by("pk").values_list()) for m in models}


def assert_unchanged(before: dict, after: dict) -> None:
    counts = {name: len(r) for name, r in before.items()}
    assert {name: len(r) for name, r in after.items()} == counts, "rows were written"
    for name in before:
        assert after[name] == before[name], f"rows of {name} were changed"


# -- what the answer says --------------------------------------------------------------------

_ALERT = re.compile(r'<(\w+)\b[^>]*\brole="alert"[^>]*>(.*?)</\1>', re.S)
_ERROR = re.compile(r'<(p|div) class="(?:error|errornote)"[^>]*>(.*?)</\1>', re.S)
_FLASH = re.compile(r'<li class="message message-(?:error|warning|info)">(.*?)</li>', re.S)
_H1 = re.compile(r"<h1\b[^>]*>(.*?)</h1>", re.S)
_TAG = re.compile(r"<[^>]+>")


def text_of(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub(" ", fragment)).split())


def _english_leaks() -> list[str]:
    """Long literal pieces of the app's English messages that Spanish translates: one of
    them in an answer means a message was not translated."""
    mo = Path(__file__).resolve().parents[2] / "locale" / "es" / "LC_MESSAGES" / "django.mo"
    with mo.open("rb") as f:
        catalog = gettext_module.GNUTranslations(f)._catalog
    pieces = set()
    for msgid, msgstr in catalog.items():
        if not isinstance(msgid, str) or not msgid or msgid == msgstr:
            continue
        for piece in re.split(r"%\(\w+\)[sd]|%[sd]|\{\w+\}", msgid):
            piece = piece.strip()
            if len(piece) >= 16 and piece.lower() != str(msgstr).lower():
                pieces.add(piece)
    return sorted(pieces)


ENGLISH = _english_leaks()


def assert_spanish(message: str) -> None:
    assert re.search(r"\w", message), f"no words in {message!r}"
    for piece in ENGLISH:
        assert piece not in message, f"untranslated: {piece!r} in {message!r}"


def page_messages(response) -> list[str]:
    """The words an answer shows about what happened: its alerts, its flash messages, an
    error page's heading, or the whole answer when it is plain text (an htmx refusal)."""
    body = response.content.decode("utf-8", "replace")
    if "<" not in body:
        return [text_of(body)] if body.strip() else []
    # An htmx refusal's text may come first, with parts out of band after it (a late pass
    # brings the fight as it is now).
    lead = body.split("<", 1)[0]
    found = [text_of(lead)] if lead.strip() else []
    found += [text_of(m) for _tag, m in _ALERT.findall(body)]
    found += [text_of(m) for m in _FLASH.findall(body)]
    found += [text_of(m) for _tag, m in _ERROR.findall(body)]
    if response.status_code in (400, 403, 404, 405) or "error-page" in body:
        found += [text_of(m) for m in _H1.findall(body)]
    return [m for m in found if m]


def flashed(response, levels=(message_levels.ERROR, message_levels.WARNING)) -> list[str]:
    return [m.message for m in get_messages(response.wsgi_request) if m.level in levels]


# -- the contracts: what an endpoint promises for a refusal ----------------------------------


def shows_message(response, *, statuses) -> None:
    assert response.status_code in statuses, response.status_code
    said = page_messages(response)
    assert said, f"no message in the answer ({response.status_code})"
    for message in said:
        assert_spanish(message)


def card_refusal(response) -> None:
    """The board's card with the reason on it (htmx), with the cursor it reflects."""
    shows_message(response, statuses={400, 422})
    assert 'class="card-error"' in response.content.decode()
    assert "X-Change-Cursor" in response


def act_refusal(response) -> None:
    """A tap's reason on its card; Dar un E.Esp's form refused (its name missing or bad),
    next to the E.Esp's name field."""
    request = response.wsgi_request
    if request.POST.get("action") == "special" and response.has_header("HX-Retarget"):
        party_refusal([f"pj-{request.resolver_match.kwargs['pk']}-special-error"])(response)
    else:
        card_refusal(response)


def party_refusal(slots):
    """The reason alone, retargeted into the error line next to the control used."""

    def check(response) -> None:
        shows_message(response, statuses={404, 409, 422})
        assert response["HX-Retarget"] in {f"#{s}" for s in slots}

    return check


def kept_refusal(to: str, key: str):
    """Back to `to`, the reason and what was typed kept in the session (`key`) for the field
    they are about."""

    def check(response) -> None:
        assert response.status_code == 302, response.status_code
        assert response["Location"] == to
        kept = response.wsgi_request.session.pop(key, None)
        assert kept and kept["error"], "redirected without saying why"
        assert_spanish(kept["error"])

    return check


def flash_redirect(to: str):
    """The no-JavaScript path: back to `to` with the reason as a flash message."""

    def check(response) -> None:
        assert response.status_code == 302, response.status_code
        assert response["Location"] == to
        said = flashed(response)
        assert said, "redirected without saying why"
        for message in said:
            assert_spanish(message)

    return check


def form_again(response) -> None:
    """A setup form shown again with its errors (a 200, as tests/campaign/test_setup_views.py
    has it), its summary on top."""
    shows_message(response, statuses={200})
    assert 'class="error-summary"' in response.content.decode()


def status_with_message(*statuses):
    def check(response) -> None:
        shows_message(response, statuses=set(statuses))

    return check


def not_found(response) -> None:
    shows_message(response, statuses={404})


def to_login(response) -> None:
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login") + "?next=")


def too_late(response) -> None:
    shows_message(response, statuses={409})
    assert response["X-Zodiac-Refused"] == "late"


def either(*checks):
    """One of several promised answers (e.g. a wrong password, or the lockout once there
    were too many)."""

    def check(response) -> None:
        errors = []
        for one in checks:
            try:
                one(response)
                return
            except AssertionError as err:
                errors.append(str(err))
        raise AssertionError(" / ".join(errors))

    return check


# -- the requests ------------------------------------------------------------------------------


@dataclass
class Case:
    user: str | None  # a key of World.users, or None: nobody logged in
    path: str
    expect: object  # the contract: a function of the response
    form: dict | None = None
    body: bytes | None = None
    content_type: str = FORM
    headers: dict = field(default_factory=dict)
    files: dict | None = None
    prepare: object = None  # Client -> the path, for a request that needs a GET first
    why: str = ""

    def __repr__(self) -> str:  # hypothesis prints the case of a failing example
        form = {
            k: (v if len(str(v)) < 200 else f"<{len(str(v))} chars>")
            for k, v in (self.form or {}).items()
        }
        return f"Case({self.why}: {self.user} POST {self.path} {form} {self.headers})"


class Requests:
    """One client per user, and every exception a view raises (a 500 is also a failure)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.clients: dict = {}
        self.exceptions: list = []
        self.too_big = False  # the last body was larger than Django reads
        got_request_exception.connect(self._caught)

    def _caught(self, sender, request=None, **kwargs) -> None:
        import sys

        self.exceptions.append(sys.exc_info()[1])

    def close(self) -> None:
        got_request_exception.disconnect(self._caught)

    def client(self, user: str | None) -> Client:
        if user not in self.clients:
            client = Client(raise_request_exception=False)
            if user is not None:
                client.force_login(self.world.users[user])
            self.clients[user] = client
        return self.clients[user]

    def post(self, case: Case):
        client = self.client(case.user)
        if case.files is not None:
            body = encode_multipart(case.form or {}, case.files)
            content_type = f"multipart/form-data; boundary={BOUNDARY}"
        else:
            body = case.body if case.body is not None else encode(case.form or {})
            content_type = case.content_type
        self.too_big = len(body) > django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return client.post(case.path, data=body, content_type=content_type, headers=case.headers)


def run(requests: Requests, case: Case, *, leave_out=(), reads_post: bool = True) -> None:
    requests.client(case.user)  # logged in (last_login) before the rows are read
    if case.prepare is not None:
        case.path = case.prepare(requests.client(case.user))
        case.prepare = None
    models = counted_models(leave_out=leave_out)
    before = rows(models)
    requests.exceptions.clear()
    response = requests.post(case)
    assert not requests.exceptions, f"the view raised {requests.exceptions!r}"
    assert response.status_code < 500, f"{response.status_code}: {response.content[:500]!r}"
    if requests.too_big and case.files is None and reads_post:
        # Huge fields together past DATA_UPLOAD_MAX_MEMORY_SIZE: Django refuses the body
        # when the view reads a field, with the app's 400 page (a view that reads none
        # answers as it would to any other body).
        status_with_message(400)(response)
    else:
        case.expect(response)
    assert_unchanged(before, rows(models))


# -- the endpoints ---------------------------------------------------------------------------


@dataclass
class Endpoint:
    name: str
    owner: str | None  # who may post it
    path: object  # World -> the endpoint's path on Kiso's own objects
    hostile: object  # World -> strategy of forms the owner's request is refused for
    refusal: object  # World -> the contract of a refusal
    valid: object = None  # World -> strategy of forms that would be done (for intruders)
    foreign: object = None  # World -> paths to another campaign's objects (or none such)
    intruders: tuple = ("dj_b", "mei")  # users who must meet a 404 (None: the login page)
    replay: object = None  # World -> strategy of Cases replaying a key
    extra: object = None  # World -> strategy of more Cases of the endpoint's own
    foreign_expect: object = None  # World -> the contract on `foreign` paths (a 404's)
    fight: bool | str = False
    htmx: object = st.booleans()
    reads_post: bool = True
    leave_out: tuple = ()
    late: bool = True  # refused past the tap's deadline (every POST; off for the odd ones)

    def __repr__(self) -> str:
        return self.name


def url(name: str, *args) -> str:
    return reverse(name, args=args)


def pk_of(world: World, name: str) -> int:
    return world.pj[name].pk


def foreign_pj_paths(name: str, *, archived_ok=False):
    """The endpoint on another campaign's PJ, on no PJ at all, and on an archived one."""

    def paths(world: World) -> list[str]:
        found = [
            url(name, "kiso", pk_of(world, "sora")),
            url(name, "kiso", pk_of(world, "taro")),
            url(name, "otra", pk_of(world, "aiko")),
            url(name, "kiso", 0),
            url(name, "kiso", 10**30),
            url(name, "nada", pk_of(world, "aiko")),
        ]
        if not archived_ok:
            found.append(url(name, "kiso", pk_of(world, "hana")))
        return found

    return paths


def foreign_campaign_paths(name: str):
    def paths(world: World) -> list[str]:
        return [url(name, "otra"), url(name, "nada"), url(name, "x" * 100)]

    return paths


def board(_world) -> str:
    return url("board", "kiso")


def pj_path(name: str, who: str = "aiko"):
    return lambda world: url(name, "kiso", pk_of(world, who))


# Board taps ---------------------------------------------------------------------------------

ACT_BAD_ACTION = st.one_of(bad, st.sampled_from(["", "SUFFER", "suffer ", "Heal", "undo", "act"]))


def act_forms(world: World):
    """A tap on a PJ's card that the view must refuse: no action or an unknown one, or a
    known one with the field it needs missing, mistyped, huge or odd."""
    extras = st.dictionaries(
        st.sampled_from(["cause", "source", "new_source", "secret", "variant", "note", "key"]),
        st.one_of(odd_text, huge(100)),
        max_size=3,
    )
    kenji, aiko = str(pk_of(world, "kenji")), str(pk_of(world, "aiko"))
    others = [str(pk_of(world, n)) for n in ("sora", "taro", "hana")] + [aiko, "0", "9" * 30]
    type_grade = st.sampled_from(["heridas:leve", "shock:grave", "fatiga:persistente"])
    flag_ok = st.sampled_from(["", "1", "0", "on", "no"])
    choice = st.sampled_from
    forms = st.one_of(
        st.fixed_dictionaries({"action": missing_or(field_of(ACT_BAD_ACTION))}),
        st.fixed_dictionaries(
            {
                "action": st.just("suffer"),
                "type": field_of(bad),
                "grade": missing_or(choice(["leve", "grave"]), bad),
            }
        ),
        st.fixed_dictionaries(
            {"action": st.just("suffer"), "type": choice(["heridas"]), "grade": missing_or(bad)}
        ),
        st.fixed_dictionaries(
            {"action": st.just("suffer"), "type_grade": st.one_of(bad, st.just("heridas"))}
        ),
        st.fixed_dictionaries(
            {
                "action": st.just("suffer"),
                "type_grade": choice(["emocion:leve"]),
                "variant": st.one_of(bad, choice(["terror", "abatimiento"])),
            }
        ),
        st.fixed_dictionaries(
            {
                "action": st.just("suffer"),
                "type_grade": type_grade,
                "especifico": st.one_of(bad, choice(["ceguera", "fobia"])),
            }
        ),
        st.fixed_dictionaries(
            {
                "action": st.just("suffer"),
                "type_grade": choice(["emocion:leve"]),
                "cause": huge(100),
            }
        ),
        st.fixed_dictionaries(
            {
                "action": choice(["heal", "surgery"]),
                "healer": field_of(st.one_of(bad, choice(others))),
                "success": missing_or(flag_ok),
            }
        ),
        st.fixed_dictionaries(
            {
                "action": choice(["heal", "surgery"]),
                "healer": missing_or(choice(["self", kenji, ""])),
                "success": field_of(bad),
            }
        ),
        st.fixed_dictionaries(
            {
                "action": choice(["roll", "success", "failure", "dismiss"]),
                "check": missing_or(field_of(st.one_of(bad, choice(["shock_grave", "FUE"])))),
            }
        ),
        st.fixed_dictionaries({"action": st.just("sleep"), "hours": field_of(bad_number)}),
        st.fixed_dictionaries(
            {"action": st.just("sleep"), "hours": choice(["8", ""]), "descanso": bad}
        ),
        st.fixed_dictionaries(
            {"action": st.just("sleep"), "hours": choice(["72.5", "100", "0.0"])}
        ),
        st.fixed_dictionaries(
            {"action": st.just("recover"), "type": missing_or(bad), "grade": choice(["leve"])}
        ),
        st.fixed_dictionaries(
            {
                "action": st.just("special"),
                "name": missing_or(huge(100), choice(["", "   ", "\x00", "\x00 \x00", "\t\n"])),
                "on": missing_or(flag_ok),
            }
        ),
        st.fixed_dictionaries(
            {"action": st.just("special"), "name": choice(["oculto", "x"]), "on": bad}
        ),
        st.fixed_dictionaries(
            {
                "action": st.just("time"),
                "unit": missing_or(field_of(st.one_of(bad, choice(["Minutes", "years"])))),
                "amount": missing_or(choice(["5", "1"])),
            }
        ),
        st.fixed_dictionaries(
            {
                "action": st.just("time"),
                "unit": choice(["rounds", "minutes", "hours", "days"]),
                "amount": missing_or(field_of(bad_number), huge(10)),
            }
        ),
        st.fixed_dictionaries(
            {
                "action": st.just("time"),
                "unit": choice(["rounds"]),
                "amount": choice(["1.5", "10001", "0,5"]),
            }
        ),
        st.fixed_dictionaries(
            {
                "action": st.just("time"),
                "unit": choice(["minutes"]),
                "amount": choice(["5"]),
                "activity": st.one_of(bad, choice(["Activo", "dormir"])),
            }
        ),
        st.fixed_dictionaries(
            {
                "action": st.just("time"),
                "unit": choice(["minutes"]),
                "amount": choice(["5"]),
                "calm": bad,
            }
        ),
    )
    return st.builds(lambda f, e: {**e, **f}, forms, extras)


def act_valid(world: World):
    return st.sampled_from(
        [
            {"action": "time", "unit": "minutes", "amount": "5"},
            {"action": "suffer", "type_grade": "heridas:leve"},
            {"action": "safe"},
        ]
    )


def act_replay(world: World):
    """The first tap's key again: nothing more is recorded, and the answer is the first
    tap's (a card with its toast, or back to the board saying it). A "Tirar todas" with a
    key whose first roll's key another tap took: done or refused, never a 500."""
    path = url("act", "kiso", pk_of(world, "aiko"))
    again = st.builds(
        lambda form, htmx: Case(
            "dj",
            path,
            done_tap if htmx else done_redirect(board(world)),
            form={**form, "key": "act-once"},
            headers=HX if htmx else {},
            why="replay",
        ),
        act_valid(world),
        st.booleans(),
    )
    crafted = st.builds(
        lambda htmx: Case(
            "dj",
            path,
            either(done_tap, card_refusal)
            if htmx
            else either(done_redirect(board(world)), flash_redirect(board(world))),
            form={"action": "roll_all", "key": "crafted"},
            headers=HX if htmx else {},
            why="replay",
        ),
        st.booleans(),
    )
    nothing_pending = st.builds(
        lambda htmx, key: Case(
            "dj",
            url("act", "kiso", pk_of(world, "kenji")),
            card_refusal if htmx else flash_redirect(board(world)),
            form={"action": "roll_all", "key": key},
            headers=HX if htmx else {},
            why="Tirar todas, nothing pending",
        ),
        st.booleans(),
        missing_or(odd_text, st.sampled_from(["act-once", "roll-once"])),
    )
    return st.one_of(again, crafted, nothing_pending)


def done_tap(response) -> None:
    """An htmx tap answered as done: the fresh fragments with the toast of what was done."""
    assert response.status_code == 200, response.status_code
    assert "X-Change-Cursor" in response
    assert "data-toast" in response.content.decode()


def done_redirect(to: str):
    def check(response) -> None:
        assert response.status_code == 302, response.status_code
        assert response["Location"] == to
        said = flashed(response, levels=(message_levels.SUCCESS, message_levels.INFO))
        assert said, "redirected without saying what was done"

    return check


def board_refusal(card_or_party):
    """htmx: `card_or_party`; the no-JavaScript path: back to the board with a flash."""

    def contract(world: World):
        nojs = flash_redirect(board(world))

        def check(response) -> None:
            if response.wsgi_request.htmx:
                card_or_party(response)
            else:
                nojs(response)

        return check

    return contract


def secret_forms(world: World):
    return st.fixed_dictionaries(
        {
            "name": missing_or(
                field_of(bad), huge(100), st.sampled_from(["", "fugu", "veneno ajeno", "ceguera"])
            ),
            "hide": missing_or(st.sampled_from(["1", "0"]), bad),
        }
    )


def catch_up_forms(world: World):
    return st.fixed_dictionaries(
        {
            "how": missing_or(
                field_of(st.one_of(bad, st.sampled_from(["", "Activo", "descanso", "sleep"])))
            ),
            "key": missing_or(odd_text),
        }
    )


def catch_up_replay(world: World):
    """The first catch-up's key again, though Kenji is behind the party again meanwhile:
    the first catch-up is the answer, nothing more is recorded."""
    return st.builds(
        lambda how, htmx: Case(
            "dj",
            url("catch_up", "kiso", pk_of(world, "kenji")),
            either(done_tap, card_refusal) if htmx else done_redirect(board(world)),
            form={"how": how, "key": "catch-up-once"},
            headers=HX if htmx else {},
            why="replay",
        ),
        st.sampled_from(["activo", "reposo", "dormir"]),
        st.booleans(),
    )


# The party's clock bar --------------------------------------------------------------------


def time_forms(world: World):
    """The clock bar's "time passes" with a bad unit, amount, activity, calm or watch."""
    wrong_watch = st.lists(
        st.one_of(
            bad_number,
            st.sampled_from(
                [str(pk_of(world, n)) for n in ("sora", "taro", "hana")] + ["0", "9" * 19]
            ),
        ),
        min_size=1,
        max_size=3,
    ).map(lambda xs: [str(pk_of(world, "aiko")), *xs])
    unit = st.sampled_from(["rounds", "minutes", "hours", "days"])
    return st.one_of(
        st.fixed_dictionaries(
            {
                "unit": missing_or(field_of(bad)),
                "amount": missing_or(st.just("1"), bad_number),
            }
        ),
        st.fixed_dictionaries({"unit": unit, "amount": missing_or(field_of(bad_number))}),
        st.fixed_dictionaries({"unit": unit, "amount": huge(10)}),
        st.fixed_dictionaries({"unit": unit, "amount": st.just("1"), "activity": bad}),
        st.fixed_dictionaries({"unit": unit, "amount": st.just("1"), "calm": bad}),
        st.fixed_dictionaries({"unit": unit, "amount": st.just("1"), "watch": wrong_watch}),
    )


def descanso_forms(world: World):
    wrong = st.one_of(
        bad_number,
        st.sampled_from([str(pk_of(world, n)) for n in ("sora", "taro", "hana")] + ["9" * 19]),
    )
    return st.fixed_dictionaries({"watch": st.lists(wrong, min_size=1, max_size=3)})


def party_replay(world: World):
    """A clock-bar tap again with its key: the first tap is the answer, whatever the
    watch boxes say now, and nothing more is recorded."""
    aiko, kenji = str(pk_of(world, "aiko")), str(pk_of(world, "kenji"))
    watch = st.sampled_from([[], [aiko], [kenji], [aiko, kenji]])
    time = st.builds(
        lambda w, htmx: Case(
            "dj",
            url("party_time", "kiso"),
            done_tap if htmx else done_redirect(board(world)),
            form={"unit": "minutes", "amount": "5", "watch": w, "key": "party-once"},
            headers=HX if htmx else {},
            why="replay",
        ),
        watch,
        st.booleans(),
    )
    descanso = st.builds(
        lambda w, htmx: Case(
            "dj",
            url("party_descanso", "kiso"),
            done_tap if htmx else done_redirect(board(world)),
            form={"watch": w, "key": "descanso-once"},
            headers=HX if htmx else {},
            why="replay",
        ),
        watch,
        st.booleans(),
    )
    return st.one_of(time, descanso)


def round_replay(world: World):
    return st.builds(
        lambda htmx, extra: Case(
            "dj",
            url("next_round", "kiso"),
            done_tap if htmx else done_redirect(board(world)),
            form={"key": "round-once", **extra},
            headers=HX if htmx else {},
            why="replay",
        ),
        st.booleans(),
        st.dictionaries(st.sampled_from(["unit", "amount", "seq"]), odd_text, max_size=2),
    )


def undo_forms(world: World):
    """Deshacer with a `seq` that is not the latest event's."""
    latest = str(world.ids["latest"])
    return st.fixed_dictionaries(
        {
            "seq": field_of(
                st.one_of(
                    bad_number.filter(lambda s: s != latest),
                    st.sampled_from([" " + latest, latest + " ", "0" + latest, "1", "-" + latest]),
                    st.integers(0, 10**6).map(str).filter(lambda s: s != latest),
                )
            )
        }
    )


def void_forms(world: World):
    """Void with no such event, or no reason, or a reason too long, or an event already void."""
    reason_ok = st.sampled_from(["Error de mesa", "😀 mal anotado"])
    no_reason = missing_or(st.sampled_from(["", " ", "\x00", "\x00\x00 \t", "\u3000"]), huge(500))
    no_event = st.one_of(
        bad_number,
        st.sampled_from(["0", str(10**9), str(10**9 - 1), str(world.ids["latest"] + 1)]),
    )
    return st.one_of(
        st.fixed_dictionaries({"seq": missing_or(field_of(no_event)), "reason": reason_ok}),
        st.fixed_dictionaries({"seq": st.just(str(world.ids["latest"])), "reason": no_reason}),
        st.fixed_dictionaries(
            {"seq": st.just(str(world.ids["voided"])), "reason": st.one_of(reason_ok, no_reason)}
        ),
    )


# The fight ---------------------------------------------------------------------------------


def order_rows(world: World, *, valid_rows: bool):
    aiko, kenji = pk_of(world, "aiko"), pk_of(world, "kenji")
    good = st.sampled_from(
        [(f"pj:{aiko}", "", "10"), (f"pj:{kenji}", "", ""), ("npc:1", "Oni", "3")]
    )
    foreign = [pk_of(world, n) for n in ("sora", "taro", "hana")]
    wrong = st.one_of(
        st.tuples(
            st.one_of(
                bad,
                st.sampled_from(
                    [f"pj:{pk}" for pk in foreign]
                    + ["pj:", "pj:x", "npc:", "npc:x", "pj:0", f"pj:{'9' * 30}", "npc:-1"]
                    + ["", "pc:1", "PJ:1"]
                ),
            ),
            odd_text,
            st.sampled_from(["", "5"]),
        ),
        st.tuples(st.sampled_from(["npc:2", "npc:7"]), st.one_of(st.just(""), huge(40)), odd_text),
        st.tuples(
            st.sampled_from([f"pj:{aiko}", "npc:3"]),
            st.just("Oni"),
            st.one_of(bad_number.filter(lambda s: s not in ("0", "+5")), huge(12)),
        ),
        st.tuples(st.just("npc:4"), st.just("Oni"), st.sampled_from(["1000", "-100", "9" * 7])),
    )
    if valid_rows:
        return st.lists(good, min_size=1, max_size=3, unique=True)
    return st.builds(
        lambda a, w, b: [*a, w, *b],
        st.lists(good, max_size=2, unique=True),
        wrong,
        st.lists(good, max_size=1),
    )


def as_form(order: list) -> dict:
    return {
        "slot": [s for s, _n, _i in order],
        "name": [n for _s, n, _i in order],
        "init": [i for _s, _n, i in order],
    }


def fight_forms(*, on: bool):
    def forms(world: World):
        mode = st.sampled_from(["order"] if on else ["start", "order", ""])
        turn = missing_or(odd_text) if not on else st.just(None)
        bad_order = st.builds(
            lambda rows, m, t: {**as_form(rows), "mode": m, "turn": t},
            order_rows(world, valid_rows=False),
            mode,
            turn,
        )
        nobody = st.fixed_dictionaries({"mode": mode, "slot": st.just(None)})
        bad_step = st.builds(
            lambda rows, step: {**as_form(rows), "mode": "order" if on else "start", **step},
            order_rows(world, valid_rows=True),
            st.one_of(
                st.fixed_dictionaries(
                    {
                        "step": st.one_of(
                            st.sampled_from(["up:", "down:x", "drop:9", "up:99", "drop:-1"]),
                            st.builds(
                                lambda m, b: f"{m}:{b}", st.sampled_from(["up", "drop"]), bad
                            ),
                        )
                    }
                ),
                st.fixed_dictionaries(
                    {"step": st.just("add"), "new": st.just("npc"), "new_name": huge(40)}
                ),
                st.fixed_dictionaries(
                    {
                        "step": st.just("add"),
                        "new": st.just("npc"),
                        "new_name": st.just(""),
                        "new_init": st.just("5"),
                    }
                ),
                st.fixed_dictionaries(
                    {
                        "step": st.just("add"),
                        "new": st.just("npc"),
                        "new_name": st.just("Oni"),
                        "new_init": bad_number.filter(lambda s: s not in ("0", "+5")),
                    }
                ),
                st.fixed_dictionaries(
                    {
                        "step": st.just("add"),
                        "new": st.sampled_from(
                            [f"pj:{pk_of(world, n)}" for n in ("sora", "hana")]
                            + ["pj:", "pj:x", f"pj:{'9' * 40}"]
                        ),
                    }
                ),
            ),
        )
        bad_sort = st.builds(
            lambda rows: {**as_form(rows), "step": "sort"},
            st.lists(
                st.tuples(
                    st.just(f"pj:{pk_of(world, 'aiko')}"),
                    st.just(""),
                    bad_number.filter(lambda s: s not in ("0", "+5", "-1", "−3")),
                ),
                min_size=1,
                max_size=2,
            ),
        )
        stale = st.builds(
            lambda rows, t: {**as_form(rows), "mode": "order", "turn": t},
            order_rows(world, valid_rows=True),
            st.one_of(bad, st.sampled_from(["1:0", "0:0", "x"])),
        )
        unknown_step = st.builds(
            lambda rows, step: {**as_form(rows), "mode": "order" if on else "start", "step": step},
            order_rows(world, valid_rows=True),
            st.one_of(bad, st.sampled_from(["UP:0", "left:0", "zzz", "add ", "Sort", "end"])),
        )
        choices = [bad_order, nobody, bad_step, bad_sort, unknown_step]
        if on:
            choices += [
                stale,
                st.builds(
                    lambda rows: {**as_form(rows), "mode": "start"},
                    order_rows(world, valid_rows=True),
                ),
            ]
        return st.one_of(*choices)

    return forms


def fight_page_refusal(world: World):
    """The order page again, its error on top or on the line (nothing written)."""

    def check(response) -> None:
        shows_message(response, statuses={409, 422})
        assert 'class="control-error"' in response.content.decode()

    return check


def fight_tap_forms(world: World):
    """Passing or ending the turn from a page that saw another turn."""
    return st.fixed_dictionaries({"turn": field_of(st.one_of(bad, st.sampled_from(["0:0", "x"])))})


def fight_tap_replay(name: str, key: str):
    def replay(world: World):
        return st.builds(
            lambda htmx, turn: Case(
                "dj",
                url(name, "kiso"),
                done_tap if htmx else done_redirect(board(world)),
                form={"key": key, "turn": turn},
                headers=HX if htmx else {},
                why="replay",
            ),
            st.booleans(),
            missing_or(odd_text),
        )

    return replay


def fight_setup_replay(world: World):
    """The order page sent again with the key of the fight's start: already done."""
    return st.builds(
        lambda rows: Case(
            "dj",
            url("fight_setup", "kiso"),
            done_redirect(board(world)),
            form={**as_form(rows), "mode": "order", "key": "fight-once"},
            why="replay",
        ),
        order_rows(world, valid_rows=True),
    )


# Setup forms ---------------------------------------------------------------------------------


def name_bad(max_length: int):
    """A required name a Django CharField refuses: blank, NUL in it, or too long."""
    return missing_or(
        st.sampled_from(["", "   ", "\t\n", "\u3000", "\x00", "Ai\x00ko"]),
        st.builds(lambda a, b: a + "\x00" + b, odd_text, odd_text),
        huge(max_length),
    )


def text_with_nul():
    return st.builds(lambda a, b: a + "\x00" + b, odd_text, odd_text)


def int_bad(low: int, high: int):
    """An IntegerField's value it refuses: not a number, or out of range."""
    digits = st.text("0123456789", max_size=3)
    return st.one_of(
        st.builds(lambda a, e, b: a + e + b, digits, st.sampled_from(EVIL), digits),
        st.sampled_from(["1e3", "inf", "nan", "0x10", "1_0", "[]", "null", "true", "1,5"]),
        st.integers(high + 1, 10**30).map(str),
        st.integers(-(10**30), low - 1).map(str),
        st.just("9" * 5000),
    )


def campaign_forms(*, new: bool):
    def forms(world: World):
        name = st.fixed_dictionaries(
            {"name": name_bad(100), "round_seconds": missing_or(st.just("6"), odd_text)}
        )
        seconds = st.fixed_dictionaries(
            {"name": st.just("Nueva"), "round_seconds": missing_or(int_bad(1, 600))}
        )
        extras = st.dictionaries(
            st.sampled_from(["especificos", "esfuerzo_prolongado", "players_see_party", "slug"]),
            st.one_of(odd_text, wrong_type),
            max_size=3,
        )
        return st.builds(lambda f, e: {**e, **f}, st.one_of(name, seconds) if new else name, extras)

    return forms


def character_forms(world: World, *, taken: list[str]):
    scores = {a: st.sampled_from(["", "3"]) for a in ("FUE", "AGI", "DES", "INT", "VOL")}
    base = {
        "name": st.sampled_from(["Nueva", "Ren"]),
        "player": st.sampled_from(["", str(world.users["mei"].pk)]),
        **scores,
        "other_scores": st.sampled_from(["", "PER 3"]),
        "other_powers": st.sampled_from(["", "Vuelo"]),
        "notes": odd_text.map(lambda s: s.replace("\x00", "")),
    }
    wrong = st.one_of(
        st.fixed_dictionaries({"name": name_bad(100)}),
        st.fixed_dictionaries({"name": st.sampled_from(taken)}),
        st.builds(
            lambda abbr, v: {abbr: v},
            st.sampled_from(["FUE", "AGI", "DES", "INT", "VOL"]),
            field_of(int_bad(0, 10)),
        ),
        st.fixed_dictionaries(
            {
                "other_scores": st.one_of(
                    huge(500),
                    text_with_nul(),
                    st.sampled_from(
                        ["PER", "PER 11", "FUE 3", "PER 3, PER 2", "P3R 1", "PER -1", "PER 1000"]
                        + ["ABCDEFGHIJK 1", "PER 3;CAR 2", "😀 3", "PER ３x"]
                    ),
                )
            }
        ),
        st.fixed_dictionaries({"other_powers": st.one_of(huge(500), text_with_nul())}),
        st.fixed_dictionaries({"notes": text_with_nul()}),
        st.fixed_dictionaries(
            {
                "player": field_of(
                    st.one_of(
                        bad,
                        wrong_type,
                        st.sampled_from(
                            [str(world.users[u].pk) for u in ("dj", "dj_b", "rin", "nadie")]
                            + ["0", "-1", "9" * 30, "9" * 5000, "1.0"]
                        ),
                    )
                )
            }
        ),
    )
    return st.builds(lambda b, w: {**b, **w}, st.fixed_dictionaries(base), wrong)


def character_valid(world: World):
    return st.just({"name": "Ren", "player": "", "FUE": "3"})


def catalogue_forms(world: World):
    return st.one_of(
        st.fixed_dictionaries(
            {
                "name": name_bad(100),
                "kind": st.sampled_from(["veneno", "especial"]),
                "effect": odd_text.map(lambda s: s.replace("\x00", "")),
            }
        ),
        st.fixed_dictionaries(
            {
                "name": st.sampled_from(
                    ["Veneno de PRUEBA", "veneno  de prueba", " veneno de prueba"]
                ),
                "kind": st.sampled_from(["veneno", "especial"]),
            }
        ),
        st.fixed_dictionaries(
            {"name": st.just("nuevo"), "kind": missing_or(field_of(st.one_of(bad, wrong_type)))}
        ),
        st.fixed_dictionaries(
            {
                "name": st.just("nuevo"),
                "kind": st.just("veneno"),
                "effect_leve": text_with_nul(),
            }
        ),
    )


def catalogue_edit_forms(world: World):
    return st.builds(
        lambda f, texts: {**texts, **f},
        st.fixed_dictionaries({"effect": text_with_nul()}),
        st.fixed_dictionaries(
            {
                "name": missing_or(odd_text),
                "kind": missing_or(odd_text),
                "effect_grave": missing_or(odd_text.map(lambda s: s.replace("\x00", ""))),
            }
        ),
    )


SCORE_BOXES = ("FUE", "AGI", "DES", "INT", "VOL")
OTHER_SCORES_BAD = st.one_of(
    huge(500),
    text_with_nul(),
    st.sampled_from(["PER", "PER 11", "FUE 3", "PER 3, PER 2", "P3R 1", "PER -1", "😀 3"]),
)
SIDE_BAD = missing_or(
    field_of(st.one_of(bad, wrong_type, st.sampled_from(["", "Enemigo", "neutral", "pj"])))
)


def sheet_wrong(name_max: int, taken: list[str]):
    """A PNJ's or a Plantilla's fields, one of them refused."""
    return st.one_of(
        st.fixed_dictionaries({"name": name_bad(name_max)}),
        st.fixed_dictionaries({"name": st.sampled_from(taken)}),
        st.fixed_dictionaries({"side": SIDE_BAD}),
        st.builds(
            lambda abbr, v: {abbr: v}, st.sampled_from(SCORE_BOXES), field_of(int_bad(0, 10))
        ),
        st.fixed_dictionaries({"other_scores": OTHER_SCORES_BAD}),
        st.fixed_dictionaries({"other_powers": st.one_of(huge(500), text_with_nul())}),
        st.fixed_dictionaries({"notes": text_with_nul()}),
    )


def sheet_base(name: str) -> dict:
    return {
        "name": st.just(name),
        "side": st.sampled_from(["enemigo", "aliado"]),
        **{a: st.sampled_from(["", "3"]) for a in SCORE_BOXES},
        "other_scores": st.sampled_from(["", "PER 3"]),
        "other_powers": st.sampled_from(["", "Vuelo", "regeneración"]),
        "regeneracion": missing_or(st.sampled_from(["on", "1"])),
        "notes": odd_text.map(lambda s: s.replace("\x00", "")),
    }


def template_forms(name: str, taken: list[str]):
    def forms(world: World):
        return st.builds(
            lambda b, w: {**b, **w}, st.fixed_dictionaries(sheet_base(name)), sheet_wrong(36, taken)
        )

    return forms


def pnj_edit_forms(world: World):
    base = {
        **sheet_base("Ronin"),
        "shows": st.sampled_from(["nombre", "palabras", "ficha"]),
        "in_party": missing_or(st.just("on")),
        "revealed": missing_or(st.just("on")),
        "lurking": missing_or(st.just("on")),
        # No player field: one posted is read by nothing.
        "player": missing_or(st.just(str(world.users["mei"].pk))),
    }
    shows_bad = st.fixed_dictionaries(
        {"shows": missing_or(field_of(st.one_of(bad, wrong_type, st.just("todo"))))}
    )
    taken = ["Aiko", "aiko", "HANA", "bandido 1", " Kenji ", "Espía"]
    wrong = st.one_of(sheet_wrong(40, taken), shows_bad)
    return st.builds(lambda b, w: {**b, **w}, st.fixed_dictionaries(base), wrong)


def pnj_new_forms(world: World):
    base = {"name": st.just("Oni"), "count": st.just("1"), "side": st.just("enemigo")}
    wrong = st.one_of(
        st.fixed_dictionaries({"name": name_bad(40)}),
        # Several at once: no room left for " 20" after a name of 38.
        st.fixed_dictionaries({"name": st.just("x" * 38), "count": st.sampled_from(["2", "20"])}),
        st.fixed_dictionaries({"count": missing_or(field_of(int_bad(1, 20)))}),
        st.fixed_dictionaries({"side": SIDE_BAD}),
    )
    extras = st.dictionaries(
        st.sampled_from(["key", "template", "player", "in_party"]),
        st.one_of(odd_text, wrong_type),
        max_size=2,
    )
    return st.builds(lambda b, w, e: {**e, **b, **w}, st.fixed_dictionaries(base), wrong, extras)


def copies_forms(world: World):
    return st.builds(
        lambda count, junk: {**junk, **({} if count is None else {"count": count})},
        missing_or(field_of(int_bad(1, 20))),
        st.dictionaries(
            st.sampled_from(["name", "side", "template", "key"]),
            st.one_of(odd_text, wrong_type),
            max_size=2,
        ),
    )


def pnj_replay(name: str, path, form: dict, key: str):
    """A key of the world's own again: nothing more is made, back to the page saying what
    the first one made."""

    def replay(world: World):
        return st.builds(
            lambda extra: Case(
                "dj",
                path(world),
                done_redirect(url("pnj_list", "kiso")),
                form={**form, **extra, "key": key},
                why="replay",
            ),
            st.fixed_dictionaries({"count": st.sampled_from(["1", "2", "3"])}),
        )

    return replay


def pnj_paths(name: str, *, archived_ok: bool = False, active_ok: bool = True):
    """A PNJ endpoint on a PJ, another campaign's PNJ, no PNJ at all, an archived one (or
    one in play, for restoring) and another campaign's address."""

    def paths(world: World) -> list[str]:
        found = [
            url(name, "kiso", pk_of(world, "aiko")),
            url(name, "kiso", pk_of(world, "hana")),
            url(name, "kiso", pk_of(world, "oni_b")),
            url(name, "kiso", 0),
            url(name, "kiso", 10**30),
            url(name, "otra", pk_of(world, "ronin")),
        ]
        if not archived_ok:
            found.append(url(name, "kiso", pk_of(world, "espia")))
        if not active_ok:
            found.append(url(name, "kiso", pk_of(world, "ronin")))
        return found

    return paths


def reminder_forms(world: World):
    """A note the board must refuse: no text (or blanks, or a NUL) or too long, an unknown
    when, a round no number or out of 1–999, whose turn missing, not a number, another
    campaign's PJ or one not in play."""
    others = [str(pk_of(world, n)) for n in ("sora", "hana", "espia", "oni_b")] + ["0", "9" * 30]
    return st.one_of(
        st.fixed_dictionaries(
            {
                "text": st.one_of(st.sampled_from(["", "   ", "\u3000", "a\x00b"]), huge(120)),
                "when": st.sampled_from(["round", "start"]),
                "round": st.just("2"),
                "character": st.just(str(pk_of(world, "kenji"))),
            }
        ),
        st.fixed_dictionaries(
            {
                "text": st.just("refuerzos"),
                "when": missing_or(
                    field_of(bad), st.sampled_from(["", "START", "Round", "ronda", "round "])
                ),
                "round": st.just("2"),
            }
        ),
        st.fixed_dictionaries(
            {
                "text": st.just("refuerzos"),
                "when": st.just("round"),
                "round": missing_or(int_bad(1, 999)),
            }
        ),
        st.fixed_dictionaries(
            {
                "text": st.just("el veneno actúa"),
                "when": st.sampled_from(["start", "end"]),
                "character": missing_or(field_of(bad), st.sampled_from(others)),
                "every": missing_or(st.just("1"), bad),
            }
        ),
    )


def reminder_paths(world: World) -> list[str]:
    """Another campaign's note, none at all, and Kiso's own under another campaign."""
    return [
        url("reminder_delete", "kiso", world.ids["reminder_b"]),
        url("reminder_delete", "kiso", 0),
        url("reminder_delete", "kiso", 10**30),
        url("reminder_delete", "otra", world.ids["reminder"]),
        url("reminder_delete", "nada", world.ids["reminder"]),
    ]


def template_paths(name: str):
    def paths(world: World) -> list[str]:
        return [
            url(name, "kiso", world.ids["template_b"]),
            url(name, "kiso", 0),
            url(name, "kiso", 10**30),
            url(name, "otra", world.ids["template"]),
            url(name, "nada", world.ids["template"]),
        ]

    return paths


def back_refusal(world: World):
    """Back to the page the form came from (`next`, a path of this site) or else the board:
    a bad title waits in the session for the title field (session_start), any other
    reason is said as a flash message."""

    def check(response) -> None:
        assert response.status_code == 302, response.status_code
        where = response["Location"]
        assert where == board(world) or (
            where.startswith("/") and not where.startswith(("//", "/\\"))
        ), where
        # A refused title, recap or note waits in the session, with what was typed, for its
        # field.
        session = response.wsgi_request.session
        typed = session.pop("session_start", None) or session.pop("session_end", None)
        if typed is not None:  # the recap's reason, or the DJ's note's, by its field
            said = [m for m in (typed["error"], typed.get("note_error")) if m]
        else:
            said = flashed(response)
        assert said, "redirected without saying why"
        for message in said:
            assert_spanish(message)

    return check


BAD_NEXT = st.one_of(
    st.sampled_from(
        ["https://evil.example/", "//evil.example", "/\\evil.example", "javascript:alert(1)"]
        + ["0", "home", "board", "campaign_new", "admin:index", "/c/otra/", "/\x00/"]
    ),
    odd_text,
)


def session_start_forms(world: World):
    return st.fixed_dictionaries(
        {
            "title": missing_or(huge(200), text_with_nul(), odd_text),
            "next": missing_or(BAD_NEXT),
        }
    )


def session_end_forms(world: World):
    """An open session's end with a recap or a DJ's note longer than either may be."""
    return st.one_of(
        st.fixed_dictionaries({"recap": huge(20_000), "next": missing_or(BAD_NEXT)}),
        st.fixed_dictionaries(
            {"recap": missing_or(odd_text), "dj_note": huge(20_000), "next": missing_or(BAD_NEXT)}
        ),
    )


def recap_forms(world: World):
    return st.fixed_dictionaries({"recap": huge(20_000)})


def note_forms(world: World):
    return st.fixed_dictionaries({"dj_note": huge(20_000)})


def event_void_forms(world: World):
    return st.fixed_dictionaries(
        {
            "reason": missing_or(
                field_of(st.sampled_from(["", " ", "\x00", "\x00 \x00", "\u3000\t"])), huge(500)
            )
        }
    )


def event_page_refusal(world: World):
    def check(response) -> None:
        shows_message(response, statuses={422})
        assert 'id="void-error"' in response.content.decode()

    return check


def no_fields(world: World):
    """Nothing the endpoint reads but its address: any junk posted alongside."""
    return st.dictionaries(
        st.one_of(odd_text, st.sampled_from(["pk", "id", "slug", "campaign", "key", "next"])),
        st.one_of(odd_text, huge(100), wrong_type),
        max_size=3,
    )


# Players -----------------------------------------------------------------------------------


def code_forms(world: World):
    code = world.ids["pending_code"]
    return st.fixed_dictionaries(
        {
            "code": missing_or(
                field_of(
                    st.one_of(
                        odd_text.filter(lambda s: services.code_normalize(s) != code),
                        huge(40).filter(lambda s: services.code_normalize(s[:40]) != code),
                        st.sampled_from(
                            [code.lower() + "\x00", code[:7], code + "X", code[::-1], "ABCD-EFGH"]
                        ).filter(lambda s: services.code_normalize(s) != code),
                    )
                )
            )
        }
    )


def account_forms(world: World):
    """A new account that Django's checks refuse: a bad or taken username, passwords that
    differ, a weak one."""
    good_password = "una-clave-larga-2025"
    return st.one_of(
        st.fixed_dictionaries(
            {
                "username": name_bad(150),
                "password1": st.just(good_password),
                "password2": st.just(good_password),
            }
        ),
        st.fixed_dictionaries(
            {
                "username": st.one_of(
                    st.sampled_from(["MEI", "Test-DJ", "otro-dj", "a b", "a/b", "😀", "ñ" * 151]),
                    bad.filter(lambda s: not re.fullmatch(r"[\w.@+-]+", s)),
                ),
                "password1": st.just(good_password),
                "password2": st.just(good_password),
            }
        ),
        st.fixed_dictionaries(
            {
                "username": st.just("haruka"),
                "password1": missing_or(odd_text, huge(100)),
                "password2": missing_or(st.just(good_password), bad),
            }
        ).filter(lambda f: f["password1"] != f["password2"] or not f["password1"]),
        st.fixed_dictionaries(
            {
                "username": st.just("haruka"),
                "password1": st.sampled_from(["12345678", "haruka12", "password", "short"]),
            }
        ).map(lambda f: {**f, "password2": f["password1"]}),
        st.fixed_dictionaries(
            {
                "username": st.just("haruka"),
                "password1": text_with_nul(),
            }
        ).map(lambda f: {**f, "password2": f["password1"]}),
    )


def join_refusal(response) -> None:
    """The invitation's page again, with why (a 422)."""
    shows_message(response, statuses={422})


def join_code_refusal(response) -> None:
    """The code page again, with why: a wrong code (422) or too many of them (429)."""
    shows_message(response, statuses={422, 429})
    assert 'id="code-error"' in response.content.decode()


def join_paths(world: World) -> list[str]:
    token = world.ids["pending_token"]
    return [
        url("join", "x" * 5000),
        url("join", token + "x"),
        url("join", token[:-1]),
        url("join", token.upper()),
        "/unirse/" + urllib.parse.quote(token + "\x00") + "/",
        "/unirse/%ED%A0%80/",
        url("join", world.ids["pending_b_token"] + "0"),
    ]


def roll_forms(world: World):
    return st.fixed_dictionaries(
        {
            "check": missing_or(
                field_of(st.one_of(bad, wrong_type, st.sampled_from(["shock_grave", "FUE", ""])))
            ),
            "key": missing_or(odd_text, huge(100)),
        }
    )


def roll_replay(world: World):
    return st.builds(
        lambda htmx: Case(
            "mei",
            url("sheet_roll", "kiso", pk_of(world, "aiko")),
            either(done_tap_sheet, status_with_message(422))
            if htmx
            else done_redirect(url("sheet", "kiso", pk_of(world, "aiko"))),
            form={"check": "heridas_leve_descanso", "key": "roll-once"},
            headers=HX if htmx else {},
            why="replay",
        ),
        st.booleans(),
    )


def done_tap_sheet(response) -> None:
    assert response.status_code == 200, response.status_code
    assert "data-toast" in response.content.decode()


def sheet_refusal(world: World):
    nojs = flash_redirect(url("sheet", "kiso", pk_of(world, "aiko")))

    def check(response) -> None:
        if response.wsgi_request.htmx:
            shows_message(response, statuses={422})
        else:
            nojs(response)

    return check


# Backups ---------------------------------------------------------------------------------


def exported(campaign) -> dict:
    return json.loads("".join(backup.export_chunks(campaign)))


def import_shapes(world: World) -> list[bytes]:
    """The other campaign's backup, each time with one thing wrong in it."""
    good = exported(world.b)
    text = json.dumps(good)
    sora = pk_of(world, "sora")

    def mutate(fn):
        def make(_):
            document = json.loads(text)
            fn(document)
            return json.dumps(document).encode()

        return make

    def set_path(path, value):
        def fn(document):
            target = document
            for step in path[:-1]:
                target = target[step]
            target[path[-1]] = value

        return fn

    first_ref = good["characters"][0]["ref"]
    timed = next(i for i, e in enumerate(good["events"]) if e["event"]["kind"] == "time")
    refs = {c["ref"] for c in good["characters"]}

    def not_a_ref(pk: int) -> int:
        """A PJ's id in the database, unless it happens to be a ref of the file too."""
        return pk if pk not in refs else pk + max(refs)

    shapes = [
        mutate(set_path(["events", 0, "character"], not_a_ref(sora))),
        mutate(set_path(["events", 0, "character"], not_a_ref(pk_of(world, "aiko")))),
        mutate(set_path(["events", 0, "character"], first_ref + 10_000)),
        mutate(set_path(["events", 0, "character"], str(first_ref))),
        mutate(set_path(["events", 0, "session"], 99)),
        mutate(set_path(["events", 0, "seq"], "1")),
        mutate(set_path(["events", 0, "seq"], 2**70)),
        mutate(set_path(["events", 0, "event"], [])),
        mutate(set_path(["events", 0, "event", "kind"], "teleport")),
        mutate(set_path(["events", timed, "event", "minutes"], -5)),
        mutate(set_path(["events", timed, "event", "minutes"], 1e308)),
        mutate(set_path(["characters", 0, "name"], "")),
        mutate(set_path(["characters", 0, "name"], "x" * 101)),
        mutate(set_path(["characters", 0, "name"], "Ai\x00ko")),
        mutate(set_path(["characters", 0, "ref"], "uno")),
        mutate(set_path(["characters", 0, "attributes"], {"FUE": -1})),
        mutate(set_path(["characters", 0, "attributes"], [])),
        mutate(set_path(["characters"], {})),
        mutate(set_path(["campaign"], None)),
        mutate(set_path(["campaign", "name"], "\x00")),
        mutate(set_path(["campaign", "options", "round_seconds"], 0)),
        mutate(set_path(["format"], "zodiac-campana")),
        mutate(set_path(["version"], 3)),
        mutate(set_path(["characters", 0, "kind"], "monstruo")),
        mutate(set_path(["characters", 0, "side"], "enemigo")),
        mutate(set_path(["templates"], [{"ref": 1, "name": "Oni", "side": "neutral"}])),
        mutate(set_path(["reminders"], [{"text": "x", "when": "start", "character": 9999}])),
        mutate(set_path(["version"], "1")),
        mutate(lambda d: d.pop("events")),
        mutate(lambda d: d["characters"].append(d["characters"][0])),
        mutate(lambda d: d["events"].append(d["events"][0])),
        mutate(set_path(["catalogue"], [{"name": 1}])),
        mutate(set_path(["catalogue", 0, "effect"], "Fin\x00")),
        mutate(set_path(["characters", 0, "notes"], "\x00")),
        mutate(set_path(["events", timed, "event", "note\x00"], 1)),
    ]
    return [make(None) for make in shapes]


def import_files(world: World):
    """Backup files that must not import: not JSON, cut short, of the wrong shape, too big,
    in odd Unicode, naming PJ (or their ids in the other campaign) the file does not have."""
    text = json.dumps(exported(world.b))
    raw = st.one_of(
        st.sampled_from(
            [
                b"",
                b"{",
                b"null",
                b"[]",
                b"42",
                b'"zodiac"',
                b"NaN",
                b'{"format": "zodiac-campaign", "version": 1}',
                b"\xff\xfe{}",
                b"\xef\xbb\xbf" + text.encode()[:-2],
                ("[" * 100_000).encode(),
                text.encode()[: len(text) // 2],
                text.encode()[:-1],
                text.replace('"Sora"', '"So\\ud800ra"').encode(),
                text.replace('"Sora"', '"So\\u0000ra"').encode(),
                text.replace('"Sora"', '"\\u202eSora\\u0301"').encode() + b"x",
                text.encode("utf-16"),
                b"\x00" * 1000,
                b"PK\x03\x04 not a zip",
            ]
        ),
        st.sampled_from(import_shapes(world)),
        st.binary(max_size=200),
        st.lists(any_char, max_size=200)
        .map("".join)
        .map(lambda s: s.encode("utf-8", "surrogatepass")),
    )
    return raw


def import_refusal(world: World):
    def check(response) -> None:
        shows_message(response, statuses={200, 422})
        assert 'class="error-summary"' in response.content.decode()

    return check


def import_cases(world: World):
    """A hostile file (and maybe a name), a good file with a bad name, or no file at all."""
    good = json.dumps(exported(world.b)).encode()
    path = url("campaign_import")
    refusal = import_refusal(world)

    def upload(data: bytes) -> tuple[str, bytes]:
        return ("copia.json", data)

    name = missing_or(odd_text.map(lambda s: s.replace("\x00", "")))
    return st.one_of(
        st.builds(
            lambda data, n: Case(
                "dj", path, refusal, form={"name": n}, files={"file": upload(data)}, why="file"
            ),
            import_files(world),
            name,
        ),
        st.builds(
            lambda n: Case(
                "dj", path, refusal, form={"name": n}, files={"file": upload(good)}, why="name"
            ),
            st.one_of(text_with_nul(), huge(100)),
        ),
        st.builds(
            lambda form: Case("dj", path, refusal, form=form, files={}, why="no file"),
            st.fixed_dictionaries({"name": name, "file": missing_or(odd_text, wrong_type)}),
        ),
    )


def login_forms(world: World):
    """Credentials that are wrong (a password no account has), missing or odd."""
    return st.fixed_dictionaries(
        {
            "username": missing_or(
                odd_text, huge(150), st.sampled_from(["mei", "MEI", "test-dj", "mei\x00"])
            ),
            "password": missing_or(odd_text.filter(lambda s: s != PASSWORD), huge(100)),
            "next": missing_or(st.sampled_from(["https://evil.example/", "//evil"]), odd_text),
        }
    )


NEW_PASSWORD = "otra-clave-larga-2025"


def password_change_forms(world: World):
    new = missing_or(odd_text, st.just(NEW_PASSWORD))
    return st.one_of(
        st.fixed_dictionaries(
            {
                "old_password": missing_or(odd_text.filter(lambda s: s != PASSWORD), huge(100)),
                "new_password1": new,
                "new_password2": new,
            }
        ),
        st.fixed_dictionaries(
            {
                "old_password": st.just(PASSWORD),
                "new_password1": st.just(NEW_PASSWORD),
                "new_password2": missing_or(bad),
            }
        ),
        st.sampled_from(["12345678", "password", "mei", "qwertyuiop"]).map(
            lambda w: {"old_password": PASSWORD, "new_password1": w, "new_password2": w}
        ),
    )


def reset_path(world: World, token: str) -> str:
    uid = urlsafe_base64_encode(force_bytes(world.users["mei"].pk))
    return url("password_reset_confirm", uid, token)


def reset_forms(world: World):
    """New passwords Django's checks refuse: different, weak, or missing."""
    return st.one_of(
        st.fixed_dictionaries(
            {"new_password1": missing_or(odd_text, huge(100)), "new_password2": missing_or(bad)}
        ).filter(lambda f: f["new_password1"] != f["new_password2"] or not f["new_password1"]),
        st.sampled_from(["12345678", "password", "mei"]).map(
            lambda w: {"new_password1": w, "new_password2": w}
        ),
    )


def reset_prepare(world: World):
    """Open the DJ's one-time link first: Django moves its token into the session and
    sends the browser on to the form's own address."""

    def prepare(client: Client) -> str:
        token = default_token_generator.make_token(world.users["mei"])
        opened = client.get(reset_path(world, token))
        assert opened.status_code == 302
        return opened["Location"]

    return prepare


def reset_link_refused(response) -> None:
    assert response.status_code == 200, response.status_code
    with translation.override("es"):
        words = translation.gettext(
            "This link no longer works: it was used already, or it is more than three days "
            "old. Ask your DJ for a new one."
        )
    assert words.startswith("Este enlace"), words
    assert words in html.unescape(response.content.decode())


def logged_out(response) -> None:
    """Logging out takes no input but where to go next (a page of this site, else the login
    page): whatever else is posted, it logs out."""
    assert response.status_code == 302, response.status_code
    assert "_auth_user_id" not in response.wsgi_request.session
    safe_redirect(response)


def safe_redirect(response) -> None:
    """Django's language switch: back to a page of this site, never to another."""
    assert response.status_code in (302, 204), response.status_code
    if response.status_code == 302:
        assert "evil" not in response["Location"]
        assert not response["Location"].startswith(("//", "http", "javascript"))


def sent_on_to_the_chooser(world: World):
    """A box's no-JavaScript post: nothing written, on to the chooser's own address."""
    chooser = url("ask", "kiso", pk_of(world, "aiko"), "heal")

    def check(response) -> None:
        assert response.status_code == 302, response.status_code
        assert response["Location"].split("?")[0] == chooser

    return check


def get_only_paths(world: World) -> list[str]:
    """Every address that only shows (GET): a POST to it is a 405 page."""
    aiko = pk_of(world, "aiko")
    return [
        url("board", "kiso"),
        url("board_refresh", "kiso"),
        url("card", "kiso", aiko),
        url("calculator", "kiso"),
        url("character_list", "kiso"),
        url("pnj_list", "kiso"),
        url("players", "kiso"),
        url("sheet", "kiso", aiko),
        url("sheet_refresh", "kiso", aiko),
        url("history", "kiso"),
        url("session_detail", "kiso", 1),
        url("session_sheets", "kiso", 1),
        url("session_log", "kiso", 1, "csv"),
        url("session_timeline_svg", "kiso", 1),
        url("event_detail", "kiso", 1),
        url("character_cards", "kiso", aiko),
        url("campaign_export", "kiso"),
        url("home"),
        url("rules"),
        url("guide"),
        url("health"),
        url("service_worker"),
        url("live_changes"),
        url("live_stream"),
    ]


def entry_paths(world: World, name: str) -> list[str]:
    return [
        url(name, "kiso", world.ids["entry_b"]),
        url(name, "kiso", 0),
        url(name, "kiso", 10**30),
        url(name, "otra", world.ids["entry"]),
    ]


# -- the table -------------------------------------------------------------------------------


def dj_board_tap(name, hostile, refusal, *, route: str = "", **more) -> Endpoint:
    return Endpoint(name, "dj", lambda w: url(route or name, "kiso"), hostile, refusal, **more)


ENDPOINTS = [
    Endpoint(
        "act",
        "dj",
        pj_path("act"),
        act_forms,
        board_refusal(act_refusal),
        valid=act_valid,
        foreign=foreign_pj_paths("act"),
        replay=act_replay,
    ),
    Endpoint(
        "secret",
        "dj",
        pj_path("secret"),
        secret_forms,
        board_refusal(card_refusal),
        valid=lambda w: st.just({"name": "fugu", "hide": "1"}),
        foreign=foreign_pj_paths("secret"),
    ),
    Endpoint(
        "catch_up",
        "dj",
        pj_path("catch_up", "kenji"),
        catch_up_forms,
        board_refusal(card_refusal),
        valid=lambda w: st.just({"how": "activo"}),
        foreign=foreign_pj_paths("catch_up"),
        replay=catch_up_replay,
    ),
    dj_board_tap(
        "party_time",
        time_forms,
        board_refusal(party_refusal(["time-error", "other-time-error"])),
        valid=lambda w: st.just({"unit": "minutes", "amount": "5"}),
        foreign=foreign_campaign_paths("party_time"),
        replay=party_replay,
    ),
    dj_board_tap(
        "party_descanso",
        descanso_forms,
        board_refusal(party_refusal(["time-error", "other-time-error"])),
        valid=lambda w: st.just({}),
        foreign=foreign_campaign_paths("party_descanso"),
        replay=party_replay,
    ),
    dj_board_tap(
        "next_round",
        None,  # nothing to get wrong in its form: only who taps it, and its key
        board_refusal(party_refusal(["time-error"])),
        valid=lambda w: no_fields(w),
        foreign=foreign_campaign_paths("next_round"),
        replay=round_replay,
    ),
    dj_board_tap(
        "undo",
        undo_forms,
        board_refusal(party_refusal(["time-error"])),
        valid=lambda w: st.just({}),
        foreign=foreign_campaign_paths("undo"),
    ),
    dj_board_tap(
        "void",
        void_forms,
        board_refusal(party_refusal(["void-error"])),
        valid=lambda w: st.just({"seq": str(w.ids["latest"]), "reason": "mal"}),
        foreign=foreign_campaign_paths("void"),
    ),
    dj_board_tap(
        "fight_setup",
        fight_forms(on=False),
        fight_page_refusal,
        valid=lambda w: order_rows(w, valid_rows=True).map(as_form),
        foreign=foreign_campaign_paths("fight_setup"),
    ),
    dj_board_tap(
        "fight_setup_on",
        fight_forms(on=True),
        fight_page_refusal,
        valid=lambda w: order_rows(w, valid_rows=True).map(as_form),
        foreign=foreign_campaign_paths("fight_setup"),
        replay=fight_setup_replay,
        fight=True,
        route="fight_setup",
    ),
    dj_board_tap(
        "fight_pass",
        fight_tap_forms,
        board_refusal(party_refusal(["fight-error"])),
        valid=lambda w: st.just({}),
        foreign=foreign_campaign_paths("fight_pass"),
        replay=fight_tap_replay("fight_pass", "pass-once"),
        fight=True,
    ),
    dj_board_tap(
        "fight_end",
        fight_tap_forms,
        board_refusal(party_refusal(["fight-error"])),
        valid=lambda w: st.just({}),
        foreign=foreign_campaign_paths("fight_end"),
        replay=fight_tap_replay("fight_end", "fight-once"),
        fight=True,
    ),
    Endpoint(
        "fight_pass_no_fight",
        "dj",
        lambda w: url("fight_pass", "kiso"),
        lambda w: st.one_of(fight_tap_forms(w), no_fields(w)),
        board_refusal(party_refusal(["fight-error"])),
    ),
    Endpoint(
        "fight_pass_ended",
        "dj",
        lambda w: url("fight_pass", "kiso"),
        lambda w: st.one_of(fight_tap_forms(w), no_fields(w)),
        board_refusal(party_refusal(["fight-error"])),
        replay=fight_tap_replay("fight_pass", "pass-once"),
        fight="ended",
    ),
    Endpoint(
        "fight_end_ended",
        "dj",
        lambda w: url("fight_end", "kiso"),
        lambda w: st.one_of(fight_tap_forms(w), no_fields(w)),
        board_refusal(party_refusal(["fight-error"])),
        replay=fight_tap_replay("fight_end", "end-once"),
        fight="ended",
    ),
    Endpoint(
        "pnj_add",
        "dj",
        lambda w: url("pnj_add", "kiso"),
        lambda w: st.one_of(
            st.fixed_dictionaries(
                {"name": st.one_of(st.sampled_from(["", "   ", "\u3000"]), huge(40))}
            ),
            st.fixed_dictionaries({"name": st.just("Oni"), "count": int_bad(1, 20)}),
            st.fixed_dictionaries({"name": st.just("Oni"), "side": odd_text}),
            st.fixed_dictionaries({"name": st.just("Oni"), "fight": st.just("1")}),
        ),
        board_refusal(party_refusal(["pnj-error"])),
    ),
    Endpoint(
        "area_blow",
        "dj",
        lambda w: url("area_blow", "kiso"),
        lambda w: st.fixed_dictionaries(
            {"type": st.one_of(odd_text, st.just("heridas")), "grade": odd_text},
            optional={"area": st.just(str(pk_of(w, "aiko")))},
        ),
        board_refusal(party_refusal(["area-error"])),
    ),
    Endpoint(
        "fight_out",
        "dj",
        lambda w: url("fight_out", "kiso"),
        lambda w: st.fixed_dictionaries(
            {"pj": st.one_of(odd_text, st.just(str(pk_of(w, "aiko")))), "why": odd_text}
        ),
        board_refusal(party_refusal(["fight-error"])),
    ),
    Endpoint(
        "reminder_add",
        "dj",
        lambda w: url("reminder_add", "kiso"),
        reminder_forms,
        board_refusal(party_refusal(["reminder-error"])),
        valid=lambda w: st.just({"text": "el veneno", "when": "round", "round": "3"}),
        foreign=foreign_campaign_paths("reminder_add"),
    ),
    Endpoint(
        "reminder_add_in_fight",
        "dj",
        lambda w: url("reminder_add", "kiso"),
        reminder_forms,
        board_refusal(party_refusal(["reminder-error"])),
        fight=True,
    ),
    Endpoint(
        "reminder_delete",
        "dj",
        lambda w: url("reminder_delete", "kiso", w.ids["reminder"]),
        None,
        None,
        valid=no_fields,
        foreign=reminder_paths,
        reads_post=False,
    ),
    Endpoint(
        "party_in_fight",
        "dj",
        lambda w: url("party_time", "kiso"),
        lambda w: st.sampled_from(
            [{"unit": "minutes", "amount": "5"}, {"unit": "rounds", "amount": "1"}]
        ),
        board_refusal(party_refusal(["time-error", "other-time-error"])),
        fight=True,
    ),
    Endpoint(
        "round_in_fight",
        "dj",
        lambda w: url("next_round", "kiso"),
        no_fields,
        board_refusal(party_refusal(["time-error"])),
        fight=True,
    ),
    Endpoint(
        "chooser_without_js",
        "dj",
        lambda w: url("ask", "kiso", pk_of(w, "aiko"), "heal"),
        lambda w: st.one_of(
            no_fields(w), st.fixed_dictionaries({"grade": st.one_of(odd_text, huge(100))})
        ),
        lambda w: sent_on_to_the_chooser(w),
        foreign=lambda w: [
            url("ask", "kiso", pk_of(w, "sora"), "heal"),
            url("ask", "otra", pk_of(w, "aiko"), "heal"),
            url("ask", "kiso", 0, "heal"),
            url("ask", "nada", pk_of(w, "aiko"), "heal"),
        ],
        htmx=st.just(False),
        reads_post=False,
        late=False,
    ),
    Endpoint(
        "get_only",
        "dj",
        lambda w: url("card", "kiso", pk_of(w, "aiko")),
        no_fields,
        lambda w: status_with_message(405),
        foreign=lambda w: get_only_paths(w),
        foreign_expect=lambda w: status_with_message(405),
        intruders=(),
        htmx=st.just(False),
        reads_post=False,
        late=False,
    ),
    # Setting the campaign up
    Endpoint(
        "campaign_settings",
        "dj",
        lambda w: url("campaign_settings", "kiso"),
        campaign_forms(new=False),
        lambda w: form_again,
        valid=lambda w: st.just({"name": "Kiso 2", "players_see_party": "on"}),
        foreign=foreign_campaign_paths("campaign_settings"),
        htmx=st.just(False),
    ),
    Endpoint(
        "campaign_new",
        "nadie",
        lambda w: url("campaign_new"),
        campaign_forms(new=True),
        lambda w: form_again,
        intruders=(None,),
        htmx=st.just(False),
    ),
    Endpoint(
        "character_new",
        "dj",
        lambda w: url("character_new", "kiso"),
        lambda w: character_forms(w, taken=["Kenji", "kenji", "HANA", " Hana ", "aiko"]),
        lambda w: form_again,
        valid=character_valid,
        foreign=foreign_campaign_paths("character_new"),
        htmx=st.just(False),
    ),
    Endpoint(
        "character_edit",
        "dj",
        pj_path("character_edit"),
        lambda w: character_forms(w, taken=["Kenji", "kenji", "HANA", " Hana "]),
        lambda w: form_again,
        valid=character_valid,
        foreign=foreign_pj_paths("character_edit", archived_ok=True),
        htmx=st.just(False),
    ),
    Endpoint(
        "character_archive",
        "dj",
        pj_path("character_archive", "kenji"),
        None,
        None,
        valid=no_fields,
        foreign=foreign_pj_paths("character_archive"),
        htmx=st.just(False),
        reads_post=False,
    ),
    Endpoint(
        "character_restore",
        "dj",
        pj_path("character_restore", "hana"),
        None,
        None,
        valid=no_fields,
        foreign=lambda w: (
            [url("character_restore", "kiso", pk_of(w, n)) for n in ("aiko", "kenji", "sora")]
            + [
                url("character_restore", "kiso", 10**30),
                url("character_restore", "otra", pk_of(w, "hana")),
            ]
        ),
        htmx=st.just(False),
        reads_post=False,
    ),
    Endpoint(
        "catalogue",
        "dj",
        lambda w: url("catalogue", "kiso"),
        catalogue_forms,
        lambda w: form_again,
        valid=lambda w: st.just({"name": "nuevo", "kind": "veneno"}),
        foreign=foreign_campaign_paths("catalogue"),
        htmx=st.just(False),
    ),
    Endpoint(
        "catalogue_edit",
        "dj",
        lambda w: url("catalogue_edit", "kiso", w.ids["entry"]),
        catalogue_edit_forms,
        lambda w: form_again,
        valid=lambda w: st.just({"effect": "Otro efecto."}),
        foreign=lambda w: entry_paths(w, "catalogue_edit"),
        htmx=st.just(False),
    ),
    Endpoint(
        "catalogue_delete",
        "dj",
        lambda w: url("catalogue_delete", "kiso", w.ids["entry"]),
        None,
        None,
        valid=no_fields,
        foreign=lambda w: entry_paths(w, "catalogue_delete"),
        htmx=st.just(False),
        reads_post=False,
    ),
    # The PNJ page
    Endpoint(
        "template_new",
        "dj",
        lambda w: url("template_new", "kiso"),
        template_forms("Ronin", ["Bandido", "bandido", " LOBO "]),
        lambda w: form_again,
        valid=lambda w: st.just({"name": "Ronin", "side": "enemigo", "FUE": "3"}),
        foreign=foreign_campaign_paths("template_new"),
        htmx=st.just(False),
    ),
    Endpoint(
        "template_edit",
        "dj",
        lambda w: url("template_edit", "kiso", w.ids["template"]),
        template_forms("Bandido", ["Lobo", "lobo", " LOBO "]),
        lambda w: form_again,
        valid=lambda w: st.just({"name": "Bandido", "side": "aliado", "FUE": "4"}),
        foreign=template_paths("template_edit"),
        htmx=st.just(False),
    ),
    Endpoint(
        "template_copies",
        "dj",
        lambda w: url("template_copies", "kiso", w.ids["template"]),
        copies_forms,
        lambda w: form_again,
        valid=lambda w: st.just({"count": "2"}),
        foreign=template_paths("template_copies"),
        replay=pnj_replay(
            "template_copies",
            lambda w: url("template_copies", "kiso", w.ids["template"]),
            {},
            "copies-once",
        ),
        htmx=st.just(False),
    ),
    Endpoint(
        "template_delete",
        "dj",
        lambda w: url("template_delete", "kiso", w.ids["template"]),
        None,
        None,
        valid=no_fields,
        foreign=template_paths("template_delete"),
        htmx=st.just(False),
        reads_post=False,
    ),
    Endpoint(
        "pnj_new",
        "dj",
        lambda w: url("pnj_new", "kiso"),
        pnj_new_forms,
        lambda w: form_again,
        valid=lambda w: st.just({"name": "Oni", "count": "2", "side": "aliado"}),
        foreign=foreign_campaign_paths("pnj_new"),
        replay=pnj_replay(
            "pnj_new",
            lambda w: url("pnj_new", "kiso"),
            {"name": "Ronin", "side": "enemigo"},
            "pnj-once",
        ),
        htmx=st.just(False),
    ),
    Endpoint(
        "pnj_edit",
        "dj",
        pj_path("pnj_edit", "ronin"),
        pnj_edit_forms,
        lambda w: form_again,
        valid=lambda w: st.just({"name": "Ronin", "side": "aliado", "shows": "ficha"}),
        foreign=pnj_paths("pnj_edit", archived_ok=True),
        htmx=st.just(False),
    ),
    Endpoint(
        "pnj_reveal",
        "dj",
        pj_path("pnj_reveal", "ronin"),
        lambda w: missing_or(odd_text.filter(lambda v: v not in ("0", "1"))).map(
            lambda v: {} if v is None else {"revealed": v}
        ),
        board_refusal(party_refusal(["pnj-error"])),
        valid=lambda w: st.just({"revealed": "1"}),
        foreign=pnj_paths("pnj_reveal"),
    ),
    Endpoint(
        "pnj_archive",
        "dj",
        pj_path("pnj_archive", "ronin"),
        None,
        None,
        valid=no_fields,
        foreign=pnj_paths("pnj_archive"),
        htmx=st.just(False),
        reads_post=False,
    ),
    Endpoint(
        "pnj_restore",
        "dj",
        pj_path("pnj_restore", "espia"),
        None,
        None,
        valid=no_fields,
        foreign=pnj_paths("pnj_restore", archived_ok=True, active_ok=False),
        htmx=st.just(False),
        reads_post=False,
    ),
    Endpoint(
        "session_start",
        "dj",
        lambda w: url("session_start", "kiso"),
        session_start_forms,
        back_refusal,
        valid=lambda w: st.just({"title": "Dos"}),
        foreign=foreign_campaign_paths("session_start"),
        htmx=st.just(False),
    ),
    Endpoint(
        "session_end",
        "dj",
        lambda w: url("session_end", "kiso"),
        session_end_forms,
        back_refusal,
        valid=lambda w: st.just({"recap": "Fin."}),
        foreign=foreign_campaign_paths("session_end"),
        htmx=st.just(False),
    ),
    Endpoint(
        "session_recap",
        "dj",
        lambda w: url("session_recap", "kiso", 1),
        recap_forms,
        lambda w: kept_refusal(url("session_detail", "kiso", 1), "session_recap"),
        valid=lambda w: st.just({"recap": "Resumen."}),
        foreign=lambda w: [
            url("session_recap", "kiso", 2),
            url("session_recap", "kiso", 10**30),
            url("session_recap", "otra", 1),
        ],
        htmx=st.just(False),
    ),
    Endpoint(
        "session_note",
        "dj",
        lambda w: url("session_note", "kiso", 1),
        note_forms,
        lambda w: kept_refusal(url("session_detail", "kiso", 1), "session_note"),
        valid=lambda w: st.just({"dj_note": "Nota."}),
        foreign=lambda w: [
            url("session_note", "kiso", 2),
            url("session_note", "kiso", 10**30),
            url("session_note", "otra", 1),
        ],
        htmx=st.just(False),
    ),
    # Players
    Endpoint(
        "invite",
        "dj",
        pj_path("invite"),  # Aiko has her player: the invitation is refused
        no_fields,
        lambda w: flash_redirect(url("players", "kiso") + f"#pj-{pk_of(w, 'aiko')}"),
        valid=no_fields,
        foreign=foreign_pj_paths("invite"),
        htmx=st.just(False),
        reads_post=False,
    ),
    Endpoint(
        "invitation_cancel",
        "dj",
        lambda w: url("invitation_cancel", "kiso", w.ids["used"]),  # already used
        no_fields,
        lambda w: flash_redirect(url("players", "kiso")),
        valid=no_fields,
        foreign=lambda w: [
            url("invitation_cancel", "kiso", w.ids["pending_b"]),
            url("invitation_cancel", "kiso", 0),
            url("invitation_cancel", "kiso", 10**30),
            url("invitation_cancel", "otra", w.ids["pending"]),
        ],
        htmx=st.just(False),
        reads_post=False,
    ),
    Endpoint(
        "player_remove",
        "dj",
        pj_path("player_remove", "kenji"),  # Kenji has no player to remove
        no_fields,
        lambda w: flash_redirect(url("players", "kiso") + f"#pj-{pk_of(w, 'kenji')}"),
        valid=no_fields,
        foreign=foreign_pj_paths("player_remove"),
        htmx=st.just(False),
        reads_post=False,
    ),
    Endpoint(
        "password_link",
        "dj",
        pj_path("password_link", "kenji"),  # Kenji has no player: no link to give
        no_fields,
        lambda w: not_found,
        valid=no_fields,
        foreign=foreign_pj_paths("password_link"),
        htmx=st.just(False),
        reads_post=False,
    ),
    Endpoint(
        "join_code",
        None,
        lambda w: url("join_code"),
        code_forms,
        lambda w: join_code_refusal,
        intruders=(),
        htmx=st.just(False),
        leave_out=(WrongCode,),
    ),
    Endpoint(
        "join",
        None,
        lambda w: url("join", w.ids["pending_token"]),
        account_forms,
        lambda w: join_refusal,
        foreign=join_paths,
        intruders=(),
        extra=lambda w: st.builds(
            lambda form: Case(
                "dj", url("join", w.ids["pending_token"]), join_refusal, form=form, why="its DJ"
            ),
            st.one_of(account_forms(w), no_fields(w)),
        ),
        htmx=st.just(False),
    ),
    Endpoint(
        "sheet_roll",
        "mei",
        pj_path("sheet_roll"),
        roll_forms,
        sheet_refusal,
        valid=lambda w: st.just({"check": "heridas_leve_descanso"}),
        foreign=lambda w: (
            [url("sheet_roll", "kiso", pk_of(w, n)) for n in ("kenji", "hana", "sora", "taro")]
            + [url("sheet_roll", "otra", pk_of(w, "aiko")), url("sheet_roll", "kiso", 10**30)]
        ),
        intruders=("dj_b", "rin", "nadie"),
        replay=roll_replay,
    ),
    # History
    Endpoint(
        "event_void",
        "dj",
        lambda w: url("event_void", "kiso", w.ids["latest"]),
        event_void_forms,
        event_page_refusal,
        valid=lambda w: st.just({"reason": "mal anotado"}),
        foreign=lambda w: [
            url("event_void", "kiso", 0),
            url("event_void", "kiso", 10**6),
            url("event_void", "kiso", 10**30),
            url("event_void", "otra", w.ids["b_seq"]),
        ],
        replay=lambda w: st.builds(
            lambda form: Case(
                "dj",
                url("event_void", "kiso", w.ids["voided"]),
                done_redirect(url("event_detail", "kiso", w.ids["voided"])),
                form=form,
                why="already void",
            ),
            st.one_of(event_void_forms(w), st.just({"reason": "otra vez"})),
        ),
        htmx=st.just(False),
    ),
    # Backups
    Endpoint(
        "campaign_import",
        "dj",
        lambda w: url("campaign_import"),
        None,
        None,
        intruders=(None,),
        extra=lambda w: import_cases(w),
        htmx=st.just(False),
    ),
    # Accounts
    Endpoint(
        "signup",
        None,
        lambda w: url("signup"),
        account_forms,
        lambda w: status_with_message(422),
        intruders=(),
        htmx=st.just(False),
    ),
    Endpoint(
        "login",
        None,
        lambda w: url("login"),
        login_forms,
        lambda w: either(status_with_message(200), status_with_message(429)),
        intruders=(),
        htmx=st.just(False),
    ),
    Endpoint(
        "admin_login",
        None,
        lambda w: reverse("admin:login"),
        login_forms,
        # Only staff reach the admin, and they log in on the app's page: the app's 404.
        lambda w: status_with_message(404),
        intruders=(),
        htmx=st.just(False),
        reads_post=False,  # refused before any field is read, or its time
        late=False,
    ),
    Endpoint(
        "password_change",
        "mei",
        lambda w: url("password_change"),
        password_change_forms,
        lambda w: form_again,
        intruders=(None,),
        htmx=st.just(False),
    ),
    Endpoint(
        "password_reset_confirm",
        None,
        lambda w: reset_path(w, "no-es-un-token"),
        reset_forms,
        lambda w: reset_link_refused,
        foreign=lambda w: [
            reset_path(w, "x" * 1000),
            url("password_reset_confirm", "x", "set-password"),
            url("password_reset_confirm", "%00", "set-password"),
            url("password_reset_confirm", urlsafe_base64_encode(b"99999999999999999999"), "t"),
            url("password_reset_confirm", urlsafe_base64_encode(b"\xff\xfe"), "t"),
        ],
        foreign_expect=lambda w: reset_link_refused,
        intruders=(),
        extra=lambda w: st.builds(
            lambda form: Case(
                None, "", form_again, form=form, prepare=reset_prepare(w), why="valid link"
            ),
            reset_forms(w),
        ),
        htmx=st.just(False),
    ),
    Endpoint(
        "logout",
        "dj",
        lambda w: url("logout"),
        None,
        None,
        intruders=(),
        extra=lambda w: st.builds(
            lambda form: Case("dj", url("logout"), logged_out, form=form, why="junk"),
            no_fields(w),
        ),
        htmx=st.just(False),
        late=False,
    ),
    Endpoint(
        "set_language",
        None,
        lambda w: url("set_language"),
        None,
        None,
        intruders=(),
        extra=lambda w: st.builds(
            lambda user, form: Case(user, url("set_language"), safe_redirect, form=form),
            st.sampled_from([None, "dj"]),
            st.fixed_dictionaries(
                {
                    "language": missing_or(field_of(st.one_of(bad, st.sampled_from(["EN", "xx"])))),
                    "next": missing_or(
                        st.sampled_from(
                            ["https://evil.example/", "//evil.example/x", "javascript:x", "/\\evil"]
                        ),
                        odd_text,
                    ),
                }
            ),
        ),
        htmx=st.just(False),
        late=False,
    ),
]


# -- the cases of an endpoint ----------------------------------------------------------------

# A tap stamped as sent long ago (static/js/live/taps.js stamps each one): refused, never applied.
LATE = st.sampled_from(["1", "0", "1000", "1600000000000"])


def cases(endpoint: Endpoint, world: World) -> st.SearchStrategy[Case]:
    own = endpoint.path(world)
    forms = [f(world) for f in (endpoint.hostile, endpoint.valid) if f is not None]
    any_form = st.one_of(*forms) if forms else st.just({})
    headers = endpoint.htmx.map(lambda htmx: dict(HX) if htmx else {})
    found = []
    if endpoint.hostile is not None:
        found += 3 * [  # the forms weigh most: each of the other kinds is one way in
            st.builds(
                lambda form, h: Case(
                    endpoint.owner, own, endpoint.refusal(world), form=form, headers=h, why="form"
                ),
                endpoint.hostile(world),
                headers,
            )
        ]
    if endpoint.foreign is not None:
        expect = (endpoint.foreign_expect or (lambda w: not_found))(world)
        found.append(
            st.builds(
                lambda path, form, h: Case(
                    endpoint.owner, path, expect, form=form, headers=h, why="not theirs"
                ),
                st.sampled_from(endpoint.foreign(world)),
                any_form,
                headers,
            )
        )
    for intruder in endpoint.intruders:
        found.append(
            st.builds(
                lambda form, h, who=intruder: Case(
                    who, own, not_found if who else to_login, form=form, headers=h, why="intruder"
                ),
                any_form,
                headers,
            )
        )
    if endpoint.replay is not None:
        found.append(endpoint.replay(world))
    if endpoint.extra is not None:
        found.append(endpoint.extra(world))
    if endpoint.late:
        found.append(
            st.builds(
                lambda form, h, sent: Case(
                    endpoint.owner,
                    own,
                    too_late,
                    form=form,
                    headers={**h, "X-Zodiac-Sent": sent},
                    why="late",
                ),
                any_form,
                headers,
                LATE,
            )
        )
    if endpoint.reads_post and endpoint.hostile is not None:
        found.append(
            st.builds(
                lambda body, h: Case(
                    endpoint.owner,
                    own,
                    status_with_message(400),
                    body=body,
                    headers=h,
                    why="unreadable body",
                ),
                st.sampled_from(
                    [
                        # More fields than Django reads (DATA_UPLOAD_MAX_NUMBER_FIELDS)...
                        "&".join(f"f{i}=1" for i in range(1001)).encode(),
                        # ... or a body larger than it takes (DATA_UPLOAD_MAX_MEMORY_SIZE).
                        b"a=" + b"x" * (django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1),
                    ]
                ),
                headers,
            )
        )
    return st.one_of(*found)


@pytest.fixture
def world(request, db) -> World:
    callspec = getattr(request.node, "callspec", None)
    endpoint = callspec.params.get("endpoint") if callspec else None
    return build_world(fight=endpoint.fight if endpoint else False)


@pytest.fixture
def requests(world):
    requests = Requests(world)
    yield requests
    requests.close()


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.name)
@HOSTILE
@given(data=st.data())
def test_hostile_input_is_refused_with_a_message_and_writes_nothing(
    endpoint, world, requests, data
):
    case = data.draw(cases(endpoint, world), label="case")
    run(requests, case, leave_out=endpoint.leave_out, reads_post=endpoint.reads_post)


def test_every_route_is_in_the_table(world):
    """A new view gets its hostile input too: every named route of the app is posted to by
    an endpoint of ENDPOINTS, or is a GET-only page of get_only (a POST there is a 405), or
    one of Django's own "done" pages that take no input."""
    from django.urls import get_resolver, resolve

    covered = {resolve(e.path(world).split("?")[0]).url_name for e in ENDPOINTS}
    covered |= {resolve(path).url_name for path in get_only_paths(world)}
    takes_nothing = {"password_reset_complete", "password_change_done"}
    routes = {name for name in get_resolver().reverse_dict if isinstance(name, str)}
    assert routes - covered - takes_nothing == set()


# -- the harness can fail --------------------------------------------------------------------


def test_the_harness_fails_on_a_row_written(world, requests):
    tap = Case(
        "dj",
        url("act", "kiso", pk_of(world, "aiko")),
        card_refusal,
        form={"action": "time", "unit": "minutes", "amount": "5"},
        headers=HX,
    )
    with pytest.raises(AssertionError):
        run(requests, tap)


def test_the_harness_fails_on_a_500(world, requests, monkeypatch):
    def boom(data):
        raise RuntimeError("boom")

    monkeypatch.setattr("campaign.taps.time_event", boom)
    tap = Case(
        "dj",
        url("party_time", "kiso"),
        party_refusal(["time-error"]),
        form={"unit": "minutes", "amount": "5"},
        headers=HX,
    )
    with pytest.raises(AssertionError, match="raised"):
        run(requests, tap)


def test_the_harness_fails_on_an_answer_without_words(world, requests):
    quiet = Case("dj", url("logout"), not_found)
    with pytest.raises(AssertionError):
        run(requests, quiet)


# -- odd text that is fine to take ---------------------------------------------------------

# Free text the app takes as typed (tidied): a form that is otherwise right is done, whatever
# its text holds. What it must never store is a NUL, which PostgreSQL refuses in a text or
# jsonb column (a 500 there, silently kept on SQLite): so this test finds on SQLite what would
# fail on PostgreSQL.
odd_free_text = st.builds(
    lambda a, e, b: a + e + b, odd_text, st.one_of(st.just("\x00"), st.sampled_from(EVIL)), odd_text
)


def _act(form):
    return lambda w, t: ("dj", url("act", "kiso", pk_of(w, "aiko")), form(t))


def _npc_row(w, t):
    aiko = pk_of(w, "aiko")
    form = {"mode": "start", "slot": [f"pj:{aiko}", "npc:1"], "name": ["", t], "init": ["", ""]}
    return "dj", url("fight_setup", "kiso"), form


def _npc_added(w, t):
    aiko = pk_of(w, "aiko")
    form = {"mode": "start", "slot": [f"pj:{aiko}"], "name": [""], "init": [""], "step": "add"}
    return "dj", url("fight_setup", "kiso"), {**form, "new": "npc", "new_name": t}


FREE_TEXT = {
    "cause": _act(lambda t: {"action": "suffer", "type_grade": "emocion:leve", "cause": t}),
    "source": _act(lambda t: {"action": "suffer", "type_grade": "afeccion:leve", "new_source": t}),
    "special": _act(lambda t: {"action": "special", "name": t}),
    "npc_row": _npc_row,
    "npc_added": _npc_added,
    "void_reason": lambda w, t: (
        "dj",
        url("void", "kiso"),
        {"seq": str(w.ids["latest"]), "reason": t},
    ),
    "event_void_reason": lambda w, t: (
        "dj",
        url("event_void", "kiso", w.ids["latest"]),
        {"reason": t},
    ),
    "recap": lambda w, t: ("dj", url("session_recap", "kiso", 1), {"recap": t}),
    "end_recap": lambda w, t: ("dj", url("session_end", "kiso"), {"recap": t}),
    "dj_note": lambda w, t: ("dj", url("session_note", "kiso", 1), {"dj_note": t}),
    "end_note": lambda w, t: ("dj", url("session_end", "kiso"), {"recap": "", "dj_note": t}),
    "title": lambda w, t: ("dj", url("session_start", "kiso"), {"title": t}),
    "effect": lambda w, t: ("dj", url("catalogue_edit", "kiso", w.ids["entry"]), {"effect": t}),
    "notes": lambda w, t: (
        "dj",
        url("character_edit", "kiso", pk_of(w, "aiko")),
        {"name": "Aiko", "notes": t},
    ),
    "pnj_name": lambda w, t: (
        "dj",
        url("pnj_new", "kiso"),
        {"name": t, "count": "2", "side": "enemigo"},
    ),
    "pnj_notes": lambda w, t: (
        "dj",
        url("pnj_edit", "kiso", pk_of(w, "ronin")),
        {"name": "Ronin", "side": "enemigo", "shows": "nombre", "notes": t},
    ),
    "reminder_text": lambda w, t: (
        "dj",
        url("reminder_add", "kiso"),
        {"text": t, "when": "end", "character": str(pk_of(w, "aiko"))},
    ),
    "template_name": lambda w, t: (
        "dj",
        url("template_new", "kiso"),
        {"name": t, "side": "aliado", "other_powers": t, "notes": t},
    ),
}


def _nul_in(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_nul_in(k) or _nul_in(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_nul_in(v) for v in value)
    return False


@pytest.mark.parametrize("where", FREE_TEXT)
@settings(HOSTILE, max_examples=15)
@given(text=odd_free_text, htmx=st.booleans())
def test_odd_free_text_is_taken_or_refused_never_a_500_never_a_nul_stored(
    where, world, requests, text, htmx
):
    user, path, form = FREE_TEXT[where](world, text)
    requests.client(user)  # its session outlives the rollback below
    with transaction.atomic():
        requests.exceptions.clear()
        response = requests.post(Case(user, path, None, form=form, headers=HX if htmx else {}))
        assert not requests.exceptions, f"the view raised {requests.exceptions!r}"
        assert response.status_code < 500, response.status_code
        stored = rows(counted_models())
        transaction.set_rollback(True)
    for name, found in stored.items():
        assert not _nul_in(found), f"a NUL stored in {name}"
