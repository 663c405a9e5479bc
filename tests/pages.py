"""Every page a DJ, a player and a visitor reach, for the checks that run over all of them
(HTML validation in tests/test_html_valid.py, accessibility in tests/browser/).

The pages are found the way people find them: from a few entry points, following every link
of every page (`<a href>` and GET forms to this site), so a new page joins the checks once something
links to it. `EXPECTED` names the routes the crawl must reach for each kind of visitor: a page
that nothing links to any more, or a route added without being listed, fails loudly instead
of leaving the checks.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from html.parser import HTMLParser
from io import StringIO
from urllib.parse import urldefrag, urlsplit

from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.management import call_command
from django.test import Client
from django.urls import Resolver404, resolve
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from campaign import services
from campaign.models import Campaign, Character
from campaign.turn_order import Slot

# Routes that are not pages to check: files, streams, redirects and the admin's own pages.
NOT_PAGES = {
    "campaign_export",  # a JSON download
    "session_log",  # CSV / Markdown downloads
    "session_timeline_svg",  # an image
    "service_worker",
    "live_stream",
    "live_changes",
    "logout",  # POST only
    "set_language",  # POST only
    "health",  # JSON for the proxy
}
# How many pages of one route to keep (each event has its page: two are enough).
PER_ROUTE = 2


@dataclass(frozen=True)
class Visitor:
    """Who crawls: a login (None: nobody) and where they start."""

    name: str
    login: str | None
    start: tuple[str, ...]


def stage() -> dict:
    """The Demo campaign (two past sessions) plus an evening in progress: a session open,
    a fight on (with a name-only slot of an older log, a group of PNJ, the DJ's reminders
    and, prolonged effort on, one not exerting itself), a pending TS, a secret Afección, a
    catalogue entry, a Plantilla and PNJ (enemies, an ally, an archived one), a PJ with no
    player yet (with an invitation), an archived PJ and a one-time password link."""
    call_command("demo", stdout=StringIO())
    campaign = Campaign.objects.get(slug="demo")
    dj = get_user_model().objects.get(username="dj")
    pj = {c.name: c for c in campaign.characters.all()}

    def record(name: str | None, **event) -> None:
        services.event_record(
            campaign=campaign, character=pj[name] if name else None, event=event, actor=dj
        )

    services.session_start(campaign=campaign, title="El puente de cuerdas")
    record("Aiko", kind="suffer", type="shock", grade="grave")
    record("Aiko", kind="turn_end")  # its TS VOL is now pending
    record("Taro", kind="suffer", type="afeccion", grade="leve", source="veneno de fugu")
    services.character_secrets_set(character=pj["Taro"], add=["veneno de fugu"])
    services.catalogue_entry_save(
        campaign=campaign, name="Fiebre del pantano", kind="enfermedad", effect="Tiembla y suda."
    )
    # PNJ: a Plantilla and two copies of it, an ally in the party shown to the players, and
    # an archived one.
    bandido = services.template_save(
        campaign=campaign, name="Bandido", attributes={"FUE": 3, "VOL": 2}, notes="Cuchillo."
    )
    bandidos = services.pnj_create(campaign=campaign, template=bandido, count=2, actor=dj)
    monje = services.pnj_create(campaign=campaign, name="Monje", side="aliado", actor=dj)[0]
    services.pnj_settings_set(character=monje, in_party=True, revealed=True, shows="ficha")
    espia = services.pnj_create(campaign=campaign, name="Espía", actor=dj)[0]
    services.character_archive(character=espia)
    yumi = services.character_create(campaign=campaign, name="Yumi", actor=dj)
    invitation = services.invitation_create(character=yumi, by=dj)
    gone = services.character_create(campaign=campaign, name="Hiro", actor=dj)
    services.character_archive(character=gone)
    # Prolonged effort on, Aiko not exerting herself: the order page's boxes (R27).
    campaign.esfuerzo_prolongado = True
    campaign.save(update_fields=["esfuerzo_prolongado"])
    services.fight_start(
        campaign=campaign,
        order=[
            Slot(pj=pj["Kenji"].pk),
            Slot(npc=1, name="Oni"),
            Slot(pj=bandidos[0].pk, also=(bandidos[1].pk,)),
            Slot(pj=pj["Aiko"].pk, esfuerzo=False),
        ],
        actor=dj,
    )
    # The DJ's reminders: due now (the round's, the end of Kenji's turn) and one to come.
    services.reminder_add(campaign=campaign, text="Refuerzos en el puente", when="round", round=1)
    services.reminder_add(
        campaign=campaign, text="El veneno actúa", when="end", character=pj["Kenji"], every=True
    )
    services.reminder_add(campaign=campaign, text="Aiko reza", when="start", character=pj["Aiko"])
    aiko_player = pj["Aiko"].player
    reset = (
        f"/accounts/nueva-clave/{urlsafe_base64_encode(force_bytes(aiko_player.pk))}/"
        f"{default_token_generator.make_token(aiko_player)}/"
    )
    return {
        "campaign": campaign,
        "pj": pj | {"Yumi": Character.objects.get(pk=yumi.pk)},
        "invitation": invitation,
        "reset": reset,
    }


def visitors(staged: dict) -> list[Visitor]:
    """The DJ, a player (Aiko's) and someone not logged in, with their entry points."""
    invitation = staged["invitation"]
    return [
        Visitor("dj", "dj", ("/",)),
        Visitor("player", "aiko", ("/",)),
        Visitor(
            "visitor",
            None,
            ("/", f"/unirse/{invitation.token}/", staged["reset"], "/no-existe/"),
        ),
    ]


# The routes each visitor must reach (url names; "404" for the not-found page). A player
# reaches the pages every member does; the DJ those and the ones that run the campaign.
MEMBERS = {
    "home",
    "rules",
    "guide",
    "sheet",
    "history",
    "session_detail",
    "session_sheets",
    "event_detail",
    "character_cards",
    "password_change",
}
EXPECTED = {
    "dj": MEMBERS
    | {
        "campaign_new",
        "campaign_import",
        "board",
        "ask",
        "fight_setup",
        "calculator",
        "campaign_settings",
        "character_list",
        "character_new",
        "character_edit",
        "pnj_list",
        "pnj_edit",
        "template_edit",
        "catalogue",
        "catalogue_edit",
        "players",
    },
    "player": MEMBERS,
    "visitor": {
        "login",
        "signup",
        "rules",
        "guide",
        "join_code",
        "join",
        "password_reset_confirm",
        "404",
    },
}


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "a" and found.get("href"):
            self.hrefs.append(found["href"] or "")
        elif tag == "form" and (found.get("method") or "get").lower() == "get":
            self.hrefs.append(found.get("action") or "")


def links(html: str) -> list[str]:
    """The same-site paths (with their query) that a page's links lead to."""
    parser = _Links()
    parser.feed(html)
    found = []
    for href in parser.hrefs:
        href = urldefrag(href).url
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or not parts.path.startswith("/"):
            continue
        found.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return found


def route(path: str) -> str | None:
    """The url name of a path, or None when it is no route of the site."""
    try:
        return resolve(urlsplit(path).path).url_name
    except Resolver404:
        return None


@dataclass(frozen=True)
class Page:
    visitor: str
    path: str
    route: str  # url name, or "404"
    html: str


def crawl(visitor: Visitor, user_model) -> list[Page]:
    """Every HTML page `visitor` reaches by following links from their entry points."""
    client = Client()
    if visitor.login:
        client.force_login(user_model.objects.get(username=visitor.login))
    queue = list(visitor.start)
    seen: set[str] = set()
    per_route: dict[str, int] = {}
    pages: list[Page] = []
    while queue:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        name = route(path)
        if name in NOT_PAGES or path.startswith("/admin/"):
            continue
        key = name or "404"
        if per_route.get(key, 0) >= PER_ROUTE:
            continue
        response = client.get(path)
        if response.status_code in (301, 302):
            queue.append(response["Location"])
            continue
        if not response.get("Content-Type", "").startswith("text/html"):
            continue
        assert response.status_code in (200, 404), (visitor.name, path, response.status_code)
        if response.status_code == 404 and name is not None:
            continue  # a route with an object this visitor may not see: not a page of theirs
        per_route[key] = per_route.get(key, 0) + 1
        html = response.content.decode()
        pages.append(Page(visitor.name, path, key, html))
        queue.extend(links(html))
    return pages


def routes(pages: Iterable[Page]) -> set[str]:
    return {page.route for page in pages}
